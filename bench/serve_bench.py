#!/usr/bin/env python3
"""`symstore serve` against nginx serving the same store directory, in the
same run, on loopback:

- downloads: `wrk -t2 -c1000 -d20s --latency` with a Lua script that walks
  every .sym file of the store (each wrk thread from its own offset), against
  `symstore serve STORE --quiet` and against nginx (sendfile on, access log
  off, one worker per core); requests/s, p50/p90/p99 latency, non-2xx
  answers and socket errors, the server's CPU time per answer (which other
  load on the machine does not inflate), and the peak memory of the server (VmHWM from
  /proc/PID/status; nginx: the sum over its workers); then the ratios to
  nginx against the goals (throughput >= 0.8x, p99 <= 2x, memory < 200 MiB);
- uploads: a whole release sent by `symstore upload --protocol put -j8`
  into `symstore serve EMPTY_DIR --tokens` and into nginx's WebDAV PUT;
  wall time, files/s and MB/s, and what landed.

The store is `symstore add` of the shared libraries of
/usr/lib/x86_64-linux-gnu (regular files up to --max-size, at most
--max-files of them, by name), or --store an existing store.

    bench/serve_bench.py [--symstore build/tools/symstore/symstore] [--store DIR]
                         [--connections 1000] [--seconds 20] [--rounds 1] [--json OUT]

Run on demand, never in CI: a timing is never a test assertion."""
import argparse
import json
import os
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LOOPBACK = "127.0.0.1"
MIB = 1 << 20
TOKEN = "serve-bench-token"
GOALS = {"throughput": 0.8, "p99": 2.0, "memory_mib": 200}

# Every request names the next file of the list; each wrk thread starts at
# its own offset so that the two do not ask for the same file at once.
WRK_SCRIPT = """\
local next_id = 1
function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end
function init(args)
  paths = {}
  for line in io.lines(args[1]) do paths[#paths + 1] = line end
  i = ((id or 1) * 7919) % #paths
end
function request()
  i = i % #paths + 1
  return wrk.format("GET", paths[i])
end
"""

# tests/e2e/upload_servers.py's nginx.conf, sized for 1,000 clients: a
# worker per core, sendfile (nginx's default is off; every production
# configuration turns it on, and symstore serve sends files with sendfile),
# and no access log (symstore serve runs with --quiet).
NGINX_CONF = """\
worker_processes {workers};
worker_rlimit_nofile 16384;
daemon off;
master_process on;
{user}pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log warn;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    client_body_temp_path {prefix}/tmp/client_body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    client_max_body_size 0;
    default_type application/octet-stream;
    server {{
        listen {host}:{port} backlog=4096;
        root {root};
        location / {{
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }}
    }}
}}
"""


