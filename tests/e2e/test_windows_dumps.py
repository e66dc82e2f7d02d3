#!/usr/bin/env python3
"""Windows minidumps as Windows crash reporters send them, written by Wine:
a freestanding crash program (fixtures/windows_crash, clang-19 and
lld-link-19 with a PDB; x64 and x86, -O2 with and without frame pointers,
and -O0; and MinGW-w64's GCC for x64, -O2 and -O0, with its CRT and DWARF
in the PE, no CodeView record) runs under Wine (wine64, and wine32 for x86) in a prefix of its
own; Wine's debugger, set as
the AeDebug debugger, writes the minidump after the crash and prints its
own backtrace. Wine's module lists carry no CodeView records, so the
module is found by its code id: `symstore add` indexes it under
<code_file>/<code_id>/ and the walker looks it up there. The frames in the
program equal winedbg's (function, line, return address), the caller out
of it is kernel32's; x86 callers are found by STACK WIN (callers' lines, which winedbg takes at the return
address, are llvm-symbolizer's at the call); the same walk over HTTP (the store served by nginx)
finds the module by the code-id path. winedbg does not read FPO data and
stops in the first x86 frame without a frame pointer: past it, each of our
callers must return to just after a call instruction (llvm-objdump), at
the line llvm-symbolizer gives for the call, found by STACK WIN, out to
entry() and kernel32. Where the kernel runs no 32-bit x86 programs, Wine's
32-bit loader cannot start: the x86 crashes are left out, said so in the
output (stackwin_vs_machine still walks x86 STACK WIN against the machine,
under qemu-i386)."""
import json
import os
import re
import shutil
import subprocess
import tempfile

import crash_clients
import oracles
import upload_servers as servers
from common import Report, arguments, runs_here
from serve_process import ServeProcess
from test_crash_inbox import get_json, submitted, wait_processed

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "fixtures", "windows_crash", "crash.c")
CLANG = "/usr/lib/llvm-19/bin/clang"
LLD_LINK = "/usr/lib/llvm-19/bin/lld-link"
WINE64 = "/usr/lib/wine/wine64"
WINE32 = "/usr/lib/wine/wine"
X64, X86 = "x86_64-pc-windows-msvc", "i686-pc-windows-msvc"
MINGW64 = "x86_64-w64-mingw32"
# (32-bit processes read theirs from the WOW64 view of the registry)
AEDEBUG = (r"HKLM\Software\Microsoft\Windows NT\CurrentVersion\AeDebug",
           r"HKLM\Software\Wow6432Node\Microsoft\Windows NT\CurrentVersion\AeDebug")
FRAME = re.compile(r"^(?:=>)?\s*(\d+) 0x([0-9a-f]+) (\S+?)(?:\+0x([0-9a-f]+))?\(.*?\)(?: \[(.*?):(\d+)\])? in (\S+)")
# (a frame winedbg has no debug information for: the MinGW CRT's DWARF 5)
UNNAMED_FRAME = re.compile(r"^(?:=>)?\s*(\d+) 0x([0-9a-f]+) in (\S+) \(\+0x[0-9a-f]+\)")


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def build(tmp, name, flags, target):
    directory = os.path.join(tmp, name)
    os.makedirs(directory)
    obj, exe, pdb = (os.path.join(directory, "crash" + ext) for ext in (".obj", ".exe", ".pdb"))
    if target == MINGW64:
        # MinGW-w64's GCC: DWARF in the PE, no CodeView record, no PDB; a
        # program with its CRT, which calls entry() as main(). (DWARF 4:
        # Wine 8's debugger, the oracle, reads no DWARF 5.)
        sh("x86_64-w64-mingw32-gcc", "-g", "-gdwarf-4", *flags, "-Dentry=main", SOURCE, "-o", exe,
           check=True)
        return exe, None
    sh(CLANG, f"--target={target}", "-g", "-gcodeview", *flags, "-c", SOURCE, "-o", obj, check=True)
    sh(LLD_LINK, "/debug", "/nodefaultlib", "/entry:entry", "/subsystem:console", obj, f"/out:{exe}",
       f"/pdb:{pdb}", check=True)
    return exe, pdb


