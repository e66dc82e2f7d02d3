#!/usr/bin/env python3
"""symstore upload against real and mock servers, all on loopback ports the
test picks and stops: nginx (WebDAV PUT), nginx behind a proxy that fails
30% of requests (503, 503 + Retry-After, 429, dropped connections, stalls),
a closed port, s3rver behind a recording proxy whose every captured request
has its AWS Signature V4 recomputed here, and mock servers speaking
Breakpad's sym_upload (v1), Breakpad's sym-upload-v2 and Mozilla Tecken's
zip upload that refuse anything else. Every file must arrive byte-identical
and exactly once; a second run sends no symbol file; --dry-run sends
nothing; secrets never reach stdout or stderr; a store with a corrupt or
misfiled .sym is refused before any request."""
import collections
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.parse

from common import Report, arguments, require_shared
import upload_servers as servers

# A handful of corpus binaries: C, C++, gcc and clang, i386, arm64, riscv64;
# one symbol file above 128 KiB (sent with Expect: 100-continue).
BINARIES = ["cprog.gcc12.g-O2", "cprog.clang19.g-O2", "cprog.gcc12.m32-g-O2", "cxxprog.gcc12.g-O2",
            "cxxprog.gcc12.g-O0", "crashchain.gcc12.g-O2", "crashchain-free.clang19.aarch64",
            "crashchain-free.clang19.riscv64"]
# Twelve symbol files of 21-23 KB (5-6 KB deflated, 76 KB as one zip):
# under a 0.05 MB batch limit each fits alone, whatever the compression,
# and all of them together do not fit in one request however well they
# compress (a zip compresses each entry on its own).
BATCH_BINARIES = ["cxxprog.clang19.g-O2", "cxxprog.clang19.gdwarf4-O2", "cxxprog.clang19.lld-g-O2",
                  "cxxprog.clang19.types-O2", "cxxprog.gcc12.g-O2", "cxxprog.gcc12.g-O2-fp",
                  "cxxprog.gcc12.g1-O2", "cxxprog.gcc12.gdwarf4-O2", "cxxprog.gcc12.g-O2-omitfp",
                  "cxxprog.gcc12.types-dwarf4-O2", "cxxprog.gcc12.gz-zlib", "cxxprog.gcc12.gz-zstd"]
MAX_BATCH_MB = "0.05"
MB = 1000 * 1000  # the smaller reading of "MB": a request within it is within either

TOKEN = "symstoretoken7Q4Z"          # for the runs that test function
SECRET_TOKEN = "Sy+mT0k/en=9XbQ2"    # for the runs that look for leaks (needs URL encoding)
SECRET_AWS = "aws/Secr+et9XbQ2kZ"
S3_KEY = servers.S3RVER_KEY
RUN_SECONDS = 300                    # one upload run, at most


class Store:
    """A store made by symstore add: {relative path: bytes}."""

    def __init__(self, path):
        self.path = path
        self.files = {}
        for directory, dirs, names in os.walk(path):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in names:
                if name.endswith(".sym"):
                    full = os.path.join(directory, name)
                    with open(full, "rb") as fh:
                        self.files[os.path.relpath(full, path)] = fh.read()

    def copy(self, to):
        shutil.copytree(self.path, to, ignore=shutil.ignore_patterns(".*"))
        return Store(to)


def make_store(args, root, name, binaries):
    release = os.path.join(root, name + "-release")
    os.makedirs(release)
    for binary in binaries:
        shutil.copy(os.path.join(args.shared, "corpus", "bin", binary), release)
    path = os.path.join(root, name)
    p = subprocess.run([args.symstore, "add", path, release, "-q"], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"symstore add {release}: exit {p.returncode}: {p.stderr.strip()}")
    store = Store(path)
    if len(store.files) != len(binaries):
        raise SystemExit(f"symstore add made {len(store.files)} files of {len(binaries)} binaries")
    return store


