#!/usr/bin/env python3
"""A microdump of a core file's crash, as Breakpad's Linux client logs one
(its microdump_writer, read for the format; written here from scratch):

  -----BEGIN BREAKPAD MICRODUMP-----
  V <product>:<version>
  O <L|A> <arch> <cpu count, 2 hex digits> <hardware arch> <build fingerprint>
  P <process type>
  R <signal, 8 hex digits> <signal name> <fault address>
  G <GPU or UNKNOWN>
  S 0 <stack pointer> <stack start> <stack length>
  S <address> <up to 384 stack bytes in upper-case hex>   (one line each)
  C <the CPU context, the minidump layout for the CPU, in hex>
  M <start> <file offset> <size> <GUID of the build id, then age 0> <file name>
  -----END BREAKPAD MICRODUMP-----

pointer-wide numbers upper-case hex padded to the pointer width. The
crashing thread alone: its context (core_to_minidump.context) and its
stack from the stack pointer's page up to the end of its mapping. Lines
are prefixed as the log shows them: none (stderr), logcat's brief form
("F/google-breakpad( 1234): ") or its threadtime form, other programs'
lines interleaved if asked."""
import os
import struct

import core_to_minidump as c2m

ARCH = {c2m.EM_X86_64: ("x86_64", "x86_64"), c2m.EM_AARCH64: ("arm64", "aarch64"),
        c2m.EM_ARM: ("arm", "armv7l"), c2m.EM_386: ("x86", "i686")}
SIGNALS = {4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 11: "SIGSEGV", 31: "SIGSYS"}
CHUNK = 384


def guid_id(build_id):
    """Breakpad's debug id of a build id: its first 16 bytes as a GUID
    (the first three fields little-endian), then age 0."""
    raw = (build_id + bytes(16))[:16]
    d1, d2, d3 = struct.unpack_from("<IHH", raw)
    return f"{d1:08X}{d2:04X}{d3:04X}{raw[8:].hex().upper()}0"


def records(core, os_id="L", product="walker:1.0", stack_limit=1 << 20):
    crashed = next((t for t in core.threads if t["signal"] in c2m.FATAL),
                   next((t for t in core.threads if t["signal"]), core.threads[0]))
    width = 16 if core.is64 else 8
    arch, hw = ARCH[core.machine]
    hexw = lambda v: f"{v:0{width}X}"
    out = ["-----BEGIN BREAKPAD MICRODUMP-----", f"V {product}", f"O {os_id} {arch} 02 {hw} test/fingerprint:6.1.0",
           "P browser"]
    signo, _, address = core.siginfo if core.siginfo and core.siginfo[0] == crashed["signal"] \
        else (crashed["signal"], 0, 0)
    out.append(f"R {signo:08X} {SIGNALS.get(signo, 'SIGSEGV')} {hexw(address)}")
    out.append("G UNKNOWN")
    sp = core.stack_pointer(crashed)
    lower = sp & ~0xfff
    stack = core.read(lower, stack_limit)
    out.append(f"S 0 {hexw(sp)} {hexw(lower)} {hexw(len(stack))}")
    for at in range(0, len(stack), CHUNK):
        out.append(f"S {hexw(lower + at)} {stack[at:at + CHUNK].hex().upper()}")
    out.append("C " + c2m.context(core, crashed).hex().upper())
    for start, end, offset, path in core.files:
        if offset == 0 and os.path.exists(path):
            last = max(e for s, e, o, p in core.files if p == path and s >= start)
            out.append(f"M {hexw(start)} {hexw(0)} {hexw(last - start)} {guid_id(c2m.build_id(path))} "
                       f"{os.path.basename(path)}")
    out.append("-----END BREAKPAD MICRODUMP-----")
    return out


def logged(lines, style="bare", pid=4242, interleave=False):
    """The lines as a log holds them."""
    text = []
    for i, line in enumerate(lines):
        if style == "brief":
            text.append(f"F/google-breakpad({pid:5d}): {line}")
        elif style == "threadtime":
            text.append(f"12-02 02:30:{i % 60:02d}.{i % 1000:03d}  {pid:5d}  {pid:5d} F google-breakpad: {line}")
        else:
            text.append(line)
        if interleave and i % 7 == 3:
            text.append(f"I/ActivityManager(  567): S 0 not a record, from another program {i}"
                        if style != "bare" else f"walker: unrelated output line {i}")
    return "\n".join(text) + "\n"


def convert(core, style="bare", os_id="L", interleave=False, **kw):
    return logged(records(core, os_id=os_id, **kw), style=style, interleave=interleave)
