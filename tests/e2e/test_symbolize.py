#!/usr/bin/env python3
"""symtool symbolize against gdb: programs that crash in a shared library
and print their own backtrace from a SIGSEGV handler with glibc's
backtrace_symbols_fd (gcc and clang, -O2). The frames symtool resolves from
a symbol store alone (the program, the library, Debian's libc) equal gdb's
`bt` of the same crash (function, file, line), from the faulting frame out.
The same frames as Solaris printstack lines, and inside a JSON crash report
(whole, and --trim'med to the frames after the signal trampoline), give the
same answer.

The prelink recipe: a program whose handler logs `0xPC: 0xDYNAMIC: module +
0xOFFSET`, DYNAMIC being PT_DYNAMIC's p_offset read with dl_iterate_phdr at
run time (gcc and clang, ld.bfd and lld, the executable and the library,
each asserted to have p_vaddr != p_offset so that the two numbers cannot be
confused silently): its frames equal gdb's, readelf agrees with the logged
offsets, and a prelinked log (offsets and p_offset moved by one constant)
gives the same frames, with -v saying the shift. Lines that are not frames
pass through untouched; garbage never crashes it."""
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


# The linkers the recipe's programs are built with: flags for gcc and clang.
LINKERS = {"bfd": ["-fuse-ld=bfd"], "lld": ["-B", "/usr/lib/llvm-19/bin", "-fuse-ld=lld"]}


def build_offsets_program(tmp, cc, linker):
    """The recipe's crash logger and its library, both linked by `linker`."""
    out = os.path.join(tmp, f"{cc}-{linker}")
    os.makedirs(out)
    flags = LINKERS[linker]
    sh(cc, "-O2", "-g", *flags, "-shared", "-fPIC", "-Wl,-soname,libcrashlib.so",
       "-o", os.path.join(out, "libcrashlib.so"), os.path.join(SOURCES, "crash_lib.c"), check=True)
    sh(cc, "-O2", "-g", *flags, "-o", os.path.join(out, "prog"), os.path.join(SOURCES, "crash_offsets_main.c"),
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


def dynamic_segment(path):
    """PT_DYNAMIC's (p_offset, p_vaddr) from readelf -lW; None without one."""
    for line in sh("readelf", "-lW", path).stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == "DYNAMIC":
            return int(parts[1], 16), int(parts[2], 16)
    return None


RECIPE_LINE = re.compile(r"^(0x[0-9a-f]+): (?:(0x[0-9a-f]+): )?(\S+) \+ (0x[0-9a-f]+)$")


def check_recipe(args, tmp, cc, linker, report):
    """The prelink recipe's log, straight from the crashing program."""
    label = f"{cc}/{linker}"
    directory = build_offsets_program(tmp, cc, linker)
    for name in OURS:
        comment = sh("readelf", "-p", ".comment", os.path.join(directory, name)).stdout
        if ("LLD" in comment) != (linker == "lld"):
            report.fail(f"{label}: {name} was not linked by {linker}: {comment.strip()!r}")
    crash = sh(os.path.join(directory, "prog"), cwd=directory)
    log = [RECIPE_LINE.match(line) for line in crash.stderr.splitlines()]
    if crash.returncode != 128 + 11 or not log or not all(log):
        report.fail(f"{label}: the program did not log its frames in the recipe's form: {crash.stderr[-300:]!r}")
        return
    # What the program read at run time is p_offset, as readelf says; and
    # for our own two modules it is not p_vaddr, so that a tool reading the
    # wrong one of the two fails here rather than in the field.
    logged = {}
    for m in log:
        logged.setdefault(m.group(3), int(m.group(2), 16) if m.group(2) else None)
    for path, dynamic in logged.items():
        segment = dynamic_segment(path)
        if segment is None or dynamic != segment[0]:
            report.fail(f"{label}: {path}: logged PT_DYNAMIC offset {dynamic}, readelf's p_offset {segment}")
        elif os.path.basename(path) in OURS and segment[0] == segment[1]:
            report.fail(f"{label}: {path}: PT_DYNAMIC p_vaddr == p_offset ({segment[0]:#x}): the case "
                        "that tells the two apart is gone")
    if sorted(os.path.basename(p) for p in logged) != sorted(OURS + ("libc.so.6",)):
        report.fail(f"{label}: the log names modules {sorted(logged)}")
        return
    os.symlink(LIBC, os.path.join(directory, "libc.so.6"))
    store = os.path.join(tmp, f"{cc}-{linker}-store")
    p = sh(args.symstore, "add", store, directory, "-d", "-q")
    if p.returncode != 0:
        report.fail(f"{label}: symstore add: {p.stderr.strip()}")
        return
    want = gdb_frames(directory)
    got = crash_frames(symbolize(args, store, crash.stderr))
    if not want or got != want:
        report.fail(f"{label}: the recipe's log symbolized {got} != gdb {want}")
        return
    report.note(f"{label}: {len(got)} frames of the recipe's log equal gdb's bt")

    # -v: per module, the logged and recorded offsets and the shift (none).
    verbose = sh(args.symtool, "symbolize", "--store", store, "-v", input=crash.stderr)
    for path, dynamic in logged.items():
        said = f"symtool: {os.path.basename(path)}: PT_DYNAMIC offset logged {dynamic:#x}, recorded {dynamic:#x}; shift 0"
        if said not in verbose.stderr:
            report.fail(f"{label}: -v does not say {said!r}: {verbose.stderr.strip()!r}")

    # Prelinked on the crashing machine: the program's and the library's
    # offsets and p_offset moved by one constant; libc as it was.
    shift = 0x10000

    def moved(m, dynamic_shift, offset_shift):
        if os.path.basename(m.group(3)) not in OURS:
            return m.group(0)
        dynamic = f"{int(m.group(2), 16) + dynamic_shift:#x}: " if dynamic_shift is not None else ""
        return f"{m.group(1)}: {dynamic}{m.group(3)} + {int(m.group(4), 16) + offset_shift:#x}"

    prelinked = "".join(moved(m, shift, shift) + "\n" for m in log)
    if crash_frames(symbolize(args, store, prelinked)) != got:
        report.fail(f"{label}: the prelinked log gives {crash_frames(symbolize(args, store, prelinked))}")
    verbose = sh(args.symtool, "symbolize", "--store", store, "-v", input=prelinked)
    for name in OURS:
        dynamic = next(v for k, v in logged.items() if os.path.basename(k) == name)
        said = (f"symtool: {name}: PT_DYNAMIC offset logged {dynamic + shift:#x}, recorded {dynamic:#x}; "
                f"shift -{shift:#x}")
        if said not in verbose.stderr:
            report.fail(f"{label}: -v does not say {said!r}: {verbose.stderr.strip()!r}")
    # Without the logged offset there is nothing to undo the move with.
    if crash_frames(symbolize(args, store, "".join(moved(m, None, shift) + "\n" for m in log))) == got:
        report.fail(f"{label}: shifted offsets without their PT_DYNAMIC still resolved the same")
    # The number the old dump_syms recorded (p_vaddr) in place of p_offset:
    # taken for a prelink, it moves every frame of our modules.
    as_vaddr = "".join(moved(m, dynamic_segment(m.group(3))[1] - int(m.group(2), 16), 0) + "\n" for m in log)
    if crash_frames(symbolize(args, store, as_vaddr)) == got:
        report.fail(f"{label}: logging p_vaddr in place of p_offset still resolved the same")


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

        for cc in ("gcc", "clang-19"):
            for linker in LINKERS:
                check_recipe(args, tmp, cc, linker, report)

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
