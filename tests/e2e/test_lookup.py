#!/usr/bin/env python3
"""symtool lookup against llvm-symbolizer-19 --inlining on the binary: at
line-record starts, inside inlined ranges and at function middles, the
frames (innermost first: function, file, line) symtool reads from the
symbol store equal the oracle's; where only a PUBLIC covers an address
(binaries without debug info), its name is the symbol table's. Also: a
store with several builds of a module asks for --id, bad addresses and
missing files are errors. And the index every lookup reads: built on the
first lookup, mapped from the cache on the next, written beside each file
by `symtool index`, rebuilt when damaged or stale, the answers the same
every way (with --index-cache none too)."""
import json
import os
import shutil
import subprocess
import tempfile

import oracles
import symfile
from common import Report, arguments, fixtures, require_shared


def lookup(args, store, module, addresses, *extra, source=None):
    """The answers; with `source`, the index must have come from there
    ("built", "from the index cache", "from beside")."""
    p = subprocess.run([args.symtool, "lookup", "--json", "-v", store, "--module", module, *extra,
                        *[hex(a) for a in addresses]], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f"symtool lookup {module}: exit {p.returncode}: {p.stderr.strip()}")
    if source and source not in p.stderr:
        raise SystemExit(f"symtool lookup {module}: the index was not {source}: {p.stderr.strip()}")
    return [json.loads(line) for line in p.stdout.splitlines()]


def index_check(args, report, store, cache, module, probes, expected):
    """The same answers from a cached index, without a cache, from an index
    beside the file, and from a damaged or stale one (rebuilt)."""
    ways = {"cached": lookup(args, store, module, probes, "--index-cache", cache,
                             source="from the index cache"),
            "no cache": lookup(args, store, module, probes, "--index-cache", "none", source="built")}
    ids = os.listdir(os.path.join(store, module))
    sym = os.path.join(store, module, ids[0], [n for n in os.listdir(os.path.join(store, module, ids[0]))
                                               if n.endswith(".sym")][0])
    p = subprocess.run([args.symtool, "index", sym], capture_output=True, text=True)
    if p.returncode != 0 or "1 indexes written" not in p.stderr or not os.path.exists(sym + ".idx"):
        report.fail(f"symtool index {sym}: exit {p.returncode}, {p.stderr.strip()!r}")
        return
    ways["beside"] = lookup(args, store, module, probes, "--index-cache", "none", source="from beside")
    # A byte of the index's tables flipped (past its header): the damage is
    # found when the lookup reads that block, and the answers stand.
    with open(sym + ".idx", "r+b") as fh:
        size = os.fstat(fh.fileno()).st_size
        for offset in range(200, size - 64, 4096):
            fh.seek(offset)
            byte = fh.read(1)
            fh.seek(offset)
            fh.write(bytes([byte[0] ^ 0x5a]))
    ways["damaged"] = lookup(args, store, module, probes, "--index-cache", cache)
    os.unlink(sym + ".idx")
    # The .sym changed (an INFO record more): the cached index is stale.
    with open(sym, "a") as fh:
        fh.write("INFO BENCH appended\n")
    p = subprocess.run([args.symtool, "lookup", "-v", store, "--module", module, "--index-cache", cache,
                        "0"], capture_output=True, text=True)
    if "stale" not in p.stderr or "built" not in p.stderr:
        report.fail(f"{module}: a changed .sym did not make its index stale: {p.stderr.strip()!r}")
    for way, answers in ways.items():
        if answers != expected:
            diff = next((f"{a} != {b}" for a, b in zip(answers, expected) if a != b), "lengths")
            report.fail(f"{module}: answers from the index {way} differ: {diff}")


