#!/usr/bin/env python3
"""Kept binaries travel with `symstore upload`, so that a store served from
S3 answers debuginfod and SSQP clients as the directory does.

The release of serve_downloads (the stack-walk crash program, a gcc -g
program stripped with its .debug beside, a PE and its PDB) goes into a store
with `symstore add --keep-binaries`. Then:
- `symstore upload --protocol s3` to s3rver puts every file of the store in
  the bucket, byte for byte (s3rver's own listing and GETs): the .sym files,
  the kept binaries and the .build-id entries; a second upload sends nothing;
- `symstore serve s3://...` over that bucket: debuginfod-find's executable,
  debuginfo and sections are the inputs' bytes (cmp), gdb with debuginfod
  names the lines it names on the unstripped program, and dump_syms
  --symbol-server fetches the PDB (the checks of test_serve_downloads.py);
- `--no-binaries` to another prefix sends the .sym files only;
- `symstore upload --protocol put` to nginx (WebDAV) lands the same files,
  byte-identical, and nginx's log shows the .build-id entries PUT after
  every kept file; to an nginx that refuses the .debug files (403) the run
  fails, and no .build-id entry is sent (it would name a missing file);
- `--protocol put` to `symstore serve` over an empty directory (with an
  upload token) lands every file byte-identical, and a second run finds
  them all there but the .build-id entries (the server's HEAD does not
  answer for dot paths), which it PUTs again as no-ops;
- `--protocol tecken`'s dry run names no kept file (it carries .sym only)."""
import os
import shutil
import subprocess
import tempfile
import urllib.parse

import common
import test_serve_downloads as downloads
import upload_servers as servers
from serve_process import ServeProcess
from test_serve_s3 import aws_environment

