#!/usr/bin/env python3
"""Names in every language: programs built here with Debian's compilers
(rustc, gdc, gfortran, golang-go) from fixtures/languages/, dumped with -d
and without, their FUNC names checked against oracles that are not ours:

- Rust (legacy mangling): every DWARF linkage name and symbol-table name
  demangled by this file's own reading of the legacy scheme (the Rust
  mangling spec: length-prefixed path elements, `$LT$`-style escapes, the
  trailing `h` + 16 hex digit hash left out); no `::h<16 hex>` left in any
  default name, while `--names breakpad` keeps Breakpad's spelling (the
  mangled linkage name, hash and all).
- Rust (v0): as llvm-cxxfilt-19 demangles the linkage names.
- D: as binutils' c++filt -s dlang demangles linkage and symbol names.
- Fortran: llvm-dwarfdump-19's DW_TAG_module and DW_AT_name
  (`grid_mod::grid_step`), and the symbol table's `__grid_mod_MOD_grid_step`
  naming the same PUBLIC when the DWARF is stripped.
- Go: each subprogram's DW_AT_name; at `runtime.text` (a size-0 label at the
  first function's address) the sized symbol `go tool nm -size` lists,
  with DWARF and without.

Each program's own functions are looked for by the names its source gives
them, and llvm-symbolizer-19 must agree on the line of every line record of
those functions. A language whose compiler is missing is skipped with a note."""
import os
import re
import shutil
import subprocess
import tempfile
from collections import defaultdict

import oracles
from common import Report, arguments, dump

LLVM = "/usr/lib/llvm-19/bin"
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.normpath(os.path.join(HERE, "..", "..", "fixtures", "languages"))
RUSTC = "/usr/bin/rustc"  # Debian's, not a rustup one earlier in PATH
RUST_HASH = re.compile(r"::h[0-9a-f]{16}\b")

# What each source defines, spelled as the dump must name it.
OWN = {
    "rust": {"shapes::largest", "shapes::apply", "shapes::main", "shapes::main::{{closure}}",
             "shapes::geometry::total", "shapes::geometry::total::{{closure}}",
             "<shapes::geometry::Square as shapes::geometry::Area>::area"},
    "rust-v0": {"shapes::largest::<i32>", "shapes::largest::<char>", "shapes::main",
                "<shapes::geometry::Square as shapes::geometry::Area>::area"},
    "d": {"sums.triangle(int)", "sums.twice!(int).twice(int)", "sums.twice!(double).twice(double)",
          "sums.Counter.bump(int)", "sums.Accumulator.add(long)", "D main"},
    "fortran": {"grid_mod::grid_step", "grid_mod::grid_sum", "grid"},
    "go": {"main.fib", "main.sum", "main.(*ring).push", "main.main"},
}


def run(cmd, cwd=None, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr.strip()[:600]}")
    return p.stdout


def build(work, report):
    """{language: binary} of what this machine's compilers build."""
    built = {}
    src = lambda name: os.path.join(SOURCES, name)
    if os.path.exists(RUSTC):
        built["rust"] = os.path.join(work, "shapes")
        run([RUSTC, "-g", "-C", "opt-level=0", "-o", built["rust"], src("shapes.rs")])
        built["rust-v0"] = os.path.join(work, "shapes-v0")
        run([RUSTC, "-g", "-C", "opt-level=0", "-C", "symbol-mangling-version=v0",
             "-o", built["rust-v0"], src("shapes.rs")])
    for language, compiler, source, out in (("d", "gdc", "sums.d", "sums"),
                                            ("fortran", "gfortran", "grid.f90", "grid")):
        if shutil.which(compiler):
            built[language] = os.path.join(work, out)
            # (gfortran writes grid_mod.mod into the working directory)
            run([compiler, "-g", "-O1", "-o", built[language], src(source)], cwd=work)
    if shutil.which("go"):
        env = dict(os.environ, HOME=work, GOCACHE=os.path.join(work, "gocache"), GOFLAGS="",
                   GO111MODULE="off", CGO_ENABLED="0")
        built["go"] = os.path.join(work, "hello")
        run(["go", "build", "-o", built["go"], src("hello.go")], cwd=work, env=env)
        built["go-nodwarf"] = os.path.join(work, "hello-nodwarf")
        run(["go", "build", "-ldflags=-w", "-o", built["go-nodwarf"], src("hello.go")], cwd=work, env=env)
    for language, tool in (("rust", "rustc"), ("d", "gdc"), ("fortran", "gfortran"), ("go", "go")):
        if language not in built:
            report.note(f"{tool} is not installed: {language} is not checked")
    return built


