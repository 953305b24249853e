"""What a stage job pays before it computes: the imports of `costfs <command>` and its method.

For each stage command (and, for the method stages, each method) it runs a fresh Python
`--repeats` times under `python -X importtime`, importing what that job imports before its
work: the command's parser (`costfs.cli.parser`, which imports only the command's module) and
the method's module. It prints the median total import time per command and method as
Markdown, with the heaviest packages. A selection job imports pyarrow (not pandas) when it
writes its table; an evaluation job reads and writes its tables with pyarrow from the start
(counted); the table says where pandas is part of the start.

A job that grows trees pays more before its first tree: numba loads the compiled kernels from
its cache, and loading them imports scipy.linalg (numba's check for a BLAS). `--first-kernel`
times that in fresh Pythons instead: the import of the tree engine, then its first forest (one
tree), each start once as it comes and once with scipy.linalg imported before the forest.

    .venv/bin/python benchmarks/benchmark_startup.py --repeats 7
    .venv/bin/python benchmarks/benchmark_startup.py --repeats 7 --first-kernel
"""

import argparse
import re
import statistics
import subprocess
import sys

from costfs.methods import method_names

STAGES = {
    "simulate-data": None,
    "split-data": None,
    "draw-costs": None,
    "prepare-method": "methods",
    "select-features": "methods",
    "evaluate": "methods",
    "aggregate": None,
}
PACKAGES = (
    "pandas",
    "pyarrow",
    "numpy",
    "numba",
    "sklearn",
    "scipy",
    "xgboost",
    "jsonschema",
    "joblib",
)
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| ( *)(\S+)")


def imports(command: str, method: str | None) -> tuple[float, dict[str, float]]:
    """Total import seconds of one fresh start, and the cumulative seconds of each top-level
    package of PACKAGES it imported."""
    program = f"import costfs.cli as cli\ncli.parser({command!r})\n"
    if method:
        program += f"from costfs.methods import load_method\nload_method({method!r})\n"
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", program],
        capture_output=True,
        text=True,
        check=True,
    )
    total, packages = 0.0, {}
    for match in LINE.finditer(run.stderr):
        own, cumulative, indent, name = match.groups()
        total += int(own) / 1e6
        if name in PACKAGES:
            packages[name] = packages.get(name, 0.0) + int(cumulative) / 1e6
    return total, packages


FIRST_KERNEL = """
import sys, time
started = time.perf_counter()
import numpy as np
from costfs.engine.trees import refit_errors
imported = time.perf_counter()
if sys.argv[1] == "scipy-first":
    import scipy.linalg.cython_blas
scipy_loaded = time.perf_counter()
X = np.random.default_rng(0).normal(size=(100, 5))
y = (X[:, 0] > 0).astype(int)
refit_errors(X, y, X, y, n_trees=1, seed=1)
print(imported - started, scipy_loaded - imported, time.perf_counter() - scipy_loaded)
"""


def first_kernel(repeats: int) -> None:
    """Median seconds of a fresh Python's import of the tree engine and of its first forest,
    as it comes and with scipy.linalg imported first, alternating, as Markdown."""
    runs = {"as it comes": [], "scipy.linalg first": []}
    for _ in range(repeats):
        for label, argument in zip(runs, ("plain", "scipy-first"), strict=True):
            run = subprocess.run(
                [sys.executable, "-c", FIRST_KERNEL, argument],
                capture_output=True,
                text=True,
                check=True,
            )
            runs[label].append([float(value) for value in run.stdout.split()])
    print("| start | tree engine import (s) | scipy.linalg (s) | first forest (s) |")
    print("|---|---|---|---|")
    for label, times in runs.items():
        medians = [statistics.median(column) for column in zip(*times, strict=True)]
        print(f"| {label} | {medians[0]:.3f} | {medians[1]:.3f} | {medians[2]:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--first-kernel",
        action="store_true",
        help="time the tree engine's import and first forest instead of the commands' imports",
    )
    args = parser.parse_args()
    if args.first_kernel:
        first_kernel(args.repeats)
        return
    print("| command | method | imports (s, median) | heaviest packages (s) |")
    print("|---|---|---|---|")
    for command, per_method in STAGES.items():
        for method in method_names() if per_method else [None]:
            runs = [imports(command, method) for _ in range(args.repeats)]
            median = statistics.median(total for total, _ in runs)
            packages = {
                name: statistics.median(run[1].get(name, 0.0) for run in runs) for name in PACKAGES
            }
            heavy = ", ".join(
                f"{name} {seconds:.2f}"
                for name, seconds in sorted(packages.items(), key=lambda item: -item[1])
                if seconds >= 0.01
            )
            print(f"| {command} | {method or ''} | {median:.3f} | {heavy} |")


if __name__ == "__main__":
    main()
