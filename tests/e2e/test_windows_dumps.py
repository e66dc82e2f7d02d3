#!/usr/bin/env python3
"""Windows minidumps as Windows crash reporters send them, written by Wine:
a freestanding crash program (fixtures/windows_crash, clang-19 and
lld-link-19 with a PDB; x64, -O2 and -O0, with and without frame
pointers) runs under wine64 in a prefix of its own; Wine's debugger, set as
the AeDebug debugger, writes the minidump after the crash and prints its
own backtrace. Wine's module lists carry no CodeView records, so the
module is found by its code id: `symstore add` indexes it under
<code_file>/<code_id>/ and the walker looks it up there. The frames in the
program equal winedbg's (function, line, return address), the caller out
of it is kernel32's (callers' lines, which winedbg takes at the return
address, are llvm-symbolizer's at the call); the same walk over HTTP (the store served by nginx)
finds the module by the code-id path."""
import json
import os
import re
import shutil
import subprocess
import tempfile

import upload_servers as servers
from common import Report, arguments

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "fixtures", "windows_crash", "crash.c")
CLANG = "/usr/lib/llvm-19/bin/clang"
LLD_LINK = "/usr/lib/llvm-19/bin/lld-link"
WINE64 = "/usr/lib/wine/wine64"
AEDEBUG = r"HKLM\Software\Microsoft\Windows NT\CurrentVersion\AeDebug"
FRAME = re.compile(r"^(?:=>)?\s*(\d+) 0x([0-9a-f]+) (\S+?)(?:\+0x([0-9a-f]+))?\(.*?\)(?: \[(.*?):(\d+)\])? in (\S+)")


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def build(tmp, name, flags):
    directory = os.path.join(tmp, name)
    os.makedirs(directory)
    obj, exe, pdb = (os.path.join(directory, "crash" + ext) for ext in (".obj", ".exe", ".pdb"))
    sh(CLANG, "--target=x86_64-pc-windows-msvc", "-g", "-gcodeview", *flags, "-c", SOURCE, "-o", obj, check=True)
    sh(LLD_LINK, "/debug", "/nodefaultlib", "/entry:entry", "/subsystem:console", obj, f"/out:{exe}",
       f"/pdb:{pdb}", check=True)
    return exe, pdb


def symbolized_line(exe, address):
    p = sh("llvm-symbolizer-19", f"--obj={exe}", "--no-inlines",
           hex(address))
    m = re.search(r":(\d+):\d+", p.stdout)
    return int(m.group(1)) if m else None


def winedbg_frames(text):
    """winedbg's backtrace: [(return address, function, line, module)]."""
    out = []
    after = text.split("Backtrace:", 1)[-1]
    for line in after.splitlines():
        m = FRAME.match(line)
        if m:
            out.append((int(m.group(2), 16), m.group(3), int(m.group(6)) if m.group(6) else None, m.group(7)))
    return out


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--symstore", required=True),
                                p.add_argument("--nginx", default="nginx")))
    report = Report("Windows minidumps written by Wine")
    tmp = tempfile.mkdtemp()
    try:
        run(args, report, tmp)
    finally:
        # Wine's server of the prefix ends with its last process.
        sh(os.path.join(os.path.dirname(WINE64), "wineserver"), "-k",
           env=dict(os.environ, WINEPREFIX=os.path.join(tmp, "prefix")), timeout=60)
        shutil.rmtree(tmp, ignore_errors=True)
    report.finish()


