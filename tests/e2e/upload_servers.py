"""Servers the upload test talks to, each a context manager on a free
loopback port that stops what it started:

  Nginx          nginx with WebDAV PUT, a document root and an access log
  FaultProxy     a forwarding proxy that fails a seeded share of requests
                 (503, 503 + Retry-After, 429, a dropped connection, a stall)
                 and records every request it sees
  BreakpadV1     Breakpad's sym_upload multipart POST
  BreakpadV2     Breakpad's sym-upload-v2 (checkStatus, uploads:create, a PUT
                 to the upload URL, :complete)
  Tecken         Mozilla's symbol server: a zip of <name>/<ID>/<name>.sym
                 POSTed as multipart/form-data to /upload/
  S3rver         the s3rver npm package, path-style buckets

plus an AWS Signature Version 4 signer and verifier (`sigv4_verify`) that
recomputes the signature of a request the proxy captured.

The mock servers answer 400 to anything that is not exactly their
protocol, never echo a secret back, keep what they accepted in `stored`
(`<name>/<ID>/<name>.sym` -> bytes) and count requests per kind in
`counts`. Every wait is bounded; every thread ends when the server stops.
"""
import collections
import datetime
import hashlib
import hmac
import http.client
import http.server
import io
import json
import os
import random
import re
import shutil
import signal
import socket
import socketserver
import subprocess
import tempfile
import threading
import time
import urllib.parse
import uuid
import zipfile

LOOPBACK = "127.0.0.1"
MAX_BODY = 256 << 20           # no request body above this is read
MAX_CONNECTIONS = 64           # connections served at once by one server
IDLE_SECONDS = 15              # a keep-alive connection idle this long is closed
START_SECONDS = 20             # a server that does not listen by then failed
STOP_SECONDS = 10              # threads and processes still running then are abandoned / killed


