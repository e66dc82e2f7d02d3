#!/usr/bin/env python3
"""symtool stackwalk against gdb: a program that crashes in its shared
library (through an inlined call and a recursion), inside libc (strlen), in
a callback libc's qsort calls, and in its library under a SIGSEGV handler
that aborts (the walk goes through the signal trampoline to the faulting
instruction), while a second thread waits in pause();
gcc and clang-19, -O2, with and without frame pointers. Each crash is taken
as a gdb `gcore` and, where the kernel writes core files here, as a kernel
core dump. Every thread walked from a symbol store alone (the program, the
library, Debian's libc and ld.so, dumped with -d) equals gdb's unwind of the
same core with the binaries and their debug files: the same frames, return
addresses, functions (or aliases of them), files and lines, inlined calls
included. gdb's synthesized tail-call frames are the one difference (no
symbol file records the call sites they come from) and are counted.

Without symbols the same cores still walk, by frame pointer and stack
scanning, and say so. Damaged cores (truncated, notes removed, random bytes,
not a core) give one error line or unresolved frames, never a crash.

With --arch arm64 the same program, cross-built for arm64, runs under
qemu-user, whose guest core holds the registers and writable memory; the
test adds what a kernel core would also hold (NT_FILE, the ELF header
pages: core_synthesis.py), and gdb-multiarch's unwind of that core is the
oracle. qemu's own core (no mapped files, no headers) must still walk
without crashing."""
import json
import os
import random
import re
import resource
import shutil
import subprocess
import tempfile

import core_synthesis
from common import Report, arguments

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "..", "..", "fixtures", "core")
SYSTEM_LIBS = ("/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2")
MODES = ("lib", "libc", "callback", "handler")


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def build(tmp, cc, frame_pointer):
    out = os.path.join(tmp, f"{cc}{frame_pointer}")
    os.makedirs(out)
    flags = ["-O2", "-g", frame_pointer]
    sh(cc, *flags, "-shared", "-fPIC", "-Wl,-soname,libwalk.so", "-o", os.path.join(out, "libwalk.so"),
       os.path.join(SOURCES, "walk_lib.c"), check=True)
    sh(cc, *flags, "-pthread", "-o", os.path.join(out, "walker"), os.path.join(SOURCES, "walk_main.c"),
       f"-L{out}", "-lwalk", "-Wl,-rpath,$ORIGIN", check=True)
    for lib in SYSTEM_LIBS:
        os.symlink(os.path.realpath(lib), os.path.join(out, os.path.basename(lib)))
    return out


def gdb_oracle(directory, core, out_json, live_mode=None):
    """gdb's frames of every thread: of `core`, or of a live run of the
    program in `live_mode` that gdb stops at the crash and writes to `core`."""
    env = dict(os.environ, GDB_FRAMES_OUT=out_json)
    base = ["gdb", "-batch", "-nx", "-iex", "set debuginfod enabled off"]
    if live_mode:
        # With a handler, the core is taken where the handler aborts.
        handle = ["-ex", "handle SIGSEGV nostop noprint pass"] if live_mode == "handler" else []
        argv = base + handle + ["-ex", "run", "-ex", f"generate-core-file {core}", "-x",
                       os.path.join(HERE, "gdb_frames.py"), "--args", os.path.join(directory, "walker"), live_mode]
    else:
        argv = base + ["-x", os.path.join(HERE, "gdb_frames.py"), os.path.join(directory, "walker"), core]
    p = sh(*argv, cwd=directory, env=env)
    if not os.path.exists(out_json):
        raise SystemExit(f"gdb wrote no frames: {p.stdout[-500:]} {p.stderr[-500:]}")
    with open(out_json) as fh:
        return json.load(fh)


def kernel_core(directory, mode):
    """The kernel's core dump of a crash, when this machine writes them as
    plain files in the working directory; None otherwise."""
    with open("/proc/sys/kernel/core_pattern") as fh:
        pattern = fh.read().strip()
    if pattern.startswith("|") or "/" in pattern:
        return None
    before = set(os.listdir(directory))

    def allow_core():
        resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    sh(os.path.join(directory, "walker"), mode, cwd=directory, preexec_fn=allow_core)
    made = [n for n in set(os.listdir(directory)) - before if n.startswith("core")]
    if len(made) != 1:
        return None
    path = os.path.join(directory, f"kernel-core.{mode}")
    os.rename(os.path.join(directory, made[0]), path)
    return path