def environment(token=None, aws_key=None, aws_secret=None):
    env = {k: v for k, v in os.environ.items() if k != "SYMSTORE_TOKEN" and not k.startswith("AWS_")}
    if token is not None:
        env["SYMSTORE_TOKEN"] = token
    if aws_key is not None:
        env.update(AWS_ACCESS_KEY_ID=aws_key, AWS_SECRET_ACCESS_KEY=aws_secret, AWS_REGION="us-east-1")
    return env


class Run:
    def __init__(self, argv, returncode, stdout, stderr, seconds):
        self.argv, self.returncode, self.stdout, self.stderr, self.seconds = argv, returncode, stdout, stderr, seconds
        self.out = stdout + stderr

    def tail(self, n=1500):
        return self.out.strip()[-n:]

    def summary(self):
        """(uploaded, failed) from the closing line, or None."""
        up = re.findall(r"(\d+) uploaded", self.stderr + self.stdout)
        failed = re.findall(r"(\d+) failed", self.stderr + self.stdout)
        return (int(up[-1]), int(failed[-1]) if failed else None) if up else None


def upload(args, store, to, *options, env=None):
    argv = [args.symstore, "upload", store.path, "--to", to, *options]
    started = time.monotonic()
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=RUN_SECONDS,
                           env=env if env is not None else environment(TOKEN), stdin=subprocess.DEVNULL)
        return Run(argv, p.returncode, p.stdout, p.stderr, time.monotonic() - started)
    except subprocess.TimeoutExpired as e:
        out = lambda b: (b or b"").decode(errors="replace") if isinstance(b, bytes) else (b or "")
        return Run(argv, "timeout", out(e.stdout), out(e.stderr), RUN_SECONDS)


def expect_exit(report, what, run, code):
    if run.returncode != code:
        report.fail(f"{what}: exit {run.returncode}, want {code}: {run.tail()}")
        return False
    return True


def expect_summary(report, what, run, uploaded, failed=0):
    got = run.summary()
    if got is None:
        report.fail(f"{what}: no summary line ('N uploaded, ... N failed'): {run.tail(600)}")
    elif got[0] != uploaded or (failed is not None and got[1] != failed):
        report.fail(f"{what}: summary says {got[0]} uploaded, {got[1]} failed; want {uploaded}, {failed}")


def expect_files(report, what, got, store, prefix=""):
    """`got` ({path: bytes}) holds exactly the store's files, byte for byte."""
    for rel, data in store.files.items():
        theirs = got.get(prefix + rel)
        if theirs is None:
            report.fail(f"{what}: {rel} did not arrive")
        elif theirs != data:
            report.fail(f"{what}: {rel} arrived different ({len(theirs)} bytes, want {len(data)})")
    extra = sorted(set(got) - {prefix + rel for rel in store.files})
    if extra:
        report.fail(f"{what}: the server got files the store does not have: {extra[:5]}")


def served_files(root):
    out = {}
    for directory, _, names in os.walk(root):
        for name in names:
            full = os.path.join(directory, name)
            with open(full, "rb") as fh:
                out[os.path.relpath(full, root)] = fh.read()
    return out


def puts(log, ok_only=True):
    """{path: count} of PUTs in an nginx log (2xx only, by default)."""
    counts = collections.Counter()
    for method, uri, status, _ in log:
        if method == "PUT" and (not ok_only or 200 <= status < 300):
            counts[urllib.parse.unquote(uri.lstrip("/"))] += 1
    return counts


def names_each_file(report, what, run, store, word=None):
    """Every file of the store is named on a line of the output (with `word`)."""
    lines = run.out.splitlines()
    for rel in store.files:
        ident = rel.split("/")[1]
        hits = [l for l in lines if rel in l or ident in l]
        if word:
            hits = [l for l in hits if re.search(word, l, re.I)]
        if not hits:
            report.fail(f"{what}: no line names {rel}" + (f" with /{word}/" if word else "") + f": {run.tail(600)}")


# --- put ---------------------------------------------------------------------------------