def free_port():
    """A port nothing listens on now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


closed_port = free_port  # the same thing, named for what a test means by it


def wait_listening(port, proc=None, seconds=START_SECONDS, what="server"):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{what} exited with status {proc.returncode} before listening on {port}")
        try:
            with socket.create_connection((LOOPBACK, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{what} is not listening on {LOOPBACK}:{port} after {seconds} s")


def stop_process(proc, sig=signal.SIGTERM):
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(STOP_SECONDS)


# --- HTTP plumbing shared by the proxy and the mock servers -----------------

class BadRequest(Exception):
    """A request that breaks the protocol: answered with 400 and this text."""


def read_body(handler, limit=MAX_BODY):
    """The request body, by Content-Length or chunked transfer coding."""
    rfile, headers = handler.rfile, handler.headers
    if "chunked" in headers.get("Transfer-Encoding", "").lower():
        parts, total = [], 0
        for _ in range(1 << 20):
            line = rfile.readline(1024)
            if not line.endswith(b"\n"):
                raise ConnectionError("chunked body: truncated chunk-size line")
            try:
                size = int(line.split(b";")[0].strip(), 16)
            except ValueError:
                raise BadRequest("chunked body: bad chunk size") from None
            if size == 0:
                for _ in range(100):  # trailer fields, then the empty line
                    if rfile.readline(8192) in (b"\r\n", b"\n", b""):
                        break
                return b"".join(parts)
            total += size
            if total > limit:
                raise BadRequest(f"body larger than {limit} bytes")
            data = rfile.read(size)
            if len(data) != size:
                raise ConnectionError("chunked body: connection closed mid-chunk")
            parts.append(data)
            rfile.readline(8)
        raise BadRequest("chunked body: too many chunks")
    length = headers.get("Content-Length")
    if length is None:
        return b""
    try:
        length = int(length)
    except ValueError:
        raise BadRequest("bad Content-Length") from None
    if length < 0 or length > limit:
        raise BadRequest(f"Content-Length {length} out of range")
    data = rfile.read(length)
    if len(data) != length:
        raise ConnectionError("connection closed mid-body")
    return data


def respond(handler, status, body=b"", content_type="text/plain; charset=utf-8", headers=()):
    if isinstance(body, str):
        body = body.encode()
    handler.send_response(status)
    for name, value in headers:
        handler.send_header(name, value)
    if body or status not in (204, 304):
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    if handler.command != "HEAD" and body:
        handler.wfile.write(body)


def respond_json(handler, status, value):
    # json.dumps' default separators give '"key": "value"', the spacing
    # Breakpad's client matches with its regular expressions.
    respond(handler, status, json.dumps(value), "application/json")


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive; Expect: 100-continue answered by the base class
    timeout = IDLE_SECONDS
    server_version = "symstore-test"

    def _dispatch(self):
        try:
            self.server.owner.handle(self)
        except BadRequest as e:
            self.close_connection = True  # the rest of the body may be unread
            try:
                self.server.owner.reject(self, str(e))
            except OSError:
                self.close_connection = True
        except (ConnectionError, socket.timeout, TimeoutError):
            self.close_connection = True

    do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = do_PATCH = do_OPTIONS = _dispatch

    def log_message(self, *args):
        pass


class _ThreadedHTTPServer(http.server.HTTPServer):
    """One thread per connection, at most MAX_CONNECTIONS at once; every
    open connection is shut when the server stops."""
    allow_reuse_address = True

    def __init__(self, owner, port):
        self.owner = owner
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.open = set()
        self.threads = set()
        self.lock = threading.Lock()
        super().__init__((LOOPBACK, port), _Handler)

    def process_request(self, request, client_address):
        if not self.slots.acquire(timeout=IDLE_SECONDS):
            self.shutdown_request(request)
            return
        with self.lock:
            self.open.add(request)
        thread = threading.Thread(target=self._serve, args=(request, client_address), daemon=True)
        with self.lock:
            self.threads.add(thread)
        thread.start()

    def _serve(self, request, client_address):
        try:
            self.finish_request(request, client_address)
        except Exception:  # a broken connection ends only itself
            pass
        finally:
            self.shutdown_request(request)
            with self.lock:
                self.open.discard(request)
                self.threads.discard(threading.current_thread())
            self.slots.release()

    def stop(self):
        self.shutdown()
        with self.lock:
            open_now, threads = list(self.open), list(self.threads)
        for sock in open_now:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + STOP_SECONDS
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.server_close()


class _PythonServer:
    """Base of the Python servers: `url`, start on enter, stop on exit."""
    what = "server"

    def __init__(self):
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.counts = collections.Counter()
        self.requests = []       # (time, method, path without query, status or kind)
        self.rejections = []     # (method, path without query, reason)
        self._server = None
        self._thread = None
        self.port = None

    @property
    def url(self):
        return f"http://{LOOPBACK}:{self.port}"

    def __enter__(self):
        for attempt in range(5):
            try:
                self._server = _ThreadedHTTPServer(self, free_port())
                break
            except OSError:
                if attempt == 4:
                    raise
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        daemon=True)
        self._thread.start()
        wait_listening(self.port, what=self.what)
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self._server.stop()
        self._thread.join(STOP_SECONDS)
        return False

    def note(self, method, path, outcome):
        with self.lock:
            self.requests.append((time.time(), method, path, outcome))

    def reject(self, handler, reason, status=400):
        """Answers `status` with `reason` (which never holds a secret)."""
        path = urllib.parse.urlsplit(handler.path).path
        with self.lock:
            self.counts["rejected"] += 1
            self.rejections.append((handler.command, path, reason))
        self.note(handler.command, path, status)
        respond(handler, status, reason + "\n")


# --- fault-injecting proxy ----------------------------------------------------

FAULT_KINDS = ("503", "503-retry-after", "429", "drop", "stall")
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
              "upgrade", "expect", "content-length"}


class FaultProxy(_PythonServer):
    """Forwards every request to `upstream` (headers verbatim, Host too, so
    that a signature over them still holds), except that a request
    `rule(method, path, n)` names a fault for (n: how many requests with that
    method and path came before it) gets the fault instead and never reaches
    the upstream. The default rule faults a `share` of requests, decided by
    a random generator seeded with (seed, method, path, n), so that the same
    client behaviour meets the same faults; the kinds are used in turn.

    Kinds: '503', '429' or any other status code (answered with that status),
    '503-retry-after' and '429-retry-after' (with Retry-After: 1), 'drop' (the
    connection closed after half of the request body, no answer), 'stall' (no
    answer for `stall` seconds, then the connection closed).

    `records` holds one dict per request: time, method, target (path and
    query as sent), headers (name, value) in order, body_sha256, body_length,
    fault (kind or None), status (what the client got, None if nothing),
    answered (the time the answer or the drop happened)."""
    what = "fault proxy"

    def __init__(self, upstream, share=0.0, seed=1, kinds=FAULT_KINDS, stall=3.5, rule=None,
                 upstream_timeout=30):
        super().__init__()
        parts = urllib.parse.urlsplit(upstream)
        self.upstream_host, self.upstream_port = parts.hostname, parts.port or 80
        if self.upstream_host not in (LOOPBACK, "localhost"):
            raise ValueError("the fault proxy forwards to loopback only")
        self.share, self.seed, self.kinds, self.stall = share, seed, tuple(kinds), stall
        self.rule = rule or self._seeded_rule
        self.upstream_timeout = upstream_timeout
        self.records = []
        self._seen = collections.Counter()
        self._faults_made = 0

    def _seeded_rule(self, method, path, n):
        if self.share <= 0:
            return None
        rng = random.Random(f"{self.seed}:{method}:{path}:{n}")
        if rng.random() >= self.share:
            return None
        with self.lock:
            kind = self.kinds[self._faults_made % len(self.kinds)]
            self._faults_made += 1
        return kind

    def faults(self):
        return collections.Counter(r["fault"] for r in self.records if r["fault"])

    def handle(self, h):
        method, target = h.command, h.path
        path = urllib.parse.urlsplit(target).path
        with self.lock:
            n = self._seen[(method, path)]
            self._seen[(method, path)] += 1
        kind = self.rule(method, path, n)
        rec = {"time": time.time(), "method": method, "target": target, "headers": list(h.headers.items()),
               "body_sha256": None, "body_length": None, "fault": kind, "status": None, "answered": None}
        with self.lock:
            self.records.append(rec)
        if kind == "drop":
            self._drop(h)
            rec["answered"] = time.time()
            return
        body = read_body(h)
        rec["body_sha256"], rec["body_length"] = hashlib.sha256(body).hexdigest(), len(body)
        if kind == "stall":
            self.stopping.wait(self.stall)
            h.close_connection = True
            rec["answered"] = time.time()
            try:
                h.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if kind:
            status = int(kind.split("-")[0])
            extra = [("Retry-After", "1")] if kind.endswith("-retry-after") else []
            rec["status"], rec["answered"] = status, time.time()
            respond(h, status, f"injected fault: {kind}\n", headers=extra)
            return
        rec["status"] = self._forward(h, method, target, body)
        rec["answered"] = time.time()

    def _drop(self, h):
        length = h.headers.get("Content-Length")
        h.connection.settimeout(1.0)
        try:
            if length and length.isdigit():
                h.rfile.read(min(int(length) // 2, MAX_BODY))
            elif "chunked" in h.headers.get("Transfer-Encoding", "").lower():
                h.rfile.read1(4096) if hasattr(h.rfile, "read1") else h.rfile.read(1)
        except OSError:
            pass
        h.close_connection = True
        try:
            # RST rather than FIN: the client sees the connection reset.
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            h.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _forward(self, h, method, target, body):
        conn = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=self.upstream_timeout)
        try:
            conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
            for name, value in h.headers.items():
                if name.lower() not in HOP_BY_HOP:
                    conn.putheader(name, value)
            if body or method in ("PUT", "POST", "PATCH"):
                conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body if body else None)
            resp = conn.getresponse()
            data = resp.read()
        except OSError as e:
            respond(h, 502, f"fault proxy: upstream unreachable: {e}\n")
            return 502
        finally:
            conn.close()
        h.send_response_only(resp.status, resp.reason)
        bodiless = method == "HEAD" or resp.status in (204, 304) or resp.status < 200
        for name, value in resp.getheaders():
            low = name.lower()
            if low in HOP_BY_HOP and not (low == "content-length" and bodiless):
                continue
            h.send_header(name, value)
        if not bodiless:
            h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        if not bodiless:
            h.wfile.write(data)
        return resp.status


# --- symbol files and multipart bodies ----------------------------------------

MODULE_LINE = re.compile(rb"MODULE (\S+) (\S+) ([0-9A-Fa-f]+) ([^\r\n]+)\r?\n")
STORE_PATH = re.compile(r"([^/]+)/([0-9A-Fa-f]+)/([^/]+)")


def module_of(data):
    """(os, cpu, id, name) of a symbol file's first line, or None."""
    m = MODULE_LINE.match(data)
    return tuple(g.decode("utf-8", "replace") for g in m.groups()) if m else None


