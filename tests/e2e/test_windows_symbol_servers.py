#!/usr/bin/env python3
"""PDBs and PEs from Windows symbol servers and stores (--symbol-server,
_NT_SYMBOL_PATH), against a loopback HTTP server this test starts (and
stops) over a store it lays out from the PE/PDB fixtures, as Microsoft's
symstore does: `<pdb>/<GUID><age>/<pdb>`, `<exe>/<TIMESTAMP><SIZE>/<exe>`.

The PEs are copies whose CodeView record names a PDB path that does not
exist here, so that only the symbol path can find the PDB. Every dump made
through a server must be the very file the same PE and PDB give side by
side (`--debug-file`). Cases: a plain PDB; only its cabinet (`.pd_`, made by
Debian's gcab); a `file.ptr` redirect; 503s retried; a dead server first
(reported once, the walk goes on); `_NT_SYMBOL_PATH` with `cache*DIR` and
`srv*CACHE*URL`, then again with the server stopped (served from the
cache, nothing fetched twice); a plain store directory; a PDB on no server
(the PE alone, with the warning); a PDB's PE fetched by --code-id;
`symstore add --symbol-server`.
"""
import http.server
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading

import common


class Store(http.server.SimpleHTTPRequestHandler):
    """Serves the store; counts requests; fails a path N times first."""
    counts = {}
    fail_first = {}  # path -> 503s still to answer

    def __init__(self, *a, **k):
        super().__init__(*a, directory=self.root, **k)

    def do_GET(self):
        path = self.path
        Store.counts[path] = Store.counts.get(path, 0) + 1
        if Store.fail_first.get(path, 0) > 0:
            Store.fail_first[path] -= 1
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()

    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def module_id(args, path):
    out = subprocess.run([args.dump_syms, "-i", path], capture_output=True, text=True, check=True).stdout
    return out.split()[3]


def hide_pdb_path(pe, out):
    """A copy of `pe` whose CodeView record names a PDB path that does not
    exist (same length, same file name)."""
    data = bytearray(open(pe, "rb").read())
    at = data.find(b"RSDS")
    start = at + 24
    end = data.index(b"\0", start)
    path = data[start:end].decode()
    cut = max(path.rfind("/"), path.rfind("\\"))
    hidden = "/" + "x" * (cut - 1) + path[cut:] if cut > 0 else path
    data[start:end] = hidden.encode()
    with open(out, "wb") as fh:
        fh.write(data)