def free_port():
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def wait_listening(port, proc, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode} before listening on {port}")
        try:
            with socket.create_connection((LOOPBACK, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit(f"nothing listens on {port} after {seconds} s")


def more_files():
    """1,000 clients need more than 1,024 descriptors: the hard limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def vm_hwm(pid):
    """Peak resident set (bytes) of one process, from /proc/PID/status."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def cpu_seconds(pids):
    """User + system CPU time (seconds) the processes have used so far."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
        except (OSError, IndexError, ValueError):
            continue
    return total / os.sysconf("SC_CLK_TCK")


def children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    if int(fh.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return out


class Serve:
    """symstore serve on a free port; `peak()` is its VmHWM."""

    def __init__(self, symstore, store, *flags):
        self.argv = [symstore, "serve", store, "--listen", f"{LOOPBACK}:0", *flags]

    def __enter__(self):
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     stdin=subprocess.DEVNULL, preexec_fn=more_files)
        line = self.proc.stdout.readline().decode().strip()
        match = re.match(r"listening on (http://\S+:(\d+))$", line)
        if not match:
            self.proc.kill()
            raise SystemExit(f"{' '.join(self.argv)}: first line {line!r}")
        self.url, self.port = match.group(1), int(match.group(2))
        return self

    def peak(self):
        return vm_hwm(self.proc.pid)

    def cpu(self):
        return cpu_seconds([self.proc.pid])

    def __exit__(self, *exc):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return False


class Nginx:
    """nginx serving `root` (GET, and PUT through WebDAV); `peak()` sums its
    workers' VmHWM."""

    def __init__(self, nginx, root, workers):
        self.nginx, self.root, self.workers = nginx, root, workers

    def __enter__(self):
        self.prefix = tempfile.mkdtemp(prefix="serve-bench-nginx-")
        for sub in ("logs", "tmp"):
            os.makedirs(os.path.join(self.prefix, sub))
        self.port = free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        conf = os.path.join(self.prefix, "nginx.conf")
        with open(conf, "w") as fh:
            fh.write(NGINX_CONF.format(prefix=self.prefix, root=self.root, host=LOOPBACK, port=self.port,
                                      workers=self.workers, user="user root root;\n" if os.geteuid() == 0 else ""))
        errors = os.path.join(self.prefix, "logs", "error.log")
        self.proc = subprocess.Popen([self.nginx, "-p", self.prefix, "-c", conf, "-e", errors],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=more_files)
        wait_listening(self.port, self.proc)
        return self

    def peak(self):
        return sum(vm_hwm(pid) for pid in children(self.proc.pid))

    def cpu(self):
        return cpu_seconds(children(self.proc.pid))

    def __exit__(self, *exc):
        self.proc.send_signal(signal.SIGQUIT)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.prefix, ignore_errors=True)
        return False


def symbol_files(store):
    out = []
    for directory, dirs, names in os.walk(store):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.endswith(".sym"):
                out.append(os.path.relpath(os.path.join(directory, name), store))
    return out


def make_store(args, tmp):
    if args.store:
        return args.store
    release = os.path.join(tmp, "release")
    os.makedirs(release)
    picked = 0
    for name in sorted(os.listdir(args.release)):
        path = os.path.join(args.release, name)
        if (".so" not in name or os.path.islink(path) or not os.path.isfile(path)
                or os.path.getsize(path) > args.max_size * MIB):
            continue
        os.symlink(path, os.path.join(release, name))
        picked += 1
        if picked == args.max_files:
            break
    store = os.path.join(tmp, "store")
    started = time.monotonic()
    p = subprocess.run([args.symstore, "add", store, release, "-q"], capture_output=True, text=True)
    if p.returncode != 0 and not os.path.isdir(store):
        raise SystemExit(f"symstore add: {p.stderr.strip()[-800:]}")
    print(f"store: symstore add of {picked} libraries of {args.release} in {time.monotonic() - started:.0f} s"
          + (f" (some refused: {p.stderr.strip().splitlines()[-1]})" if p.returncode else ""))
    return store


def seconds_of(text):
    value, unit = re.match(r"([\d.]+)(us|ms|s|m)$", text).groups()
    return float(value) * {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[unit]


def wrk(args, url, paths_file, seconds):
    script = os.path.join(os.path.dirname(paths_file), "spread.lua")
    with open(script, "w") as fh:
        fh.write(WRK_SCRIPT)
    argv = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{seconds}s", "--latency",
            "--timeout", "10s", "-s", script, url, "--", paths_file]
    p = subprocess.run(argv, capture_output=True, text=True, preexec_fn=more_files, timeout=seconds + 120)
    out = p.stdout
    if p.returncode != 0 or "Requests/sec" not in out:
        raise SystemExit(f"{' '.join(argv)}: exit {p.returncode}: {out[-500:]} {p.stderr[-500:]}")
    result = {"requests_per_second": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
              "requests": int(re.search(r"(\d+) requests in", out).group(1))}
    for pct in ("50", "90", "99"):
        result[f"p{pct}_ms"] = seconds_of(re.search(rf"^\s+{pct}%\s+(\S+)", out, re.M).group(1)) * 1e3
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    result["non_2xx"] = int(non2xx.group(1)) if non2xx else 0
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    result["socket_errors"] = dict(zip(("connect", "read", "write", "timeout"),
                                       map(int, errors.groups()))) if errors else {}
    transfer = re.search(r"Transfer/sec:\s+([\d.]+)(\w+)", out)
    if transfer:
        scale = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}.get(transfer.group(2), 1)
        result["mib_per_second"] = float(transfer.group(1)) * scale / MIB
    return result