def check_store_path(path, data):
    """Why `data` may not be stored at `path` (<name>/<ID>/<name>.sym), or None."""
    m = STORE_PATH.fullmatch(path)
    if not m or m.group(3) != m.group(1) + ".sym":
        return f"{path}: not <name>/<ID>/<name>.sym"
    module = module_of(data)
    if module is None:
        return f"{path}: the file does not begin with a MODULE line"
    if (module[3], module[2]) != (m.group(1), m.group(2)):
        return f"{path}: its MODULE line names {module[3]}/{module[2]}"
    return None


def parse_multipart(content_type, body):
    """[(headers dict lower-cased, name, filename or None, data)] of a
    multipart/form-data body; BadRequest if it is not one."""
    mime, _, params = content_type.partition(";")
    if mime.strip().lower() != "multipart/form-data":
        raise BadRequest(f"Content-Type {mime.strip()!r} is not multipart/form-data")
    m = re.search(r'boundary=(?:"([^"]+)"|([^;\s]+))', params)
    if not m:
        raise BadRequest("multipart/form-data without a boundary")
    delimiter = b"--" + (m.group(1) or m.group(2)).encode()
    if not body.startswith(delimiter + b"\r\n"):
        raise BadRequest("multipart body does not begin with its boundary")
    end = body.find(b"\r\n" + delimiter + b"--")
    if end < 0:
        raise BadRequest("multipart body has no closing boundary")
    parts = []
    for raw in body[len(delimiter) + 2:end].split(b"\r\n" + delimiter + b"\r\n"):
        head, sep, data = raw.partition(b"\r\n\r\n")
        if not sep:
            raise BadRequest("a multipart part without a header block")
        headers = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            name, colon, value = line.partition(":")
            if not colon:
                raise BadRequest(f"bad part header {line!r}")
            headers[name.strip().lower()] = value.strip()
        disposition = headers.get("content-disposition", "")
        if not disposition.lower().startswith("form-data"):
            raise BadRequest("a part without Content-Disposition: form-data")
        fields = dict((k.lower(), v) for k, v in re.findall(r';\s*([\w*]+)="([^"]*)"', disposition))
        if "name" not in fields:
            raise BadRequest("a part without a name")
        parts.append((headers, fields["name"], fields.get("filename"), data))
    return parts


