#!/usr/bin/env python3
"""PDB and PE input, judged by LLVM's own tools on the fixtures
pdb_fixtures.py builds (clang-19 + lld-link-19, x86, x86_64 and arm64):

- MODULE / INFO CODE_ID: the GUID and age `llvm-pdbutil dump --summary`
  prints, the machine, TimeDateStamp and SizeOfImage of
  `llvm-readobj --file-headers`;
- every byte of every FUNC: function, file, line and inline frames as
  `llvm-symbolizer --inlining` gives them for the PE (-d); without -d,
  the function, file and line `llvm-symbolizer --no-inlines` gives (a
  function's own lines, at an inlined call the call's line); the same
  without -d for the MSVC-built x64 pair of ../shared/windows;
- inline sites named by cross-module ids (as MSVC /GL writes them;
  cross_module_rewrite.py makes them from the two-module fixtures): the
  ids resolve, through the tables `llvm-pdbutil dump --xmi --xme` prints,
  to the IPI ids the original PDB's sites had, no `<inlinee 0x8...>` is
  written, and every byte's frames are what `llvm-symbolizer --inlining`
  gives for the original pair;
- FUNC and PUBLIC records: one per procedure and per code public that
  `llvm-pdbutil dump --symbols --publics` lists, at its address, named alike;
- STACK WIN: one record per entry `llvm-pdbutil dump --fpo` lists, with the
  same fields and program string;
- STACK CFI (x86_64): the rules, evaluated by the stack walker's postfix
  evaluator (tests/tools/cfi_eval) on made-up machine states, recover what
  the unwind codes `llvm-readobj --unwind` prints say, at every prologue
  step and in the body;
- the .pdb and the .exe give the same file, byte-identical across runs and
  -j values, ../shared/tools/symcheck.py validate passes each, and the
  project's parser reads it back into the same file (sym_roundtrip);
- names as Breakpad's Windows dumper writes them, in both styles: x86 FUNC
  and PUBLIC parameter sizes from the stdcall/fastcall decorations of the
  publics `llvm-pdbutil dump --publics` lists; no MSVC anonymous namespace
  ("?A0x<key>") anywhere, also in copies of the PDBs respelled as MSVC
  writes them (procedure, id and type records), where `llvm-undname`
  gives the spelling; and in copies without type information (an empty TPI
  stream, procedures of no type), `--names breakpad` writes the procedure's
  own name, never DIA's "static  f()".
"""
import collections
import os
import re
import shutil
import struct
import subprocess
import tempfile

import common
import cross_module_rewrite
import omap_rewrite  # (its MSF reader and writer)
import oracles
import symfile
import unwind_eval

LLVM = "/usr/lib/llvm-19/bin"


run = common.run_checked


def dump_text(args, path, *options):
    p = subprocess.run([args.dump_syms, path, *options], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"dump_syms {path} failed: {p.stderr.strip()}")
    return p.stdout


def load_fixtures(args):
    import json
    with open(os.path.join(args.fixtures, "pdb", "manifest.json")) as fh:
        return [f for f in json.load(fh) if not args.only or args.only in f["name"]]


# ----------------------------------------------------------------- oracles
def pe_headers(image):
    out = run([f"{LLVM}/llvm-readobj", "--file-headers", "--sections", image])
    value = lambda key: re.search(rf"^\s*{key}: .*?\(?(0x[0-9A-Fa-f]+|\d+)\)?$", out, re.M).group(1)
    sections = [int(v, 16) for v in re.findall(r"^\s*VirtualAddress: (0x[0-9A-Fa-f]+)", out, re.M)]
    return {"machine": int(re.search(r"Machine: \S+ \((0x[0-9A-F]+)\)", out).group(1), 16),
            "timestamp": int(re.search(r"TimeDateStamp: .*\((0x[0-9A-F]+)\)", out).group(1), 16),
            "size_of_image": int(value("SizeOfImage"), 0), "image_base": int(value("ImageBase"), 0),
            "sections": sections}


def pdb_summary(pdb):
    out = run([f"{LLVM}/llvm-pdbutil", "dump", "--summary", pdb])
    guid = re.search(r"GUID: \{([0-9A-F-]+)\}", out).group(1)
    age = int(re.search(r"Age: (\d+)", out).group(1))
    return guid, age


def breakpad_id(guid_text, age):
    """The GUID as llvm-pdbutil prints it (its canonical text form, which is
    already Data1-Data2-Data3-Data4 in that order) plus the age in hex."""
    return guid_text.replace("-", "") + format(age, "x")


def pdb_procedures_and_publics(pdb, sections):
    out = run([f"{LLVM}/llvm-pdbutil", "dump", "--symbols", "--publics", pdb])
    procs, publics = [], []
    lines = out.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r"\| S_(?:G|L)PROC32(?:_ID)? \[size = \d+\] `(.*)`$", line)
        if m and i + 1 < len(lines):
            a = re.search(r"addr = (\d+):(\d+), code size = (\d+)", lines[i + 1])
            if a and int(a.group(3)):
                procs.append((sections[int(a.group(1)) - 1] + int(a.group(2)), int(a.group(3)), m.group(1)))
        m = re.search(r"\| S_PUB32 \[size = \d+\] `(.*)`$", line)
        if m and i + 1 < len(lines):
            a = re.search(r"flags = (.*), addr = (\d+):(\d+)", lines[i + 1])
            if a and ("function" in a.group(1) or "code" in a.group(1)):
                publics.append((sections[int(a.group(2)) - 1] + int(a.group(3)), m.group(1)))
    return procs, publics


