"""What the jobs of a finished run spend besides their work, per rule and method.

A job's work is what its log reports ("... in 12.34 s": a preparation, the selections of each
replicate, the refits of each replicate); the rest of its wall time (Snakemake's benchmark) is
its start (Python, imports), reading and writing. Reads `results/timings.parquet` and `logs/` of
a run folder (a study, or `benchmarks/benchmark_replicate.py --workdir`) and prints, per rule and
method, the jobs, their wall seconds, the seconds of work they logged and the difference:

    .venv/bin/python benchmarks/job_overhead.py --workdir /tmp/replicate
"""

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

WORK = re.compile(r" in ([0-9.]+) s\b")


def logged_work(log: Path) -> float | None:
    """The seconds of work a job's log reports, summed; None without a log or a report."""
    if not log.exists():
        return None
    seconds = [float(value) for value in WORK.findall(log.read_text(errors="replace"))]
    return sum(seconds) if seconds else None


def overhead_table(workdir: Path) -> pd.DataFrame:
    timings = pd.read_parquet(workdir / "results" / "timings.parquet")
    rows = []
    for job, wall in zip(timings["job"], timings["s"], strict=True):
        # benchmarks/<rule>/<method>/<rest> -> logs/<rule>/<method>/<rest>.log
        parts = Path(job).with_suffix("").parts
        work = logged_work(workdir / "logs" / Path(*parts[1:]).with_suffix(".log"))
        rows.append(
            {
                "rule": parts[1],
                "method": parts[2] if len(parts) > 3 else "",
                "wall_s": wall,
                "work_s": work,
            }
        )
    jobs = pd.DataFrame(rows)
    missing = jobs["work_s"].isna()
    if missing.any():
        print(f"{missing.sum()} jobs log no work; left out", file=sys.stderr)
    jobs = jobs[~missing].assign(other_s=lambda t: t["wall_s"] - t["work_s"])
    table = jobs.groupby(["rule", "method"]).agg(
        jobs=("wall_s", "size"),
        wall_s=("wall_s", "sum"),
        work_s=("work_s", "sum"),
        other_s=("other_s", "sum"),
    )
    table["other_per_job_s"] = table["other_s"] / table["jobs"]
    return table.round(2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, required=True)
    table = overhead_table(parser.parse_args().workdir)
    print(table.reset_index().to_string(index=False))
    total = table[["wall_s", "work_s", "other_s"]].sum()
    print(
        f"all: {total['wall_s'] / 3600:.3f} job-hours, of which {total['other_s'] / 3600:.3f} "
        f"besides the logged work ({total['other_s'] / total['wall_s']:.0%})"
    )


if __name__ == "__main__":
    main()