# --- Breakpad's sym_upload (v1) -------------------------------------------------

class BreakpadV1(_PythonServer):
    """POST `path` with form fields os, cpu, debug_file, code_file,
    debug_identifier (and Breakpad's optional version) and the file part
    symbol_file; 200 on success. With `token`, the request must carry
    Authorization: Bearer <token>."""
    what = "breakpad-v1 mock"
    FIELDS = {"os", "cpu", "debug_file", "code_file", "debug_identifier"}

    def __init__(self, token=None, path="/symbols/upload"):
        super().__init__()
        self.token, self.path = token, path
        self.stored = {}

    @property
    def upload_url(self):
        return self.url + self.path

    def handle(self, h):
        target = urllib.parse.urlsplit(h.path)
        body = read_body(h)
        if h.command != "POST" or target.path != self.path:
            return self.reject(h, f"no such endpoint: {h.command} {target.path}")
        if self.token is not None and h.headers.get("Authorization") != f"Bearer {self.token}":
            return self.reject(h, "missing or invalid Authorization: Bearer token")
        parts = parse_multipart(h.headers.get("Content-Type", ""), body)
        fields, files = {}, {}
        for _, name, filename, data in parts:
            if name in fields or name in files:
                return self.reject(h, f"field {name} given twice")
            if filename is None:
                fields[name] = data.decode("utf-8", "replace")
            else:
                files[name] = (filename, data)
        unknown = set(fields) - self.FIELDS - {"version"}
        if unknown or not self.FIELDS <= set(fields):
            return self.reject(h, f"form fields {sorted(fields)}: want {sorted(self.FIELDS)}")
        if set(files) != {"symbol_file"}:
            return self.reject(h, f"file parts {sorted(files)}: want symbol_file")
        filename, data = files["symbol_file"]
        module = module_of(data)
        if module is None:
            return self.reject(h, "symbol_file does not begin with a MODULE line")
        os_, cpu, ident, name = module
        want = {"os": os_, "cpu": cpu, "debug_file": name, "code_file": name, "debug_identifier": ident}
        wrong = [k for k, v in want.items() if fields[k] != v]
        if wrong:
            return self.reject(h, f"fields {wrong} disagree with the MODULE line")
        if os.path.basename(filename) != name + ".sym":
            return self.reject(h, f"symbol_file filename {filename!r}: want {name}.sym")
        with self.lock:
            self.stored[f"{name}/{ident}/{name}.sym"] = data
            self.counts["upload"] += 1
        self.note("POST", target.path, 200)
        respond(h, 200, "OK\n")


# --- Breakpad's sym-upload-v2 ------------------------------------------------------