def lines_sharing_an_offset(pdb, sections):
    """RVA -> the lines of several C13 rows at that one offset. A row
    followed by another at the same offset is empty; llvm-symbolizer still
    answers its line for that exact address (and the last row's for the
    rest), so either line is right there."""
    out = run([f"{LLVM}/llvm-pdbutil", "dump", "-l", pdb])
    shared, base = {}, None
    for line in out.splitlines():
        m = re.match(r"^\s+(\d+):([0-9A-F]+)-[0-9A-F]+, line/addr entries", line)
        if m:
            base = sections[int(m.group(1)) - 1]  # rows give section offsets
            rows = {}
            continue
        if base is None:
            continue
        for number, offset in re.findall(r"(\d+) ([0-9A-F]{8})", line):
            rva = base + int(offset, 16)
            rows.setdefault(rva, []).append(int(number))
            if len(rows[rva]) > 1:
                shared[rva] = set(rows[rva])
    return shared


def fpo_entries(pdb):
    """(type, rva, code, prolog, params, saved, locals, stack, program) per row."""
    out = run([f"{LLVM}/llvm-pdbutil", "dump", "--fpo", pdb])
    rows, section = [], None
    for line in out.splitlines():
        if "Old FPO Data" in line:
            section = 0
        elif "New FPO Data" in line:
            section = 4
        cells = [c.strip() for c in line.split("|")]
        if section == 4 and len(cells) == 11 and re.match(r"^[0-9A-F]{8}$", cells[0]):
            rva, code, locals_, params, stack, prolog, saved = (int(cells[0], 16), *map(int, cells[1:7]))
            rows.append((4, rva, code, prolog, params, saved, locals_, stack, cells[10]))
        elif section == 0 and len(cells) >= 8 and re.match(r"^[0-9A-F]{8}$", cells[0]):
            rows.append(("fpo", line))  # old FPO rows: no fixture has them (see docs/PDB.md)
    return rows


def undname(names):
    """MSVC-mangled names demangled by llvm-undname, with the parts
    llvm-symbolizer leaves out left out."""
    if not names:
        return {}
    p = subprocess.run([f"{LLVM}/llvm-undname", "--no-access-specifier", "--no-calling-convention",
                        "--no-return-type", "--no-member-type"], input="\n".join(names) + "\n",
                       capture_output=True, text=True)
    out = [l for l in p.stdout.splitlines() if l.strip()]
    # llvm-undname echoes each input line before its result.
    pairs = dict(zip(out[0::2], out[1::2]))
    return {n: pairs.get(n, n) for n in names}


def undecorate_c(name, x86):
    """32-bit C decorations, as the PE/COFF specification describes them."""
    if not x86 or name.startswith("?"):
        return name
    if name[:1] in "_@":
        name = name[1:]
    m = re.match(r"^(.*)@(\d+)$", name)
    if m:
        name = m.group(1)
    return name.rstrip("@")


# ------------------------------------------------------------ x64 unwind
def readobj_unwind(image, image_base):
    out = run([f"{LLVM}/llvm-readobj", "--unwind", image])
    functions, current = [], None
    for line in out.splitlines():
        line = line.strip()
        if m := re.match(r"StartAddress: .*\((0x[0-9A-F]+)\)", line):
            current = {"start": int(m.group(1), 16) - image_base, "codes": [], "frame_register": None,
                       "frame_offset": 0, "chained": False}
            functions.append(current)
        elif m := re.match(r"EndAddress: .*\((0x[0-9A-F]+)\)", line):
            current["end"] = int(m.group(1), 16) - image_base
        elif m := re.match(r"PrologSize: (\d+)", line):
            current["prolog"] = int(m.group(1))
        elif m := re.match(r"FrameRegister: (\w+)", line):
            current["frame_register"] = None if m.group(1) == "-" else m.group(1).lower()
        elif m := re.match(r"FrameOffset: (0x[0-9A-F]+)", line):
            current["frame_offset"] = int(m.group(1), 16)
        elif "CHAININFO" in line or line.startswith("Chained"):
            current["chained"] = True
        elif m := re.match(r"0x([0-9A-F]+): (\w+)(.*)$", line):
            current["codes"].append((int(m.group(1), 16), m.group(2), m.group(3).strip()))
    return functions


def expected_unwind(function, offset, state):
    """What Windows' unwinder recovers at `offset` into the function: the
    caller's rsp and rip and each restored register, from the codes
    llvm-readobj printed (latest first), undone one by one."""
    names = {v: k for k, v in unwind_eval.BREAKPAD_NAMES["x86_64"].items()}
    regs = {name: state.register(number) for name, number in names.items()}
    mem = state.memory
    restored = {}
    done = [c for c in function["codes"] if c[0] <= offset]
    # With a frame register set up, the fixed frame is found from it.
    if function["frame_register"] and any(c[1] == "SET_FPREG" for c in done):
        establisher = (regs["$" + function["frame_register"]] - 16 * function["frame_offset"]) & state.mask
    else:
        establisher = regs["$rsp"]
    rsp = regs["$rsp"]
    for _, op, operand in done:
        if op == "PUSH_NONVOL":
            reg = "$" + re.search(r"reg=(\w+)", operand).group(1).lower()
            restored[reg] = mem(rsp)
            rsp = (rsp + 8) & state.mask
        elif op in ("ALLOC_SMALL", "ALLOC_LARGE"):
            rsp = (rsp + int(re.search(r"size=(\w+)", operand).group(1), 0)) & state.mask
        elif op == "SET_FPREG":
            rsp = establisher
        elif op in ("SAVE_NONVOL", "SAVE_NONVOL_FAR"):
            reg = "$" + re.search(r"reg=(\w+)", operand).group(1).lower()
            restored[reg] = mem((establisher + int(re.search(r"offset=(\w+)", operand).group(1), 0)) & state.mask)
        elif op in ("SAVE_XMM128", "SAVE_XMM128_FAR"):
            pass
        else:
            return None  # not in any fixture; the unit tests cover the rest
    rip = mem(rsp)
    restored[".cfa"] = (rsp + 8) & state.mask
    restored[".ra"] = rip
    return restored


