#!/usr/bin/env python3
"""The .sym parser every reader shares (symtool): reading a file dump_syms
wrote and writing it again gives the same bytes, for every corpus binary
and fixture; `symtool validate` finds nothing in those files, finds each
planted problem at its line, finds Breakpad's own INLINE quirk in its
reference files, and survives random bytes; `symtool stats` counts what an
independent parser counts, and its --json says the same numbers; `symtool
diff` finds added, removed, moved and changed functions."""
import json
import os
import random
import subprocess
import tempfile

from common import Report, arguments, fixtures, require_shared


def run(*argv, **kw):
    return subprocess.run(list(argv), capture_output=True, text=True, errors="replace", timeout=120, **kw)


GOOD = """MODULE Linux x86_64 0123456789ABCDEF0123456789ABCDEF0 demo
INFO CODE_ID 89674523AB01EFCD
FILE 0 /src/a.c
INLINE_ORIGIN 0 helper
FUNC 1000 20 0 main
INLINE 0 7 0 0 1004 8
1000 4 5 0
1004 8 7 0
PUBLIC 2000 0 start
STACK CFI INIT 1000 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^
STACK CFI 1001 .cfa: $rsp 16 +
"""

# (line to change, replacement, expected message fragment)
PLANTED = [
    (5, "FUNC 1000 0 0 main", "empty or wrapping range"),
    (6, "INLINE 0 7 0 9 1004 8", "origin 9 has no INLINE_ORIGIN"),
    (6, "INLINE 1 7 0 0 1004 8", "skips a level"),
    (6, "INLINE 0 7 0 0 3000 8", "INLINE range outside its FUNC"),
    (7, "1000 4 5 3", "file 3 has no FILE record"),
    (8, "2000 8 7 0", "line record outside its FUNC"),
    (8, "1002 8 7 0", "overlaps or precedes"),
    (9, "PUBLIC zz 0 start", "PUBLIC without hex address"),
    (11, "STACK CFI 5000 .cfa: $rsp 16 +", "outside its STACK CFI INIT"),
    (3, "FILE x /src/a.c", "FILE without a decimal id"),
    (5, "BOGUS 1 2 3", "not a record"),
]


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--roundtrip", required=True)))
    require_shared(args)
    report = Report("symtool validate and the .sym parser")
    with tempfile.TemporaryDirectory() as tmp:
        # Round trip and validation of everything dump_syms writes.
        corpus = os.path.join(args.shared, "corpus")
        inputs = [os.path.join(corpus, "bin", n) for n in sorted(os.listdir(os.path.join(corpus, "bin")))]
        inputs += [f["path"] for f in fixtures(args)]
        dumped = 0
        for i, binary in enumerate(inputs):
            out = os.path.join(tmp, f"{i}.sym")
            for flags in (["-d"], ["-d", "-m"]):
                p = run(args.dump_syms, *flags, binary, os.path.join(corpus, "debugroot"), "--output", out)
                if p.returncode != 0:
                    break
                dumped += 1
                back = run(args.roundtrip, out)
                if back.returncode != 0 or back.stdout != open(out).read():
                    report.fail(f"{binary} {flags}: read then written differs ({back.stderr.strip()[:200]})")
            if p.returncode == 0:
                check = run(args.symtool, "validate", "-q", out)
                if check.returncode != 0:
                    report.fail(f"{binary}: validate: {check.stdout.strip()[:300]}")
        report.note(f"{dumped} files written by dump_syms read and written back identically")

        # Planted problems, each at its line.
        good = os.path.join(tmp, "good.sym")
        with open(good, "w") as fh:
            fh.write(GOOD)
        clean = run(args.symtool, "validate", good)
        if clean.returncode != 0 or clean.stdout:
            report.fail(f"a sound file: exit {clean.returncode}: {clean.stdout}")
        for number, replacement, fragment in PLANTED:
            lines = GOOD.splitlines()
            lines[number - 1] = replacement
            bad = os.path.join(tmp, "bad.sym")
            with open(bad, "w") as fh:
                fh.write("\n".join(lines) + "\n")
            p = run(args.symtool, "validate", bad)
            want = f"{bad}:{number}: "
            if p.returncode != 1 or not any(l.startswith(want) and fragment in l for l in p.stdout.splitlines()):
                report.fail(f"line {number} '{replacement}': want '{fragment}' at {number}, got {p.stdout.strip()!r}")
        no_module = os.path.join(tmp, "nomodule.sym")
        with open(no_module, "w") as fh:
            fh.write(GOOD.split("\n", 1)[1])
        if "does not start with a MODULE" not in run(args.symtool, "validate", no_module).stdout:
            report.fail("a file without MODULE is not reported")
        missing = run(args.symtool, "validate", os.path.join(tmp, "none.sym"))
        if missing.returncode != 1 or "cannot read it" not in missing.stderr:
            report.fail(f"a missing file: exit {missing.returncode}, {missing.stderr.strip()!r}")
        if run(args.symtool, "validate").returncode != 2 or run(args.symtool, "frobnicate").returncode != 2:
            report.fail("usage errors do not exit 2")

        # Breakpad's own files repeat a split function's INLINE list after
        # each of its FUNC records (a documented quirk): validate sees it.
        reference = os.path.join(args.shared, "reference", "cxxprog.gcc12.types-dwarf4-O2.sym")
        if "INLINE range outside its FUNC" not in run(args.symtool, "validate", reference).stdout:
            report.fail("Breakpad's repeated INLINE lists are not reported")

        # stats: the record counts an independent parser (symfile.py) finds.
        import symfile
        sample = os.path.join(tmp, "sample.sym")
        by_name = {f["name"]: f["path"] for f in fixtures(args)}
        run(args.dump_syms, "-d", by_name["cxx.gcc.O2.dwarf5"], "--output", sample)
        parsed = symfile.load(sample)
        stats = run(args.symtool, "stats", sample)
        want = (f"{len(parsed.files)} FILE, {len(parsed.origins)} INLINE_ORIGIN, {len(parsed.funcs)} FUNC, "
                f"{sum(len(f.lines) for f in parsed.funcs)} line, {sum(len(f.inlines) for f in parsed.funcs)} INLINE, "
                f"{len(parsed.publics)} PUBLIC, {len(parsed.cfi)} STACK CFI INIT")
        if stats.returncode != 0 or want not in stats.stdout:
            report.fail(f"stats: {stats.stdout.strip()[:400]!r}, want {want!r}")
        biggest = max(parsed.funcs, key=lambda f: f.size)
        if f"{biggest.size}  {biggest.name}" not in stats.stdout:
            report.fail(f"stats: the largest function {biggest.name} ({biggest.size}) is not listed")
        # stats --json: the same numbers as the text.
        as_json = run(args.symtool, "stats", "--json", sample)
        try:
            numbers = json.loads(as_json.stdout)
        except ValueError:
            numbers = None
        if as_json.returncode != 0 or not isinstance(numbers, dict):
            report.fail(f"stats --json: exit {as_json.returncode}, {as_json.stdout.strip()[:400]!r}")
        else:
            records = numbers.get("records", {})
            text_records = ", ".join(f"{records.get(k)} {k}" for k in (
                "FILE", "INLINE_ORIGIN", "FUNC", "line", "INLINE", "PUBLIC", "STACK CFI INIT", "STACK CFI",
                "STACK WIN"))
            nbytes = numbers.get("bytes", {})
            code = nbytes.get("code")
            shares = ", ".join(f"in {what}: {100.0 * nbytes.get(k, 0) / code if code else 0.0:.2f}%" for what, k in (
                ("a FUNC", "function"), ("a line record", "line"), ("STACK CFI", "cfi")))
            largest = "".join(f"    {f['size']:10d}  {f['name']}\n" for f in numbers.get("largest", []))
            if f"records: {text_records}\n" not in stats.stdout \
                    or f"code known to the file: {code} bytes" not in stats.stdout \
                    or f"  {shares}\n" not in stats.stdout \
                    or not largest or not stats.stdout.endswith(largest):
                report.fail(f"stats --json differs from the text: {as_json.stdout.strip()[:400]!r}")
            elif records.get("FUNC") != len(parsed.funcs):
                report.fail(f"stats --json: {records.get('FUNC')} FUNC, want {len(parsed.funcs)}")

        # diff: nothing against itself; each kind of change found.
        if run(args.symtool, "diff", good, good).returncode != 0:
            report.fail("diff of a file with itself is not empty")
        changed = GOOD.replace("FUNC 1000 20 0 main", "FUNC 1000 20 0 main\n1000 4 5 0\n1004 8 8 0", 1)
        changed = changed.replace("1000 4 5 0\n1004 8 7 0\n", "", 1)
        changed = changed.replace("PUBLIC 2000 0 start", "FUNC 3000 10 0 added_one\nPUBLIC 2000 0 start")
        moved = GOOD.replace("FUNC 1000 20 0 main", "FUNC 1100 20 0 main").replace("1000 4 5 0", "1100 4 5 0") \
            .replace("1004 8 7 0", "1104 8 7 0").replace("INLINE 0 7 0 0 1004 8", "INLINE 0 7 0 0 1104 8")
        for text, fragments in ((changed, ["! main: line records changed", "+ added_one"]),
                                (moved, ["~ main moved from 0x1000 to 0x1100"])):
            other = os.path.join(tmp, "other.sym")
            with open(other, "w") as fh:
                fh.write(text)
            d = run(args.symtool, "diff", good, other)
            if d.returncode != 1 or not all(f in d.stdout for f in fragments):
                report.fail(f"diff: exit {d.returncode}, {d.stdout.strip()!r}, want {fragments}")
            if "moved" in fragments[0] and "line records changed" in d.stdout:
                report.fail("diff: a moved function with the same lines is reported as changed")
            back = run(args.symtool, "diff", other, good)
            if "added_one" in text and "- added_one" not in back.stdout:
                report.fail(f"diff the other way: {back.stdout.strip()!r}")

        # Random bytes and damaged files: problems, never a crash.
        rng = random.Random(5)
        for i in range(200):
            data = bytearray(GOOD.encode())
            for _ in range(rng.choice([1, 8, 64])):
                data[rng.randrange(len(data))] = rng.randrange(256)
            if i % 10 == 0:
                data = bytearray(rng.randrange(256) for _ in range(rng.randrange(1, 4000)))
            path = os.path.join(tmp, "fuzz.sym")
            with open(path, "wb") as fh:
                fh.write(data)
            p = subprocess.run([args.symtool, "validate", "-q", path], capture_output=True, timeout=60)
            if p.returncode not in (0, 1):
                report.fail(f"damaged file {i}: exit {p.returncode}")
    report.finish()


if __name__ == "__main__":
    main()
