#!/usr/bin/env python3
"""symstore serve, the operations side, with Python's own HTTP client and
raw sockets as the clients: the first line, /healthz, /metrics in
Prometheus' text format (every line a comment or a sample, counters that
grow), tokens (none 401, unknown 403, too weak 403, never 403 for a
missing file; --private), a client that stalls mid-body dropped after
--timeout leaving no spool file, a body cut short leaving nothing, SIGTERM
during a slow download letting it finish (exit 0), no token in the access
log, 1000 connections opened at once all answered, two servers over one
directory (an upload through one served by the other, a conflict refused), and one-line errors at
start for a store, a tokens file or an address that cannot be used."""
import hashlib
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from common import Report, arguments
from serve_process import ServeError, ServeProcess

UPLOAD = "upl0ad-T0ken+x/y="          # needs URL encoding in ?key=
DOWNLOAD = "d0wnload-T0ken"
BOTH = "b0th-T0ken"
BOTH_PLUS = "b0th+T0ken/2="            # sent unescaped in ?key=
UNKNOWN = "n0t-a-T0ken"
SECRETS = [UPLOAD, DOWNLOAD, BOTH, BOTH_PLUS, UNKNOWN]
DEBUG_ID = "0123456789ABCDEF0123456789ABCDEF0"
SYM_PATH = f"/app/{DEBUG_ID}/app.sym"
BIG_PATH = f"/big/{DEBUG_ID}/big.sym"
BIG_BYTES = 48 << 20                   # far more than socket buffers hold
CONNECTIONS = 1000

SAMPLE = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})? '
                    r'[-+]?([0-9.]+([eE][-+]?[0-9]+)?|Inf|NaN)$')
COMMENT = re.compile(r'^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* '
                     r'(counter|gauge|histogram|summary|untyped))$')


def make_store(root):
    """A store with one small and one large symbol file."""
    os.makedirs(os.path.join(root, "app", DEBUG_ID))
    with open(os.path.join(root, SYM_PATH.lstrip("/")), "w") as fh:
        fh.write(f"MODULE Linux x86_64 {DEBUG_ID} app\nFUNC 1000 10 0 main\n1000 10 1 1\n")
    os.makedirs(os.path.join(root, "big", DEBUG_ID))
    with open(os.path.join(root, BIG_PATH.lstrip("/")), "w") as fh:
        fh.write(f"MODULE Linux x86_64 {DEBUG_ID} big\n")
        line = "PUBLIC {:x} 0 function_with_a_rather_long_name_{:08d}\n"
        written, i = 0, 0
        while written < BIG_BYTES:
            text = line.format(0x1000 + i * 16, i)
            fh.write(text)
            written += len(text)
            i += 1


def tree(root):
    """{relative path: sha256} of every file under root, dot-directories too."""
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            full = os.path.join(directory, name)
            with open(full, "rb") as fh:
                files[os.path.relpath(full, root)] = hashlib.sha256(fh.read()).hexdigest()
    return files


def spool_files(root):
    spool = os.path.join(root, ".incoming")
    return sorted(os.listdir(spool)) if os.path.isdir(spool) else []


def metrics(server):
    status, _, body = server.request("GET", "/metrics")
    return status, body.decode()


def sample_value(text, name, labels):
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            if all(f'{k}="{v}"' in line for k, v in labels.items()):
                return float(line.rsplit(" ", 1)[1])
    return None