def check_put(report, args, root, base):
    store = base.copy(os.path.join(root, "put"))
    with servers.Nginx(args.nginx) as ng:
        dry = upload(args, store, ng.url, "--dry-run")
        expect_exit(report, "put --dry-run", dry, 0)
        if ng.log() or served_files(ng.root):
            report.fail(f"put --dry-run sent {len(ng.log())} requests, want none: {ng.log()[:3]}")
        for rel in store.files:
            if rel not in dry.out:
                report.fail(f"put --dry-run does not list {rel}: {dry.tail(600)}")

        first = upload(args, store, ng.url, "-j", "4")
        if expect_exit(report, "put", first, 0):
            expect_summary(report, "put", first, len(store.files))
        expect_files(report, "put: nginx's root", served_files(ng.root), store)
        counts = puts(ng.log())
        for rel in store.files:
            if counts[rel] != 1:
                report.fail(f"put: {rel} PUT {counts[rel]} times, want once")
        heads = [l for l in ng.log() if l[0] == "HEAD"]
        if len(heads) < len(store.files):
            report.fail(f"put: {len(heads)} HEAD requests for {len(store.files)} files: it must ask first")
        report.note(f"put: {len(store.files)} files to nginx in {first.seconds:.1f} s")

        before = len(ng.log())
        second = upload(args, store, ng.url)
        expect_exit(report, "put, second run", second, 0)
        expect_summary(report, "put, second run", second, 0)
        again = puts(ng.log()[before:], ok_only=False)
        if again:
            report.fail(f"put, second run: sent {sum(again.values())} PUTs: {dict(again)}")

        # One file gone from the server: only it is sent again.
        gone = sorted(store.files)[0]
        os.remove(os.path.join(ng.root, gone))
        before = len(ng.log())
        third = upload(args, store, ng.url)
        expect_exit(report, "put, one file missing on the server", third, 0)
        if dict(puts(ng.log()[before:], ok_only=False)) != {gone: 1}:
            report.fail(f"put, one file missing on the server: PUTs {dict(puts(ng.log()[before:], False))}, "
                        f"want only {gone}")
        expect_files(report, "put, one file missing on the server", served_files(ng.root), store)

        # --verify: a HEAD answering 200 after each PUT.
        ng.clear()
        before = len(ng.log())
        verify = upload(args, store, ng.url, "--verify")
        expect_exit(report, "put --verify", verify, 0)
        log = ng.log()[before:]
        for rel in store.files:
            put_at = [i for i, l in enumerate(log) if l[0] == "PUT" and l[1] == "/" + rel and 200 <= l[2] < 300]
            if not put_at or not any(l[0] == "HEAD" and l[1] == "/" + rel and l[2] == 200
                                     for l in log[put_at[0] + 1:]):
                report.fail(f"put --verify: no HEAD answered 200 after the PUT of {rel}")


# --- faults ------------------------------------------------------------------------------

