#!/usr/bin/env python3
"""symstore add over a release tree the test builds: corpus binaries, a
stripped copy with a build-id debug tree, a debuglink pair, split DWARF
with its .dwo, a dwz file, one library as a copy, a hard link and a
symlink, a text file, a truncated ELF, an unreadable file, and Debian's
python3.11 and libc with /usr/lib/debug. The store must hold exactly what
dump_syms --store writes for each module; the manifest must say what
became of every file; a second run writes nothing; sentry-cli accepts every
file; a run killed with SIGKILL and started again gives the same store;
shards together give the one-machine store."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time

from common import Report, arguments, require_shared

SYSTEM_BINARIES = ["/usr/bin/python3.11", "/lib/x86_64-linux-gnu/libc.so.6"]


def sh(*argv, **kw):
    return subprocess.run(list(argv), check=True, capture_output=True, text=True, **kw)


def build_release(args, root):
    """Lays out the release; returns {key: expected status}."""
    corpus = os.path.join(args.shared, "corpus", "bin")
    rel = os.path.join(root, "release")
    os.makedirs(os.path.join(rel, "bin"))
    os.makedirs(os.path.join(rel, "lib", "plugins"))
    expect = {}

    def put(name, key, status):
        shutil.copy(os.path.join(corpus, name), os.path.join(rel, key))
        expect[key] = status

    put("cprog.gcc12.g-O2", "bin/cprog", "written")
    put("cxxprog.clang19.g-O2", "bin/cxxprog", "written")
    put("crashchain.gcc12.gdwarf4-O2", "lib/plugins/crashchain", "written")
    # One module reached four ways: the file, a copy, a hard link, a
    # symlink (a library has one name, its DT_SONAME, however it is reached).
    source = os.path.join(root, "shared.c")
    with open(source, "w") as fh:
        fh.write("int shared_twice(int x) { return x * 2 + 1; }\n"
                 "int shared_thrice(int x) { return shared_twice(x) + x; }\n")
    sh("gcc", "-shared", "-fPIC", "-g", "-O2", "-Wl,-soname,libshared.so.1", "-o",
       os.path.join(rel, "lib/libshared.so"), source)
    expect["lib/libshared.so"] = "one-of-libshared"
    shutil.copy(os.path.join(rel, "lib/libshared.so"), os.path.join(rel, "lib/plugins/libshared-copy.so"))
    expect["lib/plugins/libshared-copy.so"] = "one-of-libshared"
    os.link(os.path.join(rel, "lib/libshared.so"), os.path.join(rel, "lib/libshared-hard.so"))
    expect["lib/libshared-hard.so"] = "one-of-libshared"
    os.symlink("libshared.so", os.path.join(rel, "lib/libshared-link.so"))
    expect["lib/libshared-link.so"] = "duplicate"  # a symlink is never the one dumped
    # A symlink loop: followed once, never forever.
    os.symlink("..", os.path.join(rel, "lib/plugins/up"))

    # Stripped, its debug file in a build-id tree inside the release.
    put("crashchain.gcc12.g-O2", "bin/crashchain-stripped", "written")
    full = os.path.join(rel, "bin/crashchain-stripped")
    build_id = [l.split()[-1] for l in sh("readelf", "-n", full).stdout.splitlines() if "Build ID" in l][0]
    debug = os.path.join(rel, "debug", ".build-id", build_id[:2], build_id[2:] + ".debug")
    os.makedirs(os.path.dirname(debug))
    sh("objcopy", "--only-keep-debug", full, debug)
    sh("strip", "--strip-debug", "--strip-unneeded", full)

    # A debuglink pair beside each other.
    put("cprog.clang19.g-O2", "bin/linked", "written")
    linked = os.path.join(rel, "bin/linked")
    sh("objcopy", "--only-keep-debug", linked, linked + ".debug")
    sh("strip", "--strip-debug", linked)
    sh("objcopy", "--add-gnu-debuglink=" + linked + ".debug", linked, cwd=os.path.dirname(linked))

    # Split DWARF with its .dwo beside it, and a dwz-compressed file.
    put("cprog.gcc12.split-O2", "bin/cprog.gcc12.split-O2", "written")
    shutil.copy(os.path.join(corpus, "cprog.gcc12.split-O2-cprog.dwo"), os.path.join(rel, "bin"))
    put("cxxprog.gcc12.dwz", "bin/cxxprog-dwz", "written")
    # A dwz -m pair: both binaries read the common file beside them.
    put("cxxprog.gcc12.dwz-multi-a", "bin/cxxprog.gcc12.dwz-multi-a", "written")
    put("cxxprog.gcc12.dwz-multi-b", "bin/cxxprog.gcc12.dwz-multi-b", "written")
    shutil.copy(os.path.join(corpus, "dwz-common.debug"), os.path.join(rel, "bin"))

    # No debug info at all: PUBLIC and STACK CFI only.
    put("cprog.gcc12.nodebug-O2", "bin/nodebug", "no-debug-info")

    # Not ELF, truncated ELF, unreadable, dangling.
    with open(os.path.join(rel, "README.txt"), "w") as fh:
        fh.write("release notes\n")
    with open(os.path.join(corpus, "cprog.gcc12.g-O0"), "rb") as fh:
        data = fh.read()
    with open(os.path.join(rel, "bin/truncated"), "wb") as fh:
        fh.write(data[:len(data) // 3])
    expect["bin/truncated"] = "failed"
    unreadable = os.path.join(rel, "bin/unreadable")
    shutil.copy(os.path.join(corpus, "cprog.gcc12.g-O0"), unreadable)
    os.chmod(unreadable, 0)
    expect["bin/unreadable"] = "failed"  # when not run as root (see main)
    os.symlink("no-such-file", os.path.join(rel, "bin/dangling"))
    expect["bin/dangling"] = "failed"

    # Debian's own binaries, their debug files in /usr/lib/debug.
    for path in SYSTEM_BINARIES:
        os.symlink(path, os.path.join(rel, "lib", os.path.basename(path)))
        expect["lib/" + os.path.basename(path)] = "written"
    return rel, expect


def symstore(args, *argv, timeout=600):
    return subprocess.run([args.symstore, *argv], capture_output=True, text=True, timeout=timeout)


def snapshot(store):
    """{relative path: bytes} of every file in a store."""
    out = {}
    for directory, _, names in os.walk(store):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as fh:
                out[os.path.relpath(path, store)] = fh.read()
    return out


def main():
    args = arguments(lambda p: (p.add_argument("--symstore", required=True),
                                p.add_argument("--sentry-cli", required=True)))
    require_shared(args)
    report = Report("symstore add")
    root = tempfile.mkdtemp()
    os.chmod(root, 0o755)
    try:
        rel, expect = build_release(args, root)
        as_root = os.geteuid() == 0
        if as_root:
            # root reads a mode-000 file: it is an ordinary module then.
            expect["bin/unreadable"] = "written"
        store = os.path.join(root, "store")
        manifest_path = os.path.join(root, "manifest.json")
        flags = ["-d"]
        p = symstore(args, "add", store, rel, "--manifest", manifest_path, "-j", "2", *flags)
        if p.returncode != 1:
            report.fail(f"first run: exit {p.returncode} (want 1: some files failed): {p.stderr.strip()}")
        manifest = json.load(open(manifest_path))
        entries = {e["key"]: e for e in manifest["entries"]}

        # The manifest: every candidate, the right status.
        shared = [k for k, s in expect.items() if s == "one-of-libshared"] + ["lib/libshared-link.so"]
        dumped = [k for k in shared if entries.get(k, {}).get("status") == "written"]
        if len(dumped) != 1:
            report.fail(f"libshared.so.1: written as {dumped}, want exactly one of {shared}")
        else:
            for key in shared:
                if key != dumped[0]:
                    expect[key] = "duplicate"
                    if entries.get(key, {}).get("duplicate_of") != entries[dumped[0]]["path"]:
                        report.fail(f"{key}: not a duplicate of {dumped[0]}")
            expect[dumped[0]] = "written"
        for key, status in expect.items():
            got = entries.get(key)
            if got is None:
                report.fail(f"manifest: no entry for {key}")
            elif got["status"] != status:
                report.fail(f"manifest: {key} is {got['status']}, want {status} ({got.get('error', '')})")
        for key in entries:
            if key not in expect:
                report.fail(f"manifest: unexpected entry {key} ({entries[key]['status']})")
        for key, entry in entries.items():
            if entry["status"] == "failed" and (not entry.get("error") or entry["error"] not in p.stderr):
                report.fail(f"{key}: failed without its error on stderr")
        totals = manifest["totals"]
        if totals["skipped_non_elf"] != 1:
            report.fail(f"non-ELF files skipped: {totals['skipped_non_elf']}, want 1 (README.txt)")
        # .debug of the build-id tree, the debuglink .debug, the .dwo, the dwz common file
        if totals["debug_files"] != 4:
            report.fail(f"debug files: {totals['debug_files']}, want 4")
        for key in ("bin/cxxprog.gcc12.dwz-multi-a", "bin/cxxprog.gcc12.dwz-multi-b"):
            if any("dwz" in w or "supplementary" in w for w in entries.get(key, {}).get("warnings", [])):
                report.fail(f"{key}: the dwz common file was not read: {entries[key]['warnings']}")
        if entries.get("bin/crashchain-stripped", {}).get("debug_info", {}).get("from") != "debug-file":
            report.fail("the stripped binary did not read its debug file from the release's build-id tree")
        report.note(f"manifest: {len(entries)} entries, totals {totals}")

        # The store equals dump_syms --store per module, byte for byte.
        written = [e for e in entries.values() if e["status"] in ("written", "no-debug-info")]
        debug_dirs = [os.path.join(rel, "debug")]
        for entry in written:
            reference = os.path.join(root, "reference")
            shutil.rmtree(reference, ignore_errors=True)
            ref = subprocess.run([args.dump_syms, *flags, "--store", reference, "-q", entry["path"], *debug_dirs],
                                 capture_output=True, text=True)
            if ref.returncode != 0:
                report.fail(f"dump_syms {entry['path']}: {ref.stderr.strip()}")
                continue
            ours = open(os.path.join(store, entry["sym"]), "rb").read()
            theirs = open(os.path.join(reference, entry["sym"]), "rb").read()
            if ours != theirs:
                report.fail(f"{entry['key']}: store file differs from dump_syms --store")
        symfiles = [os.path.join(store, e["sym"]) for e in written]
        if len(set(snapshot(store))) != len(written):
            report.fail(f"store holds {len(snapshot(store))} files, {len(written)} written")
        report.note(f"{len(written)} store files equal dump_syms --store output")

        # sentry-cli accepts every file.
        for path in symfiles:
            check = subprocess.run([args.sentry_cli, "debug-files", "check", path],
                                   capture_output=True, text=True)
            if check.returncode != 0 or "Usable: yes" not in check.stdout:
                report.fail(f"sentry-cli rejects {path}: {check.stdout[-300:]} {check.stderr[-300:]}")

        # A second run writes nothing.
        before = {k: os.stat(os.path.join(store, k)).st_mtime_ns for k in snapshot(store)}
        p2 = symstore(args, "add", store, rel, "--manifest", manifest_path, *flags)
        again = json.load(open(manifest_path))
        statuses = {e["status"] for e in again["entries"]}
        if again["totals"]["written"] or again["totals"]["no-debug-info"] or not statuses <= {"exists", "duplicate", "failed"}:
            report.fail(f"second run wrote files: {again['totals']}")
        after = {k: os.stat(os.path.join(store, k)).st_mtime_ns for k in snapshot(store)}
        if before != after:
            report.fail("second run touched the store")
        if p2.returncode != 1:
            report.fail(f"second run: exit {p2.returncode}, want 1 (the failed files fail again)")

        # Killed mid-way with SIGKILL, then run again: the same store, no temporaries.
        killed = os.path.join(root, "killed")
        proc = subprocess.Popen([args.symstore, "add", killed, rel, "-j", "2", *flags],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None:
            if os.path.isdir(killed) and any(n.endswith(".sym") for _, _, ns in os.walk(killed) for n in ns):
                break
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        partial = len(snapshot(killed)) if os.path.isdir(killed) else 0
        symstore(args, "add", killed, rel, "-j", "2", *flags)
        if snapshot(killed) != snapshot(store):
            report.fail("a killed run, started again, does not give the uninterrupted run's store")
        report.note(f"killed run: {partial} files (temporaries included) before SIGKILL; completed equal")

        # Shards: three machines' stores together are the one-machine store,
        # and their manifests' entries together are its entries.
        merged = {}
        shard_entries = []
        for k in range(3):
            shard_store = os.path.join(root, f"shard{k}")
            shard_manifest = os.path.join(root, f"shard{k}.json")
            symstore(args, "add", shard_store, rel, "--shard", f"{k}/3", "--manifest", shard_manifest, *flags)
            for name, data in snapshot(shard_store).items():
                if name in merged and merged[name] != data:
                    report.fail(f"shards disagree on {name}")
                merged[name] = data
            shard_entries += json.load(open(shard_manifest))["entries"]
        if merged != snapshot(store):
            report.fail(f"3 shard stores merged ({len(merged)} files) differ from the one-machine store")
        key_status = lambda es: sorted((e["key"], e["status"]) for e in es)
        if key_status(shard_entries) != key_status(manifest["entries"]):
            report.fail("shard manifests together differ from the one-machine manifest")

        # An unreadable file, for a user who cannot read it (root can).
        if as_root and shutil.which("setpriv"):
            jail = os.path.join(root, "jail")
            os.makedirs(os.path.join(jail, "rel"))
            os.chmod(jail, 0o777)
            shutil.copy(os.path.join(rel, "bin/cprog"), os.path.join(jail, "rel/readable"))
            shutil.copy(os.path.join(rel, "bin/cprog"), os.path.join(jail, "rel/unreadable"))
            os.chmod(os.path.join(jail, "rel/unreadable"), 0)
            for path in (os.path.join(jail, "rel"), os.path.join(jail, "rel/readable")):
                os.chmod(path, 0o755)
            nobody = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
                                     args.symstore, "add", os.path.join(jail, "store"), os.path.join(jail, "rel"),
                                     "--manifest", os.path.join(jail, "m.json")],
                                    capture_output=True, text=True)
            if nobody.returncode == 1 and os.path.exists(os.path.join(jail, "m.json")):
                got = {e["key"]: e for e in json.load(open(os.path.join(jail, "m.json")))["entries"]}
                if got.get("unreadable", {}).get("status") != "failed" or \
                        "Permission denied" not in got["unreadable"].get("error", "") or \
                        got.get("readable", {}).get("status") != "written":
                    report.fail(f"unreadable file as an unprivileged user: {got}")
            else:
                report.fail(f"unprivileged run: exit {nobody.returncode}: {nobody.stderr.strip()}")

        # --check-cfi, --force, --map-prefix, as dump_syms takes them.
        small = os.path.join(root, "small")
        os.makedirs(small)
        shutil.copy(os.path.join(args.shared, "corpus", "bin", "cprog.gcc12.g-O2"), os.path.join(small, "unwinds"))
        sh("objcopy", "--remove-section=.eh_frame", "--remove-section=.eh_frame_hdr",
           "--remove-section=.debug_frame", os.path.join(small, "unwinds"), os.path.join(small, "no-cfi"))
        small_store = os.path.join(root, "small-store")
        small_manifest = os.path.join(root, "small.json")
        p = symstore(args, "add", small_store, small, "--check-cfi", "--manifest", small_manifest)
        got = {e["key"]: e for e in json.load(open(small_manifest))["entries"]}
        if p.returncode != 1 or got["no-cfi"]["status"] != "failed" or "STACK CFI" not in got["no-cfi"]["error"] \
                or got["unwinds"]["status"] != "written":
            report.fail(f"--check-cfi: exit {p.returncode}, {got}")
        sym_path = os.path.join(small_store, got["unwinds"]["sym"])
        source_dir = [l.split(" ", 2)[2] for l in open(sym_path).read().splitlines() if l.startswith("FILE ")][0]
        source_dir = os.path.dirname(source_dir)
        before_ns = os.stat(sym_path).st_mtime_ns
        p = symstore(args, "add", small_store, os.path.join(small, "unwinds"), "--force", "--map-prefix",
                     f"{source_dir}=/src", "--manifest", small_manifest)
        forced = json.load(open(small_manifest))["entries"]
        if p.returncode != 0 or forced[0]["status"] != "written" or os.stat(sym_path).st_mtime_ns == before_ns:
            report.fail(f"--force did not write the module again: {forced}")
        mapped = subprocess.run([args.dump_syms, os.path.join(small, "unwinds"), "--map-prefix", f"{source_dir}=/src"],
                                capture_output=True, text=True).stdout
        if open(sym_path).read() != mapped or "FILE 0 /src/" not in mapped:
            report.fail("--map-prefix: the store file differs from dump_syms --map-prefix")

        # --index: each symbol file's lookup index beside it, which
        # listings and uploads pass over.
        indexed_store = os.path.join(root, "indexed-store")
        p = symstore(args, "add", indexed_store, os.path.join(small, "unwinds"), "--index", "-q")
        indexed = [os.path.join(d, n) for d, _, names in os.walk(indexed_store) for n in names]
        syms = [f for f in indexed if f.endswith(".sym")]
        if p.returncode != 0 or sorted(indexed) != sorted(syms + [f + ".idx" for f in syms]) or \
                any(open(f + ".idx", "rb").read(8) != b"BPSYMIDX" for f in syms):
            report.fail(f"--index: exit {p.returncode}, store holds {indexed}")
        p = symstore(args, "upload", indexed_store, "--to", "http://127.0.0.1:9/store", "--dry-run")
        if p.returncode != 0 or ".idx" in p.stdout or len(p.stdout.strip().splitlines()) != len(syms):
            report.fail(f"upload --dry-run of an indexed store: exit {p.returncode}, {p.stdout!r}")

        # Usage errors exit 2.
        for bad in (["add", store], ["add", store, rel, "--shard", "3/3"], ["add", store, rel, "--names", "gnu"],
                    ["add", store, rel, "--map-prefix", "nothing"], ["frobnicate"]):
            if symstore(args, *bad).returncode != 2:
                report.fail(f"symstore {' '.join(bad[:1] + bad[2:])}: not a usage error")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
