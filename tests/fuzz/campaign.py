#!/usr/bin/env python3
"""Runs a fuzzing campaign: every target (or those named) until its ledger
holds HOURS CPU-hours, a few targets at a time, then prints the table.

    campaign.py TARGETS [--hours H] [--jobs N] [--chunk-seconds S] [NAME...]
    campaign.py TARGETS --table

TARGETS is the sanitizer tree's fuzz_targets.tsv. Each target runs in
chunks of `run_fuzzer.py --campaign` (so its corpus keeps growing and a
crashing input lands in tests/fuzz/regressions/NAME); a chunk that finds
something ends early, and the campaign goes on with the next chunk. A target
whose three chunks in a row find something is stopped: fix it first. The
ledgers (BUILD/fuzz/NAME/campaign.tsv) survive an interrupted campaign; run
it again to go on where it stopped."""
import argparse
import os
import subprocess
import sys
import time

from campaign_ledger import read_runs, summary

HERE = os.path.dirname(os.path.abspath(__file__))
GIVE_UP_AFTER = 3  # findings in a row


def ledger_path(targets_tsv, name):
    return os.path.join(os.path.dirname(os.path.abspath(targets_tsv)), "fuzz", name, "campaign.tsv")


def target_names(targets_tsv):
    with open(targets_tsv) as fh:
        return [line.split("\t")[0] for line in fh if line.strip()]


def cpu_seconds(targets_tsv, name):
    return summary(read_runs(ledger_path(targets_tsv, name)))["cpu_seconds"]


def print_table(targets_tsv, names):
    print("| target | CPU-hours | executions | coverage (cov / ft) | corpus | runs | findings |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name in names:
        s = summary(read_runs(ledger_path(targets_tsv, name)))
        found = "; ".join(
            f"{run['started'][:10]}: {run['result'][:80]}"
            + (f" ({', '.join(os.path.basename(p) for p in run['inputs'].split(','))})"
               if run["inputs"] else "")
            for run in s["findings"]) or "none"
        print(f"| `{name}` | {s['cpu_seconds'] / 3600:.2f} | {s['executions']:,} | "
              f"{s['cov']:,} / {s['ft']:,} | {s['corpus']:,} | {s['runs']} | {found} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", help="fuzz_targets.tsv in the sanitizer build tree")
    parser.add_argument("names", nargs="*", help="targets (default: all)")
    parser.add_argument("--hours", type=float, default=1.0, help="CPU-hours per target")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--chunk-seconds", type=int, default=900)
    parser.add_argument("--table", action="store_true", help="print the table only")
    args = parser.parse_intermixed_args()

    names = args.names or target_names(args.targets)
    unknown = set(names) - set(target_names(args.targets))
    if unknown:
        print(f"campaign: no fuzz target {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    if args.table:
        print_table(args.targets, names)
        return 0

    goal = args.hours * 3600
    pending = [name for name in names if cpu_seconds(args.targets, name) < goal]
    misses = {name: 0 for name in names}
    running = {}  # name -> process
    failed_chunks = 0
    while pending or running:
        while pending and len(running) < args.jobs:
            name = pending.pop(0)
            left = goal - cpu_seconds(args.targets, name)
            seconds = max(30, int(min(args.chunk_seconds, left)))
            work = os.path.dirname(ledger_path(args.targets, name))
            os.makedirs(work, exist_ok=True)
            log = open(os.path.join(work, "campaign-chunk.log"), "w")
            print(f"campaign: {name}: {left / 3600:.2f} CPU-hours to go, a {seconds}-s chunk",
                  flush=True)
            running[name] = (subprocess.Popen(
                [sys.executable, os.path.join(HERE, "run_fuzzer.py"), args.targets, name,
                 "--seconds", str(seconds), "--campaign"], stdout=log, stderr=subprocess.STDOUT), log)
        time.sleep(2)
        for name, (process, log) in list(running.items()):
            if process.poll() is None:
                continue
            log.close()
            del running[name]
            if process.returncode == 0:
                misses[name] = 0
            else:
                failed_chunks += 1
                misses[name] += 1
                print(f"campaign: {name}: a finding; the run's report is in {log.name}",
                      flush=True)
            if misses[name] >= GIVE_UP_AFTER:
                print(f"campaign: {name}: {GIVE_UP_AFTER} chunks in a row found something: "
                      f"stopped", flush=True)
            elif cpu_seconds(args.targets, name) < goal:
                pending.append(name)
    print_table(args.targets, names)
    return 1 if failed_chunks else 0


if __name__ == "__main__":
    sys.exit(main())
