#!/usr/bin/env python3
"""The inflation goal of issue 26: a dump of a binary whose debug file holds
zlib-compressed DWARF, against the time to inflate that file's sections one
after the other with zlib and with ISA-L (bench/inflate_sections, built with
the project), all in the same run. Rounds are paired: each round runs every
command once, in turn, and the figures are the medians over the rounds.

    bench/inflate_bench.py DEBUG_FILE [--binary BINARY --debug-dir DIR] [--rounds 5] [-j 2]
    bench/inflate_bench.py /tmp/ceph/release/usr/lib/debug/.build-id/fb/66b3cec5f264a2f863d96fa875eb4ae39bb0bf.debug \\
        --binary /tmp/ceph/release/usr/bin/ceph-osd --debug-dir /tmp/ceph/release/usr/lib/debug

Without --binary the debug file itself is dumped. BREAKPAD_DUMP_SYMS (Google
Breakpad's Linux dump_syms, built in /tmp) adds Breakpad's dump as an anchor.
Run on demand, never in CI: a timing is never a test assertion."""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "..", "build")


def timed(cmd):
    """(wall seconds, peak RSS MiB) of one run, from /usr/bin/time -v."""
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"inflate_bench: {' '.join(cmd)} failed:\n{p.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", p.stderr).group(1)
    parts = [float(x) for x in wall.split(":")]
    seconds = parts[-1] + 60 * parts[-2] + (3600 * parts[-3] if len(parts) > 2 else 0)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1))
    return seconds, rss / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("debug_file")
    parser.add_argument("--binary")
    parser.add_argument("--debug-dir")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("-j", "--jobs", default="2")
    parser.add_argument("--dump-syms", default=os.path.join(BUILD, "tools", "dump_syms", "dump_syms"))
    parser.add_argument("--inflate-sections", default=os.path.join(BUILD, "bench", "inflate_sections"))
    args = parser.parse_args()
    target = [args.binary] + ([args.debug_dir] if args.debug_dir else []) if args.binary else [args.debug_file]
    dumps = {
        f"ours -j{args.jobs}": [args.dump_syms, "-j", args.jobs] + target,
        f"ours -j{args.jobs} -d": [args.dump_syms, "-j", args.jobs, "-d"] + target,
    }
    if os.environ.get("BREAKPAD_DUMP_SYMS"):
        dumps["breakpad"] = [os.environ["BREAKPAD_DUMP_SYMS"]] + target
    walls = {name: [] for name in dumps}
    peaks = {name: [] for name in dumps}
    inflate = {(d, k): [] for d in ("zlib", "isal") for k in ("fresh", "warm")}
    for _ in range(args.rounds):
        out = subprocess.run([args.inflate_sections, args.debug_file, "1"], check=True, capture_output=True,
                             text=True).stdout
        for line in out.splitlines():
            decoder, kind, seconds, _ = line.split()
            inflate[(decoder, kind)].append(float(seconds))
        for name, cmd in dumps.items():
            wall, peak = timed(cmd)
            walls[name].append(wall)
            peaks[name].append(peak)
    med = {key: statistics.median(values) for key, values in inflate.items()}
    zlib, isal = med[("zlib", "fresh")], med[("isal", "fresh")]
    print(f"{'what':28} {'wall s':>8} {'peak MiB':>9} {'x zlib':>7} {'x isal':>7}")
    for decoder, name in (("zlib", "zlib"), ("isal", "ISA-L")):
        for kind in ("fresh", "warm"):
            t = med[(decoder, kind)]
            label = f"inflate, {name}, serial, {kind}"
            print(f"{label:28} {t:8.2f} {'':>9} {t / zlib:7.2f} {t / isal:7.2f}")
    for name in dumps:
        wall, peak = statistics.median(walls[name]), statistics.median(peaks[name])
        print(f"{name:28} {wall:8.2f} {peak:9.0f} {wall / zlib:7.2f} {wall / isal:7.2f}")
    print("(x zlib, x isal: against the fresh-buffer inflation, what a program inflating the "
          "sections pays)")
    print(f"({args.rounds} paired rounds, medians)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
