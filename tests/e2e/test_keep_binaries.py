#!/usr/bin/env python3
"""`symstore add --keep-binaries`: the binaries and debug files of a release
kept in the store beside the .sym files, where debuginfod and Microsoft
symbol-server (SSQP) clients of `symstore serve` ask for them.

Fixtures: gcc -g with --build-id (DWARF in the executable itself), a
library stripped with objcopy (--only-keep-debug + --add-gnu-debuglink)
whose debug file is in the release, an executable whose debug file is
found through --debug-dir by its .gnu_debuglink, an ELF without a build id,
a MinGW-w64 PE (no CodeView record), the MSVC x64 PE + PDB and the x86
PDB alone of ../shared/windows, and a Mach-O program with its dSYM.
Judged by:

- `readelf -n`: each ELF's build id gives the .build-id entry's path
  (.build-id/<2 hex>/<rest>, lower case) and, read the way Breakpad reads
  it, the debug id of the kept files' directory; the entry names the
  executable and the debug file (the executable itself when it carries
  its DWARF); no entry names the ELF without a build id;
- `llvm-readobj-19 --file-headers --coff-debug-directory`: TimeDateStamp and
  SizeOfImage give the PE's SSQP path <exe>/<STAMP><SIZE>/<exe>, the
  CodeView GUID and age give the PDB's <pdb>/<GUIDAGE>/<pdb>; for the PDB
  alone, `llvm-pdbutil-19 dump --summary`'s GUID and age;
- `llvm-dwarfdump-19 --uuid`: the Mach-O file's UUID gives the directory
  of it and its dSYM's DWARF file (<name>.dwarf);
- `cmp`: every kept file is byte-identical to its input;
- `debuginfod-find` against `symstore serve` over the store gets each build
  id's executable and debuginfo (the dwz file's too), byte-identical; gdb
  with debuginfod finds a stripped dwz'd binary's line (from its source)
  through the server alone, fetching its debug file and the dwz file;
- the manifest's "kept" lists exactly these paths;
- a second run copies nothing (every file's mtime, to the ns, unchanged),
  --force changes no kept file whose bytes are the same, and a store made
  without --keep-binaries gets the binaries on a run with it while its
  .sym files stay as they were.
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

import common
import macho_fixtures
import oracles

LLVM = "/usr/lib/llvm-19/bin"

MAIN_C = r"""
#include <stdio.h>
int helper(int x) { return x * 3 + 1; }
int main(int argc, char **argv) { (void)argv; printf("%d\n", helper(argc)); return 0; }
"""
CXX_MAIN = r"""
#include <map>
#include <string>
#include <vector>
int count_words(const std::vector<std::string>& words) {
  std::map<std::string, int> seen;
  for (const auto& w : words) ++seen[w];
  return static_cast<int>(seen.size());
}
int main(int argc, char** argv) { return count_words(std::vector<std::string>(argv, argv + argc)); }
"""
LIB_C = r"""
int kept_function(int x) { return x * 7 - 2; }
int other_function(int x) { return kept_function(x) + 5; }
"""


def run(cmd, **kwargs):
    p = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p


def breakpad_debug_id(build_id_hex):
    """The first 16 bytes of an ELF build id as Breakpad's GUID (the first
    three fields byte-swapped), upper case, with age 0."""
    b = bytes.fromhex(build_id_hex)[:16].ljust(16, b"\0")
    swapped = b[3::-1] + b[5:3:-1] + b[7:5:-1] + b[8:]
    return swapped.hex().upper() + "0"


def pe_facts(pe):
    out = run([f"{LLVM}/llvm-readobj", "--file-headers", "--coff-debug-directory", pe]).stdout
    stamp = int(re.search(r"TimeDateStamp: .*\((0x[0-9A-F]+)\)", out).group(1), 16)
    size = int(re.search(r"^\s*SizeOfImage: (\d+)", out, re.M).group(1))
    facts = {"code_id": f"{stamp:08X}{size:X}"}
    guid = re.search(r"PDBGUID: \{([0-9A-F-]+)\}", out)
    if guid:
        age = int(re.search(r"PDBAge: (\d+)", out).group(1))
        facts["debug_id"] = guid.group(1).replace("-", "") + format(age, "X")
        facts["pdb"] = re.split(r"[\\/]", re.search(r"PDBFileName: (.*)$", out, re.M).group(1).strip())[-1]
    return facts


def same_bytes(a, b):
    return subprocess.run(["cmp", "-s", a, b]).returncode == 0


def snapshot(store):
    """Every file of the store (links too) with its mtime in ns."""
    files = {}
    for root, _dirs, names in os.walk(store):
        for name in names:
            path = os.path.join(root, name)
            files[os.path.relpath(path, store)] = os.lstat(path).st_mtime_ns
    return files


def symstore_add(args, store, release, *extra):
    manifest = os.path.join(os.path.dirname(store), "manifest.json")
    p = subprocess.run([args.symstore, "add", store, release, "-q", "--manifest", manifest, *extra],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        raise SystemExit(f"symstore add {' '.join(extra)} failed ({p.returncode}): {p.stderr.strip()}")
    with open(manifest) as fh:
        return json.load(fh)


def build_fixtures(work):
    release = os.path.join(work, "release")
    debug_dir = os.path.join(work, "debug-dir")
    os.makedirs(release)
    os.makedirs(debug_dir)
    with open(os.path.join(work, "main.c"), "w") as fh:
        fh.write(MAIN_C)
    with open(os.path.join(work, "lib.c"), "w") as fh:
        fh.write(LIB_C)
    main_c, lib_c = os.path.join(work, "main.c"), os.path.join(work, "lib.c")
    elves = {}  # file name in the release -> its separate debug file, or None

    # DWARF in the executable itself.
    run(["gcc", "-g", "-O1", "-Wl,--build-id", "-o", f"{release}/withdwarf", main_c])
    elves["withdwarf"] = None
    # The same file under another name: another module of the same build
    # id, which shares its .build-id entry.
    shutil.copy(f"{release}/withdwarf", f"{release}/withdwarf-copy")
    elves["withdwarf-copy"] = None

    # A library stripped beside its debug file, both in the release.
    run(["gcc", "-g", "-O1", "-shared", "-fPIC", "-Wl,--build-id", "-o", f"{release}/libkept.so", lib_c])
    run(["objcopy", "--only-keep-debug", f"{release}/libkept.so", f"{release}/libkept.so.debug"])
    run(["objcopy", "--strip-debug", f"--add-gnu-debuglink={release}/libkept.so.debug",
         f"{release}/libkept.so"])
    elves["libkept.so"] = f"{release}/libkept.so.debug"

    # An executable whose debug file only --debug-dir has (by its debuglink).
    run(["gcc", "-g", "-O2", "-Wl,--build-id", "-o", f"{work}/linked", main_c])  # another build id
    run(["objcopy", "--only-keep-debug", f"{work}/linked", f"{debug_dir}/linked.dbg"])
    run(["objcopy", "--strip-debug", f"--add-gnu-debuglink={debug_dir}/linked.dbg",
         f"{work}/linked", f"{release}/linked"])
    elves["linked"] = f"{debug_dir}/linked.dbg"

    # No build id: its module id is a hash of .text.
    run(["gcc", "-g", "-O1", "-Wl,--build-id=none", "-o", f"{release}/nobuildid", main_c])
    elves["nobuildid"] = None

    # Two C++ programs whose shared DWARF dwz moved into one supplementary
    # file, which their .gnu_debugaltlink names (with its build id).
    dwz_dir = os.path.join(work, "dwz")
    os.makedirs(dwz_dir)
    for name, word in (("dwz-a", "count_words"), ("dwz-b", "tally_words")):
        source = os.path.join(work, f"{name}.cpp")
        with open(source, "w") as fh:
            fh.write(CXX_MAIN.replace("count_words", word))
        run(["g++", "-g", "-O0", "-Wl,--build-id", "-o", f"{release}/{name}", source])
    common_debug = os.path.join(dwz_dir, "common.debug")
    run(["dwz", "-m", common_debug, "-M", common_debug, f"{release}/dwz-a", f"{release}/dwz-b"])
    dwz = {"dwz-a": common_debug, "dwz-b": common_debug}
    # dwz-a stripped, its debug file (still linking the dwz file) in --debug-dir.
    run(["objcopy", "--only-keep-debug", f"{release}/dwz-a", f"{debug_dir}/dwz-a.debug"])
    run(["objcopy", "--strip-debug", f"--add-gnu-debuglink={debug_dir}/dwz-a.debug", f"{release}/dwz-a"])
    elves["dwz-a"] = f"{debug_dir}/dwz-a.debug"
    elves["dwz-b"] = None

    # A Mach-O program (clang-19 + ld64.lld-19) with its dSYM in the release.
    obj = os.path.join(work, "program.o")
    macho_fixtures.compile_one("program.c", "x86_64-apple-macos11", "O2", True, obj)
    macho = os.path.join(release, "macprog")
    macho_fixtures.link([obj], "x86_64", "macos", "11.0", macho)
    run([f"{LLVM}/dsymutil", macho, "-o", macho + ".dSYM"])
    machos = {"macprog": os.path.join(macho + ".dSYM", "Contents", "Resources", "DWARF", "macprog")}

    pes = []
    if shutil.which("x86_64-w64-mingw32-gcc"):
        run(["x86_64-w64-mingw32-gcc", "-g", "-O1", "-o", f"{release}/mingw.exe", main_c])
        pes.append("mingw.exe")
    return release, debug_dir, elves, pes, dwz, machos


def expected_files(args, release, elves, pes, dwz, machos):
    """store-relative path -> the input file it must equal, from the oracles;
    plus the .build-id entries: path -> (executable, debuginfo)."""
    files, entries = {}, {}
    sym_ids = {}
    for name, debug in elves.items():
        binary = f"{release}/{name}"
        build_id = oracles.build_id(binary)
        if build_id is None:
            # Without a build id the id is the .text hash: take the directory
            # the .sym went to (its layout is checked elsewhere).
            dirs = os.listdir(os.path.join(args.store, name))
            assert len(dirs) == 1, dirs
            debug_id = dirs[0]
        else:
            debug_id = breakpad_debug_id(build_id)
        sym_ids[name] = debug_id
        executable = f"{name}/{debug_id}/{name}"
        files[executable] = binary
        debuginfo = executable
        if debug:
            debuginfo = f"{name}/{debug_id}/{name}.debug"
            files[debuginfo] = debug
        if build_id:
            # Of modules sharing a build id, the entry names the one whose
            # executable's path sorts first.
            key = f".build-id/{build_id[:2]}/{build_id[2:]}"
            entries[key] = min(entries.get(key, (executable, debuginfo)), (executable, debuginfo))
        if name in dwz:
            kept_dwz = f"{name}/{debug_id}/{name}.dwz"
            files[kept_dwz] = dwz[name]
            alt_id = oracles.build_id(dwz[name])
            key = f".build-id/{alt_id[:2]}/{alt_id[2:]}"
            entries[key] = min(entries.get(key, ("", kept_dwz)), ("", kept_dwz))
    for name, dwarf in machos.items():
        # The UUID as llvm-dwarfdump prints it, with age 0.
        uuid = macho_fixtures.uuids(f"{release}/{name}")["x86_64"]
        if macho_fixtures.uuids(dwarf)["x86_64"] != uuid:
            raise SystemExit(f"{dwarf}: not the dSYM of {name}")
        files[f"{name}/{uuid}0/{name}"] = f"{release}/{name}"
        files[f"{name}/{uuid}0/{name}.dwarf"] = dwarf
    for name in pes:
        facts = pe_facts(f"{release}/{name}")
        files[f"{name}/{facts['code_id']}/{name}"] = f"{release}/{name}"
    return files, entries


def check_store(report, store, files, entries, label):
    for relative, source in sorted(files.items()):
        kept = os.path.join(store, relative)
        if not os.path.isfile(kept):
            report.fail(f"{label}: {relative} (from {source}) is not in the store")
        elif not same_bytes(kept, source):
            report.fail(f"{label}: {relative} differs from {source}")
    build_id_root = os.path.join(store, ".build-id")
    found = set()
    for root, _dirs, names in os.walk(build_id_root):
        for name in names:
            found.add(os.path.relpath(os.path.join(root, name), store))
    if found != set(entries):
        report.fail(f"{label}: .build-id entries {sorted(found)}, expected {sorted(entries)}")
    for relative, (executable, debuginfo) in entries.items():
        path = os.path.join(store, relative)
        if not os.path.isfile(path):
            continue
        with open(path) as fh:
            text = fh.read()
        want = (f"executable {executable}\n" if executable else "") + f"debuginfo {debuginfo}\n"
        if text != want:
            report.fail(f"{label}: {relative} holds {text!r}, expected {want!r}")


def check_debuginfod(args, report, store, files, entries):
    """debuginfod-find, pointed at `symstore serve` over the store, gets each
    build id's executable and debuginfo, byte-identical to the inputs."""
    from serve_process import ServeProcess
    cache = tempfile.mkdtemp(prefix="debuginfod-cache-")
    fetched = 0
    try:
        with ServeProcess(args.symstore, store, quiet=True) as server:
            env = dict(os.environ, DEBUGINFOD_URLS=server.url, DEBUGINFOD_CACHE_PATH=cache,
                       DEBUGINFOD_TIMEOUT="30")
            for relative, (executable, debuginfo) in sorted(entries.items()):
                build_id = relative.replace(".build-id/", "").replace("/", "")
                for kind, kept in (("executable", executable), ("debuginfo", debuginfo)):
                    if not kept:
                        continue
                    p = subprocess.run(["debuginfod-find", kind, build_id], capture_output=True,
                                       text=True, env=env, timeout=120)
                    path = p.stdout.strip()
                    if p.returncode != 0 or not os.path.isfile(path):
                        report.fail(f"debuginfod-find {kind} {build_id}: {p.stderr.strip()}")
                    elif not same_bytes(path, files[kept]):
                        report.fail(f"debuginfod-find {kind} {build_id} differs from {files[kept]}")
                    else:
                        fetched += 1
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    report.note(f"debuginfod-find over symstore serve: {fetched} files byte-identical to the inputs")


