#!/usr/bin/env python3
"""symtool symbolize against gdb: programs that crash in a shared library
and print their own backtrace from a SIGSEGV handler with glibc's
backtrace_symbols_fd (gcc and clang, -O2). The frames symtool resolves from
a symbol store alone (the program, the library, Debian's libc) equal gdb's
`bt` of the same crash (function, file, line), from the faulting frame out.
The same frames written as prelinked module + offset lines (the library's
offsets and its PT_DYNAMIC offset shifted by one constant), and as Solaris
printstack lines, and inside a JSON crash report (whole, and --trim'med to
the frames after the signal trampoline), give the same answer. Lines that
are not frames pass through untouched; garbage never crashes it."""
import json
import os
import random
import re
import shutil
import subprocess
import tempfile

from common import Report, arguments

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "..", "..", "fixtures", "backtrace")
OURS = ("prog", "libcrashlib.so")
GDB_FRAME = re.compile(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(.*\) at (\S+):(\d+)\s*$")
LIBC = "/lib/x86_64-linux-gnu/libc.so.6"


def sh(*argv, **kw):
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=120, **kw)


def build(tmp, cc):
    out = os.path.join(tmp, cc)
    os.makedirs(out)
    sh(cc, "-O2", "-g", "-shared", "-fPIC", "-Wl,-soname,libcrashlib.so", "-o", os.path.join(out, "libcrashlib.so"),
       os.path.join(SOURCES, "crash_lib.c"), check=True)
    sh(cc, "-O2", "-g", "-o", os.path.join(out, "prog"), os.path.join(SOURCES, "crash_main.c"),
       f"-L{out}", "-lcrashlib", "-Wl,-rpath,$ORIGIN", check=True)
    return out


def gdb_frames(directory):
    p = sh("gdb", "-batch", "-nx", "-iex", "set debuginfod enabled off", "-ex", "run", "-ex", "bt",
           os.path.join(directory, "prog"), cwd=directory)
    frames = []
    for line in p.stdout.splitlines():
        m = GDB_FRAME.match(line)
        if not m:
            continue
        if os.path.dirname(os.path.abspath(m.group(2))) != os.path.abspath(SOURCES):
            break
        frames.append((m.group(1), os.path.basename(m.group(2)), int(m.group(3))))
    return frames


