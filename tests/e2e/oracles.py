"""The independent tools the tests judge our output by: llvm-symbolizer-19
and llvm-dwarfdump-19 (LLVM's parsers), and elfutils' eu-addr2line and
readelf (not LLVM's)."""
import json
import os
import re
import subprocess
from collections import defaultdict

LLVM = "/usr/lib/llvm-19/bin"


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, errors="surrogateescape")
    return p.stdout


def is_pe(binary):
    with open(binary, "rb") as fh:
        return fh.read(2) == b"MZ"


def pe_headers(binary):
    """llvm-readobj-19's file headers of a PE: ImageBase, Machine, 64-bit."""
    out = run([f"{LLVM}/llvm-readobj", "--file-headers", binary])
    machine = int(re.search(r"Machine: \S+ \((0x[0-9A-F]+)\)", out).group(1), 16)
    return {"base": int(re.search(r"^\s*ImageBase: (0x[0-9A-F]+)", out, re.M).group(1), 16),
            "machine": machine, "is64": "PE32+" in out or machine in (0x8664, 0xAA64)}


def word_bits(binary):
    if is_pe(binary):
        return 64 if pe_headers(binary)["is64"] else 32
    return 64 if "ELF64" in run(["readelf", "-h", binary]) else 32


def load_address(binary):
    """Where a symbol file's addresses count from: the first PT_LOAD's
    address, or a PE's ImageBase (its DWARF holds virtual addresses)."""
    if is_pe(binary):
        return pe_headers(binary)["base"]
    for line in run(["readelf", "-lW", binary]).splitlines():
        parts = line.split()
        if parts and parts[0] == "LOAD":
            return int(parts[2], 16)
    return 0


def build_id(binary):
    m = re.search(r"Build ID:\s*([0-9a-f]+)", run(["readelf", "-n", binary]))
    return m.group(1) if m else None


def has_line_table(binary):
    if is_pe(binary):
        return ".debug_line" in run([f"{LLVM}/llvm-objdump", "-h", binary])
    return ".debug_line" in run(["readelf", "-SW", binary])


def pe32_c_name(name):
    """A name as llvm-symbolizer-19 prints it for an i386 COFF image: it takes
    every unmangled name for an assembler name and strips the C decoration
    (`_f`, `_f@8`, `@f@8`), DWARF's DW_AT_name included."""
    if not name or name.startswith("?"):
        return name
    m = re.fullmatch(r"[_@]?(.+?)(@\d+)?", name)
    return m.group(1) if name[0] in "_@" or m.group(2) else name


def pe_function_symbols(binary):
    """(address, 0, name) of a PE's COFF code symbols as llvm-readobj-19
    lists them: functions (static ones too) and external labels of code
    sections; COFF symbols have no size. x86's C decoration taken off."""
    headers = pe_headers(binary)
    x86 = headers["machine"] == 0x14C
    sections = {}
    for block in run([f"{LLVM}/llvm-readobj", "--sections", binary]).split("Section {")[1:]:
        number = re.search(r"Number: (\d+)", block)
        rva = re.search(r"VirtualAddress: (0x[0-9A-F]+)", block)
        code = "IMAGE_SCN_CNT_CODE" in block or "IMAGE_SCN_MEM_EXECUTE" in block
        if number and rva:
            sections[int(number.group(1))] = (int(rva.group(1), 16), code)
    out = set()
    for block in run([f"{LLVM}/llvm-readobj", "--symbols", binary]).split("Symbol {")[1:]:
        name = re.search(r"Name: (.*)", block)
        value = re.search(r"Value: (\d+)", block)
        section = re.search(r"Section: .*\((\d+)\)", block)
        if not (name and value and section) or int(section.group(1)) not in sections:
            continue
        rva, code = sections[int(section.group(1))]
        function = "ComplexType: Function" in block
        external = "StorageClass: External" in block
        name = name.group(1).strip()
        if code and (function or external) and not name.startswith("."):
            out.add((headers["base"] + rva + int(value.group(1)), 0, pe32_c_name(name) if x86 else name))
    return sorted(out)


def function_symbols(binary):
    """(address, size, name) of defined STT_FUNC symbols with a size."""
    if is_pe(binary):
        return pe_function_symbols(binary)
    out = set()
    for line in run(["readelf", "-sW", binary]).splitlines():
        p = line.split()
        if len(p) >= 8 and p[3] in ("FUNC", "IFUNC") and p[6] != "UND":
            try:
                out.add((int(p[1], 16), int(p[2], 0), p[7].split("@")[0]))
            except ValueError:
                pass
    return sorted(out)


