#!/usr/bin/env python3
"""PEs whose debug information is DWARF (MinGW-w64), built here by Debian's
GCC (x86_64- and i686-w64-mingw32-gcc/g++), Clang (clang-19
--target=*-w64-mingw32 with lld) and rustc (x86_64-pc-windows-gnu): EXEs
and DLLs, -O0 and -O2, static and dynamic, GNU ld with and without
--build-id, and `objcopy --only-keep-debug` companions found through
.gnu_debuglink. Judged by LLVM's tools, never by our own output:

- MODULE `windows <cpu> <id> <code file>`: the id is the GUID and age of
  `llvm-readobj --coff-debug-directory`'s CodeView record, or 33 zeros
  without one; INFO CODE_ID is TimeDateStamp and SizeOfImage;
- FUNC names and line records against llvm-symbolizer-19 --obj=X.exe
  (test_lines' checks, at ImageBase + RVA), INLINE records against its
  inline stacks (test_inlines'), STACK CFI against every row of
  llvm-dwarfdump-19 --eh-frame/--debug-frame (test_cfi's), every x64
  RUNTIME_FUNCTION of `llvm-readobj --unwind` covered by STACK CFI;
- every export of `llvm-readobj --coff-exports` named at its RVA, the
  program's own functions named as the source spells them;
- the stripped PE dumps to the same file as before stripping, its
  companion found by .gnu_debuglink (and refused when its CRC is not the
  link's); a companion dumped alone gives the same functions and lines;
- `symstore add` files each module under its id and its code id.
"""
import os
import re
import shutil
import subprocess
import tempfile
import time

import oracles
import test_cfi
import test_inlines
import test_lines
from common import Report, arguments, dump

LLVM = "/usr/lib/llvm-19/bin"
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.normpath(os.path.join(HERE, "..", "..", "fixtures", "mingw"))
RUSTC = "/usr/bin/rustc"  # Debian's, whose windows-gnu std libstd-rust-dev-windows installs

# The functions each source defines, as they are spelled when named.
OWN_FUNCTIONS = {
    "app.c": {"main", "fib", "triple", "total", "apply", "app_entry"},
    "shapes.cpp": {"main", "geo::Circle::area() const", "geo::Rect::area() const",
                   "(anonymous namespace)::count_large(std::vector<double, std::allocator<double>> const&, double)"},
    "lib.c": {"lib_add", "lib_scale", "lib_fold"},
    "hello.rs": {"hello::main", "hello::describe"},
}

NORMALIZE = oracles.normalize
RUST_ESCAPES = {"SP": "@", "BP": "*", "RF": "&", "LT": "<", "GT": ">", "LP": "(", "RP": ")", "C": ","}


def rust_legacy_spelling(name):
    """What LLVM's Itanium demangler leaves of a Rust legacy name
    (`core..ptr..drop_in_place$LT$...$GT$::h0123456789abcdef`), spelled as
    the Rust mangling scheme says: escapes decoded, `..` as `::`, no hash
    (it changes every build)."""
    name = NORMALIZE(name)
    name = re.sub(r"::h[0-9a-f]{16}$", "", name)
    name = re.sub(r"(^|::)_\$", r"\1$", name)
    name = re.sub(r"\$(SP|BP|RF|LT|GT|LP|RP|C)\$", lambda m: RUST_ESCAPES[m.group(1)], name)
    name = re.sub(r"\$u([0-9a-f]{2})\$", lambda m: chr(int(m.group(1), 16)), name)
    return name.replace("..", "::")