def evaluate_rules(args, sym_path, seed, rvas):
    out = run([args.cfi_eval, sym_path, str(seed), *(format(r, "x") for r in rvas)])
    result = {}
    for line in out.splitlines():
        parts = line.split()
        rva = int(parts[0], 16)
        result[rva] = None if parts[1:] == ["none"] else {
            k: int(v, 16) for k, v in (p.split("=") for p in parts[1:])}
    return result


# --------------------------------------------------------------- checks
def compare_with_symbolizer(report, name, image, base, sym, shared, inlining, totals, prefix,
                            unlined=False, lines_only=False):
    """Every byte of every FUNC of `sym` against llvm-symbolizer on `image`
    (with or without its inline frames); counts into totals[prefix + ...].
    `unlined`: code no line row covers (MSVC's CRT) has no line record, where
    the symbolizer answers line 0. `lines_only`: files and lines, not names
    (which test_msvc_pdbs judges against Breakpad's)."""
    rvas = sorted({a for f in sym.funcs for a in range(f.address, f.address + f.size)})
    frames = oracles.symbolize(image, [base + a for a in rvas], inlining=inlining)
    for rva in rvas:
        ours = sym.inline_stack(rva)
        theirs = [(f["FunctionName"], f["FileName"], f["Line"]) for f in frames.get(base + rva, [])]
        if lines_only:
            ours = ours and [("",) + frame[1:] for frame in ours]
            theirs = [("",) + frame[1:] for frame in theirs]
        totals[prefix + "addresses"] += 1
        if rva in shared and ours and theirs and len(ours) == len(theirs) == 1 and \
                ours[0][:2] == theirs[0][:2] and {ours[0][2], theirs[0][2]} <= shared[rva]:
            totals[prefix + "shared_offsets"] += 1
            theirs = ours
        if unlined and not ours and len(theirs) == 1 and theirs[0][1:] == ("", 0):
            totals[prefix + "unlined"] += 1
            theirs = ours
        if ours == theirs:
            totals[prefix + "addresses_agree"] += 1
            totals[prefix + "inline_frames"] += max(0, len(theirs or []) - 1)
        else:
            report.fail(f"{name} {rva:#x}{'' if inlining else ' (no -d)'}: ours {ours} symbolizer {theirs}")