def stackwalk(args, store, core, check=True):
    p = sh(args.symtool, "stackwalk", "--store", store, "--json", core)
    if check and p.returncode != 0:
        raise SystemExit(f"symtool stackwalk {core}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout) if p.returncode == 0 else None


class Aliases:
    """Names of one address in a module's symbol tables (gdb names an
    assembly function by one alias, the symbol file by another)."""

    def __init__(self):
        self.groups = {}

    def load(self, path):
        # The dynamic symbols too: a library without its debug file (the
        # arm64 libc here) has no other table. Their version suffix
        # ("write@@GLIBC_2.17") is not part of the name.
        listings = [("llvm-nm-19", "-D", "--defined-only", path)]
        listings += [("llvm-nm-19", "--defined-only", target) for target in (path, debug_file(path)) if target]
        for listing in listings:
            by_address = {}
            for line in sh(*listing).stdout.splitlines():
                parts = line.split()
                if len(parts) == 3 and parts[1] in "TtWi":
                    by_address.setdefault(parts[0], set()).add(parts[2].split("@")[0])
            for names in by_address.values():
                for name in names:
                    self.groups.setdefault(name, set()).update(names)

    def same(self, a, b):
        return a == b or b in self.groups.get(a, ())


def debug_file(path):
    m = re.search(r"Build ID: ([0-9a-f]+)", sh("readelf", "-n", path).stdout)
    if not m:
        return None
    candidate = f"/usr/lib/debug/.build-id/{m.group(1)[:2]}/{m.group(1)[2:]}.debug"
    return candidate if os.path.exists(candidate) else None


def compare(label, ours, oracle, aliases, report):
    """Every thread's frames, ours against gdb's without its tail-call frames."""
    tail_calls = 0
    by_tid = {t["tid"]: t for t in ours["threads"]}
    if set(by_tid) != {t["tid"] for t in oracle}:
        report.fail(f"{label}: threads {sorted(by_tid)} != gdb's {sorted(t['tid'] for t in oracle)}")
        return 0, 0
    frames = 0
    for thread in oracle:
        want = [f for f in thread["frames"] if f["kind"] != "tailcall"]
        tail_calls += len(thread["frames"]) - len(want)
        got = by_tid[thread["tid"]]["frames"]
        problems = []
        if len(got) != len(want):
            problems.append(f"{len(got)} frames, gdb {len(want)}")
        for i, (g, w) in enumerate(zip(got, want)):
            if int(g["address"], 16) != w["pc"]:
                problems.append(f"#{i} at {g['address']}, gdb {w['pc']:#x}")
            elif w["name"] and not aliases.same(g["function"] or "", w["name"]):
                problems.append(f"#{i} {g['function']}, gdb {w['name']}")
            elif w["file"] and (os.path.basename(g["file"] or "") != os.path.basename(w["file"]) or
                                g["line"] != w["line"]):
                problems.append(f"#{i} {g['function']} at {g['file']}:{g['line']}, gdb {w['file']}:{w['line']}")
            elif g["inlined"] != (w["kind"] == "inline"):
                problems.append(f"#{i} {g['function']} inlined={g['inlined']}, gdb says {w['kind']}")
        if problems:
            report.fail(f"{label} thread {thread['tid']}: " + "; ".join(problems[:4]))
        frames += len(want)
    crashed = [t for t in ours["threads"] if t["crashed"]]
    if len(crashed) != 1 or crashed[0] is not ours["threads"][0] or crashed[0]["tid"] != oracle[0]["tid"]:
        report.fail(f"{label}: the crashed thread is not the faulting one, first")
    return frames, tail_calls


def walk_without_symbols(args, label, directory, core, oracle, report, frame_pointers):
    """With an empty store: frame pointers and scanning only, said so; in
    frame-pointer builds, the return addresses gdb found in our code (but
    the crashing function's own caller: a leaf function that sets up no
    frame of its own hides it from a frame-pointer walk, as it does from
    Breakpad's)."""
    empty = os.path.join(directory, "empty-store")
    os.makedirs(empty, exist_ok=True)
    walked = stackwalk(args, empty, core)
    crashed = walked["threads"][0]
    trusts = {f["trust"] for t in walked["threads"] for f in t["frames"]}
    if "cfi" in trusts or any(f["function"] for t in walked["threads"] for f in t["frames"]):
        report.fail(f"{label}: without symbols a frame claims CFI or a function: {trusts}")
    if not {m.get("missing_symbols") for m in walked["modules"]} - {None}:
        report.fail(f"{label}: without symbols no module says its symbols are missing")
    if len(crashed["frames"]) < 2:
        report.fail(f"{label}: without symbols the crashed thread has {len(crashed['frames'])} frame(s)")
    if frame_pointers:
        ours_pcs = [int(f["address"], 16) for f in crashed["frames"]]
        code = ("walker", "libwalk.so")
        physical = [f for f in oracle[0]["frames"] if f["kind"] == "normal"]
        want = [f["pc"] for f in physical[2:] if
                any(name in (f["file"] or "") for name in ("walk_main.c", "walk_lib.c"))]
        missing = [hex(pc) for pc in want if pc not in ours_pcs]
        if missing:
            report.fail(f"{label}: without symbols the frame-pointer walk misses {missing} of gdb's {code} frames")
    return sorted(trusts)


def damaged_cores(args, store, core, tmp, report):
    with open(core, "rb") as fh:
        data = bytearray(fh.read())
    cases = {"empty": b"", "not-elf": b"hello\n" * 100, "truncated-64": data[:64],
             "truncated-half": data[:len(data) // 2], "truncated-end": data[:-100]}
    # The notes removed: PT_NOTE's type set to PT_NULL.
    phoff, phnum = int.from_bytes(data[32:40], "little"), int.from_bytes(data[56:58], "little")
    no_notes = bytearray(data)
    for i in range(phnum):
        at = phoff + i * 56
        if int.from_bytes(no_notes[at:at + 4], "little") == 4:
            no_notes[at:at + 4] = (0).to_bytes(4, "little")
    cases["no-notes"] = bytes(no_notes)
    cases["a-binary-not-a-core"] = open(SYSTEM_LIBS[0], "rb").read()
    rng = random.Random(11)
    for i in range(60):
        flipped = bytearray(data)
        region = rng.choice([(0, 64), (phoff, phoff + phnum * 56), (0, len(data))])
        for _ in range(rng.randrange(1, 16)):
            flipped[rng.randrange(*region)] = rng.randrange(256)
        cases[f"random-{i}"] = bytes(flipped)
    errors = 0
    refused = set()
    for name, content in cases.items():
        path = os.path.join(tmp, "damaged-" + name)
        with open(path, "wb") as fh:
            fh.write(content)
        try:
            p = subprocess.run([args.symtool, "stackwalk", "--store", store, "--json", path],
                               capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            report.fail(f"damaged core {name}: hangs")
            continue
        finally:
            os.unlink(path)
        if p.returncode == 1:
            errors += 1
            refused.add(name)
            lines = p.stderr.strip().splitlines()
            if len(lines) != 1 or "damaged-" + name not in lines[0]:
                report.fail(f"damaged core {name}: the error is not one line naming the file: {p.stderr[:300]!r}")
        elif p.returncode != 0:
            report.fail(f"damaged core {name}: exit {p.returncode}: {p.stderr[-300:]}")
        else:
            json.loads(p.stdout)
    for name in ("empty", "not-elf", "truncated-64", "no-notes", "a-binary-not-a-core"):
        if name not in refused:
            report.fail(f"damaged core {name}: not refused")
    return len(cases), errors


ARM64_LIBS = ("/usr/aarch64-linux-gnu/lib/libc.so.6", "/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1")
ARM64_COMPILERS = (("gcc", ["aarch64-linux-gnu-gcc"]), ("clang-19", ["clang-19", "--target=aarch64-linux-gnu"]))


# The cross builds: compilers, the target's libraries, qemu-user, the sysroot.
CROSS = {
    "arm64": {"compilers": ARM64_COMPILERS, "libs": ARM64_LIBS, "qemu": "qemu-aarch64",
              "root": "/usr/aarch64-linux-gnu"},
    "arm": {"compilers": (("gcc", ["arm-linux-gnueabihf-gcc"]),
                          ("clang-19", ["clang-19", "--target=arm-linux-gnueabihf"])),
            "libs": ("/usr/arm-linux-gnueabihf/lib/libc.so.6", "/usr/arm-linux-gnueabihf/lib/ld-linux-armhf.so.3"),
            "qemu": "qemu-arm", "root": "/usr/arm-linux-gnueabihf"},
}


def build_cross(directory, compiler, frame_pointer, cross):
    """The program and its library cross-built into `directory`, the
    target's libraries linked beside them, and a sysroot where gdb finds the
    files the core names; returns the sysroot."""
    os.makedirs(directory)
    flags = ["-O2", "-g", frame_pointer]
    sh(*compiler, *flags, "-shared", "-fPIC", "-Wl,-soname,libwalk.so", "-o",
       os.path.join(directory, "libwalk.so"), os.path.join(SOURCES, "walk_lib.c"), check=True)
    sh(*compiler, *flags, "-pthread", "-o", os.path.join(directory, "walker"),
       os.path.join(SOURCES, "walk_main.c"), f"-L{directory}", "-lwalk", "-Wl,-rpath,$ORIGIN", check=True)
    for lib in cross["libs"]:
        os.symlink(lib, os.path.join(directory, os.path.basename(lib)))
    # gdb reads the files the core names, and the libraries the dynamic
    # linker's list names, below one sysroot (beside the directory, which
    # symstore reads whole).
    root = directory + "-sysroot"
    os.makedirs(os.path.join(root, os.path.dirname(directory).lstrip("/")))
    os.makedirs(os.path.join(root, "usr"))
    os.symlink(directory, os.path.join(root, directory.lstrip("/")))
    os.symlink(cross["root"], os.path.join(root, "usr", os.path.basename(cross["root"])))
    os.symlink(cross["root"] + "/lib", os.path.join(root, "lib"))
    return root


def cross_crash(directory, mode, cross):
    """qemu-user's guest core of the crash and the process's memory map."""
    maps = os.path.join(directory, f"maps.{mode}")
    before = set(os.listdir(directory))

    def allow_core():
        resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    sh(cross["qemu"], "-L", cross["root"], os.path.join(directory, "walker"), mode, cwd=directory,
       env=dict(os.environ, WALK_MAPS=maps), preexec_fn=allow_core)
    made = set(os.listdir(directory)) - before
    guest = [n for n in made if n.startswith("qemu_") and n.endswith(".core")]
    for name in made - set(guest) - {os.path.basename(maps)}:
        os.unlink(os.path.join(directory, name))  # the host's core of qemu itself
    if len(guest) != 1 or not os.path.exists(maps):
        raise SystemExit(f"{cross['qemu']} wrote no guest core for {mode} in {directory}")
    qemu_core = os.path.join(directory, f"qemu.{mode}.core")
    os.rename(os.path.join(directory, guest[0]), qemu_core)
    return qemu_core, maps


def cross_core(directory, mode, cross, root):
    """The crash's core made kernel-like, and gdb-multiarch's frames of it
    (None when it wrote none)."""
    qemu_core, maps = cross_crash(directory, mode, cross)
    core = os.path.join(directory, f"core.{mode}")
    with open(qemu_core, "rb") as fh, open(maps) as mh, open(core, "wb") as out:
        out.write(core_synthesis.kernel_style(fh.read(), mh.read()))
    out_json = os.path.join(directory, f"gdb.{mode}.json")
    sh("gdb-multiarch", "-batch", "-nx", "-iex", "set debuginfod enabled off", "-iex", f"set sysroot {root}",
       "-x", os.path.join(HERE, "gdb_frames.py"), os.path.join(directory, "walker"), core,
       env=dict(os.environ, GDB_FRAMES_OUT=out_json))
    if not os.path.exists(out_json):
        return qemu_core, maps, core, None
    with open(out_json) as fh:
        return qemu_core, maps, core, json.load(fh)


def arm64(args, report, tmp):
    cross = CROSS["arm64"]
    aliases = Aliases()
    for lib in ARM64_LIBS:
        aliases.load(lib)
    total_frames = cores = 0
    for cc, compiler in ARM64_COMPILERS:
        for frame_pointer in ("-fno-omit-frame-pointer", "-fomit-frame-pointer"):
            directory = os.path.join(tmp, f"arm64-{cc}{frame_pointer}")
            root = build_cross(directory, compiler, frame_pointer, cross)
            store = os.path.join(directory, "store")
            p = sh(args.symstore, "add", store, directory, "-d", "-q")
            if p.returncode != 0:
                report.fail(f"arm64 {cc}: symstore add: {p.stderr.strip()}")
                continue
            # (Not "handler": qemu-user returns from handlers through a
            # trampoline page of its own, not the kernel's vDSO.)
            for mode in MODES[:3]:
                label = f"arm64 {cc} {frame_pointer} {mode}"
                qemu_core, _, core, oracle = cross_core(directory, mode, cross, root)
                if oracle is None:
                    report.fail(f"{label}: gdb-multiarch wrote no frames")
                    continue
                frames, _ = compare(label, stackwalk(args, store, core), oracle, aliases, report)
                total_frames += frames
                cores += 1
                bare = stackwalk(args, store, qemu_core, check=False)
                if bare is None or not bare["threads"]:
                    report.fail(f"{label}: qemu's own core (no NT_FILE) does not walk")
    report.note(f"arm64: {cores} cores, {total_frames} frames equal gdb-multiarch's")


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--symstore", required=True),
                                p.add_argument("--arch", default="x86_64", choices=("x86_64", "arm64"))))
    if args.arch == "arm64":
        report = Report("symtool stackwalk arm64")
        tmp = tempfile.mkdtemp()
        try:
            arm64(args, report, tmp)
        finally:
            shutil.rmtree(tmp)
        report.finish()
    report = Report("symtool stackwalk")
    tmp = tempfile.mkdtemp()
    aliases = Aliases()
    for lib in SYSTEM_LIBS:
        aliases.load(lib)
    total_frames = total_tail_calls = cores = 0
    try:
        sample = None
        for cc in ("gcc", "clang-19"):
            for frame_pointer in ("-fno-omit-frame-pointer", "-fomit-frame-pointer"):
                directory = build(tmp, cc, frame_pointer)
                store = os.path.join(directory, "store")
                p = sh(args.symstore, "add", store, directory, "-d", "-q")
                if p.returncode != 0:
                    report.fail(f"{cc}: symstore add: {p.stderr.strip()}")
                    continue
                for mode in MODES:
                    label = f"{cc} {frame_pointer} {mode}"
                    gcore = os.path.join(directory, f"gcore.{mode}")
                    oracle = gdb_oracle(directory, gcore, os.path.join(directory, f"gdb.{mode}.json"), mode)
                    kinds = [("gcore", gcore, oracle)]
                    kernel = kernel_core(directory, mode)
                    if kernel:
                        kinds.append(("kernel core", kernel,
                                      gdb_oracle(directory, kernel, os.path.join(directory, f"gdbk.{mode}.json"))))
                    for kind, core, frames_of_gdb in kinds:
                        ours = stackwalk(args, store, core)
                        frames, tail_calls = compare(f"{label} {kind}", ours, frames_of_gdb, aliases, report)
                        total_frames += frames
                        total_tail_calls += tail_calls
                        cores += 1
                    # Past a signal trampoline only CFI knows where the
                    # interrupted registers are.
                    trusts = walk_without_symbols(args, label, directory, gcore, oracle, report,
                                                  frame_pointer == "-fno-omit-frame-pointer" and mode != "handler")
                    if mode == "lib":
                        report.note(f"{label}: without symbols found by {', '.join(trusts)}")
                    sample = sample or (store, gcore)
        report.note(f"{cores} cores, {total_frames} frames equal gdb's ({total_tail_calls} gdb tail-call "
                    f"frames not counted)")
        if sample:
            p = sh(args.dump_syms, sample[1])
            if p.returncode != 1 or "core file" not in p.stderr:
                report.fail(f"dump_syms on a core file: exit {p.returncode}: {p.stderr.strip()[:200]}")
            cases, errors = damaged_cores(args, sample[0], sample[1], tmp, report)
            report.note(f"{cases} damaged cores: {errors} refused with one error line, the rest walked; "
                        f"no crash or hang")
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