def check_metrics(report, server):
    status, before = metrics(server)
    if status != 200:
        report.fail(f"/metrics answered {status}")
        return
    for number, line in enumerate(before.splitlines(), 1):
        if not (SAMPLE.match(line) or COMMENT.match(line)):
            report.fail(f"/metrics line {number} is neither a sample nor a comment: {line!r}")
    for _ in range(3):
        server.request("GET", "/healthz")
    _, after = metrics(server)
    was = sample_value(before, "symstore_requests_total", {"route": "healthz", "status": "200"})
    now = sample_value(after, "symstore_requests_total", {"route": "healthz", "status": "200"})
    if was is None or now is None or now < was + 3:
        report.fail(f"symstore_requests_total for /healthz went from {was} to {now} after 3 requests")
    count_was = sample_value(before, "symstore_request_duration_seconds_count", {})
    count_now = sample_value(after, "symstore_request_duration_seconds_count", {})
    if count_was is None or count_now is None or count_now < count_was + 3:
        report.fail(f"the latency histogram's count went from {count_was} to {count_now}")
    inf = sample_value(after, "symstore_request_duration_seconds_bucket", {"le": "+Inf"})
    if inf != count_now:
        report.fail(f"the +Inf bucket ({inf}) is not the count ({count_now})")
    for family in ("symstore_uploads_total", "symstore_upload_refusals_total",
                   "symstore_response_bytes_total"):
        if f"# TYPE {family} counter" not in after:
            report.fail(f"/metrics has no counter {family}")


def check_auth(report, server, store):
    before = tree(store)
    body = b"MODULE Linux x86_64 " + DEBUG_ID.encode() + b" app\n"
    put = f"/new/{DEBUG_ID}/new.sym"
    cases = [
        ("no token", {}, "", 401),
        ("unknown Auth-Token", {"Auth-Token": UNKNOWN}, "", 403),
        ("unknown Bearer", {"Authorization": f"Bearer {UNKNOWN}"}, "", 403),
        ("unknown ?key=", {}, "?key=" + UNKNOWN, 403),
        ("download-only Auth-Token", {"Auth-Token": DOWNLOAD}, "", 403),
        ("download-only Bearer", {"Authorization": f"Bearer {DOWNLOAD}"}, "", 403),
    ]
    for what, headers, query, expected in cases:
        for method, path in (("PUT", put), ("POST", "/upload/"), ("POST", "/symupload")):
            status, answer_headers, answer = server.request(method, path + query, body=body,
                                                            headers=headers)
            if status != expected:
                report.fail(f"{method} {path} with {what}: {status}, expected {expected}")
            elif not answer.endswith(b"\n") or answer.count(b"\n") != 1:
                report.fail(f"{method} {path} with {what}: the reason is not one line: {answer!r}")
            if expected == 401 and "www-authenticate" not in answer_headers:
                report.fail(f"{method} {path} with {what}: 401 without WWW-Authenticate")
    # An upload token passes the door (what happens next is the upload's business).
    for headers, query in (({"Auth-Token": UPLOAD}, ""), ({"Authorization": f"Bearer {BOTH}"}, ""),
                           ({}, "?key=" + UPLOAD.replace("+", "%2B").replace("/", "%2F")
                             .replace("=", "%3D"))):
        status, _, answer = server.request("PUT", f"/app/{DEBUG_ID}/app.sym" + query,
                                           body=open(os.path.join(store, SYM_PATH.lstrip("/")), "rb").read(),
                                           headers=headers)
        if status in (401, 403, 405):
            report.fail(f"an upload token was refused ({status} {answer!r})")
    # Missing files are 404, never 403, whatever the token.
    for headers in ({}, {"Auth-Token": UNKNOWN}, {"Auth-Token": UPLOAD}):
        status, _, _ = server.request("GET", f"/nothing/{DEBUG_ID}/nothing.sym", headers=headers)
        if status != 404:
            report.fail(f"a missing file with {headers or 'no token'}: {status}, expected 404")
    status, _, data = server.request("GET", SYM_PATH)
    if status != 200 or data != open(os.path.join(store, SYM_PATH.lstrip("/")), "rb").read():
        report.fail(f"GET {SYM_PATH} without --private: {status}")
    status, _, _ = server.request("DELETE", SYM_PATH, headers={"Auth-Token": BOTH})
    if status != 405:
        report.fail(f"DELETE: {status}, expected 405")
    after = tree(store)
    after.pop(".incoming", None)
    if {k: v for k, v in after.items() if not k.startswith(".")} != \
            {k: v for k, v in before.items() if not k.startswith(".")}:
        report.fail("refused requests changed the store")