def check_fixture(args, report, fixture, totals):
    name, image, pdb = fixture["name"], fixture["image"], fixture["pdb"]
    x86 = fixture["cpu"] == "x86"
    text = dump_text(args, image, "-d")
    # The PDB alone finds the PE beside it: the same file.
    if dump_text(args, pdb, "-d") != text:
        report.fail(f"{name}: the .pdb and the {os.path.splitext(image)[1]} give different files")
    for jobs in ("1", "2"):
        if dump_text(args, image, "-d", "-j", jobs) != text:
            report.fail(f"{name}: output differs with -j {jobs}")
    with tempfile.NamedTemporaryFile("w", suffix=".sym", delete=False) as fh:
        fh.write(text)
        sym_path = fh.name
    try:
        sym = symfile.SymFile(text)
        for problem in sym.structural_problems()[:5]:
            report.fail(f"{name}: {problem}")
        check = subprocess.run(["python3", os.path.join(args.shared, "tools", "symcheck.py"), "validate",
                                sym_path], capture_output=True, text=True)
        if check.returncode != 0:
            report.fail(f"{name}: symcheck validate: {check.stdout.strip().splitlines()[-1:]}")
        else:
            totals["validated"] += 1
        if run([args.roundtrip, sym_path]) != text:
            report.fail(f"{name}: read back and written again, the file differs")

        # MODULE and INFO.
        headers = pe_headers(image)
        guid, age = pdb_summary(pdb)
        cpu = {0x14C: "x86", 0x8664: "x86_64", 0xAA64: "arm64"}[headers["machine"]]
        expected_module = ["MODULE", "windows", cpu, breakpad_id(guid, age), os.path.basename(pdb)]
        if sym.module != expected_module:
            report.fail(f"{name}: {' '.join(sym.module)} != {' '.join(expected_module)}")
        code_id = f"{headers['timestamp']:08X}{headers['size_of_image']:X} {os.path.basename(image)}"
        if sym.info.get("CODE_ID") != code_id:
            report.fail(f"{name}: INFO CODE_ID {sym.info.get('CODE_ID')} != {code_id}")

        # Every byte of every FUNC against llvm-symbolizer: with -d its
        # inline frames, without -d its one frame.
        base = headers["image_base"]
        shared = lines_sharing_an_offset(pdb, headers["sections"])
        compare_with_symbolizer(report, name, image, base, sym, shared, True, totals, "")
        plain_text = dump_text(args, image)
        if any(line.startswith("INLINE") for line in plain_text.splitlines()):
            report.fail(f"{name}: INLINE records without -d")
        compare_with_symbolizer(report, name, image, base, symfile.SymFile(plain_text), shared, False,
                                totals, "plain_")

        # FUNC / PUBLIC against the PDB's procedures and publics.
        procs, publics = pdb_procedures_and_publics(pdb, headers["sections"])
        funcs = {f.address: f for f in sym.funcs}
        # A procedure is named by the public at its address where that one is
        # mangled (it has the parameters; and lld names a scalar deleting
        # destructor's procedure after the destructor), as llvm-symbolizer does.
        demangled = undname([n for _, n in publics if n.startswith("?")])
        mangled_at = {}
        for address, public in publics:
            if public.startswith("?"):
                mangled_at.setdefault(address, demangled[public])
        for address, size, proc in procs:
            totals["procedures"] += 1
            func = funcs.get(address)
            if not func or func.size != size:
                report.fail(f"{name}: procedure {proc} at {address:#x}+{size:#x}: FUNC "
                            f"{(hex(func.address), hex(func.size)) if func else 'missing'}")
            elif func.name != mangled_at.get(address, proc):
                report.fail(f"{name}: procedure {proc} at {address:#x} is FUNC {func.name!r}")
            else:
                totals["procedures_agree"] += 1
        if len(sym.funcs) != len({a for a, _, _ in procs}):
            report.fail(f"{name}: {len(sym.funcs)} FUNC records for {len(procs)} procedures")
        public_at = {a: n for a, n, _ in sym.publics}
        for address, public in publics:
            totals["publics"] += 1
            if address in funcs:
                totals["publics_agree"] += 1  # a FUNC covers it: no PUBLIC, as for ELF
            elif public_at.get(address) == (demangled[public] if public.startswith("?")
                                             else undecorate_c(public, x86)):
                totals["publics_agree"] += 1
            else:
                report.fail(f"{name}: public {public} at {address:#x}: PUBLIC {public_at.get(address)!r}")
        if len(sym.publics) != len({a for a, _ in publics if a not in funcs}):
            report.fail(f"{name}: {len(sym.publics)} PUBLIC records, pdbutil has "
                        f"{len({a for a, _ in publics if a not in funcs})} publics outside FUNCs")

        # STACK WIN against llvm-pdbutil dump --fpo.
        ours = [tuple(r[2:11]) + (" ".join(r[12:]) if r[11] == "1" else r[12],) for r in sym.stack_win]
        ours_set = set(ours)
        for row in fpo_entries(pdb):
            totals["fpo_rows"] += 1
            if row[0] == "fpo":
                report.fail(f"{name}: an old FPO row this test does not read yet: {row[1]}")
                continue
            kind, rva, code, prolog, params, saved, locals_, stack, program = row
            expected = ("4", f"{rva:x}", f"{code:x}", f"{prolog:x}", "0", f"{params:x}", f"{saved:x}",
                        f"{locals_:x}", f"{stack:x}", program.strip())
            if expected in ours_set:
                totals["fpo_agree"] += 1
            else:
                report.fail(f"{name}: FrameData {expected} has no STACK WIN record")
        if len(ours) != len(set(r for r in fpo_entries(pdb))):
            report.fail(f"{name}: {len(ours)} STACK WIN records for {len(fpo_entries(pdb))} FrameData rows")
        if not x86 and sym.stack_win:
            report.fail(f"{name}: STACK WIN in a {fixture['cpu']} module")
        if fixture["cpu"] == "arm64":
            # One STACK CFI INIT per function llvm-readobj decodes from
            # .pdata (test_arm64_pdata walks them against the machine).
            # The rest of each FUNC (leaf functions, which .pdata leaves
            # out) gets Windows' leaf rule: return through lr.
            functions = oracles.pe_runtime_functions(image, headers["image_base"])
            leaf = {".cfa": ["sp", "0", "+"], ".ra": ["x30"]}
            inits = sorted((g.address, g.address + g.size) for g in sym.cfi
                           if not (g.initial == leaf and not g.changes and
                                   (g.address, g.address + g.size) not in functions))
            covered = sorted((g.address, g.address + g.size) for g in sym.cfi)
            uncovered = [f for f in sym.funcs if not any(a <= f.address < b for a, b in covered)]
            if not inits or inits != functions or uncovered:
                report.fail(f"{name}: STACK CFI INIT ranges {inits[:4]} != llvm-readobj's functions "
                            f"{functions[:4]}, or FUNCs without rules: {uncovered[:3]}")

        # STACK CFI against llvm-readobj --unwind.
        if fixture["cpu"] == "x86_64":
            functions = readobj_unwind(image, base)
            if len(sym.cfi) != len(functions):
                report.fail(f"{name}: {len(sym.cfi)} STACK CFI INIT for {len(functions)} RUNTIME_FUNCTIONs")
            for seed in (1, 2, 3):
                state = unwind_eval.MachineState("x86_64", 64, seed)
                probes = []
                for function in functions:
                    offsets = sorted({0, function["prolog"], function["end"] - function["start"] - 1} |
                                     {c[0] for c in function["codes"]})
                    probes += [(function, o) for o in offsets if function["start"] + o < function["end"]]
                got = evaluate_rules(args, sym_path, seed, [f["start"] + o for f, o in probes])
                for function, offset in probes:
                    expected = expected_unwind(function, offset, state)
                    if expected is None:
                        continue
                    rva = function["start"] + offset
                    totals["unwind_states"] += 1
                    actual = got.get(rva)
                    if actual is None:
                        report.fail(f"{name} {rva:#x}: no STACK CFI rules")
                        continue
                    actual = dict(actual)
                    actual[".cfa"], actual[".ra"] = actual.get("$rsp"), actual.get("$rip")
                    wrong = [k for k, v in expected.items() if actual.get(k) != v]
                    if wrong:
                        report.fail(f"{name} {rva:#x} (+{offset:#x}) seed {seed}: {', '.join(wrong)} differ "
                                    f"from the unwind codes {function['codes']}")
                    else:
                        totals["unwind_agree"] += 1
    finally:
        os.unlink(sym_path)


# ------------------------------------------------------- Breakpad's names
def func_and_public_records(text):
    """address -> (parameter size, name) of each FUNC and each PUBLIC."""
    funcs, publics = {}, {}
    for line in text.splitlines():
        f = line.split(" ")
        if f[0] not in ("FUNC", "PUBLIC"):
            continue
        if f[1] == "m":
            f = [f[0]] + f[2:]
        if f[0] == "FUNC":
            funcs[int(f[1], 16)] = (int(f[3], 16), " ".join(f[4:]))
        else:
            publics[int(f[1], 16)] = (int(f[2], 16), " ".join(f[3:]))
    return funcs, publics


