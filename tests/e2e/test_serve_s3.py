#!/usr/bin/env python3
"""Two `symstore serve s3://BUCKET/PREFIX` servers over one s3rver bucket
answer alike, and alike with the directory the store came from.

The crash program of the stack-walk test (gcc, its library crashing) and
its libraries go into a store (`symstore add`), which `symstore upload
--protocol s3` sends to s3rver. Two servers, A and B, each with its own
cache directory, serve the bucket:
- every .sym file of the directory, fetched from A and from B, is the
  directory's bytes; so is it with the debug id in lower case, gzip-encoded
  (gunzipped here), and a byte range of it (sliced here); HEAD, ETag and
  Last-Modified agree between the servers, and A's ETag gets a 304 from B;
  every request A sends to the bucket is signed right (Signature V4
  recomputed through a recording proxy: s3rver checks none), and A fetches
  each object whole once, its cached copy used while its ETag holds;
- names in another case get from A and B what `symstore serve` over the
  directory answers;
- paths that are not in the store are 404 on both (never 403);
- a .sym file PUT through A is in the bucket at the store's own path
  (s3rver's own listing) and served by B; the same bytes again through B are
  a no-op, other bytes through B are refused with 409 and leave the bucket
  as it was; a file changed in the bucket behind the servers' backs (a new
  ETag) is served new by both: no server keeps a stale copy;
- a publication A loses to another server between its HEAD and its PUT
  (its PUT carries If-None-Match: *, answered 412 as S3 does once the key
  exists) is a no-op for the same bytes and 409 for others;
- `symtool stackwalk --symbols-url B` over gdb's core of the crash gives
  the same walk as `symtool stackwalk --store DIRECTORY`;
- the store uploaded with --gzip (objects stored with Content-Encoding:
  gzip) is served decoded: bytes, Content-Length and ranges of the files."""
import gzip
import json
import os
import shutil
import subprocess
import tempfile
import urllib.parse

import page_dom
import test_stackwalk as walk
import upload_servers as servers
from common import Report, arguments, require_shared
from serve_process import ServeProcess

# Beside the crash program: corpus binaries of other compilers and
# architectures (the shared corpus), so that the bucket holds more than one
# kind of module.
CORPUS = ["cprog.clang19.g-O2", "cxxprog.gcc12.g-O2", "crashchain-free.clang19.aarch64",
          "crashchain-free.clang19.riscv64", "cprog.gcc12.m32-g-O2"]
TOKEN = "s3servetokenQ7Z"
BUCKET, PREFIX = "symbols", "release/1.0"


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, **kw)


