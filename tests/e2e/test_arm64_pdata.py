#!/usr/bin/env python3
"""ARM64 STACK CFI from .pdata/.xdata walked against the machine. The
clang-19/lld-link aarch64-pc-windows-msvc PE/PDB fixtures import nothing,
so an aarch64 Linux program (fixtures/pdb/pe_runner.c) maps them at their
image base and runs their entry point under qemu-aarch64; gdb-multiarch,
on qemu's stub, steps through every instruction of the run
(gdb_call_chain.py) and keeps the true call chain as bl/blr and returns
build it. Each instruction's state (registers, and the stack from the
stack pointer up, which a crash there would leave) becomes a Windows
minidump with the PE's CodeView record (core_to_minidump.py). The walk
from the dump's symbols must give the pc and then every return address of
the chain, each caller found by STACK CFI (trust "cfi"): in prologues,
bodies and epilogues alike, which ARM64's unwind codes all describe.
(pdb_vs_llvm_tools and pe_only check the STACK CFI INIT ranges against
llvm-readobj's decoding of the same .pdata.)"""
import json
import os
import shutil
import tempfile
from collections import Counter

import core_to_minidump
from common import Report, arguments
from pe_runs import (RUNNER_SOURCE, elf_extent, elf_segments, pe_facts, pe_sections, record_chain, sh,
                     write_state_dump)

RUNNER_COMPILER = "aarch64-linux-gnu-gcc"


def walk(args, store, dump):
    p = sh(args.symtool, "stackwalk", "--store", store, "--json", dump)
    if p.returncode != 0:
        raise SystemExit(f"symtool stackwalk {dump}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def stack_cfi(path):
    return [line for line in open(path) if line.startswith("STACK CFI")]


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--every", type=int, default=1,
                                               help="walk every Nth state only (the sanitizer tree)")))
    report = Report("ARM64 STACK CFI from .pdata walks")
    tmp = tempfile.mkdtemp()
    try:
        run(args, report, tmp)
    finally:
        shutil.rmtree(tmp)
    report.finish()


def run(args, report, tmp):
    runner = os.path.join(tmp, "pe_runner")
    sh(RUNNER_COMPILER, "-static", "-O1", "-g", "-o", runner, RUNNER_SOURCE, check=True)
    runner_base, runner_size = elf_extent(runner)
    runner_cv = b"LEpB" + core_to_minidump.build_id(runner)
    pdbs = os.path.join(args.fixtures, "pdb")
    variants = sorted(n[:-4] for n in os.listdir(pdbs) if ".arm64." in n and n.endswith(".exe"))
    if not variants:
        raise SystemExit(f"no ARM64 PE fixtures in {pdbs}")
    trusts = Counter()
    states_walked = frames_checked = 0
    for variant in variants:
        exe = os.path.join(pdbs, variant + ".exe")
        store = os.path.join(tmp, variant + "-store")
        p = sh(args.dump_syms, "--store", store, exe)
        q = sh(args.dump_syms, "--store", store, runner)
        if p.returncode != 0 or q.returncode != 0:
            report.fail(f"{variant}: dump_syms: {p.stderr.strip()} {q.stderr.strip()}")
            continue
        sym = os.path.join(tmp, variant + ".sym")
        sh(args.dump_syms, exe, "--output", sym, check=True)
        with_pdb = stack_cfi(sym)
        if not with_pdb:
            report.fail(f"{variant}: no STACK CFI")
            continue
        base, size, entry, record = pe_facts(exe)
        chain_json = os.path.join(tmp, variant + ".json")
        record_chain(runner, exe, base + entry, chain_json, qemu="qemu-aarch64", gdb="gdb-multiarch",
                     arch="arm64")
        if not os.path.exists(chain_json):
            report.fail(f"{variant}: gdb recorded no states")
            continue
        with open(chain_json) as fh:
            states = json.load(fh)["states"]
        memory = sorted(pe_sections(exe, base) + elf_segments(runner))
        modules = [(base, size, os.path.basename(exe), record), (runner_base, runner_size, runner, runner_cv)]
        problems = []
        for i, state in enumerate(states):
            if i % args.every:
                continue
            dump = os.path.join(tmp, f"{variant}.{i}.dmp")
            write_state_dump(dump, state, modules, memory)
            want = [state["pc"]] + state["returns"]
            walked = walk(args, store, dump)
            os.unlink(dump)
            physical = [f for f in walked["threads"][0]["frames"] if not f["inlined"]]
            got = [int(f["address"], 16) for f in physical[:len(want)]]
            # Callers in the PE must be found by its STACK CFI; the last
            # one returns into the runner, found by the runner's own.
            for frame in physical[1:len(want)]:
                trusts[frame["trust"]] += 1
            states_walked += 1
            if got != want:
                problems.append(f"pc {state['pc']:#x}: frames {[hex(a) for a in got]}, "
                                f"the machine's {[hex(a) for a in want]}")
                continue
            scanned = [f for f in physical[1:len(want)] if f["trust"] != "cfi"]
            if scanned:
                problems.append(f"pc {state['pc']:#x}: callers found by {[f['trust'] for f in scanned]}, "
                                f"not STACK CFI")
                continue
            frames_checked += len(want)
        for problem in problems[:5]:
            report.fail(f"{variant}: {problem}")
        if len(problems) > 5:
            report.fail(f"{variant}: {len(problems) - 5} more")
        report.note(f"{variant}: {len(states)} instructions, {len(problems)} walks wrong; "
                    f"{len(with_pdb)} STACK CFI records")
    if args.every > 1:
        report.note(f"every {args.every}th state walked (--every)")
    report.note(f"{states_walked} thread states, {frames_checked} frames equal the machine's; callers found "
                f"by {dict(trusts)}")


if __name__ == "__main__":
    main()
