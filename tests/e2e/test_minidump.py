#!/usr/bin/env python3
"""symtool stackwalk on minidumps, against gdb: the crash programs of the
stack-walk test (a crash in a shared library through an inlined call and a
recursion, inside libc, in a qsort callback, under a SIGSEGV handler that
aborts; a second thread in pause(); gcc and clang-19, -O2, with and without
frame pointers). Each crash's gdb core is turned into the minidump a
Breakpad or Crashpad client would have sent (core_to_minidump.py: thread
list with stacks and names, module list with BpEL build-id records,
exception, system info, LinuxMaps, BreakpadInfo, MiscInfo), and lldb-19
writes its own minidump of the same crash. Every thread walked from the
store alone equals gdb's unwind of the crash (return addresses, functions
or aliases, files, lines, inlined calls; gdb's tail-call frames excepted).

The Breakpad forms: `--format breakpad` is what the minidump_stackwalk
drop-in prints, byte for byte; their frames are the walk's; -m lines match
the frames; the crash, system, thread numbering and module lines say what
the dump says. Without symbols the walk goes on by frame pointer and scan.
Damaged minidumps (truncated at every stream boundary, sizes and counts past
the file, overlapping and wrapping memory, contexts of wrong sizes, absurd
counts, random bytes) give one error line or a walk with warnings, never a
crash or a hang.

With --arch arm64 (or arm) the same crashes cross-built for arm64 (or
32-bit arm, Thumb code) under qemu-user (their cores made kernel-like as the
stack-walk test makes them) become minidumps with the arm64 (or arm)
context; for arm64 one more case sets pointer-authentication bits on every
return address the stack holds."""
import json
import os
import random
import re
import shutil
import struct
import subprocess
import tempfile

import core_synthesis
import core_to_minidump
import json_schema
import rust_minidump_expect as rust_rules
import test_stackwalk as walk
from common import Report, arguments

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def to_minidump(core_path, out_path, names=None, **options):
    with open(core_path, "rb") as fh:
        core = core_to_minidump.Core(fh.read())
    with open(out_path, "wb") as fh:
        fh.write(core_to_minidump.convert(core, names=names, **options))
    return core


