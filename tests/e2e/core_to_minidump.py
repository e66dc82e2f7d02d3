#!/usr/bin/env python3
"""A test-only minidump writer of the kind Breakpad's core2md and Crashpad
are, written from Microsoft's published minidump structures (MINIDUMP_HEADER,
MINIDUMP_DIRECTORY, MINIDUMP_THREAD, MINIDUMP_MODULE, MINIDUMP_EXCEPTION_STREAM,
MINIDUMP_SYSTEM_INFO, MINIDUMP_MISC_INFO, CONTEXT_AMD64 / CONTEXT_ARM64 /
the 32-bit arm CONTEXT) and Breakpad's documented additions (the BpEL
CodeView record of an ELF build-id, BreakpadInfo, LinuxMaps): it turns an ELF
core file (gdb's gcore, a kernel core, qemu-user's guest core made
kernel-like) into the minidump a client on the crashing machine would have
sent. Each thread gets its registers and its stack from the stack pointer
up; modules come from NT_FILE, their ids from the files' own build-id notes;
the crash from the thread a fatal signal stopped.

core_to_minidump.py CORE OUT [--drop STREAM...] [--context-size N]"""
import argparse
import os
import re
import struct
import subprocess

PT_LOAD, PT_NOTE = 1, 4
NT_PRSTATUS, NT_SIGINFO, NT_FILE = 1, 0x53494749, 0x46494C45
EM_386, EM_ARM, EM_X86_64, EM_AARCH64 = 3, 40, 62, 183
FATAL = {4, 5, 6, 7, 8, 11, 31}  # SIGILL SIGTRAP SIGABRT SIGBUS SIGFPE SIGSEGV SIGSYS

STREAMS = {"ThreadList": 3, "ModuleList": 4, "MemoryList": 5, "Memory64List": 9, "Exception": 6, "SystemInfo": 7,
           "UnloadedModuleList": 14, "MiscInfo": 15, "MemoryInfoList": 16, "BreakpadInfo": 0x47670001, "LinuxMaps": 0x47670009, "ThreadNameList": 24,
           "LinuxLsbRelease": 0x47670005, "LinuxCmdLine": 0x47670006, "CrashpadInfo": 0x43500001}
# Stack bytes kept below the stack pointer (the red zone) and above it.
BELOW_SP, STACK_BYTES = 128, 128 * 1024


