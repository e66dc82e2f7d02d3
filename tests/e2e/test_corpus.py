#!/usr/bin/env python3
"""The shared corpus: every binary dumps, passes our structural checks, and
passes ../shared/tools/symcheck.py (validate, ids, lines, cfi) at 100%."""
import os
import subprocess
import tempfile

import symfile
from common import Report, arguments


def main():
    args = arguments(lambda p: p.add_argument("--sample", default="3000"))
    report = Report("corpus")
    corpus = os.path.join(args.shared, "corpus", "bin")
    symcheck = os.path.join(args.shared, "tools", "symcheck.py")
    names = [n for n in sorted(os.listdir(corpus)) if os.path.isfile(os.path.join(corpus, n))
             and not n.endswith((".dwo", ".dwp", ".debug")) and (not args.only or args.only in n)]
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            binary = os.path.join(corpus, name)
            out = os.path.join(tmp, name + ".sym")
            p = subprocess.run([args.dump_syms, "-d", binary, "--output", out], capture_output=True, text=True)
            if p.returncode != 0:
                report.fail(f"{name}: dump_syms failed: {p.stderr.strip()}")
                continue
            for problem in symfile.load(out).structural_problems()[:5]:
                report.fail(f"{name}: {problem}")
            check = subprocess.run(["python3", symcheck, "all", binary, out, "--min", "100", "--sample", args.sample],
                                   capture_output=True, text=True)
            summary = [l for l in check.stdout.splitlines() if l.startswith(("validate:", "ids:", "lines:", "cfi:"))]
            if check.returncode != 0:
                report.fail(f"{name}: symcheck: {' | '.join(summary)}")
            else:
                print(f"{name}: {' | '.join(s for s in summary if ': ok' in s or 'unchecked' in s)}")
    report.note(f"{len(names)} corpus binaries checked")
    report.finish()


if __name__ == "__main__":
    main()
