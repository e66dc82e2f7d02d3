#!/usr/bin/env python3
"""x86 STACK WIN walks against the machine itself. The clang-19/lld-link i686
PE/PDB fixtures (C and C++, -O0 and -O2, with and without frame pointers:
FrameData programs of every prologue step, __stdcall callee-popped
arguments, a stack realigned with `@`) import nothing, so a 32-bit Linux
program (fixtures/pdb/pe_runner.c) maps them at their image base and runs
their entry point. gdb steps through every instruction of the run
(gdb_call_chain.py) and keeps the true call chain as the calls and returns
build it; each instruction's state (registers, and the stack from the stack
pointer up, which a crash there would leave) becomes a minidump with the
PE's CodeView record (core_to_minidump.py). The walk from the PDB's symbols
must give the pc and then every return address of the chain, each caller
found by STACK WIN (trust "cfi", or "cfi_scan" where the program's return
address is off and STACK WIN's own scan finds it), never by a plain scan.
Breakpad's rules (--breakpad-walk) are walked too and their misses counted:
they are what Breakpad's processor does, wrong where clang's frames differ
from MSVC's. Instructions of an epilogue (pops before the return, which
FrameData does not describe) are counted apart."""
import json
import os
import shutil
import subprocess
import tempfile
from collections import Counter

import core_to_minidump
from common import Report, arguments, runs_here
from pe_runs import (RUNNER_SOURCE, elf_extent, elf_segments, pe_facts, pe_sections, record_chain,
                     write_state_dump)

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


EPILOGUE = ("pop", "leave", "ret")


def epilogue_addresses(exe):
    """Instructions from which only the function's epilogue is left before
    its return (pops, `leave`, the stack pointer moved back, `ret`), by
    llvm-objdump. FrameData describes the body and each prologue step, not
    the epilogue, whose programs read registers already restored: no walker
    that has only the PDB (Breakpad's, ours) unwinds there."""
    listing = []
    for line in sh("llvm-objdump-19", "-d", "--no-show-raw-insn", exe).stdout.splitlines():
        parts = line.strip().split(None, 1)
        if len(parts) == 2 and parts[0].endswith(":") and all(c in "0123456789abcdef" for c in parts[0][:-1]):
            listing.append((int(parts[0][:-1], 16), parts[1]))
    out = set()
    for i, (address, text) in enumerate(listing):
        for _, later in listing[i:]:
            mnemonic = later.split()[0]
            stack_fix = mnemonic in ("add", "lea", "mov") and later.rstrip().endswith("%esp")
            if mnemonic.startswith("ret"):
                out.add(address)
                break
            if not (mnemonic.startswith(EPILOGUE) or stack_fix):
                break
    return out


