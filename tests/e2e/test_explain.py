#!/usr/bin/env python3
"""Where symbols were looked for: `symtool stackwalk --explain` and
`minidump_stackwalk -v` print, per module, every store path, cache path and
URL tried, in order, and what each answered.

The crash program of the stack-walk test (gcc, its library crashing), taken
as a gdb core. Its symbols are split: the program in a first store, the
library in a second only, libc on an HTTP server this test starts on a free
loopback port (which records every request). The expected lines are built
here from the store layout and the modules' ids as readelf reads the
build-id notes, and the URLs the explanation names must be the requests the
server saw, in the same order:
- the library: missing in the first store, found in the second;
- libc: missing in both stores (by debug id, under any name, by code id),
  not in the cache, then fetched (HTTP 200); a second walk finds it in the
  cache and asks nothing;
- with a server that answers 404: each URL says HTTP 404; a walk after it
  says the misses are remembered and sends nothing;
- an unreadable symbol file and one whose MODULE record has another id are
  said so;
- minidump_stackwalk -v prints the same lines as symtool for the same
  stores, and its stdout is the same with and without -v; so does
  microdump_stackwalk -v for the crash written as a microdump;
- every module of the dump has a line, in the dump's order; two walks print
  the same lines."""
import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading

import test_microdump as microdump
import test_stackwalk as walk
from common import Report, arguments

LOOPBACK = "127.0.0.1"


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


class SymbolServer:
    """Serves files from `root` (404 for the rest, or for everything when
    `missing_all`), recording each request path."""

    def __init__(self, root):
        self.root = root
        self.missing_all = False
        self.requests = []
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                owner.requests.append(self.path)
                path = os.path.join(owner.root, self.path.lstrip("/"))
                if owner.missing_all or ".." in self.path or not os.path.isfile(path):
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                with open(path, "rb") as fh:
                    body = fh.read()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_):
                pass

        self.httpd = http.server.ThreadingHTTPServer((LOOPBACK, 0), Handler)
        self.url = f"http://{LOOPBACK}:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.httpd.shutdown()
        self.httpd.server_close()


def build_id(path):
    """The GNU build-id note's bytes, as readelf prints them."""
    for line in sh("readelf", "-n", path).stdout.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    raise SystemExit(f"{path}: no build-id note")


def breakpad_id(build):
    """Breakpad's debug id of an ELF file: the build-id's first 16 bytes as
    a GUID (the first three fields byte-swapped), then age 0."""
    raw = bytes.fromhex(build)[:16].ljust(16, b"\0")
    guid = raw[3::-1] + raw[5:3:-1] + raw[7:5:-1] + raw[8:]
    return guid.hex().upper() + "0"


def explained(stderr, prefix):
    return [line[len(prefix):] for line in stderr.splitlines() if line.startswith(prefix)]


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--symstore", required=True),
                                p.add_argument("--minidump-stackwalk", required=True),
                                p.add_argument("--microdump-stackwalk", required=True)))
    report = Report("symbol search explained")
    with tempfile.TemporaryDirectory() as tmp:
        run(args, report, tmp)
    report.finish()


