#!/usr/bin/env python3
"""Bad input gets one clear line on stderr naming the file and the problem,
exit status 1 (2 for usage errors), and never a crash, a hang or a partial
output file. Corrupt DWARF in one place costs only that place."""
import os
import random
import shutil
import subprocess
import tempfile

import symfile
from common import Report, arguments, fixtures, section

TIMEOUT = 60


def run(args, *argv, timeout=TIMEOUT):
    try:
        return subprocess.run([args.dump_syms, *argv], capture_output=True, text=True, timeout=timeout,
                              errors="replace")
    except subprocess.TimeoutExpired:
        return None


def expect_error(report, label, p, status, *needles):
    if p is None:
        report.fail(f"{label}: hung")
        return
    if p.returncode != status:
        report.fail(f"{label}: exit {p.returncode}, want {status}; stderr {p.stderr.strip()!r}")
        return
    lines = p.stderr.strip().splitlines()
    if status == 1 and len(lines) != 1:
        report.fail(f"{label}: want one line on stderr, got {lines}")
    for needle in needles:
        if needle not in p.stderr:
            report.fail(f"{label}: stderr {p.stderr.strip()!r} does not mention {needle!r}")
    if p.stdout:
        report.fail(f"{label}: wrote to stdout on error")


def patched(source, directory, name, edit):
    path = os.path.join(directory, name)
    with open(source, "rb") as fh:
        data = bytearray(fh.read())
    edit(data)
    with open(path, "wb") as fh:
        fh.write(data)
    return path


def dump_ok(args, report, path, tmp, label, *flags):
    """Dumps a damaged file that must still dump; returns (SymFile, stderr)."""
    out = os.path.join(tmp, "out.sym")
    p = run(args, "-d", *flags, path, "--output", out)
    if p is None or p.returncode != 0:
        report.fail(f"{label}: {'hung' if p is None else p.stderr.strip()}")
        return None, ""
    sym = symfile.load(out)
    problems = sym.structural_problems()
    if problems:
        report.fail(f"{label}: unsound output: {problems[:3]}")
    return sym, p.stderr


REPRODUCERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "llvm_reproducers")


def check_llvm_reproducers(args, report, tmp):
    """The minimal reproducers of the LLVM 19 bugs docs/FUZZING.md works
    around: each assembles to an object that dump_syms dumps with the
    warning its header names. Whether LLVM's own tool still crashes on it is
    only noted: a fixed LLVM is no failure."""
    for name in sorted(os.listdir(REPRODUCERS)):
        if not name.endswith(".s"):
            continue
        source = os.path.join(REPRODUCERS, name)
        label = f"LLVM reproducer {name}"
        with open(source) as fh:
            header = [line.rstrip("\n") for line in fh if line.startswith("# ")]
        crashes = next((line[len("# crashes: "):] for line in header if line.startswith("# crashes: ")), None)
        warning = next((line[len("# dump_syms warns: "):] for line in header
                        if line.startswith("# dump_syms warns: ")), None)
        if crashes is None or warning is None:
            report.fail(f"{label}: its header names no 'crashes:' or 'dump_syms warns:' line")
            continue
        obj = os.path.join(tmp, name[:-2] + ".o")
        built = subprocess.run(["llvm-mc-19", "-filetype=obj", "-triple", "x86_64-linux-gnu", source, "-o", obj],
                               capture_output=True, text=True)
        if built.returncode != 0:
            report.fail(f"{label}: llvm-mc-19: {built.stderr.strip()}")
            continue
        sym, stderr = dump_ok(args, report, obj, tmp, label, "-v")
        if sym is None:
            continue
        if warning not in stderr:
            report.fail(f"{label}: no warning {warning!r} in {stderr.strip()!r}")
            continue
        try:
            status = subprocess.run(crashes.split() + [obj], capture_output=True, timeout=TIMEOUT).returncode
            crashed = status < 0 or status > 128
        except subprocess.TimeoutExpired:
            crashed = True
        report.note(f"{label}: dumped with its warning; {crashes} "
                    f"{'still crashes' if crashed else 'no longer crashes'} on it")

