"""Whether a pair of one-core replicate runs is fair: the same jobs alone and beside others.

Two commits' replicates run side by side, each on one core (`scripts/benchmark_replicate.py
--cores 1` under `taskset`), compare only if neither commit's jobs slow down more than the
other's beside the other's. This script takes the two runs' working directories and the two
source trees they ran, asks each run's Snakemake for the shell commands of the jobs that write
`--outputs` (`snakemake -n -p --forcerun`), and runs each commit's commands one after the other
on core 0, writing to a temporary folder:

- alone, core 1 idle;
- beside the same commit's commands, run in a loop on core 1;
- beside the other commit's commands, run in a loop on core 1.

For `--rounds` rounds it prints the seconds per commit and condition as Markdown, with the
median of each. Run it on the otherwise idle machine. On 2026-11-29, fb64c03's ten pFI
evaluations took 176-179 s alone and 187 s beside 838382c's, against 242 s inside the one-core
replicate run beside 838382c's (docs/speed.md, "A whole replicate"):

    .venv/bin/python scripts/benchmark_neighbours.py --runs /tmp/rep_old /tmp/rep_new \\
        --trees /tmp/old /tmp/new --outputs 'results/evaluation/pfi/*.parquet'
"""

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CONDITIONS = ("alone", "beside the same commit's", "beside the other commit's")


class Run:
    """One replicate run's jobs: their commands, working directory and source tree."""

    def __init__(self, workdir: Path, tree: Path, outputs: str, scratch: str):
        self.workdir, self.tree = workdir.resolve(), tree.resolve()
        self.environment = {**os.environ, "PYTHONPATH": str(self.tree / "src")}
        targets = sorted(str(path.relative_to(self.workdir)) for path in self.workdir.glob(outputs))
        if not targets:
            raise SystemExit(f"{workdir}: no file matches --outputs {outputs!r}")
        commands = self._shell_commands(targets)
        # Two sets of output paths: a run measured beside itself must not write where its
        # neighbour writes.
        self.commands = {
            core: [
                self._own_output(command, f"{scratch}-core{core}-{index}")
                for index, command in enumerate(commands)
            ]
            for core in (0, 1)
        }

    def _shell_commands(self, targets: list[str]) -> list[list[str]]:
        # Plain snakemake, not costfs.cli.run_snakemake.snakemake_command: the dry run imports
        # the tree's own package, and a tree from before that module has none.
        dry_run = subprocess.run(
            [
                sys.executable, "-m", "snakemake", "--snakefile", str(self.tree / "Snakefile"),
                "--directory", str(self.workdir), "--configfile",
                str(self.workdir / "replicate.yaml"), "--cores", "1", "-n", "-p",
                "--forcerun", *targets, "--until", *targets,
            ],
            env=self.environment, capture_output=True, text=True, check=True,
        )  # fmt: skip
        prefix = "Shell command: costfs "
        commands = [
            shlex.split(line[len(prefix) :].split(" 2> ")[0])
            for line in dry_run.stdout.splitlines()
            if line.startswith(prefix)
        ]
        if len(commands) != len(targets):
            raise SystemExit(
                f"{self.workdir}: Snakemake planned {len(commands)} costfs jobs for "
                f"{len(targets)} outputs; --outputs must name the outputs of costfs jobs only"
            )
        return commands

    @staticmethod
    def _own_output(command: list[str], path: str) -> list[str]:
        out = command.index("--out") + 1
        return [*command[:out], path + Path(command[out]).suffix, *command[out + 1 :]]

    def run_all(self, core: int, stop: threading.Event | None = None) -> float:
        """Seconds for every command, one after the other on `core` (until `stop` is set)."""
        started = time.perf_counter()
        for command in self.commands[core]:
            if stop is not None and stop.is_set():
                break
            subprocess.run(
                ["taskset", "-c", str(core), sys.executable, "-m", "costfs.cli", *command],
                cwd=self.workdir, env=self.environment, check=True,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
        return time.perf_counter() - started


def timed_beside(measured: Run, partner: Run | None) -> float:
    """Seconds for `measured`'s commands on core 0 while `partner`'s loop on core 1."""
    if partner is None:
        return measured.run_all(core=0)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            partner.run_all(core=1, stop=stop)

    neighbour = threading.Thread(target=loop)
    neighbour.start()
    try:
        return measured.run_all(core=0)
    finally:
        stop.set()
        neighbour.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", nargs=2, type=Path, required=True, metavar=("OLD", "NEW"))
    parser.add_argument("--trees", nargs=2, type=Path, required=True, metavar=("OLD", "NEW"))
    parser.add_argument(
        "--outputs", required=True, help="a glob of the jobs' outputs in each run's directory"
    )
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        runs = [
            Run(workdir, tree, args.outputs, f"{scratch}/{name}")
            for workdir, tree, name in zip(args.runs, args.trees, ("old", "new"), strict=True)
        ]
        for run in runs:
            run.run_all(core=0)  # untimed: fills numba's cache and the page cache
        seconds = {(index, condition): [] for index in range(2) for condition in CONDITIONS}
        for round_number in range(args.rounds):
            for index, run in enumerate(runs):
                partners = (None, run, runs[1 - index])
                for condition, partner in zip(CONDITIONS, partners, strict=True):
                    seconds[index, condition].append(timed_beside(run, partner))
            print(f"round {round_number + 1} of {args.rounds} done", file=sys.stderr)
    print(f"| the {len(runs[0].commands[0])} jobs of | " + " | ".join(CONDITIONS) + " |")
    print("|---|" + "---|" * len(CONDITIONS))
    for index, workdir in enumerate(args.runs):
        cells = [
            ", ".join(f"{s:.1f}" for s in seconds[index, condition])
            + f" (median {statistics.median(seconds[index, condition]):.1f})"
            for condition in CONDITIONS
        ]
        print(f"| {workdir} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