def check_private(report, symstore, store, tokens):
    with ServeProcess(symstore, store, "--tokens", tokens, "--private") as server:
        cases = [({}, 401), ({"Auth-Token": UNKNOWN}, 403), ({"Auth-Token": UPLOAD}, 403),
                 ({"Authorization": f"Bearer {DOWNLOAD}"}, 200), ({"Auth-Token": BOTH}, 200)]
        for headers, expected in cases:
            status, _, _ = server.request("GET", SYM_PATH, headers=headers)
            if status != expected:
                report.fail(f"--private GET with {headers or 'no token'}: {status}, expected {expected}")
        status, _, _ = server.request("GET", f"/nothing/{DEBUG_ID}/nothing.sym?key={DOWNLOAD}")
        if status != 404:
            report.fail(f"--private, a missing file with a download token: {status}, expected 404")
        # ?key= as Breakpad's clients send it: not escaped ('+' and '/' as they are).
        status, _, _ = server.request("GET", f"{SYM_PATH}?key={BOTH_PLUS}")
        if status != 200:
            report.fail(f"--private, ?key= with an unescaped '+': {status}, expected 200")
        status, _, _ = server.request("GET", "/healthz")
        if status != 200:
            report.fail(f"--private /healthz without a token: {status}")


def raw_put(server, token, length, send, close_after=True):
    sock = socket.create_connection((server.host, server.port), timeout=30)
    sock.sendall((f"PUT /app/{DEBUG_ID}/app.sym HTTP/1.1\r\nHost: x\r\nAuth-Token: {token}\r\n"
                  f"Content-Length: {length}\r\n\r\n").encode() + send)
    if close_after:
        sock.close()
    return sock


def check_half_closed(report, symstore, store, tokens):
    """A client that sends part of its body and then closes its writing
    side (shutdown(SHUT_WR)) is answered or closed within a second or two:
    the end of its stream ends the request, not the idle timeout (30 s
    here; libmicrohttpd's epoll alone missed it 3 to 10 times in 48 tries).
    Tried many times and in each body form (a PUT, a form upload, a crash
    submission, a chunked body), as it happened only some of the times."""
    bodies = [
        (f"PUT /app/{DEBUG_ID}/app.sym HTTP/1.1\r\nAuth-Token: {UPLOAD}\r\nContent-Length: 100000\r\n\r\n",
         b"MODULE Linux x86_64 " + b"y" * 40000),
        ("POST /symupload HTTP/1.1\r\nAuth-Token: " + UPLOAD + "\r\nContent-Type: multipart/form-data; "
         "boundary=XX\r\nContent-Length: 100000\r\n\r\n",
         b'--XX\r\nContent-Disposition: form-data; name="symbol_file"; filename="a.sym"\r\n\r\nMODULE' + b"z" * 5000),
        ("POST /submit HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: 100000\r\n\r\n",
         b'--XX\r\nContent-Disposition: form-data; name="upload_file_minidump"; filename="a.dmp"\r\n\r\nMDMP' +
         b"z" * 5000),
        ("POST /submit HTTP/1.1\r\nContent-Type: multipart/form-data; boundary=XX\r\n"
         "Transfer-Encoding: chunked\r\n\r\n", b"10\r\n--XX\r\nContent-Dis"),
    ]
    crashes = tempfile.mkdtemp(prefix="half-closed-crashes-")  # (not in the store, which must not change)
    try:
        check_half_closed_in(report, symstore, store, tokens, crashes, bodies)
    finally:
        shutil.rmtree(crashes, ignore_errors=True)


