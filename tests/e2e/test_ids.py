#!/usr/bin/env python3
"""MODULE and INFO records against binutils' readelf: the debug id from the
GNU build-id (or, without one, the XOR fold of .text computed here from the
file's bytes), the module name (DT_SONAME, else the file name), the cpu
name of every e_machine the format names, and INFO PT_DYNAMIC_OFFSET (the
PT_DYNAMIC program header's p_offset, which symtool compares with the one a
crash log gives to undo prelinking) with sentry-cli still accepting the file."""
import os
import re
import shutil
import subprocess
import tempfile

import oracles
from common import Report, arguments, require_shared, dump, fixtures

MACHINES = {3: "x86", 62: "x86_64", 40: "arm", 183: "arm64", 8: "mips", 20: "ppc", 21: "ppc64",
            22: "s390", 2: "sparc", 43: "sparcv9", 243: "riscv", 167: "nds32"}


def guid(identifier):
    b = identifier[:16].ljust(16, b"\0")
    return (b[3::-1] + b[5:3:-1] + b[7:5:-1] + b[8:16]).hex().upper() + "0"


def text_hash(path):
    out = oracles.run(["readelf", "-SW", path])
    for line in out.splitlines():
        p = line.replace("[ ", "[").split()
        if len(p) > 6 and p[1] == ".text":
            offset, size = int(p[4], 16), int(p[5], 16)
            data = open(path, "rb").read()
            limit = min(size, 4096)
            span = data[offset:offset + ((limit + 15) // 16) * 16].ljust(((limit + 15) // 16) * 16, b"\0")
            h = bytearray(16)
            for k in range(0, limit, 16):
                for i in range(16):
                    h[i] ^= span[k + i]
            return bytes(h)
    return None


def expected_identifier(path):
    build_id = oracles.build_id(path)
    return bytes.fromhex(build_id) if build_id else text_hash(path)


def expected_name(path):
    m = re.search(r"\(SONAME\)\s+Library soname: \[(.*)\]", oracles.run(["readelf", "-dW", path]))
    return m.group(1) if m else os.path.basename(path)


def machine(path):
    with open(path, "rb") as fh:
        header = fh.read(20)
    return int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")


def dynamic_offset(path):
    """PT_DYNAMIC's p_offset (readelf -lW's Offset column); None without one."""
    for line in oracles.run(["readelf", "-lW", path]).splitlines():
        parts = line.split()
        if parts and parts[0] == "DYNAMIC":
            return int(parts[1], 16)
    return None


def check(args, path, report, label):
    full, _ = dump(args, path, "-c")
    want_dynamic = dynamic_offset(path)
    have_dynamic = full.info.get("PT_DYNAMIC_OFFSET")
    if (None if have_dynamic is None else int(have_dynamic, 16)) != want_dynamic:
        report.fail(f"{label}: INFO PT_DYNAMIC_OFFSET {have_dynamic}, want "
                    f"{want_dynamic if want_dynamic is None else format(want_dynamic, 'x')}")
    sym, _ = dump(args, path, "-i")
    identifier = expected_identifier(path)
    want = ["MODULE", "Linux", MACHINES.get(machine(path), "?"), guid(identifier), expected_name(path)]
    if sym.module != want:
        report.fail(f"{label}: MODULE {sym.module}, want {want}")
    if sym.info.get("CODE_ID") != identifier.hex().upper():
        report.fail(f"{label}: CODE_ID {sym.info.get('CODE_ID')}, want {identifier.hex().upper()}")
    if sym.funcs or sym.publics or sym.cfi:
        report.fail(f"{label}: -i wrote more than MODULE and INFO")


def main():
    args = arguments(lambda p: p.add_argument("--sentry-cli"))
    require_shared(args)
    report = Report("ids")
    paths = [(f["path"], f["name"]) for f in fixtures(args)]
    corpus = os.path.join(args.shared, "corpus", "bin")
    for name in sorted(os.listdir(corpus)):
        path = os.path.join(corpus, name)
        if os.path.isfile(path) and open(path, "rb").read(4) == b"\x7fELF" and not name.endswith((".dwo", ".dwp")):
            paths.append((path, "corpus/" + name))
    for path, label in paths:
        check(args, path, report, label)
    report.note(f"{len(paths)} binaries checked")

    # A file with the extra INFO record loads in Sentry (Breakpad's resolver
    # skips every INFO record it does not use: basic_source_line_resolver.cc).
    if args.sentry_cli:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "libc.sym")
            subprocess.run([args.dump_syms, "/lib/x86_64-linux-gnu/libc.so.6", "--output", out], check=True,
                           capture_output=True)
            if "INFO PT_DYNAMIC_OFFSET " not in open(out).read():
                report.fail("libc.so.6: no INFO PT_DYNAMIC_OFFSET")
            p = subprocess.run([args.sentry_cli, "debug-files", "check", out], capture_output=True, text=True)
            if p.returncode != 0 or "Usable: yes" not in p.stdout:
                report.fail(f"sentry-cli rejects a file with INFO PT_DYNAMIC_OFFSET: {p.stdout[-300:]}")

    # Every e_machine of the format's table gets its name; others are refused.
    tmp = tempfile.mkdtemp()
    try:
        source = next(f["path"] for f in fixtures(args) if f["name"] == "free.clang.x86_64.O2")
        for number, cpu in MACHINES.items():
            path = os.path.join(tmp, f"machine-{number}")
            shutil.copy(source, path)
            with open(path, "r+b") as fh:
                fh.seek(18)
                fh.write(number.to_bytes(2, "little"))
            sym, _ = dump(args, path)
            if sym.module[2] != cpu:
                report.fail(f"e_machine {number}: cpu {sym.module[2]}, want {cpu}")
        path = os.path.join(tmp, "machine-unknown")
        shutil.copy(source, path)
        with open(path, "r+b") as fh:
            fh.seek(18)
            fh.write((0x1234).to_bytes(2, "little"))
        p = subprocess.run([args.dump_syms, path], capture_output=True, text=True)
        if p.returncode != 1 or "4660" not in p.stderr or path not in p.stderr:
            report.fail(f"unknown e_machine: exit {p.returncode}, {p.stderr.strip()!r}")
    finally:
        shutil.rmtree(tmp)
    report.finish()


if __name__ == "__main__":
    main()
