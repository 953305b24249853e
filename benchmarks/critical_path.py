"""A finished study's critical path: the longest chain of job times through its job graph.

However many cores a study is given, it takes at least the job times of its longest chain of
jobs that wait on each other. For each study directory (a checkout in which the study ran),
plans the study again with `snakemake --dry-run --forceall` (the same config and code: every
job with its input, output and benchmark files), reads each job's time from the benchmark
file Snakemake wrote when it ran (its wall seconds, `s`), and prints the sum of the job times,
the critical path and the share of the one in the other, and the chain itself with
`--chain`. Several directories are set side by side, each as a ratio to the first:

    .venv/bin/python benchmarks/critical_path.py ../before ../after --chain

Each directory's planning imports costfs from its own `src/`; arguments after `--` go to
Snakemake (e.g. `-- --configfile config/paper.yaml`).
"""

import argparse
import csv
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

RULE_LINE = re.compile(r"^(?:local)?rule (\w+):$")
FIELD_LINE = re.compile(r"^    (input|output|benchmark|jobid|wildcards): (.*)$")


@dataclass
class Job:
    rule: str
    jobid: int = -1
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    benchmark: str | None = None
    wildcards: str = ""
    seconds: float = 0.0

    @property
    def name(self) -> str:
        return f"{self.rule}[{self.wildcards}]" if self.wildcards else self.rule


def planned_jobs(directory: Path, snakemake_arguments: list[str]) -> list[Job]:
    """Every job of the study in `directory`, from a forced dry run of its workflow."""
    snakemake = Path(sys.executable).with_name("snakemake")
    env = dict(os.environ)
    if (directory / "src").is_dir():
        env["PYTHONPATH"] = os.pathsep.join(
            [str((directory / "src").resolve()), *filter(None, [env.get("PYTHONPATH")])]
        )
    plan = subprocess.run(
        [str(snakemake), "--dry-run", "--forceall", "--cores", "1", *snakemake_arguments],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
    )
    if plan.returncode:
        raise SystemExit(f"{directory}: snakemake --dry-run failed:\n{plan.stderr[-2000:]}")
    jobs: list[Job] = []
    for line in plan.stdout.splitlines():
        if match := RULE_LINE.match(line):
            jobs.append(Job(match.group(1)))
        elif jobs and (match := FIELD_LINE.match(line)):
            key, value = match.groups()
            if key == "input":
                jobs[-1].inputs = value.split(", ")
            elif key == "output":
                jobs[-1].outputs = value.split(", ")
            elif key == "benchmark":
                jobs[-1].benchmark = value
            elif key == "jobid":
                jobs[-1].jobid = int(value)
            else:
                jobs[-1].wildcards = value
    if not jobs:
        raise SystemExit(f"{directory}: the dry run planned no jobs")
    return jobs


def read_seconds(directory: Path, jobs: list[Job]) -> None:
    """Each job's wall seconds from its benchmark file (the mean of its repeats); a job
    without a benchmark directive (the target rule) takes none."""
    without = sorted(
        {job.rule for job in jobs if job.benchmark is None and job.inputs and job.outputs}
    )
    if without:
        print(f"{directory}: rules without a benchmark, counted as 0 s: {without}", file=sys.stderr)
    for job in jobs:
        if job.benchmark is None:
            continue
        path = directory / job.benchmark
        if not path.exists():
            raise SystemExit(f"{path}: no benchmark of job {job.name}; run the study first")
        with path.open() as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        job.seconds = sum(float(row["s"]) for row in rows) / len(rows)


def critical_path(jobs: list[Job]) -> list[Job]:
    """The chain of jobs, each waiting on the one before, whose times add up to the most."""
    producer = {output: job.jobid for job in jobs for output in job.outputs}
    by_id = {job.jobid: job for job in jobs}
    parents = {
        job.jobid: sorted({producer[path] for path in job.inputs if path in producer})
        for job in jobs
    }
    finish: dict[int, float] = {}
    before: dict[int, int | None] = {}

    def longest(jobid: int) -> float:
        # The DAG of a study is shallow (a few stages), so recursion is safe.
        if jobid not in finish:
            best = max(parents[jobid], key=longest, default=None)
            before[jobid] = best
            finish[jobid] = (0.0 if best is None else longest(best)) + by_id[jobid].seconds
        return finish[jobid]

    last = max(by_id, key=longest)
    chain = []
    current: int | None = last
    while current is not None:
        chain.append(by_id[current])
        current = before[current]
    return chain[::-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directories", nargs="+", type=Path)
    parser.add_argument("--chain", action="store_true", help="print each critical path's jobs")
    own, snakemake_arguments = sys.argv[1:], []
    if "--" in own:
        cut = own.index("--")
        own, snakemake_arguments = own[:cut], own[cut + 1 :]
    arguments = parser.parse_args(own)
    print("study\tjobs\tjob seconds\tcritical path s\tshare\tratio to the first")
    first = None
    chains = {}
    for directory in arguments.directories:
        jobs = planned_jobs(directory, snakemake_arguments)
        read_seconds(directory, jobs)
        chain = critical_path(jobs)
        total = sum(job.seconds for job in jobs)
        length = sum(job.seconds for job in chain)
        first = length if first is None else first
        chains[directory] = chain
        print(
            f"{directory}\t{len(jobs)}\t{total:.1f}\t{length:.1f}\t{length / total:.2f}\t"
            f"{length / first:.2f}"
        )
    if arguments.chain:
        for directory, chain in chains.items():
            print(f"\n{directory}: critical path")
            for job in chain:
                print(f"  {job.seconds:8.2f} s  {job.name}")


if __name__ == "__main__":
    main()
