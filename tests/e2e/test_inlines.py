#!/usr/bin/env python3
"""INLINE_ORIGIN and INLINE records (-d) against llvm-symbolizer-19
--inlining=true: at every line record's start and inside every inlined
range, the inline stack the symbol file gives (innermost to outermost
function name, with each frame's line) equals the oracle's. Also: no
INLINE_ORIGIN is `<name omitted>` or empty, and the records are in the order
the processor needs."""
import os

import oracles
from common import Report, arguments, dump, fixtures


def check(args, binary, report, label=None, argv=None):
    label = label or os.path.basename(binary)
    sym, _ = dump(args, *(argv or [binary]), "-d")
    for problem in sym.structural_problems():
        report.fail(f"{label}: {problem}")
    for origin, name in sym.origins.items():
        if not name or name == "<name omitted>":
            report.fail(f"{label}: INLINE_ORIGIN {origin} has no name")
    base = oracles.load_address(binary)
    probes = {line[0] for f in sym.funcs for line in f.lines}
    probes |= {a for f in sym.funcs for record in f.inlines for a, n in record[4]}
    probes |= {a + n - 1 for f in sym.funcs for record in f.inlines for a, n in record[4]}
    probes = sorted(probes)
    answers = oracles.symbolize(binary, [p + base for p in probes], inlining=True)
    aliases = oracles.symbol_aliases(binary)
    # (llvm-symbolizer's spelling of i386 COFF names: test_lines)
    pe = oracles.is_pe(binary)
    x86_pe = pe and oracles.pe_headers(binary)["machine"] == 0x14C
    checked = deep = 0
    for rva in probes:
        frames = answers.get(rva + base) or []
        if not frames or not frames[0].get("Line"):
            continue
        have = sym.inline_stack(rva)
        if have is None:
            continue  # test_lines.py reports coverage
        checked += 1
        deep += len(frames) > 1
        want = [(f.get("FunctionName"), f.get("Line")) for f in frames]
        got = [(name, line) for name, _, line in have]
        ours = got[-1][0] if got else None
        if pe:
            # (inlined frames are named from linkage names the oracle leaves
            # as they are: one spelling for both; i386's C names as the
            # oracle spells them, test_lines)
            want = [(oracles.normalize(name) if name else name, line) for name, line in want]
            if x86_pe:
                got = [(name if oracles.normalize(name) == w[0] else oracles.pe32_c_name(name), line)
                       for (name, line), w in zip(got, want + [(None, None)] * len(got))]
        if len(want) == len(got):
            # The outermost frame is named from the symbol table by the
            # oracle: a clone or an alias there is the same function.
            (w_name, w_line), (g_name, g_line) = want[-1], got[-1]
            start = int(frames[-1].get("StartAddress", "0"), 16)
            # (a COFF local label, `.l_startw`, is no function: test_lines)
            if w_line == g_line and (oracles.normalize(g_name) == oracles.normalize(w_name) or
                                     (w_name or "").startswith(".") or
                                     {g_name, oracles.normalize(w_name)} <= aliases.get(start, set()) or
                                     (want[:-1] == got[:-1] and
                                      ours in oracles.dwarf_subprogram_names(binary, rva + base))):
                want[-1] = got[-1]
        if want != got:
            report.fail(f"{label} {rva:x}: {got} != oracle {want}")
    if checked == 0:
        report.fail(f"{label}: nothing checked")
    return checked, deep


def main():
    args = arguments()
    report = Report("inlines")
    total = deep_total = 0
    for fixture in fixtures(args, kinds={"program"}):
        if "O0" in fixture["name"] or "asm" in fixture["name"]:
            continue  # nothing is inlined
        checked, deep = check(args, fixture["path"], report)
        total, deep_total = total + checked, deep_total + deep
        print(f"{fixture['name']}: {checked} addresses, {deep} inside inlined code")
    report.note(f"{total} addresses checked, {deep_total} inside inlined code")
    report.finish()


if __name__ == "__main__":
    main()
