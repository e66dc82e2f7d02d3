#!/usr/bin/env python3
"""PDBs of images rewritten after linking (OMAP), on fixtures this test
makes (omap_rewrite.py: the x86 PE/PDB fixtures' .text cut into blocks,
laid out again with each procedure's halves apart and one gap dropped, the
PDB given OMAP_FROM_SRC and OMAP_TO_SRC; each fixture twice: without
SectionHdrOrig, as real reordered PDBs often are (`llvm-pdbutil dump
--section-headers` finds none), and with it).

The oracle is the un-rewritten pair: at every byte A' of the rewritten
image's code, our file's function, file, line and inline frames are what
`llvm-symbolizer --inlining` says of the original image at A, the original
address the known permutation gives for A' (wherever our dump of the
original agrees with llvm-symbolizer there, which pdb_vs_llvm_tools
checks); the STACK WIN record covering A' has the fields of the one
covering A; every PUBLIC moves with its block; nothing covers the shipped
bytes no original code maps to; a procedure whose halves were moved apart
is several FUNC records; every procedure `llvm-pdbutil dump --symbols`
lists in the original PDB is one FUNC record, of one name, for each run of
the shipped bytes the permutation moves it to, and no other FUNC is
written; symcheck validate passes.
"""
import os
import shutil
import subprocess
import tempfile

import common
import omap_rewrite
import oracles
import symfile

FIXTURES = ["app.x86.O2.fp", "app.x86.O2.nofp", "shapes.x86.O2.fp", "shapes.x86.O0.fp"]
MSVC = "dump_syms_regtest64"  # ../shared/windows: the MSVC-built x64 pair
IMAGE_BASE = 0x400000


def dump(args, path):
    p = subprocess.run([args.dump_syms, "-d", path], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f"dump_syms {path}: {p.stderr.strip()}")
    return p.stdout


