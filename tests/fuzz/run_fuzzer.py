#!/usr/bin/env python3
"""Runs one libFuzzer target for a bounded time and judges the run.

    run_fuzzer.py TARGETS NAME [--seconds N] [--campaign]

TARGETS is the list the sanitizer build tree writes (fuzz_targets.tsv: name,
program, dictionary, seeds, regressions). Two uses, one set of libFuzzer
flags:

- ctest's fuzz_run_NAME (the default): fuzzes from a fresh scratch copy of
  the seeds and kept regressions, in BUILD/fuzz/NAME/run; a crashing input is
  saved in BUILD/fuzz/NAME/artifacts. Nothing is written to the source tree.
- `./dev.sh fuzz NAME [SECONDS]` (--campaign): the corpus in
  BUILD/fuzz/NAME/corpus grows from run to run, and a crashing input lands
  in tests/fuzz/regressions/NAME, where fuzz_replay_NAME will replay it.
  Every such run adds a line to BUILD/fuzz/NAME/campaign.tsv (CPU seconds,
  executions, coverage, what it found), which campaign.py sums.

Any crash, leak, timeout (-timeout=10), memory blow-up or sanitizer report
fails the run (exit status 1), with the report and where its input is."""
import argparse
import contextlib
import datetime
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

from campaign_ledger import append_run, source_commit

TIMEOUT_SECONDS = 10  # one input
RSS_LIMIT_MB = 4096   # the whole process, sanitizer shadow memory included
MAX_LEN = 65536       # the largest input libFuzzer makes

# Lines that start a report; the run fails on any of them, whatever the
# exit status.
REPORT = re.compile(r"==\d+==ERROR: |runtime error: |ERROR: libFuzzer|==\d+== ERROR: libFuzzer|"
                    r"ALARM: working on the last Unit|WARNING: MemorySanitizer|"
                    r"==\d+==WARNING: AddressSanitizer failed to allocate")


def read_targets(path):
    targets = {}
    with open(path) as fh:
        for line in fh:
            fields = line.rstrip("\n").split("\t")
            if len(fields) == 5:
                name, program, dictionary, seeds, regressions = fields
                targets[name] = dict(program=program, dictionary=dictionary, seeds=seeds,
                                     regressions=regressions)
    return targets


