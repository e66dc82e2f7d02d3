"""Shared plumbing of the end-to-end tests: arguments, the fixture manifest,
running dump_syms, reporting."""
import argparse
import errno
import json
import os
import socket
import subprocess
import sys
import tempfile

import symfile

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared"))


def arguments(extra=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump-syms", required=True)
    parser.add_argument("--fixtures", help="directory fixtures.py built")
    parser.add_argument("--shared", default=SHARED)
    parser.add_argument("--only", help="substring of the fixture names to check")
    if extra:
        extra(parser)
    args = parser.parse_args()
    args.shared = os.path.abspath(args.shared)
    return args


def require_shared(args):
    """The shared corpus is an input of the test, not optional."""
    if not os.path.exists(os.path.join(args.shared, "tools", "symcheck.py")):
        raise SystemExit(f"the shared corpus is not at {args.shared} (configure with -DSHARED_DIR=...)")


def fixtures(args, kinds=None):
    with open(os.path.join(args.fixtures, "manifest.json")) as fh:
        manifest = json.load(fh)
    return [f for f in manifest if (kinds is None or f["kind"] in kinds) and
            (not args.only or args.only in f["name"])]


def dump(args, binary, *options, check=True):
    """Runs dump_syms on `binary` (and any further arguments); returns
    (SymFile, stderr)."""
    with tempfile.NamedTemporaryFile(suffix=".sym") as out:
        p = subprocess.run([args.dump_syms, binary, *options, "--output", out.name],
                           capture_output=True, text=True)
        if check and p.returncode != 0:
            raise SystemExit(f"dump_syms failed on {binary}: {p.stderr.strip()}")
        return symfile.load(out.name), p.stderr


def runs_here(program):
    """Whether this machine's kernel runs `program` at all: kernels built
    without 32-bit x86 support (or with it switched off) refuse i386
    programs with ENOEXEC, which the tests that need one must work around."""
    try:
        subprocess.run([program], capture_output=True, timeout=60)
    except OSError as error:
        if error.errno == errno.ENOEXEC:
            return False
        raise
    return True


def free_port():
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_checked(cmd):
    """A tool's stdout; its failure stops the test with its stderr."""
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr.strip()}")
    return p.stdout


def section(path, name):
    """(file offset, size) of an ELF section, read with binutils' readelf;
    None when the file has no such section."""
    out = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 6 and parts[1] == name:
            return int(parts[4], 16), int(parts[5], 16)
    return None


class Report:
    """Counts agreement per check and prints the first disagreements."""

    def __init__(self, name):
        self.name = name
        self.failures = []
        self.lines = []

    def fail(self, message):
        self.failures.append(message)
        if len(self.failures) <= 40:
            print(f"  FAIL {message}")

    def note(self, message):
        print(f"  {message}")

    def finish(self):
        print(f"{self.name}: {'ok' if not self.failures else 'FAILED'} ({len(self.failures)} failures)")
        sys.exit(1 if self.failures else 0)
