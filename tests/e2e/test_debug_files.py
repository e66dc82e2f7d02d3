#!/usr/bin/env python3
"""Debug info wherever it lives. For each way of shipping it — a separate
debug file found by build-id, by .gnu_debuglink (beside, in .debug/, in a
DEBUG_DIR), by --debug-file or from a debuginfod server; compressed sections
(zlib, zstd, legacy .zdebug); split DWARF (.dwo beside the binary or in a
DEBUG_DIR, .dwp from dwp or llvm-dwp, gcc and clang, DWARF 4 and 5); dwz
(single file and a shared file found by path, .dwz/ or build-id);
MiniDebugInfo — the FUNC, line and INLINE records equal those dumped from the
plain build of the same code, and the lines agree with llvm-symbolizer.
Missing and mismatched companion files give warnings, never failures."""
import os
import shutil
import socket
import subprocess
import tempfile
import time

import oracles
import symfile
from common import Report, arguments
from test_lines import check as check_lines

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", "fixtures"))
LLVM = "/usr/lib/llvm-19/bin"
CXX = [os.path.join(SRC, "cxx", n) for n in ("main.cc", "shapes.cc", "algorithms.cc")]


def sh(*cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr}")
    return p.stdout


def records(sym):
    """FUNC, line and INLINE records with ids resolved, for comparison."""
    out = []
    for f in sym.funcs_by_address:
        out.append(("FUNC", f.address, f.size, f.name))
        for a, n, line, file in f.lines:
            out.append(("line", a, n, line, sym.files.get(file)))
        for depth, call_line, call_file, origin, ranges in f.inlines:
            out.append(("INLINE", depth, call_line, sym.files.get(call_file), sym.origins.get(origin),
                        tuple(ranges)))
    return out


def dump(args, *argv, env=None):
    p = subprocess.run([args.dump_syms, "-d", *argv], capture_output=True, text=True, errors="replace",
                       env=env)
    return p


class Case:
    def __init__(self, args, report, tmp):
        self.args, self.report, self.tmp = args, report, tmp

    def expect_same(self, label, plain_binary, argv, env=None, debug_file=None, warning=None):
        """Dump `argv` and compare with the dump of `plain_binary`."""
        want = dump(self.args, plain_binary)
        got = dump(self.args, *argv, env=env)
        if got.returncode != 0:
            self.report.fail(f"{label}: dump_syms failed: {got.stderr.strip()}")
            return None
        have = symfile.SymFile(got.stdout)
        for problem in have.structural_problems()[:5]:
            self.report.fail(f"{label}: {problem}")
        a, b = records(symfile.SymFile(want.stdout)), records(have)
        if a != b:
            diff = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            self.report.fail(f"{label}: records differ from the plain build at #{diff}: "
                             f"{a[diff] if diff < len(a) else None} vs {b[diff] if diff < len(b) else None}"
                             f" ({len(a)} vs {len(b)} records)")
        elif not any(r[0] == "line" for r in a):
            self.report.fail(f"{label}: the plain build has no line records")
        else:
            print(f"{label}: {len(a)} records equal the plain build's")
        if warning and warning not in got.stderr:
            v = dump(self.args, "-v", *argv, env=env)
            if warning not in v.stderr:
                self.report.fail(f"{label}: no warning mentioning {warning!r}: {v.stderr.strip()[:300]}")
        if debug_file:
            # The same file, judged by llvm-symbolizer on the debug file.
            check_lines(self.args, debug_file, self.report, label=label, argv=argv)
        return have


def build(out, compiler, flags, sources, cwd):
    sh(compiler, *flags, "-o", out, *sources, cwd=cwd)
    return out


def build_id(path):
    return oracles.build_id(path)