def symbolized_line(exe, address):
    p = sh("llvm-symbolizer-19", f"--obj={exe}", "--no-inlines",
           hex(address))
    m = re.search(r":(\d+):\d+", p.stdout)
    return int(m.group(1)) if m else None


def symbolized_functions(exe, address):
    """The names llvm-symbolizer-19 gives the outermost function at
    `address`; where it names a local label of the COFF symbol table
    (crt0's `.l_start`), llvm-dwarfdump-19's subprogram there instead."""
    p = sh("llvm-symbolizer-19", f"--obj={exe}", "--no-inlines", hex(address))
    name = p.stdout.splitlines()[0].strip() if p.stdout.strip() else None
    if name and name.startswith("."):
        return oracles.dwarf_subprogram_names(exe, address)
    return {name}


def ends_with_call(exe, address):
    """Whether the instruction just before `address` is a call (objdump's
    disassembly of the bytes before it)."""
    for start in range(address - 7, address):
        q = sh("llvm-objdump-19", "-d", "--no-show-raw-insn", f"--start-address={start:#x}",
               f"--stop-address={address:#x}", exe)
        lines = [line for line in q.stdout.splitlines() if re.match(r"^\s*[0-9a-f]+:\s", line)]
        if len(lines) == 1 and re.search(r"\bcall", lines[0]):
            return True
    return False


