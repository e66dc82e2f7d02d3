#!/usr/bin/env python3
"""The shared corpus: every binary dumps, passes our structural checks, and
passes ../shared/tools/symcheck.py (validate, ids, lines, cfi) at 100%."""
import os
import subprocess
import tempfile

import oracles
import symfile
from common import Report, arguments, require_shared


def main():
    args = arguments(lambda p: p.add_argument("--sample", default="3000"))
    require_shared(args)
    report = Report("corpus")
    corpus = os.path.join(args.shared, "corpus", "bin")
    symcheck = os.path.join(args.shared, "tools", "symcheck.py")
    names = [n for n in sorted(os.listdir(corpus)) if os.path.isfile(os.path.join(corpus, n))
             and not n.endswith((".dwo", ".dwp", ".debug")) and (not args.only or args.only in n)]
    debugroot = os.path.join(args.shared, "corpus", "debugroot")
    cases = []
    for name in names:
        binary = os.path.join(corpus, name)
        if "buildid-stripped" in name:
            # Stripped; the debug file sits in the corpus's build-id tree.
            bid = oracles.build_id(binary)
            cases.append((name, binary, [debugroot],
                          os.path.join(debugroot, ".build-id", bid[:2], bid[2:] + ".debug")))
        else:
            cases.append((name, binary, [], binary))
    linked = os.path.join(corpus, "debuglink", "cxxprog.gcc12.debuglink")
    if os.path.exists(linked) and (not args.only or args.only in "debuglink"):
        cases.append(("debuglink/cxxprog.gcc12.debuglink", linked, [], linked + ".debug"))
    with tempfile.TemporaryDirectory() as tmp:
        for name, binary, extra, debug in cases:
            out = os.path.join(tmp, os.path.basename(name) + ".sym")
            p = subprocess.run([args.dump_syms, "-d", binary, *extra, "--output", out], capture_output=True, text=True)
            if p.returncode != 0:
                report.fail(f"{name}: dump_syms failed: {p.stderr.strip()}")
                continue
            for problem in symfile.load(out).structural_problems()[:5]:
                report.fail(f"{name}: {problem}")
            check = subprocess.run(["python3", symcheck, "all", debug, out, "--code", binary, "--min", "100",
                                    "--sample", args.sample], capture_output=True, text=True)
            summary = [l for l in check.stdout.splitlines() if l.startswith(("validate:", "ids:", "lines:", "cfi:"))]
            if check.returncode != 0:
                report.fail(f"{name}: symcheck: {' | '.join(summary)}")
            else:
                print(f"{name}: {' | '.join(s for s in summary if ': ok' in s or 'unchecked' in s)}")
    report.note(f"{len(cases)} corpus binaries checked")
    report.finish()


if __name__ == "__main__":
    main()
