#!/usr/bin/env python3
"""Damaged line-table headers (issue 14): LLVM 19's prologue parser crashes
on some; dump_syms checks every header first, leaves the damaged table's
line records out with a warning, and keeps the unit's functions, its CFI
and its PUBLICs. Two one-byte corruptions found by a mutation campaign are
replayed, then the whole class is swept: each of the first 96 bytes of
.debug_line set to 0x00, 0xbf and 0xff in DWARF 5, 4 and 2/3 binaries."""
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

import symfile
from common import Report, arguments, fixtures, require_shared, section

HERE = os.path.dirname(os.path.abspath(__file__))
CRASHERS = os.path.join(HERE, "..", "data", "crashers")
TIMEOUT = 60


def run(args, *argv):
    try:
        return subprocess.run([args.dump_syms, *argv], capture_output=True, text=True,
                              errors="replace", timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None


def dump(args, report, label, path, out, *extra):
    p = run(args, "-d", "-v", path, "--output", out, *extra)
    if p is None:
        report.fail(f"{label}: hung")
        return None, ""
    if p.returncode != 0:
        report.fail(f"{label}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
        return None, p.stderr
    sym = symfile.load(out)
    if sym.structural_problems():
        report.fail(f"{label}: unsound output: {sym.structural_problems()[:3]}")
    return sym, p.stderr


def replay_crashers(args, report, tmp):
    """Each crasher dumps with a warning naming the line table; everything
    but the line records equals the intact corpus binary's output."""
    corpus = os.path.join(args.shared, "corpus")
    cases = {
        "line-header-form-1": "cprog.clang19.gz-zstd",
        "line-header-form-2": "crashchain.clang19.split-O2",
    }
    for crasher, original in cases.items():
        # The split binary's .dwo is recorded as bin/<name>.dwo: the corpus
        # root as DEBUG_DIR finds it for both files.
        damaged, stderr = dump(args, report, crasher, os.path.join(CRASHERS, crasher),
                               os.path.join(tmp, "damaged.sym"), corpus)
        intact, _ = dump(args, report, original, os.path.join(corpus, "bin", original),
                         os.path.join(tmp, "intact.sym"), corpus)
        if damaged is None or intact is None:
            continue
        if "line table" not in stderr or "damaged" not in stderr:
            report.fail(f"{crasher}: no warning about the damaged line table: {stderr.strip()!r}")
        funcs = lambda s: sorted((f.address, f.size, f.name) for f in s.funcs)
        if not damaged.funcs or funcs(damaged) != funcs(intact):
            report.fail(f"{crasher}: {len(damaged.funcs)} FUNCs differ from the intact file's {len(intact.funcs)}")
        if damaged.cfi != intact.cfi or not damaged.cfi:
            report.fail(f"{crasher}: STACK CFI differs from the intact file's")
        if sorted(damaged.publics) != sorted(intact.publics):
            report.fail(f"{crasher}: PUBLIC records differ from the intact file's")
        if any(f.lines for f in damaged.funcs):
            report.fail(f"{crasher}: line records written from a damaged table")
        report.note(f"{crasher}: {len(damaged.funcs)} FUNCs, {len(damaged.cfi)} CFI frames kept, lines left out")


def sweep(args, report, tmp, sources):
    """Every one-byte variant of the first 96 bytes of .debug_line: exit 0
    with a sound file, or exit 1 with one line; never a signal or a hang."""
    jobs = []
    for source in sources:
        found = section(source, ".debug_line")
        if found is None:
            report.fail(f"{source}: no .debug_line")
            continue
        offset, size = found
        with open(source, "rb") as fh:
            data = fh.read()
        for i in range(min(96, size)):
            for value in (0x00, 0xBF, 0xFF):
                if data[offset + i] != value:
                    jobs.append((source, data, offset + i, value))

    def one(job):
        source, data, at, value = job
        variant = bytearray(data)
        variant[at] = value
        name = f"{os.path.basename(source)}.{at:x}.{value:02x}"
        path = os.path.join(tmp, name)
        with open(path, "wb") as fh:
            fh.write(variant)
        out = path + ".sym"
        p = run(args, "-d", path, "--output", out)
        try:
            if p is None:
                shutil.copy(path, os.path.join(tempfile.gettempdir(), "dump_syms-hang-" + name))
                return f"{name}: hung"
            if p.returncode not in (0, 1):
                kept = os.path.join(tempfile.gettempdir(), "dump_syms-crash-" + name)
                shutil.copy(path, kept)
                return f"{name}: exit {p.returncode}; input kept at {kept}"
            if p.returncode == 1 and len(p.stderr.strip().splitlines()) != 1:
                return f"{name}: exit 1 without one error line: {p.stderr.strip()!r}"
            if p.returncode == 0:
                problems = symfile.load(out).structural_problems()
                if problems:
                    return f"{name}: unsound output: {problems[:2]}"
            return None
        finally:
            for leftover in (path, out):
                if os.path.exists(leftover):
                    os.remove(leftover)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        failures = [f for f in pool.map(one, jobs) if f]
    for failure in failures:
        report.fail(failure)
    report.note(f"{len(jobs)} one-byte variants of {len(sources)} line-table headers: "
                f"{len(failures)} failures")


def main():
    args = arguments()
    require_shared(args)
    report = Report("line-table headers")
    tmp = tempfile.mkdtemp()
    try:
        replay_crashers(args, report, tmp)
        corpus = os.path.join(args.shared, "corpus", "bin")
        by_name = {f["name"]: f["path"] for f in fixtures(args)}
        sources = [os.path.join(corpus, n) for n in
                   # DWARF 5 (gcc, clang C++, clang split skeleton), DWARF 4
                   ("cprog.gcc12.g-O2", "cxxprog.clang19.g-O2", "crashchain.clang19.g-O2",
                    "cxxprog.gcc12.gdwarf4-O2", "crashchain.clang19.gdwarf4-O2")]
        sources += [by_name[n] for n in ("cxx.gcc.O2.dwarf2", "c.gcc.O2.dwarf3") if n in by_name]
        sweep(args, report, tmp, sources)
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