def decoration_size(name):
    """Bytes of stack parameters an x86 C decoration states (the PE/COFF
    specification's "_f@N" stdcall, "@f@N" fastcall), less the 8 bytes
    fastcall passes in ecx and edx; 0 for any other name."""
    m = re.fullmatch(r"([_@])([^@?]+)@(0|[1-9][0-9]*)", name)
    if not m:
        return 0
    size = int(m.group(3))
    return max(size - 8, 0) if m.group(1) == "@" else size


def check_parameter_sizes(args, report, fixture, totals):
    """x86: each FUNC's and PUBLIC's parameter size, in both styles, is the
    one its public's decoration states (several publics at one address: the
    one named as the procedure, as Breakpad's dumper picks it)."""
    if fixture["cpu"] != "x86":
        return
    name, image, pdb = fixture["name"], fixture["image"], fixture["pdb"]
    procs, publics = pdb_procedures_and_publics(pdb, pe_headers(image)["sections"])
    names_at = {}
    for address, public in publics:
        names_at.setdefault(address, []).append(public)
    proc_at = {address: proc for address, _, proc in procs}

    def expected(address):
        names = sorted(names_at.get(address, []))
        if not names:
            return 0
        own = [n for n in names if undecorate_c(n, True) == proc_at.get(address)]
        return decoration_size((own or names)[0])

    for style in ("llvm", "breakpad"):
        funcs, pubs = func_and_public_records(dump_text(args, pdb, "--names", style))
        for kind, records in (("FUNC", funcs), ("PUBLIC", pubs)):
            for address, (size, record_name) in sorted(records.items()):
                totals["parameter_sizes"] += 1
                want = expected(address)
                if size != want:
                    report.fail(f"{name} --names {style}: {kind} {address:#x} {record_name}: parameter "
                                f"size {size:#x}, its public's decoration says {want:#x}")
                else:
                    totals["parameter_sizes_agree"] += 1
                    totals["parameter_sizes_nonzero"] += size != 0


ANONYMOUS_KEY = b"?A0xc3a0617d"  # as MSVC writes an anonymous namespace in its records
ANONYMOUS_CLANG = b"`anonymous namespace'"
PROCEDURE_KINDS = {0x110F, 0x1110, 0x1146, 0x1147, 0x1155, 0x1156}  # S_[GL]PROC32[_ID|_DPC...]


def anonymous_namespace_spelling():
    """Microsoft's undecorator's spelling of "?A0x<key>", per llvm-undname."""
    out = run([f"{LLVM}/llvm-undname", "?x@?A0xc3a0617d@@3HA"])
    return re.search(r"int (.*)::x$", out, re.M).group(1)


def _codeview_records(stream, start, end):
    at = start
    while at + 4 <= end:
        length, kind = struct.unpack_from("<HH", stream, at)
        if length < 2 or at + 2 + length > end:
            return
        yield at, kind, length
        at += 2 + length


def _module_symbol_streams(dbi):
    """(stream index, symbol bytes) of each module of a DBI stream."""
    end = 64 + struct.unpack_from("<i", dbi, 24)[0]
    at = 64
    while at < end:
        stream, symbol_bytes = struct.unpack_from("<HI", dbi, at + 34)
        names_end = dbi.index(b"\0", dbi.index(b"\0", at + 64) + 1) + 1
        yield stream, symbol_bytes
        at = (names_end + 3) & ~3


def rewrite_pdb(source, destination, msvc_spelling=False, untyped=False):
    """A copy of a clang-built PDB made like those MSVC's and other
    toolchains write. msvc_spelling: every "`anonymous namespace'" in the
    module streams' symbols and the TPI and IPI records becomes MSVC's
    "?A0x<key>" (each record keeps its length: the name is shortened, the
    record padded). untyped: the TPI stream left empty and every procedure
    of no type, a PDB without type information. Returns how many edits."""
    block_size, magic, streams = omap_rewrite._read_msf(open(source, "rb").read())
    streams = [bytearray(s) if s is not None else None for s in streams]
    edits = 0

    def respell(stream, at, length):
        body = bytes(stream[at + 4:at + 2 + length])
        stream[at + 4:at + 2 + length] = body.replace(ANONYMOUS_CLANG, ANONYMOUS_KEY).ljust(len(body), b"\0")
        return body.count(ANONYMOUS_CLANG)

    for index, symbol_bytes in _module_symbol_streams(bytes(streams[3])):
        if index == 0xFFFF or streams[index] is None:
            continue
        for at, kind, length in _codeview_records(streams[index], 4, symbol_bytes):
            if msvc_spelling:
                edits += respell(streams[index], at, length)
            if untyped and kind in PROCEDURE_KINDS:
                struct.pack_into("<I", streams[index], at + 28, 0)  # the procedure's type index
                edits += 1
    for index in (2, 4):  # TPI, IPI
        stream = streams[index]
        header_size = struct.unpack_from("<I", stream, 4)[0]
        if untyped and index == 2:
            del stream[header_size:]
            struct.pack_into("<II", stream, 12, 0x1000, 0)       # no type indices, no record bytes
            struct.pack_into("<HH", stream, 20, 0xFFFF, 0xFFFF)  # no hash streams
            struct.pack_into("<6I", stream, 32, 0, 0, 0, 0, 0, 0)
        elif msvc_spelling:
            for at, _, length in _codeview_records(stream, header_size, len(stream)):
                edits += respell(stream, at, length)
    omap_rewrite._write_msf(destination, block_size, magic, [bytes(s) if s is not None else None for s in streams])
    return edits


def pdb_procedures(pdb):
    """(name, local?) of each procedure, per llvm-pdbutil."""
    out = run([f"{LLVM}/llvm-pdbutil", "dump", "--symbols", pdb])
    return [(m.group(2), m.group(1) == "L")
            for m in re.finditer(r"\| S_([GL])PROC32(?:_ID)? \[size = \d+\] `(.*)`$", out, re.M)]