def winedbg_frames(text):
    """winedbg's backtrace: [(return address, function, line, module)]."""
    out = []
    after = text.split("Backtrace:", 1)[-1]
    for line in after.splitlines():
        m = FRAME.match(line)
        if m:
            out.append((int(m.group(2), 16), m.group(3), int(m.group(6)) if m.group(6) else None, m.group(7)))
            continue
        m = UNNAMED_FRAME.match(line)
        if m:
            out.append((int(m.group(2), 16), None, None, m.group(3)))
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
    inbox = []  # (name, exe, pdb, dump, winedbg's frames in the program)
    x86_runs = runs_here(WINE32)
    if not x86_runs:
        report.note("x86 crashes not run: this kernel runs no 32-bit x86 programs, Wine's 32-bit loader "
                    "among them (exec: Exec format error)")
    for name, flags, target in (("crash.O2.fp", ["-O2", "-fno-omit-frame-pointer"], X64),
                                ("crash.O2.nofp", ["-O2", "-fomit-frame-pointer"], X64),
                                ("crash.O0", ["-O0"], X64),
                                ("crash.x86.O2.nofp", ["-O2", "-fomit-frame-pointer"], X86),
                                ("crash.x86.O2.fp", ["-O2", "-fno-omit-frame-pointer"], X86),
                                ("crash.x86.O0", ["-O0"], X86),
                                ("crash.mingw.O2", ["-O2"], MINGW64),
                                ("crash.mingw.O0", ["-O0"], MINGW64)):
        if target == X86 and not x86_runs:
            continue
        exe, pdb = build(tmp, name, flags, target)
        wine = WINE32 if target == X86 else WINE64
        dump = os.path.join(tmp, name + ".dmp")
        windows_path = "Z:" + dump.replace("/", "\\\\")
        for key in AEDEBUG:
            sh(WINE64, "reg", "add", key, "/v", "Debugger", "/t", "REG_SZ", "/d",
               f"winedbg --minidump {windows_path} %ld %ld", "/f", env=env)
            sh(WINE64, "reg", "add", key, "/v", "Auto", "/t", "REG_SZ", "/d", "1", "/f", env=env)
        # Wine's debugger sometimes does not start for a crash (seen once, on a
        # loaded machine, for the first crash after wineboot): the crash is run
        # once more before the test says Wine wrote nothing.
        for attempt in range(2):
            p = sh(wine, exe, env=env, timeout=300)
            theirs = winedbg_frames(p.stdout + p.stderr)
            if os.path.exists(dump) and theirs:
                break
            if os.path.exists(dump):
                os.remove(dump)
        if not os.path.exists(dump) or not theirs:
            report.fail(f"{name}: Wine wrote no minidump or backtrace: {(p.stdout + p.stderr)[-500:]}")
            continue
        store = os.path.join(tmp, name + ".store")
        q = sh(args.symstore, "add", store, exe, *([pdb] if pdb else []), "-q")
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
        # (MinGW's: main() and the CRT's frames that call it are the program's too)
        mine = [t for t in theirs if t[3] == "crash"]
        outside = theirs[len(mine)] if len(theirs) > len(mine) else None
        for i, (address, function, line, _) in enumerate(mine):
            got = physical[i] if i < len(physical) else None
            if i > 0:
                # winedbg gives a caller the line of its return address;
                # the call's is the instruction before (llvm-symbolizer
                # reading the PDB says which).
                line = symbolized_line(exe, address - 1)
            functions = {function}
            if function is None:
                # winedbg read no debug information here (MinGW's CRT has
                # DWARF 5, which Wine 8 does not read): its unwinding gives
                # the address, llvm-symbolizer the function.
                functions = symbolized_functions(exe, address - (1 if i > 0 else 0))
            if not got or int(got["address"], 16) != address or got["function"] not in functions or \
                    got["line"] != line:
                report.fail(f"{name}: frame {i}: ours {got} != winedbg's {(hex(address), function, line)}")
                break
            frames += 1
            # x86: callers found by STACK WIN (the walk's "cfi"), not by scanning.
            if target == X86 and i > 0 and got["trust"] != "cfi":
                report.fail(f"{name}: frame {i} found by {got['trust']}, not by STACK WIN")
        if len(mine) < 3 and target == X86 and "nofp" in name:
            # winedbg does not read FPO data: it stops in the first frame
            # without a frame pointer. Past it, each of our callers in the
            # program must return to just after a call (objdump), at the
            # function and line llvm-symbolizer gives for the call, out to
            # entry() and kernel32.
            chain = [f for f in physical if f["module"] == "crash.exe"]
            for i, got in enumerate(chain[1:], 1):
                address = int(got["address"], 16)
                if not ends_with_call(exe, address) or got["line"] != symbolized_line(exe, address - 1) or \
                        got["trust"] != "cfi":
                    report.fail(f"{name}: frame {i} {got} does not return after a call at its line")
                    break
                frames += 1
            if not chain or chain[-1]["function"] != "entry" or len(physical) <= len(chain) or \
                    physical[len(chain)]["module"] != "kernel32.dll":
                report.fail(f"{name}: the walk does not reach entry() and kernel32: "
                            f"{[(f['module'], f['function']) for f in physical]}")
            # (winedbg's frame after the one it stopped in is no caller: it
            # skipped the program's frames it could not unwind)
            outside = None
        elif len(mine) < 3:
            report.fail(f"{name}: winedbg's backtrace has {len(mine)} frames in the program: {theirs}")
        if outside and (len(physical) <= len(mine) or int(physical[len(mine)]["address"], 16) != outside[0]):
            report.fail(f"{name}: the caller out of the program is not winedbg's {hex(outside[0])} "
                        f"({outside[3]})")
        dumps += 1
        inbox.append((name, exe, pdb, dump, mine))
        if name in ("crash.O2.fp", "crash.mingw.O2"):
            # Over HTTP: the store served by nginx, the module found by its code-id path.
            with servers.Nginx(args.nginx) as nginx:
                shutil.rmtree(nginx.root)
                shutil.copytree(store, nginx.root, symlinks=False)
                if pdb:
                    shutil.rmtree(os.path.join(nginx.root, os.path.basename(pdb)))
                q = sh(args.symtool, "stackwalk", "--json", "--symbols-url", nginx.url, "--symbols-cache",
                       os.path.join(tmp, "cache"), dump)
                remote = json.loads(q.stdout) if q.returncode == 0 else None
                if not remote or [f["function"] for f in remote["threads"][0]["frames"]] != \
                        [f["function"] for f in crashed]:
                    report.fail(f"{name}: over HTTP by code id: {q.stderr.strip()[:300]}")
    if inbox:
        check_crash_inbox(args, report, tmp, inbox)
    report.note(f"{dumps} Wine minidumps of {'x64 and x86' if x86_runs else 'x64'} crashes: {frames} frames in the program equal "
                f"winedbg's (or, past where winedbg cannot unwind x86 FPO frames, return after a call at "
                f"llvm-symbolizer's line, found by STACK WIN); the program found by its code id "
                f"(locally and over HTTP)")