def bench_downloads(args, store, tmp):
    paths = symbol_files(store)
    paths_file = os.path.join(tmp, "paths.txt")
    with open(paths_file, "w") as fh:
        fh.write("".join("/" + p + "\n" for p in paths))
    sizes = [os.path.getsize(os.path.join(store, p)) for p in paths]
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"downloads: {len(paths)} .sym files, {sum(sizes) / MIB:.1f} MiB, median "
          f"{statistics.median(sizes) / 1024:.1f} KiB, largest {max(sizes) / MIB:.1f} MiB; "
          f"wrk -t{args.threads} -c{args.connections} -d{args.seconds}s, {args.rounds} round(s)")
    rounds = {"symstore serve": [], "nginx": []}
    peaks = {"symstore serve": 0, "nginx": 0}
    serve_flags = ["--quiet"] + (["--threads", str(args.serve_threads)] if args.serve_threads else [])
    with Serve(args.symstore, store, *serve_flags) as ours, Nginx(args.nginx, store, args.nginx_workers) as theirs:
        for _ in range(args.rounds):
            for name, server in (("symstore serve", ours), ("nginx", theirs)):
                wrk(args, server.url, paths_file, 3)  # warm: page cache, connections, lazy state
                before = server.cpu()
                result = wrk(args, server.url, paths_file, args.seconds)
                # CPU time per answer: a cost other load on the machine does not inflate.
                result["cpu_us_per_request"] = (server.cpu() - before) / max(result["requests"], 1) * 1e6
                rounds[name].append(result)
        peaks["symstore serve"], peaks["nginx"] = ours.peak(), theirs.peak()
    results = {}
    for name, runs in rounds.items():
        best = {key: statistics.median(r[key] for r in runs)
                for key in ("requests_per_second", "p50_ms", "p90_ms", "p99_ms", "mib_per_second",
                            "cpu_us_per_request")}
        best["non_2xx"] = sum(r["non_2xx"] for r in runs)
        best["socket_errors"] = {k: sum(r["socket_errors"].get(k, 0) for r in runs)
                                 for k in ("connect", "read", "write", "timeout")}
        best["peak_rss_mib"] = peaks[name] / MIB
        results[name] = best
        print(f"  {name:15} {best['requests_per_second']:10.0f} req/s  {best['mib_per_second']:7.1f} MiB/s  "
              f"p50 {best['p50_ms']:7.2f} ms  p90 {best['p90_ms']:7.2f} ms  p99 {best['p99_ms']:7.2f} ms  "
              f"CPU {best['cpu_us_per_request']:5.0f} us/req  peak RSS {best['peak_rss_mib']:6.1f} MiB  non-2xx {best['non_2xx']}  "
              f"socket errors {best['socket_errors']}")
    ours, theirs = results["symstore serve"], results["nginx"]
    ratios = {"throughput": ours["requests_per_second"] / theirs["requests_per_second"],
              "p99": ours["p99_ms"] / theirs["p99_ms"] if theirs["p99_ms"] else float("inf"),
              "memory_mib": ours["peak_rss_mib"]}
    met = {"throughput": ratios["throughput"] >= GOALS["throughput"], "p99": ratios["p99"] <= GOALS["p99"],
           "memory_mib": ratios["memory_mib"] < GOALS["memory_mib"]}
    print(f"  vs nginx: throughput {ratios['throughput']:.2f}x (goal >= {GOALS['throughput']}x: "
          f"{'met' if met['throughput'] else 'MISSED'}), p99 {ratios['p99']:.2f}x (goal <= {GOALS['p99']}x: "
          f"{'met' if met['p99'] else 'MISSED'}), memory {ratios['memory_mib']:.1f} MiB (goal < "
          f"{GOALS['memory_mib']} MiB: {'met' if met['memory_mib'] else 'MISSED'})")
    return {"files": len(paths), "bytes": sum(sizes), "servers": results, "ratios": ratios, "goals_met": met}