def check_anonymous_namespaces(args, report, fixture, totals, work):
    """No "?A0x" in any output, in both styles; on a copy of the PDB spelled
    as MSVC spells anonymous namespaces, none either: each procedure's FUNC
    says llvm-undname's spelling where the record says the key."""
    name, pdb = fixture["name"], fixture["pdb"]
    for style in ("llvm", "breakpad"):
        text = dump_text(args, pdb, "-d", "--names", style)
        totals["anonymous_outputs"] += 1
        totals["anonymous_names"] += text.count(ANONYMOUS_CLANG.decode())
        if "?A0x" in text:
            report.fail(f"{name} --names {style}: ?A0x in {next(l for l in text.splitlines() if '?A0x' in l)!r}")
    if ANONYMOUS_CLANG.decode() not in dump_text(args, pdb):
        return
    spelled = anonymous_namespace_spelling()
    msvc = os.path.join(work, name + ".msvc.pdb")
    if not rewrite_pdb(pdb, msvc, msvc_spelling=True):
        report.fail(f"{name}: nothing to respell as MSVC does")
        return
    procedures = pdb_procedures(msvc)
    if not any("?A0x" in p for p, _ in procedures):
        report.fail(f"{name}: llvm-pdbutil sees no ?A0x procedure in the MSVC-spelled copy")
    for style in ("llvm", "breakpad"):
        # (-d: INLINE_ORIGIN names too)
        text = dump_text(args, msvc, "-d", "--names", style)
        totals["anonymous_outputs"] += 1
        if "?A0x" in text:
            report.fail(f"{name} MSVC-spelled, --names {style}: ?A0x in "
                        f"{next(l for l in text.splitlines() if '?A0x' in l)!r}")
        funcs, _ = func_and_public_records(text)
        names = [n for _, n in funcs.values()]
        for procedure, _ in procedures:
            if "?A0x" not in procedure:
                continue
            want = re.sub(r"\?A0x[0-9A-Fa-f]+", lambda _: spelled, procedure)
            totals["anonymous_procedures"] += 1
            if any(n == want or n.startswith(want + "(") or (" " + want + "(") in n for n in names):
                totals["anonymous_procedures_agree"] += 1
            else:
                report.fail(f"{name} MSVC-spelled, --names {style}: no FUNC named {want!r} for {procedure!r}")


def check_untyped_names(args, report, fixture, totals, work):
    """A copy of the PDB without type information: --names breakpad names
    every local procedure without a public by its own name (DIA has no type
    to make "static RET f(PARAMS)" of), never "static  f()"."""
    name, pdb = fixture["name"], fixture["pdb"]
    untyped = os.path.join(work, name + ".untyped.pdb")
    rewrite_pdb(pdb, untyped, untyped=True)
    text = dump_text(args, untyped, "-d", "--names", "breakpad")
    if "static " in text:
        report.fail(f"{name} untyped: {next(l for l in text.splitlines() if 'static ' in l)!r}")
    funcs, _ = func_and_public_records(text)
    names = {n for _, n in funcs.values()}
    for procedure, local in pdb_procedures(untyped):
        if local:
            totals["untyped_locals"] += 1
            if procedure in names:
                totals["untyped_locals_agree"] += 1
            else:
                report.fail(f"{name} untyped: local procedure {procedure!r} has no FUNC of its name")


def check_msvc_lines(args, report, totals):
    """The MSVC-built x64 pair without -d: every byte of every FUNC as
    `llvm-symbolizer --no-inlines` says (it finds the PDB beside the PE)."""
    windows = os.path.join(args.shared, "windows")
    image, pdb = os.path.join(windows, "dump_syms_regtest64.exe"), os.path.join(windows, "dump_syms_regtest64.pdb")
    headers = pe_headers(image)
    sym = symfile.SymFile(dump_text(args, image))
    compare_with_symbolizer(report, "dump_syms_regtest64.exe", image, headers["image_base"], sym,
                            lines_sharing_an_offset(pdb, headers["sections"]), False, totals, "msvc_",
                            unlined=True, lines_only=True)


def cross_module_tables(pdb):
    """llvm-pdbutil's view of the cross-module tables: per importing module
    index, (the exporting module's name as printed, its local ids); per
    exporting module index, {local id: IPI id}."""
    out = run([f"{LLVM}/llvm-pdbutil", "dump", "--xmi", "--xme", pdb])
    imports, exports, module, section = {}, {}, None, None
    for line in out.splitlines():
        if "Cross Module Imports" in line:
            section = "imports"
        elif "Cross Module Exports" in line:
            section = "exports"
        elif m := re.match(r"^\s*Mod (\d+) \|", line):
            module = int(m.group(1))
        elif section == "imports" and (m := re.match(r"^\s*(\S.*?) \| ((?:0x[0-9A-F]+ ?)+)$", line)):
            imports.setdefault(module, []).append((m.group(1), [int(v, 16) for v in m.group(2).split()]))
        elif section == "exports" and (m := re.match(r"^\s*(0x[0-9A-F]+) \| (0x[0-9A-F]+)$", line)):
            exports.setdefault(module, {})[int(m.group(1), 16)] = int(m.group(2), 16)
    return imports, exports


def inline_site_ids(pdb):
    """Record offset -> inlinee id of every S_INLINESITE, per module, as
    llvm-pdbutil dump --symbols prints them."""
    out = run([f"{LLVM}/llvm-pdbutil", "dump", "--symbols", pdb])
    sites, module, lines = {}, None, out.splitlines()
    for i, line in enumerate(lines):
        if m := re.match(r"^\s*Mod (\d+) \|", line):
            module = int(m.group(1))
        elif (m := re.match(r"^\s*(\d+) \| S_INLINESITE2? ", line)) and i + 1 < len(lines):
            inlinee = re.search(r"inlinee = (0x[0-9A-F]+)", lines[i + 1])
            sites[(module, int(m.group(1)))] = int(inlinee.group(1), 16)
    return sites


