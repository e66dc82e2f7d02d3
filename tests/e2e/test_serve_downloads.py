#!/usr/bin/env python3
"""`symstore serve`'s downloads, asked by the real clients of every API
over loopback, each answer judged by an independent tool:

- curl for the HTTP details of the Breakpad/Tecken API: the .sym's bytes
  (cmp), HEAD's Content-Length, the id in lower case, gzip (gunzip's output
  equals the file; `curl --compressed` too), ranges (206 bytes equal the
  slice, 416 past the end, several ranges the whole file), 304 for
  If-None-Match and If-Modified-Since, 404 (never 403) for missing files and
  internal paths, 302 for both code-id forms (curl -L lands on the .sym).
- `symtool stackwalk --symbols-url` over the server equals the walk over the
  store directory (the crash program of the stack-walk test).
- debuginfod-find (DEBUGINFOD_URLS at the server, a fresh cache) gets the
  executable and the debug file byte for byte as `symstore add
  --keep-binaries` read them (build ids from readelf -n), and sections equal
  to readelf's offsets in the debug file (or the executable for a section
  the debug file holds as NOBITS); SSQP's ELF keys (elf-buildid-,
  elf-buildid-sym-) give the same two files.
- gdb on the stripped program with `set debuginfod enabled on` names the
  function and line as gdb on the unstripped program does; lldb-19 with its
  debuginfod symbol locator too, where lldb can here.
- dump_syms --symbol-server (SSQP paths), and _NT_SYMBOL_PATH=srv*CACHE*URL,
  dump a PE whose PDB only the server has into the same file as the PE and
  PDB side by side; the PDB and PE are fetched in lower case as SSQP clients
  ask."""
import filecmp
import json
import os
import re
import shutil
import subprocess
import tempfile

import common
import test_minidump as minidump
import test_stackwalk as walk
from serve_process import ServeProcess
from test_windows_symbol_servers import hide_pdb_path

PROGRAM = r"""
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) {
  return x * 3 + 1;
}
int main(int argc, char **argv) {
  (void)argv;
  printf("%d\n", leaf(argc));
  return 0;
}
"""


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


class Curl:
    """curl against the server: (status, {lower-case header: value}, body bytes)."""

    def __init__(self, url, tmp, cache):
        self.url, self.tmp, self.cache, self.count = url, tmp, cache, 0

    def __call__(self, path, *flags):
        self.count += 1
        out = os.path.join(self.tmp, f"curl.{self.count}.body")
        head = os.path.join(self.tmp, f"curl.{self.count}.head")
        p = subprocess.run(["curl", "-sS", "-o", out, "-D", head, "-w", "%{http_code}", *flags,
                            self.url + path], capture_output=True, text=True, timeout=120)
        headers = {}
        if os.path.exists(head):
            with open(head, encoding="latin-1") as fh:
                for line in fh:
                    if ":" in line:
                        key, value = line.split(":", 1)
                        headers[key.strip().lower()] = value.strip()
        body = open(out, "rb").read() if os.path.exists(out) else b""
        return int(p.stdout or 0), headers, body


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def build_id(path):
    out = sh("readelf", "-n", path).stdout
    match = re.search(r"Build ID: ([0-9a-f]+)", out)
    return match.group(1) if match else None