class Core:
    def __init__(self, data):
        self.data = data
        self.is64 = data[4] == 2
        if self.is64:
            self.machine, = struct.unpack_from("<H", data, 18)
            phoff, = struct.unpack_from("<Q", data, 32)
            phentsize, phnum = struct.unpack_from("<HH", data, 54)
        else:
            self.machine, = struct.unpack_from("<H", data, 18)
            phoff, = struct.unpack_from("<I", data, 28)
            phentsize, phnum = struct.unpack_from("<HH", data, 42)
        self.segments, self.threads, self.files = [], [], []
        self.siginfo = None
        for i in range(phnum):
            at = phoff + i * phentsize
            if self.is64:
                p_type, p_flags, p_offset, p_vaddr, _, p_filesz, p_memsz, _ = \
                    struct.unpack_from("<IIQQQQQQ", data, at)
            else:
                p_type, p_offset, p_vaddr, _, p_filesz, p_memsz, p_flags, _ = \
                    struct.unpack_from("<IIIIIIII", data, at)
            if p_type == PT_LOAD:
                self.segments.append((p_vaddr, p_memsz, p_offset, min(p_filesz, max(0, len(data) - p_offset)),
                                      p_flags))
            elif p_type == PT_NOTE:
                self.notes(data[p_offset:p_offset + p_filesz])

    def notes(self, blob):
        at = 0
        while at + 12 <= len(blob):
            namesz, descsz, kind = struct.unpack_from("<III", blob, at)
            name = blob[at + 12:at + 12 + namesz].rstrip(b"\0")
            desc_at = at + 12 + ((namesz + 3) & ~3)
            desc = blob[desc_at:desc_at + descsz]
            at = desc_at + ((descsz + 3) & ~3)
            if name != b"CORE":
                continue
            if kind == NT_PRSTATUS:
                self.threads.append(self.prstatus(desc))
            elif kind == NT_SIGINFO and self.siginfo is None:
                signo, _, code = struct.unpack_from("<iii", desc, 0)
                address = struct.unpack_from("<Q" if self.is64 else "<I", desc, 16 if self.is64 else 12)[0]
                self.siginfo = (signo, code & 0xffffffff, address)
            elif kind == NT_FILE:
                self.files = self.nt_file(desc)

    def prstatus(self, desc):
        if self.is64:
            cursig, = struct.unpack_from("<H", desc, 12)
            pid, = struct.unpack_from("<I", desc, 32)
            regs_at, word = 112, "<Q"
        else:
            cursig, = struct.unpack_from("<H", desc, 12)
            pid, = struct.unpack_from("<I", desc, 24)
            regs_at, word = 72, "<I"
        count = {EM_X86_64: 27, EM_AARCH64: 34, EM_ARM: 18, EM_386: 17}[self.machine]
        size = struct.calcsize(word)
        regs = [struct.unpack_from(word, desc, regs_at + i * size)[0] for i in range(count)]
        return {"tid": pid, "signal": cursig, "regs": regs}

    def nt_file(self, desc):
        word = "Q" if self.is64 else "I"
        size = struct.calcsize(word)
        count, page = struct.unpack_from("<" + word * 2, desc, 0)
        entries = [struct.unpack_from("<" + word * 3, desc, 2 * size + i * 3 * size) for i in range(count)]
        names = desc[2 * size + count * 3 * size:].split(b"\0")
        return [(s, e, o * page, names[i].decode()) for i, (s, e, o) in enumerate(entries)]

    def read(self, address, size):
        for vaddr, memsz, offset, filesz, _ in self.segments:
            if vaddr <= address < vaddr + filesz:
                size = min(size, vaddr + filesz - address)
                return self.data[offset + address - vaddr:offset + address - vaddr + size]
        return b""

    def stack_pointer(self, thread):
        index = {EM_X86_64: 19, EM_AARCH64: 31, EM_ARM: 13, EM_386: 15}[self.machine]
        return thread["regs"][index]

    def pc(self, thread):
        index = {EM_X86_64: 16, EM_AARCH64: 32, EM_ARM: 15, EM_386: 12}[self.machine]
        return thread["regs"][index]


class ThreadState(Core):
    """One x86 thread's state as a debugger read it (registers and the
    stack from the stack pointer up), in place of a core file."""

    # user_regs_struct order for i386, as NT_PRSTATUS holds it.
    ORDER = ("ebx", "ecx", "edx", "esi", "edi", "ebp", "eax", "ds", "es", "fs", "gs", "orig_eax", "eip",
             "cs", "eflags", "esp", "ss")

    def __init__(self, registers, stack_start, stack, tid=1000):
        self.data = stack
        self.is64 = False
        self.machine = EM_386
        self.threads = [{"tid": tid, "signal": 5, "regs": [registers.get(r, 0) for r in self.ORDER]}]
        self.segments = [(stack_start, len(stack), 0, len(stack), 6)]
        self.files = []
        self.siginfo = None


class ThreadStateArm64(Core):
    """One arm64 thread's state as a debugger read it (x0-x30, sp, pc,
    cpsr, and the stack from the stack pointer up), in place of a core."""

    ORDER = tuple(f"x{i}" for i in range(31)) + ("sp", "pc", "cpsr")

    def __init__(self, registers, stack_start, stack, tid=1000):
        self.data = stack
        self.is64 = True
        self.machine = EM_AARCH64
        self.threads = [{"tid": tid, "signal": 5, "regs": [registers.get(r, 0) for r in self.ORDER]}]
        self.segments = [(stack_start, len(stack), 0, len(stack), 6)]
        self.files = []
        self.siginfo = None