def check_crash_inbox(args, report, tmp, crashes):
    """The Wine dumps posted to `symstore serve --crashes` as Crashpad's
    Windows handler posts them: each walked with the store's symbols (the
    program found by its code id), its crashing frame winedbg's, and the
    builds of the one bug in one group."""
    store = os.path.join(tmp, "inbox.store")
    for name, exe, pdb, _, _ in crashes:
        q = sh(args.symstore, "add", store, exe, *([pdb] if pdb else []), "-q")
        if q.returncode != 0:
            report.fail(f"inbox: symstore add {name}: {q.stderr.strip()}")
            return
    with ServeProcess(args.symstore, store, "--crashes", "--cache-dir", os.path.join(tmp, "inbox.cache"),
                      quiet=True) as server:
        ids = {}
        for name, _, _, dump, _ in crashes:
            with open(dump, "rb") as fh:
                answer = crash_clients.crashpad_upload(server.host, server.port, fh.read(), "WineCrash", name,
                                                       annotations={"plat": "Win64"})
            crash_id = submitted(report, f"inbox: {name}", answer)
            if crash_id:
                ids[crash_id] = name
        done = wait_processed(server, list(ids))
        signatures = set()
        for crash_id, name in ids.items():
            crash = done.get(crash_id)
            theirs = next(c[4] for c in crashes if c[0] == name)
            if not crash or crash["status"] != "processed":
                report.fail(f"inbox: {name}: not processed: {crash}")
                continue
            walk = crash["walk"]
            program = next((m for m in walk["modules"] if m["name"] == "crash.exe"), None)
            if not program or program["symbols"] != "loaded":
                report.fail(f"inbox: {name}: crash.exe's symbols were not used: {program}")
            top = walk["threads"][0]["frames"][0] if walk["threads"] and walk["threads"][0]["frames"] else {}
            if top.get("function") != theirs[0][1] or int(top.get("address", "0"), 16) != theirs[0][0]:
                report.fail(f"inbox: {name}: the crashing frame {top} is not winedbg's {theirs[0][:2]}")
            # Socorro's signature starts at the crashing frame: store().
            if not crash["signature"].startswith(theirs[0][1]):
                report.fail(f"inbox: {name}: signature {crash['signature']!r} does not start with "
                            f"winedbg's {theirs[0][1]!r}")
            signatures.add(crash["signature"])
        status, groups = get_json(server, "/api/signatures")
        counts = {g["signature"]: g["count"] for g in groups} if status == 200 else {}
        if len(signatures) != 1 or counts.get(next(iter(signatures), None)) != len(ids):
            report.fail(f"inbox: the {len(ids)} builds of one bug are not one group: {counts}")
        report.note(f"inbox: {len(done)} Wine minidumps posted as Crashpad posts them, walked with the "
                    f"store's symbols; crashing frames winedbg's; one group {sorted(signatures)}")


if __name__ == "__main__":
    main()
