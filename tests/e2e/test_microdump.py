#!/usr/bin/env python3
"""symtool stackwalk and microdump_stackwalk on microdumps, against gdb:
the stack-walk test's crash programs (gcc and clang-19, -O2, with and
without frame pointers; a crash in a library through an inlined call and
recursion, inside libc, in a qsort callback, under a handler that aborts),
each gdb core turned into the microdump Breakpad's client would log
(core_to_microdump.py: V, O, P, R, G, S, C, M records), in every form a log
holds it: bare lines (stderr), logcat's brief and threadtime forms, other
programs' lines interleaved. The crashing thread's walk from the store
equals gdb's unwind of it (return addresses, functions, files, lines,
inlined calls). `microdump_stackwalk` (Breakpad's usage) prints what
`symtool stackwalk --format breakpad` prints, its -m frames are the walk's,
and the crash, OS and module lines say what the microdump says. Damaged
microdumps (cut at every line, bad hex, records missing or malformed, a
context of the wrong size, a stack with a gap) give one error line or a
walk with warnings, never a crash or a hang.

With --arch arm64 (or arm), the crashes cross-built under qemu-user, as
Android microdumps ("O A")."""
import json
import os
import random
import re
import shutil
import subprocess
import tempfile

import core_to_microdump
import core_to_minidump
import test_minidump as md
import test_stackwalk as walk
from common import Report, arguments

STYLES = ("bare", "brief", "threadtime")


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def write_microdump(core_path, out, n, os_id="L"):
    with open(core_path, "rb") as fh:
        core = core_to_minidump.Core(fh.read())
    style = STYLES[n % len(STYLES)]
    text = core_to_microdump.convert(core, style=style, os_id=os_id, interleave=n % 2 == 1)
    with open(out, "w") as fh:
        fh.write(text)
    return core, style


def check_drop_in(args, label, store, dump, ours, report):
    """microdump_stackwalk's human form is `--format breakpad`'s; its -m
    frame lines are the walk's frames; the header says the microdump's
    crash, OS and modules."""
    theirs = sh(args.microdump_stackwalk, dump, store)
    form = sh(args.symtool, "stackwalk", "--format", "breakpad", "--store", store, dump)
    if theirs.returncode != 0 or theirs.stdout != form.stdout:
        report.fail(f"{label}: microdump_stackwalk differs from --format breakpad "
                    f"({theirs.returncode}: {theirs.stderr.strip()[:200]})")
        return
    machine = sh(args.microdump_stackwalk, "-m", dump, store).stdout.splitlines()
    frames = [line.split("|") for line in machine if re.match(r"^0\|\d+\|", line)]
    # (-m walks by Breakpad's rules: its frames are --breakpad-walk's.)
    p = sh(args.symtool, "stackwalk", "--json", "--breakpad-walk", "--store", store, dump)
    crashed = json.loads(p.stdout)["threads"][0]["frames"]
    if len(frames) != len(crashed) or any(
            (f[3] or None) != (w["function"] if w["module"] else None) and f[3] != w["function"]
            for f, w in zip(frames, crashed)):
        report.fail(f"{label}: -m frames {[f[3] for f in frames]} != the walk's {[w['function'] for w in crashed]}")
    crash = next((line for line in machine if line.startswith("Crash|")), "")
    if not crash.startswith("Crash|SIG") or not any(line.startswith("Module|") for line in machine):
        report.fail(f"{label}: -m header: {machine[:5]}")


