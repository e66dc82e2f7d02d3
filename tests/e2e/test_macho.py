#!/usr/bin/env python3
"""Mach-O and dSYM input, against LLVM's own tools on fixtures built here
(macho_fixtures.py: x86_64 and arm64, macOS and iOS, C and C++, -O0/-O2,
with and without frame pointers, a dylib, a universal file):

- MODULE mac <cpu> <UUID>0 <name> and INFO CODE_ID <UUID>, the UUID as
  llvm-dwarfdump-19 --uuid prints it for each slice;
- at line starts, inlined ranges and function middles, the frames symtool
  lookup reads from the store equal llvm-symbolizer-19 --inlining's on the
  dSYM;
- every STACK CFI row from __eh_frame computes what llvm-dwarfdump-19's row
  computes; each compact unwind entry (llvm-objdump-19 --unwind-info)
  decoded here, independently, gives the rules in force at every return
  address in the function's body; every row written for a prologue
  computes what the function's DWARF CFI (the same code compiled with
  -femit-dwarf-unwind=always) computes there;
- sentry-cli accepts every file; a universal file asks for --arch and goes
  into a store slice by slice, each with its dSYM found by UUID elsewhere
  in the release; a dSYM given alone or as a debug directory; --names
  breakpad; a macOS minidump walked through the store by its module's
  UUID; damaged files are one-line errors (a damaged __unwind_info a
  warning)."""
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
from collections import Counter

import core_to_minidump
import macho_fixtures as mf
import oracles
import symfile
import unwind_eval as ue
from common import Report, arguments
from test_cfi import compare_row

LLVM = mf.LLVM
TEXT_BASE = {"exe": 0x100000000, "dylib": 0}


def run(*argv, env=None):
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)


def dump(args, *argv):
    p = run(args.dump_syms, *argv)
    if p.returncode != 0:
        raise SystemExit(f"dump_syms {' '.join(argv)}: {p.stderr.strip()}")
    with tempfile.NamedTemporaryFile("w", suffix=".sym", delete=False) as fh:
        fh.write(p.stdout)
    sym = symfile.load(fh.name)
    os.unlink(fh.name)
    return sym, p


def text_address(binary):
    """__TEXT's vmaddr, as llvm-objdump prints the load commands."""
    out = mf.sh(f"{LLVM}/llvm-objdump", "--macho", "--private-headers", binary)
    for block in out.split("Load command")[1:]:
        if re.search(r"segname __TEXT\b", block):
            return int(re.search(r"vmaddr (0x[0-9a-f]+)", block).group(1), 16)
    return 0


def symbols(path):
    """name -> address of the defined symbols (llvm-nm)."""
    out = {}
    for line in mf.sh(f"{LLVM}/llvm-nm", "--defined-only", path).splitlines():
        parts = line.split()
        if len(parts) == 3:
            out.setdefault(parts[2], int(parts[0], 16))
    return out


# ---------------------------------------------------------------- identity
def check_identity(report, fixture, sym):
    uuid = next(iter(mf.uuids(fixture["binary"]).values()))
    want = ("mac", fixture["cpu"], uuid + "0", os.path.basename(fixture["binary"]))
    if sym.module is None or tuple(sym.module[1:5]) != want:
        report.fail(f"{fixture['name']}: MODULE {sym.module}, want {want}")
    if sym.info.get("CODE_ID", "").split(" ")[0] != uuid:
        report.fail(f"{fixture['name']}: INFO CODE_ID {sym.info.get('CODE_ID')}, want {uuid}")