class BreakpadV2(_PythonServer):
    """The sym-upload-v2 API as Breakpad's `sym_upload -p sym-upload-v2`
    speaks it, every call but the PUT carrying ?key=<key>:
      GET  /v1/symbols/<name>/<id>:checkStatus      -> {"status": "FOUND"|"MISSING"}
      POST /v1/uploads:create (empty body)          -> {"uploadUrl": ..., "uploadKey": ...}
      PUT  <uploadUrl> (the file)                   -> 200
      POST /v1/uploads/<uploadKey>:complete         -> {"result": "OK"|"DUPLICATE_DATA"}
    The :complete body is JSON (application/json) or Breakpad's own
    JSON-like text (application/son)."""
    what = "breakpad-v2 mock"
    BREAKPAD_COMPLETE = re.compile(r'\{ symbol_id: \{debug_file: "([^"]*)", debug_id: "([^"]*)" \}, '
                                   r'symbol_upload_type: "([^"]*)" \}')

    def __init__(self, key=None):
        super().__init__()
        self.key = key
        self.stored = {}
        self.pending = {}  # uploadKey -> {"signature": ..., "body": bytes or None}

    def _check_key(self, h, query):
        keys = urllib.parse.parse_qs(query, keep_blank_values=True).get("key")
        if self.key is not None and keys != [self.key]:
            self.reject(h, "missing or invalid key")
            return False
        return True

    def handle(self, h):
        target = urllib.parse.urlsplit(h.path)
        path, method = target.path, h.command
        body = read_body(h)
        m = re.fullmatch(r"/v1/symbols/([^/]+)/([^/]+):checkStatus", path)
        if m and method == "GET":
            if not self._check_key(h, target.query):
                return
            name, ident = (urllib.parse.unquote(g) for g in m.groups())
            with self.lock:
                self.counts["checkStatus"] += 1
                found = f"{name}/{ident}/{name}.sym" in self.stored
            self.note(method, path, 200)
            return respond_json(h, 200, {"status": "FOUND" if found else "MISSING"})
        if path == "/v1/uploads:create" and method == "POST":
            if not self._check_key(h, target.query):
                return
            if body:
                return self.reject(h, "uploads:create takes an empty body")
            upload_key, signature = uuid.uuid4().hex, uuid.uuid4().hex
            with self.lock:
                self.counts["create"] += 1
                self.pending[upload_key] = {"signature": signature, "body": None}
            self.note(method, path, 200)
            return respond_json(h, 200, {"uploadUrl": f"{self.url}/storage/{upload_key}?signature={signature}",
                                         "uploadKey": upload_key})
        m = re.fullmatch(r"/storage/([0-9a-f]+)", path)
        if m and method == "PUT":
            with self.lock:
                slot = self.pending.get(m.group(1))
            signature = urllib.parse.parse_qs(target.query).get("signature")
            if slot is None or signature != [slot["signature"]]:
                return self.reject(h, "PUT to an upload URL this server did not hand out")
            with self.lock:
                slot["body"] = body
                self.counts["put"] += 1
            self.note(method, path, 200)
            return respond(h, 200)
        m = re.fullmatch(r"/v1/uploads/([^/]+):complete", path)
        if m and method == "POST":
            if not self._check_key(h, target.query):
                return
            return self._complete(h, m.group(1), body)
        return self.reject(h, f"no such endpoint: {method} {path}")

    def _complete(self, h, upload_key, body):
        content_type = h.headers.get("Content-Type", "").split(";")[0].strip().lower()
        text = body.decode("utf-8", "replace")
        if content_type == "application/json":
            try:
                value = json.loads(text)
            except ValueError:
                return self.reject(h, ":complete body is not JSON")
            if not (isinstance(value, dict) and set(value) == {"symbol_id", "symbol_upload_type"}
                    and isinstance(value["symbol_id"], dict)
                    and set(value["symbol_id"]) == {"debug_file", "debug_id"}):
                return self.reject(h, ':complete body is not {"symbol_id": {"debug_file", "debug_id"}, '
                                      '"symbol_upload_type"}')
            debug_file, debug_id = value["symbol_id"]["debug_file"], value["symbol_id"]["debug_id"]
            kind = value["symbol_upload_type"]
        elif content_type == "application/son":
            m = self.BREAKPAD_COMPLETE.fullmatch(text)
            if not m:
                return self.reject(h, ":complete body is not Breakpad's form")
            debug_file, debug_id, kind = m.groups()
        else:
            return self.reject(h, f":complete with Content-Type {content_type!r}")
        if kind != "BREAKPAD":
            return self.reject(h, f"symbol_upload_type {kind!r}: want BREAKPAD")
        with self.lock:
            slot = self.pending.get(upload_key)
        if slot is None or slot["body"] is None:
            return self.reject(h, ":complete of an upload key with no file PUT to it")
        data = slot["body"]
        module = module_of(data)
        if module is None or (module[3], module[2]) != (debug_file, debug_id):
            return self.reject(h, f":complete names {debug_file}/{debug_id}, the file says "
                                  f"{module and (module[3] + '/' + module[2])}")
        path = f"{debug_file}/{debug_id}/{debug_file}.sym"
        with self.lock:
            duplicate = self.stored.get(path) == data
            self.stored[path] = data
            del self.pending[upload_key]
            self.counts["complete"] += 1
        self.note("POST", urllib.parse.urlsplit(h.path).path, 200)
        respond_json(h, 200, {"result": "DUPLICATE_DATA" if duplicate else "OK"})


# --- Tecken ----------------------------------------------------------------------------

