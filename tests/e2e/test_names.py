#!/usr/bin/env python3
"""--names breakpad against Breakpad's own dump_syms: over the shared corpus,
every FUNC whose address both files have must carry the name Breakpad's
reference output (../shared/reference, made with `dump_syms -d`) gives it,
for at least 99% of them in the C++ binaries (the contract), and likewise in
the C binaries, for PUBLIC records and for the INLINE_ORIGIN of each INLINE
record both files have. Functions Breakpad lost are not compared; nor are
inline origins it could not name (`<name omitted>`).

Also: `--names llvm` is the default (the output without --names is byte for
byte the output with it), the two spellings differ on C++, and an unknown
spelling is a usage error."""
import os
import subprocess

import symfile
from common import Report, arguments, require_shared

THRESHOLD = 99.0


def cases(args):
    """(label, argv, reference) for every corpus binary Breakpad dumped."""
    corpus = os.path.join(args.shared, "corpus", "bin")
    reference = os.path.join(args.shared, "reference")
    debugroot = os.path.join(args.shared, "corpus", "debugroot")
    out = []
    for name in sorted(os.listdir(reference)):
        if not name.endswith(".sym") or (args.only and args.only not in name):
            continue
        label = name[:-len(".sym")]
        if label.startswith("debuglink_"):
            argv = [os.path.join(corpus, "debuglink", label[len("debuglink_"):])]
        elif "buildid-stripped" in label:
            argv = [os.path.join(corpus, label), debugroot]
        else:
            argv = [os.path.join(corpus, label)]
        if os.path.exists(argv[0]):
            out.append((label, argv, os.path.join(reference, name)))
    return out


def run(args, *argv):
    p = subprocess.run([args.dump_syms, *argv], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def by_address(records):
    """The name the processor uses at each address: the first FUNC or
    PUBLIC there (Breakpad sorts equal addresses by name)."""
    names = {}
    for address, name in records:
        if address not in names or name < names[address]:
            names[address] = name
    return names


def inline_origins(sym):
    """(function, depth, range, call line) -> origin name of each INLINE."""
    out = {}
    for func in sym.funcs:
        for depth, line, _, origin, ranges in func.inlines:
            for address, size in ranges:
                out.setdefault((depth, address, size, line), sym.origins.get(origin))
    return out


class Tally:
    def __init__(self):
        self.same = self.compared = self.skipped = 0

    def add(self, ours, theirs, skip=lambda name: False):
        common = [k for k in set(ours) & set(theirs) if not skip(theirs[k])]
        self.skipped += len(set(ours) & set(theirs)) - len(common)
        differ = sorted(k for k in common if ours[k] != theirs[k])
        self.compared += len(common)
        self.same += len(common) - len(differ)
        return len(common) - len(differ), len(common), [(k, ours[k], theirs[k]) for k in differ]

    def share(self):
        return 100.0 * self.same / self.compared if self.compared else 100.0

    def __str__(self):
        skipped = f", {self.skipped} Breakpad left unnamed" if self.skipped else ""
        return f"{self.same}/{self.compared} ({self.share():.2f}%{skipped})"


def main():
    args = arguments()
    require_shared(args)
    report = Report("names")
    funcs = {"C++": Tally(), "C": Tally()}
    publics, origins = Tally(), Tally()
    for label, argv, reference in cases(args):
        code, text, err = run(args, "--names", "breakpad", "-d", *argv)
        if code != 0:
            report.fail(f"{label}: dump_syms --names breakpad failed: {err.strip()}")
            continue
        ours, theirs = symfile.SymFile(text), symfile.load(reference)
        for problem in ours.structural_problems()[:5]:
            report.fail(f"{label}: {problem}")
        kind = "C++" if label.startswith(("cxxprog", "debuglink_cxxprog")) else "C"
        same, compared, differ = funcs[kind].add(by_address((f.address, f.name) for f in ours.funcs),
                                                 by_address((f.address, f.name) for f in theirs.funcs))
        p_same, p_compared, p_differ = publics.add(by_address((a, n) for a, n, _ in ours.publics),
                                                   by_address((a, n) for a, n, _ in theirs.publics))
        o_same, o_compared, o_differ = origins.add(inline_origins(ours), inline_origins(theirs),
                                                   skip=lambda name: name == "<name omitted>")
        print(f"{label}: FUNC {same}/{compared}, PUBLIC {p_same}/{p_compared}, "
              f"INLINE origins {o_same}/{o_compared}")
        for address, have, want in differ[:3]:
            print(f"    FUNC {address:x}: {have!r}, Breakpad {want!r}")
        for address, have, want in p_differ[:3]:
            print(f"    PUBLIC {address:x}: {have!r}, Breakpad {want!r}")
        for key, have, want in o_differ[:3]:
            print(f"    INLINE {key}: {have!r}, Breakpad {want!r}")

    for what, tally in [("FUNC names, C++ binaries", funcs["C++"]),
                        ("FUNC names, C binaries", funcs["C"]),
                        ("PUBLIC names", publics), ("INLINE_ORIGIN names", origins)]:
        report.note(f"{what}: {tally} identical to Breakpad's")
        if tally.share() < THRESHOLD:
            report.fail(f"{what}: {tally} identical to Breakpad's, below {THRESHOLD}%")
    if funcs["C++"].compared == 0 and not args.only:
        report.fail("no C++ FUNC record compared")

    # llvm is the default spelling, and differs from Breakpad's on C++.
    corpus = os.path.join(args.shared, "corpus", "bin")
    for name in ["cxxprog.gcc12.g-O2", "cxxprog.clang19.g-O2", "cprog.gcc12.g-O2"]:
        binary = os.path.join(corpus, name)
        if args.only and args.only not in name:
            continue
        default = run(args, "-d", binary)
        llvm = run(args, "--names", "llvm", "-d", binary)
        breakpad = run(args, "--names", "breakpad", "-d", binary)
        if default[0] != 0 or default[1] != llvm[1]:
            report.fail(f"{name}: the output without --names is not the output of --names llvm")
        if name.startswith("cxx") and breakpad[1] == llvm[1]:
            report.fail(f"{name}: --names breakpad changed nothing")
    code, _, _ = run(args, "--names", "gnu", os.path.join(corpus, "cprog.gcc12.g-O2"))
    if code != 2:
        report.fail(f"--names gnu: exit status {code}, not 2 (usage error)")
    report.finish()


if __name__ == "__main__":
    main()