def run(args, report, tmp):
    env = dict(os.environ, WINEPREFIX=os.path.join(tmp, "prefix"), WINEDEBUG="-all", DISPLAY="",
               WINEDLLOVERRIDES="mscoree,mshtml=")
    sh(WINE64, "wineboot", "--init", env=env, timeout=300)
    dumps = frames = 0
    for name, flags in (("crash.O2.fp", ["-O2", "-fno-omit-frame-pointer"]),
                        ("crash.O2.nofp", ["-O2", "-fomit-frame-pointer"]),
                        ("crash.O0", ["-O0"])):
        exe, pdb = build(tmp, name, flags)
        dump = os.path.join(tmp, name + ".dmp")
        windows_path = "Z:" + dump.replace("/", "\\\\")
        sh(WINE64, "reg", "add", AEDEBUG, "/v", "Debugger", "/t", "REG_SZ", "/d",
           f"winedbg --minidump {windows_path} %ld %ld", "/f", env=env)
        sh(WINE64, "reg", "add", AEDEBUG, "/v", "Auto", "/t", "REG_SZ", "/d", "1", "/f", env=env)
        p = sh(WINE64, exe, env=env, timeout=300)
        theirs = winedbg_frames(p.stdout + p.stderr)
        if not os.path.exists(dump) or not theirs:
            report.fail(f"{name}: Wine wrote no minidump or backtrace: {(p.stdout + p.stderr)[-500:]}")
            continue
        store = os.path.join(tmp, name + ".store")
        q = sh(args.symstore, "add", store, exe, pdb, "-q")
        if q.returncode != 0:
            report.fail(f"{name}: symstore add: {q.stderr.strip()}")
            continue
        q = sh(args.symtool, "stackwalk", "--json", "--store", store, dump)
        if q.returncode != 0:
            report.fail(f"{name}: symtool stackwalk: {q.stderr.strip()}")
            continue
        ours = json.loads(q.stdout)
        module = next((m for m in ours["modules"] if m["name"] == os.path.basename(exe)), None)
        if not module or module["debug_id"] or module["symbols"] != "loaded":
            report.fail(f"{name}: the program is not found by its code id: {module}")
            continue
        crashed = ours["threads"][0]["frames"]
        physical = [f for f in crashed if not f["inlined"]]
        # winedbg's frames in the program, and the first one after them.
        mine = [t for t in theirs if t[3] == "crash"]
        outside = theirs[len(mine)] if len(theirs) > len(mine) else None
        for i, (address, function, line, _) in enumerate(mine):
            got = physical[i] if i < len(physical) else None
            if i > 0:
                # winedbg gives a caller the line of its return address;
                # the call's is the instruction before (llvm-symbolizer
                # reading the PDB says which).
                line = symbolized_line(exe, address - 1)
            if not got or int(got["address"], 16) != address or got["function"] != function or \
                    got["line"] != line:
                report.fail(f"{name}: frame {i}: ours {got} != winedbg's {(hex(address), function, line)}")
                break
            frames += 1
        if len(mine) < 3:
            report.fail(f"{name}: winedbg's backtrace has {len(mine)} frames in the program: {theirs}")
        if outside and (len(physical) <= len(mine) or int(physical[len(mine)]["address"], 16) != outside[0]):
            report.fail(f"{name}: the caller out of the program is not winedbg's {hex(outside[0])} "
                        f"({outside[3]})")
        dumps += 1
        if name == "crash.O2.fp":
            # Over HTTP: the store served by nginx, the module found by its code-id path.
            with servers.Nginx(args.nginx) as nginx:
                shutil.rmtree(nginx.root)
                shutil.copytree(store, nginx.root, symlinks=False)
                shutil.rmtree(os.path.join(nginx.root, os.path.basename(pdb)))
                q = sh(args.symtool, "stackwalk", "--json", "--symbols-url", nginx.url, "--symbols-cache",
                       os.path.join(tmp, "cache"), dump)
                remote = json.loads(q.stdout) if q.returncode == 0 else None
                if not remote or [f["function"] for f in remote["threads"][0]["frames"]] != \
                        [f["function"] for f in crashed]:
                    report.fail(f"{name}: over HTTP by code id: {q.stderr.strip()[:300]}")
    report.note(f"{dumps} Wine minidumps of x64 crashes: {frames} frames in the program equal winedbg's, "
                f"the program found by its code id (locally and over HTTP)")


if __name__ == "__main__":
    main()