def symbolize(binary, addresses, inlining=False):
    """address -> list of frames {FunctionName, FileName, Line, StartAddress}, innermost first."""
    result = {}
    for i in range(0, len(addresses), 5000):
        chunk = addresses[i:i + 5000]
        out = run([f"{LLVM}/llvm-symbolizer", f"--obj={binary}", "--output-style=JSON", "--functions=linkage",
                   "--demangle", f"--inlining={'true' if inlining else 'false'}"],
                  "\n".join(hex(a) for a in chunk))
        for line in out.splitlines():
            if not line.strip():
                continue
            records = json.loads(line)
            for record in records if isinstance(records, list) else [records]:
                result[int(record["Address"], 16)] = record.get("Symbol") or []
    return result


NAME_ATTRIBUTE = re.compile(r"DW_AT_(name|linkage_name)\s+\(\"(.*)\"\)"
                            r"|DW_AT_(abstract_origin|specification)\s+\(0x[0-9a-f]+ \"(.*)\"\)")


def _subprogram_names(lines):
    """The names of the last DW_TAG_subprogram in llvm-dwarfdump's `lines`."""
    names, inside = set(), False
    for line in lines:
        if "DW_TAG_" in line:
            if "DW_TAG_subprogram" in line:
                names, inside = set(), True
            else:
                inside = False
            continue
        m = NAME_ATTRIBUTE.search(line)
        if inside and m:
            if m.group(1) == "linkage_name":
                names.add(demangle_all([m.group(2)])[0])
            else:
                names.add(m.group(2) or m.group(4))
    return names


def dwarf_subprogram_names(binary, address):
    """The names llvm-dwarfdump-19 gives the subprogram at `address`
    (DW_AT_name, DW_AT_linkage_name demangled, the origin's name): the
    DWARF's own word where llvm-symbolizer prefers a symbol (a COFF image's
    symbols have no size, so it takes the nearest one below for any code).
    --lookup prints the subprogram, or only the inlined call within it: its
    parents then hold the subprogram."""
    out = run([f"{LLVM}/llvm-dwarfdump", f"--lookup={address:#x}", binary]).splitlines()
    names = _subprogram_names(out)
    if not names:
        inlined = [l for l in out if "DW_TAG_inlined_subroutine" in l or "DW_TAG_lexical_block" in l]
        if inlined:
            offset = inlined[0].split(":")[0].strip()
            names = _subprogram_names(run([f"{LLVM}/llvm-dwarfdump", f"--debug-info={offset}",
                                           "--show-parents", binary]).splitlines())
    return {normalize(n) for n in names}


def addr2line(binary, addresses):
    """elfutils' view: address -> (function, file, line) of the innermost frame."""
    result = {}
    for i in range(0, len(addresses), 2000):
        chunk = addresses[i:i + 2000]
        out = run(["eu-addr2line", "-e", binary, "-f", "-a"] + [hex(a) for a in chunk]).splitlines()
        k = 0
        while k + 2 < len(out) + 1 and k < len(out):
            address = int(out[k], 16)
            function = out[k + 1] if k + 1 < len(out) else "??"
            where = out[k + 2] if k + 2 < len(out) else "??:0"
            m = re.match(r"^(.*?):(\d+)(?::\d+)?$", where)
            result[address] = (function, m.group(1), int(m.group(2))) if m else (function, where, 0)
            k += 3
    return result


CLONE_SUFFIX = re.compile(r"(\.(constprop|isra|part|cold|lto_priv|localalias|llvm)(\.\d+)?)+$"
                          r"|( \((\.(constprop|isra|part|cold|lto_priv|localalias|llvm)(\.\d+)?)+\))+$")


def normalize(name):
    """One spelling for compiler clones of a function: `f (.cold)`, `f.isra.0` -> f."""
    name = re.sub(r"\s+", " ", name or "").strip()
    return CLONE_SUFFIX.sub("", name)


def demangle_all(names):
    out = run([f"{LLVM}/llvm-cxxfilt"], "\n".join(names)).splitlines()
    return out if len(out) == len(names) else list(names)


def symbol_aliases(binary):
    """address -> the normalized, demangled names of every function symbol there."""
    symbols = function_symbols(binary)
    names = demangle_all([s[2] for s in symbols])
    table = defaultdict(set)
    for (address, _, _), name in zip(symbols, names):
        table[address].add(normalize(name))
    return table