def build(work):
    """[(label, path, source, cpu)] of every fixture this machine can build."""
    gcc = {"x86_64": "x86_64-w64-mingw32-", "x86": "i686-w64-mingw32-"}
    built = []

    def compile_(label, cmd, out, source, cpu):
        p = subprocess.run(cmd + ["-o", out], capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"{label}: {' '.join(cmd)} failed: {p.stderr.strip()[:400]}")
        built.append((label, out, source, cpu))

    for cpu, prefix in gcc.items():
        for opt in ("-O0", "-O2"):
            compile_(f"gcc.{cpu}{opt}.app.exe", [prefix + "gcc", "-g", opt, f"{SOURCES}/app.c"],
                     f"{work}/gcc.{cpu}{opt}.app.exe", "app.c", cpu)
        compile_(f"gcc.{cpu}.buildid.app.exe",
                 [prefix + "gcc", "-g", "-O2", "-Wl,--build-id", f"{SOURCES}/app.c"],
                 f"{work}/gcc.{cpu}.buildid.app.exe", "app.c", cpu)
        compile_(f"gcc.{cpu}.static.shapes.exe",
                 [prefix + "g++", "-g", "-O2", "-static", f"{SOURCES}/shapes.cpp"],
                 f"{work}/gcc.{cpu}.static.shapes.exe", "shapes.cpp", cpu)
        compile_(f"gcc.{cpu}.lib.dll", [prefix + "gcc", "-g", "-O2", "-shared", f"{SOURCES}/lib.c"],
                 f"{work}/gcc.{cpu}.lib.dll", "lib.c", cpu)
    for cpu, triple in (("x86_64", "x86_64-w64-mingw32"), ("x86", "i686-w64-mingw32")):
        compile_(f"clang.{cpu}.app.exe",
                 ["clang-19", f"--target={triple}", "-fuse-ld=lld", "-g", "-O2", f"{SOURCES}/app.c"],
                 f"{work}/clang.{cpu}.app.exe", "app.c", cpu)
        compile_(f"clang.{cpu}.shapes.exe",
                 ["clang++-19", f"--target={triple}", "-fuse-ld=lld", "-g", "-O1", "-static",
                  f"{SOURCES}/shapes.cpp"], f"{work}/clang.{cpu}.shapes.exe", "shapes.cpp", cpu)
    if os.path.exists(RUSTC):
        compile_("rust.x86_64.hello.exe",
                 [RUSTC, "--target", "x86_64-pc-windows-gnu", "-g", "-C", "opt-level=1",
                  "-C", "linker=x86_64-w64-mingw32-gcc", f"{SOURCES}/hello.rs"],
                 f"{work}/rust.x86_64.hello.exe", "hello.rs", "x86_64")
    return built


def readobj_identity(pe):
    out = oracles.run([f"{LLVM}/llvm-readobj", "--file-headers", "--coff-debug-directory", pe])
    stamp = int(re.search(r"TimeDateStamp: .*\((0x[0-9A-F]+)\)", out).group(1), 16)
    size = int(re.search(r"^\s*SizeOfImage: (\d+)", out, re.M).group(1))
    guid = re.search(r"PDBGUID: \{([0-9A-F-]+)\}", out)
    age = re.search(r"PDBAge: (\d+)", out)
    debug_id = guid.group(1).replace("-", "") + format(int(age.group(1)), "x") if guid else "0" * 33
    return debug_id, f"{stamp:08X}{size:X}"


def exports(pe):
    out = oracles.run([f"{LLVM}/llvm-readobj", "--coff-exports", pe])
    found = []
    for block in out.split("Export {")[1:]:
        name = re.search(r"Name: (.*)", block)
        rva = re.search(r"RVA: (0x[0-9A-F]+)", block)
        if name and rva and name.group(1).strip():
            found.append((int(rva.group(1), 16), name.group(1).strip()))
    return found


def check_header(report, label, pe, sym, cpu):
    debug_id, code_id = readobj_identity(pe)
    want = ["windows", cpu, debug_id, os.path.basename(pe)]
    if sym.module[1:] != want:
        report.fail(f"{label}: MODULE {sym.module[1:]} != {want}")
    if sym.info.get("CODE_ID") != f"{code_id} {os.path.basename(pe)}":
        report.fail(f"{label}: INFO CODE_ID {sym.info.get('CODE_ID')} != {code_id}")


