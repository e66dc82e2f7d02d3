#!/usr/bin/env python3
"""Times stack walks: our minidump_stackwalk drop-in (and symtool
stackwalk) against Breakpad's minidump_stackwalk on the same dumps and
symbols, wall time and peak resident memory (/usr/bin/time -v), best of N
runs, with the ratios.

  bench/stackwalk_bench.py [--runs N] [--full-gib G] [--build DIR]

The dumps: the stack-walk test's crash program (gcc -O2, its library and
Debian's libc with its debug file, so one module's .sym is large) crashed
under gdb, its core turned into a client-style minidump (MemoryList) and
into a full-memory one (Memory64List with G GiB more of process memory,
1 by default), which a walk should not read. Also timed: reading the
largest .sym alone (symtool validate), to say where the time goes.

Breakpad's processor: $BREAKPAD_MINIDUMP_STACKWALK, else
/tmp/breakpad-build/src/processor/minidump_stackwalk when it is there
(built by hand; never by the tests). Run on demand; CI never runs it, and
no test asserts a timing."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))

from bench import measure  # noqa: E402  (wall time and peak memory, best of N)
import core_to_minidump  # noqa: E402
import test_stackwalk as walk  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--full-gib", type=float, default=1.0)
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    args = parser.parse_args()
    ours = os.path.join(args.build, "tools", "minidump_stackwalk", "minidump_stackwalk")
    symtool = os.path.join(args.build, "tools", "symtool", "symtool")
    symstore = os.path.join(args.build, "tools", "symstore", "symstore")
    breakpad = os.environ.get("BREAKPAD_MINIDUMP_STACKWALK",
                              "/tmp/breakpad-build/src/processor/minidump_stackwalk")
    tmp = tempfile.mkdtemp(prefix="stackwalk-bench-")
    try:
        directory = walk.build(tmp, "gcc", "-fomit-frame-pointer")
        store = os.path.join(directory, "store")
        subprocess.run([symstore, "add", store, directory, "-d", "-q"], check=True)
        gcore = os.path.join(directory, "gcore.lib")
        walk.gdb_oracle(directory, gcore, os.path.join(directory, "gdb.json"), "lib")
        with open(gcore, "rb") as fh:
            core = core_to_minidump.Core(fh.read())
        dumps = {"client": os.path.join(tmp, "client.dmp"), "full": os.path.join(tmp, "full.dmp")}
        with open(dumps["client"], "wb") as fh:
            fh.write(core_to_minidump.convert(core))
        extra = int(args.full_gib * (1 << 30))
        with open(dumps["full"], "wb") as fh:
            fh.write(core_to_minidump.convert(core, memory64=True, extra_memory=[(0x10000000000, extra)]))
        syms = sorted((os.path.getsize(os.path.join(d, f)), os.path.join(d, f))
                      for d, _, fs in os.walk(store) for f in fs if f.endswith(".sym"))
        largest = syms[-1][1]
        print(f"store: {len(syms)} symbol files, {sum(s for s, _ in syms) / 1e6:.1f} MB; largest "
              f"{os.path.basename(largest)} {syms[-1][0] / 1e6:.1f} MB")
        tools = {"ours": [ours], "symtool": [symtool, "stackwalk", "--store", store]}
        if os.path.exists(breakpad):
            tools["breakpad"] = [breakpad]
        print(f"{'dump':22} {'tool':10} {'wall s':>8} {'peak MiB':>9} {'time x':>7} {'mem x':>7}")
        for label, dump in dumps.items():
            size = os.path.getsize(dump) / (1 << 20)
            results = {}
            for name, cmd in tools.items():
                argv = cmd + [dump] + ([store] if name != "symtool" else [])
                results[name] = measure(argv, args.runs)
            anchor = results.get("breakpad")
            for name, result in results.items():
                tag = f"{label} ({size:.0f} MiB)"
                if result is None:
                    print(f"{tag:22} {name:10} {'failed':>8}")
                    continue
                ratio = (f"{result[0] / anchor[0]:7.2f} {result[1] / anchor[1]:7.2f}"
                         if anchor and name != "breakpad" else "")
                print(f"{tag:22} {name:10} {result[0]:8.3f} {result[1] / 1024:9.1f} {ratio}")
        parse = measure([symtool, "validate", "-q", largest], args.runs)
        if parse:
            print(f"reading {os.path.basename(largest)} alone (symtool validate): {parse[0]:.3f} s, "
                  f"{parse[1] / 1024:.1f} MiB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
