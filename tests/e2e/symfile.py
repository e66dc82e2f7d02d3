"""Reads a Breakpad symbol file the way the processor does, checks its
structure against the format's rules, and answers address lookups.

Written for the tests from the format description, independently of the
writer under test."""
import bisect
import re
from dataclasses import dataclass, field

HEX = re.compile(r"^[0-9a-f]+$")
DEC = re.compile(r"^-?[0-9]+$")
POSTFIX_BINARY = {"+", "-", "*", "/", "%", "@"}


@dataclass
class Func:
    address: int
    size: int
    name: str
    multiple: bool
    lines: list = field(default_factory=list)    # (address, size, line, file)
    inlines: list = field(default_factory=list)  # (depth, call_line, call_file, origin, [(a, n)])


@dataclass
class CfiGroup:
    address: int
    size: int
    initial: dict
    changes: list = field(default_factory=list)  # (address, {name: expr})


class SymFile:
    def __init__(self, text):
        self.problems = []
        self.module = None
        self.info = {}
        self.files = {}
        self.origins = {}
        self.funcs = []
        self.publics = []
        self.cfi = []
        self.stack_win = []
        self._parse(text)
        self._index()

    # ------------------------------------------------------------ parsing
    def _problem(self, number, message, line):
        if len(self.problems) < 100:
            self.problems.append(f"line {number}: {message}: {line[:160]!r}")

    def _parse(self, text):
        current = None
        group = None
        last_depth = None
        if "\0" in text:
            self._problem(0, "NUL byte in file", "")
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for number, line in enumerate(lines, 1):
            if line == "" or line.endswith("\r"):
                self._problem(number, "empty line or CR", line)
                continue
            if line.startswith("MODULE "):
                parts = line.split(" ", 4)
                if number != 1 or len(parts) != 5 or not re.match(r"^[0-9A-F]{33}$", parts[3]):
                    self._problem(number, "bad MODULE", line)
                self.module = parts
            elif line.startswith("INFO "):
                parts = line.split(" ", 2)
                if len(parts) == 3:
                    self.info[parts[1]] = parts[2]
            elif line.startswith("FILE "):
                parts = line.split(" ", 2)
                if len(parts) != 3 or not parts[1].isdigit() or not parts[2]:
                    self._problem(number, "bad FILE", line)
                    continue
                if int(parts[1]) in self.files:
                    self._problem(number, "FILE id defined twice", line)
                self.files[int(parts[1])] = parts[2]
            elif line.startswith("INLINE_ORIGIN "):
                parts = line.split(" ", 2)
                if len(parts) != 3 or not parts[1].isdigit() or not parts[2]:
                    self._problem(number, "bad INLINE_ORIGIN", line)
                    continue
                if parts[2].split(" ")[0].lstrip("-").isdigit():
                    self._problem(number, "INLINE_ORIGIN name would parse as the old 3-field form", line)
                self.origins[int(parts[1])] = parts[2]
            elif line.startswith("FUNC "):
                parts = line.split(" ")
                multiple = parts[1] == "m"
                head = line.split(" ", 5 if multiple else 4)
                fields = head[2:] if multiple else head[1:]
                if len(fields) != 4 or not all(HEX.match(x) for x in fields[:3]) or not fields[3]:
                    self._problem(number, "bad FUNC", line)
                    current = None
                    continue
                if int(fields[1], 16) == 0:
                    self._problem(number, "zero-size FUNC", line)
                current = Func(int(fields[0], 16), int(fields[1], 16), fields[3], multiple)
                self.funcs.append(current)
                last_depth = None
            elif line.startswith("INLINE "):
                parts = line.split(" ")
                if current is None:
                    self._problem(number, "INLINE without a current FUNC (crashes the processor)", line)
                    continue
                if len(parts) < 7 or len(parts) % 2 != 1 or not all(DEC.match(p) for p in parts[1:5]) or \
                        not all(HEX.match(p) for p in parts[5:]):
                    self._problem(number, "bad INLINE", line)
                    continue
                depth, call_line, call_file, origin = (int(p) for p in parts[1:5])
                if depth < 0 or call_line < 0 or origin < 0 or call_file < -1:
                    self._problem(number, "negative INLINE field", line)
                if (last_depth is None and depth > 1) or (last_depth is not None and depth > last_depth + 1):
                    self._problem(number, "INLINE nest level jumps (the processor drops it)", line)
                if (len(parts) - 5) // 2 > 254:
                    self._problem(number, "more than 254 INLINE ranges", line)
                ranges = [(int(parts[i], 16), int(parts[i + 1], 16)) for i in range(5, len(parts), 2)]
                current.inlines.append((depth, call_line, call_file, origin, ranges))
                last_depth = depth
            elif line.startswith("PUBLIC "):
                parts = line.split(" ")
                multiple = parts[1] == "m"
                head = line.split(" ", 4 if multiple else 3)
                fields = head[2:] if multiple else head[1:]
                if len(fields) != 3 or not HEX.match(fields[0]) or not HEX.match(fields[1]) or not fields[2]:
                    self._problem(number, "bad PUBLIC", line)
                    continue
                self.publics.append((int(fields[0], 16), fields[2], multiple))
                current = None
            elif line.startswith("STACK CFI INIT "):
                parts = line.split(" ", 5)
                rules = parse_rules(parts[5]) if len(parts) == 6 else None
                if len(parts) != 6 or not HEX.match(parts[3]) or not HEX.match(parts[4]) or rules is None:
                    self._problem(number, "bad STACK CFI INIT", line)
                    group = None
                    continue
                if ".cfa" not in rules or ".ra" not in rules:
                    self._problem(number, "STACK CFI INIT without .cfa and .ra", line)
                self._check_rules(number, line, rules)
                group = CfiGroup(int(parts[3], 16), int(parts[4], 16), rules)
                self.cfi.append(group)
            elif line.startswith("STACK CFI "):
                parts = line.split(" ", 3)
                rules = parse_rules(parts[3]) if len(parts) == 4 else None
                if len(parts) != 4 or not HEX.match(parts[2]) or rules is None or group is None:
                    self._problem(number, "bad STACK CFI", line)
                    continue
                self._check_rules(number, line, rules)
                address = int(parts[2], 16)
                if not group.address <= address < group.address + group.size:
                    self._problem(number, "STACK CFI outside its INIT range", line)
                group.changes.append((address, rules))
            elif line.startswith("STACK WIN "):
                parts = line.split(" ")
                if len(parts) < 13 or int(parts[2], 16) > 4:
                    self._problem(number, "bad STACK WIN", line)
                self.stack_win.append(parts)
            elif line.startswith("STACK "):
                self._problem(number, "unknown STACK record", line)
            else:
                parts = line.split(" ")
                if len(parts) != 4 or not HEX.match(parts[0]) or not HEX.match(parts[1]) or \
                        not parts[2].isdigit() or not parts[3].isdigit():
                    self._problem(number, "unknown record", line)
                    continue
                if current is None:
                    self._problem(number, "line record without a FUNC", line)
                    continue
                if int(parts[1], 16) == 0:
                    self._problem(number, "zero-size line record", line)
                current.lines.append((int(parts[0], 16), int(parts[1], 16), int(parts[2]), int(parts[3])))
        if self.module is None:
            self.problems.append("no MODULE record")

    def _check_rules(self, number, line, rules):
        for name, tokens in rules.items():
            if tokens == [".undef"]:
                continue
            if not postfix_well_formed(tokens):
                self._problem(number, f"malformed postfix for {name}", line)

    def _index(self):
        self.funcs_by_address = sorted(self.funcs, key=lambda f: f.address)
        self._func_starts = [f.address for f in self.funcs_by_address]
        self.cfi_by_address = sorted(self.cfi, key=lambda g: g.address)
        self._cfi_starts = [g.address for g in self.cfi_by_address]

    # ------------------------------------------------------- structure
    def structural_problems(self):
        """Problems beyond the grammar: overlaps, dangling ids, order."""
        out = list(self.problems)
        funcs = self.funcs_by_address
        for a, b in zip(funcs, funcs[1:]):
            if a.address + a.size > b.address:
                out.append(f"FUNC {a.address:x} overlaps FUNC {b.address:x}")
        for f in self.funcs:
            previous_end = None
            for address, size, _, file_id in f.lines:
                if file_id not in self.files:
                    out.append(f"line {address:x} names unknown FILE {file_id}")
                if address < f.address or address + size > f.address + f.size:
                    out.append(f"line {address:x} lies outside FUNC {f.address:x}")
                if previous_end is not None and address < previous_end:
                    out.append(f"line {address:x} overlaps the previous line")
                previous_end = address + size
            for depth, _, call_file, origin, ranges in f.inlines:
                if origin not in self.origins:
                    out.append(f"INLINE in FUNC {f.address:x} names unknown origin {origin}")
                if call_file != -1 and call_file not in self.files:
                    out.append(f"INLINE in FUNC {f.address:x} names unknown FILE {call_file}")
        seen = set()
        for address, name, _ in self.publics:
            if address in seen:
                out.append(f"two PUBLIC records at {address:x}")
            seen.add(address)
            if self.func_at(address):
                out.append(f"PUBLIC {address:x} ({name}) lies inside a FUNC")
        groups = self.cfi_by_address
        for a, b in zip(groups, groups[1:]):
            if a.address + a.size > b.address:
                out.append(f"STACK CFI INIT {a.address:x} overlaps {b.address:x}")
        return out

    # --------------------------------------------------------- lookups
    def func_at(self, rva):
        k = bisect.bisect_right(self._func_starts, rva) - 1
        if k >= 0 and rva < self.funcs_by_address[k].address + self.funcs_by_address[k].size:
            return self.funcs_by_address[k]
        return None

    @staticmethod
    def line_in(func, rva):
        for line in func.lines:
            if line[0] <= rva < line[0] + line[1]:
                return line
        return None

    def inline_stack(self, rva):
        """[(name, file, line)] innermost first, as the processor builds frames."""
        func = self.func_at(rva)
        if not func:
            return None
        line = self.line_in(func, rva)
        if not line:
            return None
        # Pre-order records: one is on the stack when it holds the address
        # and its parent (the last record one level up) is on it too.
        chain, holds = [], []
        for record in func.inlines:
            depth = record[0]
            del holds[depth:]
            holds += [False] * (depth - len(holds))
            on_stack = (depth == 0 or holds[depth - 1]) and any(a <= rva < a + n for a, n in record[4])
            holds.append(on_stack)
            if on_stack:
                chain[depth:] = [record]
        frames = []
        file_id, line_no = line[3], line[2]
        for record in reversed(chain):
            frames.append((self.origins.get(record[3], "?"), self.files.get(file_id, "?"), line_no))
            file_id, line_no = record[2], record[1]
        frames.append((func.name, self.files.get(file_id, "?"), line_no))
        return frames

    def cfi_rules_at(self, rva):
        k = bisect.bisect_right(self._cfi_starts, rva) - 1
        if k < 0:
            return None
        group = self.cfi_by_address[k]
        if not group.address <= rva < group.address + group.size:
            return None
        rules = dict(group.initial)
        for address, change in group.changes:
            if address <= rva:
                rules.update(change)
        return rules


def parse_rules(text):
    """'.cfa: $rsp 8 + .ra: .cfa -8 + ^' -> {'.cfa': [...], '.ra': [...]}, None if malformed."""
    rules, name = {}, None
    for token in text.split():
        if token.endswith(":"):
            if len(token) < 2:
                return None
            name = token[:-1]
            rules[name] = []
        elif name is None:
            return None
        else:
            rules[name].append(token)
    if not rules or any(not v for v in rules.values()):
        return None
    return rules


def postfix_well_formed(tokens):
    depth = 0
    for token in tokens:
        if token in POSTFIX_BINARY:
            if depth < 2:
                return False
            depth -= 1
        elif token == "^":
            if depth < 1:
                return False
        elif token == "=":
            return False
        else:
            depth += 1
    return depth == 1


def load(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        return SymFile(fh.read())