# ------------------------------------------------------------- unwind rows
# llvm-dwarfdump's register names -> DWARF numbers, per CPU.
LLVM_REGISTERS = {
    "x86_64": {**{n: i for i, n in enumerate(["RAX", "RDX", "RCX", "RBX", "RSI", "RDI", "RBP", "RSP"])},
               **{f"R{i}": i for i in range(8, 16)}, "RIP": 16},
    "x86": {n: i for i, n in enumerate(["EAX", "ECX", "EDX", "EBX", "ESP", "EBP", "ESI", "EDI", "EIP"])},
    "arm": {**{f"R{i}": i for i in range(13)}, "SP": 13, "LR": 14, "PC": 15,
            **{f"D{i}": 256 + i for i in range(32)}},
    "arm64": {**{f"W{i}": i for i in range(31)}, **{f"X{i}": i for i in range(31)}, "FP": 29, "LR": 30,
              "WSP": 31, "SP": 31, **{f"D{i}": 64 + i for i in range(32)}, **{f"Q{i}": 64 + i for i in range(32)},
              **{f"B{i}": 64 + i for i in range(32)}, **{f"H{i}": 64 + i for i in range(32)},
              **{f"S{i}": 64 + i for i in range(32)}},
    "riscv": {**{f"X{i}": i for i in range(32)}, **{f"F{i}_D": 32 + i for i in range(32)},
              **{f"F{i}_F": 32 + i for i in range(32)}, **{f"F{i}_H": 32 + i for i in range(32)}},
    "mips": {**{n: i for i, n in enumerate(
        ["ZERO", "AT", "V0", "V1", "A0", "A1", "A2", "A3", "T0", "T1", "T2", "T3", "T4", "T5", "T6", "T7",
         "S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7", "T8", "T9", "K0", "K1", "GP", "SP", "FP", "RA"])},
             **{f"{n}_64": i for i, n in enumerate(
                 ["ZERO", "AT", "V0", "V1", "A0", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "T0", "T1", "T2", "T3",
                  "S0", "S1", "S2", "S3", "S4", "S5", "S6", "S7", "T8", "T9", "K0", "K1", "GP", "SP", "FP", "RA"])},
             **{f"D{i}_64": 32 + i for i in range(32)}, **{f"F{i}": 32 + i for i in range(32)}},
}
LLVM_REGISTERS["riscv64"] = LLVM_REGISTERS["riscv"]

ROW = re.compile(r"^\s*0x([0-9a-f]+): CFA=(.*)$")
FDE = re.compile(r"^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\.\.\.([0-9a-f]+)")


def unwind_tables(binary):
    """[(section, start, end, [(address, cfa_text, {register: location_text})])] per FDE,
    as llvm-dwarfdump prints them (.eh_frame first)."""
    fdes = []
    for section in ("eh-frame", "debug-frame"):
        current = None
        for line in run([f"{LLVM}/llvm-dwarfdump", f"--{section}", binary]).splitlines():
            m = FDE.match(line)
            if m:
                current = (section, int(m.group(1), 16), int(m.group(2), 16), [])
                fdes.append(current)
                continue
            if re.match(r"^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ CIE", line):
                current = None
                continue
            m = ROW.match(line)
            if not m or current is None:
                continue
            cfa, _, rest = m.group(2).partition(": ")
            registers = {}
            for item in re.split(r", (?=[A-Za-z][A-Za-z0-9_]*=)", rest) if rest else []:
                name, _, location = item.partition("=")
                registers[name] = location
            current[3].append((int(m.group(1), 16), cfa, registers))
    return fdes


def pe_runtime_functions(pe, base):
    """[(start RVA, end RVA)] of a PE's exception directory as `llvm-readobj
    --unwind` decodes it: x64 RUNTIME_FUNCTIONs (start and end) and ARM64
    entries (start and FunctionLength, packed or .xdata)."""
    out = run([f"{LLVM}/llvm-readobj", "--unwind", pe])
    if "COFF-ARM64" in out:
        functions = []
        for block in out.split("RuntimeFunction {")[1:]:
            start = re.search(r"Function: (?:.*\()?(0x[0-9A-Fa-f]+)", block)
            length = re.search(r"FunctionLength: (\d+)", block)
            if start and length:
                functions.append((int(start.group(1), 16) - base, int(start.group(1), 16) - base +
                                  int(length.group(1))))
        return sorted(functions)
    starts = [int(v, 16) - base for v in re.findall(r"StartAddress: .*\((0x[0-9A-F]+)\)", out)]
    ends = [int(v, 16) - base for v in re.findall(r"EndAddress: .*\((0x[0-9A-F]+)\)", out)]
    return sorted(zip(starts, ends))
