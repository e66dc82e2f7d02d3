#!/usr/bin/env python3
"""The command line: Breakpad's flags, --output, --store, --version, --help,
warnings on stderr (a count, or each one with -v), and output that is the
same byte for byte whatever the thread count."""
import os
import re
import subprocess
import tempfile

import oracles
from common import Report, arguments, fixtures


def run(args, *argv):
    return subprocess.run([args.dump_syms, *argv], capture_output=True, text=True, errors="replace")


def main():
    args = arguments()
    report = Report("cli")
    by_name = {f["name"]: f["path"] for f in fixtures(args)}
    cxx = by_name["cxx.gcc.O2.dwarf5"]
    static = by_name["free.clang.x86_64.O2"]  # ET_EXEC, loaded at a non-zero address
    plain = run(args, cxx).stdout

    header = run(args, "-i", cxx).stdout.splitlines()
    if len(header) != 2 or not header[0].startswith("MODULE ") or not header[1].startswith("INFO CODE_ID "):
        report.fail(f"-i: {header[:3]}")

    base = oracles.load_address(static)
    relative = [l for l in run(args, static).stdout.splitlines() if l.startswith("FUNC ")]
    absolute = [l for l in run(args, "-a", static).stdout.splitlines() if l.startswith("FUNC ")]
    if base == 0 or len(relative) != len(absolute) or any(
            int(a.split()[1], 16) != int(r.split()[1], 16) + base for a, r in zip(absolute, relative)):
        report.fail(f"-a: addresses are not the relative ones plus {base:x}")

    first = run(args, "-b", "0123456789ABCDEF0123456789ABCDEF5", "-n", "renamed.so", "-o", "Android", static)
    if first.stdout.split("\n")[0] != "MODULE Android x86_64 0123456789ABCDEF0123456789ABCDEF5 renamed.so":
        report.fail(f"-b/-n/-o: {first.stdout.splitlines()[0]!r}")

    if "STACK CFI" in run(args, "-c", cxx).stdout or "STACK CFI" not in plain:
        report.fail("-c does not (only) drop STACK CFI")

    marked = run(args, "-m", cxx).stdout
    if not re.search(r"^(FUNC|PUBLIC) m ", marked, re.M) or re.search(r"^(FUNC|PUBLIC) m ", plain, re.M):
        report.fail("-m: no `m` flag where symbols share code, or one without -m")

    inlines = run(args, "-d", cxx).stdout
    if "INLINE_ORIGIN " not in inlines or "INLINE_ORIGIN " in plain:
        report.fail("-d: INLINE records missing, or written without -d")
    if run(args, "--inlines", cxx).stdout != inlines:
        report.fail("--inlines differs from -d")

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "x.sym")
        p = run(args, cxx, "--output", out)
        if p.stdout or open(out).read() != plain:
            report.fail("--output: the file differs from stdout's output")
        p = run(args, "--store", tmp, cxx)
        module = plain.split("\n")[0].split(" ")
        want = os.path.join(tmp, module[4], module[3], module[4] + ".sym")
        if p.stdout.strip() != want or not os.path.exists(want) or open(want).read() != plain:
            report.fail(f"--store: printed {p.stdout.strip()!r}, want {want}")

    # Drop-in for Breakpad's and Mozilla's scripts: -r (accepted; cross-unit
    # references are always followed), --check-cfi.
    if run(args, "-r", cxx).stdout != plain:
        report.fail("-r changes the output")
    if "-r has no effect" not in run(args, "-r", "-v", cxx).stderr:
        report.fail("-r -v does not say that cross-unit references are always followed")
    checked = run(args, "--check-cfi", cxx)
    if checked.returncode != 0 or checked.stdout != plain:
        report.fail(f"--check-cfi on a file with CFI: exit {checked.returncode}")
    no_cfi = run(args, "--check-cfi", "-c", cxx)
    if no_cfi.returncode != 1 or no_cfi.stdout or "STACK CFI" not in no_cfi.stderr:
        report.fail(f"--check-cfi without CFI: exit {no_cfi.returncode}, {no_cfi.stderr.strip()!r}")

    # --map-prefix: the first matching OLD is replaced in FILE records.
    files = [l.split(" ", 2)[2] for l in plain.splitlines() if l.startswith("FILE ")]
    source_dir = os.path.dirname(files[0])
    mapped = run(args, "--map-prefix", "/no/such/prefix=/x", "--map-prefix", source_dir + "=/src",
                 "--map-prefix", source_dir + "=/second", cxx).stdout
    mapped_files = [l.split(" ", 2)[2] for l in mapped.splitlines() if l.startswith("FILE ")]
    want_files = ["/src" + f[len(source_dir):] if f.startswith(source_dir) else f for f in files]
    if mapped_files != want_files:
        report.fail(f"--map-prefix: {mapped_files[:3]}, want {want_files[:3]}")
    strip_files = lambda text: [l for l in text.splitlines() if not l.startswith("FILE ")]
    if strip_files(mapped) != strip_files(plain):
        report.fail("--map-prefix changed records other than FILE")
    if run(args, "--map-prefix", "no-equals-sign", cxx).returncode != 2:
        report.fail("--map-prefix without OLD=NEW is not a usage error")
    if run(args, "--names", "llvm", cxx).stdout != plain:
        report.fail("--names llvm is not the default")
    if run(args, "--names", "gnu", cxx).returncode != 2:
        report.fail("--names gnu is not a usage error")

    version = run(args, "--version")
    if version.returncode != 0 or not version.stdout.startswith("dump_syms "):
        report.fail(f"--version: {version.stdout!r}")
    usage = run(args, "--help")
    if usage.returncode != 0 or "--output" not in usage.stdout or "-d,--inlines" not in usage.stdout:
        report.fail("--help does not describe the options")

    # Warnings: a count by default, each one with -v, nothing with --quiet.
    asm = by_name["asm.clang.O2"]  # clang: line rows, no DW_TAG_subprogram
    quiet, loud, silent = run(args, cxx), run(args, "-v", asm), run(args, "--quiet", asm)
    if quiet.stderr and not re.match(r"^dump_syms: \d+ warnings? \(-v shows them\)\n$", quiet.stderr):
        report.fail(f"default stderr: {quiet.stderr!r}")
    if "FUNC records named from the symbol table" not in loud.stderr:
        report.fail(f"-v does not say what it did: {loud.stderr!r}")
    if silent.stderr:
        report.fail(f"--quiet printed {silent.stderr!r}")

    # The same bytes on every run and for every thread count.
    for name in ("cxx.gcc.flto.O2", "cxx.clang.O2.dwarf5", "c.gcc.O3.dwarf4"):
        outputs = {run(args, "-d", f"-j{j}", by_name[name]).stdout for j in (1, 2, 4, 8, 8)}
        if len(outputs) != 1:
            report.fail(f"{name}: output changes with the thread count")
    report.finish()


if __name__ == "__main__":
    main()
