#!/usr/bin/env python3
"""Builds the Windows fixtures: PE files and their PDBs, made on Linux with
clang-19 (CodeView debug info) and lld-link-19, freestanding (no Windows SDK).

  pdb_fixtures.py OUTDIR

Writes OUTDIR/pdb/<name>.exe|.dll and <name>.pdb, and OUTDIR/pdb/manifest.json
listing each with its CPU and flags.
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", "fixtures", "pdb"))
CLANG = "/usr/lib/llvm-19/bin/clang"
LLD_LINK = "/usr/lib/llvm-19/bin/lld-link"
TARGET = {"x86": "i686-pc-windows-msvc", "x86_64": "x86_64-pc-windows-msvc",
          "arm64": "aarch64-pc-windows-msvc"}


def variants():
    out = []
    for cpu in ("x86", "x86_64"):
        for opt in ("O0", "O2"):
            for fp in ("fp", "nofp"):
                fp_flag = "-fno-omit-frame-pointer" if fp == "fp" else "-fomit-frame-pointer"
                out.append({"name": f"app.{cpu}.{opt}.{fp}", "cpu": cpu, "sources": ["app.c"],
                            "flags": [f"-{opt}", fp_flag], "link": [], "ext": "exe"})
                out.append({"name": f"shapes.{cpu}.{opt}.{fp}", "cpu": cpu, "sources": ["shapes.cpp"],
                            "flags": [f"-{opt}", fp_flag, "-fno-exceptions", "-fno-rtti"], "link": [],
                            "ext": "exe"})
        # A DLL, both sources in one image: two modules in the PDB, and a
        # third without debug info (only publics name its functions).
        out.append({"name": f"both.{cpu}.O2", "cpu": cpu, "sources": ["app.c", "shapes.cpp"],
                    "nodebug_sources": ["nodebug.c"],
                    "flags": ["-O2", "-fno-exceptions", "-fno-rtti", "-DSHAPES_ENTRY=shapes_entry"],
                    "link": ["/dll", "/noentry", "/export:entry", "/export:shapes_entry"], "ext": "dll"})
    # Names (names.cpp): anonymous namespaces, x86 stdcall/fastcall
    # decorations; ThinLTO leaves "?A0x<key>" names with ".llvm." suffixes.
    # A DLL, so that the machine-walk tests (which run the .exe files) leave
    # it out.
    for cpu in ("x86", "x86_64"):
        out.append({"name": f"names.{cpu}.O2.lto", "cpu": cpu, "sources": ["names.cpp", "names_lto.cpp"],
                    "flags": ["-O2", "-flto=thin", "-fno-exceptions", "-fno-rtti"],
                    "link": ["/dll", "/noentry", "/export:names_entry"], "ext": "dll"})
    # Windows on ARM64: functions, lines, inlines, publics, and STACK CFI
    # from .pdata (frames.c: the frame shapes its unwind codes describe).
    for source, tag, extra in (("app.c", "app", []), ("shapes.cpp", "shapes", ["-fno-exceptions", "-fno-rtti"]),
                               ("frames.c", "frames", [])):
        for opt in ("O0", "O2"):
            out.append({"name": f"{tag}.arm64.{opt}", "cpu": "arm64", "sources": [source],
                        "flags": [f"-{opt}", *extra], "link": [], "ext": "exe"})
    # The PDB path recorded as on a Windows build machine: found beside the
    # PE or in a DEBUG_DIR, never at the recorded path.
    out.append({"name": "alt.x86_64.O2", "cpu": "x86_64", "sources": ["app.c"], "flags": ["-O2"],
                "link": ["/pdbaltpath:C:\\build\\alt.x86_64.O2.pdb"], "ext": "exe"})
    return out


def build(variant, outdir):
    work = os.path.join(outdir, variant["name"] + ".objs")
    os.makedirs(work, exist_ok=True)
    objects = []
    sources = [(s, ["-g", "-gcodeview"]) for s in variant["sources"]] + \
              [(s, []) for s in variant.get("nodebug_sources", [])]
    for source, debug in sources:
        obj = os.path.join(work, os.path.splitext(source)[0] + ".obj")
        cmd = [CLANG, f"--target={TARGET[variant['cpu']]}", *debug, "-funwind-tables",
               *variant["flags"], "-c", os.path.join(SRC, source), "-o", obj]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        objects.append(obj)
    image = os.path.join(outdir, f"{variant['name']}.{variant['ext']}")
    pdb = os.path.join(outdir, f"{variant['name']}.pdb")
    entry = [] if "/noentry" in variant["link"] else ["/entry:entry", "/subsystem:console"]
    cmd = [LLD_LINK, "/debug", "/nodefaultlib", *entry, *variant["link"], *objects,
           f"/out:{image}", f"/pdb:{pdb}"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    shutil.rmtree(work)
    return {"name": variant["name"], "cpu": variant["cpu"], "image": image, "pdb": pdb,
            "flags": variant["flags"], "sources": variant["sources"]}


def main():
    outdir = os.path.join(os.path.abspath(sys.argv[1]), "pdb")
    os.makedirs(outdir, exist_ok=True)
    built, failed = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        futures = {pool.submit(build, v, outdir): v for v in variants()}
        for future in concurrent.futures.as_completed(futures):
            try:
                built.append(future.result())
            except subprocess.CalledProcessError as error:
                failed.append(futures[future]["name"])
                print(f"FAIL {futures[future]['name']}: {' '.join(error.cmd)}\n{error.stderr}")
    built.sort(key=lambda f: f["name"])
    with open(os.path.join(outdir, "manifest.json"), "w") as fh:
        json.dump(built, fh, indent=1)
    print(f"pdb fixtures: {len(built)} built, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
