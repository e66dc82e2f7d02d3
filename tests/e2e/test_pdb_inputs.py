#!/usr/bin/env python3
"""How dump_syms finds a PE's PDB, and what it does with bad Windows input.

- The PDB is found at the path the PE records, beside the PE (the recorded
  path is a Windows one), in a DEBUG_DIR, or by --debug-file.
- A PDB whose GUID/age differs from the PE's is refused, naming both ids.
- Truncated and corrupted PDB and PE files, and missing ones: exit status 1,
  one error line naming the file, no output file; never a crash or a hang.
- `symstore add` on a release tree pairs each PE with the PDB of the
  release that has its GUID and age, dumps a PDB no PE claims on its own,
  and files each as `<name>.pdb/<ID>/<name>.sym`, byte-identical to what
  dump_syms writes for the pair; `sentry-cli debug-files check` finds each
  usable, with the debug id (GUID-age) and code id of its MODULE and INFO.
"""
import json
import os
import random
import re
import shutil
import subprocess
import tempfile

import common


def dump(args, *argv, timeout=60):
    p = subprocess.run([args.dump_syms, *argv], capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def module_line(text):
    return text.splitlines()[0] if text else ""


def expect_error(args, report, label, path, *argv, must_say=()):
    """One error line naming `path`, exit 1, no output file."""
    with tempfile.TemporaryDirectory() as out_dir:
        out = os.path.join(out_dir, "out.sym")
        try:
            rc, _, err = dump(args, path, *argv, "--output", out)
        except subprocess.TimeoutExpired:
            report.fail(f"{label}: dump_syms hangs")
            return False
        lines = err.strip().splitlines()
        if rc != 1:
            report.fail(f"{label}: exit status {rc} (want 1): {err.strip()[:300]}")
        elif len(lines) != 1 or not lines[0].startswith("dump_syms: error: "):
            report.fail(f"{label}: not one error line: {err.strip()[:300]!r}")
        elif os.path.basename(path) not in lines[0]:
            report.fail(f"{label}: the error does not name {path}: {lines[0]}")
        elif os.path.exists(out) or os.listdir(out_dir):
            report.fail(f"{label}: an output file was left")
        elif any(s not in lines[0] for s in must_say):
            report.fail(f"{label}: the error does not say {must_say}: {lines[0]}")
        else:
            return True
    return False


def check_symstore(args, report, pdb_dir, work):
    release, store = os.path.join(work, "release"), os.path.join(work, "store")
    for sub in ("bin", "symbols", "lone"):
        os.makedirs(os.path.join(release, sub))
    pairs = [("app.x86.O2.fp", "exe"), ("shapes.x86_64.O2.nofp", "exe"), ("both.x86_64.O2", "dll")]
    for base, ext in pairs:
        shutil.copy(os.path.join(pdb_dir, f"{base}.{ext}"), os.path.join(release, "bin"))
        shutil.copy(os.path.join(pdb_dir, f"{base}.pdb"), os.path.join(release, "symbols"))
    shutil.copy(os.path.join(pdb_dir, "shapes.x86.O0.fp.pdb"), os.path.join(release, "lone"))
    shutil.copy(os.path.join(pdb_dir, "app.x86.O2.fp.exe"), os.path.join(release, "lone", "copy.exe"))
    manifest = os.path.join(work, "manifest.json")
    p = subprocess.run([args.symstore, "add", store, release, "-d", "--manifest", manifest],
                       capture_output=True, text=True)
    if p.returncode != 0:
        report.fail(f"symstore add: exit status {p.returncode}: {p.stderr.strip()}")
        return
    with open(manifest) as fh:
        totals = json.load(fh)["totals"]
    want = {"written": 4, "duplicate": 1, "debug_files": 3, "failed": 0}
    for key, value in want.items():
        if totals.get(key) != value:
            report.fail(f"symstore add: {key} {totals.get(key)}, want {value}")
    expected = [(os.path.join(release, "bin", f"{b}.{e}"), os.path.join(release, "symbols", f"{b}.pdb"), b)
                for b, e in pairs] + [(os.path.join(release, "lone", "shapes.x86.O0.fp.pdb"), None, "shapes.x86.O0.fp")]
    for binary, pdb, base in expected:
        extra = ["--debug-file", pdb] if pdb else []
        rc, text, err = dump(args, binary, "-d", *extra)
        debug_id = module_line(text).split()[3] if rc == 0 else "?"
        stored = os.path.join(store, f"{base}.pdb", debug_id, f"{base}.sym")
        if not os.path.exists(stored):
            report.fail(f"symstore add: {stored} missing")
            continue
        if open(stored).read() != text:
            report.fail(f"symstore add: {stored} differs from dump_syms's file")
            continue
        report.note(f"symstore: {os.path.relpath(stored, store)}")
        check = subprocess.run([args.sentry_cli, "debug-files", "check", stored], capture_output=True, text=True)
        guid = debug_id[:32].lower()
        want_id = f"{guid[:8]}-{guid[8:12]}-{guid[12:16]}-{guid[16:20]}-{guid[20:]}-{debug_id[32:]}"
        code_id = (re.search(r"^INFO CODE_ID (\S+)", text, re.M) or [None, ""])[1].lower()
        if check.returncode != 0 or "Usable: yes" not in check.stdout or want_id not in check.stdout or \
                (code_id and f"Code ID:  {code_id}" not in check.stdout):
            report.fail(f"sentry-cli on {stored} (want {want_id}, {code_id}): {check.stdout[-400:]} {check.stderr[-200:]}")


def main():
    args = common.arguments(lambda p: (p.add_argument("--symstore", required=True),
                                       p.add_argument("--sentry-cli", required=True)))
    report = common.Report("pdb_inputs")
    pdb_dir = os.path.join(args.fixtures, "pdb")
    work = tempfile.mkdtemp()
    try:
        # ---- finding the PDB
        reference = module_line(dump(args, os.path.join(pdb_dir, "alt.x86_64.O2.pdb"))[1])
        alt = os.path.join(pdb_dir, "alt.x86_64.O2.exe")
        rc, out, err = dump(args, alt)  # recorded C:\build\..., found beside the PE
        if rc != 0 or module_line(out) != reference:
            report.fail(f"PDB beside the PE not found: {err.strip()}")
        lone = os.path.join(work, "lone")
        os.makedirs(lone)
        shutil.copy(alt, lone)
        lone_exe = os.path.join(lone, "alt.x86_64.O2.exe")
        rc, out, err = dump(args, lone_exe, pdb_dir)  # in a DEBUG_DIR
        if rc != 0 or module_line(out) != reference or "INFO CODE_ID" not in out:
            report.fail(f"PDB in a DEBUG_DIR not found: {err.strip()}")
        rc, out, err = dump(args, lone_exe, "--debug-file", os.path.join(pdb_dir, "alt.x86_64.O2.pdb"))
        if rc != 0 or module_line(out) != reference:
            report.fail(f"--debug-file not used: {err.strip()}")
        # (no PDB anywhere: the PE alone is dumped, test_pe_only.py; a
        # --debug-file that is not there is an error)
        expect_error(args, report, "--debug-file that is not there", lone_exe, "--debug-file",
                     os.path.join(work, "missing.pdb"), must_say=("missing.pdb", "not found"))
        # A renamed PDB keeps the name the PE records (what a minidump asks for).
        renamed = os.path.join(work, "renamed.pdb")
        shutil.copy(os.path.join(pdb_dir, "alt.x86_64.O2.pdb"), renamed)
        rc, out, err = dump(args, lone_exe, "--debug-file", renamed)
        if rc != 0 or module_line(out) != reference:
            report.fail(f"--debug-file renamed.pdb: {module_line(out)!r} != {reference!r} {err.strip()}")
        # At its recorded (absolute, Linux) path, from elsewhere.
        elsewhere = os.path.join(work, "elsewhere")
        os.makedirs(elsewhere)
        shutil.copy(os.path.join(pdb_dir, "app.x86.O2.fp.exe"), elsewhere)
        rc, out, err = dump(args, os.path.join(elsewhere, "app.x86.O2.fp.exe"))
        if rc != 0 or "app.x86.O2.fp.pdb" not in module_line(out):
            report.fail(f"PDB at its recorded path not found: {err.strip()}")

        # ---- a PDB of another build
        wrong = os.path.join(pdb_dir, "app.x86.O0.fp.pdb")
        pe_id = module_line(dump(args, os.path.join(pdb_dir, "app.x86.O2.fp.pdb"))[1]).split()[3]
        wrong_id = module_line(dump(args, wrong)[1]).split()[3]
        expect_error(args, report, "--debug-file of another build", os.path.join(pdb_dir, "app.x86.O2.fp.exe"),
                     "--debug-file", wrong, must_say=(pe_id, wrong_id))
        swapped = os.path.join(work, "swapped")
        os.makedirs(swapped)
        shutil.copy(alt, swapped)
        shutil.copy(os.path.join(pdb_dir, "app.x86_64.O2.nofp.pdb"), os.path.join(swapped, "alt.x86_64.O2.pdb"))
        expect_error(args, report, "another build's PDB beside the PE", os.path.join(swapped, "alt.x86_64.O2.exe"),
                     must_say=("does not belong",))

        # ---- missing, truncated and corrupt files
        expect_error(args, report, "missing PDB", os.path.join(work, "absent.pdb"))
        expect_error(args, report, "missing PE", os.path.join(work, "absent.exe"))
        checked = clean = 0
        rng = random.Random(11)
        for base, image in (("app.x86.O2.nofp", "exe"), ("shapes.x86_64.O2.fp", "exe"), ("both.x86.O2", "dll")):
            for kind in ("pdb", image):
                data = open(os.path.join(pdb_dir, f"{base}.{kind}"), "rb").read()
                cases = [("truncated", data[:n]) for n in sorted({0, 1, 2, 63, 64, 100, 512, 4096, len(data) // 3,
                                                                  len(data) // 2, len(data) - 4096, len(data) - 1})
                         if 0 <= n < len(data)]
                for trial in range(40):
                    corrupt = bytearray(data)
                    for _ in range(rng.choice((1, 4, 16, 64))):
                        corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
                    cases.append((f"corrupt #{trial}", bytes(corrupt)))
                for label, blob in cases:
                    case_dir = os.path.join(work, "case")
                    shutil.rmtree(case_dir, ignore_errors=True)
                    os.makedirs(case_dir)
                    for k in ("pdb", image):
                        with open(os.path.join(case_dir, f"{base}.{k}"), "wb") as fh:
                            fh.write(blob if k == kind else open(os.path.join(pdb_dir, f"{base}.{k}"), "rb").read())
                    target = os.path.join(case_dir, f"{base}.{kind}")
                    checked += 1
                    if label.startswith("truncated"):
                        if expect_error(args, report, f"{base}.{kind} {label} to {len(blob)} bytes", target):
                            clean += 1
                        continue
                    # A corrupted byte may lie where nothing reads it: then a
                    # file is written; otherwise the error rules hold.
                    out = os.path.join(case_dir, "out.sym")
                    try:
                        rc, _, err = dump(args, target, "-d", "--output", out)
                    except subprocess.TimeoutExpired:
                        report.fail(f"{base}.{kind} {label}: hangs")
                        continue
                    if rc == 0 and os.path.exists(out):
                        clean += 1
                    elif rc == 1 and len(err.strip().splitlines()) == 1 and not os.path.exists(out):
                        clean += 1
                    else:
                        report.fail(f"{base}.{kind} {label}: exit status {rc}: {err.strip()[:200]!r}")
        report.note(f"{checked} truncated or corrupted files: {clean} gave a file or one error line")
        check_symstore(args, report, pdb_dir, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