def symbolize(args, store, text, *extra):
    p = subprocess.run([args.symtool, "symbolize", "--store", store, "--json", *extra], input=text,
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise SystemExit(f"symtool symbolize: exit {p.returncode}: {p.stderr.strip()}")
    return [json.loads(line) for line in p.stdout.splitlines()]


def crash_frames(objects):
    """Our frames from the one after the signal trampoline out, within our modules."""
    out, started = [], False
    for o in objects:
        if "module" not in o:
            continue
        names = [f["function"] for f in o.get("frames", [])] + [o.get("public", "")]
        if not started:
            started = "__restore_rt" in names
            continue
        if o["module"] not in OURS:
            break
        out += [(f["function"], os.path.basename(f["file"]), f["line"]) for f in o["frames"]]
    return out


def dynamic_offset(path):
    for line in sh("readelf", "-lW", path).stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == "DYNAMIC":
            return int(parts[2], 16)
    return None


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--symstore", required=True)))
    report = Report("symtool symbolize")
    tmp = tempfile.mkdtemp()
    try:
        for cc in ("gcc", "clang-19"):
            directory = build(tmp, cc)
            crash = sh(os.path.join(directory, "prog"), cwd=directory)
            if crash.returncode != 128 + 11 or "libcrashlib.so(" not in crash.stderr:
                report.fail(f"{cc}: the program did not print its backtrace: {crash.stderr[-300:]!r}")
                continue
            os.symlink(LIBC, os.path.join(directory, "libc.so.6"))
            store = os.path.join(tmp, cc + "-store")
            p = sh(args.symstore, "add", store, directory, "-d", "-q")
            if p.returncode != 0:
                report.fail(f"{cc}: symstore add: {p.stderr.strip()}")
                continue
            want = gdb_frames(directory)
            text = "crash report\n" + crash.stderr + "end of report\n"
            objects = symbolize(args, store, text)
            got = crash_frames(objects)
            if not want or got != want:
                report.fail(f"{cc}: symbolized {got} != gdb {want}")
            else:
                report.note(f"{cc}: {len(got)} frames equal gdb's bt")
            # A frame named by a symbol-table alias the symbol file does not
            # hold (glibc's __libc_start_main for __libc_start_main_impl):
            # placed by its logged address and the load address the other
            # libc frames give; elfutils' eu-addr2line names the same code.
            aliased = [o for o in objects if "(__libc_start_main+" in o["input"]]
            for o in aliased:
                address = int(re.search(r"\[(0x[0-9a-f]+)\]", o["input"]).group(1), 16)
                base = next(int(re.search(r"\[(0x[0-9a-f]+)\]", b["input"]).group(1), 16) -
                            int(re.search(r"\(\+(0x[0-9a-f]+)\)", b["input"]).group(1), 16)
                            for b in objects if "libc.so.6(+0x" in b["input"])
                want = sh("eu-addr2line", "-f", "-e", LIBC, hex(address - base - 1)).stdout.split()
                top = o.get("frames", [{}])[-1]
                if not want or top.get("function") != want[0] or \
                        f"{os.path.basename(top.get('file', ''))}:{top.get('line')}" != \
                        os.path.basename(want[1]).rsplit(":", 1)[0]:
                    report.fail(f"{cc}: the aliased frame {o['input']!r} gives {o.get('frames')}, "
                                f"eu-addr2line {want}")
            if not aliased:
                report.fail(f"{cc}: no __libc_start_main+0x… frame in the backtrace")
            if [o["input"] for o in objects] != text.splitlines():
                report.fail(f"{cc}: the output lines are not the input lines")
            if "module" in objects[0] or "module" in objects[-1]:
                report.fail(f"{cc}: a line that is no frame was taken for one")

            # Prelinked on the crashing machine: module + offset lines whose
            # library offsets and PT_DYNAMIC offset moved by one constant.
            shift = 0x10000
            dynamic = dynamic_offset(os.path.join(directory, "libcrashlib.so"))
            lines = []
            for o in objects:
                if "offset" not in o:
                    lines.append(o["input"])
                elif o["module"] == "libcrashlib.so":
                    lines.append(f"0x7f0000001000: {dynamic + shift:#x}: /opt/x/libcrashlib.so + "
                                 f"{int(o['offset'], 16) + shift:#x}")
                else:
                    lines.append(f"0x7f0000002000: /opt/x/{o['module']} + {o['offset']}")
            prelinked = symbolize(args, store, "\n".join(lines) + "\n")
            if crash_frames(prelinked) != got:
                report.fail(f"{cc}: prelinked module+offset lines give {crash_frames(prelinked)}")
            unshifted = [l.replace(f"{dynamic + shift:#x}: ", "") for l in lines]
            plain = symbolize(args, store, "\n".join(unshifted) + "\n")
            if crash_frames(plain) == got:
                report.fail(f"{cc}: shifted offsets without their PT_DYNAMIC still resolved the same")

            # The same backtrace in a JSON crash report (OpenSync's fields),
            # whole and trimmed to the 3 frames after the signal trampoline.
            report_fields = {"locationId": "loc-1", "nodeId": "node-7", "model": "AP-1", "firmwareVersion": "2.4",
                             "pid": 4242, "name": "prog", "reason": "SIGSEGV", "timestamp": 1700000000,
                             "backtrace": crash.stderr}
            line = json.dumps(report_fields)
            whole = symbolize(args, store, "before\n" + line + "\n")[1]
            if {k: whole.get(k) for k in report_fields if k != "backtrace"} != \
                    {k: v for k, v in report_fields.items() if k != "backtrace"}:
                report.fail(f"{cc}: the JSON report's fields are not kept: {sorted(whole)}")
            if crash_frames(whole.get("backtrace", [])) != got:
                report.fail(f"{cc}: JSON report frames {crash_frames(whole.get('backtrace', []))} != {got}")
            trimmed = symbolize(args, store, line + "\n", "--trim")[0]["backtrace"]
            after = [o for o in objects if "module" in o]
            after = after[next(i for i, o in enumerate(after) if o.get("public") == "__restore_rt") + 1:][:3]
            if [t["frames"] for t in trimmed] != [o["frames"] for o in after]:
                report.fail(f"{cc}: --trim kept {[t['input'] for t in trimmed]}")
            kept5 = symbolize(args, store, line + "\n", "--trim", "--keep", "5")[0]["backtrace"]
            if len(kept5) != min(5, len([o for o in objects if "module" in o]) - 2):
                report.fail(f"{cc}: --keep 5 kept {len(kept5)} frames")

            # Solaris printstack lines for the library's frames.
            for o in objects:
                m = re.match(r"^(.*)\((\w+)\+(0x[0-9a-f]+)\)\s*\[(0x[0-9a-f]+)\]$", o["input"])
                if not m or o.get("module") != "libcrashlib.so":
                    continue
                for form in (f"libcrashlib.so'{m.group(2)}+{m.group(3)} [{m.group(4)}]",
                             f"/opt/x/libcrashlib.so:{m.group(2)}+{m.group(3)}"):
                    solaris = symbolize(args, store, form + "\n")[0]
                    exact = symbolize(args, store, o["input"] + "\n")[0]
                    if solaris.get("frames") != exact.get("frames") or solaris.get("offset") != o["offset"]:
                        report.fail(f"{cc}: '{form}' gives {solaris}, want the frames of {exact}")

        # An unknown module, an unknown symbol, and garbage: unresolved, never a crash.
        store = os.path.join(tmp, "gcc-store")
        odd = symbolize(args, store, "/x/libnothere.so(+0x10)[0x1]\n/x/prog(no_such_fn+0x4)[0x2]\n")
        if not all(o.get("unresolved") for o in odd):
            report.fail(f"unknown module or symbol not said: {odd}")
        rng = random.Random(3)
        for i in range(100):
            junk = "".join(chr(rng.randrange(1, 0x250)) for _ in range(rng.randrange(1, 300)))
            p = subprocess.run([args.symtool, "symbolize", "--store", store], input=junk.encode("utf-8", "replace"),
                               capture_output=True, timeout=60)
            if p.returncode != 0:
                report.fail(f"garbage {i}: exit {p.returncode}")
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
