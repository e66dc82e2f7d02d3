"""Running a freestanding Windows PE fixture on Linux under a debugger, for
the tests that walk its frames against the machine (test_stackwin.py for
x86, test_arm64_pdata.py for ARM64): the PE's layout, the runner's, and
the recorded call chain of every instruction (gdb_call_chain.py)."""
import os
import struct
import subprocess

import core_to_minidump
from common import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER_SOURCE = os.path.join(HERE, "..", "..", "fixtures", "pdb", "pe_runner.c")


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def pe_facts(path):
    """(image base, size of image, entry RVA, CodeView RSDS record) of a PE
    (PE32 or PE32+)."""
    data = open(path, "rb").read()
    pe, = struct.unpack_from("<I", data, 0x3c)
    optional = pe + 24
    magic, = struct.unpack_from("<H", data, optional)
    entry, = struct.unpack_from("<I", data, optional + 16)
    base, = struct.unpack_from("<Q", data, optional + 24) if magic == 0x20b else \
        struct.unpack_from("<I", data, optional + 28)
    size, = struct.unpack_from("<I", data, optional + 56)
    at = data.find(b"RSDS")
    record = data[at:data.index(b"\0", at + 24) + 1]
    return base, size, entry, record


def pe_sections(path, base):
    """(address, size, PAGE_* protection) of a PE's headers and sections."""
    data = open(path, "rb").read()
    pe, = struct.unpack_from("<I", data, 0x3c)
    count, optional_size = struct.unpack_from("<H", data, pe + 6)[0], struct.unpack_from("<H", data, pe + 20)[0]
    table = pe + 24 + optional_size
    out = [(base, 0x1000, 0x02)]  # the headers: PAGE_READONLY
    for i in range(count):
        size, address = struct.unpack_from("<II", data, table + 40 * i + 8)
        characteristics, = struct.unpack_from("<I", data, table + 40 * i + 36)
        protect = 0x20 if characteristics & 0x20000000 else 0x04  # PAGE_EXECUTE_READ / PAGE_READWRITE
        out.append((base + address, (size + 0xfff) & ~0xfff, protect))
    return out


def elf_segments(path):
    """(address, size, PAGE_* protection) of an ELF executable's PT_LOAD segments."""
    out = []
    for line in sh("readelf", "-lW", path).stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == "LOAD":
            vaddr, memsz = int(parts[2], 16) & ~0xfff, int(parts[5], 16) + (int(parts[2], 16) & 0xfff)
            out.append((vaddr, (memsz + 0xfff) & ~0xfff, 0x20 if "E" in parts[6:-1] else 0x04))
    return out


def elf_extent(path):
    """(lowest address, size) of an ELF executable's PT_LOAD segments, by readelf."""
    low, high = None, 0
    for line in sh("readelf", "-lW", path).stdout.splitlines():
        parts = line.split()
        if parts and parts[0] == "LOAD":
            vaddr, memsz = int(parts[2], 16), int(parts[5], 16)
            low = vaddr if low is None else min(low, vaddr)
            high = max(high, vaddr + memsz)
    return low, high - low


def record_chain(runner, exe, entry, chain_json, qemu=None, gdb="gdb", arch="x86"):
    """gdb steps the PE's run and writes its states to chain_json: the
    runner started by gdb itself, or, with `qemu` (qemu-i386 where the
    kernel runs no 32-bit programs, qemu-aarch64 for ARM64), under qemu-user,
    which emulates the same instructions, with gdb on its stub."""
    command = [gdb, "-batch", "-nx", "-iex", "set debuginfod enabled off", "-x",
               os.path.join(HERE, "gdb_call_chain.py")]
    env = dict(os.environ, CHAIN_ENTRY=f"{entry:x}", CHAIN_OUT=chain_json, CHAIN_ARCH=arch)
    if not qemu:
        sh(*command, "--args", runner, exe, env=env)
        return
    port = free_port()
    process = subprocess.Popen([qemu, "-g", str(port), runner, exe], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        sh(*command, runner, env=dict(env, CHAIN_REMOTE=f"127.0.0.1:{port}"))
    finally:
        process.kill()
        process.wait()


WINDOWS_NT = 2
EXCEPTION_SINGLE_STEP = 0x80000004


def write_state_dump(path, state, modules, memory):
    """One recorded state (gdb_call_chain.py's) as a Windows minidump, as a
    crash at that instruction would leave it: its thread (x86 or arm64, by
    its registers), its stack from the stack pointer up, `modules` [(base,
    size, name, CodeView record)] and `memory` [(base, size, PAGE_*)]."""
    kind = core_to_minidump.ThreadStateArm64 if "x30" in state["registers"] else core_to_minidump.ThreadState
    thread = kind(state["registers"], state["stack_start"], bytes.fromhex(state["stack"]))
    stack = (state["stack_start"], len(state["stack"]) // 2, 0x04)
    with open(path, "wb") as fh:
        fh.write(core_to_minidump.convert(thread, modules=modules, platform=WINDOWS_NT,
                                          exception_code=EXCEPTION_SINGLE_STEP, memory_info=memory + [stack]))