def strip_to_debug_file(binary, debug):
    sh("objcopy", "--only-keep-debug", binary, debug)
    sh("strip", "--strip-debug", "--strip-unneeded", binary)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    args = arguments()
    report = Report("debug files")
    tmp = tempfile.mkdtemp()
    case = Case(args, report, tmp)
    try:
        plain = build(os.path.join(tmp, "plain"), "g++", ["-g", "-O2"], CXX, tmp)

        # --- separate debug files -------------------------------------------
        root = os.path.join(tmp, "debugroot")
        by_id = os.path.join(tmp, "by-id")
        shutil.copy(plain, by_id)
        bid = build_id(by_id)
        os.makedirs(os.path.join(root, ".build-id", bid[:2]))
        strip_to_debug_file(by_id, os.path.join(root, ".build-id", bid[:2], bid[2:] + ".debug"))
        case.expect_same("build-id tree in a DEBUG_DIR", plain, [by_id, root],
                         debug_file=os.path.join(root, ".build-id", bid[:2], bid[2:] + ".debug"))

        for where in ("beside", ".debug", "debugdir", "debugdir+path"):
            d = os.path.join(tmp, "link-" + where.replace("+", "-").replace(".", ""))
            os.makedirs(d)
            binary = os.path.join(d, "app")
            shutil.copy(plain, binary)
            debug = os.path.join(d, "app.debug")
            sh("objcopy", "--only-keep-debug", binary, debug)
            sh("strip", "--strip-debug", binary)
            sh("objcopy", f"--add-gnu-debuglink={debug}", binary)
            extra = []
            if where == ".debug":
                os.makedirs(os.path.join(d, ".debug"))
                shutil.move(debug, os.path.join(d, ".debug", "app.debug"))
            elif where == "debugdir":
                dd = os.path.join(tmp, "dd-flat")
                os.makedirs(dd)
                shutil.move(debug, os.path.join(dd, "app.debug"))
                extra = [dd]
            elif where == "debugdir+path":
                dd = os.path.join(tmp, "dd-tree")
                target = os.path.join(dd + os.path.realpath(d))
                os.makedirs(target)
                shutil.move(debug, os.path.join(target, "app.debug"))
                extra = [dd]
            case.expect_same(f".gnu_debuglink {where}", plain, [binary] + extra)

        # A debug file whose CRC does not match: skipped, with a warning.
        d = os.path.join(tmp, "link-badcrc")
        os.makedirs(d)
        binary = os.path.join(d, "app")
        shutil.copy(plain, binary)
        sh("objcopy", "--only-keep-debug", binary, os.path.join(d, "app.debug"))
        sh("strip", "--strip-debug", binary)
        sh("objcopy", f"--add-gnu-debuglink={os.path.join(d, 'app.debug')}", binary)
        with open(os.path.join(d, "app.debug"), "ab") as fh:
            fh.write(b"\0")
        p = dump(args, "-v", binary)
        if p.returncode != 0 or "CRC" not in p.stderr or "FUNC " in p.stdout:
            report.fail(f"bad CRC: exit {p.returncode}, stderr {p.stderr.strip()[:300]}")

        # --debug-file names it outright.
        case.expect_same("--debug-file", plain,
                         [by_id, "--debug-file", os.path.join(root, ".build-id", bid[:2], bid[2:] + ".debug")])

        # --- compressed sections ----------------------------------------------
        for kind, flags in (("zlib", ["--compress-debug-sections=zlib"]),
                            ("zstd", ["--compress-debug-sections=zstd"]),
                            ("zlib-gnu", ["--compress-debug-sections=zlib-gnu"])):
            out = os.path.join(tmp, "compressed-" + kind)
            sh("objcopy", *flags, plain, out)
            case.expect_same(f"compressed {kind}", plain, [out])

        # --- split DWARF --------------------------------------------------------
        for compiler, tag, dwarf, packer in (("g++", "gcc", "-gdwarf-5", None),
                                             ("g++", "gcc", "-gdwarf-4", "dwp"),
                                             ("clang++-19", "clang", "-gdwarf-5", f"{LLVM}/llvm-dwp"),
                                             ("clang++-19", "clang", "-gdwarf-4", f"{LLVM}/llvm-dwp")):
            label = f"split {tag} {dwarf[2:]}"
            work = os.path.join(tmp, f"split-{tag}-{dwarf[2:]}-build")
            os.makedirs(work)
            flags = ["-g", dwarf, "-O2"]
            reference = build(os.path.join(work, "ref"), compiler, flags, CXX, work)
            split = build(os.path.join(work, "app"), compiler, flags + ["-gsplit-dwarf"], CXX, work)
            dwos = [n for n in os.listdir(work) if n.endswith(".dwo")]
            # Moved away from DW_AT_comp_dir: found beside the binary.
            moved = os.path.join(tmp, f"split-{tag}-{dwarf[2:]}")
            os.makedirs(moved)
            shutil.move(split, os.path.join(moved, "app"))
            for n in dwos:
                shutil.move(os.path.join(work, n), os.path.join(moved, n))
            app = os.path.join(moved, "app")
            case.expect_same(f"{label} .dwo beside", reference, [app])
            # ... in a DEBUG_DIR.
            elsewhere = os.path.join(tmp, f"split-{tag}-{dwarf[2:]}-dwo")
            os.makedirs(elsewhere)
            for n in dwos:
                shutil.move(os.path.join(moved, n), os.path.join(elsewhere, n))
            case.expect_same(f"{label} .dwo in a DEBUG_DIR", reference, [app, elsewhere])
            # ... missing: a warning naming it, the rest still dumped.
            p = dump(args, "-v", app)
            if p.returncode != 0 or not any(n in p.stderr for n in dwos) or "FUNC " not in p.stdout:
                report.fail(f"{label} missing .dwo: exit {p.returncode}, {p.stderr.strip()[:300]}")
            if packer:
                package = app + ".dwp"
                sh(packer, "-o", package, *[os.path.join(elsewhere, n) for n in dwos])
                case.expect_same(f"{label} .dwp beside ({os.path.basename(packer)})", reference, [app])
                shutil.move(package, os.path.join(tmp, f"{tag}-{dwarf[2:]}.dwp"))
                case.expect_same(f"{label} --dwp", reference,
                                 [app, "--dwp", os.path.join(tmp, f"{tag}-{dwarf[2:]}.dwp")])

        # --- dwz -----------------------------------------------------------------
        single = os.path.join(tmp, "dwz-single")
        shutil.copy(plain, single)
        sh("dwz", single)
        case.expect_same("dwz single file", plain, [single])
        multi = os.path.join(tmp, "dwz-multi")
        os.makedirs(multi)
        a, b = os.path.join(multi, "a"), os.path.join(multi, "b")
        shutil.copy(plain, a)
        build(b, "g++", ["-g", "-O0"], CXX, tmp)
        shared = os.path.join(multi, "common.debug")
        sh("dwz", "-m", shared, "-M", shared, a, b)
        case.expect_same("dwz shared file at its absolute path", plain, [a])
        # The link is absolute; moved elsewhere the file is found in .dwz/ or by build-id.
        moved = os.path.join(tmp, "dwz-moved")
        os.makedirs(os.path.join(moved, ".dwz"))
        shutil.copy(a, os.path.join(moved, "a"))
        shutil.move(shared, os.path.join(moved, ".dwz", "common.debug"))
        case.expect_same("dwz shared file in .dwz/", plain, [os.path.join(moved, "a")])
        shared_id = build_id(os.path.join(moved, ".dwz", "common.debug"))
        ids = os.path.join(tmp, "dwz-ids")
        os.makedirs(os.path.join(ids, ".build-id", shared_id[:2]))
        shutil.move(os.path.join(moved, ".dwz", "common.debug"),
                    os.path.join(ids, ".build-id", shared_id[:2], shared_id[2:] + ".debug"))
        case.expect_same("dwz shared file by build-id", plain, [os.path.join(moved, "a"), ids])
        p = dump(args, "-v", os.path.join(moved, "a"))
        if p.returncode != 0 or "common.debug" not in p.stderr:
            report.fail(f"dwz shared file missing: no warning naming it: {p.stderr.strip()[:300]}")

        # --- damaged companion files: a warning, the rest still dumped -------------
        def truncate(path, keep=0.5):
            with open(path, "r+b") as fh:
                fh.truncate(int(os.path.getsize(path) * keep))

        d = os.path.join(tmp, "damaged")
        os.makedirs(d)
        # A debug file cut in half whose debuglink CRC still matches it.
        binary = os.path.join(d, "app")
        shutil.copy(plain, binary)
        sh("objcopy", "--only-keep-debug", binary, os.path.join(d, "app.debug"))
        sh("strip", "--strip-debug", binary)
        truncate(os.path.join(d, "app.debug"))
        sh("objcopy", f"--add-gnu-debuglink={os.path.join(d, 'app.debug')}", binary)
        damaged = {"truncated debug file": [binary]}
        # A truncated .dwo and a truncated dwz file.
        split_dir = os.path.join(tmp, "split-gcc-dwarf-5")
        dwo = os.path.join(tmp, "split-gcc-dwarf-5-dwo")
        for n in os.listdir(dwo):
            truncate(os.path.join(dwo, n), 0.3)
        damaged["truncated .dwo"] = [os.path.join(split_dir, "app"), dwo]
        truncate(os.path.join(ids, ".build-id", shared_id[:2], shared_id[2:] + ".debug"), 0.4)
        damaged["truncated dwz file"] = [os.path.join(moved, "a"), ids]
        for label, argv in damaged.items():
            p = dump(args, "-v", *argv)
            sym = symfile.SymFile(p.stdout)
            if p.returncode != 0 or "warning" not in p.stderr or sym.structural_problems() or not sym.publics \
                    and not sym.funcs:
                report.fail(f"{label}: exit {p.returncode}, {len(sym.funcs)} FUNC, stderr {p.stderr.strip()[:300]}")
            else:
                print(f"{label}: dumped with a warning ({len(sym.funcs)} FUNC records)")

        # --- MiniDebugInfo and nothing at all -------------------------------------
        mini = os.path.join(tmp, "mini")
        shutil.copy(plain, mini)
        keep = os.path.join(tmp, "keep")
        dynamic = set(sh("nm", "-D", "--defined-only", "--format=posix", mini).split("\n"))
        functions = [line.split()[0] for line in sh("nm", "--defined-only", "--format=posix", mini).splitlines()
                     if len(line.split()) > 1 and line.split()[1] in "Tt" and line not in dynamic]
        with open(keep, "w") as fh:
            fh.write("\n".join(functions) + "\n")
        sh("objcopy", "--only-keep-debug", mini, mini + ".dbg")
        sh("objcopy", "-S", f"--keep-symbols={keep}", "--remove-section=.gdb_index", mini + ".dbg",
           mini + ".mini")
        sh("xz", "-f", mini + ".mini")
        sh("strip", "--strip-all", mini)
        sh("objcopy", f"--add-section=.gnu_debugdata={mini}.mini.xz", mini)
        p = dump(args, "-v", mini)
        publics = {line.split(" ", 3)[3] for line in p.stdout.splitlines() if line.startswith("PUBLIC ")}
        if "main" not in publics or "fixture::Checked(int)" not in publics:
            report.fail(f"MiniDebugInfo: its symbols are not PUBLIC records: {sorted(publics)[:10]}")
        # A stripped shared library: its .dynsym still names the exported code.
        nothing = build(os.path.join(tmp, "libshapes.so.1.2"), "g++",
                        ["-g", "-O2", "-shared", "-fPIC", "-Wl,-soname,libshapes.so.1"], [CXX[1]], tmp)
        sh("strip", "--strip-all", nothing)
        p = dump(args, nothing)
        sym = symfile.SymFile(p.stdout)
        exported = {name for _, name, _ in sym.publics}
        if sym.module[4] != "libshapes.so.1" or "fixture::Checked(int)" not in exported:
            report.fail(f"stripped: MODULE {sym.module}, PUBLIC {sorted(exported)[:5]}")
        if p.returncode != 0 or sym.funcs or not sym.cfi or not sym.publics or "1 warning" not in p.stderr:
            report.fail(f"stripped: exit {p.returncode}, {len(sym.funcs)} FUNC, {len(sym.publics)} PUBLIC, "
                        f"{len(sym.cfi)} CFI, stderr {p.stderr.strip()!r}")
        else:
            v = dump(args, "-v", nothing)
            if "no debug info found" not in v.stderr:
                report.fail(f"stripped: the warning does not say no debug info was found: {v.stderr!r}")

        # --- debuginfod ---------------------------------------------------------------
        served = os.path.join(tmp, "served")
        os.makedirs(served)
        remote = os.path.join(tmp, "remote-app")
        shutil.copy(plain, remote)
        sh("objcopy", "--only-keep-debug", remote, os.path.join(served, "remote-app.debug"))
        sh("strip", "--strip-debug", remote)
        port = free_port()
        server = subprocess.Popen(["debuginfod", "-F", served, "-p", str(port), "-d", os.path.join(tmp, "db.sqlite"),
                                   "-t0", "-g0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            env = dict(os.environ, DEBUGINFOD_URLS=f"http://127.0.0.1:{port}",
                       DEBUGINFOD_CACHE_PATH=os.path.join(tmp, "cache"), DEBUGINFOD_TIMEOUT="10")
            rid = build_id(remote)
            deadline = time.time() + 60
            while time.time() < deadline:
                probe = subprocess.run(["curl", "-sf", f"http://127.0.0.1:{port}/buildid/{rid}/debuginfo", "-o",
                                        os.devnull]) if shutil.which("curl") else None
                if probe is not None and probe.returncode == 0:
                    break
                if probe is None:
                    p = dump(args, remote, env=env)
                    if "FUNC " in p.stdout:
                        break
                time.sleep(1)
            shutil.rmtree(os.path.join(tmp, "cache"), ignore_errors=True)
            case.expect_same("debuginfod", plain, [remote], env=env)
            p = dump(args, "--no-debuginfod", remote, env=env)
            if "FUNC " in p.stdout:
                report.fail("--no-debuginfod still fetched the debug file")
        finally:
            server.terminate()
            server.wait(timeout=30)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report.finish()


if __name__ == "__main__":
    main()