def copy_inputs(sources, corpus):
    """Every file of the source directories into corpus (libFuzzer adds to
    the first corpus directory it is given: never a source directory)."""
    os.makedirs(corpus, exist_ok=True)
    for directory in sources:
        if not os.path.isdir(directory):
            continue  # (a target with no regressions kept yet)
        for root, _, files in os.walk(directory):
            for name in files:
                target = os.path.join(corpus, name)
                if os.path.exists(target):
                    target = os.path.join(corpus, os.path.basename(directory) + "-" + name)
                if not os.path.exists(target):
                    shutil.copyfile(os.path.join(root, name), target)


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def scratch_directory(kept):
    """The TMPDIR a target runs with, whose files end up in KEPT.

    In memory when the machine has /dev/shm: the dump targets rewrite their
    input as a file for every run, and on ext4 a file truncated and
    rewritten is flushed to disk at each close; on disk they spent a quarter
    of their time waiting (665 CPU seconds in a 900-s chunk). What is left
    when the target ends, such as the input of a process that died with its
    handlers, is moved to KEPT to be looked at."""
    shm = "/dev/shm"
    if not os.path.isdir(shm) or not os.access(shm, os.W_OK):
        os.makedirs(kept)
        yield kept
        return
    tmpdir = tempfile.mkdtemp(prefix="fuzz-", dir=shm)
    try:
        yield tmpdir
    finally:
        shutil.move(tmpdir, kept)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("targets", help="fuzz_targets.tsv in the sanitizer build tree")
    parser.add_argument("name")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--campaign", action="store_true",
                        help="keep the corpus; crashing inputs into tests/fuzz/regressions/NAME")
    args = parser.parse_args()

    targets = read_targets(args.targets)
    if args.name not in targets:
        print(f"run_fuzzer: no fuzz target {args.name}; targets: {' '.join(sorted(targets))}",
              file=sys.stderr)
        return 2
    target = targets[args.name]
    base = os.path.join(os.path.dirname(os.path.abspath(args.targets)), "fuzz", args.name)
    if args.campaign:
        work = base
        corpus = os.path.join(work, "corpus")
        artifacts = target["regressions"]
    else:
        work = os.path.join(base, "run")
        shutil.rmtree(work, ignore_errors=True)
        corpus = os.path.join(work, "corpus")
        artifacts = os.path.join(base, "artifacts")
    copy_inputs([target["seeds"], target["regressions"]], corpus)
    os.makedirs(artifacts, exist_ok=True)
    # The targets' own scratch files (an empty store, the dump targets'
    # input as a file) go to TMPDIR, not /tmp, and are kept in WORK/tmp.
    scratch = os.path.join(work, "tmp")
    shutil.rmtree(scratch, ignore_errors=True)
    before = set(os.listdir(artifacts))

    command = [target["program"], f"-max_total_time={args.seconds}", f"-timeout={TIMEOUT_SECONDS}",
               f"-rss_limit_mb={RSS_LIMIT_MB}", f"-max_len={MAX_LEN}",
               f"-artifact_prefix={artifacts}/", "-print_final_stats=1"]
    if target["dictionary"]:
        command.append(f"-dict={target['dictionary']}")
    command.append(corpus)
    print("run_fuzzer:", " ".join(command), flush=True)
    log_path = os.path.join(work, f"fuzz-{args.name}.log")
    # (taken now: the tree may move on while the run goes)
    commit = source_commit(target["regressions"]) if args.campaign else None
    cpu_before = children_cpu_seconds()
    wall_before = datetime.datetime.now(datetime.timezone.utc)
    with open(log_path, "w") as log, scratch_directory(scratch) as tmpdir:
        status = subprocess.run(command, cwd=work, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=dict(os.environ, TMPDIR=tmpdir)).returncode
    with open(log_path, errors="replace") as fh:
        lines = fh.read().splitlines()

    first_report = next((i for i, line in enumerate(lines) if REPORT.search(line)), None)
    new_files = sorted(os.path.join(artifacts, f) for f in set(os.listdir(artifacts)) - before)
    # libFuzzer also keeps the slowest input it met when that took over
    # 10 s, without failing the run: a run that stalled (a loaded machine)
    # keeps one as well. -timeout fails the run if an input itself is that slow.
    slow = [f for f in new_files if os.path.basename(f).startswith("slow-unit-")]
    saved = [f for f in new_files if f not in slow]
    if args.campaign:
        # Not a regression: out of the source tree, next to the corpus.
        os.makedirs(os.path.join(work, "slow"), exist_ok=True)
        slow = [shutil.move(f, os.path.join(work, "slow", os.path.basename(f))) for f in slow]
    stats = [line for line in lines if line.startswith("stat::")]
    clean = status == 0 and first_report is None and not saved
    if args.campaign:
        what = "clean" if clean else (lines[first_report].strip() if first_report is not None
                                       else f"exit status {status}")
        append_run(os.path.join(base, "campaign.tsv"), lines, started=wall_before, commit=commit,
                   cpu_seconds=children_cpu_seconds() - cpu_before, result=what, inputs=saved)
    if clean:
        done = next((line for line in reversed(lines) if re.match(r"#\d+\s+DONE", line)), "")
        print(f"run_fuzzer {args.name}: {args.seconds} s, no crash; {done.strip()}")
        for line in stats:
            print("   ", line)
        for path in slow:
            print(f"  (the slowest input, kept as {path})")
        return 0

    # The report (from its first line) or, when there is none, the end of
    # the log: enough to see what happened without the whole run.
    shown = lines[first_report:] if first_report is not None else lines[-60:]
    print("\n".join(shown[:400]))
    what = lines[first_report].strip() if first_report is not None else f"exit status {status}"
    print(f"\nrun_fuzzer {args.name}: FAILED: {what}")
    for path in saved:
        print(f"  input saved as {path}\n"
              f"  replay: {target['program']} {path}\n"
              f"  keep it (after fixing the cause): cp {path} {target['regressions']}/")
    if not saved:
        print(f"  no input saved (the process may have died with its handlers); "
              f"the target's scratch files are in {scratch}")
    print(f"  whole log: {log_path}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
