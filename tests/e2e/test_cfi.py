#!/usr/bin/env python3
"""Every unwind row llvm-dwarfdump-19 prints (.eh_frame and .debug_frame)
must compute what the STACK CFI rules at that address compute: the CFA, the
return address and every register with a rule, evaluated on made-up machine
states. DWARF expressions are evaluated too, so no row is skipped for being
an expression. Registers Breakpad has no name for are reported, not failed."""
import os

import oracles
import unwind_eval as ue
from common import Report, arguments, dump, fixtures

CPUS = {"x86", "x86_64", "arm", "arm64", "mips", "riscv"}
STATES = 3


def compare_row(report, where, cpu, word_bits, cfa_text, registers, rules):
    """Fails `report` where `rules` (ours) compute other values than the
    llvm-dwarfdump row (cfa_text, registers) on a few made-up states."""
    names = ue.BREAKPAD_NAMES[cpu]
    names_to_numbers = {v: k for k, v in names.items()}
    llvm_registers = oracles.LLVM_REGISTERS[cpu]
    for seed in range(STATES):
        state = ue.MachineState(cpu, word_bits, seed)
        try:
            want_cfa = ue.eval_llvm_cfa(cfa_text, state, llvm_registers)
        except ue.EvalError as error:
            report.fail(f"{where}: oracle CFA {cfa_text!r}: {error}")
            return
        try:
            have_cfa = ue.eval_postfix(rules[".cfa"], state, names_to_numbers)
        except (ue.EvalError, KeyError) as error:
            report.fail(f"{where}: .cfa {rules.get('.cfa')} fails: {error!r} (oracle {cfa_text})")
            return
        if have_cfa != want_cfa:
            report.fail(f"{where}: .cfa {' '.join(rules['.cfa'])} != oracle {cfa_text}")
            return
        wanted = {}
        for reg_text, location in registers.items():
            if reg_text in llvm_registers:
                wanted[llvm_registers[reg_text]] = location
        numbers = set(wanted) | {names_to_numbers[n] for n in rules if n in names_to_numbers}
        numbers.add(ue.RA_COLUMN[cpu])
        for number in sorted(numbers):
            rule_name = ".ra" if number == ue.RA_COLUMN[cpu] else names.get(number)
            if rule_name is None:
                continue  # Breakpad has no name for it (e.g. ARM d8)
            location = wanted.get(number, "same")
            try:
                want = ue.eval_llvm_location(location, state, llvm_registers, want_cfa)
            except ue.EvalError as error:
                report.fail(f"{where}: oracle {location!r}: {error}")
                continue
            have_tokens = rules.get(rule_name)
            if want == "same":
                want = state.register(number)
            if want == "undefined":
                if have_tokens != [".undef"]:
                    report.fail(f"{where}: {rule_name} should be .undef, is {have_tokens}")
                continue
            if have_tokens is None:
                have = state.register(number)  # no rule: the callee's value
            else:
                try:
                    have = ue.eval_postfix(have_tokens, state, names_to_numbers, have_cfa)
                except ue.EvalError as error:
                    report.fail(f"{where}: {rule_name}: {' '.join(have_tokens)} fails: {error} (oracle {location})")
                    continue
            if have != want:
                report.fail(f"{where}: {rule_name}: {' '.join(have_tokens or ['(none)'])} != oracle {location}")


def check(args, binary, report, code=None, label=None):
    label = label or os.path.basename(binary)
    sym, _ = dump(args, code or binary)
    cpu = sym.module[2]
    if cpu not in CPUS:
        report.fail(f"{label}: cpu {cpu} not covered")
        return 0
    elf_class_64 = oracles.word_bits(code or binary) == 64
    llvm_registers = oracles.LLVM_REGISTERS[cpu]
    base = oracles.load_address(code or binary)
    fdes = oracles.unwind_tables(code or binary)
    eh_ranges = [(start, end) for section, start, end, _ in fdes if section == "eh-frame"]
    rows_checked = 0
    for section, start, end, rows in fdes:
        if start == 0 or start == end:
            continue
        if section == "debug-frame" and any(s < end and start < e for s, e in eh_ranges):
            continue  # the same code's .eh_frame FDE is the one dump_syms keeps
        for address, cfa_text, registers in rows:
            if not start <= address < end:
                continue  # llvm-dwarfdump also prints a row at the FDE's end
            rva = address - base
            rules = sym.cfi_rules_at(rva)
            where = f"{label} {section} {rva:x}"
            if rules is None:
                report.fail(f"{where}: no STACK CFI covers this row")
                continue
            rows_checked += 1
            ra = registers.get(next((n for n, i in llvm_registers.items() if i == ue.RA_COLUMN[cpu]), ""), None)
            if ra is None:
                for n, i in llvm_registers.items():
                    if i == ue.RA_COLUMN[cpu] and n in registers:
                        ra = registers[n]
            if ra == "undefined":
                if rules.get(".ra") != [".undef"]:
                    report.fail(f"{where}: outermost frame (RA undefined) but .ra is {rules.get('.ra')}")
                continue
            compare_row(report, where, cpu, 64 if elf_class_64 else 32, cfa_text, registers, rules)
    if rows_checked == 0:
        report.fail(f"{label}: no unwind rows checked")
    return rows_checked


def main():
    args = arguments()
    report = Report("cfi")
    total = 0
    for fixture in fixtures(args):
        if fixture.get("twin"):
            continue  # EHABI-only builds: test_ehabi.py checks them
        n = check(args, fixture["path"], report)
        total += n
        print(f"{fixture['name']}: {n} rows checked")
    report.note(f"{total} unwind rows checked in all")
    report.finish()


if __name__ == "__main__":
    main()
