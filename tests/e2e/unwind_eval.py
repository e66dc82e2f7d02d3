"""Evaluates unwind rules on made-up machine states, so that two spellings of
a rule (llvm-dwarfdump's DWARF and our postfix) can be compared by what they
compute rather than by how they read.

Breakpad's register names per CPU are written out here from the format
description, apart from the C++ tables under test."""
import re


def _series(prefix, first, last, start):
    return {start + i: f"{prefix}{n}" for i, n in enumerate(range(first, last + 1))}


BREAKPAD_NAMES = {
    "x86": {**{i: n for i, n in enumerate(["$eax", "$ecx", "$edx", "$ebx", "$esp", "$ebp", "$esi", "$edi", "$eip"])}},
    "x86_64": {**{i: n for i, n in enumerate(["$rax", "$rdx", "$rcx", "$rbx", "$rsi", "$rdi", "$rbp", "$rsp"])},
               **_series("$r", 8, 15, 8), 16: "$rip"},
    "arm": {**_series("r", 0, 12, 0), 13: "sp", 14: "lr", 15: "pc"},
    "arm64": {**_series("x", 0, 30, 0), 31: "sp", **_series("v", 0, 31, 64)},
    "mips": {i: n for i, n in enumerate(
        ["$zero", "$at", "$v0", "$v1", "$a0", "$a1", "$a2", "$a3", "$t0", "$t1", "$t2", "$t3", "$t4", "$t5",
         "$t6", "$t7", "$s0", "$s1", "$s2", "$s3", "$s4", "$s5", "$s6", "$s7", "$t8", "$t9", "$k0", "$k1",
         "$gp", "$sp", "$fp", "$ra"])},
    "riscv": {**{i: n for i, n in enumerate(["pc", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1"])},
              **_series("a", 0, 7, 10), **_series("s", 2, 11, 18), **_series("t", 3, 6, 28),
              **_series("f", 0, 31, 32)},
}
RA_COLUMN = {"x86": 8, "x86_64": 16, "arm": 14, "arm64": 30, "mips": 31, "riscv": 1}


class EvalError(Exception):
    pass


class MachineState:
    """Callee registers and memory, all pseudo-random but repeatable."""

    def __init__(self, cpu, word_bits, seed):
        self.cpu = cpu
        self.mask = (1 << word_bits) - 1
        self.word_bits = word_bits
        self.seed = seed

    def _mix(self, x):
        x = (x * 0x9E3779B97F4A7C15 + self.seed * 0xBF58476D1CE4E5B9) & (2 ** 64 - 1)
        x ^= x >> 31
        x = (x * 0x94D049BB133111EB) & (2 ** 64 - 1)
        return x ^ (x >> 29)

    def register(self, number):
        return self._mix(1000 + number) & self.mask

    def memory(self, address):
        return self._mix(address & self.mask) & self.mask


# ------------------------------------------------------------ postfix side
def eval_postfix(tokens, state, names_to_numbers, cfa=None):
    stack = []
    mask = state.mask
    for token in tokens:
        if token in ("+", "-", "*", "/", "%", "@"):
            if len(stack) < 2:
                raise EvalError("stack underflow")
            b, a = stack.pop(), stack.pop()
            if token == "+":
                stack.append((a + b) & mask)
            elif token == "-":
                stack.append((a - b) & mask)
            elif token == "*":
                stack.append((a * b) & mask)
            elif token in ("/", "%"):
                if b == 0:
                    raise EvalError("division by zero")
                stack.append((a // b if token == "/" else a % b) & mask)
            else:
                if b == 0 or b & (b - 1):
                    raise EvalError("@ by a non-power of two")
                stack.append(a & ~(b - 1) & mask)
        elif token == "^":
            if not stack:
                raise EvalError("stack underflow")
            stack.append(state.memory(stack.pop()))
        elif re.match(r"^-?\d+$", token):
            stack.append(int(token) & mask)
        elif token == ".cfa":
            if cfa is None:
                raise EvalError(".cfa used before it is known")
            stack.append(cfa)
        elif token in names_to_numbers:
            stack.append(state.register(names_to_numbers[token]))
        else:
            raise EvalError(f"unknown identifier {token}")
    if len(stack) != 1:
        raise EvalError("the expression does not leave one value")
    return stack[0]


# ------------------------------------------------------------ DWARF side
def _signed(v, bits):
    return v - (1 << bits) if v & (1 << (bits - 1)) else v


def eval_dwarf_text(text, state, llvm_registers, cfa=None):
    """Evaluates llvm-dwarfdump's printed form of a DWARF expression."""
    stack = [cfa] if cfa is not None else []
    mask, bits = state.mask, state.word_bits
    for op in [o.strip() for o in text.split(",")]:
        name, _, arg = op.partition(" ")
        if re.match(r"^DW_OP_breg\d+$", name) or name == "DW_OP_bregx":
            m = re.match(r"^(?:\S+ )?([A-Z][A-Z0-9_]*)([+-]\d+)$", arg)
            if not m or m.group(1) not in llvm_registers:
                raise EvalError(f"cannot read {op!r}")
            stack.append((state.register(llvm_registers[m.group(1)]) + int(m.group(2))) & mask)
        elif re.match(r"^DW_OP_lit\d+$", name):
            stack.append(int(name[9:]))
        elif name.startswith("DW_OP_const"):
            value = int(arg.split()[0], 0)
            stack.append(value & mask)
        elif name == "DW_OP_plus_uconst":
            stack.append((stack.pop() + int(arg, 0)) & mask)
        elif name in ("DW_OP_deref", "DW_OP_deref_size"):
            stack.append(state.memory(stack.pop()))
        elif name == "DW_OP_dup":
            stack.append(stack[-1])
        elif name == "DW_OP_drop":
            stack.pop()
        elif name == "DW_OP_swap":
            stack[-1], stack[-2] = stack[-2], stack[-1]
        elif name == "DW_OP_over":
            stack.append(stack[-2])
        elif name == "DW_OP_neg":
            stack.append((-stack.pop()) & mask)
        elif name == "DW_OP_nop":
            pass
        else:
            b, a = stack.pop(), stack.pop()
            sa, sb = _signed(a, bits), _signed(b, bits)
            result = {
                "DW_OP_plus": lambda: a + b, "DW_OP_minus": lambda: a - b, "DW_OP_mul": lambda: a * b,
                "DW_OP_and": lambda: a & b, "DW_OP_or": lambda: a | b, "DW_OP_xor": lambda: a ^ b,
                "DW_OP_shl": lambda: a << b, "DW_OP_shr": lambda: a >> b, "DW_OP_shra": lambda: sa >> b,
                "DW_OP_div": lambda: int(sa / sb) if sb else None, "DW_OP_mod": lambda: a % b if b else None,
                "DW_OP_ge": lambda: int(sa >= sb), "DW_OP_gt": lambda: int(sa > sb),
                "DW_OP_lt": lambda: int(sa < sb), "DW_OP_le": lambda: int(sa <= sb),
                "DW_OP_eq": lambda: int(a == b), "DW_OP_ne": lambda: int(a != b),
            }.get(name)
            if result is None:
                raise EvalError(f"operation {name} not modelled")
            value = result()
            if value is None:
                raise EvalError("division by zero")
            stack.append(value & mask)
    if not stack:
        raise EvalError("empty stack")
    return stack[-1]


def eval_llvm_location(text, state, llvm_registers, cfa):
    """One llvm-dwarfdump location: 'RSP+8', '[CFA-16]', 'CFA+8', 'same',
    'undefined', '[DW_OP_breg5 EBP-12]'... -> value, or 'same'/'undefined'."""
    if text in ("same", "undefined", "unspecified"):
        return text
    deref = text.startswith("[") and text.endswith("]")
    inner = text[1:-1] if deref else text
    if inner.startswith("DW_OP_"):
        # DW_CFA_expression / val_expression: the CFA is pushed first.
        value = eval_dwarf_text(inner, state, llvm_registers, cfa)
    else:
        m = re.match(r"^([A-Z][A-Z0-9_]*)([+-]\d+)?$", inner)
        if not m:
            raise EvalError(f"cannot read location {text!r}")
        if m.group(1) == "CFA":
            base = cfa
        elif m.group(1) in llvm_registers:
            base = state.register(llvm_registers[m.group(1)])
        else:
            raise EvalError(f"unknown register {m.group(1)}")
        value = (base + int(m.group(2) or 0)) & state.mask
    return state.memory(value) if deref else value


def eval_llvm_cfa(text, state, llvm_registers):
    if text.startswith("DW_OP_"):
        return eval_dwarf_text(text, state, llvm_registers)
    return eval_llvm_location(text, state, llvm_registers, None)
