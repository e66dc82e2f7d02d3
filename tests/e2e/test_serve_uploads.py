#!/usr/bin/env python3
"""`symstore serve`'s uploads, sent by real clients and by hostile ones.

- Our own client, `symstore upload --protocol put|breakpad-v1|breakpad-v2|
  tecken` (put and breakpad-v2 with and without --gzip, breakpad-v1 at
  /symupload and /upload/), uploads a store `symstore add` made into an
  empty served store: every file lands byte-identical at the same
  <debug_file>/<DEBUG_ID>/<name>.sym with the same mode (the oracle: the
  files `symstore add` wrote), nothing else lands, and a second run (its
  ledger removed, so that every file is sent again) changes nothing.
- Breakpad's own clients cannot be built here, so their requests are made
  as their sources make them (sym_upload's v1 form with the key in ?key=,
  symbol_collector_client.cc's four sym-upload-v2 requests with the
  "application/son" completion, an empty uploads:create body, the PUT to the
  returned URL as it is), and their answers read with the same regular
  expressions they use (`"name": "value"`).
- A `symstore add --keep-binaries` store sent with `--protocol put` lands
  whole: the kept binaries beside their .sym files and the .build-id
  entries, byte-identical.
- sym-upload-v2's four requests spread over two servers over one store
  directory still store the file (the servers share nothing but the store).
- Hostile requests each get their status (a 4xx with a one-line reason)
  and leave the store unchanged (every file's bytes hashed before and
  after, and the spool left empty): path traversal in every encoding
  (%2e%2e, %252e%252e, %2f, backslash, overlong UTF-8 %c0%ae, absolute),
  zip-slip, a symlink entry, a zip bomb, a truncated multipart body, a
  misfiled MODULE line, a missing and a wrong token; other bytes for a
  stored file get 409 until the server runs with --replace."""
import hashlib
import io
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import zipfile

from common import Report, arguments, require_shared
from serve_process import ServeProcess

BINARIES = ["cprog.gcc12.g-O2", "cxxprog.gcc12.g-O2", "cprog.clang19.g-O2", "crashchain.gcc12.g-O2"]
UPLOAD = "uptoken9Kq2"
DOWNLOAD_ONLY = "downtoken4Zr8"
RUN_SECONDS = 300


def tree(root):
    """{relative path: sha256} of every file outside dot-directories."""
    out = {}
    for directory, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in names:
            full = os.path.join(directory, name)
            with open(full, "rb") as fh:
                out[os.path.relpath(full, root)] = hashlib.sha256(fh.read()).hexdigest()
    return out


def spool_files(root, seconds=10):
    """What is left in the store's spool once requests are done (the server
    removes a request's spooled body just after its answer is sent, so this
    waits a little for it)."""
    spool = os.path.join(root, ".incoming")
    deadline = time.monotonic() + seconds
    while True:
        left = sorted(os.listdir(spool)) if os.path.isdir(spool) else []
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def environment(token):
    env = {k: v for k, v in os.environ.items() if k != "SYMSTORE_TOKEN" and not k.startswith("AWS_")}
    if token is not None:
        env["SYMSTORE_TOKEN"] = token
    return env


def upload(args, store, to, *options, token=UPLOAD):
    argv = [args.symstore, "upload", store, "--to", to, *options]
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=RUN_SECONDS,
                           env=environment(token), stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", ""