def walk(args, store, dump, breakpad):
    p = sh(args.symtool, "stackwalk", "--store", store, "--json", *(["--breakpad-walk"] if breakpad else []),
           dump)
    if p.returncode != 0:
        raise SystemExit(f"symtool stackwalk {dump}: exit {p.returncode}: {p.stderr.strip()}")
    return json.loads(p.stdout)


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--every", type=int, default=1,
                                               help="walk every Nth state only (the sanitizer tree)")))
    report = Report("x86 STACK WIN walks")
    tmp = tempfile.mkdtemp()
    try:
        runner = os.path.join(tmp, "pe_runner")
        sh("gcc", "-m32", "-static", "-O1", "-g", "-o", runner, RUNNER_SOURCE, check=True)
        runner_base, runner_size = elf_extent(runner)
        runner_cv = b"LEpB" + core_to_minidump.build_id(runner)
        native = runs_here(runner)
        report.note("the machine: " + ("this kernel runs the 32-bit runner" if native else
                                       "this kernel runs no 32-bit x86 programs: the runner runs under "
                                       "qemu-i386, gdb attached to its stub"))
        pdbs = os.path.join(args.fixtures, "pdb")
        variants = sorted(n[:-4] for n in os.listdir(pdbs) if ".x86." in n and n.endswith(".exe"))
        if not variants:
            raise SystemExit(f"no x86 PE fixtures in {pdbs}")
        totals = {False: Counter(), True: Counter()}
        states_walked = frames_checked = 0
        for variant in variants:
            exe = os.path.join(pdbs, variant + ".exe")
            store = os.path.join(tmp, variant + "-store")
            p = sh(args.dump_syms, "--store", store, exe)
            # The runner's symbols too: every module of a real crash has some.
            q = sh(args.dump_syms, "--store", store, runner)
            if p.returncode != 0 or q.returncode != 0:
                report.fail(f"{variant}: dump_syms: {p.stderr.strip()} {q.stderr.strip()}")
                continue
            epilogues = epilogue_addresses(exe)
            base, size, entry, record = pe_facts(exe)
            chain_json = os.path.join(tmp, variant + ".json")
            record_chain(runner, exe, base + entry, chain_json, qemu=None if native else "qemu-i386")
            if not os.path.exists(chain_json):
                report.fail(f"{variant}: gdb recorded no states")
                continue
            with open(chain_json) as fh:
                states = json.load(fh)["states"]
            memory = sorted(pe_sections(exe, base) + elf_segments(runner))
            modules = [(base, size, os.path.basename(exe), record),
                       (runner_base, runner_size, runner, runner_cv)]
            problems = []
            in_epilogue = right_in_epilogue = breakpad_wrong = 0
            for i, state in enumerate(states):
                if i % args.every:
                    continue
                dump = os.path.join(tmp, f"{variant}.{i}.dmp")
                write_state_dump(dump, state, modules, memory)
                want = [state["pc"]] + state["returns"]
                if state["pc"] in epilogues:
                    walked = walk(args, store, dump, False)
                    physical = [f for f in walked["threads"][0]["frames"] if not f["inlined"]]
                    in_epilogue += 1
                    right_in_epilogue += [int(f["address"], 16) for f in physical[:len(want)]] == want
                    os.unlink(dump)
                    continue
                for breakpad in (False, True):
                    walked = walk(args, store, dump, breakpad)
                    physical = [f for f in walked["threads"][0]["frames"] if not f["inlined"]]
                    got = [int(f["address"], 16) for f in physical[:len(want)]]
                    for frame in physical[1:len(want)]:
                        totals[breakpad][frame["trust"]] += 1
                    if breakpad:
                        # Breakpad's own rules go wrong where clang's frames
                        # differ from MSVC's (arguments stored into the
                        # caller's locals): counted, as Breakpad gets them.
                        breakpad_wrong += got != want
                        continue
                    if got != want:
                        problems.append(f"pc {state['pc']:#x}: frames {[hex(a) for a in got]}, "
                                        f"the machine's {[hex(a) for a in want]}")
                        continue
                    # Every caller found by its STACK WIN program (with the
                    # scan Breakpad's STACK WIN step falls back to where the
                    # program's return address is off), never by a plain scan.
                    scanned = [f for f in physical[1:len(want)] if f["trust"] not in ("cfi", "cfi_scan")]
                    if scanned:
                        problems.append(f"pc {state['pc']:#x}: callers found by "
                                        f"{[f['trust'] for f in scanned]}, not STACK WIN")
                    frames_checked += len(want)
                os.unlink(dump)
                states_walked += 1
            for problem in problems[:5]:
                report.fail(f"{variant}: {problem}")
            if len(problems) > 5:
                report.fail(f"{variant}: {len(problems) - 5} more")
            report.note(f"{variant}: {len(states)} instructions, {len(problems)} walks wrong "
                        f"({breakpad_wrong} by Breakpad's rules); {in_epilogue} in epilogues, "
                        f"{right_in_epilogue} of them walked right anyway")
        if args.every > 1:
            report.note(f"every {args.every}th state walked (--every)")
        report.note(f"{states_walked} thread states, {frames_checked} frames equal the machine's; callers "
                    f"found by: ours {dict(totals[False])}, Breakpad's rules {dict(totals[True])}")
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
