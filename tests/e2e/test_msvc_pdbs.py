#!/usr/bin/env python3
"""MSVC-written PDBs (../shared/windows) against the symbol files Breakpad's
Windows dump_syms (DIA) wrote for them, record by record, in Breakpad mode
(--names breakpad):

- MODULE, INFO, every FUNC (address, size, parameter size, name), every
  PUBLIC (with its `m` flag and parameter size) and every STACK WIN record
  identical;
- line records identical (without -d a function's lines are its own, at
  inlined calls the call's line, as Breakpad's are), but for Breakpad's
  rows past their function; with -d the lines inside inlined code are the
  inlined function's: each line -d changes lies inside one of its INLINE
  ranges (or is the call site's row cut there), and the PDB has an
  S_INLINESITE in that function (`llvm-pdbutil dump --symbols`);
- x64 STACK CFI: every function Breakpad describes, we describe with the
  same INIT range (ours adds a row after each prologue step);
- the default (--names llvm) keeps its own names, but writes Breakpad's
  x86 FUNC parameter sizes (every FUNC's equal to Breakpad's) and PUBLIC
  records (the same addresses and parameter sizes; names aside);
- no "?A0x" (an MSVC anonymous namespace) in either style's output.

Prints the per-kind table docs/PDB.md shows.
"""
import collections
import os
import re
import subprocess
import tempfile

import common

LLVM = "/usr/lib/llvm-19/bin"
CASES = [
    # (what to dump, the reference, its PDB)
    ("dump_syms_regtest.pdb", "dump_syms_regtest.sym", "dump_syms_regtest.pdb"),
    ("dump_syms_regtest64.exe", "dump_syms_regtest64.sym", "dump_syms_regtest64.pdb"),
]


def parse(path):
    """Records by kind, keyed so that the same record in two files meets."""
    kinds = collections.defaultdict(dict)
    files = {}
    function = None
    inline_ranges = []
    with open(path, encoding="utf-8", newline="\n") as fh:
        for raw in fh:
            line = raw.rstrip("\r\n")
            fields = line.split(" ")
            kind = fields[0]
            if kind == "FILE":
                files[fields[1]] = " ".join(fields[2:])
            elif kind in ("MODULE", "INFO", "INLINE_ORIGIN"):
                kinds[kind][line] = True
            elif kind == "FUNC":
                multiple = fields[1] == "m"
                f = fields[2:] if multiple else fields[1:]
                function = int(f[0], 16)
                kinds["FUNC"][function] = (multiple, int(f[1], 16), int(f[2], 16), " ".join(f[3:]))
            elif kind == "PUBLIC":
                multiple = fields[1] == "m"
                f = fields[2:] if multiple else fields[1:]
                kinds["PUBLIC"][int(f[0], 16)] = (multiple, int(f[1], 16), " ".join(f[2:]))
            elif kind == "INLINE":
                pairs = fields[5:]
                for i in range(0, len(pairs) - 1, 2):
                    start = int(pairs[i], 16)
                    inline_ranges.append((start, start + int(pairs[i + 1], 16), function))
            elif kind == "STACK" and fields[1] == "WIN":
                # (the whole record: Breakpad's program strings end in a space)
                kinds["STACK WIN"][(fields[2], int(fields[3], 16))] = line
            elif kind == "STACK" and fields[1] == "CFI":
                if fields[2] == "INIT":
                    kinds["STACK CFI INIT"][int(fields[3], 16)] = int(fields[4], 16)
                    current_cfi = int(fields[3], 16)
                    kinds["STACK CFI"][(current_cfi, "INIT")] = " ".join(fields[5:])
                else:
                    kinds["STACK CFI"][(current_cfi, int(fields[2], 16))] = " ".join(fields[3:])
            else:
                address = int(fields[0], 16)
                kinds["line"][address] = (int(fields[1], 16), int(fields[2]), files.get(fields[3]))
    return kinds, inline_ranges


def table(theirs, ours):
    rows = []
    for kind in sorted(set(theirs) | set(ours)):
        a, b = theirs.get(kind, {}), ours.get(kind, {})
        same = sum(1 for k in a if k in b and a[k] == b[k])
        differ = sum(1 for k in a if k in b and a[k] != b[k])
        rows.append((kind, same, differ, len(set(a) - set(b)), len(set(b) - set(a))))
    return rows


