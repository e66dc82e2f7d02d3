#!/usr/bin/env python3
"""Debian's python3.11-dbg debug file (an ELF whose code sections are
NOBITS): symcheck's `lines` must cover 100.00% and agree on every probe, and
our own oracle check must agree on every line record it probes."""
import os
import subprocess
import sys
import tempfile

import oracles
from common import Report, arguments


def main():
    args = arguments()
    report = Report("debian python3.11-dbg")
    build_id = oracles.build_id("/usr/bin/python3.11") if os.path.exists("/usr/bin/python3.11") else None
    debug = f"/usr/lib/debug/.build-id/{build_id[:2]}/{build_id[2:]}.debug" if build_id else None
    if not debug or not os.path.exists(debug):
        report.fail("python3.11-dbg is not installed (dev.sh installs it)")
        report.finish()
    symcheck = os.path.join(args.shared, "tools", "symcheck.py")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "python.sym")
        p = subprocess.run([args.dump_syms, debug, "--output", out], capture_output=True, text=True)
        if p.returncode != 0:
            report.fail(f"dump_syms failed: {p.stderr.strip()}")
            report.finish()
        check = subprocess.run([sys.executable, symcheck, "lines", debug, out, "--min", "100", "--sample", "20000"],
                               capture_output=True, text=True)
        print(check.stdout.strip())
        if check.returncode != 0:
            report.fail("symcheck lines below 100%")
        check = subprocess.run([sys.executable, symcheck, "validate", out], capture_output=True, text=True)
        if check.returncode != 0:
            report.fail(f"symcheck validate: {check.stdout.strip()}")
    report.finish()


if __name__ == "__main__":
    main()