BUCKET, PREFIX = "symbols", "release/2.0"


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def main():
    args = common.arguments(lambda p: (p.add_argument("--symstore", required=True),
                                       p.add_argument("--symtool", required=True),
                                       p.add_argument("--s3rver", required=True),
                                       p.add_argument("--nginx", required=True)))
    report = common.Report("serve_s3_binaries")
    tmp = tempfile.mkdtemp()
    try:
        run(args, report, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report.finish()


def store_contents(store):
    """{relative path: bytes} of what an upload should send: every regular
    file (not the code-id links), dot-files and dot-directories left out but
    the .build-id index."""
    found = {}
    for root, dirs, files in os.walk(store):
        top = root == store
        dirs[:] = [d for d in dirs if not d.startswith(".") or (top and d == ".build-id")]
        for name in files:
            path = os.path.join(root, name)
            if not name.startswith(".") and not os.path.islink(path):
                found[os.path.relpath(path, store)] = downloads.read(path)
    return found


def run(args, report, tmp):
    _, store, full, stripped, debug, pe_stem = downloads.make_release(args, tmp)
    want = store_contents(store)
    kept = [p for p in want if not p.endswith(".sym") and not p.startswith(".build-id/")]
    entries = [p for p in want if p.startswith(".build-id/")]
    if len(kept) < 4 or not entries:
        report.fail(f"symstore add --keep-binaries kept {kept} and entries {entries}")
        return
    report.note(f"the store: {len(want) - len(kept) - len(entries)} .sym files, {len(kept)} kept binaries, "
                f"{len(entries)} .build-id entries")
    with servers.S3rver(args.s3rver, BUCKET) as s3:
        check_s3(args, report, tmp, s3, store, want, full, stripped, debug, pe_stem)
    check_put(args, report, store, want, kept, entries)
    check_put_refused(args, report, store, want, entries)
    check_put_to_serve(args, report, tmp, store, want)
    p = sh(args.symstore, "upload", store, "--to", "http://127.0.0.1:9/", "--protocol", "tecken", "--dry-run")
    if p.returncode != 0 or any(path in p.stdout.split() for path in kept + entries):
        report.fail(f"tecken dry run: exit {p.returncode}: {p.stdout[:300]} {p.stderr[:300]}")
    elif "carries .sym files only" not in p.stderr:
        report.fail(f"tecken dry run does not say the binaries stay behind: {p.stderr[:300]}")


def upload_s3(args, store, s3, prefix, *flags):
    return sh(args.symstore, "upload", store, "--to", f"s3://{BUCKET}/{prefix}", "--protocol", "s3",
              "--endpoint", s3.url, *flags, env=aws_environment(), stdin=subprocess.DEVNULL)


def check_s3(args, report, tmp, s3, store, want, full, stripped, debug, pe_stem):
    p = upload_s3(args, store, s3, PREFIX)
    if p.returncode != 0:
        report.fail(f"symstore upload --protocol s3: exit {p.returncode}: {p.stderr.strip()[-800:]}")
        return
    in_bucket = {k[len(PREFIX) + 1:] for k in s3.keys() if k.startswith(PREFIX + "/")}
    if in_bucket != set(want):
        report.fail(f"the bucket lacks {sorted(set(want) - in_bucket)}, has besides {sorted(in_bucket - set(want))}")
        return
    differ = [path for path, data in want.items() if s3.get(f"{PREFIX}/{path}") != data]
    if differ:
        report.fail(f"objects not the store's bytes: {differ}")
    else:
        report.note(f"s3: {len(want)} objects byte-equal to the store's files")
    again = upload_s3(args, store, s3, PREFIX)
    if again.returncode != 0 or f"0 uploaded, {len(want)} already present" not in again.stderr:
        report.fail(f"a second s3 upload: exit {again.returncode}: {again.stderr.strip()[-300:]}")
    only = upload_s3(args, store, s3, "symbols-only", "--no-binaries")
    sym_only = {k.split("/", 1)[1] for k in s3.keys() if k.startswith("symbols-only/")}
    if only.returncode != 0 or sym_only != {p for p in want if p.endswith(".sym")}:
        report.fail(f"--no-binaries: exit {only.returncode}, sent {sorted(sym_only)}")

    location = f"s3://{BUCKET}/{PREFIX}"
    with ServeProcess(args.symstore, location, "--cache-dir", os.path.join(tmp, "serve-cache"),
                      env=aws_environment(s3.url)) as server:
        curl = downloads.Curl(server.url, tmp, None)
        downloads.check_debuginfod(report, tmp, server.url, curl, full, stripped, debug)
        downloads.check_gdb(report, tmp, server.url, full, stripped)
        # s3rver's delimited listings name no common prefix more than one
        # level above a key (S3 names every one): then a module name in
        # another case, which the server finds by listing the store's top
        # level, cannot be found over s3rver, and those checks are notes.
        status, top = s3.request("GET", f"/{BUCKET}?delimiter=%2F&list-type=2&prefix="
                                 + urllib.parse.quote(PREFIX + "/", safe=""))
        quirk = status == 200 and b"<CommonPrefixes>" not in top
        downloads.check_ssqp(args, QuirkReport(report, "SSQP /" if quirk else None), tmp, server.url,
                             curl, pe_stem)
        check_ssqp_stored_case(report, store, curl, pe_stem)
        errors = [line for line in server.access_lines()
                  if len(line.split()) > 4 and line.split()[4].startswith("5")]
        if errors:
            report.fail(f"the server answered 5xx: {errors[:3]}")


class QuirkReport:
    """`report`, but failures starting with `quirk` are notes."""

    def __init__(self, report, quirk):
        self.report, self.quirk = report, quirk

    def fail(self, text):
        if self.quirk and text.startswith(self.quirk):
            self.report.note(f"not checked (s3rver lists no deep common prefixes): {text}")
        else:
            self.report.fail(text)

    def note(self, text):
        self.report.note(text)


def check_ssqp_stored_case(report, store, curl, pe_stem):
    """The kept PDB and PE at their SSQP paths with the module named as
    stored and the id in lower case, as SSQP clients send it."""
    checked = 0
    for path in (pe_stem + ".pdb", pe_stem + ".exe"):
        name = os.path.basename(path)
        found = [os.path.relpath(os.path.join(root, name), store) for root, _, files in os.walk(store)
                 if name in files]
        if len(found) != 1:
            report.fail(f"the store keeps {name} at {found}")
            continue
        module, ident, file = found[0].split("/")
        status, headers, body = curl(f"/{module}/{ident.lower()}/{file}")
        if status != 200 or body != downloads.read(path) or \
                headers.get("content-type") != "application/octet-stream":
            report.fail(f"SSQP /{module}/{ident.lower()}/{file}: {status} {headers.get('content-type')}")
        checked += 1
    report.note(f"SSQP: {checked} kept files byte-equal at their paths, the id in lower case")


def check_put(args, report, store, want, kept, entries):
    with servers.Nginx(args.nginx) as nginx:
        p = sh(args.symstore, "upload", store, "--to", nginx.url + "/store", "--protocol", "put", "-j", "3")
        if p.returncode != 0:
            report.fail(f"symstore upload --protocol put: exit {p.returncode}: {p.stderr.strip()[-800:]}")
            return
        landed = store_contents(os.path.join(nginx.root, "store"))
        if landed != want:
            bad = sorted(path for path in set(want) | set(landed) if landed.get(path) != want.get(path))
            report.fail(f"put: files missing or not byte-identical on nginx: {bad}")
        else:
            report.note(f"put: {len(landed)} files on nginx byte-identical, {len(kept)} kept binaries among them")
        order = [uri for method, uri, status, _ in nginx.log() if method == "PUT" and 200 <= status < 300]
        last_kept = max(i for i, uri in enumerate(order) if not uri.endswith(".sym")
                        and "/.build-id/" not in uri)
        first_entry = min(i for i, uri in enumerate(order) if "/.build-id/" in uri)
        if first_entry < last_kept:
            report.fail(f"put: a .build-id entry PUT before a kept binary: {order}")


def check_put_refused(args, report, store, want, entries):
    refuse = "        location ~ \\.debug$ { limit_except GET HEAD { deny all; } }\n"
    with servers.Nginx(args.nginx, locations=refuse) as nginx:
        p = sh(args.symstore, "upload", store, "--to", nginx.url, "--protocol", "put")
        landed = store_contents(nginx.root)
        debug_files = [path for path in want if path.endswith(".debug")]
        held_back = [path for path in entries if f"{path}: not sent" in p.stderr]
        if p.returncode == 0 or not debug_files or any(path in landed for path in debug_files):
            report.fail(f"put to an nginx refusing .debug files: exit {p.returncode}, landed {sorted(landed)}")
        elif any(path.startswith(".build-id/") for path in landed) or held_back != entries:
            report.fail(f"put sent .build-id entries after a refused file: {sorted(landed)}: {p.stderr[-600:]}")
        elif any(landed.get(path) != data for path, data in want.items()
                 if not path.endswith(".debug") and not path.startswith(".build-id/")):
            report.fail("put to an nginx refusing .debug files did not land the other files")
        else:
            report.note(f"put: {len(debug_files)} .debug files refused (403), so {len(entries)} .build-id entries "
                        f"held back, the rest landed")


def check_put_to_serve(args, report, tmp, store, want):
    tokens = os.path.join(tmp, "tokens")
    with open(tokens, "w") as fh:
        fh.write("keptbinariesToken9 upload download\n")
    target = os.path.join(tmp, "served-store")
    os.makedirs(target)
    env = dict(os.environ, SYMSTORE_TOKEN="keptbinariesToken9")
    with ServeProcess(args.symstore, target, "--tokens", tokens) as server:
        runs = [sh(args.symstore, "upload", store, "--to", server.url, "--protocol", "put", env=env)
                for _ in range(2)]
    landed = store_contents(target)
    # The server keeps a code-id copy of a .sym whose module has no debug id
    # beside the PE (the directory store has a link there): no file of ours.
    missing = sorted(path for path, data in want.items() if landed.get(path) != data)
    if any(p.returncode != 0 for p in runs) or missing:
        report.fail(f"put to symstore serve: exits {[p.returncode for p in runs]}, missing or other bytes: "
                    f"{missing}: {runs[0].stderr[-600:]}")
    else:
        # The .build-id entries are PUT again, a no-op for the server: its
        # HEAD answers 404 for dot paths (no download names one), so the
        # client cannot see them. Everything else is found there.
        entries = sum(1 for path in want if path.startswith(".build-id/"))
        if f"{entries} uploaded, {len(want) - entries} already present" not in runs[1].stderr:
            report.fail(f"a second put to symstore serve: {runs[1].stderr[-300:]}")
        else:
            report.note(f"put to symstore serve: {len(want)} files landed byte-identical, a second run "
                        f"sent only the {entries} .build-id entries again (no-ops)")


if __name__ == "__main__":
    main()
