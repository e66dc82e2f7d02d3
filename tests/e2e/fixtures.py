#!/usr/bin/env python3
"""Builds every fixture variant the end-to-end tests use.

  fixtures.py OUTDIR

Writes the binaries and OUTDIR/manifest.json, which lists each one with its
CPU, compiler and flags. Variants whose compiler is missing are reported and
make the build fail: the README's set-up installs all of them.
"""
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", "fixtures"))

C = "c_program.c"
CXX = ["cxx/main.cc", "cxx/shapes.cc", "cxx/algorithms.cc"]
FREE = "freestanding.c"
FREE_FLAGS = ["-ffreestanding", "-nostdlib", "-static", "-fasynchronous-unwind-tables"]

LLVM_BIN = "/usr/lib/llvm-19/bin"
CROSS_GCC = {
    "arm64": "aarch64-linux-gnu-gcc",
    "arm": "arm-linux-gnueabihf-gcc",
    "riscv": "riscv64-linux-gnu-gcc",
    "mips": "mips64el-linux-gnuabi64-gcc",
}
CLANG_TARGET = {
    "x86_64": "x86_64-linux-gnu",
    "x86": "i686-linux-gnu",
    "arm64": "aarch64-linux-gnu",
    "arm": "armv7a-linux-gnueabihf",
    "riscv": "riscv64-linux-gnu",
    "mips": "mips64el-linux-gnuabi64",
}


def variants():
    out = []

    def add(name, cpu, compiler, sources, flags, kind, lang="c", post=None, twin=None):
        out.append({"name": name, "cpu": cpu, "compiler": compiler, "sources": sources,
                    "flags": flags, "kind": kind, "lang": lang, "post": post or [], "twin": twin})

    for cc, cxx, tag in (("gcc", "g++", "gcc"), ("clang-19", "clang++-19", "clang")):
        for opt in ("O0", "O2", "O3"):
            for dwarf in ("4", "5"):
                add(f"c.{tag}.{opt}.dwarf{dwarf}", "x86_64", cc, [C], [f"-{opt}", "-g", f"-gdwarf-{dwarf}"], "program")
                add(f"cxx.{tag}.{opt}.dwarf{dwarf}", "x86_64", cxx, CXX, [f"-{opt}", "-g", f"-gdwarf-{dwarf}"],
                    "program", "c++")
        # Old DWARF versions, and frame pointers kept.
        add(f"c.{tag}.O2.dwarf3", "x86_64", cc, [C], ["-O2", "-g", "-gdwarf-3"], "program")
        add(f"cxx.{tag}.O2.dwarf2", "x86_64", cxx, CXX, ["-O2", "-g", "-gdwarf-2"], "program", "c++")
        add(f"c.{tag}.O2.fp", "x86_64", cc, [C], ["-O2", "-g", "-fno-omit-frame-pointer"], "program")
        add(f"c.{tag}.m32.O2", "x86", cc, [C], ["-m32", "-O2", "-g"], "program")
        add(f"cxx.{tag}.m32.O2", "x86", cxx, CXX, ["-m32", "-O2", "-g"], "program", "c++")
        add(f"cxx.{tag}.flto.O2", "x86_64", cxx, CXX, ["-flto", "-O2", "-g"], "program", "c++")
        add(f"crash.{tag}.O2", "x86_64", cc, ["crash_chain.c"], ["-O2", "-g", "-fomit-frame-pointer", "-no-pie"],
            "crash")
        add(f"asm.{tag}.O2", "x86_64", cc, ["asm_main.c", "asm_function.S"], ["-O2", "-g"], "program")
    add("asm.gcc.m32.O2", "x86", "gcc", ["asm_main.c", "asm_function.S"], ["-m32", "-O2", "-g"], "program")
    add("realign.gcc.m32.O0", "x86", "gcc", ["stack_realign.c"], ["-m32", "-O0", "-g"], "program")
    add("realign.gcc.m32.O2.mstackrealign", "x86", "gcc", [C], ["-m32", "-O2", "-g", "-mstackrealign"], "program")
    add("crash.gcc.m32.O2", "x86", "gcc", ["crash_chain.c"], ["-m32", "-O2", "-g", "-fomit-frame-pointer", "-no-pie"],
        "crash")
    add("crash.clang.m32.O2", "x86", "clang-19", ["crash_chain.c"],
        ["-m32", "-O2", "-g", "-fomit-frame-pointer", "-no-pie"], "crash")
    # Hosted arm64 builds (Debian's cross g++ brings its libc).
    add("c.gcc.arm64.O2", "arm64", "aarch64-linux-gnu-gcc", [C], ["-O2", "-g"], "program")
    add("cxx.gcc.arm64.O2", "arm64", "aarch64-linux-gnu-g++", CXX, ["-O2", "-g"], "program", "c++")
    add("asm.gcc.arm64.O2", "arm64", "aarch64-linux-gnu-gcc", ["asm_main.c", "asm_function.S"], ["-O2", "-g"], "program")
    # Freestanding builds for every CPU.
    for cpu, gcc in CROSS_GCC.items():
        for opt in ("O0", "O2"):
            add(f"free.gcc.{cpu}.{opt}", cpu, gcc, [FREE], [f"-{opt}", "-g"] + FREE_FLAGS, "freestanding")
    add("free.gcc.arm.thumb.O2", "arm", CROSS_GCC["arm"], [FREE], ["-O2", "-g", "-mthumb"] + FREE_FLAGS, "freestanding")
    for cpu in ("arm", "riscv", "mips"):
        add(f"free.gcc.{cpu}.O2.fp", cpu, CROSS_GCC[cpu], [FREE], ["-O2", "-g", "-fno-omit-frame-pointer"] + FREE_FLAGS,
            "freestanding")
    add("free.gcc.arm64.O2.fp", "arm64", CROSS_GCC["arm64"], [FREE], ["-O2", "-g", "-fno-omit-frame-pointer"] + FREE_FLAGS,
        "freestanding")
    add("free.gcc.arm64.O2.pac", "arm64", CROSS_GCC["arm64"], [FREE], ["-O2", "-g", "-mbranch-protection=pac-ret"] + FREE_FLAGS,
        "freestanding")
    add("free.gcc.x86.O2", "x86", "gcc", [FREE], ["-m32", "-O2", "-g", "-fno-pic"] + FREE_FLAGS, "freestanding")
    for cpu, target in CLANG_TARGET.items():
        for opt in ("O0", "O2"):
            add(f"free.clang.{cpu}.{opt}", cpu, "clang-19", [FREE],
                [f"--target={target}", "-fuse-ld=lld", f"-{opt}", "-g"] + FREE_FLAGS, "freestanding")
    add("free.clang.arm.thumb.O2", "arm", "clang-19", [FREE],
        ["--target=armv7a-linux-gnueabihf", "-mthumb", "-fuse-ld=lld", "-O2", "-g"] + FREE_FLAGS, "freestanding")
    add("free.clang.arm64.O2.pac", "arm64", "clang-19", [FREE],
        ["--target=aarch64-linux-gnu", "-mbranch-protection=pac-ret", "-fuse-ld=lld", "-O2", "-g"] + FREE_FLAGS,
        "freestanding")
    for cpu in ("x86", "riscv", "mips"):
        add(f"free.clang.{cpu}.O2.fp", cpu, "clang-19", [FREE],
            [f"--target={CLANG_TARGET[cpu]}", "-fno-omit-frame-pointer", "-fuse-ld=lld", "-O2", "-g"] + FREE_FLAGS,
            "freestanding")
    add("free.clang.arm64.O2.nofp", "arm64", "clang-19", [FREE],
        ["--target=aarch64-linux-gnu", "-fomit-frame-pointer", "-fuse-ld=lld", "-O2", "-g"] + FREE_FLAGS,
        "freestanding")
    # ARM code whose only unwind tables are the EHABI ones (.ARM.exidx): the
    # .debug_frame of the same build ("twin") is the oracle.
    strip_frames = [[f"{LLVM_BIN}/llvm-objcopy", "--remove-section=.debug_frame", "{out}"]]
    for twin in ("free.gcc.arm.O2", "free.gcc.arm.thumb.O2", "free.clang.arm.O2", "free.clang.arm.thumb.O2"):
        base = next(v for v in out if v["name"] == twin)
        add(twin + ".exidx", "arm", base["compiler"], base["sources"], base["flags"], "freestanding",
            post=strip_frames, twin=twin)
    add("free.clang.x86_64.debugframe", "x86_64", "clang-19", [FREE],
        ["--target=x86_64-linux-gnu", "-fuse-ld=lld", "-O2", "-g", "-ffreestanding", "-nostdlib", "-static",
         "-fno-asynchronous-unwind-tables", "-fno-unwind-tables"], "freestanding")
    return out