def check_binary(args, report, binary, store, label, cache):
    p = subprocess.run([args.dump_syms, "-d", "--store", store, binary], capture_output=True, text=True)
    if p.returncode != 0:
        report.fail(f"{label}: dump_syms: {p.stderr.strip()}")
        return 0, 0
    sym = symfile.load(p.stdout.strip())
    module = sym.module[4] if sym.module else os.path.basename(binary)
    probes = {line[0] for f in sym.funcs for line in f.lines}
    probes |= {a for f in sym.funcs for record in f.inlines for a, n in record[4]}
    probes |= {f.address + f.size // 2 for f in sym.funcs}
    probes = sorted(probes)[:1500]
    base = oracles.load_address(binary)
    oracle = oracles.symbolize(binary, [p + base for p in probes], inlining=True)
    aliases = oracles.symbol_aliases(binary)
    answers = lookup(args, store, module, probes, "--index-cache", cache, source="built")
    index_check(args, report, store, cache, module, probes, answers)
    checked = deep = 0
    for rva, answer in zip(probes, answers):
        if int(answer["address"], 16) != rva or answer["module"] != module:
            report.fail(f"{label} {rva:x}: answer for {answer['address']} {answer['module']}")
            continue
        frames = oracle.get(rva + base) or []
        if not frames or not frames[0].get("Line"):
            continue  # the oracle knows no line here (padding, no line row)
        got = [(f["function"], f["file"], f["line"]) for f in answer.get("frames", [])]
        want = [(f.get("FunctionName"), f.get("FileName"), f.get("Line")) for f in frames]
        if len(got) == len(want) and got:
            # The oracle names the outermost frame from the symbol table: an
            # alias or a clone there is the same function.
            (wn, wf, wl), (gn, gf, gl) = want[-1], got[-1]
            start = int(frames[-1].get("StartAddress", "0"), 16)
            if (wf, wl) == (gf, gl) and (gn == oracles.normalize(wn) or
                                         {gn, oracles.normalize(wn)} <= aliases.get(start, set())):
                want[-1] = got[-1]
        checked += 1
        deep += len(want) > 1
        if got != want:
            report.fail(f"{label} {rva:x}: {got} != oracle {want}")
    return checked, deep


def main():
    args = arguments(lambda p: p.add_argument("--symtool", required=True))
    require_shared(args)
    report = Report("symtool lookup")
    tmp = tempfile.mkdtemp()
    try:
        store = os.path.join(tmp, "store")
        total = deep_total = 0
        corpus = os.path.join(args.shared, "corpus", "bin")
        binaries = [(f["path"], f["name"]) for f in fixtures(args, kinds={"program"})
                    if f["cpu"] in ("x86_64", "x86") and "asm" not in f["name"]]
        binaries += [(os.path.join(corpus, n), n) for n in
                     ("cxxprog.gcc12.g-O2", "cxxprog.clang19.g-O2", "crashchain.gcc12.g-O2", "cprog.clang19.g-O2")]
        for binary, label in binaries:
            checked, deep = check_binary(args, report, binary, store, label, os.path.join(tmp, "cache"))
            if checked == 0:
                report.fail(f"{label}: nothing checked")
            total += checked
            deep_total += deep
        report.note(f"{total} addresses equal llvm-symbolizer --inlining ({deep_total} inside inlined code)")

        # PUBLIC only: a binary without debug info; each function's middle
        # is named by its symbol.
        nodebug = os.path.join(corpus, "cprog.gcc12.nodebug-O2")
        p = subprocess.run([args.dump_syms, "--store", store, nodebug], capture_output=True, text=True)
        sym = symfile.load(p.stdout.strip())
        symbols = [s for s in oracles.function_symbols(nodebug) if s[1] > 1]
        base = oracles.load_address(nodebug)
        middles = [address - base + size // 2 for address, size, _ in symbols]
        answers = lookup(args, store, sym.module[4], middles)
        publics = 0
        for (address, size, name), answer in zip(symbols, answers):
            if answer.get("frames"):
                continue  # a FUNC from the symbol table's line-less functions
            publics += 1
            if answer.get("public") != name or int(answer.get("offset", "-1"), 16) != size // 2:
                report.fail(f"PUBLIC at {address:x}+{size // 2:x}: {answer}, want {name}+{size // 2:x}")
        if publics == 0:
            report.fail("no address was answered by a PUBLIC record")
        report.note(f"{publics} addresses answered by PUBLIC records with the symbol table's names")

        # Two builds of one module: --id decides; without it, an error listing both.
        twin = os.path.join(tmp, "twin")
        os.makedirs(twin)
        for n in ("cprog.gcc12.g-O2", "cprog.gcc12.g-O0"):
            shutil.copy(os.path.join(corpus, n), os.path.join(twin, "prog"))
            subprocess.run([args.dump_syms, "--store", store, "-q", os.path.join(twin, "prog")], check=True,
                           capture_output=True)
        ids = sorted(os.listdir(os.path.join(store, "prog")))
        p = subprocess.run([args.symtool, "lookup", store, "--module", "prog", "1000"], capture_output=True, text=True)
        if p.returncode != 1 or not all(i in p.stderr for i in ids):
            report.fail(f"two builds without --id: exit {p.returncode}, {p.stderr.strip()!r}")
        for i in ids:
            if not lookup(args, store, "prog", [0x1000], "--id", i):
                report.fail(f"--id {i}: no answer")
        for bad in (["lookup", store, "--module", "prog", "--id", ids[0], "xyz"],
                    ["lookup", os.path.join(tmp, "missing.sym"), "1000"],
                    ["lookup", store, "1000"]):
            p = subprocess.run([args.symtool, *bad], capture_output=True, text=True)
            if p.returncode != 1 or len(p.stderr.strip().splitlines()) != 1:
                report.fail(f"symtool {' '.join(bad[1:])}: exit {p.returncode}, {p.stderr.strip()!r}")

        # A whole store indexed: every file once, then all up to date.
        p = subprocess.run([args.symtool, "index", store], capture_output=True, text=True)
        files = [os.path.join(d, n) for d, _, names in os.walk(store) for n in names if n.endswith(".sym")]
        missing = [f for f in files if not os.path.exists(f + ".idx")]
        if p.returncode != 0 or missing:
            report.fail(f"symtool index STORE: exit {p.returncode}, {p.stderr.strip()!r}, no index for {missing}")
        p = subprocess.run([args.symtool, "index", store], capture_output=True, text=True)
        if p.stderr.strip() != f"symtool: 0 indexes written, {len(files)} up to date":
            report.fail(f"symtool index STORE again: {p.stderr.strip()!r}")
        report.note(f"{len(files)} indexes written beside the store's files, then all up to date")
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
