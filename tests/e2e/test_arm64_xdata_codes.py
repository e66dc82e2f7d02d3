#!/usr/bin/env python3
"""ARM64 .xdata codes that compilers seldom write, from assembly: llvm-mc-19
assembles SEH directives for aarch64-pc-windows-msvc (clear_unwound_to_call,
pac_sign_lr, save_any_reg, a machine frame, trap frame, CONTEXT and EC
CONTEXT), lld-link-19 links them into a DLL, and llvm-readobj-19 --unwind
decodes its .pdata/.xdata: the oracle for which functions there are, their
lengths and their unwind codes (with the byte lengths it reads them by).

- Every RUNTIME_FUNCTION whose codes leave the frame to STACK CFI has a
  STACK CFI INIT at its RVA with its length; those with a custom stack
  (trap, machine frame, CONTEXT, EC CONTEXT) have none, and dump_syms -v
  warns naming the code (MSFT_OP_...).
- At every instruction of the prologues, bodies and packed epilogues, the
  caller's registers our STACK CFI gives on a made-up machine state equal
  what Windows' unwinder computes from llvm-readobj's decoded codes, run
  here as Microsoft's "ARM64 exception handling" describes: the codes the
  instruction has executed, in unwind order, lr (or the pc taken at a
  clear_unwound_to_call) as the caller's pc."""
import os
import re
import subprocess
import tempfile

from common import Report, arguments
from unwind_eval import EvalError, MachineState, eval_postfix

LLVM_MC = "llvm-mc-19"
LLD_LINK = "/usr/lib/llvm-19/bin/lld-link"
READOBJ = "llvm-readobj-19"

SOURCE = r"""
  .text
  .macro func name
  .globl \name
  .p2align 2
  .def \name; .scl 2; .type 32; .endef
  .seh_proc \name
\name:
  .endm

  // lr saved, then the code: the caller's pc is the live lr in the body.
  func clear_after_save
  stp x29, x30, [sp, #-16]!
  .seh_save_fplr_x 16
  nop
  .seh_clear_unwound_to_call
  sub sp, sp, #32
  .seh_stackalloc 32
  .seh_endprologue
  bl clear_after_save
  .seh_startepilogue
  add sp, sp, #32
  .seh_stackalloc 32
  ldp x29, x30, [sp], #16
  .seh_save_fplr_x 16
  .seh_endepilogue
  ret
  .seh_endproc

  // The code first, lr saved after it: the pc is lr's slot.
  func clear_before_save
  nop
  .seh_clear_unwound_to_call
  stp x29, x30, [sp, #-32]!
  .seh_save_fplr_x 32
  stp x19, x20, [sp, #16]
  .seh_save_regp x19, 16
  .seh_endprologue
  bl clear_before_save
  .seh_startepilogue
  ldp x19, x20, [sp, #16]
  .seh_save_regp x19, 16
  ldp x29, x30, [sp], #32
  .seh_save_fplr_x 32
  .seh_endepilogue
  ret
  .seh_endproc

  func signed_lr
  hint #27
  .seh_pac_sign_lr
  stp x29, x30, [sp, #-16]!
  .seh_save_fplr_x 16
  mov x29, sp
  .seh_set_fp
  .seh_endprologue
  bl signed_lr
  .seh_startepilogue
  ldp x29, x30, [sp], #16
  .seh_save_fplr_x 16
  hint #31
  .seh_pac_sign_lr
  .seh_endepilogue
  ret
  .seh_endproc

  func any_reg
  str x30, [sp, #-16]!
  .seh_save_any_reg_x x30, 16
  stp x0, x1, [sp, #-16]!
  .seh_save_any_reg_px x0, 16
  str x22, [sp, #-16]!
  .seh_save_reg_x x22, 16
  .seh_endprologue
  bl any_reg
  .seh_startepilogue
  ldr x22, [sp], #16
  .seh_save_reg_x x22, 16
  ldp x0, x1, [sp], #16
  .seh_save_any_reg_px x0, 16
  ldr x30, [sp], #16
  .seh_save_any_reg_x x30, 16
  .seh_endepilogue
  ret
  .seh_endproc

  func machine_frame
  .seh_pushframe
  sub sp, sp, #16
  .seh_stackalloc 16
  .seh_endprologue
  bl machine_frame
  ret
  .seh_endproc

  func trap_frame
  .seh_trap_frame
  sub sp, sp, #16
  .seh_stackalloc 16
  .seh_endprologue
  bl trap_frame
  ret
  .seh_endproc

  func context_frame
  .seh_context
  sub sp, sp, #16
  .seh_stackalloc 16
  .seh_endprologue
  bl context_frame
  ret
  .seh_endproc

  func ec_context_frame
  .seh_ec_context
  sub sp, sp, #16
  .seh_stackalloc 16
  .seh_endprologue
  bl ec_context_frame
  ret
  .seh_endproc
"""