def check_cross_module_ids(report, name, pdb, out_pdb, exporter, totals):
    """llvm-pdbutil's tables resolve each rewritten site's id to the IPI id
    the original site had; those ids' names (llvm-pdbutil dump --ids).
    LLVM 19 reads only the first module of an imports subsection (its
    records never give their length), so llvm-pdbutil --xmi lists only that
    one: an id naming a later import module takes its local id from the
    rewrite's own construction, and the exports table from llvm-pdbutil."""
    imports, exports = cross_module_tables(out_pdb)
    before, after = inline_site_ids(pdb), inline_site_ids(out_pdb)
    modules = run([f"{LLVM}/llvm-pdbutil", "dump", "--modules", out_pdb])
    module_names = {int(m): n for m, n in re.findall(r"Mod (\d+) \| `(.*)`", modules)}
    resolved_ids = set()
    for (module, offset), inlinee in sorted(after.items()):
        if not inlinee & 0x80000000:
            continue
        totals["cross_module_sites"] += 1
        listed = imports.get(module, [])
        if ((inlinee >> 20) & 0x7FF) < len(listed):
            imported_from, ids = listed[(inlinee >> 20) & 0x7FF]
            local = ids[inlinee & 0xFFFFF] if (inlinee & 0xFFFFF) < len(ids) else None
            if not module_names[exporter].endswith(imported_from.lstrip(".")):
                report.fail(f"{name} cross-module: module {module} imports from {imported_from}")
        else:
            local = cross_module_rewrite.LOCAL_BASE + (inlinee & 0xFFFFF)
            totals["cross_module_later_imports"] += 1
        resolved = exports.get(exporter, {}).get(local)
        if resolved != before[(module, offset)]:
            report.fail(f"{name} cross-module: site at {offset} of module {module}: {inlinee:#x} resolves to "
                        f"{resolved} by llvm-pdbutil, the original site names {before[(module, offset)]:#x}")
        resolved_ids.add(resolved)
    out = run([f"{LLVM}/llvm-pdbutil", "dump", "--ids", pdb])
    names = {}
    for m in re.finditer(r"^\s*(0x[0-9A-F]+) \| LF_FUNC_ID \[size = \d+\]\s*\n\s*name = (.*), type = .*, "
                         r"parent scope = <no type>$", out, re.M):
        names[int(m.group(1), 16)] = m.group(2)
    return {names[i] for i in resolved_ids if i in names}


def check_cross_module(args, report, fixture, totals, work):
    """A two-module fixture whose second module names its inlinees by
    cross-module ids, resolved through the first module's exports."""
    name, image, pdb = fixture["name"], fixture["image"], fixture["pdb"]
    where = os.path.join(work, name + ".xmod")
    os.makedirs(where)
    out_pdb = os.path.join(where, os.path.basename(pdb))
    shutil.copy(image, where)  # (beside the PDB, as the original is)
    # (x86: the exporter is the first module imported from; x86_64: the
    # second, after one no id names)
    cross_module_rewrite.rewrite(pdb, out_pdb, importer=1, exporter=0, decoy_first=fixture["cpu"] != "x86")
    check_cross_module_ids(report, name, pdb, out_pdb, 0, totals)
    text = dump_text(args, out_pdb, "-d")
    if "<inlinee 0x8" in text or "<inlinee of another module>" in text:
        report.fail(f"{name} cross-module: an unresolved inlinee is written")
    # A damaged table: one id no import resolves is a warning naming it, and
    # the rest is written.
    broken_pdb = os.path.join(where, "broken.pdb")
    cross_module_rewrite.rewrite(pdb, broken_pdb, importer=1, exporter=0, dangling=True)
    p = subprocess.run([args.dump_syms, "-d", "-v", broken_pdb], capture_output=True, text=True)
    dangling = f"{cross_module_rewrite.DANGLING_ID:#x}"
    if p.returncode != 0 or dangling not in p.stderr or "<inlinee of another module>" not in p.stdout or \
            "<inlinee 0x8" in p.stdout or p.stdout.count("\nINLINE ") != text.count("\nINLINE "):
        report.fail(f"{name} cross-module: an unresolvable id gives exit {p.returncode}, "
                    f"stderr {p.stderr.strip()[:200]!r}")
    else:
        totals["cross_module_dangling"] += 1
    headers = pe_headers(image)
    compare_with_symbolizer(report, name + " cross-module", image, headers["image_base"], symfile.SymFile(text),
                            lines_sharing_an_offset(pdb, headers["sections"]), True, totals, "xmod_")


def check_msvc_cross_module(args, report, totals, work):
    """The MSVC-built x64 pair with the module of the most inline sites
    naming its inlinees through the first module: the names llvm-pdbutil
    gives the resolved ids are INLINE_ORIGINs, and the file is the one the
    original PDB gives (only ids changed)."""
    windows = os.path.join(args.shared, "windows")
    image, pdb = os.path.join(windows, "dump_syms_regtest64.exe"), os.path.join(windows, "dump_syms_regtest64.pdb")
    where = os.path.join(work, "msvc.xmod")
    os.makedirs(where)
    shutil.copy(image, where)
    out_pdb = os.path.join(where, os.path.basename(pdb))
    sites = collections.Counter(module for module, _ in inline_site_ids(pdb))
    importer = sites.most_common(1)[0][0]
    cross_module_rewrite.rewrite(pdb, out_pdb, importer=importer, exporter=0, decoy_first=True)
    names = check_cross_module_ids(report, "dump_syms_regtest64", pdb, out_pdb, 0, totals)
    text = dump_text(args, out_pdb, "-d")
    origins = {line.split(" ", 2)[2] for line in text.splitlines() if line.startswith("INLINE_ORIGIN ")}
    if "<inlinee" in text or not names or not names <= origins:
        report.fail(f"dump_syms_regtest64 cross-module: llvm-pdbutil's names {sorted(names - origins)} are no "
                    f"INLINE_ORIGIN, or a placeholder is written")
    elif text != dump_text(args, image, "-d"):
        report.fail("dump_syms_regtest64 cross-module: the file differs from the original PDB's")
    else:
        totals["msvc_cross_module_names"] += len(names)