def check_half_closed_in(report, symstore, store, tokens, crashes, bodies):
    slowest = 0.0
    with ServeProcess(symstore, store, "--tokens", tokens, f"--crashes={crashes}", "--cache-dir",
                      os.path.join(crashes, "cache"), "--timeout", "30", quiet=True) as server:
        for attempt in range(15):
            for head, body in bodies:
                sock = socket.create_connection((server.host, server.port), timeout=60)
                sock.sendall(head.replace("\r\n", "\r\nHost: x\r\n", 1).encode() + body)
                sock.shutdown(socket.SHUT_WR)
                started = time.monotonic()
                data = b""
                try:
                    while True:
                        chunk = sock.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                except OSError:
                    pass
                waited = time.monotonic() - started
                sock.close()
                slowest = max(slowest, waited)
                if waited >= 10 or (data and not re.match(rb"HTTP/1\.1 4\d\d", data)):
                    report.fail(f"half-closed {head.split(' ', 2)[:2]} (try {attempt}): {data[:30]!r} after "
                                f"{waited:.1f} s, not a 4xx or a close at once")
                    return
        # A whole request, then the writing side closed (as HTTP/1.0-era
        # clients do): answered all the same.
        for attempt in range(10):
            sock = socket.create_connection((server.host, server.port), timeout=30)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            sock.shutdown(socket.SHUT_WR)
            data = b""
            try:
                while chunk := sock.recv(65536):
                    data += chunk
            except OSError:
                pass
            sock.close()
            if not data.startswith(b"HTTP/1.1 200"):
                report.fail(f"a whole request, then half-closed (try {attempt}): {data[:40]!r}, not 200")
                break
        status, _, _ = server.request("GET", "/healthz")
        if status != 200:
            report.fail(f"/healthz after the half-closed requests: {status}")
    report.note(f"{15 * len(bodies)} half-closed requests ended by their end of stream (slowest {slowest:.2f} s)")


def check_slow_and_truncated(report, symstore, store, tokens):
    before = tree(store)
    with ServeProcess(symstore, store, "--tokens", tokens, "--timeout", "2") as server:
        # A client that sends part of its body and stalls is dropped.
        sock = raw_put(server, UPLOAD, 100000, b"x" * 3000, close_after=False)
        started = time.monotonic()
        sock.settimeout(60)
        try:
            data = sock.recv(65536)
            while data and not data.startswith(b"HTTP/"):
                data = sock.recv(65536)
        except OSError:
            data = b""
        waited = time.monotonic() - started
        sock.close()
        if data and not data.startswith(b"HTTP/1.1 408"):
            report.fail(f"a stalled upload got {data[:40]!r}")
        if waited >= 60:
            report.fail("a stalled upload was not dropped within a minute (--timeout 2)")
        report.note(f"stalled upload dropped after {waited:.1f} s (--timeout 2)")
        # A body cut short by the client.
        raw_put(server, UPLOAD, 100000, b"MODULE Linux x86_64 " + b"y" * 40000)
        time.sleep(0.5)
        deadline = time.monotonic() + 20
        while spool_files(store) and time.monotonic() < deadline:
            time.sleep(0.1)
        if spool_files(store):
            report.fail(f"abandoned uploads left spool files: {spool_files(store)}")
        status, _, _ = server.request("GET", "/healthz")
        if status != 200:
            report.fail(f"/healthz after the abandoned uploads: {status}")
    after = tree(store)
    if after != before:
        changed = sorted(set(after.items()) ^ set(before.items()))
        report.fail(f"abandoned uploads changed the store: {changed[:4]}")