def check_faults(report, args, root, base):
    store = base.copy(os.path.join(root, "faults"))
    with servers.Nginx(args.nginx) as ng, servers.FaultProxy(ng.url, share=0.3, seed=11, stall=30) as px:
        run = upload(args, store, px.url, "--retries", "8", "--timeout", "2", "-j", "4")
        expect_exit(report, "put through 30% faults", run, 0)
        expect_summary(report, "put through 30% faults", run, len(store.files))
        expect_files(report, "put through 30% faults", served_files(ng.root), store)
        counts = puts(ng.log())
        for rel in store.files:
            if counts[rel] != 1:
                report.fail(f"put through 30% faults: {rel} stored by {counts[rel]} PUTs, want exactly 1")
        unauthorized = [r for r in px.records if ("Authorization", f"Bearer {TOKEN}") not in r["headers"]]
        if unauthorized:
            report.fail(f"put: {len(unauthorized)} requests without Authorization: Bearer $SYMSTORE_TOKEN, "
                        f"e.g. {unauthorized[0]['method']} {unauthorized[0]['target']}")
        faults = px.faults()
        report.note(f"faults: {sum(faults.values())} of {len(px.records)} requests faulted {dict(faults)}; "
                    f"{run.seconds:.1f} s")
        missing = set(servers.FAULT_KINDS) - set(faults)
        if missing:
            report.fail(f"faults: the schedule injected no {sorted(missing)} (change the seed)")
        records = sorted(px.records, key=lambda r: r["time"])
        for i, r in enumerate(records):
            if not r["fault"]:
                continue
            later = [s for s in records[i + 1:] if (s["method"], s["target"]) == (r["method"], r["target"])]
            if not later:
                report.fail(f"faults: {r['method']} {r['target']} got {r['fault']} and was never tried again")
                continue
            gap = later[0]["time"] - (r["answered"] or r["time"])
            if r["fault"].endswith("retry-after") and gap < 0.9:
                report.fail(f"faults: {r['method']} {r['target']} retried {gap:.2f} s after "
                            f"Retry-After: 1 ({r['fault']})")
            if r["fault"] == "stall" and later[0]["time"] - r["time"] > 15:
                report.fail(f"faults: {r['method']} {r['target']} stalled; tried again only after "
                            f"{later[0]['time'] - r['time']:.1f} s with --timeout 2")

    # A 4xx other than 408/429 is final: no retry, the error names the file and the answer.
    with servers.Nginx(args.nginx) as ng, \
            servers.FaultProxy(ng.url, rule=lambda method, path, n: "403" if method == "PUT" else None) as px:
        run = upload(args, store, px.url, "--retries", "8", "--timeout", "2")
        expect_exit(report, "put answered 403", run, 1)
        tries = collections.Counter(r["target"] for r in px.records if r["method"] == "PUT")
        for rel in store.files:
            if tries["/" + rel] != 1:
                report.fail(f"put answered 403: {rel} PUT {tries['/' + rel]} times, want 1 (no retry on 403)")
        names_each_file(report, "put answered 403", run, store, "403")
        if "injected fault: 403" not in run.out:
            report.fail(f"put answered 403: the server's answer is not shown: {run.tail(600)}")

    # 503 to every PUT: each file tried exactly 1 + --retries times, then failed.
    with servers.Nginx(args.nginx) as ng, \
            servers.FaultProxy(ng.url, rule=lambda method, path, n: "503" if method == "PUT" else None) as px:
        run = upload(args, store, px.url, "--retries", "3", "--timeout", "2", "-j", "4")
        expect_exit(report, "put answered 503 for good", run, 1)
        expect_summary(report, "put answered 503 for good", run, 0, len(store.files))
        tries = collections.Counter(r["target"] for r in px.records if r["method"] == "PUT")
        for rel in store.files:
            if tries["/" + rel] != 4:
                report.fail(f"put answered 503 for good: {rel} PUT {tries['/' + rel]} times, want 4 (--retries 3)")
        names_each_file(report, "put answered 503 for good", run, store, "503")

    # The server down for good: every file failed, none reported uploaded.
    port = servers.closed_port()
    run = upload(args, store, f"http://{servers.LOOPBACK}:{port}", "--retries", "2", "--timeout", "2", "-j", "4")
    expect_exit(report, "put to a closed port", run, 1)
    expect_summary(report, "put to a closed port", run, 0, len(store.files))
    names_each_file(report, "put to a closed port", run, store, r"fail|error|not uploaded")
    claimed = [l for l in run.out.splitlines() if re.search(r"\buploaded\b", l, re.I)
               and not re.search(r"not uploaded|\b0 uploaded|fail|error", l, re.I)]
    if claimed:
        report.fail(f"put to a closed port: lines report uploads: {claimed[:3]}")
    report.note(f"closed port: exit {run.returncode} in {run.seconds:.1f} s")


# --- s3 ------------------------------------------------------------------------------------