class Tecken(_PythonServer):
    """POST /upload/ with Auth-Token: <token> and a multipart/form-data body
    holding one file part (any field name, a .zip filename): a zip whose
    entries are all <name>/<ID>/<name>.sym with a matching MODULE line.
    201 on success. `request_sizes` holds the body length of every upload."""
    what = "tecken mock"

    def __init__(self, token=None):
        super().__init__()
        self.token = token
        self.stored = {}
        self.request_sizes = []
        self.batches = []  # the entry names of each accepted upload

    def handle(self, h):
        target = urllib.parse.urlsplit(h.path)
        body = read_body(h)
        with self.lock:
            self.request_sizes.append(len(body))
        if h.command != "POST" or target.path != "/upload/":
            return self.reject(h, f"no such endpoint: {h.command} {target.path}")
        if self.token is not None and h.headers.get("Auth-Token") != self.token:
            return self.reject(h, "missing or invalid Auth-Token")
        parts = parse_multipart(h.headers.get("Content-Type", ""), body)
        files = [p for p in parts if p[2] is not None]
        others = [p[1] for p in parts if p[2] is None and p[1] != "try"]
        if len(files) != 1 or others:
            return self.reject(h, f"{len(files)} file parts and fields {others}: want one .zip file part")
        _, _, filename, data = files[0]
        if not filename.lower().endswith(".zip"):
            return self.reject(h, f"file part {filename!r} is not a .zip")
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
            names = archive.namelist()
            if archive.testzip() is not None:
                raise zipfile.BadZipFile("CRC error")
            contents = {n: archive.read(n) for n in names}
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, RuntimeError) as e:
            return self.reject(h, f"not a valid zip: {e}")
        if not names or len(set(names)) != len(names):
            return self.reject(h, "a zip with no entries or with duplicate entries")
        for name in names:
            problem = check_store_path(name, contents[name])
            if problem:
                return self.reject(h, f"zip entry {problem}")
        with self.lock:
            self.stored.update(contents)
            self.batches.append(sorted(names))
            self.counts["upload"] += 1
            self.counts["files"] += len(names)
            upload_id = self.counts["upload"]
        self.note("POST", target.path, 201)
        respond_json(h, 201, {"upload": {"id": upload_id, "size": len(data), "filename": filename,
                                         "skipped_keys": [], "completed_at": None}})


# --- nginx ----------------------------------------------------------------------------------

NGINX_CONF = """\
worker_processes 1;
daemon off;
master_process on;
{user}pid {prefix}/nginx.pid;
error_log {prefix}/logs/error.log warn;
events {{ worker_connections 128; }}
http {{
    log_format upload '$request_method $request_uri $status $request_length';
    access_log {prefix}/logs/access.log upload;
    client_body_temp_path {prefix}/tmp/client_body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    client_max_body_size 0;
    default_type application/octet-stream;
    server {{
        listen {host}:{port};
        root {prefix}/root;
{locations}
        location / {{
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }}
    }}
}}
"""