def image_base(exe):
    out = subprocess.run([f"{omap_rewrite.LLVM}/llvm-readobj", "--file-headers", exe],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.strip().startswith("ImageBase:"):
            return int(line.split()[-1], 16)
    return IMAGE_BASE


def stack_win_at(records, rva):
    """The fields (all but address and size) of the records covering `rva`."""
    return sorted(tuple(r[:1] + r[3:]) for r in records if r[1] <= rva < r[1] + r[2])


def stack_win_records(text):
    out = []
    for line in text.splitlines():
        if line.startswith("STACK WIN "):
            f = line.split(" ", 12)
            out.append([f[2], int(f[3], 16), int(f[4], 16)] + f[5:])
    return out


def shipped_runs(permutation, start, end):
    """The shipped [start, end) runs the original [start, end) moved to."""
    runs = []
    for address in range(start, end):
        moved = permutation.to_shipped(address)
        if moved is None:
            continue
        if runs and runs[-1][1] == moved:
            runs[-1][1] = moved + 1
        else:
            runs.append([moved, moved + 1])
    return sorted(tuple(r) for r in runs)


def has_original_section_headers(pdb):
    out = subprocess.run([f"{omap_rewrite.LLVM}/llvm-pdbutil", "dump", "--section-headers", pdb],
                         capture_output=True, text=True, check=True).stdout
    original = out[out.index("Original Section Headers"):]
    return "does not contain the requested image section header" not in original


def check_procedures(report, stem, pdb, exe, permutation, rewritten, totals):
    """Each original procedure (llvm-pdbutil) as FUNC records at the runs the
    permutation gives, one name for all of them; no FUNC besides."""
    sections = [s["va"] for s in omap_rewrite._pe_sections(open(exe, "rb").read())]
    funcs = {(f.address, f.address + f.size): f.name for f in rewritten.funcs}
    expected = set()
    for start, end in omap_rewrite._procedures(pdb, sections):
        runs = shipped_runs(permutation, start, end)
        expected.update(runs)
        names = {funcs.get(run) for run in runs}
        totals["procedures"] += 1
        if None in names or len(names) != 1:
            report.fail(f"{stem}: procedure {start:#x}-{end:#x} moved to {[(hex(a), hex(b)) for a, b in runs]}: "
                        f"FUNC records {[(hex(a), hex(b)) for a, b in funcs if any(a < e and s < b for s, e in runs)]}")
        else:
            totals["procedures_agree"] += 1
    for extra in sorted(set(funcs) - expected)[:5]:
        report.fail(f"{stem}: FUNC {funcs[extra]} at {extra[0]:#x}-{extra[1]:#x} is no procedure's")


def main():
    args = common.arguments()
    common.require_shared(args)
    report = common.Report("omap")
    pdb_dir = os.path.join(args.fixtures, "pdb")
    work = tempfile.mkdtemp()
    totals = {"bytes": 0, "agree": 0, "padding": 0, "split": 0, "publics": 0, "stack_win": 0,
              "procedures": 0, "procedures_agree": 0, "pdbs": 0, "without_original_headers": 0}
    try:
        pairs = [(pdb_dir, s) for s in FIXTURES] + [(os.path.join(args.shared, "windows"), MSVC)]
        for (where, stem), original_headers in [(p, h) for p in pairs for h in (False, True)]:
            exe, pdb = os.path.join(where, stem + ".exe"), os.path.join(where, stem + ".pdb")
            variant = os.path.join(work, "with" if original_headers else "without")
            os.makedirs(variant, exist_ok=True)
            out_exe, out_pdb = os.path.join(variant, stem + ".exe"), os.path.join(variant, stem + ".pdb")
            permutation = omap_rewrite.rewrite(exe, pdb, out_exe, out_pdb, original_headers)
            totals["pdbs"] += 1
            if has_original_section_headers(out_pdb) != original_headers:
                report.fail(f"{stem}: llvm-pdbutil finds SectionHdrOrig {not original_headers}ly")
            elif not original_headers:
                totals["without_original_headers"] += 1
            if not original_headers:
                stem += " (no SectionHdrOrig)"
            original_text, rewritten_text = dump(args, pdb), dump(args, out_pdb)
            original, rewritten = symfile.SymFile(original_text), symfile.SymFile(rewritten_text)
            for problem in rewritten.structural_problems()[:5]:
                report.fail(f"{stem}: {problem}")
            sym_path = out_pdb + ".sym"
            with open(sym_path, "w") as fh:
                fh.write(rewritten_text)
            check = subprocess.run(["python3", os.path.join(args.shared, "tools", "symcheck.py"),
                                    "validate", sym_path], capture_output=True, text=True)
            if check.returncode != 0:
                report.fail(f"{stem}: symcheck validate: {check.stdout.strip().splitlines()[-1:]}")

            check_procedures(report, stem, pdb, exe, permutation, rewritten, totals)
            base = image_base(exe)
            code = [a for s, e in permutation.shipped_code() for a in range(s, e)]
            originals = {a: permutation.to_original(a) for a in code}
            frames = oracles.symbolize(exe, sorted({base + o for o in originals.values()}), inlining=True)
            win_original, win_rewritten = stack_win_records(original_text), stack_win_records(rewritten_text)
            for shipped, orig in originals.items():
                theirs = [(f["FunctionName"], f["FileName"], f["Line"]) for f in frames.get(base + orig, [])]
                ours_before = original.inline_stack(orig)
                ours = rewritten.inline_stack(shipped)
                totals["bytes"] += 1
                if ours != ours_before:
                    report.fail(f"{stem} {shipped:#x} (originally {orig:#x}): {ours} != {ours_before}")
                elif ours_before == theirs:
                    totals["agree"] += 1
                elif not ours_before:
                    totals["padding"] += 1  # between procedures: no FUNC, the symbolizer's nearest symbol
                if stack_win_at(win_rewritten, shipped) != stack_win_at(win_original, orig):
                    report.fail(f"{stem} {shipped:#x}: STACK WIN {stack_win_at(win_rewritten, shipped)} != "
                                f"{stack_win_at(win_original, orig)}")
                elif stack_win_at(win_original, orig):
                    totals["stack_win"] += 1
            # Nothing covers the shipped bytes no original code maps to.
            covered = set(code)
            for f in rewritten.funcs:
                stray = [a for a in range(f.address, f.address + f.size) if a not in covered]
                if stray:
                    report.fail(f"{stem}: FUNC {f.name} covers {stray[0]:#x}, where no original code is")
            names = [f.name for f in rewritten.funcs]
            totals["split"] += sum(1 for n in set(names) if names.count(n) > 1)
            for line in original_text.splitlines():
                if line.startswith("PUBLIC "):
                    f = line.split(" ", 3)
                    moved = permutation.to_shipped(int(f[1], 16))
                    want = None if moved is None else f"PUBLIC {moved:x} {f[2]} {f[3]}"
                    if want and want not in rewritten_text.splitlines():
                        report.fail(f"{stem}: {line} did not move to {moved:#x}")
                    totals["publics"] += 1
        if totals["split"] == 0:
            report.fail("no procedure became several FUNC records")
        if not totals["without_original_headers"]:
            report.fail("no rewritten PDB without SectionHdrOrig")
        report.note(f"{totals['pdbs']} rewritten PDBs, {totals['without_original_headers']} without SectionHdrOrig; "
                    f"original procedures (llvm-pdbutil) as FUNC records where the permutation moved them: "
                    f"{totals['procedures_agree']}/{totals['procedures']}")
        report.note(f"{totals['bytes']} rewritten code bytes as in the original image "
                    f"({totals['agree']} of them also equal llvm-symbolizer's frames there, "
                    f"{totals['padding']} padding between procedures); "
                    f"{totals['split']} procedures in several FUNC records; {totals['stack_win']} bytes "
                    f"under the original's STACK WIN; {totals['publics']} PUBLIC records moved")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