def damaged(args, store, dump, tmp, report):
    with open(dump) as fh:
        lines = fh.read().splitlines()
    cases = []
    for cut in range(1, len(lines), max(1, len(lines) // 40)):
        cases.append(("cut", lines[:cut]))
    rng = random.Random(7)
    for kind in ("C", "O", "M", "S", "R"):
        i = next(k for k, line in enumerate(lines) if re.search(rf"(^|: ){kind} ", line))
        bad = list(lines)
        bad[i] = bad[i][:-3] + "XYZ"  # bad hex or words
        cases.append((f"bad {kind}", bad))
        cases.append((f"no {kind}", lines[:i] + lines[i + 1:]))
    c = next(k for k, line in enumerate(lines) if re.search(r"(^|: )C ", line))
    cases.append(("short context", lines[:c] + [lines[c][:len(lines[c]) // 2]] + lines[c + 1:]))
    s = [k for k, line in enumerate(lines) if re.search(r"(^|: )S [0-9A-F]+ [0-9A-F]", line)]
    if len(s) > 2:
        cases.append(("stack gap", lines[:s[1]] + lines[s[1] + 1:]))
    for n in range(20):
        bad = list(lines)
        for _ in range(rng.randint(1, 6)):
            k = rng.randrange(len(bad))
            line = bad[k]
            if line:
                p = rng.randrange(len(line))
                bad[k] = line[:p] + rng.choice("0F \x00Z-:") + line[p + 1:]
        cases.append((f"random {n}", bad))
    refused = 0
    for name, content in cases:
        path = os.path.join(tmp, "damaged.dmp")
        with open(path, "w") as fh:
            fh.write("\n".join(content) + "\n")
        for tool in ([args.symtool, "stackwalk", "--store", store, path],
                     [args.microdump_stackwalk, path, store]):
            try:
                p = sh(*tool, timeout=60)
            except subprocess.TimeoutExpired:
                report.fail(f"damaged microdump ({name}): {os.path.basename(tool[0])} hangs")
                continue
            if p.returncode < 0 or p.returncode > 2:
                report.fail(f"damaged microdump ({name}): {os.path.basename(tool[0])} exit {p.returncode}")
            elif p.returncode != 0:
                errors = [line for line in p.stderr.splitlines() if "error" in line]
                if len(errors) != 1:
                    report.fail(f"damaged microdump ({name}): not one error line: {p.stderr.strip()[:300]}")
                elif tool[0] == args.symtool:
                    refused += 1
    return len(cases), refused


def native(args, report, tmp):
    aliases = walk.Aliases()
    for lib in walk.SYSTEM_LIBS:
        aliases.load(lib)
    frames = dumps = 0
    sample = None
    for cc in ("gcc", "clang-19"):
        for frame_pointer in ("-fno-omit-frame-pointer", "-fomit-frame-pointer"):
            directory = walk.build(tmp, cc, frame_pointer)
            store = os.path.join(directory, "store")
            p = sh(args.symstore, "add", store, directory, "-d", "-q")
            if p.returncode != 0:
                report.fail(f"{cc}: symstore add: {p.stderr.strip()}")
                continue
            for mode in walk.MODES:
                label = f"{cc} {frame_pointer} {mode}"
                gcore = os.path.join(directory, f"gcore.{mode}")
                oracle = walk.gdb_oracle(directory, gcore, os.path.join(directory, f"gdb.{mode}.json"), mode)
                dump = os.path.join(directory, f"{mode}.microdump")
                _, style = write_microdump(gcore, dump, dumps)
                ours = md.walk_json(args, [store], dump)
                if ours["format"] != "microdump" or len(ours["threads"]) != 1:
                    report.fail(f"{label}: read as {ours['format']} with {len(ours['threads'])} threads")
                    continue
                want, got = md.crashed_only(oracle, ours)
                n, _ = walk.compare(f"{label} microdump ({style})", got, want, aliases, report)
                frames += n
                dumps += 1
                if mode != "handler":
                    check_drop_in(args, label, store, dump, ours, report)
                sample = sample or (store, dump)
    report.note(f"{dumps} x86_64 microdumps (bare, logcat brief and threadtime lines, other lines "
                f"interleaved): {frames} frames equal gdb's")
    if sample:
        cases, refused = damaged(args, sample[0], sample[1], tmp, report)
        report.note(f"{cases} damaged microdumps: {refused} refused with one error line, the rest walked; "
                    f"no crash or hang")


def cross_arch(args, report, tmp, arch):
    cross = walk.CROSS[arch]
    aliases = walk.Aliases()
    for lib in cross["libs"]:
        aliases.load(lib)
    frames = dumps = 0
    for cc, compiler in cross["compilers"]:
        for frame_pointer in ("-fno-omit-frame-pointer", "-fomit-frame-pointer"):
            directory = os.path.join(tmp, f"{arch}-{cc}{frame_pointer}")
            root = walk.build_cross(directory, compiler, frame_pointer, cross)
            store = os.path.join(directory, "store")
            p = sh(args.symstore, "add", store, directory, "-d", "-q")
            if p.returncode != 0:
                report.fail(f"{arch} {cc}: symstore add: {p.stderr.strip()}")
                continue
            for mode in walk.MODES[:3]:
                label = f"{arch} {cc} {frame_pointer} {mode}"
                _, maps, core, oracle = walk.cross_core(directory, mode, cross, root)
                if oracle is None:
                    report.fail(f"{label}: gdb-multiarch wrote no frames")
                    continue
                dump = os.path.join(directory, f"{mode}.microdump")
                _, style = write_microdump(core, dump, dumps, os_id="A")
                ours = md.walk_json(args, [store], dump)
                want, got = md.crashed_only(oracle, ours)
                with open(maps) as fh:
                    mapped = md.core_synthesis.parse_maps(fh.read())
                lost = md.lost_oracle(want, got, mapped)
                if lost:
                    want, got = lost
                n, _ = walk.compare(f"{label} microdump ({style})", got, want, aliases, report)
                frames += n
                dumps += 1
                check_drop_in(args, label, store, dump, ours, report)
    report.note(f"{dumps} {arch} Android microdumps: {frames} frames equal gdb-multiarch's")


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--symstore", required=True),
                                p.add_argument("--microdump-stackwalk", required=True),
                                p.add_argument("--arch", default="x86_64", choices=("x86_64", "arm64", "arm"))))
    report = Report(f"symtool stackwalk microdumps {args.arch}")
    tmp = tempfile.mkdtemp()
    try:
        if args.arch == "x86_64":
            native(args, report, tmp)
        else:
            cross_arch(args, report, tmp, args.arch)
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