def main():
    args = common.arguments(lambda p: (p.add_argument("--symstore", required=True),
                                       p.add_argument("--symtool", required=True)))
    report = common.Report("serve_downloads")
    tmp = tempfile.mkdtemp()
    try:
        run(args, report, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report.finish()


def make_release(args, tmp):
    """The store: the stack-walk crash program, a program stripped with its
    debug file beside (kept for debuginfod), a PE and its PDB."""
    directory = walk.build(tmp, "gcc", "-fno-omit-frame-pointer")
    release = os.path.join(tmp, "release")
    debug_dir = os.path.join(tmp, "debug")
    os.makedirs(release)
    os.makedirs(debug_dir)
    source = os.path.join(tmp, "prog.c")
    with open(source, "w") as fh:
        fh.write(PROGRAM)
    full = os.path.join(tmp, "prog.full")
    sh("gcc", "-g", "-O1", "-Wl,--build-id=sha1", "-o", full, source, check=True)
    stripped = os.path.join(release, "prog")
    debug = os.path.join(debug_dir, "prog.debug")
    sh("objcopy", "--only-keep-debug", full, debug, check=True)
    sh("objcopy", "--strip-debug", f"--add-gnu-debuglink={debug}", full, stripped, check=True)
    pdb_dir = os.path.join(args.fixtures, "pdb")
    stem = "alt.x86_64.O2"
    for ext in (".exe", ".pdb"):
        shutil.copy(os.path.join(pdb_dir, stem + ext), release)
    store = os.path.join(tmp, "store")
    for what in (directory, release):
        p = sh(args.symstore, "add", store, what, "--keep-binaries", "--debug-dir", debug_dir,
               "--no-debuginfod", "-q")
        if p.returncode != 0:
            raise SystemExit(f"symstore add {what}: {p.stderr.strip()}")
    return directory, store, full, stripped, debug, os.path.join(release, stem)


def run(args, report, tmp):
    directory, store, full, stripped, debug, pe_stem = make_release(args, tmp)
    cache = os.path.join(tmp, "serve-cache")
    with ServeProcess(args.symstore, store, "--cache-dir", cache) as server:
        curl = Curl(server.url, tmp, cache)
        check_http(report, store, curl)
        check_code_id(report, store, curl, pe_stem)
        check_elf_code_id(report, store, curl, stripped)
        check_stackwalk(args, report, tmp, store, directory, server.url)
        check_debuginfod(report, tmp, server.url, curl, full, stripped, debug)
        check_gdb(report, tmp, server.url, full, stripped)
        check_lldb(report, tmp, server.url, full, stripped)
        check_ssqp(args, report, tmp, server.url, curl, pe_stem)
        routes = {line.split()[-1] for line in server.access_lines() if line.split()}
        for route in ("breakpad", "code-id", "debuginfod", "ssqp"):
            if route not in routes:
                report.fail(f"no access log line names the route {route}: {sorted(routes)}")


def symbol_files(store):
    found = []
    for root, dirs, files in os.walk(store):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            path = os.path.join(root, name)
            if name.endswith(".sym") and not os.path.islink(path):
                found.append(os.path.relpath(path, store))
    return sorted(found)


def check_http(report, store, curl):
    files = symbol_files(store)
    if len(files) < 4:
        report.fail(f"the store holds only {files}")
        return
    for relative in files:
        want = read(os.path.join(store, relative))
        status, headers, body = curl("/" + relative)
        if status != 200 or body != want or not headers.get("content-type", "").startswith("text/plain"):
            report.fail(f"GET {relative}: {status} {headers.get('content-type')}, "
                        f"{'same' if body == want else 'other'} bytes")
        # (curl -I writes the headers where the body would go)
        status, headers, _ = curl("/" + relative, "-I")
        if status != 200 or headers.get("content-length") != str(len(want)):
            report.fail(f"HEAD {relative}: {status}, Content-Length {headers.get('content-length')}")
    report.note(f"{len(files)} symbol files fetched byte for byte")

    relative = max(files, key=lambda f: os.path.getsize(os.path.join(store, f)))
    want = read(os.path.join(store, relative))
    path = "/" + relative
    name, ident, leaf = relative.split("/")
    status, _, body = curl(f"/{name}/{ident.lower()}/{leaf}")
    if status != 200 or body != want:
        report.fail(f"the id in lower case: {status}")

    # gzip, compressed once: gunzip's output is the file.
    status, gzipped, packed = curl(path, "-H", "Accept-Encoding: gzip")
    if status != 200 or gzipped.get("content-encoding") != "gzip" or \
            "accept-encoding" not in gzipped.get("vary", "").lower():
        report.fail(f"gzip: {status} {gzipped}")
    else:
        gz = os.path.join(curl.tmp, "body.gz")
        with open(gz, "wb") as fh:
            fh.write(packed)
        p = subprocess.run(["gunzip", "-c", gz], capture_output=True)
        if p.returncode != 0 or p.stdout != want:
            report.fail(f"gunzip of the gzip answer is not the file: {p.stderr[:200]}")
        report.note(f"gzip: {len(want)} bytes sent as {len(packed)}")
    status, _, body = curl(path, "--compressed")
    if status != 200 or body != want:
        report.fail(f"curl --compressed: {status}, {'same' if body == want else 'other'} bytes")
    # Compressed once: the same bytes and tag again, and one copy in the cache.
    status, again, repacked = curl(path, "-H", "Accept-Encoding: gzip")
    if repacked != packed or again.get("etag") != gzipped.get("etag"):
        report.fail("a second gzip answer differs from the first")
    copies = [f for _, _, files in os.walk(curl.cache) for f in files]
    if len(copies) != 1:
        report.fail(f"gzip copies in the server's cache: {copies} (want one)")

    # Ranges.
    status, headers, body = curl(path, "-r", "100-199")
    if status != 206 or body != want[100:200] or \
            headers.get("content-range") != f"bytes 100-199/{len(want)}":
        report.fail(f"range 100-199: {status} {headers.get('content-range')}")
    status, headers, body = curl(path, "-r", "-50")
    if status != 206 or body != want[-50:]:
        report.fail(f"range -50: {status}")
    status, headers, body = curl(path, "-r", f"{len(want)}-")
    if status != 416 or headers.get("content-range") != f"bytes */{len(want)}":
        report.fail(f"range past the end: {status} {headers.get('content-range')}")
    status, headers, body = curl(path, "-r", "0-9,20-29")
    if status != 200 or body != want:
        report.fail(f"two ranges: {status} (want the whole file, 200)")

    # Validators.
    status, headers, _ = curl(path)
    etag, modified = headers.get("etag"), headers.get("last-modified")
    if not etag or not modified:
        report.fail(f"no ETag/Last-Modified: {headers}")
    else:
        status, _, body = curl(path, "-H", f"If-None-Match: {etag}")
        if status != 304 or body:
            report.fail(f"If-None-Match: {status}")
        status, _, body = curl(path, "-H", f"If-Modified-Since: {modified}")
        if status != 304 or body:
            report.fail(f"If-Modified-Since: {status}")
        status, _, _ = curl(path, "-H", "If-None-Match: \"other\"")
        if status != 200:
            report.fail(f"If-None-Match of another tag: {status}")

    # Missing and internal: 404, never 403.
    # Traversal in every spelling: decoded once by the server, refused by
    # the path check or naming nothing; a link in the store leading out of
    # it is absent.
    secret = os.path.join(os.path.dirname(store), "secret.sym")
    with open(secret, "w") as fh:
        fh.write("MODULE Linux x86_64 0 secret\n")
    os.makedirs(os.path.join(store, "evil", "ID"))
    os.symlink(secret, os.path.join(store, "evil", "ID", "evil.sym"))
    os.symlink("../../../secret.sym", os.path.join(store, "evil", "ID", "relative.sym"))
    missing = [f"/{name}/{'0' * 33}/{leaf}", "/nothing/ID/nothing.sym", f"/{name}/{ident}/other.sym",
               "/.build-id/00/11", "/.incoming/x/y", f"/{name}/%2e%2e/{leaf}", "/buildid/00/debuginfo",
               "/buildid/0011/section/.text", "/a/b/c/d", "/%2e%2e/%2e%2e/secret.sym",
               "/%252e%252e/x/secret.sym", "/..%5c..%5c/x/secret.sym", "/%c0%ae%c0%ae/x/secret.sym",
               "//etc/passwd", "/evil/ID/evil.sym", "/evil/ID/relative.sym", "/evil/id/EVIL.sym",
               f"/{name}/{ident}/..%2f..%2f{leaf}", f"/{name}/{ident}/%00{leaf}"]
    for path in missing:
        status, _, body = curl(path, "--path-as-is")
        if status != 404 or body.count(b"\n") != 1:
            report.fail(f"{path}: {status} {body[:80]!r} (want 404 and one line)")


def check_code_id(report, store, curl, pe_stem):
    sym = open(os.path.join(store, symbol_files_of(store, os.path.basename(pe_stem) + ".pdb")[0])).read()
    first = sym.splitlines()[:2]
    debug_id, debug_file = first[0].split()[3], first[0].split()[4]
    code_id, code_file = first[1].split()[2], first[1].split()[3]
    target = f"/{debug_file}/{debug_id}/{debug_file[:-4]}.sym"
    for path in (f"/{code_file}/{code_id}/{code_file}.sym", f"/{code_file}/{code_id}/{debug_file[:-4]}.sym",
                 f"/{code_file}/{code_id.lower()}/{debug_file[:-4]}.sym"):
        status, headers, _ = curl(path)
        if status != 302 or headers.get("location") != target:
            report.fail(f"code id {path}: {status} to {headers.get('location')} (want 302 to {target})")
        status, _, body = curl(path, "-L")
        if status != 200 or body.decode() != sym:
            report.fail(f"code id {path} followed: {status}")


def check_elf_code_id(report, store, curl, stripped):
    """An ELF module asked by its code id (the build id readelf reads)
    is sent to its debug-id path through the kept files' build-id entry."""
    relative = symbol_files_of(store, "prog")[0]
    status, headers, _ = curl(f"/prog/{build_id(stripped)}/prog.sym")
    if status != 302 or headers.get("location") != "/" + relative:
        report.fail(f"ELF code id: {status} to {headers.get('location')} (want 302 to /{relative})")


def symbol_files_of(store, module):
    return [f for f in symbol_files(store) if f.split("/")[0] == module]


def check_stackwalk(args, report, tmp, store, directory, url):
    gcore = os.path.join(directory, "gcore.lib")
    walk.gdb_oracle(directory, gcore, os.path.join(directory, "gdb.lib.json"), "lib")
    dump = os.path.join(directory, "lib.dmp")
    minidump.to_minidump(gcore, dump)
    local = sh(args.symtool, "stackwalk", "--json", "--store", store, dump)
    served = sh(args.symtool, "stackwalk", "--json", "--symbols-url", url, "--symbols-cache",
                os.path.join(tmp, "walk-cache"), dump)
    if local.returncode != 0 or served.returncode != 0:
        report.fail(f"stackwalk: exit {local.returncode}/{served.returncode}: {served.stderr[-300:]}")
        return
    mine, theirs = json.loads(local.stdout), json.loads(served.stdout)
    frames = lambda w: [[(f.get("module"), f.get("function"), f.get("line"), f.get("trust"))
                         for f in t["frames"]] for t in w["threads"]]
    status = lambda w: {m["name"]: m["symbols"] for m in w["modules"]}
    if frames(mine) != frames(theirs) or status(mine) != status(theirs):
        report.fail(f"the walk over the server differs: {frames(theirs)} != {frames(mine)}")
    named = sum(1 for t in frames(theirs) for f in t if f[1])
    if status(theirs).get("walker") != "loaded" or status(theirs).get("libwalk.so") != "loaded" or not named:
        report.fail(f"the walk over the server loaded {status(theirs)}")
    report.note(f"stackwalk over the server: {sum(len(t) for t in frames(theirs))} frames, "
                f"{named} named, equal to the directory's")


def debuginfod_env(tmp, url, name):
    cache = os.path.join(tmp, f"debuginfod-{name}")
    return dict(os.environ, DEBUGINFOD_URLS=url, DEBUGINFOD_CACHE_PATH=cache, DEBUGINFOD_TIMEOUT="30",
                DEBUGINFOD_PROGRESS="0", XDG_CACHE_HOME=cache)


def check_debuginfod(report, tmp, url, curl, full, stripped, debug):
    ident = build_id(stripped)
    if not ident or build_id(debug) != ident:
        report.fail(f"readelf: build ids {ident} / {build_id(debug)}")
        return
    env = debuginfod_env(tmp, url, "find")
    for kind, want in (("executable", stripped), ("debuginfo", debug)):
        p = sh("debuginfod-find", kind, ident, env=env)
        got = p.stdout.strip()
        if p.returncode != 0 or not os.path.isfile(got) or not filecmp.cmp(got, want, shallow=False):
            report.fail(f"debuginfod-find {kind}: exit {p.returncode}: {p.stderr.strip()[:200]}")
    checked = 0
    for name, holder in ((".debug_info", debug), (".debug_line", debug), (".text", stripped)):
        span = common.section(holder, name)
        p = sh("debuginfod-find", "section", ident, name, env=env)
        got = p.stdout.strip()
        if span is None or p.returncode != 0 or not os.path.isfile(got):
            report.fail(f"debuginfod-find section {name}: exit {p.returncode}: {p.stderr.strip()[:200]}")
            continue
        offset, size = span
        if read(got) != read(holder)[offset:offset + size]:
            report.fail(f"section {name}: not the bytes readelf places at {offset:#x}+{size:#x}")
        checked += 1
    p = sh("debuginfod-find", "section", ident, ".bss", env=env)
    if p.returncode == 0:
        report.fail("debuginfod-find section .bss (NOBITS everywhere) found something")
    p = sh("debuginfod-find", "debuginfo", "00" * 20, env=env)
    if p.returncode == 0:
        report.fail("debuginfod-find of an unknown build id found something")
    report.note(f"debuginfod-find: executable, debuginfo and {checked} sections byte-equal")
    # The same files by SSQP's keys for ELF (WinDbg, Visual Studio, dotnet-symbol).
    for path, want in ((f"/prog/elf-buildid-{ident}/prog", stripped),
                       (f"/_.debug/elf-buildid-sym-{ident}/_.debug", debug)):
        status, _, body = curl(path)
        if status != 200 or body != read(want):
            report.fail(f"SSQP {path}: {status}")


def gdb_lines(program, env):
    p = sh("gdb", "-batch", "-nx", "-iex", "set debuginfod enabled on", "-ex", "info line leaf",
           "-ex", "break leaf", "-ex", "run", "-ex", "bt", program, env=env)
    text = p.stdout
    keep = [re.sub(r"0x[0-9a-f]+", "ADDR", line) for line in text.splitlines()
            if line.startswith(("Line ", "#", "Breakpoint 1 at"))]
    return keep, text + p.stderr


def check_gdb(report, tmp, url, full, stripped):
    want, _ = gdb_lines(full, dict(os.environ, DEBUGINFOD_URLS=""))
    got, text = gdb_lines(stripped, debuginfod_env(tmp, url, "gdb"))
    # The control: without the server gdb cannot name the line.
    alone, _ = gdb_lines(stripped, dict(os.environ, DEBUGINFOD_URLS=""))
    if alone == want:
        report.fail(f"gdb names the lines of the stripped program without the server: {alone}")
    if not want or not any("leaf" in line and "prog.c" in line for line in want):
        report.fail(f"gdb on the unstripped program names nothing: {want}")
    elif got != want:
        report.fail(f"gdb with debuginfod: {got} != {want}: {text[-400:]}")
    else:
        report.note(f"gdb with debuginfod: {len(got)} lines as with the unstripped program")


def lldb_lookup(program, env, url=None):
    commands = []
    if url:
        commands += ["-o", f"settings set plugin.symbol-locator.debuginfod.server-urls {url}"]
    commands += ["-o", f"target create {program}", "-o", "image lookup -n leaf"]
    p = sh("lldb-19", "-b", "--no-lldbinit", *commands, env=env)
    return [l.strip() for l in p.stdout.splitlines() if "Summary:" in l], p.stdout + p.stderr


def check_lldb(report, tmp, url, full, stripped):
    want, _ = lldb_lookup(full, dict(os.environ))
    got, text = lldb_lookup(stripped, debuginfod_env(tmp, url, "lldb"), url)
    alone, _ = lldb_lookup(stripped, debuginfod_env(tmp, "", "lldb-alone"))
    if "prog.c" in " ".join(alone):
        report.fail(f"lldb-19 names the line of the stripped program without the server: {alone}")
    if not want or "prog.c" not in " ".join(want):
        report.note(f"lldb-19 names no line here even without debuginfod: not checked ({want})")
        return
    if [re.sub(r"prog\.\w+", "prog", l) for l in got] != [re.sub(r"prog\.\w+", "prog", l) for l in want]:
        report.fail(f"lldb-19 with debuginfod: {got} != {want}: {text[-400:]}")
    else:
        report.note(f"lldb-19 with debuginfod: {got[0]}")


def check_ssqp(args, report, tmp, url, curl, pe_stem):
    exe, pdb = pe_stem + ".exe", pe_stem + ".pdb"
    hidden_dir = os.path.join(tmp, "pes")
    os.makedirs(hidden_dir)
    hidden = os.path.join(hidden_dir, os.path.basename(exe))
    hide_pdb_path(exe, hidden)
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "ssqp-cache"))
    env.pop("_NT_SYMBOL_PATH", None)
    want = sh(args.dump_syms, hidden, "--debug-file", pdb, env=env)
    got = sh(args.dump_syms, "--symbol-server", url, hidden, env=env)
    if want.returncode != 0 or got.returncode != 0 or got.stdout != want.stdout:
        report.fail(f"dump_syms --symbol-server: exit {got.returncode}, "
                    f"{'same' if got.stdout == want.stdout else 'other'} file: {got.stderr.strip()[:300]}")
    else:
        report.note(f"dump_syms --symbol-server: the PDB fetched, {len(got.stdout)} bytes as beside the PE")
    # Microsoft's own spelling of the same server: srv*CACHE*URL.
    nt_env = dict(env, _NT_SYMBOL_PATH=f"srv*{os.path.join(tmp, 'nt-cache')}*{url}",
                  XDG_CACHE_HOME=os.path.join(tmp, "ssqp-cache-nt"))
    got = sh(args.dump_syms, hidden, env=nt_env)
    if got.returncode != 0 or got.stdout != want.stdout:
        report.fail(f"_NT_SYMBOL_PATH=srv*...*{url}: exit {got.returncode}, "
                    f"{'same' if got.stdout == want.stdout else 'other'} file: {got.stderr.strip()[:300]}")
    header = want.stdout.splitlines()[:2]
    debug_id = header[0].split()[3]
    code_id = header[1].split()[2]
    pdb_name, exe_name = os.path.basename(pdb), os.path.basename(exe)
    for path, file in ((f"/{pdb_name.lower()}/{debug_id.lower()}/{pdb_name.lower()}", pdb),
                       (f"/{exe_name.lower()}/{code_id.lower()}/{exe_name.lower()}", exe)):
        status, headers, body = curl(path)
        if status != 200 or body != read(file) or headers.get("content-type") != "application/octet-stream":
            report.fail(f"SSQP {path}: {status} {headers.get('content-type')}")


if __name__ == "__main__":
    main()