def main():
    args = common.arguments(lambda p: (p.add_argument("--cfi-eval", required=True),
                                       p.add_argument("--roundtrip", required=True)))
    common.require_shared(args)
    report = common.Report("pdb_and_pe")
    totals = dict.fromkeys(["validated", "shared_offsets", "addresses", "addresses_agree", "inline_frames", "procedures",
                            "procedures_agree", "publics", "publics_agree", "fpo_rows", "fpo_agree",
                            "unwind_states", "unwind_agree"], 0)
    for prefix in ("plain_", "msvc_", "xmod_"):
        totals.update(dict.fromkeys([prefix + k for k in ("addresses", "addresses_agree", "shared_offsets",
                                                          "inline_frames", "unlined")], 0))
    totals["cross_module_sites"] = totals["cross_module_dangling"] = totals["msvc_cross_module_names"] = 0
    totals["cross_module_later_imports"] = 0
    names = dict.fromkeys(["parameter_sizes", "parameter_sizes_agree", "parameter_sizes_nonzero", "anonymous_outputs",
                           "anonymous_names", "anonymous_procedures", "anonymous_procedures_agree", "untyped_locals",
                           "untyped_locals_agree"], 0)
    fixtures = load_fixtures(args)
    work = tempfile.mkdtemp()
    try:
        for fixture in fixtures:
            check_fixture(args, report, fixture, totals)
            check_parameter_sizes(args, report, fixture, names)
            check_anonymous_namespaces(args, report, fixture, names, work)
            check_untyped_names(args, report, fixture, names, work)
            if fixture["name"].startswith("both."):
                check_cross_module(args, report, fixture, totals, work)
        check_msvc_lines(args, report, totals)
        check_msvc_cross_module(args, report, totals, work)
    finally:
        shutil.rmtree(work)
    report.note(f"{len(fixtures)} fixtures, {totals['validated']} pass symcheck validate")
    report.note(f"addresses agreeing with llvm-symbolizer (function, file, line, inline frames): "
                f"{totals['addresses_agree']}/{totals['addresses']} ({totals['inline_frames']} inline frames; "
                f"{totals['shared_offsets']} at an offset with several line rows, where either line counts)")
    report.note(f"without -d, addresses agreeing with llvm-symbolizer --no-inlines (function, file, line): "
                f"{totals['plain_addresses_agree']}/{totals['plain_addresses']} "
                f"({totals['plain_shared_offsets']} at an offset with several line rows)")
    report.note(f"MSVC x64 PDB without -d, addresses agreeing with llvm-symbolizer --no-inlines (file, line): "
                f"{totals['msvc_addresses_agree']}/{totals['msvc_addresses']} "
                f"({totals['msvc_shared_offsets']} at an offset with several line rows, "
                f"{totals['msvc_unlined']} in code without line rows)")
    report.note(f"cross-module ids: {totals['cross_module_sites']} inline sites resolved as llvm-pdbutil's "
                f"--xmi/--xme tables say ({totals['cross_module_later_imports']} through an import module past "
                f"the first, which llvm-pdbutil does not list); addresses agreeing with llvm-symbolizer on the original pair: "
                f"{totals['xmod_addresses_agree']}/{totals['xmod_addresses']} "
                f"({totals['xmod_inline_frames']} inline frames); unresolvable ids warned of and named "
                f"<inlinee of another module>: {totals['cross_module_dangling']}; the MSVC x64 PDB so rewritten: "
                f"{totals['msvc_cross_module_names']} inlinees named as llvm-pdbutil names their ids, the file "
                f"otherwise the original's")
    report.note(f"procedures as FUNC: {totals['procedures_agree']}/{totals['procedures']}; "
                f"code publics: {totals['publics_agree']}/{totals['publics']}")
    report.note(f"FrameData rows as STACK WIN: {totals['fpo_agree']}/{totals['fpo_rows']}")
    report.note(f"x64 unwind states agreeing with the unwind codes: "
                f"{totals['unwind_agree']}/{totals['unwind_states']}")
    report.note(f"x86 FUNC and PUBLIC parameter sizes (both styles) as the decorations state: "
                f"{names['parameter_sizes_agree']}/{names['parameter_sizes']} "
                f"({names['parameter_sizes_nonzero']} not 0)")
    report.note(f"outputs without ?A0x: {names['anonymous_outputs']} ({names['anonymous_names']} "
                f"`anonymous namespace' names); MSVC-spelled procedures named as llvm-undname spells them: "
                f"{names['anonymous_procedures_agree']}/{names['anonymous_procedures']}")
    report.note(f"PDBs without type information, --names breakpad: local procedures by their own names "
                f"{names['untyped_locals_agree']}/{names['untyped_locals']}")
    if not totals["addresses"] or not totals["fpo_rows"] or not totals["unwind_states"] or \
            not totals["plain_addresses"] or not totals["msvc_addresses"] or not totals["cross_module_sites"] or \
            not totals["xmod_inline_frames"] or \
            not totals["msvc_cross_module_names"] or not totals["cross_module_later_imports"]:
        report.fail("a check saw nothing to check")
    if not (names["parameter_sizes_nonzero"] and names["anonymous_procedures"] and names["untyped_locals"]):
        report.fail("a names check saw nothing to check")
    report.finish()


if __name__ == "__main__":
    main()