def main():
    args = arguments()
    report = Report("bad input")
    program = next(f["path"] for f in fixtures(args) if f["name"] == "c.gcc.O2.dwarf5")
    cxx = next(f["path"] for f in fixtures(args) if f["name"] == "cxx.gcc.O2.dwarf5")
    tmp = tempfile.mkdtemp()
    try:
        missing = os.path.join(tmp, "no-such-file")
        expect_error(report, "missing file", run(args, missing), 1, missing, "No such file")

        text = os.path.join(tmp, "notes.txt")
        with open(text, "w") as fh:
            fh.write("not an executable\n")
        expect_error(report, "not ELF", run(args, text), 1, text, "not an ELF file")

        empty = os.path.join(tmp, "empty")
        open(empty, "w").close()
        expect_error(report, "empty file", run(args, empty), 1, empty)

        expect_error(report, "directory", run(args, tmp), 1, tmp)

        head = patched(program, tmp, "truncated-header", lambda d: d.__delitem__(slice(40, None)))
        expect_error(report, "truncated header", run(args, head), 1, head)

        half = patched(program, tmp, "truncated-half", lambda d: d.__delitem__(slice(len(d) // 2, None)))
        expect_error(report, "truncated file", run(args, half), 1, half)

        def bad_section_table(d):
            d[0x28:0x30] = (len(d) + 4096).to_bytes(8, "little")  # e_shoff past the end
        shoff = patched(program, tmp, "bad-shoff", bad_section_table)
        expect_error(report, "section headers past the end", run(args, shoff), 1, shoff)

        def bad_phoff(d):
            d[0x20:0x28] = (len(d) * 3).to_bytes(8, "little")  # e_phoff past the end
        phoff = patched(program, tmp, "bad-phoff", bad_phoff)
        expect_error(report, "program headers past the end", run(args, phoff), 1, phoff)

        # An unusable output path: an error naming it, nothing written.
        out = os.path.join(tmp, "no-dir", "x.sym")
        expect_error(report, "unwritable output", run(args, program, "--output", out), 1, out)
        # A failed dump leaves an existing output file as it was.
        existing = os.path.join(tmp, "existing.sym")
        with open(existing, "w") as fh:
            fh.write("old contents\n")
        expect_error(report, "failed dump", run(args, missing, "--output", existing), 1, missing)
        if open(existing).read() != "old contents\n":
            report.fail("a failed dump changed the existing output file")
        leftovers = [n for n in os.listdir(tmp) if n.startswith(".existing")]
        if leftovers:
            report.fail(f"temporary files left behind: {leftovers}")

        # Usage errors exit 2.
        expect_error(report, "no arguments", run(args), 2)
        expect_error(report, "unknown option", run(args, "--no-such-option", program), 2)
        expect_error(report, "bad --linux-gate", run(args, "--linux-gate", "via"), 2)

        # Corrupt DWARF: the dump still succeeds with a warning, the file it
        # writes is sound, and only the damaged part is lost.
        whole, _ = dump_ok(args, report, cxx, tmp, "intact")
        info_offset, _ = section(cxx, ".debug_info")
        line_offset, _ = section(cxx, ".debug_line")
        rng_offset, _ = section(cxx, ".debug_rnglists")
        targeted = {
            # the first unit's DWARF version becomes 99
            "unit version": lambda d: d.__setitem__(slice(info_offset + 4, info_offset + 6), b"\x63\x00"),
            # the first line table's length becomes a reserved value
            "line table length": lambda d: d.__setitem__(slice(line_offset, line_offset + 4), b"\xf0\xff\xff\xff"),
            # the first range list's first entry gets an unknown kind
            "range list entry": lambda d: d.__setitem__(rng_offset + 12, 0x7f),
        }
        for label, edit in targeted.items():
            path = patched(cxx, tmp, "corrupt", edit)
            sym, stderr = dump_ok(args, report, path, tmp, label)
            if sym is None:
                continue
            if "warning" not in stderr:
                report.fail(f"corrupt {label}: no warning")
            if whole and not 0 < len(sym.funcs) <= len(whole.funcs):
                report.fail(f"corrupt {label}: {len(sym.funcs)} FUNCs, intact file has {len(whole.funcs)}")
        for name in (".debug_info", ".debug_line", ".debug_abbrev", ".eh_frame", ".debug_rnglists",
                     ".debug_str", ".debug_loclists"):
            offset, size = section(cxx, name)
            rng = random.Random(name)

            def scramble(d, offset=offset, size=size, rng=rng):
                for i in range(offset + size // 3, offset + size // 3 + min(64, size // 3)):
                    d[i] = rng.randrange(256)
            dump_ok(args, report, patched(cxx, tmp, "scrambled" + name, scramble), tmp, "scrambled " + name)

        check_llvm_reproducers(args, report, tmp)

        # Random damage anywhere: never a crash or a hang. Inputs of several
        # kinds: C (x86_64), C++ with split-off .cold parts (clang, DWARF 5),
        # and ARM code unwound only by .ARM.exidx.
        by_name = {f["name"]: f["path"] for f in fixtures(args)}
        rng = random.Random(7)
        crashes = 0
        sources = [by_name[n] for n in ("c.gcc.O2.dwarf5", "cxx.clang.O2.dwarf5", "free.gcc.arm.O2.exidx")]
        for i in range(240):
            source = sources[i % len(sources)]
            with open(source, "rb") as fh:
                data = bytearray(fh.read())
            for _ in range(rng.choice([1, 4, 32])):
                data[rng.randrange(len(data))] = rng.randrange(256)
            path = os.path.join(tmp, "fuzz")
            with open(path, "wb") as fh:
                fh.write(data)
            p = run(args, "-d", path, "--output", os.path.join(tmp, "fuzz.sym"), timeout=30)
            if p is None:
                report.fail(f"fuzz case {i} ({os.path.basename(source)}): hung")
                shutil.copy(path, os.path.join(tempfile.gettempdir(), f"dump_syms-hang-{i}"))
            elif p.returncode not in (0, 1):
                crashes += 1
                kept = os.path.join(tempfile.gettempdir(), f"dump_syms-crash-{i}")
                shutil.copy(path, kept)
                report.fail(f"fuzz case {i}: exit {p.returncode} ({p.stderr.strip()[-200:]}); input kept at {kept}")
        report.note(f"240 damaged copies of {len(sources)} fixtures: {crashes} crashes")
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