def check_gdb(args, report, store, binary, work, dwz_build_id):
    """gdb with debuginfod pointed at `symstore serve` finds the line of a
    function of a stripped binary (the source says which line), having
    fetched the dwz file its debug file refers to."""
    from serve_process import ServeProcess
    with open(os.path.join(work, "dwz-a.cpp")) as fh:
        line = next(i for i, text in enumerate(fh.read().splitlines(), 1) if "int count_words(" in text)
    cache = tempfile.mkdtemp(prefix="gdb-debuginfod-cache-")
    try:
        with ServeProcess(args.symstore, store, quiet=True) as server:
            env = dict(os.environ, DEBUGINFOD_URLS=server.url, DEBUGINFOD_CACHE_PATH=cache,
                       DEBUGINFOD_TIMEOUT="30", HOME=work)
            p = subprocess.run(["gdb", "-nx", "-batch", "-iex", "set debuginfod enabled on",
                                "-ex", "info line count_words", binary],
                               capture_output=True, text=True, env=env, timeout=300)
        if not re.search(rf'Line {line} of "[^"]*dwz-a\.cpp"', p.stdout):
            report.fail(f"gdb over symstore serve: no line {line} of dwz-a.cpp for count_words: "
                        f"{(p.stdout + p.stderr).strip()[-600:]}")
        elif not os.path.isfile(os.path.join(cache, dwz_build_id, "debuginfo")):
            report.fail(f"gdb over symstore serve did not fetch the dwz file {dwz_build_id}")
        else:
            report.note(f"gdb over symstore serve: count_words at line {line} of dwz-a.cpp, "
                        f"the debug file and the dwz file fetched")
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def kept_in_manifest(manifest):
    kept = set()
    for entry in manifest["entries"]:
        kept.update(entry.get("kept", []))
    return kept


