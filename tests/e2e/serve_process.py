"""`symstore serve` as a context manager for the tests: started on a free
port (--listen 127.0.0.1:0 unless told otherwise), ready once its first
line `listening on http://HOST:PORT` is read, stopped with SIGTERM (then
SIGKILL) on exit. Its standard error (the access log) is drained into
`log_lines` all along, so a busy server never blocks on a full pipe.

    with ServeProcess(symstore, store, "--tokens", tokens) as server:
        status, headers, body = server.request("GET", "/healthz")
        ... server.url ...
    server.returncode, server.log()

Every wait is bounded."""
import http.client
import os
import re
import select
import signal
import subprocess
import threading
import time

START_SECONDS = 30   # a server not listening by then failed
STOP_SECONDS = 40    # SIGTERM lets requests finish (up to 30 s); then SIGKILL
LISTENING = re.compile(r"^listening on (http://(\[[0-9a-fA-F:.]+\]|[^:/\s]+):(\d+))$")


class ServeError(RuntimeError):
    pass


class ServeProcess:
    def __init__(self, symstore, store, *args, listen="127.0.0.1:0", env=None, quiet=False):
        self.command = [symstore, "serve", str(store), "--listen", listen, *map(str, args)]
        if quiet:
            self.command.append("--quiet")
        self.env = env
        self.proc = None
        self.url = self.host = None
        self.port = None
        self.first_line = None
        self.returncode = None
        self.log_lines = []
        self._lock = threading.Lock()
        self._threads = []

    # --- life cycle -------------------------------------------------------
    def start(self):
        self.proc = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=self.env)
        self._drain(self.proc.stderr, self.log_lines)
        line = self._first_stdout_line()
        match = LISTENING.match(line)
        if not match:
            self.stop()
            raise ServeError(f"first line of {' '.join(self.command)} is {line!r}, not "
                             f"'listening on http://HOST:PORT'; stderr: {self.log()}")
        self.first_line = line
        self.url, self.host, self.port = match.group(1), match.group(2).strip("[]"), int(match.group(3))
        self._drain(self.proc.stdout, [])
        return self

    def _first_stdout_line(self):
        deadline = time.monotonic() + START_SECONDS
        fd = self.proc.stdout.fileno()
        data = b""
        while b"\n" not in data:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                raise ServeError(f"{' '.join(self.command)} printed no first line in {START_SECONDS} s")
            ready, _, _ = select.select([fd], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(fd, 1)  # one byte at a time: nothing past the line is taken
                if not chunk:
                    self.proc.wait(timeout=STOP_SECONDS)
                    time.sleep(0.1)  # let the stderr reader catch the error line
                    raise ServeError(f"{' '.join(self.command)} exited with status "
                                     f"{self.proc.returncode} before listening: {self.log()}")
                data += chunk
        return data.decode("utf-8", "replace").rstrip("\n")

    def _drain(self, stream, lines):
        def run():
            for raw in iter(stream.readline, b""):
                with self._lock:
                    lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self._threads.append(thread)

    def send_signal(self, sig):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait(self, seconds=STOP_SECONDS):
        """The exit status, once the server has exited (None if it has not by then)."""
        try:
            self.returncode = self.proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return None
        for thread in self._threads:
            thread.join(timeout=5)
        return self.returncode

    def stop(self, sig=signal.SIGTERM, seconds=STOP_SECONDS):
        """Stops the server (SIGTERM, then SIGKILL after `seconds`); its exit status."""
        if self.proc is None:
            return None
        self.send_signal(sig)
        if self.wait(seconds) is None:
            self.proc.kill()
            self.wait(10)
        return self.returncode

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    # --- what it said -----------------------------------------------------
    def log(self):
        with self._lock:
            return "\n".join(self.log_lines)

    def access_lines(self):
        """The access log lines: time client method path status bytes ms route."""
        with self._lock:
            return [line for line in self.log_lines if not line.startswith("symstore serve:")]

    # --- talking to it ----------------------------------------------------
    def connection(self, timeout=30):
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, timeout=30):
        """One request on a fresh connection: (status, {lower-case header: value}, body bytes)."""
        conn = self.connection(timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            conn.close()