def check_s3(report, args, root, base):
    problem = servers.sigv4_self_check()
    if problem:
        report.fail(f"s3: the SigV4 verifier is wrong: {problem}")
        return
    store = base.copy(os.path.join(root, "s3"))
    bucket, prefix = "symbols", "release/1.0"
    with servers.S3rver(args.s3rver, bucket) as s3, servers.FaultProxy(s3.url) as px:
        to = f"s3://{bucket}/{prefix}"
        s3_args = ("--protocol", "s3", "--endpoint", px.url)
        run = upload(args, store, to, *s3_args, env=environment(aws_key=S3_KEY, aws_secret=servers.S3RVER_SECRET))
        if expect_exit(report, "s3", run, 0):
            expect_summary(report, "s3", run, len(store.files))
        got = {k: s3.get(k) for k in s3.keys()}
        expect_files(report, "s3: objects in the bucket", got, store, prefix + "/")
        put_paths = collections.Counter(r["target"] for r in px.records if r["method"] == "PUT")
        want_paths = {f"/{bucket}/{prefix}/{rel}" for rel in store.files}
        if set(put_paths) != want_paths or any(n != 1 for n in put_paths.values()):
            report.fail(f"s3: PUTs {dict(put_paths)}, want one path-style PUT to each of {sorted(want_paths)[:2]}…")
        verify_signatures(report, "s3", px.records, servers.S3RVER_SECRET, S3_KEY)
        report.note(f"s3: {len(px.records)} requests, every signature recomputed")

        before = len(px.records)
        second = upload(args, store, to, *s3_args, env=environment(aws_key=S3_KEY, aws_secret=servers.S3RVER_SECRET))
        expect_exit(report, "s3, second run", second, 0)
        again = [r["target"] for r in px.records[before:] if r["method"] == "PUT"]
        if again:
            report.fail(f"s3, second run: sent {len(again)} PUTs: {again[:3]}")

        # An access key s3rver does not know: its InvalidAccessKeyId shown.
        fresh = base.copy(os.path.join(root, "s3-badkey"))
        bad = upload(args, fresh, f"s3://{bucket}/other", *s3_args,
                     env=environment(aws_key="AKIDNOTKNOWNHERE", aws_secret="whatever"))
        expect_exit(report, "s3 with an unknown access key", bad, 1)
        if "InvalidAccessKeyId" not in bad.out:
            report.fail(f"s3 with an unknown access key: InvalidAccessKeyId not shown: {bad.tail(600)}")
        if any(k.startswith("other/") for k in s3.keys()):
            report.fail("s3 with an unknown access key: objects were stored")


def verify_signatures(report, what, records, secret, key):
    bad = 0
    for r in records:
        problem = servers.sigv4_verify(r, secret, key)
        if problem:
            bad += 1
            if bad <= 3:
                report.fail(f"{what}: {r['method']} {r['target']}: {problem}")
    if bad > 3:
        report.fail(f"{what}: {bad} requests in all fail the signature check")
    if not records:
        report.fail(f"{what}: the proxy captured no request")


# --- Breakpad v1, v2, Tecken -------------------------------------------------------------

def check_breakpad_v1(report, args, root, base):
    store = base.copy(os.path.join(root, "v1"))
    with servers.BreakpadV1(token=TOKEN) as v1:
        run = upload(args, store, v1.upload_url, "--protocol", "breakpad-v1", "-j", "4")
        if expect_exit(report, "breakpad-v1", run, 0):
            expect_summary(report, "breakpad-v1", run, len(store.files))
        expect_files(report, "breakpad-v1", v1.stored, store)
        if v1.rejections:
            report.fail(f"breakpad-v1: the server refused {len(v1.rejections)} requests: {v1.rejections[:3]}")
        if v1.counts["upload"] != len(store.files):
            report.fail(f"breakpad-v1: {v1.counts['upload']} uploads for {len(store.files)} files")
        second = upload(args, store, v1.upload_url, "--protocol", "breakpad-v1")
        expect_exit(report, "breakpad-v1, second run", second, 0)
        if v1.counts["upload"] != len(store.files) or len(v1.requests) != len(store.files):
            report.fail(f"breakpad-v1, second run: {len(v1.requests) - len(store.files)} more requests "
                        "(the ledger should have answered)")
        if not os.path.isdir(os.path.join(store.path, ".uploaded")):
            report.fail("breakpad-v1: no ledger under STORE/.uploaded")
    # The ledger belongs to one server: another one gets every file.
    with servers.BreakpadV1(token=TOKEN) as other:
        run = upload(args, store, other.upload_url, "--protocol", "breakpad-v1")
        expect_exit(report, "breakpad-v1 to a second server", run, 0)
        expect_files(report, "breakpad-v1 to a second server (a ledger is per server)", other.stored, store)