def main():
    args = common.arguments(lambda p: p.add_argument("--symstore", required=True))
    common.require_shared(args)
    report = common.Report("symstore_keep_binaries")
    work = tempfile.mkdtemp(prefix="keep-binaries-")
    try:
        release, debug_dir, elves, pes, dwz, machos = build_fixtures(work)
        windows = os.path.join(args.shared, "windows")
        for name in ("dump_syms_regtest64.exe", "dump_syms_regtest64.pdb", "dump_syms_regtest.pdb"):
            shutil.copy(os.path.join(windows, name), release)
        pes.append("dump_syms_regtest64.exe")

        store = os.path.join(work, "store")
        args.store = store
        manifest = symstore_add(args, store, release, "--keep-binaries", "--debug-dir", debug_dir,
                                "--no-debuginfod")
        files, entries = expected_files(args, release, elves, pes, dwz, machos)
        pdb = pe_facts(f"{release}/dump_syms_regtest64.exe")
        files[f"{pdb['pdb']}/{pdb['debug_id']}/{pdb['pdb']}"] = f"{release}/dump_syms_regtest64.pdb"
        # A PDB without its PE in the release is kept alone, under the GUID
        # and age llvm-pdbutil reads.
        summary = run([f"{LLVM}/llvm-pdbutil", "dump", "--summary", f"{release}/dump_syms_regtest.pdb"]).stdout
        guid = re.search(r"GUID: \{([0-9A-F-]+)\}", summary).group(1).replace("-", "")
        age = int(re.search(r"Age: (\d+)", summary).group(1))
        lone = "dump_syms_regtest.pdb"
        files[f"{lone}/{guid}{age:X}/{lone}"] = f"{release}/{lone}"
        check_store(report, store, files, entries, "first run")
        listed = kept_in_manifest(manifest)
        if listed != set(files) | set(entries):
            report.fail(f"manifest kept lists {sorted(listed)}, expected {sorted(set(files) | set(entries))}")
        report.note(f"{len(files)} kept files and {len(entries)} .build-id entries checked "
                    f"against readelf, llvm-readobj, llvm-dwarfdump, llvm-pdbutil and cmp")
        check_debuginfod(args, report, store, files, entries)

        # An upload (put, s3) sends the .sym files, the kept files and the
        # .build-id entries, in that order; --no-binaries the .sym files
        # alone. The code-id links are never listed.
        everything = {}
        for root, dirs, names in os.walk(store):
            dirs[:] = [d for d in dirs if not d.startswith(".") or (root == store and d == ".build-id")]
            for name in names:
                full = os.path.join(root, name)
                if not name.startswith(".") and not os.path.islink(full):
                    everything[os.path.relpath(full, store)] = os.path.getsize(full)
        syms = sorted(p for p in everything if p.endswith(".sym"))
        index_entries = sorted(p for p in everything if p.startswith(".build-id/"))
        kept_paths = sorted(set(everything) - set(syms) - set(index_entries))
        for flags, want in ((["--no-binaries"], syms), ([], syms + kept_paths + index_entries)):
            p = subprocess.run([args.symstore, "upload", store, "--to", "http://127.0.0.1:9/",
                                "--dry-run", *flags], capture_output=True, text=True, timeout=120)
            lines = [line.split() for line in p.stdout.splitlines() if line.strip()]
            listed_paths = [fields[0] for fields in lines]
            # Each phase in path order; sizes as stat gives them.
            if p.returncode != 0 or listed_paths != want or \
                    any(int(fields[1]) != everything[fields[0]] for fields in lines):
                report.fail(f"symstore upload --dry-run {' '.join(flags)} of the store (exit {p.returncode}) "
                            f"lists {listed_paths}, expected {want}: {p.stderr.strip()}")
        report.note(f"upload --dry-run lists the {len(syms)} .sym files, then {len(kept_paths)} kept files "
                    f"and {len(index_entries)} .build-id entries (--no-binaries: the .sym files alone)")

        # Again: nothing copied, nothing rewritten.
        before = snapshot(store)
        again = symstore_add(args, store, release, "--keep-binaries", "--debug-dir", debug_dir,
                             "--no-debuginfod")
        if snapshot(store) != before:
            report.fail("a second run changed the store: " + ", ".join(
                sorted(k for k in set(before) | set(snapshot(store)) if before.get(k) != snapshot(store).get(k))))
        if again["totals"]["written"] != 0:
            report.fail(f"a second run wrote {again['totals']['written']} modules")
        if kept_in_manifest(again) != listed:
            report.fail("the second run's manifest does not list the kept files")
        # --force dumps again; kept files with the same bytes stay.
        symstore_add(args, store, release, "--keep-binaries", "--debug-dir", debug_dir,
                     "--no-debuginfod", "--force")
        after_force = snapshot(store)
        for relative in list(files) + list(entries):
            if after_force.get(relative) != before.get(relative):
                report.fail(f"--force rewrote {relative}, whose bytes are the same")

        # A store made without --keep-binaries gets them, its .sym files untouched.
        plain = os.path.join(work, "plain", "store")
        os.makedirs(os.path.dirname(plain))
        symstore_add(args, plain, release, "--debug-dir", debug_dir, "--no-debuginfod")
        if os.path.exists(os.path.join(plain, ".build-id")):
            report.fail("a store made without --keep-binaries has a .build-id index")
        syms = {k: v for k, v in snapshot(plain).items() if k.endswith(".sym")}
        upgraded = symstore_add(args, plain, release, "--keep-binaries", "--debug-dir", debug_dir,
                                "--no-debuginfod")
        check_store(report, plain, files, entries, "upgraded store")
        now = snapshot(plain)
        for relative, mtime in syms.items():
            if now.get(relative) != mtime:
                report.fail(f"upgrading the store rewrote {relative}")
        if upgraded["totals"]["written"] != 0:
            report.fail(f"upgrading the store reported {upgraded['totals']['written']} written")
        if kept_in_manifest(upgraded) != set(files) | set(entries):
            report.fail("the upgrading run's manifest does not list every kept file")
        report.note(f"second run, --force and an upgraded store: {len(before)} files compared by mtime")

        # Last (it hides the local debug files): gdb gets the stripped dwz-a's
        # debug file and the dwz file from the server alone.
        dwz_build_id = oracles.build_id(dwz["dwz-a"])
        for hidden in (debug_dir, os.path.dirname(dwz["dwz-a"])):
            os.rename(hidden, hidden + "-hidden")
        check_gdb(args, report, store, f"{release}/dwz-a", work, dwz_build_id)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
