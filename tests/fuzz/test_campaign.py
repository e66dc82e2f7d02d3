#!/usr/bin/env python3
"""The campaign driver and its ledger, with two stand-ins for libFuzzer
programs (no clang needed): one that runs clean and prints libFuzzer's
progress and final stats (and keeps a slowest input, as a stalled run
does), one that reports an ASan error and saves a crash
input every time. Checks that the clean target's runs add up to the CPU
asked for, with the executions and coverage the stand-in printed; that the
crashing target is stopped after three findings in a row, its inputs in its
regressions directory; and that the table says both."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from campaign_ledger import read_runs, summary  # noqa: E402

CLEAN = r'''#!/usr/bin/env python3
import os, sys, time
# libFuzzer keeps the slowest input of a run that stalled: not a finding.
prefix = next(a for a in sys.argv if a.startswith("-artifact_prefix=")).split("=", 1)[1]
with open(os.path.join(prefix, f"slow-unit-{time.monotonic_ns()}"), "wb") as fh:
    fh.write(b"slow")
end = time.process_time() + 0.3   # CPU, not wall: what the ledger counts
while time.process_time() < end:
    pass
print("INFO: Seed: 1")
print("#2\tINITED cov: 10 ft: 12 corp: 3/30b exec/s: 0 rss: 30Mb")
print("#500\tNEW    cov: 41 ft: 57 corp: 7/99b lim: 4 exec/s: 0 rss: 31Mb")
print("#1000\tDONE   cov: 41 ft: 57 corp: 7/99b lim: 4 exec/s: 0 rss: 31Mb")
print("stat::number_of_executed_units: 1000")
'''

CRASHING = r'''#!/usr/bin/env python3
import os, sys
prefix = next(a for a in sys.argv if a.startswith("-artifact_prefix=")).split("=", 1)[1]
n = len([f for f in os.listdir(prefix) if f.startswith("crash-")])
with open(os.path.join(prefix, f"crash-{n}"), "wb") as fh:
    fh.write(b"boom")
print("#2\tINITED cov: 5 ft: 5 corp: 1/1b exec/s: 0 rss: 30Mb")
print("==42==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1")
sys.exit(1)
'''


def program(path, text):
    with open(path, "w") as fh:
        fh.write(text)
    os.chmod(path, 0o755)
    return path


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        rows = []
        for name, text in (("steady", CLEAN), ("fragile", CRASHING)):
            prog = program(os.path.join(tmp, f"fuzz_{name}"), text)
            seeds = os.path.join(tmp, "seeds", name)
            regressions = os.path.join(tmp, "regressions", name)
            os.makedirs(seeds)
            with open(os.path.join(seeds, "seed"), "w") as fh:
                fh.write("x")
            rows.append("\t".join([name, prog, "", seeds, regressions]))
        targets = os.path.join(tmp, "fuzz_targets.tsv")
        with open(targets, "w") as fh:
            fh.write("\n".join(rows) + "\n")

        hours = 1.0 / 3600  # one CPU second: four runs of the stand-in
        p = subprocess.run([sys.executable, os.path.join(HERE, "campaign.py"), targets,
                            "--hours", str(hours), "--jobs", "2"],
                           capture_output=True, text=True, timeout=240)
        print(p.stdout, p.stderr)
        if p.returncode != 1:
            failures.append(f"a campaign with findings exits 1, not {p.returncode}")

        steady = summary(read_runs(os.path.join(tmp, "fuzz", "steady", "campaign.tsv")))
        if steady["cpu_seconds"] < 1.0 or steady["runs"] < 2:
            failures.append(f"steady: {steady['runs']} runs, {steady['cpu_seconds']:.2f} CPU s: "
                            "the campaign stopped before the CPU asked for")
        if steady["executions"] != 1000 * steady["runs"] or (steady["cov"], steady["ft"]) != (41, 57):
            failures.append(f"steady: the ledger read {steady['executions']} executions, "
                            f"cov {steady['cov']} ft {steady['ft']} from the stand-in's output")
        if steady["findings"]:
            failures.append("steady: a clean run counted as a finding")
        slow = os.listdir(os.path.join(tmp, "fuzz", "steady", "slow"))
        if len(slow) != steady["runs"] or os.listdir(os.path.join(tmp, "regressions", "steady")):
            failures.append(f"steady: the slowest inputs ({len(slow)} moved) belong next to the "
                            "corpus, not among the regressions")

        fragile = summary(read_runs(os.path.join(tmp, "fuzz", "fragile", "campaign.tsv")))
        if fragile["runs"] != 3 or len(fragile["findings"]) != 3:
            failures.append(f"fragile: {fragile['runs']} runs, {len(fragile['findings'])} findings; "
                            "three findings in a row stop a target")
        saved = sorted(os.listdir(os.path.join(tmp, "regressions", "fragile")))
        if saved != ["crash-0", "crash-1", "crash-2"]:
            failures.append(f"fragile: crash inputs saved {saved}")
        if not all("AddressSanitizer" in run["result"] for run in fragile["findings"]):
            failures.append("fragile: the ledger does not say what the run found")

        if "| `steady` |" not in p.stdout or "heap-buffer-overflow" not in p.stdout:
            failures.append("the table names neither the targets nor the finding")
        if "fragile: 3 chunks in a row found something: stopped" not in p.stdout:
            failures.append("the campaign does not say it stopped the target that kept crashing")

    for failure in failures:
        print("FAIL:", failure)
    print("campaign:", "FAILED" if failures else "passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
