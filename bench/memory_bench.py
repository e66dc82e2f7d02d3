#!/usr/bin/python3
"""Peak memory and wall time of dump_syms against Breakpad's on real debug
files of growing size, side by side in one run (issue 12).

  bench/memory_bench.py [--runs N] [--jobs N] [--dump-syms PATH]
                        [--before PATH] [--breakpad PATH] [--out-dir docs]
                        [DEBUG_FILE...]

With no DEBUG_FILE it takes, where installed: libc (libc6-dbg), python3.11
(python3.11-dbg), libstdc++ (libstdc++6-12-dbg's debug build), and
librados, libradosgw and ceph-osd from Debian's ceph 16.2.15 debs unpacked
under /tmp/ceph/release. Both tools dump the debug file itself. For each
file it reports the inflated DWARF size, the time it takes just to inflate
the compressed DWARF sections (zlib, one thread per section, --jobs
threads: the floor the 1.5x wall target is measured against), and for each
tool, with and without -d, the best wall time of --runs runs and the
largest peak RSS of them (GNU time's %M);
--before PATH measures an earlier dump_syms binary the same way (one run:
its memory is the point), to show what a change did.

Writes OUT_DIR/memory_bench.md (the table) and OUT_DIR/memory_curve.png
(peak RSS against DWARF size; matplotlib from Debian's
python3-matplotlib, hence Debian's /usr/bin/python3 rather than whichever
python3 is first on PATH). Run on demand: CI never runs it, and no test
asserts a timing. Other work on the machine makes wall times noisy; memory is not.
"""
import argparse
import concurrent.futures
import os
import struct
import subprocess
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_BREAKPAD = "/tmp/breakpad/src/tools/linux/dump_syms/dump_syms"
CEPH = "/tmp/ceph/release"

# (label, the binary whose build-id names the debug file, debug root; or
# the file itself when the root is None)
DEFAULT_INPUTS = [
    ("libc", "/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/debug"),
    ("python3.11", "/usr/bin/python3.11", "/usr/lib/debug"),
    # libstdc++6-12-dbg ships a debug build of the library (uncompressed
    # DWARF), not a separate debug file: dumped as it is.
    ("libstdc++", "/usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6.0.30", None),
    ("librados", f"{CEPH}/usr/lib/x86_64-linux-gnu/librados.so.2.0.0", f"{CEPH}/usr/lib/debug"),
    ("libradosgw", f"{CEPH}/usr/lib/x86_64-linux-gnu/libradosgw.so.2.0.0", f"{CEPH}/usr/lib/debug"),
    ("ceph-osd", f"{CEPH}/usr/bin/ceph-osd", f"{CEPH}/usr/lib/debug"),
]

# What our dump reads; the rest (location lists, name indexes) it skips.
READ_SECTIONS = {".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str",
                 ".debug_rnglists", ".debug_ranges", ".debug_addr", ".debug_str_offsets",
                 ".debug_types", ".debug_frame"}


def sections(path):
    """[(name, offset, size, flags)] of a 64-bit little-endian ELF file."""
    with open(path, "rb") as fh:
        data = fh.read(64)
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        fh.seek(shoff)
        table = fh.read(shentsize * shnum)
        headers = [struct.unpack_from("<IIQQQQIIQQ", table, i * shentsize) for i in range(shnum)]
        fh.seek(headers[shstrndx][4])
        names = fh.read(headers[shstrndx][5])
    out = []
    for h in headers:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        out.append((name, h[4], h[5], h[2], h[1]))
    return out


def build_id(path):
    for name, offset, size, _, _ in sections(path):
        if name == ".note.gnu.build-id":
            with open(path, "rb") as fh:
                fh.seek(offset)
                note = fh.read(size)
            namesz, descsz, _ = struct.unpack_from("<III", note)
            start = 12 + ((namesz + 3) & ~3)
            return note[start:start + descsz].hex()
    return None


def debug_file(binary, root):
    if not os.path.exists(binary):
        return None
    bid = build_id(binary)
    path = f"{root}/.build-id/{bid[:2]}/{bid[2:]}.debug" if bid else None
    return path if path and os.path.exists(path) else None


def dwarf_sizes(path):
    """(inflated size of all .debug_* sections, of those our dump reads),
    and the compressed sections we read as [(offset, size)]."""
    total = read = 0
    compressed = []
    with open(path, "rb") as fh:
        for name, offset, size, flags, kind in sections(path):
            if not name.startswith(".debug_") or kind == 8:  # SHT_NOBITS
                continue
            inflated = size
            if flags & 0x800:  # SHF_COMPRESSED
                fh.seek(offset)
                _, _, inflated, _ = struct.unpack("<IIQQ", fh.read(24))
            total += inflated
            if name in READ_SECTIONS:
                read += inflated
                if flags & 0x800:
                    compressed.append((offset, size))
    return total, read, compressed