def m32_include_dir(outdir):
    """Debian's gcc-multilib would add /usr/include/asm for -m32; it conflicts
    with the cross compilers, so -m32 builds get that link from here."""
    inc = os.path.join(outdir, "m32-include")
    os.makedirs(inc, exist_ok=True)
    link = os.path.join(inc, "asm")
    if not os.path.lexists(link):
        os.symlink("/usr/include/x86_64-linux-gnu/asm", link)
    return inc


def build(variant, outdir):
    path = os.path.join(outdir, variant["name"])
    extra = ["-isystem", m32_include_dir(outdir)] if "-m32" in variant["flags"] else []
    cmd = [variant["compiler"]] + variant["flags"] + extra + ["-o", path] + \
          [os.path.join(SRC, s) for s in variant["sources"]]
    if variant["lang"] == "c" and variant["kind"] != "freestanding":
        cmd.append("-lm")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return f"{variant['name']}: {' '.join(cmd)}\n{p.stderr}"
    for step in variant["post"]:
        step = [part.replace("{out}", path) for part in step]
        p = subprocess.run(step, capture_output=True, text=True)
        if p.returncode != 0:
            return f"{variant['name']}: {' '.join(step)}\n{p.stderr}"
    variant = dict(variant, path=path, command=" ".join(cmd),
                   twin=os.path.join(outdir, variant["twin"]) if variant["twin"] else None)
    return variant


def main():
    outdir = os.path.abspath(sys.argv[1])
    os.makedirs(outdir, exist_ok=True)
    manifest, failures = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for result in pool.map(lambda v: build(v, outdir), variants()):
            (failures if isinstance(result, str) else manifest).append(result)
    with open(os.path.join(outdir, "manifest.json"), "w") as fh:
        json.dump(manifest, fh, indent=1)
    print(f"fixtures: built {len(manifest)} into {outdir}")
    for f in failures:
        print("fixtures: FAILED", f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
