"""Builds the Mach-O fixtures from fixtures/macho/ with Debian's LLVM tools:
clang-19 for macOS (x86_64, arm64) and iOS (arm64), freestanding (no SDK:
-nostdlib, _start as the entry point), linked by ld64.lld-19; each at -O0
and -O2, with and without frame pointers; its dSYM by dsymutil-19 beside
it; the same object compiled again with every function's DWARF CFI
(-femit-dwarf-unwind=always), the oracle of the prologue rows compact
unwind becomes; a dylib; a universal file of two slices with a universal
dSYM (llvm-lipo-19)."""
import os
import subprocess

LLVM = "/usr/lib/llvm-19/bin"
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "..", "..", "fixtures", "macho")

TARGETS = {
    "x86_64-macos": ("x86_64-apple-macos11", "x86_64", "macos", "11.0"),
    "arm64-macos": ("arm64-apple-macos11", "arm64", "macos", "11.0"),
    "arm64-ios": ("arm64-apple-ios14", "arm64", "ios", "14.0"),
}
FLAGS = ["-g", "-funwind-tables", "-ffreestanding", "-fno-stack-protector", "-nostdlib"]


def sh(*argv, env=None):
    p = subprocess.run(argv, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {p.stderr.strip()}")
    return p.stdout


def lipo_path(tmp):
    """A directory with `lipo` in it: dsymutil runs it for universal files."""
    directory = os.path.join(tmp, "lipo-bin")
    os.makedirs(directory, exist_ok=True)
    link = os.path.join(directory, "lipo")
    if not os.path.exists(link):
        os.symlink(f"{LLVM}/llvm-lipo", link)
    return dict(os.environ, PATH=directory + ":" + os.environ["PATH"])


def compile_one(source, triple, optimize, frame_pointer, output, extra=()):
    cc = "clang++-19" if source.endswith(".cc") else "clang-19"
    language = ["-fno-exceptions", "-fno-rtti"] if source.endswith(".cc") else []
    fp = "-fno-omit-frame-pointer" if frame_pointer else "-fomit-frame-pointer"
    sh(cc, "-target", triple, f"-{optimize}", fp, *FLAGS, *language, *extra, "-c",
       os.path.join(SOURCES, source), "-o", output)


def link(objects, arch, platform, version, output, dylib=False):
    kind = ["-dylib", "-install_name", "@rpath/" + os.path.basename(output)] if dylib else ["-e", "_start"]
    sh("ld64.lld-19", "-arch", arch, "-platform_version", platform, version, version, *kind, "-o", output,
       *objects)


def build(tmp):
    """[{name, binary, dsym (its DWARF file), oracle_object, cpu, source}] and the universal file's."""
    out = []
    for target, (triple, arch, platform, version) in TARGETS.items():
        for source in ("program.c", "shapes.cc"):
            for optimize in ("O0", "O2"):
                for frame_pointer in (True, False):
                    name = f"{source.split('.')[0]}.{target}.{optimize}.{'fp' if frame_pointer else 'nofp'}"
                    directory = os.path.join(tmp, name)
                    os.makedirs(directory)
                    obj = os.path.join(directory, "code.o")
                    oracle = os.path.join(directory, "code.dwarf-unwind.o")
                    binary = os.path.join(directory, name)
                    compile_one(source, triple, optimize, frame_pointer, obj)
                    compile_one(source, triple, optimize, frame_pointer, oracle,
                                extra=["-femit-dwarf-unwind=always"])
                    link([obj], arch, platform, version, binary)
                    sh(f"{LLVM}/dsymutil", binary, "-o", binary + ".dSYM")
                    out.append({"name": name, "binary": binary, "cpu": arch, "source": source,
                                "dsym": os.path.join(binary + ".dSYM", "Contents", "Resources", "DWARF", name),
                                "oracle_object": oracle})
    # A dylib.
    directory = os.path.join(tmp, "dylib")
    os.makedirs(directory)
    obj = os.path.join(directory, "code.o")
    compile_one("program.c", TARGETS["x86_64-macos"][0], "O2", True, obj)
    dylib = os.path.join(directory, "libprogram.dylib")
    link([obj], "x86_64", "macos", "11.0", dylib, dylib=True)
    sh(f"{LLVM}/dsymutil", dylib, "-o", dylib + ".dSYM")
    out.append({"name": "libprogram.dylib", "binary": dylib, "cpu": "x86_64", "source": "program.c",
                "dsym": os.path.join(dylib + ".dSYM", "Contents", "Resources", "DWARF", "libprogram.dylib"),
                "oracle_object": None})
    return out


def build_universal(tmp, fixtures):
    """A universal file of the x86_64 and arm64 macOS -O2 program, and its
    universal dSYM, in a release tree: bin/universal and dsyms/universal.dSYM."""
    slices = [f["binary"] for f in fixtures if f["name"] in ("program.x86_64-macos.O2.fp", "program.arm64-macos.O2.fp")]
    release = os.path.join(tmp, "release")
    os.makedirs(os.path.join(release, "bin"))
    os.makedirs(os.path.join(release, "dsyms"))
    universal = os.path.join(release, "bin", "universal")
    sh(f"{LLVM}/llvm-lipo", *slices, "-create", "-output", universal)
    sh(f"{LLVM}/dsymutil", universal, "-o", os.path.join(release, "dsyms", "universal.dSYM"), env=lipo_path(tmp))
    return release, universal


def uuids(path):
    """{arch: UUID without dashes, upper-case} as llvm-dwarfdump --uuid prints them."""
    out = {}
    for line in sh(f"{LLVM}/llvm-dwarfdump", "--uuid", path).splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "UUID:":
            out[parts[2].strip("()")] = parts[1].replace("-", "").upper()
    return out
