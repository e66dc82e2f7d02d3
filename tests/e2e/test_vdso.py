#!/usr/bin/env python3
"""--vdso dumps the running kernel's vDSO: named linux-gate.so, identified by
its own build-id (checked against the image this test reads out of its own
memory and hands to readelf), with STACK CFI from its .eh_frame, and a file
that is sound. --linux-gate writes Breakpad's templates."""
import re
import os
import subprocess
import sys
import tempfile

import symfile
from common import Report, arguments, require_shared


def vdso_build_id():
    """The build-id of the vDSO mapped into this process, read by readelf."""
    with open("/proc/self/maps") as maps:
        low, high = next(l.split()[0].split("-") for l in maps if l.rstrip().endswith("[vdso]"))
    with open("/proc/self/mem", "rb") as mem:
        mem.seek(int(low, 16))
        image = mem.read(int(high, 16) - int(low, 16))
    with tempfile.NamedTemporaryFile() as copy:
        copy.write(image)
        copy.flush()
        out = subprocess.run(["readelf", "-n", copy.name], capture_output=True, text=True).stdout
    m = re.search(r"Build ID:\s*([0-9a-f]+)", out)
    return m.group(1) if m else None


def main():
    args = arguments()
    require_shared(args)
    report = Report("vdso")
    p = subprocess.run([args.dump_syms, "--vdso"], capture_output=True, text=True)
    if p.returncode != 0:
        report.fail(f"--vdso: {p.stderr.strip()}")
        report.finish()
    sym = symfile.SymFile(p.stdout)
    for problem in sym.structural_problems():
        report.fail(f"--vdso: {problem}")
    if sym.module[4] != "linux-gate.so":
        report.fail(f"--vdso: MODULE name {sym.module[4]}")
    if sym.info.get("CODE_ID", "").lower() != vdso_build_id():
        report.fail(f"--vdso: CODE_ID {sym.info.get('CODE_ID')!r}, the vDSO's build-id is {vdso_build_id()}")
    if not sym.cfi or not sym.publics:
        report.fail("--vdso: no STACK CFI or no PUBLIC records")
    with tempfile.NamedTemporaryFile("w", suffix=".sym") as out:
        out.write(p.stdout)
        out.flush()
        check = subprocess.run([sys.executable, os.path.join(args.shared, "tools", "symcheck.py"), "validate",
                                out.name], capture_output=True, text=True)
        if check.returncode != 0:
            report.fail(f"--vdso: symcheck validate: {check.stdout.strip()}")
    for vendor, code_size in (("intel", "200"), ("amd", "100")):
        t = subprocess.run([args.dump_syms, "--linux-gate", vendor], capture_output=True, text=True)
        s = symfile.SymFile(t.stdout)
        if s.problems or s.module[4] != "linux-gate.so" or len(s.stack_win) != 1 or \
                s.stack_win[0][4] != code_size:
            report.fail(f"--linux-gate {vendor}: {t.stdout!r}")
    report.finish()


if __name__ == "__main__":
    main()
