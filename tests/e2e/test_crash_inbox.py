#!/usr/bin/env python3
"""The crash inbox of `symstore serve --crashes` (issue 43), judged by gdb
and llvm-symbolizer-19, never by our own output alone:

- crashes sent as Breakpad's minidump_upload and Crashpad's handler send
  them (crash_clients.py: gzip-coded and chunked for Crashpad), a logged
  glibc backtrace, an OpenSync-style JSON report: each answered
  `CrashID=bp-<id>`, walked with the store's symbols, signed;
- one bug built twice lands in one group, signed by the function gdb
  stops in, whether the dump came from a core (core_to_minidump.py) or
  from lldb-19; a failed assert() is signed by its caller (glibc's abort path
  is irrelevant); the backtrace and the report by the function
  llvm-symbolizer names at the frame after the signal trampoline, read
  with the release `symstore add --release` recorded;
- a crash without symbols is signed module@0xOFFSET, lists its missing
  module, and moves to its symbolized signature once its .sym is uploaded,
  the old signature kept in its history;
- the JSON API's contract (keys, paging, ids with and without bp-), the
  pages, the tokens; dropped annotations never stored;
- every refusal: not a minidump, a broken form, bad gzip, bad JSON (400
  Discarded=malformed_*), over --max-crash raw and inflated (413),
  --crash-rate (200 Discarded=rule_rate, counted in /metrics);
- --crash-max-bytes and --crash-retention remove the oldest crashes' dumps,
  their signatures and counts kept;
- kill -9 during submissions loses no crash that was answered 200, and
  an index deleted is made again from the crash store;
- two servers over one s3rver bucket (symbols and crashes in it) each see
  and list the crashes the other received, processed with the bucket's
  symbols."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

import core_to_minidump
import crash_clients
import page_dom
import upload_servers as servers
from common import Report, arguments
from serve_process import ServeProcess

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "..", "..", "fixtures", "crash_inbox")
LIBC = "/lib/x86_64-linux-gnu/libc.so.6"
CRASH_ID = re.compile(r"^CrashID=bp-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\n$")
READ = {"Auth-Token": "tok-read"}
WAIT_SECONDS = 90


def sh(*argv, **kw):
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=300, **kw)


def build(tmp):
    out = {}
    for name, source, flags in [("crashy1", "crashy.c", ["-DBUILD=1"]), ("crashy2", "crashy.c", ["-DBUILD=2"]),
                                ("orphan", "crashy.c", ["-DBUILD=3"]), ("logger", "logger.c", [])]:
        path = os.path.join(tmp, name)
        p = sh("gcc", "-g", "-O1", *flags, "-o", path, os.path.join(SOURCES, source))
        if p.returncode:
            raise SystemExit(f"cannot build {name}: {p.stderr}")
        out[name] = path
    return out


def crash_dump(tmp, binary, argument):
    """The program run under gdb to its crash: the minidump a client would
    send (core_to_minidump.py over gdb's core) and gdb's frame names."""
    core = os.path.join(tmp, f"core.{os.path.basename(binary)}.{argument}")
    p = sh("gdb", "-batch", "-nx", "-iex", "set debuginfod enabled off", "-ex", "run",
           "-ex", f"generate-core-file {core}", "-ex", "bt", "--args", binary, argument, cwd=tmp)
    frames = re.findall(r"^#\d+\s+(?:0x[0-9a-f]+ in )?([A-Za-z_][\w:]*) \(", p.stdout, re.M)
    if not os.path.exists(core) or not frames:
        raise SystemExit(f"gdb made no core of {binary} {argument}: {p.stdout[-800:]} {p.stderr[-800:]}")
    with open(core, "rb") as fh:
        dump = core_to_minidump.convert(core_to_minidump.Core(fh.read()))
    return dump, frames


def lldb_dump(tmp, binary, argument):
    """lldb-19's own minidump of the program's crash, written where it stops."""
    out = os.path.join(tmp, f"lldb.{os.path.basename(binary)}.{argument}.dmp")
    sh("lldb-19", "-b", "-o", "settings set target.disable-aslr true", "-o", f"process launch -- {argument}",
       "-k", f"process save-core --plugin-name=minidump {out}", "-k", "kill", binary, cwd=tmp)
    if not os.path.exists(out):
        return None
    with open(out, "rb") as fh:
        return fh.read()


def logged_backtrace(binary):
    p = subprocess.run([binary], capture_output=True, text=True, timeout=60, cwd=os.path.dirname(binary))
    if p.returncode != 3:
        raise SystemExit(f"{binary} did not log its backtrace: {p.returncode} {p.stderr}")
    return p.stderr


def symbolizer_function(binary, offset):
    p = sh("llvm-symbolizer-19", f"--obj={binary}", "--functions=short", "--no-inlines", hex(offset))
    return p.stdout.splitlines()[0].strip() if p.stdout else ""


def get_json(server, path, headers=READ):
    status, _, body = server.request("GET", path, headers=headers)
    return status, (json.loads(body) if body and body.strip()[:1] in (b"{", b"[") else body)


def wait_processed(server, ids, until=None):
    """Each crash's JSON once it is processed (and `until(crash)` holds)."""
    done, deadline = {}, time.monotonic() + WAIT_SECONDS
    while len(done) < len(ids) and time.monotonic() < deadline:
        for crash_id in ids:
            if crash_id in done:
                continue
            status, crash = get_json(server, f"/api/crashes/{crash_id}")
            if status == 200 and crash["status"] != "queued" and (until is None or until(crash)):
                done[crash_id] = crash
        time.sleep(0.2)
    return done


def submitted(report, label, answer):
    status, body = answer
    match = CRASH_ID.match(body) if status == 200 else None
    if not match:
        report.fail(f"{label}: answered {status} {body!r}, not 200 CrashID=bp-<id>")
        return None
    return match.group(1)


def refused(report, label, answer, status, discarded):
    got_status, body = answer
    want = f"Discarded={discarded}\n" if discarded else None
    if got_status != status or (want and body != want):
        report.fail(f"{label}: answered {got_status} {body!r}, expected {status} {want!r}")


def check_contract(report, crash):
    keys = {"id", "received", "product", "version", "annotations", "signature", "signature_history",
            "status", "missing_symbols", "walk"}
    if not keys <= set(crash):
        report.fail(f"crash {crash.get('id')}: keys {sorted(keys - set(crash))} missing")
    if not re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$", crash.get("received", "")):
        report.fail(f"crash {crash.get('id')}: received {crash.get('received')!r} is not RFC 3339")


def run(args, report, tmp):
    bins = build(tmp)
    dumps = {}
    for name, argument in [("crashy1", "0"), ("crashy2", "0"), ("crashy1", "1"), ("orphan", "0")]:
        dumps[(name, argument)] = crash_dump(tmp, bins[name], argument)
    text = logged_backtrace(bins["logger"])
    from_lldb = lldb_dump(tmp, bins["crashy2"], "0")
    if not from_lldb:
        report.fail("lldb-19 wrote no minidump of crashy2's crash")
        return

    store, cache = os.path.join(tmp, "store"), os.path.join(tmp, "cache")
    for paths, release in [([bins["crashy1"], bins["crashy2"], LIBC], None), ([bins["logger"], LIBC], "Logger/1.0")]:
        p = sh(args.symstore, "add", store, *paths, "-q", *(["--release", release] if release else []))
        if p.returncode:
            raise SystemExit(f"symstore add failed: {p.stderr}")
    release_file = os.path.join(store, ".releases", "Logger", "1.0.json")
    if not os.path.exists(release_file):
        report.fail("symstore add --release Logger/1.0 recorded no .releases/Logger/1.0.json")
    else:
        with open(release_file) as fh:
            names = {m["name"] for m in json.load(fh)["modules"]}
        if not {"logger", "libc.so.6"} <= names:
            report.fail(f"the release record names {sorted(names)}, not logger and libc.so.6")
    tokens = os.path.join(tmp, "tokens")
    with open(tokens, "w") as fh:
        fh.write("tok-up upload download\ntok-read crashes\n")

    with ServeProcess(args.symstore, store, "--crashes", "--tokens", tokens, "--cache-dir", cache,
                      quiet=True) as server:
        host, port = server.host, server.port
        ids = {}
        ids["a1"] = submitted(report, "Breakpad's upload", crash_clients.breakpad_upload(
            host, port, dumps[("crashy1", "0")][0], "Crashy", "1.0", extra={"Email": "someone@example.com"}))
        log = b"the client's log\n" * 100
        ids["a2"] = submitted(report, "Crashpad's upload", crash_clients.crashpad_upload(
            host, port, dumps[("crashy2", "0")][0], "Crashy", "2.0",
            annotations={"channel": "beta", "Email": "a@b.example", "URL": "https://private.example/"},
            attachments=[("upload_file_log", "log.txt", log)]))
        ids["lldb"] = submitted(report, "lldb-19's minidump, as Crashpad sends", crash_clients.crashpad_upload(
            host, port, from_lldb, "Crashy", "2.0"))
        ids["b"] = submitted(report, "the assert crash", crash_clients.breakpad_upload(
            host, port, dumps[("crashy1", "1")][0], "Crashy", "1.0"))
        ids["orphan"] = submitted(report, "a crash without symbols", crash_clients.breakpad_upload(
            host, port, dumps[("orphan", "0")][0], "Crashy", "3.0"))
        ids["text"] = submitted(report, "a logged backtrace", crash_clients.backtrace_upload(
            host, port, text, "Logger", "1.0", reason="SIGSEGV"))
        ids["report"] = submitted(report, "a JSON report", crash_clients.report_upload(host, port, {
            "locationId": "loc-1", "nodeId": "node-7", "model": "PX-1", "firmwareVersion": "1.0", "pid": 412,
            "name": "Logger", "reason": "SIGSEGV", "timestamp": 1733600000000, "backtrace": text}))
        if None in ids.values():
            return
        crashes = wait_processed(server, list(ids.values()))
        missing = [k for k, v in ids.items() if v not in crashes]
        if missing:
            report.fail(f"crashes not processed within {WAIT_SECONDS} s: {missing}")
            return
        c = {k: crashes[v] for k, v in ids.items()}
        for crash in c.values():
            check_contract(report, crash)

        # Signatures against gdb and llvm-symbolizer.
        gdb_top = dumps[("crashy1", "0")][1][0]
        for key in ("a1", "a2", "lldb"):
            if c[key]["signature"] != gdb_top:
                report.fail(f"{key}: signature {c[key]['signature']!r}, gdb stops in {gdb_top}")
        own = [f for f in dumps[("crashy1", "1")][1] if f in ("check_limits", "validate", "main")]
        if c["b"]["signature"] != own[0]:
            report.fail(f"the assert crash: signature {c['b']['signature']!r}, expected {own[0]} "
                        f"(gdb: {' > '.join(dumps[('crashy1', '1')][1][:8])})")
        if c["b"]["signature"] == c["a1"]["signature"]:
            report.fail("two bugs share one signature")
        lines = text.splitlines()
        trampoline = next(i for i, line in enumerate(lines) if "libc.so.6" in line)
        offset = int(re.search(r"\(\+0x([0-9a-f]+)\)", lines[trampoline + 1]).group(1), 16)
        expected = symbolizer_function(bins["logger"], offset)
        for key in ("text", "report"):
            if c[key]["signature"] != expected:
                report.fail(f"{key}: signature {c[key]['signature']!r}, llvm-symbolizer names {expected}")
            if c[key].get("release") != "Logger/1.0":
                report.fail(f"{key}: read with release {c[key].get('release')!r}, not Logger/1.0")
            if not isinstance(c[key]["walk"], list):
                report.fail(f"{key}: the walk is not the symbolize --json lines")
        if (c["report"]["product"], c["report"]["version"]) != ("Logger", "1.0"):
            report.fail(f"the report: product {c['report']['product']!r} version {c['report']['version']!r}")

        # The crash without symbols.
        orphan = c["orphan"]
        frames = orphan["walk"]["threads"][0]["frames"]
        want = f"orphan@{frames[0]['offset']}"
        if orphan["signature"] != want:
            report.fail(f"the crash without symbols: signature {orphan['signature']!r}, expected {want}")
        if not any(m["debug_file"] == "orphan" for m in orphan["missing_symbols"]):
            report.fail(f"the crash without symbols lists {orphan['missing_symbols']}")

        # The walk is symtool stackwalk --json's.
        dump_path = os.path.join(tmp, "a1.dmp")
        with open(dump_path, "wb") as fh:
            fh.write(dumps[("crashy1", "0")][0])
        p = sh(args.symtool, "stackwalk", "--json", "--store", store, dump_path)
        walked = json.loads(p.stdout) if p.returncode == 0 else None
        shape = lambda w: [[(f["function"], f["module"], f["offset"]) for f in t["frames"]] for t in w["threads"]]
        if walked is None or shape(walked) != shape(c["a1"]["walk"]):
            report.fail("the inbox's walk is not symtool stackwalk --json's")

        # Annotations, attachments, dropped fields.
        ann = c["a2"]["annotations"]
        if ann.get("channel") != "beta" or "Email" in ann or "URL" in ann:
            report.fail(f"Crashpad's annotations as stored: {ann}")
        if "Email" in c["a1"]["annotations"]:
            report.fail("Breakpad's Email field was stored")
        for root, _, files in os.walk(os.path.join(store, ".crashes")):
            for name in files:
                with open(os.path.join(root, name), "rb") as fh:
                    data = fh.read()
                if b"a@b.example" in data or b"someone@example.com" in data or b"private.example" in data:
                    report.fail(f"a dropped annotation is in the crash store's {name}")
        attachment = [f for f in c["a2"].get("files", []) if f["field"] == "upload_file_log"]
        if not attachment:
            report.fail(f"the attachment is not listed: {c['a2'].get('files')}")
        else:
            status, _, body = server.request("GET", attachment[0]["url"], headers=READ)
            if status != 200 or body != log:
                report.fail(f"the attachment downloads as {status}, {len(body)} bytes")

        # The API: ids, paging, groups, filters; the pages; the tokens.
        for form in (ids["a1"], "bp-" + ids["a1"], "BP-" + ids["a1"].upper()):
            if get_json(server, f"/api/crashes/{form}")[0] != 200:
                report.fail(f"/api/crashes/{form} is not found")
        seen, cursor = [], None
        for _ in range(10):
            status, page = get_json(server, "/api/crashes?limit=2" + (f"&cursor={cursor}" if cursor else ""))
            if status != 200:
                report.fail(f"/api/crashes answered {status}")
                break
            seen += [x["id"] for x in page["crashes"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        if sorted(seen) != sorted(ids.values()) or len(seen) != len(set(seen)):
            report.fail(f"paging /api/crashes by 2 gave {len(seen)} crashes, {len(set(seen))} distinct, of {len(ids)}")
        status, page = get_json(server, "/api/crashes")
        received = [x["received"] for x in page["crashes"]]
        if received != sorted(received, reverse=True):
            report.fail("/api/crashes is not newest first")
        status, groups = get_json(server, "/api/signatures")
        group = [g for g in groups if g["signature"] == gdb_top] if status == 200 else []
        if not group or group[0]["count"] != 3 or not {"signature", "count", "first", "last"} <= set(group[0]):
            report.fail(f"/api/signatures: {groups}")
        status, page = get_json(server, f"/api/crashes?signature={gdb_top}&product=Crashy")
        if status != 200 or sorted(x["id"] for x in page["crashes"]) != sorted([ids["a1"], ids["a2"], ids["lldb"]]):
            report.fail(f"/api/crashes?signature={gdb_top} lists {page}")
        if get_json(server, "/api/crashes?limit=1001")[0] != 400:
            report.fail("/api/crashes?limit=1001 is not refused")
        for path in ("/ui/crashes", f"/ui/crashes/{ids['a1']}", f"/ui/signature?s={gdb_top}",
                     f"/ui/crashes?q={ids['a1'][:8]}"):
            status, headers, body = server.request("GET", path, headers=READ)
            if status != 200 or gdb_top.encode() not in body or "content-security-policy" not in headers:
                report.fail(f"{path}: {status}, signature {'shown' if gdb_top.encode() in body else 'not shown'}")
        hostile = submitted(report, "a crash with a hostile annotation", crash_clients.breakpad_upload(
            host, port, dumps[("crashy1", "0")][0], "Crashy", "1.0",
            extra={"note": "<script id=\"injected\">alert(1)</script>"}))
        seen = wait_processed(server, [hostile]) if hostile else {}
        if hostile in seen:
            check_pages_in_chromium(args, report, tmp, server, c["a1"], seen[hostile])
        if server.request("GET", "/api/crashes")[0] != 401 or \
                server.request("GET", "/api/crashes", headers={"Auth-Token": "tok-up"})[0] != 403:
            report.fail("crashes are read without a `crashes` token")

        # The missing symbols uploaded: walked again, signed anew, history kept.
        sym = sh(args.dump_syms, bins["orphan"])
        first = sym.stdout.split("\n", 1)[0].split()
        status, _, body = server.request("PUT", f"/orphan/{first[3]}/orphan.sym", body=sym.stdout.encode(),
                                         headers={"Auth-Token": "tok-up"})
        if status not in (200, 201):
            report.fail(f"uploading orphan.sym answered {status} {body!r}")
        again = wait_processed(server, [ids["orphan"]], until=lambda x: x["signature"] == gdb_top)
        if ids["orphan"] not in again:
            report.fail(f"after its symbols were uploaded the crash is still signed "
                        f"{get_json(server, '/api/crashes/' + ids['orphan'])[1]['signature']!r}")
        else:
            history = again[ids["orphan"]]["signature_history"]
            if not history or history[-1]["signature"] != want or "at" not in history[-1]:
                report.fail(f"the earlier signature is not in the history: {history}")

        # Refusals.
        post = lambda body, ctype, path="/submit": crash_clients._post(host, port, path, body, {"Content-Type": ctype})
        refused(report, "a text file as the dump", crash_clients.breakpad_upload(host, port, b"not a minidump", "X", "1"),
                400, "malformed_not_minidump")
        boundary, body = crash_clients.breakpad_body({"prod": "X"}, b"MDMP....")
        refused(report, "a form cut short", post(body[:-20], f"multipart/form-data; boundary={boundary}"),
                400, "malformed_truncated")
        refused(report, "no boundary", post(body, "multipart/form-data"), 400, "malformed_no_boundary")
        refused(report, "a gzip body that is not gzip", crash_clients.crashpad_upload(
            host, port, b"", "X", "1", raw_body=b"plainly not gzip"), 400, "malformed_bad_gzip")
        refused(report, "a report that is not JSON", post(b"{not json", "application/json", "/submit/report"),
                400, "malformed_invalid_json")

    # Size caps and the rate.
    dump = dumps[("crashy1", "0")][0]
    with ServeProcess(args.symstore, store, "--crashes", os.path.join(tmp, "limits"), "--cache-dir", cache,
                      "--max-crash", "64K", quiet=True) as server:
        refused(report, "a dump over --max-crash", crash_clients.breakpad_upload(
            server.host, server.port, dump + b"\0" * 70000, "X", "1"), 413, None)
        refused(report, "a gzip body inflating over --max-crash", crash_clients.crashpad_upload(
            server.host, server.port, dump + b"\0" * (4 << 20), "X", "1"), 413, None)
        submitted(report, "a dump under --max-crash", crash_clients.breakpad_upload(server.host, server.port, dump, "X", "1"))
    with ServeProcess(args.symstore, store, "--crashes", os.path.join(tmp, "rate"), "--cache-dir", cache,
                      "--crash-rate", "2/min", quiet=True) as server:
        for i in range(2):
            submitted(report, f"crash {i + 1} of 2 a minute", crash_clients.breakpad_upload(server.host, server.port, dump, "X", "1"))
        refused(report, "a third crash in the minute", crash_clients.breakpad_upload(server.host, server.port, dump, "X", "1"),
                200, "rule_rate")
        _, _, metrics = server.request("GET", "/metrics")
        if b"symstore_crashes_discarded_rate_total 1" not in metrics:
            report.fail("/metrics does not count the crash discarded by the rate")

    retention(args, report, tmp, store, cache, dump)

    # kill -9 while crashes arrive: every crash answered 200 is there after.
    crash_dir, kill_cache = os.path.join(tmp, "killed"), os.path.join(tmp, "kill-cache")
    answered = []
    server = ServeProcess(args.symstore, store, "--crashes", crash_dir, "--cache-dir", kill_cache, quiet=True).start()
    stop = threading.Event()

    def send():
        while not stop.is_set():
            try:
                status, body = crash_clients.breakpad_upload(server.host, server.port, dump, "K", "1")
            except OSError:
                return
            match = CRASH_ID.match(body) if status == 200 else None
            if match:
                answered.append(match.group(1))

    senders = [threading.Thread(target=send) for _ in range(3)]
    for t in senders:
        t.start()
    deadline = time.monotonic() + 30
    while len(answered) < 15 and time.monotonic() < deadline:
        time.sleep(0.05)
    server.stop(signal.SIGKILL)
    stop.set()
    for t in senders:
        t.join(timeout=30)
    for name in os.listdir(kill_cache):
        if name.startswith("crashes-"):
            os.remove(os.path.join(kill_cache, name))  # the index, made again from the store
    with ServeProcess(args.symstore, store, "--crashes", crash_dir, "--cache-dir", kill_cache,
                      quiet=True) as server:
        lost = [i for i in answered if server.request("GET", f"/api/crashes/{i}")[0] != 200]
        status, page = get_json(server, "/api/crashes?limit=1000", headers={})
        listed = {x["id"] for x in page["crashes"]} if status == 200 else set()
        if lost or not set(answered) <= listed:
            report.fail(f"kill -9: {len(lost)} of {len(answered)} answered crashes lost, "
                        f"{len(set(answered) - listed)} not listed by the index made again")
        report.note(f"kill -9 after {len(answered)} answered crashes: none lost, the index made again lists {len(listed)}")

    two_servers_over_s3(args, report, tmp, store, dumps[("crashy1", "0")][0], dumps[("crashy1", "0")][1][0])


def retention(args, report, tmp, store, cache, dump):
    """--crash-max-bytes: the oldest crashes' files go until the rest fit;
    --crash-retention: a crash received long ago loses its files. Both keep
    what the crashes were: their signatures and the groups' counts."""
    crash_dir = os.path.join(tmp, "retained")
    with ServeProcess(args.symstore, store, f"--crashes={crash_dir}", "--cache-dir", cache,
                      "--crash-max-bytes", str(3 * len(dump) - 1), quiet=True) as server:
        ids = [submitted(report, f"crash {i} under --crash-max-bytes", crash_clients.breakpad_upload(
            server.host, server.port, dump, "R", "1")) for i in range(5)]
        if None in ids:
            return
        expired = wait_processed(server, ids[:3], until=lambda c: bool(c.get("expired_at")))
        if len(expired) != 3:
            report.fail(f"--crash-max-bytes {3 * len(dump) - 1}: {len(expired)} of the 3 oldest crashes expired")
        for crash_id in ids:
            day = "20" + crash_id[-6:]
            present = os.path.exists(os.path.join(crash_dir, day, crash_id, "minidump.dmp"))
            if present == (crash_id in ids[:3]):
                report.fail(f"--crash-max-bytes: crash {ids.index(crash_id)}'s dump is "
                            f"{'still there' if present else 'gone'}")
        status, groups = get_json(server, "/api/signatures?product=R", headers={})
        if status != 200 or sum(g["count"] for g in groups) != 5:
            report.fail(f"after retention the groups count {groups}, not 5 crashes")
    # A crash received in 2020 (its files placed by hand): --crash-retention 30.
    old_dir = os.path.join(tmp, "retained-old")
    old_id = "3f2a9c1e-5b7d-4e8f-9a1b-2c3d40200101"
    place = os.path.join(old_dir, "20200101", old_id)
    os.makedirs(place)
    with open(os.path.join(place, "minidump.dmp"), "wb") as fh:
        fh.write(dump)
    with open(os.path.join(place, "received.json"), "w") as fh:
        json.dump({"id": old_id, "received": "2020-01-01T00:00:00.000Z", "kind": "minidump", "product": "Old",
                   "version": "0.1", "guid": "", "annotations": {}, "attachments": [],
                   "payload": {"file": "minidump.dmp", "field": "upload_file_minidump", "filename": "x.dmp",
                               "size": len(dump)}}, fh)
    with ServeProcess(args.symstore, store, f"--crashes={old_dir}", "--cache-dir", cache,
                      "--crash-retention", "30", quiet=True) as server:
        done = wait_processed(server, [old_id], until=lambda c: bool(c.get("expired_at")))
        if old_id not in done or os.path.exists(os.path.join(place, "minidump.dmp")):
            report.fail("--crash-retention 30: the crash received in 2020 kept its dump")
        elif not done[old_id]["signature"]:
            report.fail("--crash-retention: the expired crash has no signature")


def chromium_dom(args, tmp, url):
    """The page as Debian's chromium, headless, builds its DOM."""
    profile = tempfile.mkdtemp(prefix="profile-", dir=tmp)
    p = sh(args.chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--no-first-run", f"--user-data-dir={profile}", "--dump-dom", url)
    if p.returncode != 0 or "<html" not in p.stdout:
        raise SystemExit(f"chromium --dump-dom {url}: exit {p.returncode}: {p.stderr[-600:]}")
    return page_dom.parse(p.stdout)


def check_pages_in_chromium(args, report, tmp, server, crash, hostile):
    """The groups, a group, a crash, as chromium reads them: the signature
    shown in each, the daily counts drawn, a hostile annotation shown as
    text, never as markup."""
    key = "key=tok-read"
    groups = chromium_dom(args, tmp, f"{server.url}/ui/crashes?{key}")
    table = groups.by_id("crash-groups")
    rows = table.find_all("tr")[1:] if table else []
    if not any(r.find("a", cls="signature") and r.find("a", cls="signature").text() == crash["signature"]
               for r in rows):
        report.fail(f"chromium: /ui/crashes shows no group {crash['signature']!r}")
    if not groups.find("svg", cls="sparkline"):
        report.fail("chromium: /ui/crashes draws no daily counts")
    group = chromium_dom(args, tmp, f"{server.url}/ui/signature?s={urllib.parse.quote(crash['signature'])}&{key}")
    listed = group.by_id("group-crashes")
    if not listed or crash["id"] not in listed.text():
        report.fail("chromium: the group's page does not list its crash")
    page = chromium_dom(args, tmp, f"{server.url}/ui/crashes/{hostile['id']}?{key}")
    signature = page.by_id("crash-signature")
    if not signature or signature.text().strip() != hostile["signature"]:
        report.fail(f"chromium: the crash's page shows signature "
                    f"{signature.text() if signature else None!r}, not {hostile['signature']!r}")
    annotations = page.by_id("annotations")
    if not annotations or '<script id="injected">alert(1)</script>' not in annotations.text():
        report.fail("chromium: the hostile annotation is not shown as text")
    if any(e.attrs.get("id") == "injected" for e in page.elements()):
        report.fail("chromium: an annotation became markup")


def aws_environment():
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env.update(AWS_ACCESS_KEY_ID=servers.S3RVER_KEY, AWS_SECRET_ACCESS_KEY=servers.S3RVER_SECRET,
               AWS_REGION="us-east-1")
    return env


def two_servers_over_s3(args, report, tmp, store, dump, expected):
    """Servers A and B over one bucket: each lists, and has processed, the
    crash the other received."""
    with servers.S3rver(args.s3rver, "inbox") as s3:
        p = sh(args.symstore, "upload", store, "--to", "s3://inbox/symbols", "--protocol", "s3",
               "--endpoint", s3.url, env=aws_environment(), stdin=subprocess.DEVNULL)
        if p.returncode:
            report.fail(f"symstore upload --protocol s3: {p.stderr[-500:]}")
            return
        common = ("s3://inbox/symbols", "--crashes=s3://inbox/crashes", "--endpoint", s3.url)
        with ServeProcess(args.symstore, *common, "--cache-dir", os.path.join(tmp, "s3-a"),
                          env=aws_environment(), quiet=True) as a, \
                ServeProcess(args.symstore, *common, "--cache-dir", os.path.join(tmp, "s3-b"),
                             env=aws_environment(), quiet=True) as b:
            from_a = submitted(report, "a crash sent to server A", crash_clients.crashpad_upload(
                a.host, a.port, dump, "Crashy", "1.0"))
            from_b = submitted(report, "a crash sent to server B", crash_clients.breakpad_upload(
                b.host, b.port, dump, "Crashy", "1.0"))
            if not from_a or not from_b:
                return
            for server, other, crash_id in ((b, "A", from_a), (a, "B", from_b)):
                seen = wait_processed(server, [crash_id])
                if crash_id not in seen:
                    report.fail(f"the crash server {other} received is not processed on the other server")
                    continue
                if seen[crash_id]["signature"] != expected:
                    report.fail(f"over S3: signature {seen[crash_id]['signature']!r}, expected {expected}")
                # The index follows the bucket by listing it every 10 s.
                listed, deadline = False, time.monotonic() + 40
                while not listed and time.monotonic() < deadline:
                    status, page = get_json(server, "/api/crashes", headers={})
                    listed = status == 200 and crash_id in {x["id"] for x in page["crashes"]}
                    time.sleep(0.5)
                if not listed:
                    report.fail(f"the crash server {other} received is not listed by the other server")
            keys = s3.keys()
            if not any(k.startswith("crashes/") and k.endswith("/received.json") for k in keys):
                report.fail("the bucket has no crashes/<day>/<id>/received.json")
            report.note(f"two servers over s3rver: each sees the other's crash ({len(keys)} objects)")


def main():
    args = arguments(lambda p: (p.add_argument("--symstore", required=True),
                                p.add_argument("--symtool", required=True),
                                p.add_argument("--s3rver", required=True),
                                p.add_argument("--chromium", required=True)))
    report = Report("crash_inbox")
    tmp = tempfile.mkdtemp(prefix="crash-inbox-")
    try:
        run(args, report, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