def inflate_seconds(path, compressed, jobs, runs):
    """Best time to inflate the compressed sections the dump reads, one
    thread per section (zlib releases the GIL), as dump_syms does; None
    when nothing is compressed."""
    if not compressed:
        return None
    with open(path, "rb") as fh:
        blobs = []
        for offset, size in compressed:
            fh.seek(offset)
            chdr = fh.read(24)
            if struct.unpack_from("<I", chdr)[0] != 1:  # ELFCOMPRESS_ZLIB only
                return None
            blobs.append(fh.read(size - 24))
    best = None
    for _ in range(runs):
        start = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for _ in pool.map(zlib.decompress, blobs):
                pass
        elapsed = time.monotonic() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def run(cmd):
    """(wall seconds, peak RSS in MiB) of one run, or None on failure.
    GNU time forks the tool: a child forked from this process would count
    this process's own resident pages (the inflated sections above) in its
    ru_maxrss until it execs."""
    p = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        print(f"failed ({p.returncode}): {' '.join(cmd)}: {p.stderr.strip()[-300:]}", file=sys.stderr)
        return None
    wall, rss = p.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss) / 1024


def measure(cmd, runs):
    results = [run(cmd) for _ in range(runs)]
    if any(r is None for r in results):
        return None
    return min(r[0] for r in results), max(r[1] for r in results)


def plot(rows, path):
    try:
        import matplotlib
    except ImportError:
        print("no plot: matplotlib is missing (apt-get install python3-matplotlib; run with /usr/bin/python3)",
              file=sys.stderr)
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = sorted(rows, key=lambda r: r["dwarf"])
    fig, ax = plt.subplots(figsize=(7.5, 5))
    series = [("ours", "ours", "o-"), ("ours -d", "ours -d", "s-"),
              ("ours before", "before", "o:"), ("ours before -d", "before -d", "s:"),
              ("Breakpad", "breakpad", "o--"), ("Breakpad -d", "breakpad -d", "s--")]
    for label, key, style in series:
        points = [(r["dwarf"], r[key][1]) for r in rows if r.get(key)]
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], style, label=label)
    for r in rows:
        if r.get("ours"):
            ax.annotate(r["label"], (r["dwarf"], r["ours"][1]), textcoords="offset points",
                        xytext=(4, -10), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("DWARF size, inflated (MB)")
    ax.set_ylabel("peak RSS (MiB)")
    ax.set_title("dump_syms peak memory against debug-file size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--breakpad-runs", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--dump-syms", default=os.path.join(HERE, "..", "build", "tools", "dump_syms", "dump_syms"))
    parser.add_argument("--before", help="an earlier dump_syms binary to measure too")
    parser.add_argument("--breakpad", default=os.environ.get("BREAKPAD_DUMP_SYMS", DEFAULT_BREAKPAD))
    parser.add_argument("--out-dir", default=os.path.join(HERE, "..", "docs"))
    parser.add_argument("inputs", nargs="*", help="debug files (default: the five named above)")
    args = parser.parse_args()

    inputs = [(os.path.basename(p), p) for p in args.inputs]
    if not inputs:
        for label, binary, root in DEFAULT_INPUTS:
            path = debug_file(binary, root) if root else (binary if os.path.exists(binary) else None)
            if path:
                inputs.append((label, path))
            else:
                print(f"skipped {label}: no debug file for {binary}", file=sys.stderr)
    have_breakpad = os.access(args.breakpad, os.X_OK)
    rows = []
    for label, path in inputs:
        total, read, compressed = dwarf_sizes(path)
        row = {"label": label, "path": path, "dwarf": total / 1e6, "read": read / 1e6,
               "inflate": inflate_seconds(path, compressed, args.jobs, args.runs)}
        jobs = ["-j", str(args.jobs)]
        row["ours"] = measure([args.dump_syms, *jobs, path], args.runs)
        row["ours -d"] = measure([args.dump_syms, *jobs, "-d", path], args.runs)
        if args.before:
            row["before"] = measure([args.before, *jobs, path], 1)
            row["before -d"] = measure([args.before, *jobs, "-d", path], 1)
        if have_breakpad:
            row["breakpad"] = measure([args.breakpad, path], args.breakpad_runs)
            row["breakpad -d"] = measure([args.breakpad, "-d", path], args.breakpad_runs)
        rows.append(row)
        print(f"{label}: {row}", file=sys.stderr)

    def cell(result):
        return f"{result[0]:.2f} s, {result[1]:.0f} MiB" if result else "-"

    before = "before | before -d | " if args.before else ""
    lines = [f"| file | DWARF MB (read) | inflate s | ours -j{args.jobs} | ours -j{args.jobs} -d | "
             f"wall / inflate | {before}Breakpad | Breakpad -d |",
             "|---|---|---|---|---|---|---|---|" + ("---|---|" if args.before else "")]
    for r in rows:
        inflate = f"{r['inflate']:.2f}" if r["inflate"] else "-"
        ratio = (f"{r['ours'][0] / r['inflate']:.1f}x / {r['ours -d'][0] / r['inflate']:.1f}x"
                 if r["inflate"] and r["ours"] and r["ours -d"] else "-")
        earlier = f"{cell(r.get('before'))} | {cell(r.get('before -d'))} | " if args.before else ""
        lines.append(f"| {r['label']} | {r['dwarf']:.0f} ({r['read']:.0f}) | {inflate} | {cell(r['ours'])} | "
                     f"{cell(r['ours -d'])} | {ratio} | {earlier}{cell(r.get('breakpad'))} | "
                     f"{cell(r.get('breakpad -d'))} |")
    table = "\n".join(lines)
    print(table)
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "memory_bench.md"), "w") as fh:
        fh.write(f"<!-- written by bench/memory_bench.py --runs {args.runs} --jobs {args.jobs} -->\n")
        fh.write(table + "\n")
    plot(rows, os.path.join(args.out_dir, "memory_curve.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
