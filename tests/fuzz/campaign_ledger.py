"""The ledger of a fuzz target's campaign: one line per run, in
BUILD/fuzz/NAME/campaign.tsv, so that a campaign spread over days (and
interrupted runs) still adds up to its CPU-hours.

Columns: started (UTC), commit, CPU seconds, executions, coverage (libFuzzer's
cov and ft at the run's end), corpus units, result ("clean" or the first
line of the report), inputs saved (comma-separated)."""
import os
import re
import subprocess

COLUMNS = ["started", "commit", "cpu_seconds", "executions", "cov", "ft", "corpus", "result",
           "inputs"]

# "#123456\tDONE   cov: 2345 ft: 6789 corp: 321/45Kb ..." (and NEW, REDUCE,
# pulse lines): the last one is where the run ended.
PROGRESS = re.compile(r"^#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
EXECUTED = re.compile(r"^stat::number_of_executed_units: (\d+)")


def source_commit(here):
    """The commit of the source tree at here (the target's regressions, in
    the tree it was built from), marked "+" when the tree has changes."""
    try:
        commit = subprocess.run(["git", "-C", here, "rev-parse", "--short=10", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", here, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return commit + ("+" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def append_run(path, log_lines, started, commit, cpu_seconds, result, inputs):
    executions = cov = ft = corpus = 0
    for line in log_lines:
        progress = PROGRESS.match(line)
        if progress:
            executions, cov, ft, corpus = (int(g) for g in progress.groups())
        executed = EXECUTED.match(line)
        if executed:
            executions = int(executed.group(1))
    row = [started.strftime("%Y-%m-%dT%H:%M:%SZ"), commit, f"{cpu_seconds:.1f}",
           str(executions), str(cov), str(ft), str(corpus),
           result.replace("\t", " ")[:200], ",".join(inputs)]
    new = not os.path.exists(path)
    with open(path, "a") as fh:
        if new:
            fh.write("\t".join(COLUMNS) + "\n")
        fh.write("\t".join(row) + "\n")


def read_runs(path):
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        header = fh.readline().rstrip("\n").split("\t")
        return [dict(zip(header, line.rstrip("\n").split("\t"))) for line in fh if line.strip()]


def summary(runs):
    """CPU seconds, executions, the last run's coverage, runs, findings."""
    findings = [run for run in runs if run["result"] != "clean"]
    last = runs[-1] if runs else {}
    return dict(cpu_seconds=sum(float(run["cpu_seconds"]) for run in runs),
                executions=sum(int(run["executions"]) for run in runs),
                cov=int(last.get("cov", 0)), ft=int(last.get("ft", 0)),
                corpus=int(last.get("corpus", 0)), runs=len(runs), findings=findings)