def context(core, thread, size=None):
    regs = thread["regs"]
    if core.machine == EM_386:
        ebx, ecx, edx, esi, edi, ebp, eax, ds, es, fs, gs, _, eip, cs, eflags, esp, ss = regs[:17]
        out = bytearray(716)
        struct.pack_into("<I", out, 0, 0x00010007)  # CONTROL|INTEGER|SEGMENTS
        struct.pack_into("<4I", out, 0x8c, gs, fs, es, ds)
        struct.pack_into("<12I", out, 0x9c, edi, esi, ebx, edx, ecx, eax, ebp, eip, cs, eflags, esp, ss)
    elif core.machine == EM_X86_64:
        # user_regs_struct: r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax
        # rip cs eflags rsp ss fs_base gs_base ds es fs gs
        r15, r14, r13, r12, rbp, rbx, r11, r10, r9, r8, rax, rcx, rdx, rsi, rdi, _, rip, cs, eflags, rsp, ss = regs[:21]
        ds, es, fs, gs = regs[23:27]
        out = bytearray(1232)
        struct.pack_into("<II", out, 0x30, 0x0010000b, 0x1f80)  # CONTROL|INTEGER|FLOATING_POINT, MxCsr
        struct.pack_into("<HHHHHHI", out, 0x38, cs, ds, es, fs, gs, ss, eflags)
        struct.pack_into("<17Q", out, 0x78, rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8, r9, r10, r11, r12,
                         r13, r14, r15, rip)
    elif core.machine == EM_AARCH64:
        out = bytearray(912)
        struct.pack_into("<II", out, 0, 0x00400007, regs[33] & 0xffffffff)  # flags, cpsr
        struct.pack_into("<33Q", out, 8, *regs[:33])  # x0..x30, sp, pc
    else:
        out = bytearray(368)
        struct.pack_into("<I", out, 0, 0x40000006)  # INTEGER|FLOATING_POINT
        struct.pack_into("<16I", out, 4, *regs[:16])
        struct.pack_into("<I", out, 68, regs[16])  # cpsr
    if size is not None:
        out = out[:size] if size < len(out) else out + bytes(size - len(out))
    return bytes(out)


def build_id(path):
    p = subprocess.run(["readelf", "-n", path], capture_output=True, text=True)
    m = re.search(r"Build ID: ([0-9a-f]+)", p.stdout)
    return bytes.fromhex(m.group(1)) if m else b""


def utf16(text):
    raw = text.encode("utf-16-le")
    return struct.pack("<I", len(raw)) + raw + b"\0\0"


class Writer:
    """The directory follows the header, as clients write it, so that a
    truncated dump keeps its directory and loses streams."""
    MAX_STREAMS = 16

    def __init__(self):
        self.out = bytearray(32 + 12 * self.MAX_STREAMS)
        self.streams = []

    def put(self, blob):
        self.out += b"\0" * (-len(self.out) % 8)
        rva = len(self.out)
        self.out += blob
        return rva

    def stream(self, name, blob):
        self.streams.append((STREAMS[name], len(blob), self.put(blob)))

    def finish(self, time_date_stamp):
        assert len(self.streams) <= self.MAX_STREAMS
        for i, entry in enumerate(self.streams):
            struct.pack_into("<III", self.out, 32 + 12 * i, *entry)
        struct.pack_into("<IIIIIIQ", self.out, 0, 0x504D444D, 0xA793, len(self.streams), 32, 0,
                         time_date_stamp, 0)
        return bytes(self.out)