# ---------------------------------------------------------------- lines
def check_lines(args, report, fixture, store, sym):
    module = sym.module[4]
    probes = {line[0] for f in sym.funcs for line in f.lines}
    probes |= {a for f in sym.funcs for record in f.inlines for a, n in record[4]}
    probes |= {f.address + f.size // 2 for f in sym.funcs}
    probes = sorted(probes)
    if not probes:
        report.fail(f"{fixture['name']}: no FUNC or line records")
        return 0
    p = run(args.symtool, "lookup", "--json", store, "--module", module, "--id", sym.module[3],
            *[hex(a) for a in probes])
    if p.returncode != 0:
        report.fail(f"{fixture['name']}: symtool lookup: {p.stderr.strip()}")
        return 0
    answers = [json.loads(line) for line in p.stdout.splitlines()]
    base = text_address(fixture["binary"])
    oracle = oracles.symbolize(fixture["dsym"], [a + base for a in probes], inlining=True)
    checked = 0
    for rva, answer in zip(probes, answers):
        frames = oracle.get(rva + base) or []
        if not frames or not frames[0].get("Line"):
            continue
        got = [(f["function"], f["file"], f["line"]) for f in answer.get("frames", [])]
        want = [(oracles.normalize(f.get("FunctionName")), f.get("FileName"), f.get("Line")) for f in frames]
        got = [(oracles.normalize(n), fl, ln) for n, fl, ln in got]
        checked += 1
        if got != want:
            report.fail(f"{fixture['name']} {rva:x}: {got} != llvm-symbolizer {want}")
    return checked


# ---------------------------------------------------------------- unwind
def decode_permutation(count, permutation):
    """The registers of an x86_64 frameless encoding, by libunwind's
    documented numbering (1 rbx, 2 r12, 3 r13, 4 r14, 5 r15, 6 rbp)."""
    radix = {1: [1], 2: [5, 1], 3: [20, 4, 1], 4: [60, 12, 3, 1], 5: [120, 24, 6, 2, 1],
             6: [120, 24, 6, 2, 1]}[count]
    ranks = []
    for r in radix:
        ranks.append(permutation // r)
        permutation %= r
    if count == 6:
        ranks.append(0)
    free, out = [1, 2, 3, 4, 5, 6], []
    for rank in ranks[:count]:
        out.append(free.pop(rank))
    return out


X64_NAMES = {1: "RBX", 2: "R12", 3: "R13", 4: "R14", 5: "R15", 6: "RBP"}


def encoding_row(cpu, encoding, code):
    """(cfa_text, {register: location}) as llvm-dwarfdump would print the
    body of a function with this compact encoding; None when there is
    nothing to compare (no info, DWARF mode)."""
    mode = encoding & 0x0F000000
    if cpu == "x86_64":
        if mode == 0x01000000:
            registers = {"RIP": "[CFA-8]", "RBP": "[CFA-16]"}
            offset = (encoding >> 16) & 0xFF
            for i in range(5):
                reg = (encoding >> (3 * i)) & 7
                if reg:
                    registers[X64_NAMES[reg]] = f"[CFA-{16 + 8 * offset - 8 * i}]"
            return "RBP+16", registers
        if mode in (0x02000000, 0x03000000):
            size = (encoding >> 16) & 0xFF
            if mode == 0x02000000:
                size *= 8
            else:
                size = struct.unpack_from("<I", code, size)[0] + 8 * ((encoding >> 13) & 7)
            count = (encoding >> 10) & 7
            registers = {"RIP": "[CFA-8]"}
            for i, reg in enumerate(decode_permutation(count, encoding & 0x3FF) if count else []):
                registers[X64_NAMES[reg]] = f"[CFA-{8 + 8 * count - 8 * i}]"
            return f"RSP+{size}", registers
        return None
    if mode == 0x04000000:
        registers = {"X29": "[CFA-16]", "X30": "[CFA-8]"}
        slot = 24
        for bit in range(12):
            if encoding & (1 << bit):
                if bit < 5:
                    registers[f"X{19 + 2 * bit}"] = f"[CFA-{slot}]"
                    registers[f"X{20 + 2 * bit}"] = f"[CFA-{slot + 8}]"
                slot += 16
        return "X29+16", registers
    if mode == 0x02000000:
        return f"SP+{16 * ((encoding >> 12) & 0xFFF)}", {}
    return None


def unwind_entries(binary):
    """[(function offset, encoding)] as llvm-objdump --unwind-info lists them."""
    out = mf.sh(f"{LLVM}/llvm-objdump", "--unwind-info", binary)
    common = [int(v, 16) for v in re.findall(r"encoding\[\d+\]: (0x[0-9a-f]+)", out.split("Personality")[0])]
    entries = []
    for line in out.splitlines():
        m = re.search(r"\[\d+\]: function offset=(0x[0-9a-f]+), encoding(?:\[(\d+)\])?=(0x[0-9a-f]+)", line)
        if m:
            entries.append((int(m.group(1), 16), int(m.group(3), 16)))
    del common
    return sorted(set(entries))


def return_addresses(binary, cpu):
    """Addresses just after each call instruction, by llvm-objdump -d."""
    out = mf.sh(f"{LLVM}/llvm-objdump", "-d", "--no-show-raw-insn", binary)
    addresses, previous_call = [], False
    for line in out.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)", line)
        if not m:
            continue
        address = int(m.group(1), 16)
        if previous_call:
            addresses.append(address)
        previous_call = m.group(2) in (("callq", "call") if cpu == "x86_64" else ("bl", "blr"))
    return addresses


def text_section(binary):
    """(address, bytes) of __TEXT,__text, where the load commands say it is."""
    out = mf.sh(f"{LLVM}/llvm-objdump", "--macho", "--private-headers", binary)
    m = re.search(r"sectname __text\s+segname __TEXT\s+addr (0x[0-9a-f]+)\s+size (0x[0-9a-f]+)\s+offset (\d+)", out)
    if not m:
        return None, b""
    with open(binary, "rb") as fh:
        fh.seek(int(m.group(3)))
        return int(m.group(1), 16), fh.read(int(m.group(2), 16))


def disassembly(binary):
    """[(address, mnemonic, operands)] of __text, by llvm-objdump -d."""
    out = mf.sh(f"{LLVM}/llvm-objdump", "-d", "--no-show-raw-insn", binary)
    lines = []
    for line in out.splitlines():
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if m:
            lines.append((int(m.group(1), 16), m.group(2), m.group(3).split("//")[0].strip()))
    return lines


def arm64_prologue_rows(instructions):
    """The rows an arm64 prologue implies, from LLVM's disassembly:
    [(address after the instruction, cfa_text, {register: location})], a
    save in force once the prologue is done unless the prologue changes the
    register (x29) after storing it. None when an instruction is not one of
    a prologue's."""
    depth, cfa_register, cfa_offset, steps = 0, "SP", 0, []
    for address, mnemonic, operands in instructions:
        ops = [o.strip() for o in re.split(r",(?![^\[]*\])", operands)]
        stores, changes = {}, []
        imm = lambda text: int(text.lstrip("#"), 0)
        if mnemonic == "pacibsp":
            pass
        elif mnemonic == "stp" and ops[2].startswith("[sp"):
            m = re.match(r"\[sp(?:, (#-?0x[0-9a-f]+|#-?\d+))?\](!?)", ops[2])
            offset = imm(m.group(1)) if m.group(1) else 0
            if m.group(2):
                depth -= offset
                slot = -depth
            else:
                slot = offset - depth
            if ops[0].startswith("x"):
                stores[ops[0].upper()] = slot
                stores[ops[1].upper()] = slot + 8
        elif mnemonic == "sub" and ops[:2] == ["sp", "sp"]:
            depth += imm(ops[2])
        elif mnemonic in ("add", "mov") and ops[0] == "x29" and ops[1] == "sp":
            cfa_register, cfa_offset = "X29", depth - (imm(ops[2]) if len(ops) > 2 else 0)
            changes.append("X29")
        else:
            return steps, address
        if cfa_register == "SP":
            cfa_offset = depth
        steps.append((address, cfa_register, cfa_offset, stores, changes))
    return steps, None


def arm64_rows(steps, end):
    saves, effective = {}, {}
    for i, (_, _, _, stores, _) in enumerate(steps):
        for reg, slot in stores.items():
            if reg in saves:
                continue
            saves[reg] = slot
            changed_later = any(reg in later[4] for later in steps[i + 1:])
            effective[reg] = i if changed_later else len(steps) - 1
    rows = []
    for i, (address, cfa_register, cfa_offset, _, _) in enumerate(steps):
        registers = {reg: f"[CFA{saves[reg]:+d}]" for reg, at in effective.items() if at <= i}
        after = steps[i + 1][0] if i + 1 < len(steps) else end
        rows.append((after, f"{cfa_register}+{cfa_offset}", registers))
    return rows


def check_unwind(report, fixture, sym):
    """Rows from __eh_frame, compact unwind bodies, prologue rows."""
    binary, cpu, name = fixture["binary"], fixture["cpu"], fixture["name"]
    base = text_address(binary)
    checked = Counter()
    # __eh_frame (DWARF-mode functions keep their FDEs).
    for section, start, end, rows in oracles.unwind_tables(binary):
        if section != "eh-frame" or start == end:
            continue
        for address, cfa_text, registers in rows:
            if start <= address < end:
                rules = sym.cfi_rules_at(address - base)
                if rules is None:
                    report.fail(f"{name} eh-frame {address - base:x}: no STACK CFI")
                    continue
                compare_row(report, f"{name} eh-frame {address - base:x}", cpu, 64, cfa_text, registers, rules)
                checked["__eh_frame rows"] += 1
    # Compact unwind: the body rules at each return address.
    entries = unwind_entries(binary)
    text_start, text = text_section(binary)
    calls = return_addresses(binary, cpu)
    for i, (offset, encoding) in enumerate(entries):
        end = entries[i + 1][0] if i + 1 < len(entries) else None
        start = base + offset
        code = text[start - text_start:] if text_start is not None and start >= text_start else b""
        row = encoding_row(cpu, encoding, code)
        if row is None:
            continue
        for address in calls:
            if start < address and (end is None or address < base + end):
                rules = sym.cfi_rules_at(address - base)
                where = f"{name} compact {encoding:#x} at {address - base:x}"
                if rules is None:
                    report.fail(f"{where}: no STACK CFI")
                    continue
                compare_row(report, where, cpu, 64, row[0], row[1], rules)
                checked["compact unwind bodies at return addresses"] += 1
    # Prologues: every row we write before a function's body, against the
    # function's DWARF CFI in the object compiled to keep it (x86_64), or
    # what LLVM's disassembly of the prologue implies (arm64, whose Darwin
    # CFI says nothing of the prologue).
    def encoding_at(rva):
        found = None
        for offset, encoding in entries:
            if base + offset <= rva + base:
                found = encoding
        return found

    if cpu == "arm64":
        instructions = disassembly(binary)
        for group in sym.cfi:
            encoding = encoding_at(group.address)
            # (DWARF-mode functions' rows are their FDEs', checked above)
            if not group.changes or encoding is None or encoding & 0x0F000000 in (0, 0x03000000):
                continue
            start = group.address + base
            body = [i for i in instructions if start <= i[0] < start + group.size]
            steps, stopped = arm64_prologue_rows(body)
            last = max(a for a, _ in group.changes) + base
            rows = [(start, "SP+0", {})] + arm64_rows(steps, stopped or start + group.size)
            for address, cfa_text, registers in rows:
                if address > last:
                    break
                rules = sym.cfi_rules_at(address - base)
                compare_row(report, f"{name} prologue {address - base:x}", cpu, 64, cfa_text, registers, rules)
                checked["arm64 prologue rows (LLVM's disassembly)"] += 1
            if not rows or rows[-1][0] < last:
                report.fail(f"{name} {group.address:x}: rows past what the disassembly's prologue implies")
    if fixture["oracle_object"] and cpu == "x86_64":
        object_symbols = symbols(fixture["oracle_object"])
        binary_symbols = symbols(binary)
        by_object_address = {}
        for symbol, address in object_symbols.items():
            if symbol in binary_symbols:
                by_object_address.setdefault(address, binary_symbols[symbol])
        for section, start, end, rows in oracles.unwind_tables(fixture["oracle_object"]):
            if section != "eh-frame" or start not in by_object_address:
                continue
            function = by_object_address[start] - base
            group = next((g for g in sym.cfi if g.address == function), None)
            if group is None or not group.changes:
                continue  # no prologue rows of ours (DWARF mode, or the body from the start)
            last = max(a for a, _ in group.changes)
            for address, cfa_text, registers in rows:
                rva = function + (address - start)
                if rva > last:
                    continue
                rules = sym.cfi_rules_at(rva)
                compare_row(report, f"{name} prologue {rva:x}", cpu, 64, cfa_text, registers, rules)
                checked["x86_64 prologue rows (the function's DWARF CFI)"] += 1
    return checked


# ---------------------------------------------------------------- minidump
class MacThread(core_to_minidump.Core):
    """One x86_64 thread at `pc`, with a stack of zeros."""

    def __init__(self, pc, sp):
        self.data = bytes(16 * 1024)
        self.is64 = True
        self.machine = core_to_minidump.EM_X86_64
        regs = [0] * 27
        regs[16], regs[19] = pc, sp
        self.threads = [{"tid": 1, "signal": 11, "regs": regs}]
        self.segments = [(sp - 0x2000, len(self.data), 0, len(self.data), 6)]
        self.files = []
        self.siginfo = None


def mac_codeview(uuid_hex, name):
    """RSDS as Breakpad's Mac client writes it: the UUID's bytes as a GUID's
    fields (data1..3 big-endian numbers), age 0."""
    u = bytes.fromhex(uuid_hex)
    guid = struct.pack("<IHH", int.from_bytes(u[0:4], "big"), int.from_bytes(u[4:6], "big"),
                       int.from_bytes(u[6:8], "big")) + u[8:16]
    return b"RSDS" + guid + struct.pack("<I", 0) + name.encode() + b"\0"


def check_minidump(args, report, fixture, store, sym, tmp):
    leaf = next((f for f in sym.funcs if f.name == "leaf"), None)
    if leaf is None:
        report.fail(f"{fixture['name']}: no FUNC leaf")
        return
    base = 0x10a000000
    uuid = next(iter(mf.uuids(fixture["binary"]).values()))
    name = os.path.basename(fixture["binary"])
    thread = MacThread(base + leaf.address + 1, 0x7ff7bfe00000)
    dump_path = os.path.join(tmp, "mac.dmp")
    with open(dump_path, "wb") as fh:
        fh.write(core_to_minidump.convert(thread, modules=[(base, 0x10000, "/Applications/" + name,
                                                            mac_codeview(uuid, name))],
                                          platform=0x8101))
    p = run(args.symtool, "stackwalk", "--store", store, "--json", dump_path)
    if p.returncode != 0:
        report.fail(f"macOS minidump: symtool stackwalk: {p.stderr.strip()}")
        return
    walk = json.loads(p.stdout)
    frames = walk["threads"][0]["frames"] if walk.get("threads") else []
    if not frames or frames[0].get("function") != "leaf":
        report.fail(f"macOS minidump: frame 0 is {frames[:1]}, want leaf from the store by its UUID")
    else:
        report.note(f"a macOS minidump's module found by its UUID: frame 0 {frames[0]['function']}")


# ---------------------------------------------------------------- bad input
def check_bad_input(args, report, fixture, tmp):
    good = open(fixture["binary"], "rb").read()
    cases = {"truncated": good[:100]}
    broken = bytearray(good)
    struct.pack_into("<I", broken, 20, 0x7FFFFFF0)  # sizeofcmds past the file
    cases["load commands past the end"] = bytes(broken)
    fat = bytearray(struct.pack(">II", 0xCAFEBABE, 1) + struct.pack(">iiIII", 0x01000007, 3, 0x40000000, 4096, 12))
    cases["slice past the end"] = bytes(fat) + good[:64]
    for label, data in cases.items():
        path = os.path.join(tmp, "bad-" + label.replace(" ", "-"))
        with open(path, "wb") as fh:
            fh.write(data)
        p = run(args.dump_syms, path)
        lines = p.stderr.strip().splitlines()
        if p.returncode != 1 or len(lines) != 1 or path not in lines[0] or p.stdout:
            report.fail(f"{label}: exit {p.returncode}, stderr {p.stderr.strip()!r}")
    # A damaged __unwind_info: its first page offset points anywhere.
    out = mf.sh(f"{LLVM}/llvm-objdump", "--macho", "--section-headers", fixture["binary"])
    m = re.search(r"__unwind_info\s+([0-9a-f]+)\s+([0-9a-f]+)", out)
    if not m:
        report.fail("no __unwind_info to damage")
        return
    address = int(m.group(2), 16)
    offset = address - text_address(fixture["binary"])  # __TEXT starts the file
    broken = bytearray(good)
    index_offset = struct.unpack_from("<I", broken, offset + 20)[0]
    struct.pack_into("<I", broken, offset + index_offset + 4, 0xFFFFFF00)
    path = os.path.join(tmp, "bad-unwind-info")
    with open(path, "wb") as fh:
        fh.write(broken)
    p = run(args.dump_syms, "-v", path)
    if p.returncode != 0 or "__unwind_info" not in p.stderr or "MODULE mac" not in p.stdout:
        report.fail(f"damaged __unwind_info: exit {p.returncode}, {p.stderr.strip()[-300:]!r}")


def main():
    args = arguments(lambda p: (p.add_argument("--symtool", required=True),
                                p.add_argument("--symstore", required=True),
                                p.add_argument("--sentry-cli", required=True)))
    report = Report("Mach-O and dSYM")
    tmp = tempfile.mkdtemp()
    try:
        fixtures = mf.build(tmp)
        store = os.path.join(tmp, "store")
        lines_checked, unwind_checked = 0, Counter()
        for fixture in fixtures:
            sym, p = dump(args, "-d", fixture["binary"])
            mf.sh(args.dump_syms, "-d", "--store", store, fixture["binary"])
            check_identity(report, fixture, sym)
            if not sym.funcs:
                report.fail(f"{fixture['name']}: no FUNC from its dSYM ({p.stderr.strip()})")
            lines_checked += check_lines(args, report, fixture, store, sym)
            unwind_checked += check_unwind(report, fixture, sym)
            for problem in sym.structural_problems()[:3]:
                report.fail(f"{fixture['name']}: {problem}")
        report.note(f"{len(fixtures)} fixtures: {lines_checked} addresses equal llvm-symbolizer on the dSYM")
        for what, count in sorted(unwind_checked.items()):
            report.note(f"{count} {what} equal the oracle")
            if count == 0:
                report.fail(f"no {what} checked")
        if len(unwind_checked) < 4:
            report.fail(f"unwind checks made: {dict(unwind_checked)}")

        # sentry-cli reads every file the store holds; symtool validate finds nothing wrong.
        files = [os.path.join(d, n) for d, _, names in os.walk(store) for n in names if n.endswith(".sym")]
        p = run(args.symtool, "validate", *files)
        if p.returncode != 0:
            report.fail(f"symtool validate: {p.stdout[-500:]}")
        for path in files:
            check = run(args.sentry_cli, "debug-files", "check", path)
            if check.returncode != 0 or "Usable: yes" not in check.stdout:
                report.fail(f"sentry-cli rejects {path}: {check.stdout[-300:]} {check.stderr[-300:]}")

        # A universal file: --arch, the store, dSYMs found by UUID.
        release, universal = mf.build_universal(tmp, fixtures)
        ids = mf.uuids(universal)
        p = run(args.dump_syms, universal)
        if p.returncode != 1 or "x86_64" not in p.stderr or "arm64" not in p.stderr or "--arch" not in p.stderr:
            report.fail(f"universal without --arch: exit {p.returncode}, {p.stderr.strip()!r}")
        for arch, uuid in ids.items():
            sym, _ = dump(args, "--arch", arch, universal, os.path.join(release, "dsyms", "universal.dSYM"))
            if sym.module[3] != uuid + "0" or not sym.funcs:
                report.fail(f"--arch {arch}: MODULE {sym.module}, {len(sym.funcs)} FUNCs")
        release_store = os.path.join(tmp, "release-store")
        manifest = os.path.join(tmp, "manifest.json")
        p = run(args.symstore, "add", release_store, release, "--manifest", manifest, "-d")
        entries = json.load(open(manifest))["entries"] if os.path.exists(manifest) else []
        written = {e.get("arch"): e for e in entries if e["status"] == "written"}
        if p.returncode != 0 or set(written) != set(ids):
            report.fail(f"symstore add of a universal file: exit {p.returncode}, {entries}")
        for arch, entry in written.items():
            if entry["debug_id"] != ids[arch] + "0" or entry.get("debug_info", {}).get("from") != "debug-file":
                report.fail(f"symstore {arch}: {entry}")
            p = run(args.symtool, "lookup", release_store, "--module", "universal", "--id", entry["debug_id"],
                    "--json", hex(min(f.address for f in dump(args, "--arch", arch, universal,
                                                               os.path.join(release, "dsyms"))[0].funcs)))
            if p.returncode != 0 or '"frames"' not in p.stdout:
                report.fail(f"symtool lookup in the stored {arch} slice: {p.stdout} {p.stderr}")
        report.note(f"a universal file of {', '.join(sorted(ids))}: each slice stored with its dSYM found by UUID")

        # A dSYM alone, and as a debug directory.
        first = fixtures[0]
        with_binary, _ = dump(args, "-d", first["binary"])
        alone, _ = dump(args, "-d", first["binary"] + ".dSYM")
        if alone.module != with_binary.module or [f.name for f in alone.funcs] != [f.name for f in with_binary.funcs]:
            report.fail(f"the dSYM alone: {alone.module}, {len(alone.funcs)} FUNCs")
        moved = os.path.join(tmp, "elsewhere.dSYM")
        shutil.move(first["binary"] + ".dSYM", moved)
        as_dir, _ = dump(args, "-d", first["binary"], moved)
        if [f.name for f in as_dir.funcs] != [f.name for f in with_binary.funcs]:
            report.fail("the dSYM as a debug directory: other FUNCs")
        shutil.move(moved, first["binary"] + ".dSYM")

        # --names breakpad applies to Mach-O.
        shapes = next(f for f in fixtures if f["name"] == "shapes.x86_64-macos.O2.fp")
        llvm_names, _ = dump(args, shapes["binary"])
        breakpad_names, _ = dump(args, "--names", "breakpad", shapes["binary"])
        if len(llvm_names.funcs) != len(breakpad_names.funcs) or not any(
                "(anonymous namespace)" in f.name for f in breakpad_names.funcs):
            report.fail(f"--names breakpad: {[f.name for f in breakpad_names.funcs]}")

        program = next(f for f in fixtures if f["name"] == "program.x86_64-macos.O2.fp")
        check_minidump(args, report, program, store, dump(args, program["binary"])[0], tmp)
        check_bad_input(args, report, program, tmp)
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