def dump(args, *argv, env=None):
    p = subprocess.run([args.dump_syms, *argv], capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def main():
    args = common.arguments(lambda p: p.add_argument("--symstore", required=True))
    report = common.Report("windows_symbol_servers")
    pdb_dir = os.path.join(args.fixtures, "pdb")
    work = tempfile.mkdtemp()
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "xdg"))
    env.pop("_NT_SYMBOL_PATH", None)
    root = os.path.join(work, "server")
    pes = os.path.join(work, "pes")
    os.makedirs(pes)
    cases = {"plain": "alt.x86_64.O2", "cab": "app.x86.O2.fp", "ptr": "shapes.x86_64.O2.fp",
             "retried": "app.x86_64.O2.nofp", "missing": "app.x86.O0.fp"}
    expected = {}
    for case, stem in cases.items():
        exe = os.path.join(pdb_dir, stem + ".exe")
        pdb = os.path.join(pdb_dir, stem + ".pdb")
        if not os.path.exists(exe):
            raise SystemExit(f"fixture {exe} is missing")
        hide_pdb_path(exe, os.path.join(pes, stem + ".exe"))
        rc, text, err = dump(args, os.path.join(pes, stem + ".exe"), "--debug-file", pdb, env=env)
        if rc != 0:
            raise SystemExit(f"{stem}: {err}")
        expected[case] = text
        key = module_id(args, pdb).upper()
        keyed = os.path.join(root, stem + ".pdb", key)
        os.makedirs(keyed)
        if case in ("plain", "retried"):
            shutil.copy(pdb, keyed)
        elif case == "cab":
            subprocess.run(["gcab", "-c", "-z", "-n", os.path.join(keyed, stem + ".pd_"), pdb], check=True)
        elif case == "ptr":
            kept = os.path.join(work, "elsewhere", stem + ".pdb")
            os.makedirs(os.path.dirname(kept))
            shutil.copy(pdb, kept)
            with open(os.path.join(keyed, "file.ptr"), "w") as fh:
                fh.write(f"PATH:{kept}\n")
        if case == "retried":
            Store.fail_first[f"/{stem}.pdb/{key}/{stem}.pdb"] = 2
    # The PE of alt.x86_64.O2, by code id, for a PDB given alone.
    alt_exe = os.path.join(pdb_dir, "alt.x86_64.O2.exe")
    code_id = [l.split()[2] for l in expected["plain"].splitlines() if l.startswith("INFO CODE_ID")][0]
    os.makedirs(os.path.join(root, "alt.x86_64.O2.exe", code_id))
    shutil.copy(alt_exe, os.path.join(root, "alt.x86_64.O2.exe", code_id))

    Store.root = root
    port = free_port()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Store)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    dead = f"http://127.0.0.1:{free_port()}"
    try:
        # --symbol-server: plain, cabinet, file.ptr, 503s retried.
        for case in ("plain", "cab", "ptr", "retried"):
            stem = cases[case]
            rc, text, err = dump(args, "-v", "--symbol-server", url, os.path.join(pes, stem + ".exe"), env=env)
            if rc != 0 or text != expected[case]:
                report.fail(f"{case} ({stem}): exit {rc}, {'same' if text == expected[case] else 'different'} "
                            f"file: {err.strip()[:300]}")
        # Again, with the same cache: nothing is fetched twice.
        before = dict(Store.counts)
        for case in ("plain", "cab", "ptr"):
            stem = cases[case]
            rc, text, err = dump(args, "--symbol-server", url, os.path.join(pes, stem + ".exe"), env=env)
            if rc != 0 or text != expected[case]:
                report.fail(f"{case} again: exit {rc}: {err.strip()[:300]}")
        again = {p: n - before.get(p, 0) for p, n in Store.counts.items() if n != before.get(p, 0)}
        if again:
            report.fail(f"fetched again although cached: {again}")
        retried = [n for p, n in Store.counts.items() if p.startswith(f"/{cases['retried']}.pdb/")]
        if retried != [3]:
            report.fail(f"503s: {retried} requests (want 3: two 503s, then the file)")

        # A dead server first: reported once, the dump goes on.
        stem = cases["plain"]
        cache_env = dict(env, XDG_CACHE_HOME=os.path.join(work, "xdg2"))
        rc, text, err = dump(args, "-v", "--symbol-server", dead, "--symbol-server", url,
                             os.path.join(pes, stem + ".exe"), env=cache_env)
        if rc != 0 or text != expected["plain"] or err.count("going on without it") != 1:
            report.fail(f"dead server first: exit {rc}: {err.strip()[:400]}")

        # _NT_SYMBOL_PATH: cache*C1 then srv*C2*URL: C1 caches what the server gives.
        c1, c2 = os.path.join(work, "c1"), os.path.join(work, "c2")
        nt_env = dict(env, _NT_SYMBOL_PATH=f"cache*{c1};srv*{c2}*{url}")
        before = dict(Store.counts)
        for case in ("plain", "cab"):
            stem = cases[case]
            rc, text, err = dump(args, os.path.join(pes, stem + ".exe"), env=nt_env)
            key = module_id(args, os.path.join(pdb_dir, stem + ".pdb")).upper()
            cached = os.path.join(c1, stem + ".pdb", key, stem + ".pdb")
            if rc != 0 or text != expected[case] or not os.path.isfile(cached):
                report.fail(f"_NT_SYMBOL_PATH {case}: exit {rc}, cached {os.path.isfile(cached)}: {err.strip()[:300]}")
        fetched = sum(Store.counts.get(p, 0) - before.get(p, 0) for p in Store.counts)
        report.note(f"_NT_SYMBOL_PATH: {fetched} requests for 2 PDBs (the cabinet after a 404)")

        # A PDB's PE by --code-id.
        alone = os.path.join(work, "alone")
        os.makedirs(alone)
        shutil.copy(os.path.join(pdb_dir, "alt.x86_64.O2.pdb"), alone)
        rc, text, err = dump(args, "--symbol-server", url, "--code-id", code_id,
                             "--code-file", "alt.x86_64.O2.exe", os.path.join(alone, "alt.x86_64.O2.pdb"), env=env)
        rc2, with_pe, _ = dump(args, alt_exe, "--debug-file", os.path.join(pdb_dir, "alt.x86_64.O2.pdb"), env=env)
        if rc != 0 or text != with_pe:
            report.fail(f"--code-id: exit {rc}: the dump is not the PE and PDB's: {err.strip()[:300]}")

        # symstore add --symbol-server: the PE's PDB from the server.
        store = os.path.join(work, "store")
        manifest = os.path.join(work, "manifest.json")
        release = os.path.join(work, "release")
        os.makedirs(release)
        shutil.copy(os.path.join(pes, cases["ptr"] + ".exe"), release)
        p = subprocess.run([args.symstore, "add", "--manifest", manifest, "--symbol-server", url, store, release],
                           capture_output=True, text=True, env=env)
        entry = json.load(open(manifest))["entries"][0] if os.path.exists(manifest) else {}
        if p.returncode != 0 or entry.get("status") != "written" or \
                open(os.path.join(store, entry["sym"])).read() != expected["ptr"]:
            report.fail(f"symstore add --symbol-server: exit {p.returncode}, {entry}: {p.stderr[-300:]}")

        # A PDB no server has: the PE alone, the warning says where it looked.
        rc, text, err = dump(args, "-v", "--symbol-server", url, os.path.join(pes, cases["missing"] + ".exe"), env=env)
        if rc != 0 or "not on the symbol path" not in err or "written from the PE alone" not in err:
            report.fail(f"missing PDB: exit {rc}: {err.strip()[:300]}")
    finally:
        server.shutdown()
        server.server_close()

    try:
        # The server stopped: served from the caches, nothing fetched.
        for case in ("plain", "cab"):
            stem = cases[case]
            rc, text, err = dump(args, os.path.join(pes, stem + ".exe"), env=nt_env)
            if rc != 0 or text != expected[case]:
                report.fail(f"from the cache ({case}), server stopped: exit {rc}: {err.strip()[:300]}")
        # A plain store directory on the symbol path (no HTTP at all).
        dir_env = dict(env, _NT_SYMBOL_PATH=root)
        rc, text, err = dump(args, os.path.join(pes, cases["plain"] + ".exe"), env=dir_env)
        if rc != 0 or text != expected["plain"]:
            report.fail(f"a store directory on _NT_SYMBOL_PATH: exit {rc}: {err.strip()[:300]}")
        report.note(f"{sum(Store.counts.values())} requests in all: {len(Store.counts)} paths")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
