#!/usr/bin/env python3
"""Times one lookup in a large symbol file, whole processes, wall time and
peak resident memory (/usr/bin/time -v), medians of paired rounds (each
round runs every command once, in turn):

  ours, first     symtool lookup with an empty index cache: the .sym is
                  parsed, its index built and written to the cache
  ours, later     symtool lookup in a new process, the index cached: mapped
  ours, --index   symtool lookup of a copy of the file whose index `symtool
                  index` (as `symstore add --index`) wrote beside it
  today           --old-build's symtool (the build before the index), which
                  parses the whole .sym on every lookup
  llvm-symbolizer the same address from the binary's debug file
  walk, first/later
                  our minidump_stackwalk on a one-thread minidump whose pc
                  is the address in the module: the walker's supplier reads
                  the same index
  breakpad        Breakpad's minidump_stackwalk on that minidump, loading
                  the .sym ($BREAKPAD_MINIDUMP_STACKWALK, else
                  /tmp/breakpad-build/src/processor/minidump_stackwalk when
                  it is there; built by hand, never by the tests)

  bench/lookup_bench.py SYM --binary BIN --debug-dir DIR [--address HEX]
        [--rounds N] [--build DIR] [--old-build DIR]

The answers of every lookup are compared too (ours first, later, --index
and today's must print the same). Run on demand; CI never runs it, and no
test asserts a timing."""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))

import core_to_minidump  # noqa: E402
from test_stackwin import elf_extent as load_extent  # noqa: E402


def timed(argv, env=None):
    """(wall seconds, peak KiB, stdout) of one run."""
    p = subprocess.run(["/usr/bin/time", "-v"] + argv, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {p.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
    parts = [float(x) for x in wall.split(":")]
    seconds = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) > 2 else 0)
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return seconds, peak, p.stdout


class Thread(core_to_minidump.Core):
    """One x86_64 thread stopped at `pc`, with a stack of zeros."""

    def __init__(self, pc, sp):
        self.data = bytes(64 * 1024)
        self.is64 = True
        self.machine = core_to_minidump.EM_X86_64
        regs = [0] * 27
        regs[16], regs[19] = pc, sp  # rip, rsp in user_regs_struct order
        self.threads = [{"tid": 1000, "signal": 11, "regs": regs}]
        self.segments = [(sp - 0x8000, len(self.data), 0, len(self.data), 6)]
        self.files = []
        self.siginfo = None


