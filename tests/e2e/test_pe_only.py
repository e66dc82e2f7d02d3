#!/usr/bin/env python3
"""A PE dumped without its PDB (no PDB to be found, or --pe-only), judged by
LLVM's tools on the PE fixtures (clang-19 + lld-link-19: EXEs and DLLs,
x86, x86_64, arm64) and the MSVC x64 EXE of ../shared/windows:

- MODULE: the GUID and age of `llvm-readobj --coff-debug-directory`'s
  CodeView record, the PDB name it records; INFO CODE_ID: TimeDateStamp and
  SizeOfImage of `llvm-readobj --file-headers`;
- PUBLIC: one per named, non-forwarded export `llvm-readobj --coff-exports`
  lists, at its RVA, the x86 decoration taken off (stdcall's `@N` as the
  parameter size);
- x64 and ARM64 STACK CFI: one STACK CFI INIT per function `llvm-readobj
  --unwind` lists (x64's RUNTIME_FUNCTION start and end, ARM64's start and
  FunctionLength), and the very records the dump with the PDB writes;
- no FUNC or line records; exit 0; a warning (with -v) naming what is
  missing; the output is the same with --pe-only and without a PDB;
- `symstore add` of a release holding the PE and not its PDB files the
  dump under the PE's ids with `"debug": {"from": "pe-only"}` and the
  no-debug-info status in its manifest, and sentry-cli accepts the file.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

import common
import oracles

LLVM = "/usr/lib/llvm-19/bin"
LEAF = r"STACK CFI INIT [0-9a-f]+ [0-9a-f]+ \.cfa: sp 0 \+ \.ra: x30"


run = common.run_checked


def readobj_facts(pe):
    headers = run([f"{LLVM}/llvm-readobj", "--file-headers", "--coff-debug-directory", pe])
    machine = int(re.search(r"Machine: \S+ \((0x[0-9A-F]+)\)", headers).group(1), 16)
    stamp = int(re.search(r"TimeDateStamp: .*\((0x[0-9A-F]+)\)", headers).group(1), 16)
    size = int(re.search(r"^\s*SizeOfImage: (\d+)", headers, re.M).group(1))
    base = int(re.search(r"^\s*ImageBase: (0x[0-9A-F]+)", headers, re.M).group(1), 16)
    guid = re.search(r"PDBGUID: \{([0-9A-F-]+)\}", headers).group(1)
    age = int(re.search(r"PDBAge: (\d+)", headers).group(1))
    pdb = re.search(r"PDBFileName: (.*)$", headers, re.M).group(1).strip()
    # (readobj prints the GUID in its canonical form, the id's order)
    debug_id = guid.replace("-", "") + format(age, "x")
    exports = []
    out = run([f"{LLVM}/llvm-readobj", "--coff-exports", pe])
    for block in out.split("Export {")[1:]:
        name = re.search(r"Name: (.*)", block)
        rva = re.search(r"RVA: (0x[0-9A-F]+)", block)
        if name and rva and name.group(1).strip() and "ForwardedTo" not in block:
            exports.append((int(rva.group(1), 16), name.group(1).strip()))
    unwind = oracles.pe_runtime_functions(pe, base) if machine in (0x8664, 0xAA64) else []
    return {"machine": machine, "code_id": f"{stamp:08X}{size:X}", "debug_id": debug_id,
            "pdb": re.split(r"[\\/]", pdb)[-1], "exports": exports, "unwind": unwind}


def undecorate(name, x86):
    """The export's name as the PUBLIC record has it, and its parameter size."""
    if not x86:
        return name, 0
    m = re.fullmatch(r"[_@]?(.+?)@(\d+)", name)
    if m:
        return m.group(1), int(m.group(2))
    return (name[1:] if name.startswith("_") else name), 0


