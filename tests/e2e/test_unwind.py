#!/usr/bin/env python3
"""A fixture crashes four noinline frames below main (-O2
-fomit-frame-pointer). gdb runs it, writes a core at the fault and prints
its backtrace; our walker unwinds the same core with nothing but the STACK
CFI of our symbol file and the postfix evaluator. The return addresses must
be gdb's, frame by frame, down to main's return into libc."""
import os
import re
import subprocess
import tempfile

import oracles
from common import Report, arguments, fixtures


def main():
    args = arguments(lambda p: p.add_argument("--unwind-core", required=True))
    report = Report("unwind")
    crashers = [f for f in fixtures(args, kinds={"crash"}) if "-no-pie" in f["flags"]]
    if not crashers:
        report.fail("no crash fixtures")
    for fixture in crashers:
        binary = fixture["path"]
        try:
            subprocess.run([binary], capture_output=True, timeout=30)
        except OSError as error:
            # e.g. a kernel built without 32-bit x86 support
            report.note(f"{fixture['name']}: not run: this machine cannot execute it ({error.strerror})")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            core = os.path.join(tmp, "core")
            gdb = subprocess.run(["gdb", "-nx", "-batch", "-ex", "set backtrace past-main on", "-ex", "run",
                                  "-ex", f"generate-core-file {core}",
                                  "-ex", "bt", "--args", binary], capture_output=True, text=True, timeout=120)
            want = [int(m.group(1), 16) for m in re.finditer(r"^#[1-9]\d*\s+0x([0-9a-f]+) in ", gdb.stdout, re.M)]
            if not os.path.exists(core) or len(want) < 5:
                report.fail(f"{fixture['name']}: gdb gave no core or backtrace: {gdb.stdout[-400:]} {gdb.stderr[-400:]}")
                continue
            sym = os.path.join(tmp, "crash.sym")
            subprocess.run([args.dump_syms, binary, "--output", sym], check=True)
            walk = subprocess.run([args.unwind_core, sym, core, binary], capture_output=True, text=True)
            have = [int(x, 16) for x in walk.stdout.split()]
            # In-module frames (level3 .. main) and main's return into libc.
            expected = want[:5]
            if have[:5] != expected:
                report.fail(f"{fixture['name']}: unwound {[hex(a) for a in have]}, gdb {[hex(a) for a in want]}"
                            f" {walk.stderr.strip()}")
            else:
                print(f"{fixture['name']}: {len(expected)} frames agree with gdb "
                      f"({', '.join(hex(a) for a in expected)})")
    report.finish()


if __name__ == "__main__":
    main()