def check_names(report, label, pe, sym, source):
    names = {oracles.normalize(f.name) for f in sym.funcs} | {p[1] for p in sym.publics}
    for name in OWN_FUNCTIONS[source]:
        if name not in names:
            near = sorted(n for n in names if name.split("(")[0].split("::")[-1] in n)[:4]
            report.fail(f"{label}: no FUNC or PUBLIC named {name!r} (near: {near})")
    if source == "hello.rs":
        # (the hash changes every build: Rust names are written without it)
        hashed = sorted(n for n in names | set(sym.origins.values()) if re.search(r"::h[0-9a-f]{16}\b", n))
        if hashed:
            report.fail(f"{label}: Rust names with their hash: {hashed[:3]}")
    for rva, name in exports(pe):
        base_name = re.sub(r"@\d+$", "", name)
        at = [f.name for f in sym.funcs if f.address == rva] + \
             [p[1] for p in sym.publics if p[0] == rva]
        if not any(n == base_name or n.startswith(base_name + "(") for n in at):
            report.fail(f"{label}: export {name} at {rva:x} is named {at}")


def check_unwind(report, label, pe, sym):
    """Every x64 RUNTIME_FUNCTION's code is covered by STACK CFI."""
    headers = oracles.pe_headers(pe)
    if headers["machine"] != 0x8664:
        return 0
    functions = oracles.pe_runtime_functions(pe, headers["base"])
    for start, end in functions:
        if sym.cfi_rules_at(start) is None:
            report.fail(f"{label}: RUNTIME_FUNCTION {start:x}..{end:x} has no STACK CFI")
    return len(functions)


