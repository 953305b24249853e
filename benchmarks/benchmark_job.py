"""One stage job of two versions of the code, side by side: wall seconds and equal outputs.

Runs the `costfs` command given after `--` in fresh processes, once with each source tree's
`src` first on `PYTHONPATH` (a `git archive` of another commit, say, and this checkout),
alternating for `--rounds` rounds, in the current folder. `{out}` in the command stands for an
output path of each tree's own (`<tree's temporary folder>/out`, a file or a folder as the
command writes it). A first run of each tree, not timed, fills numba's cache of compiled kernels
beside that tree's sources. Prints each tree's seconds, their medians and the ratio of the second
tree's median to the first's, and whether the two trees' outputs are equal: files byte for byte,
`.npz` files array by array (their zip entries carry the time they were written).

    git archive 705c0df | tar -x -C /tmp/old
    .venv/bin/python benchmarks/benchmark_job.py --trees /tmp/old . --rounds 3 -- \\
        prepare-method --study-seed 1 --method boruta --dataset wdbc --reps 1 \\
        --data results/data/real/wdbc/rep~1/train.npz --params '{"max_iter": 50}' --out {out}
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def run_once(tree: Path, command: list[str], out: Path) -> float:
    """Wall seconds of the command under `tree`'s sources, its output at `out`."""
    arguments = [part.replace("{out}", str(out)) for part in command]
    environment = {**os.environ, "PYTHONPATH": str(tree.resolve() / "src")}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "costfs.cli", *arguments],
        env=environment,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def files_of(path: Path) -> dict[str, Path]:
    if path.is_dir():
        return {str(p.relative_to(path)): p for p in sorted(path.rglob("*")) if p.is_file()}
    return {path.name: path} if path.exists() else {}


def same_file(first: Path, second: Path) -> bool:
    if first.suffix == ".npz":
        with np.load(first) as a, np.load(second) as b:
            return a.files == b.files and all(np.array_equal(a[k], b[k]) for k in a.files)
    return first.read_bytes() == second.read_bytes()


def differences(first: Path, second: Path) -> list[str]:
    """The output files that differ or that only one tree wrote."""
    a, b = files_of(first), files_of(second)
    return sorted(
        name
        for name in a.keys() | b.keys()
        if name not in a or name not in b or not same_file(a[name], b[name])
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", nargs=2, type=Path, required=True, metavar="TREE")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the costfs command")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the costfs command after --")
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        outs = [Path(first) / "out", Path(second) / "out"]
        for tree, out in zip(args.trees, outs, strict=True):
            run_once(tree, command, out)
        seconds: list[list[float]] = [[], []]
        for _ in range(args.rounds):
            for index, tree in enumerate(args.trees):
                seconds[index].append(run_once(tree, command, outs[index]))
        medians = [statistics.median(times) for times in seconds]
        for tree, times, median in zip(args.trees, seconds, medians, strict=True):
            shown = ", ".join(f"{value:.2f}" for value in times)
            print(f"{tree}: {shown} s (median {median:.2f} s)")
        print(f"ratio (second / first, medians): {medians[1] / medians[0]:.3f}")
        differing = differences(*outs)
        print("outputs equal" if not differing else f"outputs differ: {', '.join(differing)}")


if __name__ == "__main__":
    main()
