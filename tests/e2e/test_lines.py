#!/usr/bin/env python3
"""FUNC names and line records against llvm-symbolizer-19, line numbers
against elfutils' eu-addr2line, and coverage: every address the oracle
knows a line for (each line record, each function symbol's start and
middle) must be covered by a FUNC and a line record."""
import os

import oracles
from common import Report, arguments, dump, fixtures


def check(args, binary, report, label=None, argv=None):
    """Checks the dump of `argv` (default: `binary`) against the oracles run
    on `binary`, the file holding the debug info."""
    label = label or os.path.basename(binary)
    sym, _ = dump(args, *(argv or [binary]))
    for problem in sym.structural_problems():
        report.fail(f"{label}: {problem}")
    if not oracles.has_line_table(binary):
        return 0
    base = oracles.load_address(binary)
    probes = {line[0] for f in sym.funcs for line in f.lines}
    probes |= {line[0] + line[1] - 1 for f in sym.funcs for line in f.lines}
    for address, size, _ in oracles.function_symbols(binary):
        probes |= {address - base, address - base + size // 2}
    probes = sorted(p for p in probes if p >= 0)
    answers = oracles.symbolize(binary, [p + base for p in probes])
    elfutils = oracles.addr2line(binary, [p + base for p in probes])
    aliases = oracles.symbol_aliases(binary)
    # (llvm-symbolizer spells every C name of an i386 COFF image as if it
    # were decorated: ours is compared in its spelling too)
    x86_pe = oracles.is_pe(binary) and oracles.pe_headers(binary)["machine"] == 0x14C
    spelled = oracles.pe32_c_name if x86_pe else (lambda name: name)
    checked = 0
    for rva in probes:
        frames = answers.get(rva + base) or []
        if not frames or frames[0].get("FunctionName") in (None, "", "??") or not frames[0].get("Line"):
            continue
        want = frames[0]
        checked += 1
        func = sym.func_at(rva)
        line = sym.line_in(func, rva) if func else None
        if not func or not line:
            report.fail(f"{label} {rva:x}: not covered (oracle: {want['FunctionName']} line {want['Line']})")
            continue
        # The oracle names the outermost frame from the symbol table: a clone
        # (`f.cold`, `f.isra.0`) is the same function as ours (`f`), and any
        # alias at its start address will do. Our own name is taken as it is.
        ours, theirs = func.name, oracles.normalize(want["FunctionName"])
        start = int(want.get("StartAddress", "0"), 16)
        # (A PE's COFF table keeps local labels, crt0's `.l_startw`, which
        # the oracle takes for functions; they name no function.)
        # (a clone's symbol names it, `apply.constprop.0`, where the oracle
        # may take its origin's name: one spelling for both)
        if ours not in (theirs, want["FunctionName"]) and spelled(ours) != theirs and \
                oracles.normalize(spelled(ours)) != theirs and \
                not theirs.startswith(".") and \
                not (ours in aliases.get(start, ()) and theirs in aliases.get(start, ())) and \
                ours not in oracles.dwarf_subprogram_names(binary, rva + base):
            report.fail(f"{label} {rva:x}: name {func.name!r}, oracle {want['FunctionName']!r}")
        if line[2] != want["Line"]:
            report.fail(f"{label} {rva:x}: line {line[2]}, oracle {want['Line']}")
        if sym.files.get(line[3]) != want["FileName"]:
            report.fail(f"{label} {rva:x}: file {sym.files.get(line[3])!r}, oracle {want['FileName']!r}")
        other = elfutils.get(rva + base)
        if other and other[2] and other[2] != line[2]:
            report.fail(f"{label} {rva:x}: line {line[2]}, eu-addr2line {other[2]}")
    if checked == 0:
        report.fail(f"{label}: no address could be checked")
    return checked


def main():
    args = arguments()
    report = Report("lines")
    total = 0
    for fixture in fixtures(args):
        n = check(args, fixture["path"], report)
        total += n
        print(f"{fixture['name']}: {n} addresses checked")
    report.note(f"{total} addresses checked in all")
    report.finish()


if __name__ == "__main__":
    main()