def convert(core, drop=(), context_size=None, names=None, modules=None, platform=0x8201, exception_code=None,
            memory_info=None, memory64=False, unloaded=(), dump_thread=0x7ffffff0, crashpad=None,
            linux_text=None, extra_memory=()):
    """`modules`: [(base, size, path, CodeView record)] in place of those
    NT_FILE gives; `platform`: SystemInfo's PlatformId (Linux by default);
    `exception_code`: the Exception stream's code in place of the signal;
    `memory_info`: [(base, size, PAGE_* protection)] for a MemoryInfoList,
    as Windows clients write one; `memory64`: the memory in a Memory64List
    (as full-memory dumps hold it), the threads' stack ranges without bytes
    of their own; `unloaded`: paths of modules to list as unloaded
    (UnloadedModuleList) rather than loaded; `dump_thread`: the thread
    BreakpadInfo names as the one that wrote the dump; `crashpad`: a
    CrashpadInfo stream, {"simple": {key: value}, "modules": {module index:
    {"list": [text], "simple": {key: value}, "objects": {name: text}}}} as
    Crashpad's client writes it; `linux_text`: {"LinuxLsbRelease": text,
    ...} streams to add; `extra_memory`: (address, size) ranges of zero
    bytes added to the Memory64List (a full-memory dump's bulk)."""
    w = Writer()
    now = 1700000000
    crashed = next((t for t in core.threads if t["signal"] in FATAL),
                   next((t for t in core.threads if t["signal"]), core.threads[0]))
    arch = {EM_X86_64: 9, EM_AARCH64: 12, EM_ARM: 5, EM_386: 0}[core.machine]

    # Stacks (each thread's own descriptor, and the MemoryList, as clients write them).
    stacks, stack_bytes = {}, {}
    for thread in core.threads:
        sp = core.stack_pointer(thread)
        start = max(0, (sp - BELOW_SP) & ~0xf)
        data = core.read(start, STACK_BYTES)
        stack_bytes[thread["tid"]] = (start, data)
        stacks[thread["tid"]] = (start, 0 if memory64 else w.put(data), len(data))
    # The bytes around the crashing instruction, as Breakpad's client adds them.
    pc = core.pc(crashed)
    code = core.read(pc - 128, 256)
    code_region = (pc - 128, w.put(code), len(code)) if code else None

    if "SystemInfo" not in drop:
        machine = {9: "x86_64", 12: "aarch64", 5: "armv7l", 0: "i686"}[arch]
        csd = w.put(utf16(f"Linux 6.1.0-test #1 SMP {machine}" if platform == 0x8201 else "Service Pack 1"))
        x86 = arch in (0, 9)
        info = struct.pack("<HHHBBIIIII HH", arch, 6 if x86 else 8, 0x5507 if x86 else 0, 2, 0,
                           6, 1, 0 if platform == 0x8201 else 7601, platform, csd, 0, 0)
        cpu = (b"GenuineIntel" + struct.pack("<III", 0x50657, 0xbfebfbff, 0)) if x86 else bytes(24)
        w.stream("SystemInfo", info + cpu)

    threads = bytearray(struct.pack("<I", len(core.threads)))
    contexts = {}
    for thread in core.threads:
        blob = context(core, thread, context_size)
        rva = w.put(blob)
        contexts[thread["tid"]] = (rva, len(blob))
    for thread in core.threads:
        start, rva, size = stacks[thread["tid"]]
        crva, csize = contexts[thread["tid"]]
        threads += struct.pack("<IIIIQQIIII", thread["tid"], 0, 0, 0, 0, start, size, rva, csize, crva)
    if "ThreadList" not in drop:
        w.stream("ThreadList", bytes(threads))

    if names and "ThreadNameList" not in drop:
        entries = [(tid, w.put(utf16(name))) for tid, name in names.items()]
        w.stream("ThreadNameList", struct.pack("<I", len(entries)) +
                 b"".join(struct.pack("<IQ", tid, rva) for tid, rva in entries))

    memory = [(s, r, n) for s, r, n in stacks.values()] + ([code_region] if code_region else [])
    if memory64:
        ranges = sorted(list(stack_bytes.values()) + [(a, bytes(n)) for a, n in extra_memory])
        data_rva = w.put(b"".join(d for _, d in ranges))
        w.stream("Memory64List", struct.pack("<QQ", len(ranges), data_rva) +
                 b"".join(struct.pack("<QQ", s, len(d)) for s, d in ranges))
    elif "MemoryList" not in drop:
        w.stream("MemoryList", struct.pack("<I", len(memory)) +
                 b"".join(struct.pack("<QII", s, n, r) for s, r, n in memory))

    # Modules: each file mapped from offset 0, up to its last mapping.
    if modules is None:
        modules = []
        for start, end, offset, path in core.files:
            if offset == 0 and os.path.exists(path):
                last = max(e for s, e, o, p in core.files if p == path and s >= start)
                modules.append((start, last - start, path, b"LEpB" + build_id(path)))
    gone = [m for m in modules if m[2] in unloaded]
    modules = [m for m in modules if m[2] not in unloaded]
    records = bytearray(struct.pack("<I", len(modules)))
    for base, size, path, cv in modules:
        name = w.put(utf16(path))
        cv_rva = w.put(cv)
        version = struct.pack("<13I", 0xfeef04bd, 0x10000, *([0] * 11))
        records += struct.pack("<QIIII", base, size, 0, 0, name) + version + \
            struct.pack("<IIIIQQ", len(cv), cv_rva, 0, 0, 0, 0)
    if "ModuleList" not in drop:
        w.stream("ModuleList", bytes(records))
    if gone:
        entries = b"".join(struct.pack("<QIIII", base, size, 0, 0, w.put(utf16(path)))
                           for base, size, path, _ in gone)
        w.stream("UnloadedModuleList", struct.pack("<III", 12, 24, len(gone)) + entries)

    if "Exception" not in drop:
        signo, code_, address = core.siginfo if core.siginfo and core.siginfo[0] == crashed["signal"] \
            else (crashed["signal"], 0, 0)
        if exception_code is not None:
            signo, code_, address = exception_code, 0, core.pc(crashed)
        crva, csize = contexts[crashed["tid"]]
        exception = struct.pack("<IIIIQQII", crashed["tid"], 0, signo, code_, 0, address, 0, 0)
        exception += bytes(15 * 8) + struct.pack("<II", csize, crva)
        w.stream("Exception", exception)

    if "BreakpadInfo" not in drop:
        # The dump thread (the handler's, not in the list) and the one that crashed.
        w.stream("BreakpadInfo", struct.pack("<III", 3, dump_thread, crashed["tid"]))
    if "MiscInfo" not in drop:
        w.stream("MiscInfo", struct.pack("<IIIIII", 24, 3, core.threads[0]["tid"], now - 5, 0, 0))
    if memory_info and "MemoryInfoList" not in drop:
        entries = b"".join(struct.pack("<QQIIQIIII", base, base, protect, 0, size, 0x1000, protect, 0x1000000, 0)
                           for base, size, protect in memory_info)
        w.stream("MemoryInfoList", struct.pack("<IIQ", 16, 48, len(memory_info)) + entries)
    if crashpad is not None:
        w.stream("CrashpadInfo", crashpad_info(w, crashpad))
    for name, text in (linux_text or {}).items():
        w.stream(name, text.encode())
    if "LinuxMaps" not in drop and platform == 0x8201:
        lines = []
        for vaddr, memsz, _, _, flags in sorted(core.segments):
            path, offset = "", 0
            for s, e, o, p in core.files:
                if s <= vaddr < e:
                    path, offset = p, o + (vaddr - s)
            perms = ("r" if flags & 4 else "-") + ("w" if flags & 2 else "-") + ("x" if flags & 1 else "-") + "p"
            lines.append(f"{vaddr:x}-{vaddr + memsz:x} {perms} {offset:08x} 00:00 0" +
                         (f"                          {path}" if path else ""))
        w.stream("LinuxMaps", ("\n".join(lines) + "\n").encode())
    return w.finish(now)


