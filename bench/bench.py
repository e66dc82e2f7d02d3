#!/usr/bin/env python3
"""Times dump_syms on the given binaries: wall time and peak resident memory
(from /usr/bin/time -v), best of N runs, and the same for the reference
dumpers where they are installed, with the ratios.

  bench/bench.py [--runs N] [--dump-syms PATH] BINARY[:DEBUG_DIR] ...

Reference tools, when set in the environment:
  BREAKPAD_DUMP_SYMS   Google Breakpad's Linux dump_syms (built in /tmp)
  MOZILLA_DUMP_SYMS    Mozilla's Rust dump_syms
Run on demand; CI never runs it, and no test asserts a timing.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def measure(cmd, runs):
    best = None
    for _ in range(runs):
        p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        if p.returncode != 0:
            return None
        wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
        parts = [float(x) for x in wall.split(":")]
        seconds = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) > 2 else 0)
        rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
        if best is None or seconds < best[0]:
            best = (seconds, rss)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--dump-syms", default=os.path.join(HERE, "..", "build", "tools", "dump_syms", "dump_syms"))
    parser.add_argument("--args", default="-d", help="options for our dump_syms (default -d)")
    parser.add_argument("inputs", nargs="+", help="BINARY or BINARY:DEBUG_DIR")
    args = parser.parse_args()
    tools = {"ours": [args.dump_syms] + args.args.split()}
    if os.environ.get("BREAKPAD_DUMP_SYMS"):
        tools["breakpad"] = [os.environ["BREAKPAD_DUMP_SYMS"], "-d"]
    if os.environ.get("MOZILLA_DUMP_SYMS"):
        tools["mozilla"] = [os.environ["MOZILLA_DUMP_SYMS"]]
    print(f"{'binary':40} {'tool':10} {'wall s':>8} {'peak MiB':>9} {'time x':>7} {'mem x':>7}")
    for item in args.inputs:
        binary, _, debug_dir = item.partition(":")
        results = {}
        for name, cmd in tools.items():
            results[name] = measure(cmd + [binary] + ([debug_dir] if debug_dir else []), args.runs)
        ours = results["ours"]
        for name, result in results.items():
            if result is None:
                print(f"{os.path.basename(binary)[:40]:40} {name:10} {'failed':>8}")
                continue
            ratio_t = f"{result[0] / ours[0]:.2f}" if ours and ours[0] else "-"
            ratio_m = f"{result[1] / ours[1]:.2f}" if ours and ours[1] else "-"
            print(f"{os.path.basename(binary)[:40]:40} {name:10} {result[0]:8.2f} {result[1] / 1024:9.1f} "
                  f"{ratio_t:>7} {ratio_m:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