def print_table(title, rows):
    print(f"  {title}")
    print(f"  | record | identical | different | only Breakpad's | only ours |")
    print(f"  |---|---:|---:|---:|---:|")
    for kind, same, differ, only_theirs, only_ours in rows:
        print(f"  | {kind} | {same} | {differ} | {only_theirs} | {only_ours} |")


def inline_site_functions(pdb):
    """Names of the procedures holding an S_INLINESITE, per llvm-pdbutil."""
    out = subprocess.run([f"{LLVM}/llvm-pdbutil", "dump", "--symbols", pdb],
                         capture_output=True, text=True, check=True).stdout
    holders, current = set(), None
    for line in out.splitlines():
        m = re.search(r"\| S_[GL]PROC32(?:_ID)? \[size = \d+\] `(.*)`$", line)
        if m:
            current = m.group(1)
        elif "S_INLINESITE" in line and current:
            holders.add(current)
    return holders


def dump(args, path, names, *options):
    with tempfile.NamedTemporaryFile(suffix=".sym") as out:
        p = subprocess.run([args.dump_syms, path, "--names", names, *options, "--output", out.name],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"dump_syms failed on {path}: {p.stderr.strip()}")
        return parse(out.name)


def check_case(args, report, dumped, reference, pdb):
    windows = os.path.join(args.shared, "windows")
    theirs, _ = parse(os.path.join(windows, reference))
    ours, _ = dump(args, os.path.join(windows, dumped), "breakpad")
    # (-d: where the inlined code is, and the inlined code's lines)
    with_inlines, inline_ranges = dump(args, os.path.join(windows, dumped), "breakpad", "-d")
    llvm_style, _ = dump(args, os.path.join(windows, dumped), "llvm")
    print(f"{dumped}:")
    print_table("--names breakpad", table(theirs, ours))
    names_alike = sum(1 for a, f in theirs["FUNC"].items()
                      if a in llvm_style["FUNC"] and llvm_style["FUNC"][a][3] == f[3])
    report.note(f"--names llvm: {names_alike} of {len(theirs['FUNC'])} FUNC names as Breakpad's")

    for kind in ("MODULE", "INFO", "FUNC", "PUBLIC", "STACK WIN"):
        a, b = theirs.get(kind, {}), ours.get(kind, {})
        for key in sorted(set(a) | set(b), key=str):
            if a.get(key) != b.get(key):
                report.fail(f"{dumped} {kind} {key if not isinstance(key, int) else hex(key)}: "
                            f"Breakpad {a.get(key)} ours {b.get(key)}")

    # Lines: alike but where ours are better by design; each difference
    # must be one of these.
    def inlined(lo, hi):
        return any(start < hi and lo < end for start, end, _ in inline_ranges)
    function_ends = sorted((a, a + f[1]) for a, f in ours["FUNC"].items())
    def function_end(address):
        for lo, hi in function_ends:
            if lo <= address < hi:
                return hi
        return None
    def covering(rows_sorted, address):
        best = None
        for start, record in rows_sorted:
            if start > address:
                break
            if start + record[0] > address:
                best = (start, record)
        return best

    # -d: inside inlined code the inlinee's lines, the call site's row cut
    # where the inlined code starts and written again after it.
    plain, inlines = ours["line"], with_inlines["line"]
    plain_sorted = sorted(plain.items())
    changed = collections.Counter()
    for address in sorted(set(plain) | set(inlines)):
        call_site, inlinee = plain.get(address), inlines.get(address)
        if call_site == inlinee:
            continue
        if inlined(address, address + 1):
            changed["inside inlined code: the inlinee's lines"] += 1
        elif call_site and inlinee and call_site[1:] == inlinee[1:] and inlinee[0] < call_site[0] and \
                inlined(address + inlinee[0], address + call_site[0]):
            changed["the call site's row, cut where inlined code starts"] += 1
        elif inlinee and not call_site and (cover := covering(plain_sorted, address)) and \
                inlined(cover[0], address + 1):
            changed["the call site's row again, after the inlined code"] += 1
        else:
            report.fail(f"{dumped} line {address:#x}: without -d {call_site}, with -d {inlinee}")
    for reason, count in sorted(changed.items()):
        report.note(f"{dumped}: -d changes {count} line records: {reason}")

    a, b = theirs["line"], ours["line"]
    why = collections.Counter()
    for address in sorted(set(a) | set(b)):
        mine, breakpad = b.get(address), a.get(address)
        if mine == breakpad:
            continue
        if breakpad and breakpad[0] == 0 and not mine:
            why["Breakpad's zero-length rows: not written"] += 1
        elif breakpad and mine and breakpad[1:] == mine[1:] and mine[0] < breakpad[0] and (
                address + mine[0] == function_end(address)):
            why["Breakpad's row runs past its FUNC: ours ends with the FUNC"] += 1
        elif breakpad and not mine and function_end(address) is None:
            why["Breakpad's row outside every FUNC: not written"] += 1
        else:
            report.fail(f"{dumped} line {address:#x}: Breakpad {breakpad} ours {mine}")
    for reason, count in sorted(why.items()):
        report.note(f"{dumped}: {count} line records differ: {reason}")

    holders = inline_site_functions(os.path.join(windows, pdb))
    function_names = {a: f[3] for a, f in ours["FUNC"].items()}
    # Every function with INLINE records is one the PDB says has inline sites.
    for start, end, function in inline_ranges:
        name = function_names.get(function, "")
        base = name.split("(")[0].removeprefix("static ").split(" ")[-1]
        if not any(h == base or h.endswith(base) or base.endswith(h) for h in holders):
            report.fail(f"{dumped}: INLINE in {name} but llvm-pdbutil lists no S_INLINESITE there")
            break

    # x64 CFI: Breakpad's INIT ranges are ours.
    for address, size in theirs.get("STACK CFI INIT", {}).items():
        if ours.get("STACK CFI INIT", {}).get(address) != size:
            report.fail(f"{dumped} STACK CFI INIT {address:#x} {size:#x}: not ours "
                        f"({ours.get('STACK CFI INIT', {}).get(address)})")