def aws_environment(endpoint=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_") and k != "SYMSTORE_TOKEN"}
    env.update(AWS_ACCESS_KEY_ID=servers.S3RVER_KEY, AWS_SECRET_ACCESS_KEY=servers.S3RVER_SECRET,
               AWS_REGION="us-east-1")
    if endpoint:
        env["AWS_ENDPOINT_URL"] = endpoint
    return env


def store_files(root):
    files = {}
    for directory, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            if name.endswith(".sym"):
                full = os.path.join(directory, name)
                with open(full, "rb") as fh:
                    files[os.path.relpath(full, root)] = fh.read()
    return files


def url_path(relative):
    return "/" + urllib.parse.quote(relative)


def lower_id(relative):
    name, debug_id, file = relative.split("/")
    return f"{name}/{debug_id.lower()}/{file}"


def main():
    args = arguments(lambda p: (p.add_argument("--symstore", required=True),
                                p.add_argument("--symtool", required=True),
                                p.add_argument("--s3rver", required=True)))
    require_shared(args)
    report = Report("serve over s3")
    with tempfile.TemporaryDirectory() as tmp:
        run(args, report, tmp)
    report.finish()


def run(args, report, tmp):
    directory = walk.build(tmp, "gcc", "-fno-omit-frame-pointer")
    core = os.path.join(directory, "gcore.lib")
    walk.gdb_oracle(directory, core, os.path.join(directory, "gdb.lib.json"), "lib")
    corpus = os.path.join(tmp, "corpus")
    os.makedirs(corpus)
    for binary in CORPUS:
        shutil.copy(os.path.join(args.shared, "corpus", "bin", binary), corpus)
    store = os.path.join(tmp, "store")
    for release in (directory, corpus):
        p = sh(args.symstore, "add", store, release, "-q", text=True)
        if p.returncode != 0:
            report.fail(f"symstore add {release}: {p.stderr.strip()}")
            return
    files = store_files(store)
    if len(files) < 3 + len(CORPUS):
        report.fail(f"symstore add made {len(files)} .sym files: {sorted(files)}")
        return
    tokens = os.path.join(tmp, "tokens")
    with open(tokens, "w") as fh:
        fh.write(f"# the test's one token\n{TOKEN} upload download\n")

    with servers.S3rver(args.s3rver, BUCKET) as s3:
        location = f"s3://{BUCKET}/{PREFIX}"
        p = sh(args.symstore, "upload", store, "--to", location, "--protocol", "s3", "--endpoint", s3.url,
               env=aws_environment(), text=True, stdin=subprocess.DEVNULL)
        if p.returncode != 0:
            report.fail(f"symstore upload --protocol s3: exit {p.returncode}: {p.stderr.strip()[-800:]}")
            return
        in_bucket = {k[len(PREFIX) + 1:] for k in s3.keys() if k.startswith(PREFIX + "/")}
        if in_bucket != set(files):
            report.fail(f"the bucket holds {sorted(in_bucket)[:4]}…, the store {sorted(files)[:4]}…")
            return
        # A by --endpoint (through a proxy that records its requests), B by
        # AWS_ENDPOINT_URL: the two ways the endpoint is given.
        with servers.FaultProxy(s3.url) as px:
            a_args = (location, "--endpoint", px.url, "--tokens", tokens, "--cache-dir", os.path.join(tmp, "cache-a"))
            b_args = (location, "--tokens", tokens, "--cache-dir", os.path.join(tmp, "cache-b"))
            with ServeProcess(args.symstore, *a_args, env=aws_environment()) as a, \
                    ServeProcess(args.symstore, *b_args, env=aws_environment(s3.url)) as b, \
                    ServeProcess(args.symstore, store, "--quiet") as d:
                served(report, args, tmp, s3, px, store, files, tokens, core, a, b, d)
            for name, server in (("A", a), ("B", b)):
                if server.returncode != 0:
                    report.fail(f"server {name} exited with {server.returncode} on SIGTERM: {server.log()[-600:]}")


def served(report, args, tmp, s3, px, store, files, tokens, core, a, b, d):
    downloads(report, a, b, files)
    other_spellings(report, a, b, d, files)
    requests_of_a(report, px, files)
    missing(report, a, b, files)
    pages(report, core, files, b, d)  # (before the uploads, which add to the bucket alone)
    uploads(report, args, tmp, s3, a, b, files)
    lost_races(report, args, tmp, s3, px, a)
    stackwalk(report, args, tmp, core, store, b)
    gzipped(report, args, tmp, s3, store, files, tokens)
    for name, server in (("A", a), ("B", b)):
        errors = [line for line in server.access_lines()
                  if len(line.split()) > 4 and line.split()[4].startswith("5")]
        if errors:
            report.fail(f"server {name} answered 5xx: {errors[:3]}")


def downloads(report, a, b, files):
    checked = 0
    for relative, data in sorted(files.items()):
        answers = {}
        for name, server in (("A", a), ("B", b)):
            for form in (relative, lower_id(relative)):
                status, headers, body = server.request("GET", url_path(form))
                if status != 200 or body != data:
                    report.fail(f"{name} GET {form}: HTTP {status}, {len(body)} bytes, want the store's "
                                f"{len(data)} bytes")
                    continue
                checked += 1
            status, headers, body = server.request("HEAD", url_path(relative))
            answers[name] = (status, headers.get("etag"), headers.get("last-modified"),
                             headers.get("content-length"))
            status, headers, body = server.request("GET", url_path(relative), headers={"Accept-Encoding": "gzip"})
            if status != 200 or headers.get("content-encoding") != "gzip" or gzip.decompress(body) != data:
                report.fail(f"{name} GET {relative} with gzip: HTTP {status}, {headers.get('content-encoding')}")
            start, end = len(data) // 3, len(data) // 3 + 99
            status, headers, body = server.request("GET", url_path(relative), headers={"Range": f"bytes={start}-{end}"})
            if status != 206 or body != data[start:end + 1]:
                report.fail(f"{name} GET {relative} bytes {start}-{end}: HTTP {status}, {len(body)} bytes")
        if answers["A"] != answers["B"] or answers["A"][0] != 200 or answers["A"][3] != str(len(data)):
            report.fail(f"HEAD {relative}: A {answers['A']}, B {answers['B']}")
            continue
        etag = answers["A"][1]
        status, _, body = b.request("GET", url_path(relative), headers={"If-None-Match": etag})
        if status != 304 or body:
            report.fail(f"B GET {relative} with A's ETag {etag}: HTTP {status}, {len(body)} bytes, want 304")
    report.note(f"{len(files)} .sym files, {checked} GETs of them by both servers byte-identical to the store")


def other_spellings(report, a, b, d, files):
    """Names spelled in another case (which a server may match by listing
    the directory, here a ListObjectsV2 with a delimiter): A and B answer as
    `symstore serve` over the store directory does."""
    agreed = found = 0
    for relative in sorted(files):
        name, debug_id, file = relative.split("/")
        for form in (f"{name}/{debug_id.lower()}/{file.upper()}", f"{name.upper()}/{debug_id}/{file}"):
            want = d.request("GET", url_path(form))
            for label, server in (("A", a), ("B", b)):
                got = server.request("GET", url_path(form))
                if (got[0], got[2]) != (want[0], want[2]):
                    report.fail(f"{label} GET {form}: HTTP {got[0]}, {len(got[2])} bytes; over the directory: "
                                f"HTTP {want[0]}, {len(want[2])} bytes")
                else:
                    agreed += 1
            found += want[0] == 200
    report.note(f"{agreed} answers to names in another case as over the directory ({found} of them found)")


def requests_of_a(report, px, files):
    """What A asked the bucket while it served the downloads: each request
    signed right (Signature V4 recomputed here; s3rver checks none), and
    each object fetched whole once, its cached copy used while a HEAD
    says its ETag is current."""
    records = list(px.records)
    bad = [(r["method"], r["target"], servers.sigv4_verify(r, servers.S3RVER_SECRET, servers.S3RVER_KEY))
           for r in records]
    bad = [b for b in bad if b[2]]
    for method, target, problem in bad[:3]:
        report.fail(f"A's {method} {target}: {problem}")
    full_gets = {}
    for r in records:
        headers = {n.lower() for n, _ in r["headers"]}
        if r["method"] == "GET" and "range" not in headers and "?" not in r["target"]:
            full_gets[r["target"]] = full_gets.get(r["target"], 0) + 1
    wanted = {f"/{BUCKET}/{PREFIX}/" + urllib.parse.quote(rel) for rel in files}
    again = {t: n for t, n in full_gets.items() if n > 1}
    if again or set(full_gets) - wanted:
        report.fail(f"A fetched objects more than once or others than the store's: {again or set(full_gets) - wanted}")
    listings = sum(1 for r in records if r["method"] == "GET" and "delimiter=" in r["target"])
    report.note(f"A: {len(records)} requests to the bucket ({listings} listings), every signature recomputed; "
                f"{len(full_gets)} objects fetched whole, once each, for {len(files) * 7} answers")


def missing(report, a, b, files):
    some = sorted(files)[0]
    name, debug_id, file = some.split("/")
    paths = [f"/nosuch.so/{debug_id}/nosuch.so.sym",             # no such module
             f"/{name}/{'0' * len(debug_id)}/{file}",            # no such id
             f"/{name}/{debug_id}/{file[:-4]}.other.sym",        # no such file
             f"/{name}/{debug_id}/",                             # a directory
             "/buildid/0123456789abcdef0123456789abcdef01234567/debuginfo"]
    for path in paths:
        got = [server.request("GET", path)[0] for server in (a, b)]
        if got != [404, 404]:
            report.fail(f"GET {path}: A {got[0]}, B {got[1]}, want 404 from both")
    report.note(f"{len(paths)} missing paths: 404 from both")


def gzipped(report, args, tmp, s3, store, files, tokens):
    """The store uploaded again with --gzip (objects stored gzip-encoded, as
    S3 clients that save space do) under another prefix: served as the
    files they encode, sizes and ranges of the decoded bytes, and the same
    bytes PUT again are a no-op."""
    location = f"s3://{BUCKET}/gzipped"
    p = sh(args.symstore, "upload", store, "--to", location, "--protocol", "s3", "--endpoint", s3.url, "--gzip",
           env=aws_environment(), text=True, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        report.fail(f"symstore upload --gzip: exit {p.returncode}: {p.stderr.strip()[-600:]}")
        return
    some = sorted(files)[0]
    stored = s3.get(f"gzipped/{some}")
    if stored is None or stored[:2] != b"\x1f\x8b":
        report.fail(f"symstore upload --gzip stored {some} without gzip: {(stored or b'')[:10]!r}")
    server_args = (location, "--endpoint", s3.url, "--tokens", tokens, "--cache-dir", os.path.join(tmp, "cache-c"))
    with ServeProcess(args.symstore, *server_args, env=aws_environment()) as c:
        for relative, data in sorted(files.items()):
            status, headers, body = c.request("GET", url_path(relative))
            if status != 200 or body != data:
                report.fail(f"gzip-encoded {relative}: HTTP {status}, {len(body)} bytes, want {len(data)}")
            status, headers, _ = c.request("HEAD", url_path(relative))
            if headers.get("content-length") != str(len(data)):
                report.fail(f"HEAD of gzip-encoded {relative}: Content-Length {headers.get('content-length')}, "
                            f"want {len(data)}")
            start = len(data) // 2
            status, _, body = c.request("GET", url_path(relative), headers={"Range": f"bytes={start}-"})
            if status != 206 or body != data[start:]:
                report.fail(f"gzip-encoded {relative} from byte {start}: HTTP {status}, {len(body)} bytes")
        status, _, body = c.request("PUT", url_path(some), body=files[some], headers={"Auth-Token": TOKEN})
        if status not in (200, 201, 204):
            report.fail(f"PUT of the bytes a gzip-encoded object holds: HTTP {status}: {body[:200]!r}")
        if s3.get(f"gzipped/{some}") != stored:
            report.fail("PUT of the bytes a gzip-encoded object holds replaced it")
    report.note(f"{len(files)} gzip-encoded objects served decoded (bytes, sizes, ranges)")


def dump(args, binary, out):
    p = sh(args.dump_syms, binary, "--output", out, text=True)
    if p.returncode != 0:
        raise SystemExit(f"dump_syms {binary}: {p.stderr.strip()}")
    with open(out, "rb") as fh:
        data = fh.read()
    fields = data.split(b"\n", 1)[0].decode().split(" ")
    return f"{fields[4]}/{fields[3]}/{fields[4]}.sym", data


def uploads(report, args, tmp, s3, a, b, files):
    # A program not in the store: built here, dumped, PUT through A.
    relative, data = program_symbols(args, tmp, "extra", 3)
    auth = {"Auth-Token": TOKEN}
    status, _, body = a.request("PUT", url_path(relative), body=data, headers=auth)
    if status not in (200, 201):
        report.fail(f"A PUT {relative}: HTTP {status}: {body[:200]!r}")
        return
    if s3.get(f"{PREFIX}/{relative}") != data:
        report.fail(f"A PUT {relative}: the bucket has no such object at {PREFIX}/{relative}")
    status, _, body = b.request("GET", url_path(relative))
    if status != 200 or body != data:
        report.fail(f"B GET {relative} after A's PUT: HTTP {status}, {len(body)} bytes")
    status, _, body = b.request("PUT", url_path(relative), body=data, headers=auth)
    if status not in (200, 201, 204):
        report.fail(f"B PUT of the same bytes again: HTTP {status}: {body[:200]!r}")
    other = data + b"PUBLIC fffff0 0 added_by_the_test\n"
    status, _, body = b.request("PUT", url_path(relative), body=other, headers=auth)
    if status != 409 or b"\n" in body.rstrip(b"\n"):
        report.fail(f"B PUT of other bytes: HTTP {status}: {body[:200]!r}, want 409 and one line")
    if s3.get(f"{PREFIX}/{relative}") != data:
        report.fail("B PUT of other bytes changed the bucket")

    # Behind the servers' backs: the object changes in the bucket; both
    # serve the new bytes (each had the old one cached).
    for server in (a, b):
        server.request("GET", url_path(relative))
    status, _ = s3.request("PUT", f"/{BUCKET}/{PREFIX}/" + urllib.parse.quote(relative), other)
    if status != 200:
        report.fail(f"s3rver PUT: HTTP {status}")
        return
    for name, server in (("A", a), ("B", b)):
        status, _, body = server.request("GET", url_path(relative))
        if status != 200 or body != other:
            report.fail(f"{name} GET {relative} after the bucket changed: HTTP {status}, "
                        f"{'the old bytes' if body == data else f'{len(body)} bytes'}")
    report.note("a PUT through A served by B; the same bytes a no-op, other bytes 409; "
                "a changed object served new by both")


def differ(local, remote, where):
    """(where, local value, remote value) of every difference of two JSON values."""
    if isinstance(local, dict) and isinstance(remote, dict):
        for key in sorted(set(local) | set(remote)):
            yield from differ(local.get(key), remote.get(key), f"{where}.{key}")
    elif isinstance(local, list) and isinstance(remote, list) and len(local) == len(remote):
        for i, (x, y) in enumerate(zip(local, remote)):
            yield from differ(x, y, f"{where}[{i}]")
    elif local != remote:
        yield where, local, remote


def program_symbols(args, tmp, name, constant):
    """(store path, .sym bytes) of a small program built and dumped here."""
    source = os.path.join(tmp, name + ".c")
    with open(source, "w") as fh:
        fh.write(f"int {name}_function(int x) {{ return x * {constant}; }}\n"
                 f"int main(void) {{ return {name}_function(2); }}\n")
    binary = os.path.join(tmp, name)
    sh("gcc", "-g", "-O1", "-o", binary, source, check=True)
    return dump(args, binary, os.path.join(tmp, name + ".sym"))


def lost_races(report, args, tmp, s3, px, a):
    """Another server publishes the key between A's HEAD and A's PUT: the
    proxy stores the rival's bytes in the bucket, then answers A's PUT
    with 412, as S3 does to a PUT with If-None-Match: * once the key
    exists. Rival bytes equal to A's: a no-op (200); other bytes: 409, and
    the rival's object stays."""
    for case, rival_extra, want in (("same", b"", 200), ("other", b"PUBLIC ffff0 0 rival\n", 409)):
        relative, data = program_symbols(args, tmp, f"race_{case}", 5 if case == "same" else 7)
        key_path = f"/{BUCKET}/{PREFIX}/" + urllib.parse.quote(relative)
        rival = data + rival_extra

        def rule(method, path, n, key_path=key_path, rival=rival):
            if method == "PUT" and path == key_path:
                s3.request("PUT", key_path, rival)
                return "412"
            return None

        px.rule = rule
        try:
            status, _, body = a.request("PUT", url_path(relative), body=data, headers={"Auth-Token": TOKEN})
        finally:
            px.rule = lambda method, path, n: None
        puts = [r for r in px.records if r["method"] == "PUT" and r["target"] == key_path]
        if not puts or not any(n.lower() == "if-none-match" and v.strip() == "*" for n, v in puts[-1]["headers"]):
            report.fail(f"race ({case}): A's PUT of a new key had no If-None-Match: *")
        if status != want:
            report.fail(f"race ({case} bytes): A answered HTTP {status}: {body[:200]!r}, want {want}")
        if s3.get(f"{PREFIX}/{relative}") != rival:
            report.fail(f"race ({case} bytes): the bucket no longer holds the rival's object")
    report.note("lost races: the rival's same bytes a no-op, other bytes 409, its object kept")


def page_values(server, path, body=None, headers=None):
    """The data- attributes a page marks its values with (docs/PAGES.md),
    as (id or class, attribute, key) -> value, and the status."""
    status, _, html = server.request("POST" if body else "GET", path, body=body, headers=headers)
    dom = page_dom.parse(html.decode("utf-8"))
    values = {}
    for element in dom.elements():
        for name in ("data-stat", "data-count", "data-bytes"):
            if name in element.attrs:
                values[(name, element.attrs[name])] = element.attrs.get("data-value")
        if "frame" in element.attrs.get("class", "").split():
            for key in ("data-module", "data-function", "data-file", "data-line", "data-trust"):
                values[("frame", len([k for k in values if k[0] == "frame"]), key)] = element.attrs.get(key)
    return status, values


def multipart(fields):
    """A multipart/form-data body of (name, filename or None, bytes)."""
    boundary = "----s3pages7f3e"
    parts = []
    for name, filename, data in fields:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        parts.append(f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def pages(report, core, files, s3_server, directory_server):
    """The pages read the store through its backend: over the bucket (B) they
    show what they show over the directory (D): the store's numbers, each
    module's counts and coverage, and a walk of the core (B's symbols
    mirrored from the bucket)."""
    key = f"?key={TOKEN}"
    s3_status, s3_values = page_values(s3_server, "/" + key)
    d_status, d_values = page_values(directory_server, "/")
    if s3_status != 200 or s3_values != d_values or not s3_values:
        report.fail(f"the store page over S3: HTTP {s3_status} {s3_values}, over the directory {d_values}")
    compared = 0
    for relative in sorted(files):
        name, debug_id, _ = relative.split("/")
        path = f"/ui/module/{urllib.parse.quote(name)}/{debug_id}"
        s3_status, s3_values = page_values(s3_server, path + key)
        d_status, d_values = page_values(directory_server, path)
        if s3_status != 200 or s3_values != d_values or ("data-count", "FUNC") not in s3_values:
            report.fail(f"{path} over S3: HTTP {s3_status}, {len(s3_values)} values; over the directory "
                        f"HTTP {d_status}, {len(d_values)}: {sorted(set(s3_values.items()) ^ set(d_values.items()))[:4]}")
        compared += 1
    with open(core, "rb") as fh:
        dump = fh.read()
    body, headers = multipart([("dump", "gcore.lib", dump), ("token", None, TOKEN.encode())])
    s3_status, s3_walk = page_values(s3_server, "/ui/walk", body, headers)
    body, headers = multipart([("dump", "gcore.lib", dump)])
    d_status, d_walk = page_values(directory_server, "/ui/walk", body, headers)
    functions = [v for k, v in s3_walk.items() if k[0] == "frame" and k[2] == "data-function" and v]
    if s3_status != 200 or s3_walk != d_walk or not functions:
        report.fail(f"the walk page over S3: HTTP {s3_status}, {len(functions)} named frames; over the "
                    f"directory HTTP {d_status}: {sorted(set(s3_walk.items()) ^ set(d_walk.items()))[:4]}")
    report.note(f"pages over S3 equal the directory's: the store page, {compared} module pages, a walk "
                f"of {len(functions)} named frames")


def stackwalk(report, args, tmp, core, store, server):
    def walk_json(*flags):
        p = sh(args.symtool, "stackwalk", "--json", *flags, core, text=True)
        if p.returncode != 0:
            report.fail(f"symtool stackwalk {' '.join(flags)}: exit {p.returncode}: {p.stderr.strip()[-600:]}")
            return None
        return json.loads(p.stdout)

    local = walk_json("--store", store)
    cache = os.path.join(tmp, "walk-cache")
    remote = walk_json("--symbols-url", server.url, "--symbols-cache", cache)
    if local is None or remote is None:
        return
    # Where each module's symbols were read differs, and only that: the
    # store's path, and the same relative path in the fetch cache.
    for walked, root in ((local, store), (remote, cache)):
        for module in walked.get("modules", []):
            if module.get("symbol_file"):
                module["symbol_file"] = os.path.relpath(module["symbol_file"], root)
    differences = list(differ(local, remote, "walk"))
    for where, mine, theirs in differences[:10]:
        report.fail(f"stackwalk over B differs from the directory's at {where}: "
                    f"{json.dumps(theirs)[:200]} vs {json.dumps(mine)[:200]}")
    if differences:
        return
    frames = sum(len(t.get("frames", [])) for t in local.get("threads", []))
    report.note(f"stackwalk over B equals the walk over the directory ({frames} frames)")
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
