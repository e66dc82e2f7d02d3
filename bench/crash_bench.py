#!/usr/bin/env python3
"""The crash inbox's two figures (issue 43), against Breakpad's
minidump_stackwalk in the same run:

  bench/crash_bench.py [--crashes N] [--breakpad-crashes M] [--backlog B]
                       [--threads T] [--build DIR]

1. Crashes processed per second. The dumps: the stack-walk test's crash
   program (gcc -O2, its library, Debian's libc and ld.so with their debug
   files, so libc's .sym is the big one a walk reads), crashed under gdb in
   each of its four modes, each core turned into a client-style minidump;
   the store holds all their modules' symbols (`symstore add`).
   - breakpad: Breakpad's minidump_stackwalk DUMP STORE, one process per
     dump as Socorro runs it, T at a time;
   - drop-in: our minidump_stackwalk, the same way;
   - inbox: `symstore serve STORE --crashes --threads T`, the N dumps posted
     as Breakpad's minidump_upload posts them; from the first post to the
     last crash processed (its /metrics counter), so the figure includes
     receiving, storing (fsync), walking, signing and indexing.
2. Submit latency under a backlog: B crashes posted back to back (walked
   alongside); then a server started on them as a server finds crashes it
   was stopped before walking (their processed.json and the index removed)
   queues all B, and while it works through them one client posts and
   downloads a symbol file in turn, back to back; latencies (p50, p99, max)
   of each, beside those of an idle server.

Breakpad's processor: --breakpad, $BREAKPAD_MINIDUMP_STACKWALK, else
/tmp/breakpad-build/src/processor/minidump_stackwalk (built by hand; never
by the tests). Run on demand; CI never runs it, and no test asserts a
timing."""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))

import core_to_minidump  # noqa: E402
import crash_clients  # noqa: E402
import test_stackwalk as walk  # noqa: E402
from serve_process import ServeProcess  # noqa: E402


def make_dumps(tmp, symstore):
    """One client-style minidump per crash mode, and the store of their symbols."""
    directory = walk.build(tmp, "gcc", "-fomit-frame-pointer")
    store = os.path.join(tmp, "store")
    subprocess.run([symstore, "add", store, directory, "-d", "-q"], check=True)
    dumps = []
    for mode in walk.MODES:
        core = os.path.join(directory, f"gcore.{mode}")
        walk.gdb_oracle(directory, core, os.path.join(directory, f"gdb.{mode}.json"), mode)
        with open(core, "rb") as fh:
            dumps.append(core_to_minidump.convert(core_to_minidump.Core(fh.read())))
    return store, dumps