# ------------------------------------------------------------------ oracles
DIE = re.compile(r"^0x[0-9a-f]+:( +)(DW_TAG_\w+|NULL)")
ATTRIBUTE = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*)\)$")


def subprograms(binary):
    """(low_pc, name, linkage name, [enclosing DW_TAG_module names]) of every
    DW_TAG_subprogram with code, from llvm-dwarfdump-19 (the name of an
    out-of-line instance is its abstract origin's)."""
    out = []
    stack = []  # (depth, tag, attributes)
    for line in oracles.run([f"{LLVM}/llvm-dwarfdump", "--debug-info", binary]).splitlines():
        m = DIE.match(line)
        if m:
            depth = (len(m.group(1)) - 1) // 2
            del stack[depth:]
            stack.append((depth, m.group(2), {}))
            continue
        m = ATTRIBUTE.match(line)
        if m and stack:
            stack[-1][2][m.group(1)] = m.group(2)
            if m.group(1) == "DW_AT_low_pc" and stack[-1][1] == "DW_TAG_subprogram":
                attrs = stack[-1][2]
                modules = [a.get("DW_AT_name", '""').strip('"') for _, tag, a in stack[:-1]
                           if tag == "DW_TAG_module"]
                out.append((int(m.group(2), 16), attrs, modules))
    # Names come before low_pc in every producer here; read them once the DIE is done.
    result = []
    for low_pc, attrs, modules in out:
        name = attrs.get("DW_AT_name", '""').strip('"')
        if not name:  # an out-of-line instance: llvm-dwarfdump quotes its origin's name
            origin = re.search(r'"(.*)"', attrs.get("DW_AT_abstract_origin", "") or
                               attrs.get("DW_AT_specification", ""))
            name = origin.group(1) if origin else ""
        linkage = attrs.get("DW_AT_linkage_name", '""').strip('"')
        if low_pc:
            result.append((low_pc, name, linkage, modules))
    return result


RUST_ESCAPES = {"SP": "@", "BP": "*", "RF": "&", "LT": "<", "GT": ">", "LP": "(", "RP": ")", "C": ","}


def rust_legacy(symbol):
    """A legacy-mangled Rust name read by the spec, without its hash; None
    when `symbol` is not one."""
    if not symbol.startswith("_ZN"):
        return None
    rest, parts = symbol[3:], []
    while rest and rest[0] != "E":
        m = re.match(r"[0-9]+", rest)
        if not m:
            return None
        n = int(m.group())
        parts.append(rest[m.end():m.end() + n])
        rest = rest[m.end() + n:]
    suffix = rest[1:]
    if not rest or len(parts) < 2 or not re.fullmatch(r"h[0-9a-f]{16}", parts[-1]):
        return None
    if re.fullmatch(r"\.llvm\.[0-9A-F@]+", suffix):
        suffix = ""

    def escape(m):
        code = m.group(1)
        if code in RUST_ESCAPES:
            return RUST_ESCAPES[code]
        if code.startswith("u"):
            return chr(int(code[1:], 16))
        raise ValueError(code)

    decoded = []
    for part in parts[:-1]:
        if part.startswith("_$"):
            part = part[1:]
        decoded.append(re.sub(r"\$([A-Za-z0-9]+)\$", escape, part.replace("..", "::")))
    return "::".join(decoded) + suffix


def filter_names(tool, names):
    """`names` through a demangler reading one name a line."""
    if not names:
        return []
    out = oracles.run(tool, "\n".join(names) + "\n").splitlines()
    if len(out) != len(names):
        raise SystemExit(f"{' '.join(tool)} answered {len(out)} lines for {len(names)} names")
    return out


def elf_symbols(binary):
    """(address, size, name) of the defined function symbols, from readelf."""
    out = []
    for line in oracles.run(["readelf", "-sW", binary]).splitlines():
        p = line.split()
        if len(p) >= 8 and p[3] == "FUNC" and p[6] != "UND":
            out.append((int(p[1], 16), int(p[2], 0), p[7].split("@")[0]))
    return out


# ------------------------------------------------------------------- checks
def names_at(sym):
    """rva -> the names of the FUNC and PUBLIC records starting there."""
    table = defaultdict(set)
    for f in sym.funcs:
        table[f.address].add(f.name)
    for p in sym.publics:
        table[p[0]].add(p[1])
    return table


