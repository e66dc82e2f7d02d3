#!/usr/bin/env python3
"""32-bit ARM code unwound only by its EHABI tables (.ARM.exidx): at every
call site of every function, the STACK CFI we derive from those tables must
compute what the .debug_frame of the same build says (llvm-dwarfdump's row
there), on made-up machine states."""
import os
import re

import oracles
from common import Report, arguments, dump, fixtures
from test_cfi import compare_row

CALL = re.compile(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{2,8}\s+)*(bl|blx)\s")


def call_sites(binary):
    out = oracles.run([f"{oracles.LLVM}/llvm-objdump", "-d", binary])
    return sorted({int(m.group(1), 16) for m in map(CALL.match, out.splitlines()) if m})


def main():
    args = arguments()
    report = Report("ehabi")
    checked = 0
    for fixture in fixtures(args):
        if not fixture.get("twin"):
            continue
        sym, _ = dump(args, fixture["path"])
        if "STACK CFI" and not sym.cfi:
            report.fail(f"{fixture['name']}: no STACK CFI from .ARM.exidx")
            continue
        base = oracles.load_address(fixture["path"])
        fdes = oracles.unwind_tables(fixture["twin"])
        sites = call_sites(fixture["path"])
        for address in sites:
            row = None
            for _, start, end, rows in fdes:
                if start <= address < end:
                    row = [r for r in rows if r[0] <= address][-1]
            if row is None:
                continue
            rules = sym.cfi_rules_at(address - base)
            where = f"{fixture['name']} call at {address:x}"
            if rules is None:
                report.fail(f"{where}: no STACK CFI")
                continue
            checked += 1
            compare_row(report, where, "arm", 32, row[1], row[2], rules)
        print(f"{fixture['name']}: {len(sites)} call sites")
    if checked == 0:
        report.fail("no call site checked")
    report.note(f"{checked} call sites checked")
    report.finish()


if __name__ == "__main__":
    main()