def check_breakpad_v2(report, args, root, base):
    store = base.copy(os.path.join(root, "v2"))
    n = len(store.files)
    with servers.BreakpadV2(key=TOKEN) as v2:
        run = upload(args, store, v2.url, "--protocol", "breakpad-v2", "-j", "4")
        if expect_exit(report, "breakpad-v2", run, 0):
            expect_summary(report, "breakpad-v2", run, n)
        expect_files(report, "breakpad-v2", v2.stored, store)
        if v2.rejections:
            report.fail(f"breakpad-v2: the server refused {len(v2.rejections)} requests: {v2.rejections[:3]}")
        want = {"checkStatus": n, "create": n, "put": n, "complete": n}
        got = {k: v2.counts[k] for k in want}
        if got != want:
            report.fail(f"breakpad-v2: requests {got}, want {want}")
        second = upload(args, store, v2.url, "--protocol", "breakpad-v2")
        expect_exit(report, "breakpad-v2, second run", second, 0)
        expect_summary(report, "breakpad-v2, second run", second, 0)
        got = {k: v2.counts[k] for k in want}
        if got != dict(want, checkStatus=2 * n):
            report.fail(f"breakpad-v2, second run: requests in all {got}, want only {n} more checkStatus")


def check_tecken(report, args, root, base, batch_base):
    # --to is the server; the client POSTs to URL/upload/.
    store = base.copy(os.path.join(root, "tecken"))
    with servers.Tecken(token=TOKEN) as tk:
        run = upload(args, store, tk.url, "--protocol", "tecken")
        if expect_exit(report, "tecken", run, 0):
            expect_summary(report, "tecken", run, len(store.files))
        expect_files(report, "tecken", tk.stored, store)
        if tk.rejections:
            report.fail(f"tecken: the server refused {len(tk.rejections)} requests: {tk.rejections[:3]}")
        uploads = tk.counts["upload"]
        second = upload(args, store, tk.url, "--protocol", "tecken")
        expect_exit(report, "tecken, second run", second, 0)
        if len(tk.requests) != uploads:
            report.fail(f"tecken, second run: {len(tk.requests) - uploads} more requests (the ledger should answer)")

    # The ledger is not a symbol file: a later put sends only the .sym files.
    with servers.Nginx(args.nginx) as ng:
        run = upload(args, store, ng.url)
        expect_exit(report, "put of a store with a ledger", run, 0)
        expect_files(report, "put of a store with a ledger", served_files(ng.root), store)

    batch = batch_base.copy(os.path.join(root, "tecken-batches"))
    limit = float(MAX_BATCH_MB) * MB
    with servers.Tecken(token=TOKEN) as tk:
        run = upload(args, batch, tk.url, "--protocol", "tecken", "--max-batch", MAX_BATCH_MB)
        expect_exit(report, f"tecken --max-batch {MAX_BATCH_MB}", run, 0)
        expect_files(report, f"tecken --max-batch {MAX_BATCH_MB}", tk.stored, batch)
        over = [s for s in tk.request_sizes if s > limit]
        if over:
            report.fail(f"tecken --max-batch {MAX_BATCH_MB}: requests of {over} bytes (limit {limit:.0f})")
        if len(tk.request_sizes) < 2:
            report.fail(f"tecken --max-batch {MAX_BATCH_MB}: {len(tk.request_sizes)} request for "
                        f"{len(batch.files)} files that cannot fit in one")
        sent = collections.Counter(name for names in tk.batches for name in names)
        twice = [n for n, c in sent.items() if c > 1]
        if twice:
            report.fail(f"tecken --max-batch {MAX_BATCH_MB}: files sent in more than one batch: {twice[:3]}")
        report.note(f"tecken: {len(tk.request_sizes)} batches of at most {max(tk.request_sizes or [0])} bytes")