def check_expected(report, label, base, sym, expected):
    """`expected`: [(address, [acceptable names], what)]; every address
    must start a FUNC or PUBLIC named one of them. Returns how many."""
    at = names_at(sym)
    checked = 0
    for address, wanted, what in expected:
        rva = address - base
        if rva not in at:
            continue  # code the dump leaves out (outside the loaded segments)
        checked += 1
        if not at[rva] & set(wanted):
            report.fail(f"{label} {rva:x}: named {sorted(at[rva])}, {what} says {sorted(set(wanted))}")
    return checked


def check_own(report, label, sym, language):
    names = {f.name for f in sym.funcs}
    for name in sorted(OWN[language] - names):
        near = sorted(n for n in names if name.split("(")[0].split("::")[-1].split(".")[-1] in n)[:5]
        report.fail(f"{label}: no FUNC named {name!r} (near: {near})")


def check_lines(report, label, binary, base, sym, language):
    """llvm-symbolizer-19's line at every line record of the own functions."""
    probes = {}
    for f in sym.funcs:
        if f.name in OWN[language]:
            for address, _, line, file in f.lines:
                probes[address] = (line, sym.files.get(file))
    answers = oracles.symbolize(binary, [a + base for a in sorted(probes)])
    for address, (line, file) in sorted(probes.items()):
        frames = answers.get(address + base) or []
        if not frames or not frames[0].get("Line"):
            continue
        if (frames[0]["Line"], frames[0]["FileName"]) != (line, file):
            report.fail(f"{label} {address:x}: line {file}:{line}, llvm-symbolizer "
                        f"{frames[0]['FileName']}:{frames[0]['Line']}")
    return len(probes)


def check_inlines_agree(report, label, sym, inlined):
    """-d changes no FUNC name."""
    if [(f.address, f.name) for f in sym.funcs] != [(f.address, f.name) for f in inlined.funcs]:
        report.fail(f"{label}: FUNC names differ with -d")


def rust(args, report, binary, language):
    base = oracles.load_address(binary)
    sym, _ = dump(args, binary)
    inlined, _ = dump(args, binary, "-d")
    check_inlines_agree(report, language, sym, inlined)
    check_own(report, language, sym, language)
    dies = subprograms(binary)
    symbols = elf_symbols(binary)

    def demangle(names):
        # Debian's std is legacy-mangled whatever the program's own code is.
        v0 = [n for n in names if n.startswith("_R")]
        v0_names = dict(zip(v0, filter_names([f"{LLVM}/llvm-cxxfilt"], v0)))
        return [v0_names.get(n) or rust_legacy(n) for n in names]
    expected = []
    linkage = [d for d in dies if d[2].startswith(("_ZN", "_R"))]
    for (low_pc, _, _, _), name in zip(linkage, demangle([d[2] for d in linkage])):
        if name:
            expected.append((low_pc, [name], "DWARF's linkage name"))
    mangled = [s for s in symbols if s[2].startswith(("_ZN", "_R"))]
    for (address, _, _), name in zip(mangled, demangle([s[2] for s in mangled])):
        if name:
            expected.append((address, [name], "the symbol table"))
    # One entry address may carry several names (generic instances folded
    # together): any of them will do.
    by_address = defaultdict(set)
    for address, names, _ in expected:
        by_address[address].update(names)
    expected = [(a, sorted(by_address[a]), what) for a, _, what in expected]
    checked = check_expected(report, language, base, sym, expected)
    if language == "rust" and checked < 500:
        report.fail(f"rust: only {checked} names checked")
    hashed = [n for n in [f.name for f in inlined.funcs] + [p[1] for p in inlined.publics] +
              list(inlined.origins.values()) if RUST_HASH.search(n)]
    if hashed:
        report.fail(f"{language}: {len(hashed)} default names keep a Rust hash, e.g. {hashed[:3]}")
    lines = check_lines(report, language, binary, base, sym, language)
    report.note(f"{language}: {checked} FUNC/PUBLIC names checked, {lines} line records, "
                f"no ::h<hash> left")
    if language == "rust":
        # Breakpad's dump_syms names Rust functions by their mangled linkage
        # name: the hash stays.
        breakpad, _ = dump(args, binary, "--names", "breakpad")
        at = names_at(breakpad)
        own = [(low_pc - base, link) for low_pc, _, link, _ in dies if link.startswith("_ZN6shapes")]
        for rva, link in own:
            if link not in at.get(rva, ()):
                report.fail(f"rust --names breakpad {rva:x}: {sorted(at.get(rva, ()))}, not {link}")
        if not own:
            report.fail("rust: no linkage name of the program's own functions in its DWARF")