def middle_function(sym):
    """A FUNC address from the middle of the file."""
    size = os.path.getsize(sym)
    with open(sym, "rb") as fh:
        fh.seek(size // 2)
        for line in fh:
            if line.startswith(b"FUNC "):
                fields = line.split()
                return int(fields[2] if fields[1] == b"m" else fields[1], 16) + 4
    raise SystemExit(f"{sym}: no FUNC after its middle")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sym")
    parser.add_argument("--binary", required=True)
    parser.add_argument("--debug-dir", required=True, help="for llvm-symbolizer (build-id tree)")
    parser.add_argument("--address", help="module-relative hex (default: a FUNC in the middle)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--old-build", help="the build of before, for the 'today' anchor")
    args = parser.parse_args()
    symtool = os.path.join(args.build, "tools", "symtool", "symtool")
    symstore = os.path.join(args.build, "tools", "symstore", "symstore")
    drop_in = os.path.join(args.build, "tools", "minidump_stackwalk", "minidump_stackwalk")
    breakpad = os.environ.get("BREAKPAD_MINIDUMP_STACKWALK",
                              "/tmp/breakpad-build/src/processor/minidump_stackwalk")
    address = int(args.address, 16) if args.address else middle_function(args.sym)
    sym = os.path.abspath(args.sym)
    with open(sym) as fh:
        _, _, cpu, debug_id, name = fh.readline().split(maxsplit=4)
    name = name.strip()

    tmp = tempfile.mkdtemp(prefix="lookup-bench-")
    try:
        # A store holding the file, and the same with its index beside it.
        store = os.path.join(tmp, "store")
        os.makedirs(os.path.join(store, name, debug_id))
        os.symlink(sym, os.path.join(store, name, debug_id, name + ".sym"))
        indexed_store = os.path.join(tmp, "indexed")
        os.makedirs(os.path.join(indexed_store, name, debug_id))
        beside = os.path.join(indexed_store, name, debug_id, name + ".sym")
        shutil.copy(sym, beside)
        subprocess.run([symtool, "index", indexed_store], check=True, capture_output=True)

        # The minidump: one thread at the address, the module by its build id.
        base = 0x555555554000
        low, size = load_extent(args.binary)
        dump = os.path.join(tmp, "one.dmp")
        record = b"LEpB" + core_to_minidump.build_id(args.binary)
        with open(dump, "wb") as fh:
            fh.write(core_to_minidump.convert(Thread(base + address - low, 0x7ffd00010000),
                                              modules=[(base, size, "/usr/bin/" + name, record)]))

        warm = os.path.join(tmp, "warm-cache")
        subprocess.run([symtool, "lookup", "--index-cache", warm, sym, f"{address:x}"], check=True,
                       capture_output=True)
        walk_warm = os.path.join(tmp, "walk-warm")
        subprocess.run([drop_in, dump, store], check=True, capture_output=True,
                       env=dict(os.environ, XDG_CACHE_HOME=walk_warm))
        commands = {}
        fresh = iter(range(10 ** 6))
        commands["ours, first"] = lambda: [symtool, "lookup", "--index-cache",
                                           os.path.join(tmp, f"cold-{next(fresh)}"), sym, f"{address:x}"]
        commands["ours, later"] = lambda: [symtool, "lookup", "--index-cache", warm, sym, f"{address:x}"]
        commands["ours, --index"] = lambda: [symtool, "lookup", "--index-cache", "none", beside,
                                             f"{address:x}"]
        if args.old_build:
            old = os.path.join(args.old_build, "symtool", "symtool")
            commands["today"] = lambda: [old, "lookup", sym, f"{address:x}"]
        commands["llvm-symbolizer"] = lambda: ["llvm-symbolizer-19", "--debug-file-directory",
                                               args.debug_dir, "--obj", args.binary,
                                               f"0x{address + low:x}"]
        envs = {"walk, first": None, "walk, later": dict(os.environ, XDG_CACHE_HOME=walk_warm)}
        commands["walk, first"] = lambda: [drop_in, dump, store]
        commands["walk, later"] = lambda: [drop_in, dump, store]
        if os.path.exists(breakpad):
            commands["breakpad"] = lambda: [breakpad, dump, store]
        results = {key: [] for key in commands}
        answers = {}
        for _ in range(args.rounds):
            for key, argv in commands.items():
                env = envs.get(key)
                if key == "walk, first":
                    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, f"walk-cold-{next(fresh)}"))
                wall, peak, out = timed(argv(), env)
                results[key].append((wall, peak))
                answers.setdefault(key, out)
        same = {answers[k] for k in ("ours, first", "ours, later", "ours, --index", "today") if k in answers}
        print(f"{os.path.basename(sym)} ({os.path.getsize(sym) / 1e6:.0f} MB), address {address:#x}")
        anchor = statistics.median(w for w, _ in results["today"]) if "today" in results else None
        print(f"{'command':18} {'wall s':>8} {'peak MiB':>9} {'x today':>8}")
        for key, runs in results.items():
            wall = statistics.median(w for w, _ in runs)
            peak = statistics.median(p for _, p in runs) / 1024
            ratio = f"{wall / anchor:.3f}" if anchor else ""
            print(f"{key:18} {wall:8.3f} {peak:9.1f} {ratio:>8}")
        print(f"({args.rounds} paired rounds, medians; lookups' answers "
              f"{'identical' if len(same) == 1 else 'DIFFER'})")
        print(answers["ours, later"].strip())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