# --- secrets -------------------------------------------------------------------------------

def check_secrets(report, args, root, base):
    """-v, the secrets in the environment, success and failure paths alike."""
    forms = {SECRET_TOKEN, urllib.parse.quote(SECRET_TOKEN, safe=""), SECRET_AWS,
             urllib.parse.quote(SECRET_AWS, safe="")}

    def leaks(what, run):
        for form in forms:
            if form in run.out:
                report.fail(f"secrets: {what} printed a secret ({form[:3]}…) with -v")
        return run

    env = environment(SECRET_TOKEN)
    with servers.Nginx(args.nginx) as ng:
        leaks("put", upload(args, base.copy(os.path.join(root, "sec-put")), ng.url, "-v", env=env))
    with servers.BreakpadV1(token=SECRET_TOKEN) as v1:
        run = leaks("breakpad-v1", upload(args, base.copy(os.path.join(root, "sec-v1")), v1.upload_url,
                                          "--protocol", "breakpad-v1", "-v", env=env))
        expect_exit(report, "breakpad-v1 with a token to encode", run, 0)
    with servers.BreakpadV2(key=SECRET_TOKEN) as v2, servers.FaultProxy(v2.url, share=0.4, seed=5, stall=30) as px:
        run = leaks("breakpad-v2 through faults", upload(args, base.copy(os.path.join(root, "sec-v2")), px.url,
                                                         "--protocol", "breakpad-v2", "-v", "--retries", "8",
                                                         "--timeout", "2", env=env))
        expect_exit(report, "breakpad-v2 with a key to URL-encode, through faults", run, 0)
        if v2.rejections:
            report.fail(f"breakpad-v2 with a key to URL-encode: refused: {v2.rejections[:2]}")
    with servers.Tecken(token=SECRET_TOKEN) as tk:
        leaks("tecken", upload(args, base.copy(os.path.join(root, "sec-tecken")), tk.url,
                               "--protocol", "tecken", "-v", env=env))
    # Refused: every protocol with a token the server does not accept.
    wrong = environment("wrong" + SECRET_TOKEN)
    forms |= {"wrong" + SECRET_TOKEN, urllib.parse.quote("wrong" + SECRET_TOKEN, safe="")}
    with servers.BreakpadV2(key=SECRET_TOKEN) as v2:
        run = leaks("breakpad-v2 refused", upload(args, base.copy(os.path.join(root, "sec-v2-bad")), v2.url,
                                                  "--protocol", "breakpad-v2", "-v", env=wrong))
        expect_exit(report, "breakpad-v2 with a wrong key", run, 1)
        if len(v2.requests) != len(base.files):
            report.fail(f"breakpad-v2 with a wrong key: {len(v2.requests)} requests for {len(base.files)} "
                        "files (a 400 is not retried)")
    with servers.Tecken(token=SECRET_TOKEN) as tk:
        run = leaks("tecken refused", upload(args, base.copy(os.path.join(root, "sec-tecken-bad")),
                                             tk.url, "--protocol", "tecken", "-v", env=wrong))
        expect_exit(report, "tecken with a wrong token", run, 1)
        if "missing or invalid Auth-Token" not in run.out:
            report.fail(f"tecken with a wrong token: the server's answer is not shown: {run.tail(600)}")
    with servers.BreakpadV1(token=SECRET_TOKEN) as v1:
        run = leaks("breakpad-v1 refused", upload(args, base.copy(os.path.join(root, "sec-v1-bad")), v1.upload_url,
                                                  "--protocol", "breakpad-v1", "-v", env=wrong))
        expect_exit(report, "breakpad-v1 with a wrong token", run, 1)
    # s3: s3rver takes any signature of its key, the verifier checks ours.
    with servers.S3rver(args.s3rver, "secrets") as s3, servers.FaultProxy(s3.url) as px:
        run = leaks("s3", upload(args, base.copy(os.path.join(root, "sec-s3")), "s3://secrets/p", "--protocol", "s3",
                                 "--endpoint", px.url, "-v", env=environment(SECRET_TOKEN, S3_KEY, SECRET_AWS)))
        expect_exit(report, "s3 with a secret to sign with", run, 0)
        verify_signatures(report, "s3 signed with another secret", px.records, SECRET_AWS, S3_KEY)