def upload(args, store, url, env):
    shutil.rmtree(os.path.join(store, ".uploaded"), ignore_errors=True)  # the ledger: send everything
    argv = [args.symstore, "upload", store, "--to", url, "--protocol", "put", "-j", str(args.upload_jobs), "-q"]
    started = time.monotonic()
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=3600)
    seconds = time.monotonic() - started
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {p.returncode}: {p.stderr.strip()[-800:]}")
    return seconds


def bench_uploads(args, store, tmp):
    paths = symbol_files(store)
    total = sum(os.path.getsize(os.path.join(store, p)) for p in paths)
    tokens = os.path.join(tmp, "tokens")
    with open(tokens, "w") as fh:
        fh.write(f"{TOKEN} upload download\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env["SYMSTORE_TOKEN"] = TOKEN
    print(f"uploads: {len(paths)} .sym files, {total / MIB:.1f} MiB, symstore upload --protocol put "
          f"-j{args.upload_jobs}")
    results = {}
    for name in ("symstore serve", "nginx"):
        target = os.path.join(tmp, "upload-" + name.replace(" ", "-"))
        os.makedirs(target)
        if name == "nginx":
            server = Nginx(args.nginx, target, args.nginx_workers)
        else:
            server = Serve(args.symstore, target, "--quiet", "--tokens", tokens)
        with server:
            seconds = upload(args, store, server.url, env)
            peak = server.peak()
        landed = symbol_files(target)
        same = sum(1 for p in landed if os.path.isfile(os.path.join(store, p)) and
                   open(os.path.join(store, p), "rb").read() == open(os.path.join(target, p), "rb").read())
        results[name] = {"seconds": seconds, "files_per_second": len(paths) / seconds,
                         "mib_per_second": total / MIB / seconds, "landed": len(landed), "identical": same,
                         "peak_rss_mib": peak / MIB}
        print(f"  {name:15} {seconds:7.2f} s  {len(paths) / seconds:8.0f} files/s  {total / MIB / seconds:7.1f} MiB/s  "
              f"{same}/{len(paths)} landed byte-identical  peak RSS {peak / MIB:.1f} MiB")
        shutil.rmtree(target, ignore_errors=True)
    print(f"  vs nginx: {results['nginx']['seconds'] / results['symstore serve']['seconds']:.2f}x its upload rate")
    return {"files": len(paths), "bytes": total, "servers": results}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symstore", default=os.path.join(ROOT, "build", "tools", "symstore", "symstore"))
    parser.add_argument("--nginx", default="nginx")
    parser.add_argument("--store", help="an existing store directory (default: made from --release)")
    parser.add_argument("--release", default="/usr/lib/x86_64-linux-gnu")
    parser.add_argument("--max-files", type=int, default=400)
    parser.add_argument("--max-size", type=float, default=16, help="MiB, the largest library taken")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--serve-threads", type=int, default=0, help="symstore serve --threads (default: its own)")
    parser.add_argument("--nginx-workers", default="auto")
    parser.add_argument("--upload-jobs", type=int, default=8)
    parser.add_argument("--skip-uploads", action="store_true")
    parser.add_argument("--json", help="write the figures here too")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    with tempfile.TemporaryDirectory(prefix="serve-bench-") as tmp:
        store = make_store(args, tmp)
        figures = {"cores": os.cpu_count(), "downloads": bench_downloads(args, store, tmp)}
        if not args.skip_uploads:
            figures["uploads"] = bench_uploads(args, store, tmp)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(figures, fh, indent=2, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