def dump(args, pe, *options):
    p = subprocess.run([args.dump_syms, pe, *options], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def records(text, kind):
    return [line for line in text.splitlines() if line.startswith(kind)]


def check_pe(args, report, pe, pe_only_text, label):
    facts = readobj_facts(pe)
    x86 = facts["machine"] == 0x14C
    lines = pe_only_text.splitlines()
    want_module = f"MODULE windows {'x86' if x86 else 'x86_64' if facts['machine'] == 0x8664 else 'arm64'} " \
                  f"{facts['debug_id']} {facts['pdb']}"
    if lines[0] != want_module:
        report.fail(f"{label}: {lines[0]!r} != {want_module!r}")
    want_info = f"INFO CODE_ID {facts['code_id']} {os.path.basename(pe)}"
    if lines[1] != want_info:
        report.fail(f"{label}: {lines[1]!r} != {want_info!r}")
    if records(pe_only_text, "FUNC") or any(re.match(r"^[0-9a-f]+ ", l) for l in lines):
        report.fail(f"{label}: FUNC or line records without a PDB")
    publics = {}
    for line in records(pe_only_text, "PUBLIC"):
        f = line.split(" ", 3)
        publics[int(f[1], 16)] = (int(f[2], 16), f[3])
    want = {}
    for rva, name in facts["exports"]:
        plain, size = undecorate(name, x86)
        want.setdefault(rva, (size, plain))
    if publics != want:
        report.fail(f"{label}: PUBLIC {sorted(publics.items())[:6]} != exports {sorted(want.items())[:6]}")
    inits = sorted((int(l.split()[3], 16), int(l.split()[3], 16) + int(l.split()[4], 16))
                   for l in records(pe_only_text, "STACK CFI INIT"))
    if inits != facts["unwind"]:
        report.fail(f"{label}: STACK CFI INIT ranges {inits[:4]}... != RUNTIME_FUNCTIONs {facts['unwind'][:4]}...")
    return len(publics), len(inits)


def main():
    args = common.arguments(lambda p: (p.add_argument("--symstore", required=True),
                                       p.add_argument("--sentry-cli", required=True)))
    report = common.Report("pe_only")
    pdb_dir = os.path.join(args.fixtures, "pdb")
    work = tempfile.mkdtemp()
    try:
        pes = sorted(f for f in os.listdir(pdb_dir) if f.endswith((".exe", ".dll")))
        totals = [0, 0, 0]
        for name in pes:
            pe = os.path.join(pdb_dir, name)
            rc, text, err = dump(args, pe, "--pe-only", "-v")
            if rc != 0:
                report.fail(f"{name} --pe-only: exit {rc}: {err.strip()[:200]}")
                continue
            if "written from the PE alone" not in err or "--pe-only" not in err:
                report.fail(f"{name}: no warning naming what is missing: {err.strip()[:200]}")
            publics, inits = check_pe(args, report, pe, text, name)
            totals[0] += 1
            totals[1] += publics
            totals[2] += inits
            # STACK CFI: the records the dump with the PDB writes.
            rc, full, _ = dump(args, pe)
            if rc == 0 and records(full, "STACK CFI") != records(text, "STACK CFI"):
                # ARM64: the PDB's functions that .pdata leaves out (leaves)
                # get lr's rule in the dump with the PDB; nothing else differs.
                extra = set(records(full, "STACK CFI")) - set(records(text, "STACK CFI"))
                leaves = all(".arm64." in name and re.fullmatch(LEAF, line) for line in extra)
                if not leaves or [l for l in records(full, "STACK CFI") if l not in extra] != \
                        records(text, "STACK CFI"):
                    report.fail(f"{name}: STACK CFI differs from the dump with the PDB")
        report.note(f"{totals[0]} PEs dumped alone: {totals[1]} PUBLIC records equal the export tables, "
                    f"{totals[2]} STACK CFI INIT equal the RUNTIME_FUNCTIONs")

        # No PDB to be found: the same as --pe-only, with the warning saying so.
        lone = os.path.join(work, "lone")
        os.makedirs(lone)
        for name in ("alt.x86_64.O2.exe", "both.x86.O2.dll"):
            shutil.copy(os.path.join(pdb_dir, name), lone)
        msvc = os.path.join(args.shared, "windows", "dump_syms_regtest64.exe")
        shutil.copy(msvc, lone)
        for name in ("alt.x86_64.O2.exe", "dump_syms_regtest64.exe"):
            pe = os.path.join(lone, name)
            rc, text, err = dump(args, pe, "-v")
            if rc != 0 or "was not found" not in err or "written from the PE alone" not in err:
                report.fail(f"{name} without its PDB: exit {rc}: {err.strip()[:300]}")
                continue
            check_pe(args, report, pe, text, name + " (no PDB)")
            rc, alone, _ = dump(args, pe, "--pe-only")
            if alone != text:
                report.fail(f"{name}: --pe-only and no PDB give different files")

        # symstore add: filed under the PE's ids, marked pe-only.
        store = os.path.join(work, "store")
        manifest = os.path.join(work, "manifest.json")
        p = subprocess.run([args.symstore, "add", "--manifest", manifest, store, lone],
                           capture_output=True, text=True)
        if p.returncode != 0:
            report.fail(f"symstore add: exit {p.returncode}: {p.stderr.strip()[:300]}")
        else:
            entries = {os.path.basename(e["path"]): e for e in json.load(open(manifest))["entries"]}
            for name in ("alt.x86_64.O2.exe", "dump_syms_regtest64.exe"):
                entry = entries.get(name, {})
                if entry.get("debug_info", {}).get("from") != "pe-only" or entry.get("status") != "no-debug-info":
                    report.fail(f"symstore: {name} not marked pe-only: {entry}")
                    continue
                stored = os.path.join(store, entry["sym"])
                check = subprocess.run([args.sentry_cli, "debug-files", "check", stored],
                                       capture_output=True, text=True)
                if check.returncode != 0 or "Usable: yes" not in check.stdout:
                    report.fail(f"sentry-cli on {stored}: {check.stdout[-300:]} {check.stderr[-200:]}")
            # (both.x86.O2.dll records its PDB's absolute path, which exists: a full dump)
            if entries.get("both.x86.O2.dll", {}).get("debug_info", {}).get("from") == "pe-only":
                report.fail("symstore: a PE whose PDB is at its recorded path was dumped alone")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