def dump_text(args, *argv):
    p = subprocess.run([args.dump_syms, *argv], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


RESTAMPED = False


def check_companions(args, report, work, fixture):
    """objcopy's --only-keep-debug companion, found by .gnu_debuglink."""
    label, pe, _, cpu = fixture
    prefix = "x86_64-w64-mingw32-" if cpu == "x86_64" else "i686-w64-mingw32-"
    where = os.path.join(work, "split-" + label)
    os.makedirs(os.path.join(where, ".debug"))
    name = os.path.basename(pe)
    stripped = os.path.join(where, name)
    debug = os.path.join(where, ".debug", name + ".debug")
    subprocess.run([prefix + "objcopy", "--only-keep-debug", pe, debug], check=True)
    # objcopy writes the time it runs into the file header: once, the two
    # runs a second apart, as a release script's may be (the companion's
    # TimeDateStamp is then not the stripped PE's).
    global RESTAMPED
    if not RESTAMPED:
        time.sleep(1.1)
        RESTAMPED = True
    subprocess.run([prefix + "objcopy", "--strip-debug", f"--add-gnu-debuglink={debug}", pe, stripped],
                   check=True)
    # (stripping shrinks SizeOfImage: INFO CODE_ID is the stripped PE's)
    _, whole, _ = dump_text(args, pe, "-d")
    rc, split, err = dump_text(args, stripped, "-d", "-v")
    no_info = lambda text: [l for l in text.splitlines() if not l.startswith("INFO CODE_ID")]
    if rc != 0 or no_info(split) != no_info(whole):
        report.fail(f"{label}: the stripped PE with its companion dumps otherwise than the whole "
                    f"PE (exit {rc}): {err.strip()[:300]}")
    elif "gnu_debuglink" not in err:
        report.fail(f"{label}: -v does not say the companion was found by .gnu_debuglink: {err[:300]}")
    # The companion alone: the same functions and lines (its name is its own).
    rc, alone, err = dump_text(args, debug, "-d")
    body = lambda text: [l for l in text.splitlines() if not l.startswith(("MODULE", "INFO", "STACK"))]
    if rc != 0 or body(alone) != body(whole):
        report.fail(f"{label}: the companion dumped alone differs from the whole PE (exit {rc}): "
                    f"{err.strip()[:300]}")
    # A companion whose CRC is not the link's is not read.
    with open(debug, "ab") as fh:
        fh.write(b"\0")
    rc, text, err = dump_text(args, stripped, "-v")
    if rc != 0 or "CRC" not in err:
        report.fail(f"{label}: a companion with another CRC: exit {rc}, {err.strip()[:300]}")
    if any(re.match(r"^[0-9a-f]+ [0-9a-f]+ \d+ \d+$", l) for l in text.splitlines()):
        report.fail(f"{label}: line records from a companion whose CRC is not the link's")


def check_pe_alone(args, report, work, fixtures):
    """PEs without a CodeView record, DWARF or a symbol table: MinGW DLLs
    after `strip --strip-all`, and lld-link's x64 and ARM64 images linked
    without /debug (no debug directory at all). Dumped from their exports
    and exception directory: MODULE id of 33 zeros, named by the file."""
    alone = os.path.join(work, "alone")
    os.makedirs(alone)
    pes = []
    for label, pe, _, cpu in fixtures:
        if label in ("gcc.x86_64.lib.dll", "gcc.x86.lib.dll"):
            stripped = os.path.join(alone, label)
            prefix = "x86_64-w64-mingw32-" if cpu == "x86_64" else "i686-w64-mingw32-"
            subprocess.run([prefix + "strip", "--strip-all", pe, "-o", stripped], check=True)
            pes.append((stripped, cpu))
    pdb_sources = os.path.join(SOURCES, "..", "pdb")
    for cpu, triple, source in (("x86_64", "x86_64-pc-windows-msvc", "app.c"),
                                ("arm64", "aarch64-pc-windows-msvc", "frames.c")):
        obj = os.path.join(alone, f"{source}.{cpu}.obj")
        exe = os.path.join(alone, f"{source}.{cpu}.exe")
        subprocess.run(["clang-19", f"--target={triple}", "-O2", "-funwind-tables", "-c",
                        os.path.join(pdb_sources, source), "-o", obj], check=True)
        subprocess.run([f"{LLVM}/lld-link", "/nodefaultlib", "/entry:entry", "/subsystem:console",
                        "/export:entry", obj, f"/out:{exe}"], check=True, capture_output=True)
        pes.append((exe, cpu))
    publics_total = inits_total = 0
    for pe, cpu in pes:
        label = os.path.basename(pe)
        rc, text, err = dump_text(args, pe, "-v")
        if rc != 0 or "written from the PE alone" not in err:
            report.fail(f"{label} alone: exit {rc}, {err.strip()[:300]}")
            continue
        lines = text.splitlines()
        debug_id, code_id = readobj_identity(pe)
        if debug_id != "0" * 33 or lines[0] != f"MODULE windows {cpu} {debug_id} {label}" or \
                lines[1] != f"INFO CODE_ID {code_id} {label}":
            report.fail(f"{label} alone: {lines[:2]} (readobj: {debug_id} {code_id})")
        publics = {}
        for line in (l for l in lines if l.startswith("PUBLIC ")):
            fields = line.split(" ", 3)
            publics[int(fields[1], 16)] = (int(fields[2], 16), fields[3])
        want = {}
        for rva, name in exports(pe):
            m = re.fullmatch(r"(.+?)@(\d+)", name) if cpu == "x86" else None
            want.setdefault(rva, (int(m.group(2)), m.group(1)) if m else (0, name))
        if publics != want:
            report.fail(f"{label} alone: PUBLIC {sorted(publics.items())} != exports {sorted(want.items())}")
        inits = sorted((int(l.split()[3], 16), int(l.split()[3], 16) + int(l.split()[4], 16))
                       for l in lines if l.startswith("STACK CFI INIT"))
        if cpu != "x86":
            runtime = oracles.pe_runtime_functions(pe, oracles.pe_headers(pe)["base"])
            if inits != runtime:
                report.fail(f"{label} alone: STACK CFI INIT {inits[:4]} != RUNTIME_FUNCTIONs {runtime[:4]}")
        publics_total += len(publics)
        inits_total += len(inits)
    report.note(f"{len(pes)} PEs without CodeView, DWARF or symbols: {publics_total} PUBLIC records equal "
                f"their exports, {inits_total} STACK CFI INIT their RUNTIME_FUNCTIONs")


def check_store(args, report, work, fixtures):
    release = os.path.join(work, "release")
    os.makedirs(release)
    chosen = [f for f in fixtures if f[0] in ("gcc.x86_64-O2.app.exe", "gcc.x86.lib.dll",
                                              "clang.x86_64.app.exe")]
    for label, pe, _, _ in chosen:
        shutil.copy(pe, os.path.join(release, label))
    store = os.path.join(work, "store")
    p = subprocess.run([args.symstore, "add", store, release, "-q"], capture_output=True, text=True)
    if p.returncode != 0:
        report.fail(f"symstore add: exit {p.returncode}: {p.stderr.strip()[:300]}")
        return
    for label, pe, _, _ in chosen:
        debug_id, code_id = readobj_identity(pe)
        # (33 zeros name no build: such a module is filed by its code id only)
        null = debug_id == "0" * 33
        by_id = f"{label}/{debug_id}/{label}.sym"
        if null and os.path.exists(os.path.join(store, by_id)):
            report.fail(f"symstore: {by_id} stands for every build of {label}")
        for path in ([] if null else [by_id]) + [f"{label}/{code_id}/{label}.sym"]:
            full = os.path.join(store, path)
            if not os.path.exists(full):
                report.fail(f"symstore: no {path}")
                continue
            with open(full) as fh:
                head = fh.readline().split()
            if head[3:] != [debug_id, label]:
                report.fail(f"symstore: {path} holds {head}")


def main():
    args = arguments(lambda p: p.add_argument("--symstore", required=True))
    report = Report("mingw")
    work = tempfile.mkdtemp()
    try:
        fixtures = build(work)
        totals = {"lines": 0, "inlines": 0, "cfi": 0, "runtime": 0}
        for label, pe, source, cpu in fixtures:
            sym, err = dump(args, pe)
            check_header(report, label, pe, sym, cpu)
            check_names(report, label, pe, sym, source)
            normalize = oracles.normalize
            if source == "hello.rs":
                # (the oracle leaves Rust's legacy names half demangled)
                oracles.normalize = rust_legacy_spelling
            try:
                totals["lines"] += test_lines.check(args, pe, report, label=label)
                checked, _ = test_inlines.check(args, pe, report, label=label)
            finally:
                oracles.normalize = normalize
            totals["inlines"] += checked
            if source != "hello.rs":
                totals["cfi"] += test_cfi.check(args, pe, report, label=label)
            totals["runtime"] += check_unwind(report, label, pe, sym)
            print(f"{label}: {len(sym.funcs)} FUNC, {len(sym.publics)} PUBLIC")
        for fixture in fixtures:
            if fixture[0] in ("gcc.x86_64-O2.app.exe", "gcc.x86.static.shapes.exe",
                              "gcc.x86_64.lib.dll"):
                check_companions(args, report, work, fixture)
        check_pe_alone(args, report, work, fixtures)
        check_store(args, report, work, fixtures)
        report.note(f"{len(fixtures)} MinGW PEs: {totals['lines']} addresses' names and lines equal "
                    f"llvm-symbolizer's, {totals['inlines']} inline stacks, {totals['cfi']} unwind "
                    f"rows of llvm-dwarfdump, {totals['runtime']} RUNTIME_FUNCTIONs covered")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