def check_sigterm_during_download(report, symstore, store):
    with open(os.path.join(store, BIG_PATH.lstrip("/")), "rb") as fh:
        expected = hashlib.sha256(fh.read()).hexdigest()
    server = ServeProcess(symstore, store).start()
    try:
        sock = socket.create_connection((server.host, server.port), timeout=60)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        sock.sendall(f"GET {BIG_PATH} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        received = bytearray(sock.recv(65536))
        server.send_signal(signal.SIGTERM)       # with most of the file still to send
        time.sleep(1.0)
        if server.proc.poll() is not None:
            report.fail("the server exited with a download in flight")
        while True:
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            received += chunk
            time.sleep(0.001)               # a slow reader
        sock.close()
        head, _, body = bytes(received).partition(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200") or hashlib.sha256(body).hexdigest() != expected:
            report.fail(f"the download in flight at SIGTERM was cut short ({len(body)} of {BIG_BYTES}+ bytes)")
        code = server.wait(40)
        if code != 0:
            report.fail(f"after SIGTERM the server exited with {code}")
        try:
            socket.create_connection((server.host, server.port), timeout=2).close()
            report.fail("the server still accepts connections after SIGTERM")
        except OSError:
            pass
    finally:
        server.stop()


def check_many_connections_few_files(report, symstore, store):
    """The same 1000 connections at once to a server whose descriptor limit
    is 2048 (a connection budget of 1024): libmicrohttpd splits its
    connection limit evenly over its threads, and a burst accepted mostly by
    a few of them was reset over their share (488 of 1000 answered)."""
    server = ServeProcess(symstore, store, quiet=True)
    server.command = ["prlimit", "--nofile=2048:2048"] + server.command
    with server:
        check_many_connections(report, server, "with 2048 descriptors")


def check_many_connections(report, server, how=""):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < CONNECTIONS + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, CONNECTIONS + 200), hard))
    socks = []
    try:
        for _ in range(CONNECTIONS):
            socks.append(socket.create_connection((server.host, server.port), timeout=60))
        time.sleep(0.5)  # all idle at once
        for sock in socks:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answered = 0
        for sock in socks:
            data = b""
            try:
                while True:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            except OSError:
                pass
            if data.startswith(b"HTTP/1.1 200") and data.endswith(b"\r\n\r\nok\n"):
                answered += 1
        report.note(f"{answered} of {CONNECTIONS} connections opened at once answered {how}".rstrip())
        if answered != CONNECTIONS:
            report.fail(f"only {answered} of {CONNECTIONS} idle connections were answered {how}".rstrip())
    finally:
        for sock in socks:
            sock.close()


def check_ipv6(report, symstore, store):
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        report.note("no IPv6 loopback here: --listen [::1]:0 not tried")
        return
    with ServeProcess(symstore, store, listen="[::1]:0") as server:
        if not re.fullmatch(r"listening on http://\[::1\]:[1-9][0-9]*", server.first_line):
            report.fail(f"first line on IPv6: {server.first_line!r}")
        status, _, body = server.request("GET", SYM_PATH)
        if status != 200 or body != open(os.path.join(store, SYM_PATH.lstrip("/")), "rb").read():
            report.fail(f"GET over IPv6: {status}")


def check_two_servers(report, symstore, store, tokens):
    """Two servers over one directory: what one takes, the other serves."""
    other_id = "FEDCBA9876543210FEDCBA9876543210A"
    path = f"/two/{other_id}/two.sym"
    sym = f"MODULE Linux x86_64 {other_id} two\nFILE 1 /src/two.c\nFUNC 1000 10 0 main\n1000 10 1 1\n".encode()
    with ServeProcess(symstore, store, "--tokens", tokens) as a, \
            ServeProcess(symstore, store, "--tokens", tokens) as b:
        status, _, _ = b.request("GET", path)
        if status != 404:
            report.fail(f"server B before the upload: {status}, expected 404")
        status, _, answer = a.request("PUT", path, body=sym, headers={"Auth-Token": UPLOAD})
        if status not in (200, 201):
            report.fail(f"PUT through server A: {status} {answer!r}")
        status, _, data = b.request("GET", path)
        if status != 200 or data != sym:
            report.fail(f"server B after the upload through A: {status}, {len(data)} bytes")
        status, _, _ = a.request("PUT", path, body=sym.replace(b"main", b"mane"),
                                 headers={"Auth-Token": UPLOAD})
        if status != 409:
            report.fail(f"other bytes for the same file through A: {status}, expected 409")
        status, _, data = b.request("GET", path)
        if data != sym:
            report.fail("a refused upload changed what server B serves")