def crashpad_info(w, info):
    """MINIDUMP_CRASHPAD_INFO and what it points to (Crashpad's
    minidump_extensions.h structures)."""
    def utf8(text):
        raw = text.encode()
        return w.put(struct.pack("<I", len(raw)) + raw + b"\0")

    def dictionary(pairs):
        if not pairs:
            return 0, 0
        entries = b"".join(struct.pack("<II", utf8(k), utf8(v)) for k, v in pairs.items())
        blob = struct.pack("<I", len(pairs)) + entries
        return len(blob), w.put(blob)

    simple = dictionary(info.get("simple", {}))
    links = b""
    for index, module in sorted(info.get("modules", {}).items()):
        strings = [utf8(t) for t in module.get("list", [])]
        lists = struct.pack("<I", len(strings)) + b"".join(struct.pack("<I", r) for r in strings)
        list_loc = (len(lists), w.put(lists)) if strings else (0, 0)
        objects = module.get("objects", {})
        entries = b"".join(struct.pack("<IHHI", utf8(k), 1, 0, utf8(v)) for k, v in objects.items())
        blob = struct.pack("<I", len(objects)) + entries
        object_loc = (len(blob), w.put(blob)) if objects else (0, 0)
        record = struct.pack("<I", 1) + struct.pack("<II", *list_loc) + \
            struct.pack("<II", *dictionary(module.get("simple", {}))) + struct.pack("<II", *object_loc)
        links += struct.pack("<III", index, len(record), w.put(record))
    module_list = struct.pack("<I", len(info.get("modules", {}))) + links
    module_loc = (len(module_list), w.put(module_list)) if info.get("modules") else (0, 0)
    report_id = bytes(range(16))
    client_id = bytes(range(16, 32))
    return struct.pack("<I", 1) + report_id + client_id + struct.pack("<II", *simple) + \
        struct.pack("<II", *module_loc)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("core")
    parser.add_argument("out")
    parser.add_argument("--drop", nargs="*", default=[])
    parser.add_argument("--context-size", type=int)
    args = parser.parse_args()
    with open(args.core, "rb") as fh:
        core = Core(fh.read())
    with open(args.out, "wb") as fh:
        fh.write(convert(core, args.drop, args.context_size))


if __name__ == "__main__":
    main()