def multipart(fields, files):
    """A multipart/form-data body as libcurl's form API writes it."""
    boundary = "------------------------" + hashlib.sha1(os.urandom(8)).hexdigest()[:16]
    out = io.BytesIO()
    for name, value in fields:
        out.write(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n".encode())
        out.write(value.encode() + b"\r\n")
    for name, filename, data, ctype in files:
        out.write(f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; "
                  f"filename=\"{filename}\"\r\nContent-Type: {ctype}\r\n\r\n".encode())
        out.write(data + b"\r\n")
    out.write(f"--{boundary}--\r\n".encode())
    return out.getvalue(), f"multipart/form-data; boundary={boundary}"


def zip_bytes(entries):
    """entries: (name, bytes[, symlink])"""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for entry in entries:
            name, data = entry[0], entry[1]
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if len(entry) > 2 and entry[2]:
                info.create_system = 3
                info.external_attr = (0o120777 << 16)
            z.writestr(info, data)
    return out.getvalue()


def raw_request(server, method, target, headers, body=b"", close_after=None, timeout=30):
    """Sends the request line and headers exactly as given (no encoding by a
    library); `close_after`: send only that many body bytes, then close the
    writing side. The status, or None when the server answers nothing."""
    with socket.create_connection((server.host, server.port), timeout=timeout) as s:
        head = f"{method} {target} HTTP/1.1\r\nHost: {server.host}:{server.port}\r\nConnection: close\r\n"
        for k, v in headers.items():
            head += f"{k}: {v}\r\n"
        s.sendall(head.encode("latin-1") + b"\r\n")
        s.sendall(body if close_after is None else body[:close_after])
        if close_after is not None:
            s.shutdown(socket.SHUT_WR)
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except (socket.timeout, ConnectionResetError):
            pass
    match = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return (int(match.group(1)) if match else None), data


def body_of(response):
    return response.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in response else b""


def make_source_store(args, root):
    release = os.path.join(root, "release")
    os.makedirs(release)
    for binary in BINARIES:
        shutil.copy(os.path.join(args.shared, "corpus", "bin", binary), release)
    store = os.path.join(root, "source")
    p = subprocess.run([args.symstore, "add", store, release, "-q"], capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"symstore add: exit {p.returncode}: {p.stderr.strip()}")
    files = {}
    for relative in tree(store):
        if relative.endswith(".sym"):
            with open(os.path.join(store, relative), "rb") as fh:
                files[relative] = fh.read()
    if len(files) != len(BINARIES):
        raise SystemExit(f"symstore add made {len(files)} symbol files of {len(BINARIES)} binaries")
    return store, files


def check_landed(report, what, served, files, source=None):
    got = tree(served)
    want = {k: hashlib.sha256(v).hexdigest() for k, v in files.items()}
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    differ = sorted(k for k in set(want) & set(got) if want[k] != got[k])
    for k in missing:
        report.fail(f"{what}: {k} did not land")
    for k in extra:
        report.fail(f"{what}: {k} landed but was not sent")
    for k in differ:
        report.fail(f"{what}: {k} landed with other bytes")
    if source:
        # Readable as symstore add's own files are (nginx may serve the same store).
        for k in sorted(set(want) & set(got)):
            mode = os.stat(os.path.join(served, k)).st_mode & 0o777
            source_mode = os.stat(os.path.join(source, k)).st_mode & 0o777
            if mode != source_mode:
                report.fail(f"{what}: {k} landed with mode {mode:o}, symstore add's is {source_mode:o}")
                break
    left = spool_files(served)
    if left:
        report.fail(f"{what}: the spool keeps {left}")
    return not (missing or extra or differ)


def client_protocols(args, report, tmp, tokens, source, files):
    runs = [("put", "", []), ("put --gzip", "", ["--gzip"]),
            ("breakpad-v1 /symupload", "/symupload", []), ("breakpad-v1 /upload/", "/upload/", []),
            ("breakpad-v2", "", []), ("breakpad-v2 --gzip", "", ["--gzip"]), ("tecken", "", [])]
    checked = 0
    for name, path, extra in runs:
        protocol = name.split()[0]
        served = os.path.join(tmp, "served-" + re.sub(r"\W+", "-", name))
        os.makedirs(served)
        with ServeProcess(args.symstore, served, "--tokens", tokens, quiet=True) as server:
            code, out = upload(args, source, server.url + path, "--protocol", protocol, *extra)
            if code != 0:
                report.fail(f"{name}: symstore upload exit {code}: {out.strip()[-800:]}")
                continue
            if check_landed(report, name, served, files, source):
                checked += len(files)
            before = tree(served)
            mtimes = {k: os.stat(os.path.join(served, k)).st_mtime_ns for k in before}
            # The client's ledger (breakpad-v1, tecken) would send nothing again:
            # without it every file goes again and the server must change nothing.
            shutil.rmtree(os.path.join(source, ".uploaded"), ignore_errors=True)
            code, out = upload(args, source, server.url + path, "--protocol", protocol, *extra)
            if code != 0:
                report.fail(f"{name}: the second symstore upload: exit {code}: {out.strip()[-800:]}")
            after = tree(served)
            if after != before or any(os.stat(os.path.join(served, k)).st_mtime_ns != mtimes[k]
                                      for k in after):
                report.fail(f"{name}: the second upload changed the store")
            # Without a token, or with one that may only download: refused, nothing lands.
            empty = os.path.join(tmp, "empty-" + re.sub(r"\W+", "-", name))
            os.makedirs(empty)
        with ServeProcess(args.symstore, empty, "--tokens", tokens, quiet=True) as server:
            for token in (None, DOWNLOAD_ONLY, "not-a-token"):
                code, out = upload(args, source, server.url + path, "--protocol", protocol,
                                   "--retries", "0", token=token)
                if code == 0:
                    report.fail(f"{name}: an upload with token {token!r} succeeded")
            if tree(empty):
                report.fail(f"{name}: uploads without an upload token left {sorted(tree(empty))}")
    report.note(f"our client: {len(runs)} protocol runs, {checked} files landed byte-identical, "
                f"second runs no-ops, no-token/download-token/wrong-token runs refused")


def breakpad_clients(report, server, served, files):
    """Breakpad's sym_upload (v1 and sym-upload-v2), request for request."""
    relative, data = sorted(files.items())[0]
    module = data.split(b"\n", 1)[0].decode().split(" ")
    os_, cpu, debug_id, debug_file = module[1], module[2], module[3], module[4]
    key = urllib.parse.quote(UPLOAD)

    # v1: sym_upload URL -> SendRequest with the form fields, key in the URL.
    body, ctype = multipart([("os", os_), ("cpu", cpu), ("debug_file", debug_file),
                             ("code_file", debug_file), ("debug_identifier", debug_id)],
                            [("symbol_file", "/tmp/x/" + debug_file + ".sym", data, "application/octet-stream")])
    status, _, answer = server.request("POST", f"/symupload?key={key}", body, {"Content-Type": ctype})
    if status != 200:
        report.fail(f"Breakpad v1 with ?key=: HTTP {status} {answer[:200]!r} (sym_upload wants 200)")
    with open(os.path.join(served, relative), "rb") as fh:
        if fh.read() != data:
            report.fail("Breakpad v1: the file did not land byte-identical")

    # sym-upload-v2, a second module, as symbol_collector_client.cc asks.
    relative, data = sorted(files.items())[1]
    module = data.split(b"\n", 1)[0].decode().split(" ")
    debug_id, debug_file = module[3], module[4]
    regex = lambda name, text: re.search(rf'"{name}": "([^"]+)"', text.decode(errors="replace"))
    status, _, answer = server.request("GET", f"/v1/symbols/{debug_file}/{debug_id}:checkStatus?key={key}")
    m = regex("status", answer)
    if status != 200 or not m or m.group(1) != "MISSING":
        report.fail(f"v2 checkStatus before: HTTP {status} {answer[:200]!r}")
    status, _, answer = server.request("POST", f"/v1/uploads:create?key={key}", b"", {})
    url, upload_key = regex("uploadUrl", answer), regex("uploadKey", answer)
    if status != 200 or not url or not upload_key:
        report.fail(f"v2 uploads:create: HTTP {status} {answer[:200]!r}")
        return
    target = urllib.parse.urlsplit(url.group(1))
    put_path = target.path + ("?" + target.query if target.query else "")
    status, _, answer = server.request("PUT", put_path, data, {})
    if status != 200:
        report.fail(f"v2 PUT to the upload URL: HTTP {status} {answer[:200]!r} (sym_upload wants 200)")
    son = (f'{{ symbol_id: {{debug_file: "{debug_file}", debug_id: "{debug_id}" }}, '
           f'symbol_upload_type: "BREAKPAD" }}')
    status, _, answer = server.request("POST", f"/v1/uploads/{upload_key.group(1)}:complete?key={key}",
                                       son.encode(), {"Content-Type": "application/son"})
    m = regex("result", answer)
    if status != 200 or not m or m.group(1) != "OK":
        report.fail(f"v2 complete: HTTP {status} {answer[:200]!r}")
    with open(os.path.join(served, relative), "rb") as fh:
        if fh.read() != data:
            report.fail("sym-upload-v2: the file did not land byte-identical")
    status, _, answer = server.request("GET", f"/v1/symbols/{debug_file}/{debug_id.lower()}:checkStatus?key={key}")
    m = regex("status", answer)
    if not m or m.group(1) != "FOUND":
        report.fail(f"v2 checkStatus after (id in lower case): HTTP {status} {answer[:200]!r}")
    if os.path.exists(os.path.join(served, ".uploads", upload_key.group(1))):
        report.fail("v2: the received copy .uploads/<key> is left after :complete")

    # Tecken, as its clients send it: the zip as a form file, Auth-Token.
    relative, data = sorted(files.items())[2]
    body, ctype = multipart([], [("file", "symbols.zip", zip_bytes([(relative, data)]), "application/zip")])
    status, headers, answer = server.request("POST", "/upload/", body, {"Content-Type": ctype, "Auth-Token": UPLOAD})
    if status != 201 or b'"upload"' not in answer:
        report.fail(f"Tecken zip: HTTP {status} {answer[:200]!r}")
    with open(os.path.join(served, relative), "rb") as fh:
        if fh.read() != data:
            report.fail("Tecken: the file did not land byte-identical")
    # The same zip as the whole body (not a form): taken too, the same bytes a no-op.
    before = tree(served)
    status, _, answer = server.request("POST", "/upload/", zip_bytes([(relative, data)]),
                                       {"Content-Type": "application/zip", "Auth-Token": UPLOAD})
    if status != 201 or relative.encode() not in answer or tree(served) != before:
        report.fail(f"Tecken zip as the body: HTTP {status} {answer[:200]!r}")
    report.note("Breakpad's v1 and sym-upload-v2 requests and a Tecken zip: stored as their clients expect")


def build_id_entries(root):
    """{relative path: bytes} of the .build-id index."""
    out = {}
    index = os.path.join(root, ".build-id")
    for directory, _, names in os.walk(index):
        for name in names:
            full = os.path.join(directory, name)
            with open(full, "rb") as fh:
                out[os.path.relpath(full, root)] = fh.read()
    return out


def kept_binaries(args, report, tmp, tokens):
    """A `symstore add --keep-binaries` store sent with `symstore upload
    --protocol put`: the served store ends up the same files, kept binaries
    and .build-id entries included."""
    release = os.path.join(tmp, "kept-release")
    os.makedirs(release)
    for binary in BINARIES[:2]:
        shutil.copy(os.path.join(args.shared, "corpus", "bin", binary), release)
    source = os.path.join(tmp, "kept-source")
    p = subprocess.run([args.symstore, "add", source, release, "--keep-binaries", "-q"],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        report.fail(f"symstore add --keep-binaries: exit {p.returncode}: {p.stderr.strip()}")
        return
    served = os.path.join(tmp, "served-kept")
    os.makedirs(served)
    with ServeProcess(args.symstore, served, "--tokens", tokens, quiet=True) as server:
        code, out = upload(args, source, server.url, "--protocol", "put")
        if code != 0:
            report.fail(f"put of a --keep-binaries store: exit {code}: {out.strip()[-800:]}")
        kept_files_of_other_builds(report, server, source, served)
    want, got = tree(source), tree(served)
    if want != got:
        report.fail(f"put of a --keep-binaries store: missing {sorted(set(want) - set(got))}, "
                    f"extra {sorted(set(got) - set(want))}, other bytes "
                    f"{sorted(k for k in set(want) & set(got) if want[k] != got[k])}")
    if build_id_entries(source) != build_id_entries(served):
        report.fail(f"put of a --keep-binaries store: .build-id entries {sorted(build_id_entries(served))}, "
                    f"want {sorted(build_id_entries(source))}")
    report.note(f"a --keep-binaries store over put: {len(want)} files and "
                f"{len(build_id_entries(source))} .build-id entries landed as symstore add wrote them")


def breakpad_id(build_id_hex):
    """A GNU build id as Breakpad's debug id: its first 16 bytes as a GUID
    (the first three fields byte-swapped), then age 0."""
    b = bytes.fromhex(build_id_hex)[:16].ljust(16, b"\0")
    return (b[3::-1] + b[5:3:-1] + b[7:5:-1] + b[8:]).hex().upper() + "0"


def kept_files_of_other_builds(report, server, source, served):
    """A kept file is published only under its own build's path: another
    build's binary beside a module's .sym, or a file that is no object, is
    refused (422) and leaves the store as it was. (readelf names the build
    ids the refusal must name.)"""
    kept = sorted(k for k in tree(source) if not k.endswith(".sym") and not k.startswith(".") and
                  k.count("/") == 2 and not k.endswith(".sym.idx"))
    if len(kept) < 2:
        report.fail(f"kept files of other builds: the source store keeps {kept}")
        return
    first = kept[0]
    second = next((k for k in kept if k.split("/")[0] != first.split("/")[0]), None)
    if second is None:
        report.fail(f"kept files of other builds: one module only in {kept}")
        return
    before = tree(served)
    with open(os.path.join(source, second), "rb") as fh:
        other = fh.read()
    note = subprocess.run(["readelf", "-n", os.path.join(source, second)], capture_output=True, text=True).stdout
    other_id = re.search(r"Build ID: ([0-9a-f]+)", note)
    module, debug_id, _ = first.split("/")
    headers = {"Authorization": "Bearer " + UPLOAD}
    for label, name, body, reason in (
            ("another build's binary", "other-build.so", other, breakpad_id(other_id.group(1)) if other_id else "?"),
            ("a file that is no object", "notes.txt", b"just some text\n", "not an ELF, PE, PDB or Mach-O")):
        status, _, answer = server.request("PUT", f"/{module}/{debug_id}/{name}", body, headers)
        if status != 422 or reason not in answer.decode(errors="replace") or answer.count(b"\n") > 1:
            report.fail(f"kept file PUT of {label}: HTTP {status} {answer[:200]!r}, want 422 naming {reason!r}")
    if tree(served) != before:
        report.fail("refused kept files changed the store")


def v2_across_servers(report, args, tokens, tmp, files):
    """sym-upload-v2's four requests, each to another of two servers over one
    store directory: nothing but the store is shared between them."""
    served = os.path.join(tmp, "served-two")
    os.makedirs(served)
    relative, data = sorted(files.items())[3]
    module = data.split(b"\n", 1)[0].decode().split(" ")
    debug_id, debug_file = module[3], module[4]
    key = urllib.parse.quote(UPLOAD)
    regex = lambda name, text: re.search(rf'"{name}": "([^"]+)"', text.decode(errors="replace"))
    with ServeProcess(args.symstore, served, "--tokens", tokens, quiet=True) as a, \
            ServeProcess(args.symstore, served, "--tokens", tokens, quiet=True) as b:
        status, _, answer = a.request("GET", f"/v1/symbols/{debug_file}/{debug_id}:checkStatus?key={key}")
        status, _, answer = b.request("POST", f"/v1/uploads:create?key={key}", b"", {})
        url, upload_key = regex("uploadUrl", answer), regex("uploadKey", answer)
        if status != 200 or not url or not upload_key:
            report.fail(f"two servers: uploads:create on B: HTTP {status} {answer[:200]!r}")
            return
        target = urllib.parse.urlsplit(url.group(1))
        status, _, answer = a.request("PUT", target.path + "?" + target.query, data, {})
        if status != 200:
            report.fail(f"two servers: PUT on A: HTTP {status} {answer[:200]!r}")
        son = (f'{{ symbol_id: {{debug_file: "{debug_file}", debug_id: "{debug_id}" }}, '
               f'symbol_upload_type: "BREAKPAD" }}')
        status, _, answer = b.request("POST", f"/v1/uploads/{upload_key.group(1)}:complete?key={key}",
                                      son.encode(), {"Content-Type": "application/son"})
        m = regex("result", answer)
        if status != 200 or not m or m.group(1) != "OK":
            report.fail(f"two servers: :complete on B: HTTP {status} {answer[:200]!r}")
        status, _, answer = a.request("GET", f"/v1/symbols/{debug_file}/{debug_id}:checkStatus?key={key}")
        m = regex("status", answer)
        if not m or m.group(1) != "FOUND":
            report.fail(f"two servers: checkStatus on A after: HTTP {status} {answer[:200]!r}")
    with open(os.path.join(served, relative), "rb") as fh:
        if fh.read() != data:
            report.fail("two servers: the file did not land byte-identical")
    report.note("sym-upload-v2 across two servers over one directory: create on B, PUT on A, "
                "complete on B, FOUND on A")


def hostile(report, server, served, files):
    relative, data = sorted(files.items())[0]
    debug_file, debug_id, name = relative.split("/")
    other_sym = data.replace(b"\nFUNC ", b"\nFUNC ", 1) + b"PUBLIC fffff0 0 added_by_someone_else\n"
    auth = {"Authorization": "Bearer " + UPLOAD}
    sym_headers = dict(auth, **{"Content-Type": "text/plain"})
    before = tree(served)
    cases = [
        # (what, method, raw target, headers, body, acceptable statuses)
        ("%2e%2e", "PUT", f"/%2e%2e/{debug_id}/{name}", sym_headers, data, {400}),
        ("%2e%2e deeper", "PUT", f"/{debug_file}/%2e%2e/%2e%2e/{name}", sym_headers, data, {400}),
        ("%252e%252e", "PUT", f"/%252e%252e/{debug_id}/{name}", sym_headers, data, {400, 422}),
        ("%2f", "PUT", f"/{debug_file}%2f..%2f..%2f{debug_id}/{name}", sym_headers, data, {400}),
        ("backslash", "PUT", f"/{debug_file}/..\\..\\{debug_id}/{name}", sym_headers, data, {400}),
        ("%5c", "PUT", f"/{debug_file}/..%5c..%5cx/{name}", sym_headers, data, {400}),
        ("overlong %c0%ae", "PUT", f"/%c0%ae%c0%ae/{debug_id}/{name}", sym_headers, data, {400}),
        ("absolute", "PUT", f"//tmp/{debug_id}/{name}", sym_headers, data, {400}),
        ("raw ..", "PUT", f"/../../{debug_id}/{name}", sym_headers, data, {400}),
        ("misfiled MODULE", "PUT", f"/libnot.so/{debug_id}/libnot.so.sym", sym_headers, data, {422}),
        ("not a .sym", "PUT", f"/{debug_file}/{debug_id}/{name}", sym_headers, b"MODULE nonsense\n", {422}),
        ("no token", "PUT", f"/{relative}", {"Content-Type": "text/plain"}, other_sym, {401}),
        ("wrong token", "PUT", f"/{relative}", {"Authorization": "Bearer nope"}, other_sym, {403}),
        ("download-only token", "PUT", f"/{relative}", {"Authorization": "Bearer " + DOWNLOAD_ONLY},
         other_sym, {403}),
        ("wrong ?key=", "PUT", f"/{relative}?key=nope", {}, other_sym, {403}),
        ("409 other bytes", "PUT", f"/{relative}", sym_headers, other_sym, {409}),
    ]
    zips = [
        ("zip-slip", [(relative, data), ("../../../tmp/" + relative, data)], {400}),
        ("zip absolute", [("/tmp/" + relative, data)], {400}),
        ("zip backslash", [(relative.replace("/", "\\"), data)], {400}),
        ("zip symlink", [(relative, b"/etc/passwd", True)], {400}),
        ("zip bomb", [(relative, data + b"\n" * (300 << 20))], {413}),
        ("zip misfiled", [("libnot.so/" + debug_id + "/libnot.so.sym", data)], {422}),
    ]
    for what, entries, statuses in zips:
        body, ctype = multipart([], [("symbols.zip", "symbols.zip", zip_bytes(entries), "application/zip")])
        cases.append((what, "POST", "/upload/", {"Content-Type": ctype, "Auth-Token": UPLOAD}, body, statuses))
    refused = 0
    for what, method, target, headers, body, statuses in cases:
        headers = dict(headers, **{"Content-Length": str(len(body))})
        status, response = raw_request(server, method, target, headers, body)
        reason = body_of(response).decode(errors="replace")
        if status not in statuses:
            report.fail(f"{what}: {method} {target[:80]}: HTTP {status}, want {sorted(statuses)}: {reason[:200]!r}")
        elif not reason.strip() or reason.strip().count("\n"):
            report.fail(f"{what}: HTTP {status} without a one-line reason: {reason[:200]!r}")
        else:
            refused += 1
        if tree(served) != before:
            report.fail(f"{what}: the store changed")
            before = tree(served)

    # A truncated multipart body: the connection ends before the body does.
    body, ctype = multipart([("os", "Linux"), ("cpu", "x86_64"), ("debug_file", debug_file),
                             ("code_file", debug_file), ("debug_identifier", debug_id)],
                            [("symbol_file", name, other_sym, "application/octet-stream")])
    status, _ = raw_request(server, "POST", "/symupload", dict(auth, **{"Content-Type": ctype,
                            "Content-Length": str(len(body))}), body, close_after=len(body) // 2)
    if status is not None and status < 400:
        report.fail(f"truncated multipart body: HTTP {status}")
    # A multipart body whose Content-Length is honest but whose closing boundary is missing.
    cut = body[:body.rindex(b"\r\n--")]
    status, response = raw_request(server, "POST", "/symupload", dict(auth, **{"Content-Type": ctype,
                                   "Content-Length": str(len(cut))}), cut)
    if status is None or status < 400:
        report.fail(f"multipart body without its closing boundary: HTTP {status}")
    time.sleep(0.5)
    if tree(served) != before:
        report.fail("a truncated multipart body changed the store")
    status, _, _ = server.request("GET", "/healthz")
    if status != 200:
        report.fail(f"after the hostile requests /healthz answers {status}")
    left = spool_files(served)
    if left:
        report.fail(f"hostile requests left spool files {left}")
    report.note(f"hostile: {refused} of {len(cases)} requests refused with their status and one line; "
                f"truncated bodies refused; the store unchanged")
    return relative, other_sym


def main():
    args = arguments(lambda p: p.add_argument("--symstore", required=True))
    require_shared(args)
    report = Report("serve_uploads")
    tmp = tempfile.mkdtemp(prefix="serve-uploads-")
    try:
        tokens = os.path.join(tmp, "tokens")
        with open(tokens, "w") as fh:
            fh.write(f"# uploads\n{UPLOAD} upload download\n{DOWNLOAD_ONLY} download\n")
        source, files = make_source_store(args, os.path.join(tmp, "src"))
        client_protocols(args, report, tmp, tokens, source, files)
        v2_across_servers(report, args, tokens, tmp, files)
        kept_binaries(args, report, tmp, tokens)

        served = os.path.join(tmp, "served-hostile")
        os.makedirs(served)
        with ServeProcess(args.symstore, served, "--tokens", tokens, quiet=True) as server:
            breakpad_clients(report, server, served, files)
            relative, other_sym = hostile(report, server, served, files)
        # --replace: the other bytes now replace the stored ones.
        with ServeProcess(args.symstore, served, "--tokens", tokens, "--replace", quiet=True) as server:
            status, _, answer = server.request("PUT", "/" + relative, other_sym,
                                               {"Authorization": "Bearer " + UPLOAD})
            if status != 201:
                report.fail(f"--replace: HTTP {status} {answer[:200]!r}, want 201")
            with open(os.path.join(served, relative), "rb") as fh:
                if fh.read() != other_sym:
                    report.fail("--replace: the stored file is not the new bytes")
            status, _, answer = server.request("PUT", "/" + relative, other_sym,
                                               {"Authorization": "Bearer " + UPLOAD})
            if status != 200:
                report.fail(f"--replace, the same bytes again: HTTP {status}, want 200")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
