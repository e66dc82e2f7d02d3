#!/usr/bin/env python3
"""Peak memory grows with the largest unit, not with the file (issue 12).

Builds a shared library of many compile units, each with a large DIE tree
(an enumeration of 40,000 enumerators: cheap to compile, 7 bytes a DIE in
.debug_info but 24 in LLVM's DIE array), and dumps it at -j2 under an
address-space limit (RLIMIT_AS). Reading unit by unit needs far less than
the limit; keeping every unit's DIEs, as LLVM does by default, needs more,
and the dump fails. Not a timing: the limit is bytes, the same on any
machine. Figures (bench and measured): docs/MEMORY.md.

Sanitizer builds reserve terabytes of shadow address space and cannot run
under RLIMIT_AS: the test is skipped for them."""
import os
import resource
import subprocess
import sys
import tempfile

from common import Report, arguments
from many_units import build_many_units

UNITS = 200
# Address space dump_syms -j2 needs on this input, measured (docs/MEMORY.md):
# 210 MiB reading unit by unit, 600 MiB keeping every unit's DIEs.
LIMIT_MIB = 400


def sanitized(binary):
    """True when the binary carries a sanitizer runtime."""
    p = subprocess.run(["readelf", "-sW", binary], capture_output=True, text=True)
    return any(f" __{s}_init" in p.stdout for s in ("asan", "tsan", "msan", "hwasan"))


def main():
    args = arguments()
    report = Report("memory guard")
    if sanitized(args.dump_syms):
        # (ctest's SKIP_RETURN_CODE: listed as skipped, not as passed)
        print("memory guard: skipped (sanitizer build: RLIMIT_AS cannot apply)")
        sys.exit(77)
    with tempfile.TemporaryDirectory() as tmp:
        library = build_many_units(tmp, UNITS)

        limit = LIMIT_MIB << 20

        def limited():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        out = os.path.join(tmp, "many.sym")
        p = subprocess.run([args.dump_syms, "-j2", library, "--output", out], capture_output=True,
                           text=True, preexec_fn=limited)
        # A warning means some allocation failed and a fallback ran: that
        # counts as over the limit too.
        if p.returncode != 0 or "warning" in p.stderr:
            report.fail(f"dump_syms -j2 ran out of a {LIMIT_MIB} MiB address-space limit "
                        f"(every unit's DIEs kept in memory again?): {p.stderr.strip()[-400:]}")
        else:
            with open(out) as fh:
                funcs = sum(1 for line in fh if line.startswith("FUNC "))
            if funcs != UNITS:
                report.fail(f"{funcs} FUNC records, expected one per unit ({UNITS})")
            else:
                report.note(f"{UNITS} units dumped under {LIMIT_MIB} MiB of address space")
    report.finish()


if __name__ == "__main__":
    main()
