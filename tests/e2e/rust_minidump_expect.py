"""What rust-minidump's `minidump-stackwalk --json` says of a minidump's
modules and crash, derived from the file's bytes by its documented rules
(minidump.rs code_identifier, CrashReason; read from its repository), so
that `symtool stackwalk --format rust-minidump` can be checked without
rust-minidump installed:

- a module's code_id: lower-case hex. An RSDS record on macOS/iOS gives the
  GUID (a Mach-O's UUID); RSDS or NB10 elsewhere, and no record on Windows,
  TimeDateStamp (8 digits) and SizeOfImage; a BpEL record its build-id (""
  when all zeros); any other record, or none off Windows, "". Unloaded
  modules: always TimeDateStamp and SizeOfImage.
- crash_info.type on Linux: the signal, then "/ CODE" by the signal's own
  codes, else the generic SI_* names, left out for SI_USER (0), else the
  number; an unknown signal "unknown 0x... / 0x...".
"""
import struct

WINDOWS, MACOS, IOS, LINUX, ANDROID = 2, 0x8101, 0x8102, 0x8201, 0x8203

SIGNALS = ("SIGHUP SIGINT SIGQUIT SIGILL SIGTRAP SIGABRT SIGBUS SIGFPE SIGKILL SIGUSR1 SIGSEGV SIGUSR2 "
           "SIGPIPE SIGALRM SIGTERM SIGSTKFLT SIGCHLD SIGCONT SIGSTOP SIGTSTP SIGTTIN SIGTTOU SIGURG "
           "SIGXCPU SIGXFSZ SIGVTALRM SIGPROF SIGWINCH SIGIO SIGPWR SIGSYS").split()
SIGNAL_CODES = {
    4: "ILL_ILLOPC ILL_ILLOPN ILL_ILLADR ILL_ILLTRP ILL_PRVOPC ILL_PRVREG ILL_COPROC ILL_BADSTK ILL_BADIADDR",
    5: "TRAP_BRKPT TRAP_TRACE TRAP_BRANCH TRAP_HWBKPT TRAP_UNK TRAP_PERF",
    7: "BUS_ADRALN BUS_ADRERR BUS_OBJERR BUS_MCEERR_AR BUS_MCEERR_AO",
    8: "FPE_INTDIV FPE_INTOVF FPE_FLTDIV FPE_FLTOVF FPE_FLTUND FPE_FLTRES FPE_FLTINV FPE_FLTSUB",
    11: "SEGV_MAPERR SEGV_ACCERR SEGV_BNDERR SEGV_PKUERR",
    31: "SYS_SECCOMP SYS_USER_DISPATCH",
}
GENERIC_CODES = {0x80: "SI_KERNEL", -1: "SI_QUEUE", -2: "SI_TIMER", -3: "SI_MESGQ", -4: "SI_ASYNCIO",
                 -5: "SI_SIGIO", -6: "SI_TKILL", -7: "SI_DETHREAD", -60: "SI_ASYNCNL"}


def streams(data):
    """{stream type: bytes} of a minidump."""
    count, rva = struct.unpack_from("<II", data, 8)
    out = {}
    for i in range(count):
        kind, size, at = struct.unpack_from("<III", data, rva + 12 * i)
        out.setdefault(kind, data[at:at + size])
    return out


def utf16_at(data, rva):
    (size,) = struct.unpack_from("<I", data, rva)
    return data[rva + 4:rva + 4 + size].decode("utf-16-le")


def modules(data):
    """[(base, name, TimeDateStamp, SizeOfImage, CodeView record bytes)]"""
    stream = streams(data).get(4)
    if not stream:
        return []
    (count,) = struct.unpack_from("<I", stream, 0)
    out = []
    for i in range(count):
        at = 4 + 108 * i
        base, size, _, stamp, name = struct.unpack_from("<QIIII", stream, at)
        cv_size, cv_rva = struct.unpack_from("<II", stream, at + 76)
        out.append((base, utf16_at(data, name), stamp, size, data[cv_rva:cv_rva + cv_size]))
    return out


def platform(data):
    stream = streams(data).get(7)
    return struct.unpack_from("<I", stream, 20)[0] if stream else None


def code_id(os_id, stamp, size, record):
    pe = f"{stamp:08x}{size:x}"
    signature = record[:4] if len(record) >= 4 else b""
    if signature == b"RSDS" and len(record) >= 24:
        if os_id in (MACOS, IOS):
            data1, data2, data3 = struct.unpack_from("<IHH", record, 4)
            return f"{data1:08x}{data2:04x}{data3:04x}" + record[12:20].hex()
        return pe
    if signature == b"NB10" and len(record) >= 16:
        return pe
    if signature == b"LEpB":
        build_id = record[4:]
        return "" if not any(build_id) else build_id.hex()
    if signature and signature not in (b"RSDS", b"NB10"):
        return ""
    return pe if os_id == WINDOWS else ""


def code_ids(data):
    """{base: rust-minidump's code_id} for the loaded modules."""
    os_id = platform(data)
    return {base: code_id(os_id, stamp, size, cv) for base, _, stamp, size, cv in modules(data)}


def crash_type(data):
    """rust-minidump's crash_info.type for a Linux or Android dump; None
    when the dump has no Exception stream or is of another OS."""
    stream = streams(data).get(6)
    if not stream or platform(data) not in (LINUX, ANDROID):
        return None
    code, flags = struct.unpack_from("<II", stream, 8)
    if code == 0xffffffff:
        name = "DUMP_REQUESTED"
    elif 1 <= code <= len(SIGNALS):
        name = SIGNALS[code - 1]
    else:
        return f"unknown {code:#010x} / {flags:#010x}"
    own = SIGNAL_CODES.get(code, "").split()
    if 1 <= flags <= len(own):
        return f"{name} / {own[flags - 1]}"
    if flags == 0:
        return name
    signed = flags - (1 << 32) if flags & 0x80000000 else flags
    return f"{name} / {GENERIC_CODES.get(signed, f'{flags:#010x}')}"


def set_module_time_stamps(data, stamp):
    """The dump with every module's TimeDateStamp set to `stamp` (Windows
    ids with letters in them)."""
    count, rva = struct.unpack_from("<II", data, 8)
    out = bytearray(data)
    for i in range(count):
        kind, size, at = struct.unpack_from("<III", data, rva + 12 * i)
        if kind == 4:
            (n,) = struct.unpack_from("<I", data, at)
            for k in range(n):
                struct.pack_into("<I", out, at + 4 + 108 * k + 16, stamp)
    return bytes(out)