class Nginx:
    """nginx serving `root` (files GET/HEAD, PUT creating directories) on a
    free loopback port, its access log one line per request:
    METHOD URI STATUS REQUEST_LENGTH (see `log`)."""

    def __init__(self, nginx="nginx", locations=""):
        self.nginx = nginx
        self.locations = locations  # more server-block directives (redirects, fixed answers)
        self.proc = None
        self.prefix = None
        self.port = None

    @property
    def url(self):
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def root(self):
        return os.path.join(self.prefix, "root")

    def __enter__(self):
        version = subprocess.run([self.nginx, "-V"], capture_output=True, text=True, timeout=30)
        if "--with-http_dav_module" not in version.stderr + version.stdout:
            raise RuntimeError(f"{self.nginx} was built without the WebDAV module (nginx -V)")
        self.prefix = tempfile.mkdtemp(prefix="nginx-")
        for sub in ("root", "logs", "tmp"):
            os.makedirs(os.path.join(self.prefix, sub))
        user = "user root root;\n" if os.geteuid() == 0 else ""
        conf = os.path.join(self.prefix, "nginx.conf")
        errors = os.path.join(self.prefix, "logs", "error.log")
        for attempt in range(3):
            self.port = free_port()
            with open(conf, "w") as fh:
                fh.write(NGINX_CONF.format(prefix=self.prefix, host=LOOPBACK, port=self.port, user=user,
                                          locations=self.locations))
            self.proc = subprocess.Popen([self.nginx, "-p", self.prefix, "-c", conf, "-e", errors],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
            try:
                wait_listening(self.port, self.proc, what="nginx")
                return self
            except RuntimeError as e:
                stop_process(self.proc)
                if attempt == 2:
                    with open(errors, errors="replace") as fh:
                        tail = fh.read()[-2000:]
                    shutil.rmtree(self.prefix, ignore_errors=True)
                    raise RuntimeError(f"{e}: {tail}") from None

    def __exit__(self, *exc):
        if self.proc is not None:
            stop_process(self.proc, signal.SIGQUIT)  # graceful: the log is complete
        shutil.rmtree(self.prefix, ignore_errors=True)
        return False

    def log(self):
        """[(method, uri, status, request_length)] in the order served, once
        the log has settled: nginx writes a request's line after sending its
        response, so a client that has all its answers can be ahead of it."""
        out = []
        path = os.path.join(self.prefix, "logs", "access.log")
        size, deadline = -1, time.monotonic() + 3.0
        while time.monotonic() < deadline:
            now = os.path.getsize(path) if os.path.exists(path) else 0
            if now == size:
                break
            size = now
            time.sleep(0.1)
        if not os.path.exists(path):
            return out
        with open(path, errors="replace") as fh:
            for line in fh:
                fields = line.split()
                if len(fields) == 4:
                    out.append((fields[0], fields[1], int(fields[2]), int(fields[3])))
        return out

    def clear(self):
        """Removes every file served (the log stays)."""
        for name in os.listdir(self.root):
            full = os.path.join(self.root, name)
            shutil.rmtree(full) if os.path.isdir(full) else os.remove(full)


# --- s3rver -------------------------------------------------------------------------------------

S3RVER_KEY = S3RVER_SECRET = "S3RVER"  # s3rver's built-in account


class S3rver:
    """The s3rver npm package on a free loopback port with `bucket` made at
    start, path-style only. s3rver knows one account (S3RVER / S3RVER) and
    refuses any other access key with InvalidAccessKeyId, but it does not
    check Signature V4 signatures: `sigv4_verify` does that."""

    def __init__(self, s3rver, bucket="symbols"):
        self.s3rver, self.bucket = s3rver, bucket
        self.proc = None
        self.dir = None
        self.port = None

    @property
    def url(self):
        return f"http://{LOOPBACK}:{self.port}"

    def __enter__(self):
        if not os.access(self.s3rver, os.X_OK):
            raise RuntimeError(f"s3rver is not at {self.s3rver} (npm install s3rver)")
        self.dir = tempfile.mkdtemp(prefix="s3rver-")
        os.makedirs(os.path.join(self.dir, "data"))
        log = open(os.path.join(self.dir, "s3rver.log"), "w")
        for attempt in range(3):
            self.port = free_port()
            self.proc = subprocess.Popen([self.s3rver, "-d", os.path.join(self.dir, "data"), "-a", LOOPBACK,
                                          "-p", str(self.port), "--no-vhost-buckets",
                                          "--configure-bucket", self.bucket],
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
            try:
                wait_listening(self.port, self.proc, what="s3rver")
                break
            except RuntimeError:
                stop_process(self.proc)
                if attempt == 2:
                    log.close()
                    tail = open(os.path.join(self.dir, "s3rver.log"), errors="replace").read()[-2000:]
                    shutil.rmtree(self.dir, ignore_errors=True)
                    raise RuntimeError(f"s3rver did not start: {tail}") from None
        log.close()
        # The bucket is made after the port opens: wait until it answers.
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.request("HEAD", f"/{self.bucket}")[0] == 200:
                return self
            time.sleep(0.1)
        raise RuntimeError(f"s3rver: bucket {self.bucket} not there after {START_SECONDS} s")

    def __exit__(self, *exc):
        if self.proc is not None:
            stop_process(self.proc)
        shutil.rmtree(self.dir, ignore_errors=True)
        return False

    def request(self, method, path, body=b"", key=S3RVER_KEY, secret=S3RVER_SECRET):
        """(status, body) of a request signed with Signature V4."""
        host = f"{LOOPBACK}:{self.port}"
        headers = sigv4_sign(method, path, {"Host": host}, body, key, secret)
        conn = http.client.HTTPConnection(LOOPBACK, self.port, timeout=30)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for name, value in headers.items():
                conn.putheader(name, value)
            conn.putheader("Content-Length", str(len(body)))
            conn.endheaders(body or None)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def get(self, key):
        """The object's bytes, or None."""
        status, data = self.request("GET", f"/{self.bucket}/" + urllib.parse.quote(key))
        return data if status == 200 else None

    def keys(self):
        status, data = self.request("GET", f"/{self.bucket}?list-type=2&max-keys=1000")
        return re.findall(r"<Key>([^<]*)</Key>", data.decode()) if status == 200 else []


# --- AWS Signature Version 4 ---------------------------------------------------------------
# AWS's documented algorithm: a canonical request (method, URI, query,
# signed headers, payload hash), a string to sign over its hash, and a key
# derived from the secret by HMAC over date, region, service, "aws4_request".

def _uri_encode(text, keep_slash):
    return urllib.parse.quote(text, safe="-_.~" + ("/" if keep_slash else ""))


def _hmac(key, text):
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def sigv4_canonical_request(method, target, headers, signed_headers, payload_hash):
    """`target` is the request target as sent (path and query); `headers`
    (name, value) pairs as sent."""
    path, _, query = target.partition("?")
    uri = _uri_encode(urllib.parse.unquote(path), True) or "/"
    params = []
    for item in filter(None, query.split("&")):
        name, _, value = item.partition("=")
        params.append((_uri_encode(urllib.parse.unquote(name), False),
                       _uri_encode(urllib.parse.unquote(value), False)))
    canonical_query = "&".join(f"{n}={v}" for n, v in sorted(params))
    values = collections.defaultdict(list)
    for name, value in headers:
        values[name.lower()].append(" ".join(value.split()))
    canonical_headers = "".join(f"{n}:{','.join(values[n])}\n" for n in signed_headers)
    return "\n".join([method, uri, canonical_query, canonical_headers, ";".join(signed_headers), payload_hash])


def sigv4_signature(secret, amz_date, region, service, canonical_request):
    scope = f"{amz_date[:8]}/{region}/{service}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", amz_date, scope,
                         hashlib.sha256(canonical_request.encode()).hexdigest()])
    key = _hmac(("AWS4" + secret).encode(), amz_date[:8])
    for part in (region, service, "aws4_request"):
        key = _hmac(key, part)
    return hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()