def walk_json(args, stores, dump, check=True):
    p = sh(args.symtool, "stackwalk", *[a for s in stores for a in ("--store", s)], "--json", dump)
    if check and p.returncode != 0:
        raise SystemExit(f"symtool stackwalk {dump}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout) if p.returncode == 0 else None


def crashed_only(oracle, ours):
    """lldb's dump is of another run than gdb's: the crashed threads (first
    in both) compared, under lldb's thread id. (The second thread may not
    have reached pause() yet when the first crashes: its place is a race.)"""
    return [dict(oracle[0], tid=ours["threads"][0]["tid"])], dict(ours, threads=ours["threads"][:1])


RUST_SCHEMA = os.path.join(HERE, "..", "data", "rust_minidump.schema.json")
# rust-minidump looks a caller up this far before its return address.
CALL_BACK = {"amd64": 1, "x86": 1, "arm": 2, "arm64": 4, "mips": 8, "mips64": 8}


def check_rust_form(args, label, store, dump, ours, report):
    """--format rust-minidump: valid against the schema of its documented
    form, and field by field the walk our --json gives; code ids and the
    crash type by rust-minidump's rules (rust_minidump_expect.py); with no
    store (`store` None) no module's symbols are missing."""
    stores = ("--store", store) if store else ()
    p = sh(args.symtool, "stackwalk", "--format", "rust-minidump", *stores, dump)
    try:
        rust = json.loads(p.stdout)
    except ValueError:
        report.fail(f"{label}: --format rust-minidump is not JSON: {p.stderr.strip()}")
        return
    with open(RUST_SCHEMA) as fh:
        problems = json_schema.validate(rust, json.load(fh))
    if problems:
        report.fail(f"{label}: rust-minidump form against its schema: {problems[:5]}")
    arch = rust["system_info"]["cpu_arch"]
    digits = 8 if arch in ("x86", "arm", "mips") else 16
    pad = re.compile(f"^0x[0-9a-f]{{{digits}}}$")

    def hexes(value, path="$"):
        if isinstance(value, dict):
            for k, v in value.items():
                yield from hexes(v, f"{path}.{k}")
        elif isinstance(value, list):
            for i, v in enumerate(value):
                yield from hexes(v, f"{path}[{i}]")
        elif isinstance(value, str) and value.startswith("0x"):
            yield path, value
    unpadded = [(k, v) for k, v in hexes(rust) if not pad.match(v)]
    if unpadded:
        report.fail(f"{label}: hex strings not padded to {digits} digits: {unpadded[:3]}")
    back = CALL_BACK[arch]
    with open(dump, "rb") as fh:
        data = fh.read()
    counts = [(t["thread_id"], t.get("frame_count"), len(t["frames"])) for t in rust["threads"]]
    if any(count != n for _, count, n in counts):
        report.fail(f"{label}: frame_count is not the frames' number in every thread: {counts}")
    mine = {t["tid"]: t for t in ours["threads"]}
    if sorted(t["thread_id"] for t in rust["threads"]) != sorted(mine):
        report.fail(f"{label}: rust threads {[t['thread_id'] for t in rust['threads']]} != ours {list(mine)}")
        return
    for thread in rust["threads"]:
        frames = mine[thread["thread_id"]]["frames"]
        physical = [f for f in frames if not f["inlined"]]
        if thread.get("frame_count") != len(physical) or len(thread["frames"]) != len(physical):
            report.fail(f"{label}: thread {thread['thread_id']}: {len(thread['frames'])} frames, ours "
                        f"{len(physical)} physical")
            continue
        inlines, k = [], 0
        for f in frames:
            if f["inlined"]:
                inlines.append(f)
                continue
            r = thread["frames"][k]
            address = int(f["address"], 16)
            offset = int(r["offset"], 16)
            want_inlines = [{"function": i["function"], "file": i["file"], "line": i["line"]}
                            for i in inlines] or None
            trust = {"leaf": "context"}.get(f["trust"], f["trust"])
            bad = []
            if r["frame"] != k or r["function"] != f["function"] or r["file"] != f["file"] or \
                    r["line"] != f["line"] or r["trust"] != trust or r["inlines"] != want_inlines:
                bad.append("fields")
            if offset not in ((address,) if k == 0 else (address, address - back)):
                bad.append(f"offset {r['offset']} for address {f['address']}")
            if f["module"] and not any(u for u in [r.get("unloaded_modules")] if u):
                if r["module"] != f["module"] or int(r["module_offset"], 16) != int(f["offset"], 16) - (address - offset):
                    bad.append("module offset")
            if r["missing_symbols"] != (f["function"] is None):
                bad.append("missing_symbols")
            if bad:
                report.fail(f"{label}: thread {thread['thread_id']} frame {k}: {bad}: {r} vs {f}")
                break
            inlines, k = [], k + 1
    modules = {(int(m["base"], 16)): m for m in ours["modules"]}
    code_ids = rust_rules.code_ids(data)
    for m in rust["modules"]:
        o = modules.get(int(m["base_addr"], 16))
        if not o or int(m["end_addr"], 16) != int(o["end"], 16) or \
                m["code_id"] != code_ids.get(int(m["base_addr"], 16)) or \
                m["debug_id"] != (o["debug_id"] or "") or m["filename"] != o["name"] or \
                m["loaded_symbols"] != (o["symbols"] in ("loaded", "corrupt")) or \
                m["missing_symbols"] != (store is not None and o["symbols"] == "missing"):
            report.fail(f"{label}: module {m} vs ours {o}, code id {code_ids.get(int(m['base_addr'], 16))}")
            break
    if ours["crash"]:
        info = rust["crash_info"]
        want_type = rust_rules.crash_type(data)  # (Linux dumps; None for others)
        if int(info["address"], 16) != int(ours["crash"]["address"], 16) or \
                rust["threads"][info["crashing_thread"]]["thread_id"] != ours["crash"]["thread"] or \
                want_type is not None and info["type"] != want_type:
            report.fail(f"{label}: crash_info {info} vs ours {ours['crash']}")
        crashing = rust.get("crashing_thread") or {}
        registers = (crashing.get("frames") or [{}])[0].get("registers", {})
        pc = {"amd64": "rip", "x86": "eip"}.get(arch, "pc")
        if crashing.get("threads_index") != info["crashing_thread"] or \
                registers.get(pc) != crashing["frames"][0]["offset"]:
            report.fail(f"{label}: crashing_thread {crashing.get('threads_index')} registers {registers}")


def rsds(guid, name):
    return b"RSDS" + guid + struct.pack("<I", 1) + name.encode() + b"\0"


def check_rust_rules(args, label, store, gcore, dump, report):
    """Where rust-minidump's rules are not Breakpad's: the dump walked with no
    store (no module's symbols missing), and written again as a macOS dump
    (Mach-O modules: RSDS records holding their UUIDs; their code id is the
    UUID) and as a Windows one (PE modules with letters in TimeDateStamp:
    rust-minidump's code id in lower case, Breakpad's forms keep theirs)."""
    check_rust_form(args, f"{label} no store", None, dump, walk_json(args, [], dump), report)
    with open(dump, "rb") as fh:
        listed = rust_rules.modules(fh.read())
    # Each module's UUID: its build-id's first 16 bytes (any bytes would do).
    uuids = {base: (cv[4:20] + bytes(16))[:16] for base, _, _, _, cv in listed}
    for platform, name in ((rust_rules.MACOS, "macos"), (rust_rules.WINDOWS, "windows")):
        other = os.path.join(os.path.dirname(dump), f"{name}.dmp")
        given = [(base, size, path, rsds(uuids[base], os.path.basename(path) + ".pdb"))
                 for base, path, _, size, _ in listed]
        to_minidump(gcore, other, modules=given, platform=platform,
                    exception_code=0xc0000005 if platform == rust_rules.WINDOWS else None)
        with open(other, "rb") as fh:
            data = rust_rules.set_module_time_stamps(fh.read(), 0x45D35F6C)
        with open(other, "wb") as fh:
            fh.write(data)
        p = sh(args.symtool, "stackwalk", "--format", "rust-minidump", "--store", store, other)
        try:
            rust = json.loads(p.stdout)
        except ValueError:
            report.fail(f"{label} {name}: --format rust-minidump is not JSON: {p.stderr.strip()}")
            continue
        want = rust_rules.code_ids(data)
        got = {int(m["base_addr"], 16): m["code_id"] for m in rust["modules"]}
        if got != want or not want:
            report.fail(f"{label} {name}: rust-minidump code ids {got} != {want}")
        if platform == rust_rules.WINDOWS:
            ours = walk_json(args, [store], other)
            if not ours["modules"] or any(not m["code_id"].startswith("45D35F6C") for m in ours["modules"]):
                report.fail(f"{label} windows: our code ids are not Breakpad's: "
                            f"{[m['code_id'] for m in ours['modules']]}")


def check_breakpad_forms(args, label, store, dump, ours, report):
    """--format breakpad equals the drop-in; its frames are the walk's."""
    human = sh(args.symtool, "stackwalk", "--store", store, "--format", "breakpad", dump)
    dropin = sh(args.minidump_stackwalk, dump, store)
    if human.returncode != 0 or dropin.returncode != 0 or human.stdout != dropin.stdout:
        report.fail(f"{label}: --format breakpad and minidump_stackwalk differ "
                    f"(exit {human.returncode}/{dropin.returncode})")
        return
    machine = sh(args.minidump_stackwalk, "-m", dump, store)
    dropin_m = sh(args.symtool, "stackwalk", "--store", store, "--format", "breakpad-machine", dump)
    if machine.stdout != dropin_m.stdout:
        report.fail(f"{label}: -m and --format breakpad-machine differ")
    text = human.stdout
    if "Operating system: Linux" not in text or "Crash reason:  SIGSEGV /SEGV_MAPERR" not in text and \
            "Crash reason:  SIGABRT" not in text:
        report.fail(f"{label}: the Breakpad header does not say Linux and the signal: {text[:300]!r}")
    if not re.search(r"^Thread \d+ \(crashed\)$", text, re.M) or "\nLoaded modules:\n" not in text:
        report.fail(f"{label}: no crashed thread or no module list in the Breakpad form")
    # -s: each frame's stack, whose words include its caller's return
    # address, named by the function it returns into.
    contents = sh(args.minidump_stackwalk, "-s", dump, store).stdout
    callers = [f for f in ours["threads"][0]["frames"][1:] if not f["inlined"] and f["function"]]
    for caller in callers[:3]:
        want = f"= 0x{int(caller['address'], 16):016x} <{caller['function']}>"
        if "Stack contents:" not in contents or want not in contents:
            report.fail(f"{label}: -s does not show {want!r}")
            break
    # The crashed thread's frames, as -m lists them, against the JSON walk.
    crashed = ours["threads"][0]
    lines = [l.split("|") for l in machine.stdout.splitlines() if re.match(r"^\d+\|\d+\|", l)]
    index = next((int(l[0]) for l in lines), None)
    mine = [l for l in lines if int(l[0]) == index]
    want = [(f["function"] or "", f["line"] or 0) for f in crashed["frames"]]
    got = [(l[3], int(l[5]) if l[5] else 0) for l in mine]
    if got != want:
        report.fail(f"{label}: -m frames {got[:6]} != the walk's {want[:6]}")


def damaged(args, store, dump, tmp, report):
    data = open(dump, "rb").read()
    count, directory = struct.unpack_from("<II", data, 8)
    streams = [struct.unpack_from("<III", data, directory + 12 * i) for i in range(count)]
    cases = {"empty": b"", "signature-only": b"MDMP", "header-only": data[:32],
             "no-directory": data[:directory], "not-a-dump": b"hello\n" * 100}
    # Cut at every stream's start and end.
    for kind, size, rva in streams:
        cases[f"cut-at-{kind:x}-start"] = data[:rva]
        cases[f"cut-in-{kind:x}"] = data[:rva + size // 2]
    for i, (kind, size, rva) in enumerate(streams):
        entry = directory + 12 * i
        bigger = bytearray(data)
        struct.pack_into("<I", bigger, entry + 4, 0xfffffff0)
        cases[f"size-past-file-{kind:x}"] = bytes(bigger)
        moved = bytearray(data)
        struct.pack_into("<I", moved, entry + 8, 0xfffffff0)
        cases[f"rva-past-file-{kind:x}"] = bytes(moved)
        if kind in (3, 4, 5, 24):  # list streams: their count
            counted = bytearray(data)
            struct.pack_into("<I", counted, rva, 0xffffffff)
            cases[f"count-2^32-{kind:x}"] = bytes(counted)
    huge = bytearray(data)
    struct.pack_into("<I", huge, 8, 0xffffffff)
    cases["stream-count-2^32"] = bytes(huge)
    # Memory ranges that overlap or wrap, contexts of every wrong size.
    memory = next(((size, rva) for kind, size, rva in streams if kind == 5), None)
    if memory:
        size, rva = memory
        n, = struct.unpack_from("<I", data, rva)
        overlap = bytearray(data)
        for i in range(n):
            struct.pack_into("<Q", overlap, rva + 4 + 16 * i, 0x7ffd00000000)
        cases["memory-overlaps"] = bytes(overlap)
        wrap = bytearray(data)
        struct.pack_into("<Q", wrap, rva + 4, 0xffffffffffffff00)
        cases["memory-wraps"] = bytes(wrap)
    threads = next(((size, rva) for kind, size, rva in streams if kind == 3), None)
    if threads:
        size, rva = threads
        for wrong in (0, 3, 4, 100, 716, 720, 1231, 1233, 5000, 0xffffffff):
            c = bytearray(data)
            struct.pack_into("<I", c, rva + 4 + 40, wrong)
            cases[f"context-size-{wrong}"] = bytes(c)
    rng = random.Random(23)
    for i in range(60):
        flipped = bytearray(data)
        for _ in range(rng.randrange(1, 24)):
            at = rng.choice([rng.randrange(0, 32), rng.randrange(directory, directory + 12 * count),
                             rng.randrange(len(data))])
            flipped[at] = rng.randrange(256)
        cases[f"random-{i}"] = bytes(flipped)
    refused = set()
    for name, content in cases.items():
        path = os.path.join(tmp, "damaged-" + name)
        with open(path, "wb") as fh:
            fh.write(content)
        for argv in ([args.symtool, "stackwalk", "--store", store, "--json", path],
                     [args.symtool, "stackwalk", "--store", store, "--format", "breakpad", path],
                     [args.minidump_stackwalk, path, store]):
            try:
                p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                report.fail(f"damaged minidump {name}: hangs ({os.path.basename(argv[0])})")
                continue
            if p.returncode == 1:
                refused.add(name)
                lines = [l for l in p.stderr.strip().splitlines() if "could not be read" not in l]
                if len(lines) != 1 or "damaged-" + name not in lines[0]:
                    report.fail(f"damaged minidump {name}: the error is not one line naming the file: "
                                f"{p.stderr[:300]!r}")
            elif p.returncode != 0:
                report.fail(f"damaged minidump {name}: exit {p.returncode}: {p.stderr[-300:]}")
            elif "--json" in argv:
                json.loads(p.stdout)
        os.unlink(path)
    for name in ("empty", "signature-only", "header-only", "no-directory", "not-a-dump", "stream-count-2^32"):
        if name not in refused:
            report.fail(f"damaged minidump {name}: not refused")
    return len(cases), len(refused)


def lldb_minidump(directory, mode, out):
    """lldb-19's own minidump of the crash, written where it stops."""
    # With a handler, the dump is taken where the handler aborts, as gdb's core.
    handle = ["-o", "process launch --stop-at-entry -- handler", "-o", "process handle SIGSEGV -s false -n false -p true",
              "-o", "continue"] if mode == "handler" else ["-o", f"process launch -- {mode}"]
    p = sh("lldb-19", "-b", "-o", "settings set target.disable-aslr true", *handle,
           "-k", f"process save-core --plugin-name=minidump {out}", "-k", "kill",
           os.path.join(directory, "walker"), cwd=directory)
    return out if os.path.exists(out) else None


def x86_64(args, report, tmp):
    aliases = walk.Aliases()
    for lib in walk.SYSTEM_LIBS:
        aliases.load(lib)
    frames = dumps = lldb_dumps = 0
    sample = None
    for cc in ("gcc", "clang-19"):
        for frame_pointer in ("-fno-omit-frame-pointer", "-fomit-frame-pointer"):
            directory = walk.build(tmp, cc, frame_pointer)
            store = os.path.join(directory, "store")
            p = sh(args.symstore, "add", store, directory, "-d", "-q")
            if p.returncode != 0:
                report.fail(f"{cc}: symstore add: {p.stderr.strip()}")
                continue
            for mode in walk.MODES:
                label = f"{cc} {frame_pointer} {mode}"
                gcore = os.path.join(directory, f"gcore.{mode}")
                oracle = walk.gdb_oracle(directory, gcore, os.path.join(directory, f"gdb.{mode}.json"), mode)
                dump = os.path.join(directory, f"{mode}.dmp")
                names = {t["tid"]: f"walk-{i}" for i, t in enumerate(oracle)}
                to_minidump(gcore, dump, names=names)
                ours = walk_json(args, [store], dump)
                n, _ = walk.compare(f"{label} minidump", ours, oracle, aliases, report)
                frames += n
                dumps += 1
                got_names = {t["tid"]: t["name"] for t in ours["threads"]}
                if got_names != names:
                    report.fail(f"{label}: thread names {got_names} != {names}")
                if ours["format"] != "minidump" or not ours["crash"] or \
                        ours["crash"]["thread"] != oracle[0]["tid"]:
                    report.fail(f"{label}: the crash is not the faulting thread's: {ours['crash']}")
                if mode != "handler":
                    check_breakpad_forms(args, label, store, dump, ours, report)
                check_rust_form(args, label, store, dump, ours, report)
                if frame_pointer == "-fomit-frame-pointer" and cc == "gcc":
                    lldb_dump = lldb_minidump(directory, mode, os.path.join(directory, f"lldb.{mode}.dmp"))
                    if not lldb_dump:
                        report.fail(f"{label}: lldb-19 wrote no minidump")
                    else:
                        theirs = walk_json(args, [store], lldb_dump)
                        want, crashed = crashed_only(oracle, theirs)
                        n, _ = walk.compare(f"{label} lldb minidump", crashed, want, aliases, report)
                        frames += n
                        lldb_dumps += 1
                        if not any("720-byte amd64 context" in w for w in theirs["warnings"]):
                            report.fail(f"{label}: lldb's short contexts are not said: {theirs['warnings']}")
                if mode == "lib":
                    check_rust_rules(args, label, store, gcore, dump, report)
                    # Without symbols: frame pointers and scanning, said so.
                    empty = os.path.join(directory, "empty-store")
                    os.makedirs(empty, exist_ok=True)
                    bare = walk_json(args, [empty], dump)
                    trusts = {f["trust"] for t in bare["threads"] for f in t["frames"]}
                    if "cfi" in trusts or len(bare["threads"][0]["frames"]) < 2:
                        report.fail(f"{label}: without symbols: {trusts}, "
                                    f"{len(bare['threads'][0]['frames'])} frames")
                    # Several stores, searched in order: the empty one first.
                    both = walk_json(args, [empty, store], dump)
                    if [f["function"] for f in both["threads"][0]["frames"]] != \
                            [f["function"] for f in ours["threads"][0]["frames"]]:
                        report.fail(f"{label}: a second store is not searched")
                    # The memory in a Memory64List (full-memory dumps; Breakpad reads none).
                    full = os.path.join(directory, "memory64.dmp")
                    to_minidump(gcore, full, memory64=True)
                    n, _ = walk.compare(f"{label} Memory64List", walk_json(args, [store], full), oracle,
                                        aliases, report)
                    frames += n
                    # A module listed as unloaded still names its frames (no symbols).
                    library = os.path.join(directory, "libwalk.so")
                    gone = os.path.join(directory, "unloaded.dmp")
                    to_minidump(gcore, gone, unloaded=[os.path.realpath(library), library])
                    top = walk_json(args, [store], gone)["threads"][0]["frames"][0]
                    if top["module"] != "libwalk.so" or top["function"] or \
                            "libwalk.so + 0x" not in sh(args.minidump_stackwalk, gone, store).stdout:
                        report.fail(f"{label}: a frame in an unloaded module: {top}")
                    # The thread that wrote the dump is not walked, nor numbered.
                    writer = os.path.join(directory, "dump-thread.dmp")
                    to_minidump(gcore, writer, dump_thread=oracle[1]["tid"])
                    mine = walk_json(args, [store], writer)
                    if [t["tid"] for t in mine["threads"]] != [oracle[0]["tid"]] or \
                            "\nThread 1\n" in sh(args.minidump_stackwalk, writer, store).stdout:
                        report.fail(f"{label}: the dump thread is walked: {[t['tid'] for t in mine['threads']]}")
                    # rust-minidump lists it, in the file's order, without frames, and counts it.
                    p = sh(args.symtool, "stackwalk", "--format", "rust-minidump", "--store", store, writer)
                    rust = json.loads(p.stdout) if p.returncode == 0 else {}
                    listed = [(t["thread_id"], t["frame_count"], len(t["frames"])) for t in rust.get("threads", [])]
                    crashed_at = next((i for i, t in enumerate(listed) if t[0] == oracle[0]["tid"]), None)
                    if len(listed) != 2 or rust.get("thread_count") != 2 or (oracle[1]["tid"], 0, 0) not in listed \
                            or crashed_at is None or listed[crashed_at][1] == 0 or \
                            rust["crash_info"]["crashing_thread"] != crashed_at or \
                            rust["crashing_thread"]["threads_index"] != crashed_at:
                        report.fail(f"{label}: --format rust-minidump: the dump thread is not listed "
                                    f"without frames: {listed}, thread_count {rust.get('thread_count')}")
                    # Corrupt symbols: used, and said.
                    corrupt = os.path.join(directory, "corrupt-store")
                    shutil.copytree(store, corrupt, symlinks=True)
                    sym = next(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(corrupt, "libwalk.so"))
                               for f in fs if f.endswith(".sym"))
                    with open(sym, "a") as fh:
                        fh.write("FUNC this is not a record\n")
                    bad = walk_json(args, [corrupt], dump)
                    status = {m["name"]: m["symbols"] for m in bad["modules"]}
                    human = sh(args.minidump_stackwalk, dump, corrupt).stdout
                    if status.get("libwalk.so") != "corrupt" or bad["threads"][0]["frames"][0]["function"] != \
                            ours["threads"][0]["frames"][0]["function"] or "(WARNING: Corrupt symbols, libwalk.so" \
                            not in human:
                        report.fail(f"{label}: corrupt symbols not used and said: {status}")
                    # Crashpad's annotations, the Linux streams: in text and --json.
                    annotated = os.path.join(directory, "crashpad.dmp")
                    to_minidump(gcore, annotated, crashpad={
                        "simple": {"prod": "Walker", "ver": "1.2.3"},
                        "modules": {0: {"list": ["started the walk"], "simple": {"channel": "beta"},
                                        "objects": {"phase": "descending"}}}},
                        linux_text={"LinuxLsbRelease": "DISTRIB_ID=Debian\nDISTRIB_RELEASE=12\n",
                                    "LinuxCmdLine": "./walker\0lib\0"})
                    mine = walk_json(args, [store], annotated)
                    got = {a["name"]: a["value"] for a in mine["annotations"]}
                    first = mine["modules"][0]["name"]
                    want = {"prod": "Walker", "ver": "1.2.3", f"{first}: [0]": "started the walk",
                            f"{first}: channel": "beta", f"{first}: phase": "descending",
                            "crashpad.report_id": "03020100-0504-0706-0809-0a0b0c0d0e0f"}
                    text = sh(args.symtool, "stackwalk", "--store", store, annotated).stdout
                    if any(got.get(k) != v for k, v in want.items()) or "prod: Walker" not in text or \
                            mine.get("linux", {}).get("lsb_release", {}).get("DISTRIB_ID") != "Debian" or \
                            mine.get("linux", {}).get("cmdline") != ["./walker", "lib"]:
                        report.fail(f"{label}: Crashpad annotations / Linux streams: {got} "
                                    f"{mine.get('linux')}")
                    # No exception stream: the requesting thread from BreakpadInfo.
                    quiet = os.path.join(directory, "no-exception.dmp")
                    to_minidump(gcore, quiet, drop=["Exception"])
                    text = sh(args.minidump_stackwalk, quiet, store).stdout
                    if "No crash" not in text or "(requested dump, did not crash)" not in text:
                        report.fail(f"{label}: without an Exception stream: {text[:400]!r}")
                    sample = sample or (store, dump)
    report.note(f"{dumps} minidumps from gdb cores and {lldb_dumps} from lldb-19: {frames} frames "
                f"equal gdb's")
    if sample:
        cases, refused = damaged(args, sample[0], sample[1], tmp, report)
        report.note(f"{cases} damaged minidumps: {refused} refused with one error line, the rest walked; "
                    f"no crash or hang")


def pointer_auth(dump, out, return_addresses):
    """The same minidump with pointer-authentication bits set on every
    stack word that is one of the return addresses."""
    data = bytearray(open(dump, "rb").read())
    count, directory = struct.unpack_from("<II", data, 8)
    changed = 0
    for i in range(count):
        kind, size, rva = struct.unpack_from("<III", data, directory + 12 * i)
        if kind != 3:
            continue
        n, = struct.unpack_from("<I", data, rva)
        for t in range(n):
            _, _, _, _, _, start, stack_size, stack_rva, _, _ = struct.unpack_from("<IIIIQQIIII", data,
                                                                                 rva + 4 + 48 * t)
            for at in range(stack_rva, stack_rva + stack_size - 7, 8):
                word, = struct.unpack_from("<Q", data, at)
                if word in return_addresses:
                    struct.pack_into("<Q", data, at, word | (0x2b << 48))
                    changed += 1
    with open(out, "wb") as fh:
        fh.write(data)
    return changed


def lost_oracle(oracle, ours, mapped):
    """Where gdb's unwind of a thread reaches a pc no file is mapped at (it
    lost its way), gdb's frames up to there and as many of ours; None when
    gdb's unwind is whole."""
    def inside(pc):
        return any(start <= pc < end for start, end, _, _ in mapped)
    cut_oracle, cut_ours, lost = [], dict(ours, threads=[]), False
    for thread in oracle:
        frames = thread["frames"]
        bad = next((i for i, f in enumerate(frames) if not inside(f["pc"])), None)
        if bad is not None:
            lost = True
            frames = frames[:bad]
        cut_oracle.append(dict(thread, frames=frames))
    for thread in ours["threads"]:
        theirs = next((t for t in cut_oracle if t["tid"] == thread["tid"]), None)
        keep = len([f for f in theirs["frames"] if f["kind"] != "tailcall"]) if theirs else None
        cut_ours["threads"].append(dict(thread, frames=thread["frames"][:keep]))
    return (cut_oracle, cut_ours) if lost else None


def cross_arch(args, report, tmp, arch):
    cross = walk.CROSS[arch]
    aliases = walk.Aliases()
    for lib in cross["libs"]:
        aliases.load(lib)
    frames = dumps = lost_frames = 0
    for cc, compiler in cross["compilers"]:
        for frame_pointer in ("-fno-omit-frame-pointer", "-fomit-frame-pointer"):
            directory = os.path.join(tmp, f"{arch}-{cc}{frame_pointer}")
            root = walk.build_cross(directory, compiler, frame_pointer, cross)
            store = os.path.join(directory, "store")
            p = sh(args.symstore, "add", store, directory, "-d", "-q")
            if p.returncode != 0:
                report.fail(f"{arch} {cc}: symstore add: {p.stderr.strip()}")
                continue
            for mode in walk.MODES[:3]:
                label = f"{arch} {cc} {frame_pointer} {mode}"
                _, maps, core, oracle = walk.cross_core(directory, mode, cross, root)
                if oracle is None:
                    report.fail(f"{label}: gdb-multiarch wrote no frames")
                    continue
                dump = os.path.join(directory, f"{mode}.dmp")
                to_minidump(core, dump)
                ours = walk_json(args, [store], dump)
                check_rust_form(args, label, store, dump, ours, report)
                with open(maps) as fh:
                    mapped = core_synthesis.parse_maps(fh.read())
                lost = lost_oracle(oracle, ours, mapped)
                if lost:
                    # gdb lost its way in code without unwind tables (the
                    # stripped 32-bit libc's assembly): its frames up to
                    # there are compared, ours may go on.
                    oracle, ours = lost
                    lost_frames += 1
                n, _ = walk.compare(label, ours, oracle, aliases, report)
                frames += n
                dumps += 1
                if mode == "lib" and arch == "arm64":
                    signed = os.path.join(directory, f"{mode}.pac.dmp")
                    returns = {f["pc"] for t in oracle for f in t["frames"][1:]}
                    if pointer_auth(dump, signed, returns) == 0:
                        report.fail(f"{label}: no return address found on the stack to sign")
                    n, _ = walk.compare(label + " pointer-auth", walk_json(args, [store], signed), oracle,
                                        aliases, report)
                    frames += n
                    dumps += 1
    report.note(f"{arch}: {dumps} minidumps, {frames} frames equal gdb-multiarch's ({lost_frames} where gdb "
                f"lost its way, compared up to there)")


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--symstore", required=True),
                                p.add_argument("--minidump-stackwalk", required=True),
                                p.add_argument("--arch", default="x86_64", choices=("x86_64", "arm64", "arm"))))
    report = Report(f"symtool stackwalk minidumps {args.arch}")
    tmp = tempfile.mkdtemp()
    try:
        if args.arch == "x86_64":
            x86_64(args, report, tmp)
        else:
            cross_arch(args, report, tmp, args.arch)
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