def check_start_errors(report, symstore, work, tokens):
    bad_tokens = os.path.join(work, "bad-tokens")
    with open(bad_tokens, "w") as fh:
        fh.write("# comment\ngood upload\nlonely\n")
    cases = [
        ([os.path.join(work, "no-such-store")], "no-such-store"),
        ([work, "--tokens", bad_tokens], f"{bad_tokens}:3:"),
        ([work, "--tokens", os.path.join(work, "missing")], "missing"),
        ([work, "--private"], "--private"),
        ([work, "--listen", "127.0.0.1"], "HOST:PORT"),
        ([work, "--listen", "127.0.0.1:99999"], "port"),
        ([work, "--listen", "192.0.2.1:0"], "192.0.2.1"),
        ([work, "--max-upload", "lots"], "--max-upload"),
        (["s3://"], "s3://"),
    ]
    for args, needle in cases:
        p = subprocess.run([symstore, "serve", *args], capture_output=True, text=True, timeout=60)
        lines = p.stderr.strip().splitlines()
        if p.returncode == 0 or p.stdout or len(lines) != 1 or needle not in lines[0]:
            report.fail(f"symstore serve {' '.join(args)}: status {p.returncode}, stdout "
                        f"{p.stdout!r}, stderr {p.stderr!r} (expected one line naming {needle!r})")


def main():
    args = arguments(lambda p: p.add_argument("--symstore", required=True))
    report = Report("serve_operations")
    work = tempfile.mkdtemp(prefix="serve_operations-")
    try:
        store = os.path.join(work, "store")
        make_store(store)
        tokens = os.path.join(work, "tokens")
        with open(tokens, "w") as fh:
            fh.write(f"# who may do what\n{UPLOAD} upload\n{DOWNLOAD} download  # readers\n"
                     f"{BOTH} upload download\n{BOTH_PLUS} download upload\n")

        server = ServeProcess(args.symstore, store, "--tokens", tokens).start()
        try:
            if not re.fullmatch(r"listening on http://127\.0\.0\.1:[1-9][0-9]*", server.first_line):
                report.fail(f"first line: {server.first_line!r}")
            status, headers, body = server.request("GET", "/healthz")
            if (status, body) != (200, b"ok\n"):
                report.fail(f"/healthz: {status} {body!r}")
            status, headers, body = server.request("HEAD", "/healthz")
            if status != 200 or body or headers.get("content-length") != "3":
                report.fail(f"HEAD /healthz: {status} {headers} {body!r}")
            check_metrics(report, server)
            check_auth(report, server, store)
            check_many_connections(report, server)
        finally:
            code = server.stop()
        if code != 0:
            report.fail(f"the server exited with {code} on SIGTERM")
        log = server.log()
        for secret in SECRETS:
            if secret in log or secret.replace("+", "%2B") in log:
                report.fail("a token is in the access log")
        lines = server.access_lines()
        line = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \S+ [A-Z]+ /\S* \d{3} \d+ [0-9.]+ms \S+$")
        bad = [entry for entry in lines if not line.match(entry)]
        if bad or len(lines) < CONNECTIONS:
            report.fail(f"{len(lines)} access log lines, {len(bad)} malformed: {bad[:3]}")
        if any("?" in entry for entry in lines):
            report.fail("an access log line holds a query string")

        check_ipv6(report, args.symstore, store)
        check_private(report, args.symstore, store, tokens)
        check_two_servers(report, args.symstore, store, tokens)
        check_slow_and_truncated(report, args.symstore, store, tokens)
        check_half_closed(report, args.symstore, store, tokens)
        check_many_connections_few_files(report, args.symstore, store)
        check_sigterm_during_download(report, args.symstore, store)
        check_start_errors(report, args.symstore, work, tokens)
    except ServeError as error:
        report.fail(str(error))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