def run(args, report, tmp):
    directory = walk.build(tmp, "gcc", "-fno-omit-frame-pointer")
    core = os.path.join(directory, "gcore.lib")
    walk.gdb_oracle(directory, core, os.path.join(directory, "gdb.lib.json"), "lib")
    store = os.path.join(tmp, "store")
    p = sh(args.symstore, "add", store, directory, "-d", "-q")
    if p.returncode != 0:
        report.fail(f"symstore add: {p.stderr.strip()}")
        return

    # The modules' ids from readelf, not from our symbol files.
    ids = {}
    for name in ("walker", "libwalk.so", "libc.so.6"):
        build = build_id(os.path.join(directory, name))
        ids[name] = (breakpad_id(build), build)
    for name, (debug_id, _) in ids.items():
        if not os.path.isdir(os.path.join(store, name, debug_id)):
            report.fail(f"the store has no {name}/{debug_id}: {os.listdir(os.path.join(store, name))}")
            return

    first, second, served = (os.path.join(tmp, d) for d in ("first", "second", "served"))
    for target, name in ((first, "walker"), (second, "libwalk.so"), (served, "libc.so.6")):
        shutil.copytree(os.path.join(store, name), os.path.join(target, name))
    bundled = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.symtool))),
                           "share", "dump_syms", "symbols")
    searched = [first, second] + ([bundled] if os.path.isdir(bundled) else [])

    def sym(root, name, debug_id=None):
        return f"{root}/{name}/{debug_id or ids[name][0]}/{name}.sym"

    def code_paths(root, name):
        build = ids[name][1]
        forms = [build] + ([build.upper()] if build.upper() != build else [])
        return [f"{root}/{name}/{form}/{name}.sym" for form in forms]

    def label(name):
        return f"module {name} ({name} {ids[name][0]})"

    def stackwalk(*flags):
        p = sh(args.symtool, "stackwalk", "--json", "--explain", *flags, core)
        if p.returncode != 0:
            report.fail(f"symtool stackwalk {flags}: exit {p.returncode}: {p.stderr.strip()}")
            return None, []
        return json.loads(p.stdout), explained(p.stderr, "symtool: ")

    def lines_of(lines, name):
        return [line[len(label(name)) + 2:] for line in lines if line.startswith(label(name) + ": ")]

    def expect(what, got, want):
        if got != want:
            report.fail(f"{what}:\n      got  {got}\n      want {want}")

    libc_local = ([f"{sym(root, 'libc.so.6')}: missing" for root in searched] +
                  [f"{root}/*/{ids['libc.so.6'][0]}/*.sym: missing" for root in searched] +
                  [f"{path}: missing" for root in searched for path in code_paths(root, "libc.so.6")])

    def libc_cache(cache, found=False):
        paths = [sym(cache, "libc.so.6")] + code_paths(cache, "libc.so.6")
        if found:
            return [f"{paths[0]}: found in the symbol cache"]
        return [f"{path}: not in the symbol cache" for path in paths]

    def libc_urls(url):
        relative = [sym("", "libc.so.6")] + code_paths("", "libc.so.6")
        return [f"{url}{path}" for path in relative]

    stores = ["--store", first, "--store", second]
    cache = os.path.join(tmp, "cache")
    with SymbolServer(served) as server:
        ours, lines = stackwalk(*stores, "--symbols-url", server.url, "--symbols-cache", cache)
        if ours is None:
            return
        expect("the program", lines_of(lines, "walker"), [f"{sym(first, 'walker')}: found"])
        expect("the library", lines_of(lines, "libwalk.so"),
               [f"{sym(first, 'libwalk.so')}: missing", f"{sym(second, 'libwalk.so')}: found"])
        urls = libc_urls(server.url)
        expect("libc from the server", lines_of(lines, "libc.so.6"),
               libc_local + libc_cache(cache) + [f"{urls[0]}: found (HTTP 200)"])
        expect("the requests", [server.url + r for r in server.requests], urls[:1])
        # Every module has a line, in the dump's order.
        names = [m["name"] for m in ours["modules"]]
        told = []
        for line in lines:
            name = line.split(" ")[1]
            if not told or told[-1] != name:
                told.append(name)
        expect("the modules explained, in order", told, names)

        # The same walk again: from the cache, nothing asked.
        asked = len(server.requests)
        _, again = stackwalk(*stores, "--symbols-url", server.url, "--symbols-cache", cache)
        expect("libc from the cache", lines_of(again, "libc.so.6"),
               libc_local + libc_cache(cache, found=True))
        expect("requests from the cache", server.requests[asked:], [])

        # A server without it: 404 for each URL, then remembered misses.
        server.missing_all = True
        empty = os.path.join(tmp, "cache404")
        asked = len(server.requests)
        _, lines = stackwalk(*stores, "--symbols-url", server.url, "--symbols-cache", empty)
        expect("libc not on the server", lines_of(lines, "libc.so.6"),
               libc_local + libc_cache(empty) + [f"{u}: HTTP 404 (not there)" for u in urls])
        expect("the 404 requests", [server.url + r for r in server.requests[asked:]], urls)
        asked = len(server.requests)
        _, remembered = stackwalk(*stores, "--symbols-url", server.url, "--symbols-cache", empty)
        expect("remembered misses", lines_of(remembered, "libc.so.6"),
               libc_local + libc_cache(empty) +
               [f"{u}: not asked: its miss is remembered in the symbol cache" for u in urls])
        expect("requests for remembered misses", server.requests[asked:], [])
        _, twice = stackwalk(*stores, "--symbols-url", server.url, "--symbols-cache", empty)
        expect("a second identical walk", twice, remembered)

    # An unreadable file, and one whose MODULE record has another id.
    bad = os.path.join(tmp, "bad")
    os.makedirs(os.path.dirname(sym(bad, "libwalk.so")))
    with open(sym(bad, "libwalk.so"), "wb") as fh:
        fh.write(b"\x7fELF not a symbol file\n" * 4)
    os.makedirs(os.path.dirname(sym(bad, "walker")))
    other = "0" * 32 + "1"
    with open(sym(store, "walker")) as fh:
        text = fh.read()
    with open(sym(bad, "walker"), "w") as fh:
        fh.write(text.replace(ids["walker"][0], other, 1))
    _, lines = stackwalk("--store", bad, *stores)
    got = lines_of(lines, "libwalk.so")
    if len(got) != 1 or not got[0].startswith(f"{sym(bad, 'libwalk.so')}: found, but unreadable: "):
        report.fail(f"the unreadable file: {got}")
    expect("another id", lines_of(lines, "walker"),
           [f"{sym(bad, 'walker')}: found, but its MODULE record has debug id {other}"])

    # minidump_stackwalk -v: the same lines as symtool's walk by Breakpad's
    # rules (which is minidump_stackwalk's) with the same stores; stdout unchanged.
    _, lines = stackwalk(*stores, "--breakpad-walk")
    quiet = sh(args.minidump_stackwalk, core, first, second)
    verbose = sh(args.minidump_stackwalk, "-v", core, first, second)
    if quiet.returncode or verbose.returncode:
        report.fail(f"minidump_stackwalk: {quiet.stderr.strip()} {verbose.stderr.strip()}")
        return
    expect("minidump_stackwalk -v", explained(verbose.stderr, "minidump_stackwalk: "), lines)
    if quiet.stdout != verbose.stdout:
        report.fail("minidump_stackwalk's output changes with -v")
    if explained(quiet.stderr, "minidump_stackwalk: module "):
        report.fail(f"minidump_stackwalk explains without -v: {quiet.stderr[:300]}")
    # microdump_stackwalk -v on the same crash as a microdump.
    micro = os.path.join(tmp, "crash.microdump")
    microdump.write_microdump(core, micro, 0)
    p = sh(args.symtool, "stackwalk", "--json", "--explain", "--breakpad-walk", *stores, micro)
    verbose = sh(args.microdump_stackwalk, "-v", micro, first, second)
    if p.returncode or verbose.returncode:
        report.fail(f"microdump walks: {p.stderr.strip()} {verbose.stderr.strip()}")
    else:
        micro_lines = explained(p.stderr, "symtool: ")
        expect("microdump_stackwalk -v", explained(verbose.stderr, "microdump_stackwalk: "), micro_lines)
        if not lines_of(micro_lines, "libwalk.so"):
            report.fail(f"the microdump's walk does not explain libwalk.so: {micro_lines}")
    report.note(f"{len(lines)} lines for {len(set(l.split(' ')[1] for l in lines))} modules checked")


if __name__ == "__main__":
    main()
