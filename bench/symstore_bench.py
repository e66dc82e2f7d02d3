#!/usr/bin/env python3
"""symstore add over a whole release (with its default memory limit, and with
`--memory-limit largest`, the budget of before), against our own dump_syms
-j1 run once per binary under `xargs -P` (issue 26's anchor) and Breakpad's
dump_syms the same way, all with the same core count, in paired rounds
(`--rounds N`: each round runs every command once; medians). Reports wall time,
peak memory of the whole process tree (resident set sizes of all processes
summed, sampled every 20 ms: concurrent dumps add up) and files per second.

    bench/symstore_bench.py RELEASE_DIR [--debug-dir DIR] [-j N]
    BREAKPAD_DUMP_SYMS=/tmp/breakpad/src/tools/linux/dump_syms/dump_syms bench/symstore_bench.py ...

To bench Debian's ceph 16.2.15 (issue 8), unpack its packages first:
    apt-get download ceph-osd ceph-osd-dbg ceph-mon ceph-mon-dbg ceph-mgr ceph-mgr-dbg \\
        ceph-mds ceph-mds-dbg ceph-base ceph-base-dbg ceph-common ceph-common-dbg \\
        librados2 librados2-dbg librbd1 librbd1-dbg librgw2 librgw2-dbg radosgw radosgw-dbg
    for d in *.deb; do dpkg-deb -x "$d" release; done
    bench/symstore_bench.py release --debug-dir release/usr/lib/debug
Run on demand, never in CI: a timing is never a test assertion."""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def tree_rss(pid):
    """Summed RSS (bytes) of `pid` and all its descendants."""
    children = {}
    rss = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
            rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo += children.get(p, [])
    return total


def measure(argv, stdin_bytes=None):
    """(wall seconds, peak tree RSS bytes, exit status)."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin_bytes is not None else None,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    done = threading.Event()

    def sample():
        nonlocal peak
        while not done.is_set():
            peak = max(peak, tree_rss(proc.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    if stdin_bytes is not None:
        proc.communicate(stdin_bytes)
    status = proc.wait()
    done.set()
    sampler.join()
    return time.monotonic() - start, peak, status


def elf_files(release):
    out = []
    for directory, _, names in os.walk(release):
        if "/usr/lib/debug" in directory or "/.build-id" in directory:
            continue
        for name in names:
            path = os.path.join(directory, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            with open(path, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    out.append(path)
    return sorted(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("release")
    parser.add_argument("--debug-dir", action="append", default=[])
    parser.add_argument("-j", type=int, default=os.cpu_count())
    parser.add_argument("--symstore", default=os.path.join(ROOT, "build", "tools", "symstore", "symstore"))
    parser.add_argument("--dump-syms", default=os.path.join(ROOT, "build", "tools", "dump_syms", "dump_syms"))
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--memory-limit", help="also run symstore add with this --memory-limit")
    args = parser.parse_args()
    files = elf_files(args.release)
    size = sum(os.path.getsize(f) for f in files)
    print(f"release: {len(files)} ELF files, {size / 1e6:.0f} MB; {args.j} cores")
    tmp = tempfile.mkdtemp()
    try:
        rows = []
        debug = sum((["--debug-dir", d] for d in args.debug_dir), [])
        manifest = os.path.join(tmp, "manifest.json")
        runs = {}

        def symstore(extra):
            store = os.path.join(tmp, "store")
            shutil.rmtree(store, ignore_errors=True)
            return measure([args.symstore, "add", store, args.release, "-q", "-j", str(args.j),
                            "--manifest", manifest, *debug, *extra])

        def xargs_ours():
            store = os.path.join(tmp, "xargs-store")
            shutil.rmtree(store, ignore_errors=True)
            listing = "\n".join(files).encode()
            return measure(["xargs", "-d", "\n", "-P", str(args.j), "-I", "{}", args.dump_syms, "-q", "-j1",
                            "--store", store, "{}", *args.debug_dir], listing)

        commands = {"symstore add": lambda: symstore([]),
                    "symstore add --memory-limit largest": lambda: symstore(["--memory-limit", "largest"]),
                    "dump_syms -j1, xargs -P": xargs_ours}
        if args.memory_limit:
            commands[f"symstore add --memory-limit {args.memory_limit}"] = \
                lambda: symstore(["--memory-limit", args.memory_limit])
        for _ in range(args.rounds):
            for name, command in commands.items():
                runs.setdefault(name, []).append(command())
        for name, results in runs.items():
            walls = sorted(r[0] for r in results)
            peaks = sorted(r[1] for r in results)
            rows.append((name, walls[len(walls) // 2], peaks[len(peaks) // 2], max(r[2] for r in results)))
        symstore([])  # the manifest of a default run, for the largest module
        # The largest single dump alone, for the memory bound: symstore's
        # peak should be this plus a small constant, not a sum.
        entries = [e for e in json.load(open(manifest))["entries"] if e["status"] in ("written", "no-debug-info")]
        largest = max(entries, key=lambda e: os.path.getsize(e.get("debug_info", {}).get("file") or e["path"]))
        one = [args.dump_syms, "-q", "-j", str(args.j), largest["path"],
               "--output", os.path.join(tmp, "largest.sym")]
        if largest.get("debug_info", {}).get("file"):
            one += ["--debug-file", largest["debug_info"]["file"]]
        wall1, peak1, status1 = measure(one)
        rows.append((f"dump_syms {largest['module']} alone", wall1, peak1, status1))
        breakpad = os.environ.get("BREAKPAD_DUMP_SYMS")
        if breakpad:
            out = os.path.join(tmp, "breakpad")
            os.makedirs(out)
            # Breakpad finds a debug file only as DEBUG_DIR/<debuglink name>;
            # Debian's links name the file inside .build-id/xx/, so each
            # binary is given that directory.
            dirs = " ".join(f'"{d}" "{d}/.build-id/${{id:0:2}}"' for d in args.debug_dir)
            script = (f'for f in "$@"; do id=$(readelf -n "$f" 2>/dev/null | awk \'/Build ID/{{print $3}}\'); '
                      f'"{breakpad}" "$f" {dirs} > "{out}/$(basename "$f").sym" 2>/dev/null; done')
            listing = "\n".join(files).encode()
            wall, peak, status = measure(
                ["xargs", "-d", "\n", "-P", str(args.j), "-n", "1", "bash", "-c", script, "bash"], listing)
            rows.append(("Breakpad dump_syms, xargs -P", wall, peak, status))
        anchor = runs and sorted(r[0] for r in runs["dump_syms -j1, xargs -P"])
        anchor = anchor[len(anchor) // 2]
        print(f"{'tool':40} {'wall s':>8} {'peak MB':>9} {'files/s':>8} {'x xargs':>8}")
        for name, wall, peak, status in rows:
            batch = name.startswith(("symstore", "Breakpad", "dump_syms -j1"))
            rate = f"{len(files) / wall:8.1f}" if batch else f"{'':8}"
            ratio = f"{wall / anchor:8.2f}" if batch else f"{'':8}"
            print(f"{name:40} {wall:8.1f} {peak / 1e6:9.0f} {rate} {ratio}"
                  + ("" if status == 0 else f"  (exit {status})"))
        print(f"({args.rounds} paired rounds, medians; peak: the whole process tree's summed RSS)")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