# --- bad stores ----------------------------------------------------------------------------

def check_bad_stores(report, args, root, base):
    victim = sorted(base.files)[len(base.files) // 2]
    corrupt = base.copy(os.path.join(root, "bad-corrupt"))
    with open(os.path.join(corrupt.path, victim), "r+b") as fh:
        fh.write(b"NOTMODULE")
    misfiled = base.copy(os.path.join(root, "bad-misfiled"))
    name, ident, leaf = victim.split("/")
    wrong_id = ident[:-1] + ("1" if ident[-1] != "1" else "2")
    os.rename(os.path.join(misfiled.path, name, ident), os.path.join(misfiled.path, name, wrong_id))
    for what, store, bad_path in (("a .sym not starting with MODULE", corrupt, victim),
                                  ("a .sym whose path does not match its MODULE line", misfiled,
                                   f"{name}/{wrong_id}/{leaf}")):
        with servers.Nginx(args.nginx) as ng:
            run = upload(args, store, ng.url)
            expect_exit(report, f"put of a store with {what}", run, 1)
            if ng.log():
                report.fail(f"put of a store with {what}: the server saw {len(ng.log())} requests, want none")
            if bad_path not in run.out and name not in run.out:
                report.fail(f"put of a store with {what}: the error does not name {bad_path}: {run.tail(600)}")
        with servers.Tecken(token=TOKEN) as tk:
            run = upload(args, store, tk.url, "--protocol", "tecken")
            expect_exit(report, f"tecken with {what}", run, 1)
            if tk.requests:
                report.fail(f"tecken with {what}: the server saw {len(tk.requests)} requests, want none")
        with servers.BreakpadV2(key=TOKEN) as v2:
            run = upload(args, store, v2.url, "--protocol", "breakpad-v2")
            expect_exit(report, f"breakpad-v2 with {what}", run, 1)
            if v2.requests:
                report.fail(f"breakpad-v2 with {what}: the server saw {len(v2.requests)} requests, want none")


def main():
    args = arguments(lambda p: (p.add_argument("--symstore", required=True),
                                p.add_argument("--nginx", default="nginx"),
                                p.add_argument("--s3rver", required=True),
                                p.add_argument("--sections", help="comma-separated subset of the checks")))
    require_shared(args)
    report = Report("symstore upload")
    help_run = subprocess.run([args.symstore, "upload", "--help"], capture_output=True, text=True, timeout=60)
    if help_run.returncode != 0:
        report.fail(f"symstore upload --help: exit {help_run.returncode}: {help_run.stderr.strip()[:300]}")
        report.finish()
    root = tempfile.mkdtemp(prefix="upload-test-")
    try:
        base = make_store(args, root, "store", BINARIES)
        batch = make_store(args, root, "batch-store", BATCH_BINARIES)
        sections = [("put", lambda: check_put(report, args, root, base)),
                    ("faults", lambda: check_faults(report, args, root, base)),
                    ("s3", lambda: check_s3(report, args, root, base)),
                    ("breakpad-v1", lambda: check_breakpad_v1(report, args, root, base)),
                    ("breakpad-v2", lambda: check_breakpad_v2(report, args, root, base)),
                    ("tecken", lambda: check_tecken(report, args, root, base, batch)),
                    ("secrets", lambda: check_secrets(report, args, root, base)),
                    ("bad-stores", lambda: check_bad_stores(report, args, root, base))]
        wanted = set(args.sections.split(",")) if args.sections else None
        for name, section in sections:
            if wanted and name not in wanted:
                continue
            started = time.monotonic()
            failures = len(report.failures)
            try:
                section()
            except Exception as e:  # a server that would not start fails its section, not the rest
                report.fail(f"{name}: {type(e).__name__}: {e}")
            report.note(f"[{name}] {len(report.failures) - failures} failures, {time.monotonic() - started:.1f} s")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