def sigv4_sign(method, target, headers, body, key, secret, region="us-east-1", service="s3", amz_date=None):
    """`headers` plus x-amz-date, x-amz-content-sha256 and Authorization."""
    amz_date = amz_date or datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = dict(headers)
    out["x-amz-date"] = amz_date
    out["x-amz-content-sha256"] = hashlib.sha256(body).hexdigest()
    signed = sorted(n.lower() for n in out)
    canonical = sigv4_canonical_request(method, target, list(out.items()), signed, out["x-amz-content-sha256"])
    signature = sigv4_signature(secret, amz_date, region, service, canonical)
    out["Authorization"] = (f"AWS4-HMAC-SHA256 Credential={key}/{amz_date[:8]}/{region}/{service}/aws4_request, "
                            f"SignedHeaders={';'.join(signed)}, Signature={signature}")
    return out


AUTHORIZATION = re.compile(r"AWS4-HMAC-SHA256 Credential=([^/,\s]+)/(\d{8})/([^/,\s]+)/([^/,\s]+)/aws4_request,\s*"
                           r"SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})")


def sigv4_verify(record, secret, key=None, now=None):
    """Recomputes the Signature V4 of a request the FaultProxy recorded;
    returns None when it holds, else why not. The payload hash must be the
    x-amz-content-sha256 header and equal the SHA-256 of the body."""
    headers = record["headers"]
    get = lambda name: next((v for n, v in headers if n.lower() == name), None)
    auth = get("authorization")
    if auth is None:
        return "no Authorization header"
    m = AUTHORIZATION.fullmatch(auth.strip())
    if not m:
        return f"Authorization is not AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…"
    access_key, date, region, service, signed, signature = m.groups()
    signed = signed.split(";")
    if key is not None and access_key != key:
        return f"signed with access key {access_key!r}, want {key!r}"
    if signed != sorted(signed) or not {"host", "x-amz-date", "x-amz-content-sha256"} <= set(signed):
        return f"SignedHeaders {';'.join(signed)}: must be sorted and hold host, x-amz-content-sha256, x-amz-date"
    absent = [name for name in signed if get(name) is None]
    amz_date = get("x-amz-date")
    if not re.fullmatch(r"\d{8}T\d{6}Z", amz_date) or amz_date[:8] != date:
        return f"x-amz-date {amz_date!r} does not match the credential date {date}"
    when = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    now = now or record.get("time") or time.time()
    if abs(when.timestamp() - now) > 15 * 60:
        return f"x-amz-date {amz_date} is more than 15 minutes from the time of the request"
    payload = get("x-amz-content-sha256")
    if record.get("body_sha256") is not None and payload != record["body_sha256"]:
        return f"x-amz-content-sha256 {payload} is not the SHA-256 of the body ({record['body_sha256']})"
    if absent:
        # AWS refuses these (IncompleteSignatureException: "'x' is named as
        # a SignedHeader, but it does not exist in the HTTP request"). Say
        # whether the signature holds otherwise, with them as empty values.
        canonical = sigv4_canonical_request(record["method"], record["target"],
                                            headers + [(n, "") for n in absent], signed, payload)
        holds = hmac.compare_digest(sigv4_signature(secret, amz_date, region, service, canonical), signature)
        return (f"SignedHeaders names {', '.join(absent)}, not in the request (AWS refuses that); "
                f"with {'it' if len(absent) == 1 else 'them'} as empty the signature "
                f"{'holds otherwise' if holds else 'does not hold either'}")
    canonical = sigv4_canonical_request(record["method"], record["target"], headers, signed, payload)
    expected = sigv4_signature(secret, amz_date, region, service, canonical)
    if not hmac.compare_digest(expected, signature):
        return f"signature {signature} is not the recomputed {expected}; canonical request:\n{canonical}"
    return None


def sigv4_self_check():
    """The verifier against AWS's published example (GET /test.txt from
    examplebucket with a Range header, 24 May 2013); None if it agrees."""
    record = {
        "method": "GET", "target": "/test.txt", "body_sha256": hashlib.sha256(b"").hexdigest(), "time": None,
        "headers": [("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                    ("x-amz-content-sha256", hashlib.sha256(b"").hexdigest()),
                    ("x-amz-date", "20130524T000000Z"),
                    ("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
                                      "aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                                      "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")],
    }
    when = datetime.datetime(2013, 5, 24, tzinfo=datetime.timezone.utc).timestamp()
    good = sigv4_verify(record, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", now=when)
    if good is not None:
        return f"AWS's example does not verify: {good}"
    if sigv4_verify(record, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ", now=when) is None:
        return "AWS's example verifies with a wrong secret"
    return None
