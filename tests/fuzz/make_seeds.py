#!/usr/bin/env python3
"""Seed inputs for the binary fuzz targets, made from the fixtures' sources:
dump_elf gets small ELF files (gcc and clang, DWARF 4 and 5, -O2 -g),
dwarf_sections the same files' DWARF sections in dwarf_sections' layout
(eight 16-bit lengths, then the sections), core_file small cores (x86_64
and arm64: registers, a mapped file with its ELF header page and build-id,
a stack with a frame-pointer chain).

make_seeds.py OUT_DIR  writes OUT_DIR/<target>/..."""
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "..", "fixtures", "core", "walk_lib.c")
SECTIONS = (".debug_info", ".debug_abbrev", ".debug_line", ".debug_str", ".debug_str_offsets",
            ".debug_rnglists", ".debug_addr", ".eh_frame")
BUILDS = {"gcc-dwarf5": ["gcc", "-gdwarf-5"], "gcc-dwarf4": ["gcc", "-gdwarf-4"],
          "clang-dwarf5": ["clang-19", "-gdwarf-5"]}


def section_bytes(path, name):
    with tempfile.TemporaryDirectory() as tmp:
        dumped = os.path.join(tmp, "section")
        p = subprocess.run(["objcopy", f"--dump-section={name}={dumped}", path, os.path.join(tmp, "copy")],
                           capture_output=True)
        return open(dumped, "rb").read() if p.returncode == 0 and os.path.exists(dumped) else b""


def note(name, kind, desc):
    name = name.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack("<III", len(name), len(desc), kind) + pad(name) + pad(desc)


def core(machine, header_page, path):
    """An ELF core: one thread whose pc is in the mapped file and whose
    frame pointer heads a chain of three frames on a 512-byte stack."""
    base, stack = 0x7f0000000000, 0x7ffd00000000
    pc = base + 0x1135
    chain = b""
    for i in range(3):  # (saved fp, return address) pairs
        chain += struct.pack("<QQ", stack + 16 * (i + 1), base + 0x1190 + i)
    stack_bytes = chain + bytes(512 - len(chain))
    regs = bytearray(112)
    regs[12:14] = struct.pack("<H", 11)       # pr_cursig: SIGSEGV
    regs[32:36] = struct.pack("<I", 4242)     # pr_pid
    if machine == 62:  # x86_64 user_regs_struct
        values = [0] * 27
        values[4], values[16], values[19] = stack, pc, stack  # rbp, rip, rsp
    else:  # arm64: x0..x30, sp, pc, pstate
        values = [0] * 34
        values[29], values[31], values[32] = stack, stack, pc
    prstatus = bytes(regs) + struct.pack(f"<{len(values)}Q", *values) + bytes(8)
    files = struct.pack("<QQQQQ", 1, 4096, base, base + 0x4000, 0) + path.encode() + b"\0"
    notes = note("CORE", 1, prstatus) + note("CORE", 0x46494C45, files)
    loads = [(base, header_page, 5), (stack, stack_bytes, 6)]
    phnum = 1 + len(loads)
    offset = 64 + 56 * phnum
    headers = [struct.pack("<IIQQQQQQ", 4, 0, offset, 0, 0, len(notes), 0, 4)]
    body = notes
    for address, content, flags in loads:
        headers.append(struct.pack("<IIQQQQQQ", 1, flags, offset + len(body), address, 0, len(content),
                                   max(len(content), 0x4000 if address == base else len(content)), 4096))
        body += content
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 4, machine, 1, 0, 64, 0, 0, 64, 56, phnum, 64, 0, 0)
    return header + b"".join(headers) + body


def main():
    out = sys.argv[1]
    for target in ("dump_elf", "dwarf_sections", "core_file"):
        os.makedirs(os.path.join(out, target), exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (cc, dwarf) in BUILDS.items():
            binary = os.path.join(tmp, name + ".so")
            subprocess.run([cc, "-O2", "-g", dwarf, "-shared", "-fPIC", "-Wl,--build-id", "-o", binary, SOURCE],
                           check=True)
            with open(binary, "rb") as fh:
                data = fh.read()
            with open(os.path.join(out, "dump_elf", name), "wb") as fh:
                fh.write(data)
            parts = [section_bytes(binary, s)[:0xffff] for s in SECTIONS]
            with open(os.path.join(out, "dwarf_sections", name), "wb") as fh:
                fh.write(struct.pack("<8H", *(len(p) for p in parts)) + b"".join(parts))
            if name == "gcc-dwarf5":
                for machine, label in ((62, "x86_64"), (183, "arm64")):
                    with open(os.path.join(out, "core_file", label), "wb") as fh:
                        fh.write(core(machine, data[:4096], "/opt/app/libwalk.so"))


if __name__ == "__main__":
    main()