def dlang(args, report, binary):
    base = oracles.load_address(binary)
    sym, _ = dump(args, binary)
    inlined, _ = dump(args, binary, "-d")
    check_inlines_agree(report, "d", sym, inlined)
    check_own(report, "d", sym, "d")
    cxxfilt = ["c++filt", "-s", "dlang"]
    dies = [d for d in subprograms(binary) if d[2].startswith("_D")]
    expected = [(d[0], [n], "c++filt -s dlang of the linkage name")
                for d, n in zip(dies, filter_names(cxxfilt, [d[2] for d in dies]))]
    symbols = [s for s in elf_symbols(binary) if s[2].startswith("_D")]
    expected += [(s[0], [n], "c++filt -s dlang of the symbol")
                 for s, n in zip(symbols, filter_names(cxxfilt, [s[2] for s in symbols]))]
    checked = check_expected(report, "d", base, sym, expected)
    lines = check_lines(report, "d", binary, base, sym, "d")
    report.note(f"d: {checked} names checked against c++filt, {lines} line records")


def fortran(args, report, binary, work):
    base = oracles.load_address(binary)
    sym, _ = dump(args, binary)
    inlined, _ = dump(args, binary, "-d")
    check_inlines_agree(report, "fortran", sym, inlined)
    check_own(report, "fortran", sym, "fortran")
    expected = [(low_pc, ["::".join(modules + [name])], "DW_TAG_module and DW_AT_name")
                for low_pc, name, _, modules in subprograms(binary) if name]
    checked = check_expected(report, "fortran", base, sym, expected)
    # Without DWARF, the symbol table's __module_MOD_procedure names the same.
    stripped = os.path.join(work, "grid-stripped")
    run(["objcopy", "--strip-debug", binary, stripped])
    bare, _ = dump(args, stripped)
    module = re.compile(r"^__([a-z][a-z0-9_]*)_MOD_([a-z][a-z0-9_]*)$")
    from_symbols = [(a, [f"{m.group(1)}::{m.group(2)}"], "the symbol table")
                    for a, _, n in elf_symbols(binary) for m in [module.match(n)] if m]
    if len(from_symbols) < 2:
        report.fail(f"fortran: {len(from_symbols)} module procedures in the symbol table")
    checked += check_expected(report, "fortran stripped", base, bare, from_symbols)
    lines = check_lines(report, "fortran", binary, base, sym, "fortran")
    report.note(f"fortran: {checked} names checked, {lines} line records")


def go_sized_symbols(binary):
    """address -> names of the symbols with a size, from `go tool nm -size`."""
    table = defaultdict(set)
    label = None
    for line in run(["go", "tool", "nm", "-size", binary]).splitlines():
        p = line.split(None, 3)
        if len(p) == 4 and p[2] in ("T", "t"):
            if int(p[1]) > 0:
                table[int(p[0], 16)].add(p[3])
            elif p[3] == "runtime.text":
                label = int(p[0], 16)
    return table, label


def go(args, report, binary, stripped):
    base = oracles.load_address(binary)
    sym, _ = dump(args, binary)
    inlined, _ = dump(args, binary, "-d")
    check_inlines_agree(report, "go", sym, inlined)
    check_own(report, "go", sym, "go")
    expected = [(low_pc, [name], "DW_AT_name") for low_pc, name, _, _ in subprograms(binary)]
    checked = check_expected(report, "go", base, sym, expected)
    for label, binary_, dumped in (("go", binary, sym), ("go without DWARF", stripped, None)):
        sized, text = go_sized_symbols(binary_)
        if text is None or text not in sized:
            report.fail(f"{label}: no runtime.text label at a sized symbol's address (nm: {text})")
            continue
        dumped = dumped or dump(args, binary_)[0]
        names = names_at(dumped).get(text - oracles.load_address(binary_), set())
        if not names or "runtime.text" in names or not names <= sized[text]:
            report.fail(f"{label}: runtime.text's address is named {sorted(names)}, "
                        f"not {sorted(sized[text])}")
        checked += 1
    lines = check_lines(report, "go", binary, base, sym, "go")
    report.note(f"go: {checked} names checked, {lines} line records")


def main():
    args = arguments()
    report = Report("languages")
    work = tempfile.mkdtemp()
    try:
        built = build(work, report)
        for language in ("rust", "rust-v0"):
            if language in built:
                rust(args, report, built[language], language)
        if "d" in built:
            dlang(args, report, built["d"])
        if "fortran" in built:
            fortran(args, report, built["fortran"], work)
        if "go" in built:
            go(args, report, built["go"], built["go-nodwarf"])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