CUSTOM_STACKS = {"trap frame": "MSFT_OP_TRAP_FRAME", "machine frame": "MSFT_OP_MACHINE_FRAME",
                 "context": "MSFT_OP_CONTEXT", "EC context": "MSFT_OP_EC_CONTEXT"}
NAMES = {**{f"x{n}": n for n in range(31)}, "sp": 31}


def sh(*argv, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(list(argv), capture_output=True, text=True, **kw)


def runtime_functions(text):
    """llvm-readobj's RuntimeFunction blocks: rva (from the image base),
    length, packed or not, the prologue's codes and the epilogue's (each
    (byte length, text)), and the epilogue's byte index."""
    out = []
    for block in text.split("RuntimeFunction {")[1:]:
        f = {"address": int(re.search(r"Function: 0x([0-9A-Fa-f]+)", block).group(1), 16),
             "length": int(re.search(r"FunctionLength: (\d+)", block).group(1)),
             "packed": "ExceptionRecord" not in block, "prologue": [], "epilogue": None}
        offset = re.search(r"EpilogueOffset: (\d+)", block)
        f["epilogue_index"] = int(offset.group(1)) if offset else None
        part = None
        for line in block.splitlines():
            line = line.strip()
            if line == "Prologue [":
                part = f["prologue"]
            elif line == "Epilogue [":
                f["epilogue"] = part = []
            elif line == "]":
                part = None
            elif part is not None:
                m = re.match(r"0x([0-9a-f]+)\s*; (.*)", line)
                part.append((len(m.group(1)) // 2, m.group(2)) if m else (None, line))
        out.append(f)
    return out


def windows_unwind(codes, state):
    """The caller's registers by Microsoft's algorithm: `codes` (texts, in
    unwind order) undone from the callee's state. Registers never touched
    keep the callee's values; the pc is lr at the end, or lr as it was at a
    clear_unwound_to_call."""
    regs = {n: state.register(n) for n in range(32)}
    pc = None

    def reg(name):
        return 30 if name == "lr" else (29 if name == "fp" else int(name[1:]))

    for text in codes:
        text = text.strip()
        if text == "end":
            break
        # llvm-readobj spells a code as the prologue's instruction or as
        # the epilogue's (its inverse); the unwinder does the same for both.
        if m := re.fullmatch(r"(?:sub|add) sp, (?:sp, )?#(\d+)", text):
            regs[31] += int(m.group(1))
        elif m := re.fullmatch(r"(?:stp (\w+), (\w+), \[sp, #-(\d+)\]!|ldp (\w+), (\w+), \[sp\], #(\d+))",
                               text):
            a, b, size = (m.group(1), m.group(2), m.group(3)) if m.group(1) else m.group(4, 5, 6)
            regs[reg(a)] = state.memory(regs[31])
            regs[reg(b)] = state.memory(regs[31] + 8)
            regs[31] += int(size)
        elif m := re.fullmatch(r"(?:str (\w+), \[sp, #-(\d+)\]!|ldr (\w+), \[sp\], #(\d+))", text):
            a, size = (m.group(1), m.group(2)) if m.group(1) else m.group(3, 4)
            regs[reg(a)] = state.memory(regs[31])
            regs[31] += int(size)
        elif m := re.fullmatch(r"(?:stp|ldp) (\w+), (\w+), \[sp, #(\d+)\]", text):
            regs[reg(m.group(1))] = state.memory(regs[31] + int(m.group(3)))
            regs[reg(m.group(2))] = state.memory(regs[31] + int(m.group(3)) + 8)
        elif text in ("mov x29, sp", "mov fp, sp", "mov sp, x29", "mov sp, fp"):
            regs[31] = regs[29]
        elif text == "clear unwound to call":
            pc = regs[30]
        elif text in ("pacibsp", "autibsp", "nop"):
            pass
        else:
            raise SystemExit(f"the test's unwinder does not know {text!r}")
    return regs, (regs[30] if pc is None else pc)


def stack_cfi(text):
    """rva -> (length, [(address, {name: expression})]) from the symbol file."""
    frames = {}
    current = None
    for line in text.splitlines():
        if line.startswith("STACK CFI INIT "):
            _, _, _, start, size, rest = line.split(" ", 5)
            current = (int(start, 16), int(size, 16), [(int(start, 16), rules(rest))])
            frames[current[0]] = current
        elif line.startswith("STACK CFI ") and current:
            _, _, address, rest = line.split(" ", 3)
            current[2].append((int(address, 16), rules(rest)))
    return frames


def rules(text):
    out = {}
    for m in re.finditer(r"(\S+): ((?:(?!\S+: ).)*)", text):
        out[m.group(1)] = m.group(2).strip()
    return out


def our_unwind(frame, address, state):
    held = {}
    for at, changes in frame[2]:
        if at <= address:
            held.update(changes)
    cfa = eval_postfix(held[".cfa"].split(), state, NAMES)
    values = {"sp": cfa, "pc": eval_postfix(held[".ra"].split(), state, NAMES, cfa)}
    for name, expression in held.items():
        if not name.startswith("."):
            values[name] = eval_postfix(expression.split(), state, NAMES, cfa)
    return values


def main():
    args = arguments()
    report = Report("ARM64 .xdata codes from assembly")
    with tempfile.TemporaryDirectory() as tmp:
        run(args, report, tmp)
    report.finish()


def run(args, report, tmp):
    source, obj, dll = (os.path.join(tmp, n) for n in ("codes.s", "codes.obj", "codes.dll"))
    with open(source, "w") as fh:
        fh.write(SOURCE)
    sh(LLVM_MC, "-triple", "aarch64-pc-windows-msvc", "-filetype", "obj", source, "-o", obj, check=True)
    sh(LLD_LINK, "/dll", "/noentry", "/nodefaultlib", "/machine:arm64", obj, f"/out:{dll}", check=True)
    decoded = sh(READOBJ, "--unwind", dll, check=True).stdout
    image_base = int(re.search(r"ImageBase: 0x([0-9A-Fa-f]+)", sh(READOBJ, "--file-headers", dll).stdout).group(1), 16)
    functions = runtime_functions(decoded)
    p = sh(args.dump_syms, "-v", dll)
    if p.returncode != 0:
        report.fail(f"dump_syms {dll}: exit {p.returncode}: {p.stderr.strip()}")
        return
    frames = stack_cfi(p.stdout)
    checked = instructions = 0
    for f in functions:
        rva = f["address"] - image_base
        texts = [t for _, t in f["prologue"]]
        custom = [CUSTOM_STACKS[t] for t in texts if t in CUSTOM_STACKS]
        if custom:
            if rva in frames:
                report.fail(f"{rva:#x}: a STACK CFI INIT for a function with {custom[0]}")
            if not any(f"entry at {rva:#x}" in line and custom[0] in line for line in p.stderr.splitlines()):
                report.fail(f"{rva:#x}: no warning naming {custom[0]}: {p.stderr.strip()}")
            checked += 1
            continue
        frame = frames.get(rva)
        if not frame or frame[1] != f["length"]:
            report.fail(f"{rva:#x}: STACK CFI INIT {frame and (hex(frame[0]), frame[1])} != length {f['length']}")
            continue
        checked += 1
        # Offsets into the function and the codes the unwinder runs there.
        prologue = [t for t in texts if t != "end"]
        n = len(prologue)
        runs = {4 * k: prologue[n - k:] for k in range(n + 1)}
        body_end = f["length"]
        if not f["packed"] and f["epilogue_index"] is not None:
            # A packed epilogue: its codes start at that byte of the code
            # array and it ends the function (its `end` is the ret).
            byte, codes = 0, f["prologue"] + (f["epilogue"] or [])
            start = None
            for i, (size, _) in enumerate(codes):
                if byte == f["epilogue_index"]:
                    start = i
                    break
                byte += size
            epilogue = []
            for _, t in codes[start:]:
                epilogue.append(t)
                if t == "end":
                    break
            body_end = f["length"] - 4 * len(epilogue)
            for j in range(len(epilogue)):
                runs[body_end + 4 * j] = epilogue[j:]
        elif f["packed"]:
            body_end = 4 * (n + 1)  # the packed epilogue's place is left to the body's rules
        for offset in range(4 * n, body_end, 4):
            runs.setdefault(offset, prologue)
        for offset, codes in sorted(runs.items()):
            for seed in (1, 2):
                state = MachineState("arm64", 64, seed * 7919 + rva + offset)
                regs, pc = windows_unwind(codes, state)
                try:
                    ours = our_unwind(frame, rva + offset, state)
                except (EvalError, KeyError) as error:
                    report.fail(f"{rva + offset:#x}: our rules do not evaluate: {error}")
                    continue
                want = {"sp": regs[31], "pc": pc}
                for name in ours:
                    if name not in ("sp", "pc"):
                        want[name] = regs[NAMES[name]]
                # A register the unwinder restores needs a rule (lr aside:
                # the pc stands for it unless a clear_unwound_to_call split them).
                for number in range(31):
                    if regs[number] != state.register(number) and f"x{number}" not in ours and \
                            not (number == 30 and pc == regs[30]):
                        want[f"x{number}"] = regs[number]
                got = {k: ours.get(k) for k in want}
                if got != want:
                    report.fail(f"{rva + offset:#x} ({codes}): ours {got} != Windows' {want}")
                instructions += 1
    report.note(f"{len(functions)} functions, {checked} checked; {instructions} instruction states "
                f"unwound as Windows does")
    if len(functions) != 8:
        report.fail(f"llvm-readobj decodes {len(functions)} functions, not 8")


if __name__ == "__main__":
    main()
