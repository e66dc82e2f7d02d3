#!/usr/bin/env python3
"""Units read while .debug_info inflates give the output of a plain read.

dump_syms reads the compile units of a zlib-compressed .debug_info whose
bytes have inflated while the rest of the stream still inflates
(dump/dwarf/early_unit_walk). How many it reads so depends on timing; the output
must not. Builds a library of many units with compressed DWARF (the memory
guard's source: 56 MB of .debug_info that inflate fast), dumps it at -j1
(which never reads early) and at -j2 and -j4, several times, and requires
every output byte-identical, and -v to say that units were read early at
least once. Then the same with the stream damaged near its end, after the
units read early: they must be dropped, and the output again equal -j1's.
"""
import os
import subprocess
import tempfile

from common import Report, arguments
from many_units import build_many_units

UNITS = 200
RUNS = 3


def section(path, name):
    """(file offset, size) of a section, from readelf."""
    p = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True)
    for line in p.stdout.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 5 and fields[1] == name:
            return int(fields[4], 16), int(fields[5], 16)
    raise SystemExit(f"{path}: no {name} section")


def dump(args, library, jobs, out):
    p = subprocess.run([args.dump_syms, "-v", f"-j{jobs}", library, "--output", out],
                       capture_output=True, text=True)
    return p.returncode, p.stderr


def main():
    args = arguments()
    report = Report("early units")
    with tempfile.TemporaryDirectory() as tmp:
        library = build_many_units(tmp, UNITS, ["-gz=zlib"])
        p = subprocess.run(["readelf", "-tW", library], capture_output=True, text=True, check=True)
        if "ZLIB" not in p.stdout:
            raise SystemExit(f"{library}: the linker left .debug_info uncompressed")

        damaged = os.path.join(tmp, "libdamaged.so")
        offset, size = section(library, ".debug_info")
        with open(library, "rb") as fh:
            data = bytearray(fh.read())
        # Inside the last deflate blocks: well after the first units.
        for k in range(64):
            data[offset + size - 40 - k] ^= 0x5A
        with open(damaged, "wb") as fh:
            fh.write(data)

        for name, path in (("intact", library), ("damaged", damaged)):
            expected_out = os.path.join(tmp, f"{name}-j1.sym")
            code, err = dump(args, path, 1, expected_out)
            if code != 0:
                report.fail(f"{name}: dump_syms -j1 failed: {err.strip()[-300:]}")
                continue
            with open(expected_out, "rb") as fh:
                expected = fh.read()
            early_runs = dropped_runs = 0
            for jobs in (2, 4):
                for run in range(RUNS):
                    out = os.path.join(tmp, f"{name}-j{jobs}-{run}.sym")
                    code, err = dump(args, path, jobs, out)
                    with open(out, "rb") as fh:
                        got = fh.read()
                    if code != 0 or got != expected:
                        report.fail(f"{name} -j{jobs} run {run}: output differs from -j1's "
                                    f"(exit {code}): {err.strip()[-300:]}")
                    if "read while .debug_info was still inflating" in err:
                        early_runs += 1
                    if "were dropped" in err:
                        dropped_runs += 1
            if name == "intact":
                funcs = expected.count(b"\nFUNC ")
                if funcs != UNITS:
                    report.fail(f"intact: {funcs} FUNC records, expected {UNITS}")
                if early_runs == 0:
                    report.fail("intact: no run read a unit before .debug_info was inflated")
                report.note(f"intact: {2 * RUNS} multi-threaded dumps equal -j1's; "
                            f"{early_runs} read units while .debug_info inflated")
            else:
                if early_runs:
                    report.fail("damaged: units read from a stream that failed were kept")
                if dropped_runs == 0:
                    report.fail("damaged: no run read units before the stream failed "
                                "(the case this input is for)")
                report.note(f"damaged: {2 * RUNS} multi-threaded dumps equal -j1's; "
                            f"{dropped_runs} read units early and dropped them")
    report.finish()


if __name__ == "__main__":
    main()