def one_process_per_dump(argv_of, paths, threads):
    """Wall seconds to run argv_of(path) for every path, `threads` at a time."""
    def run(path):
        p = subprocess.run(argv_of(path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return p.returncode
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        codes = list(pool.map(run, paths))
    wall = time.monotonic() - start
    failed = sum(1 for c in codes if c != 0)
    return wall, failed


def metric(server, name):
    with urllib.request.urlopen(f"{server.url}/metrics", timeout=30) as r:
        text = r.read().decode()
    m = re.search(rf"^{name} (\d+)", text, re.M)
    return int(m.group(1)) if m else 0


def post(server, dump, n):
    start = time.monotonic()
    status, body = crash_clients.breakpad_upload(server.host, server.port, dump, "Bench", f"1.{n % 4}")
    if status != 200 or not body.startswith("CrashID=bp-"):
        raise SystemExit(f"submit answered {status}: {body[:200]}")
    return time.monotonic() - start


def download(server, path):
    start = time.monotonic()
    with urllib.request.urlopen(f"{server.url}/{path}", timeout=30) as r:
        r.read()
    return time.monotonic() - start


def wait_processed(server, total, deadline_s=3600):
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        done = metric(server, "symstore_crashes_processed_total") + metric(server, "symstore_crashes_failed_total")
        if done >= total:
            return time.monotonic(), metric(server, "symstore_crashes_failed_total")
        time.sleep(0.05)
    raise SystemExit(f"the inbox did not process {total} crashes in {deadline_s} s")


def serve(args, tmp, store, label):
    crashes = os.path.join(tmp, f"crashes-{label}")
    cache = os.path.join(tmp, f"cache-{label}")
    return ServeProcess(args.symstore, store, f"--crashes={crashes}", "--cache-dir", cache,
                        "--threads", str(args.threads), quiet=True)


def inbox_rate(args, tmp, store, dumps):
    with serve(args, tmp, store, "rate") as server:
        start = time.monotonic()
        for n in range(args.crashes):
            post(server, dumps[n % len(dumps)], n)
        posted = time.monotonic() - start
        end, failed = wait_processed(server, args.crashes)
    return end - start, posted, failed


def percentiles(values):
    ordered = sorted(values)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000  # noqa: E731
    return f"p50 {pick(0.5):7.1f} ms  p99 {pick(0.99):7.1f} ms  max {ordered[-1] * 1000:7.1f} ms  (n={len(ordered)})"


def backlog_latency(args, tmp, store, dumps, sym_path):
    rows = {}
    with serve(args, tmp, store, "idle") as server:
        rows["submit, idle server"] = [post(server, dumps[n % len(dumps)], n) for n in range(50)]
        wait_processed(server, 50)
        rows["download, idle server"] = [download(server, sym_path) for _ in range(50)]
    with serve(args, tmp, store, "backlog") as server:
        rows[f"submit, {args.backlog} back to back"] = [post(server, dumps[n % len(dumps)], n)
                                                       for n in range(args.backlog)]
        wait_processed(server, args.backlog)
    # The backlog: those crashes as a server finds them that was stopped
    # after receiving them and before walking them (no processed.json, no
    # index): the next one queues them all when it starts.
    crashes = os.path.join(tmp, "crashes-backlog")
    for directory, _, files in os.walk(crashes):
        if "processed.json" in files:
            os.remove(os.path.join(directory, "processed.json"))
    shutil.rmtree(os.path.join(tmp, "cache-backlog"))
    with serve(args, tmp, store, "backlog") as server:
        start = time.monotonic()
        backlog_seen = metric(server, "symstore_crashes_backlog")
        during, downloads = [], []
        n = args.backlog
        while metric(server, "symstore_crashes_backlog") > 0:
            during.append(post(server, dumps[n % len(dumps)], n))
            downloads.append(download(server, sym_path))
            n += 1
        drained = time.monotonic() - start
        rows[f"submit, backlog of {backlog_seen} draining"] = during
        rows[f"download, backlog of {backlog_seen} draining"] = downloads
        wait_processed(server, n - args.backlog)
    return rows, backlog_seen, drained


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--crashes", type=int, default=400)
    parser.add_argument("--breakpad-crashes", type=int, default=100)
    parser.add_argument("--backlog", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--breakpad", default=os.environ.get(
        "BREAKPAD_MINIDUMP_STACKWALK", "/tmp/breakpad-build/src/processor/minidump_stackwalk"))
    parser.add_argument("--skip-latency", action="store_true")
    args = parser.parse_args()
    args.symstore = os.path.join(args.build, "tools", "symstore", "symstore")
    drop_in = os.path.join(args.build, "tools", "minidump_stackwalk", "minidump_stackwalk")
    tmp = tempfile.mkdtemp(prefix="crash-bench-")
    try:
        store, dumps = make_dumps(tmp, args.symstore)
        syms = sorted((os.path.getsize(os.path.join(d, f)), os.path.relpath(os.path.join(d, f), store))
                      for d, _, fs in os.walk(store) for f in fs if f.endswith(".sym"))
        print(f"store: {len(syms)} symbol files, {sum(s for s, _ in syms) / 1e6:.1f} MB; largest "
              f"{syms[-1][1]} {syms[-1][0] / 1e6:.1f} MB; dumps {', '.join(str(len(d) // 1024) + ' KiB' for d in dumps)}")
        paths = []
        for n, dump in enumerate(dumps):
            paths.append(os.path.join(tmp, f"crash-{n}.dmp"))
            with open(paths[-1], "wb") as fh:
                fh.write(dump)
        many = lambda count: [paths[n % len(paths)] for n in range(count)]  # noqa: E731

        print(f"\n{'crashes processed, ' + str(args.threads) + ' at a time':44} {'crashes':>7} {'wall s':>8} "
              f"{'per s':>8} {'x breakpad':>10}")
        anchor = None
        if os.access(args.breakpad, os.X_OK):
            wall, failed = one_process_per_dump(lambda p: [args.breakpad, p, store],
                                                many(args.breakpad_crashes), args.threads)
            anchor = args.breakpad_crashes / wall
            print(f"{'breakpad minidump_stackwalk, a process each':44} {args.breakpad_crashes:7} {wall:8.2f} "
                  f"{anchor:8.2f} {1.0:10.2f}" + (f"  ({failed} failed)" if failed else ""))
        else:
            print(f"(no Breakpad minidump_stackwalk at {args.breakpad}: no anchor)")
        wall, failed = one_process_per_dump(lambda p: [drop_in, p, store], many(args.crashes), args.threads)
        rate = args.crashes / wall
        ratio = f"{rate / anchor:10.2f}" if anchor else ""
        print(f"{'our minidump_stackwalk, a process each':44} {args.crashes:7} {wall:8.2f} {rate:8.2f} {ratio}"
              + (f"  ({failed} failed)" if failed else ""))
        wall, posted, failed = inbox_rate(args, tmp, store, dumps)
        rate = args.crashes / wall
        ratio = f"{rate / anchor:10.2f}" if anchor else ""
        print(f"{'symstore serve --crashes (post to processed)':44} {args.crashes:7} {wall:8.2f} {rate:8.2f} "
              f"{ratio}  (posting took {posted:.2f} s" + (f", {failed} failed)" if failed else ")"))

        if not args.skip_latency:
            rows, seen, drained = backlog_latency(args, tmp, store, dumps, syms[-1][1])
            print(f"\nlatency (a server started on {seen} received, unwalked crashes walked them in "
                  f"{drained:.1f} s, {seen / drained:.1f} per s, with the posts and downloads below)")
            for label, values in rows.items():
                print(f"{label:34} {percentiles(values)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
