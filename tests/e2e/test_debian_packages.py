#!/usr/bin/env python3
"""Debian's own debug packages: python3.11-dbg and libc6-dbg.

- The python3.11 debug file on its own (an ELF whose code sections are
  NOBITS): symcheck `lines` covers 100.00% and agrees on every probe.
- /usr/bin/python3.11 and libc.so.6 with /usr/lib/debug as DEBUG_DIR: the
  debug file is found by build-id; symcheck `all` (lines on the debug file,
  ids and cfi on the binary) and `inlines` pass at 100.00%, and no inline
  origin is left without a name."""
import os
import subprocess
import sys
import tempfile

import oracles
from common import Report, arguments, require_shared


def debug_file(binary):
    build_id = oracles.build_id(binary) if os.path.exists(binary) else None
    path = f"/usr/lib/debug/.build-id/{build_id[:2]}/{build_id[2:]}.debug" if build_id else None
    return path if path and os.path.exists(path) else None


def symcheck(args, report, label, command, *files, sample="20000"):
    tool = os.path.join(args.shared, "tools", "symcheck.py")
    p = subprocess.run([sys.executable, tool, command, *files, "--min", "100", "--sample", sample],
                       capture_output=True, text=True)
    summary = [l for l in p.stdout.splitlines() if l.startswith(("validate:", "ids:", "lines:", "cfi:"))]
    print(f"{label}: " + " | ".join(summary))
    if p.returncode != 0:
        report.fail(f"{label}: symcheck {command} below 100%: {p.stdout[-600:]}")


def dump(args, report, label, out, *argv):
    p = subprocess.run([args.dump_syms, *argv, "--output", out], capture_output=True, text=True)
    if p.returncode != 0:
        report.fail(f"{label}: dump_syms failed: {p.stderr.strip()}")
        return False
    return True


def main():
    args = arguments()
    require_shared(args)
    report = Report("debian packages")
    python, libc = "/usr/bin/python3.11", "/lib/x86_64-linux-gnu/libc.so.6"
    with tempfile.TemporaryDirectory() as tmp:
        python_debug = debug_file(python)
        if not python_debug:
            report.fail("python3.11-dbg is not installed (dev.sh installs it)")
        else:
            out = os.path.join(tmp, "python-debug.sym")
            if dump(args, report, "python3.11 debug file", out, python_debug):
                symcheck(args, report, "python3.11 debug file", "lines", python_debug, out)
                symcheck(args, report, "python3.11 debug file", "validate", out)
            out = os.path.join(tmp, "python.sym")
            if dump(args, report, "python3.11 + /usr/lib/debug", out, "-d", python, "/usr/lib/debug"):
                symcheck(args, report, "python3.11 + /usr/lib/debug", "all", python_debug, out, "--code", python)
                symcheck(args, report, "python3.11 + /usr/lib/debug", "inlines", python_debug, out)
                no_name = sum(1 for l in open(out) if l.startswith("INLINE_ORIGIN ") and l.rstrip().endswith(
                    "<name omitted>"))
                if no_name:
                    report.fail(f"python3.11: {no_name} INLINE_ORIGIN records are <name omitted>")
        libc_debug = debug_file(libc)
        if not libc_debug:
            report.fail("libc6-dbg is not installed (dev.sh installs it)")
        else:
            out = os.path.join(tmp, "libc.sym")
            if dump(args, report, "libc.so.6 + /usr/lib/debug", out, "-d", libc, "/usr/lib/debug"):
                symcheck(args, report, "libc.so.6 + /usr/lib/debug", "all", libc_debug, out, "--code", libc)
                symcheck(args, report, "libc.so.6 + /usr/lib/debug", "inlines", libc_debug, out)
    report.finish()


if __name__ == "__main__":
    main()