def check_default_style(args, report, dumped, reference):
    """--names llvm against Breakpad's file: every FUNC's parameter size and
    the PUBLIC records (address and parameter size) are Breakpad's; the
    names are llvm-symbolizer's and not compared."""
    windows = os.path.join(args.shared, "windows")
    theirs, _ = parse(os.path.join(windows, reference))
    ours, _ = dump(args, os.path.join(windows, dumped), "llvm")
    sizes_alike = 0
    for address, (_, _, size, name) in sorted(theirs["FUNC"].items()):
        mine = ours["FUNC"].get(address)
        if mine is None or mine[2] != size:
            report.fail(f"{dumped} --names llvm FUNC {address:#x} ({name}): parameter size "
                        f"{hex(mine[2]) if mine else 'no FUNC'}, Breakpad's {size:#x}")
        else:
            sizes_alike += 1
    public_set = lambda kinds: {a: p[1] for a, p in kinds["PUBLIC"].items()}
    if public_set(ours) != public_set(theirs):
        report.fail(f"{dumped} --names llvm PUBLIC (address: parameter size) "
                    f"{sorted(public_set(ours).items())} != Breakpad's {sorted(public_set(theirs).items())}")
    report.note(f"--names llvm: {sizes_alike} of {len(theirs['FUNC'])} FUNC parameter sizes as Breakpad's "
                f"({sum(1 for f in theirs['FUNC'].values() if f[2])} not 0); PUBLIC records at Breakpad's "
                f"{len(public_set(theirs))} addresses: {len(set(public_set(ours)) & set(public_set(theirs)))}")
    for style in ("llvm", "breakpad"):
        with tempfile.NamedTemporaryFile(suffix=".sym") as out:
            subprocess.run([args.dump_syms, os.path.join(windows, dumped), "-d", "--names", style,
                            "--output", out.name], check=True, capture_output=True)
            text = open(out.name, encoding="utf-8").read()
        if "?A0x" in text:
            report.fail(f"{dumped} --names {style}: ?A0x in the output")


def main():
    args = common.arguments()
    common.require_shared(args)
    report = common.Report("msvc_pdbs_vs_breakpad")
    for dumped, reference, pdb in CASES:
        check_case(args, report, dumped, reference, pdb)
        check_default_style(args, report, dumped, reference)
    report.finish()


if __name__ == "__main__":
    main()
