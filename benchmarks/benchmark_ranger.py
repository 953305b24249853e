"""costfs's engine units and forward selection side by side with R's ranger, as ratios.

ranger (the RF paper's engine) runs through the R scripts in ../shared/bench (units.R,
fs_path.R, make_data.py; its README says how to install R and ranger), costfs in this process,
one thread each, on the same setting-A-like data (500 x 200 training rows, 5000 test rows).
Each unit is timed `--rounds` times, alternating between the sides so both see the same
machine load; a round takes the median of `--repeats` runs on each side (after one untimed
warm-up run of ours; units.R times its repeats in one R session). The table gives the medians
over the rounds and the ratio costfs / ranger of each round. Without Rscript and ranger, or
without the bench directory, it prints costfs's times with a note instead of ratios.

Units:
  refit    1000 trees on all features, OOB error and predictions for the 5000 test rows
           (ours: the numba trees, the refits' default, and the forest engine);
  fsunit   500 trees on the first 10 features, OOB error (the forward-selection unit);
  pfi      1000 trees with OOB permutation importance (ours: the numba engine, and the
           scikit-learn reference as a second row);
  shallow  STS's base ensemble: 200 stumps and 500 trees each of depth 2 and 3 (ours with the
           OOB votes STS needs);
  fs       forward selection: ranger's loop for xi in {0, 1} x budgets {1, 2} (one greedy run
           per xi and budget, as the paper ran it) against ours for the same grid and for
           config/paper.yaml's full xi grid x budgets {1, 2, 5}: per-set forests (exhaustive
           steps), common random numbers (exhaustive), common random numbers with racing;
           `--fs-trees` trees per forest. About ten minutes per round.

    .venv/bin/python benchmarks/benchmark_ranger.py [--units refit fsunit pfi shallow fs]
"""

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import yaml
from benchmark_fs import median_seconds  # this script's directory comes first on sys.path

from costfs.engine.forest import oob_errors, resolve_engine
from costfs.engine.importance import permutation_importance
from costfs.engine.trees import refit_errors
from costfs.methods import fs, load_method
from costfs.methods.sts import base_ensemble

REPO = Path(__file__).resolve().parents[1]
UNITS = ("refit", "fsunit", "pfi", "shallow", "fs")


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--units", nargs="+", choices=UNITS, default=list(UNITS))
    parser.add_argument("--rounds", type=int, default=2, help="alternations of the two sides")
    parser.add_argument("--repeats", type=int, default=3, help="runs per side and round")
    parser.add_argument("--fs-trees", type=int, default=100, help="trees per FS forest")
    parser.add_argument("--bench", type=Path, default=REPO.parent / "shared" / "bench")
    return parser.parse_args()


def ranger_missing(bench: Path) -> str | None:
    """Why ranger cannot run here, or None."""
    if not (bench / "units.R").is_file():
        return f"no R side at {bench} (units.R, fs_path.R, make_data.py)"
    if shutil.which("Rscript") is None:
        return "Rscript is not installed (apt-get install -y r-base-core r-cran-ranger)"
    probe = subprocess.run(
        ["Rscript", "-e", "library(ranger)"], capture_output=True, text=True, check=False
    )
    if probe.returncode:
        return "the R package ranger is not installed (apt-get install -y r-cran-ranger)"
    return None


def ranger_unit_seconds(bench: Path, data: Path, unit: str, repeats: int) -> float:
    output = subprocess.run(
        ["Rscript", str(bench / "units.R"), str(data), unit, str(repeats)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return float(output.split()[2])


def ranger_fs_seconds(bench: Path, data: Path, n_trees: int) -> tuple[float, int]:
    output = subprocess.run(
        ["Rscript", str(bench / "fs_path.R"), str(data), str(n_trees), "0,1", "1,2"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    match = re.search(r"ranger FS loop: (\d+) forests, ([\d.]+) s", output)
    return float(match.group(2)), int(match.group(1))


def our_units(data: dict) -> dict[str, list[tuple[str, object]]]:
    """Per unit, the rows of our side: (label, function to time)."""
    X, y, X_test, y_test = data["X"], data["y"].astype(int), data["Xt"], data["yt"].astype(int)
    engine = resolve_engine("auto")
    return {
        "refit": [
            (
                f"1000-tree refit + predict 5000 rows ({engine_name})",
                lambda engine_name=engine_name: refit_errors(
                    X, y, X_test, y_test, n_trees=1000, seed=1, engine=engine_name
                ),
            )
            for engine_name in ("numba", engine)
        ],
        "fsunit": [
            (
                f"500 trees on 10 features, OOB error ({engine})",
                lambda: oob_errors(X, y, [range(10)], n_trees=[500], seeds=[1]),
            )
        ],
        "pfi": [
            (
                f"pFI: 1000 trees, OOB permutation importance ({engine_name})",
                lambda engine_name=engine_name: permutation_importance(
                    X, y, n_trees=1000, seed=1, engine=engine_name
                ),
            )
            for engine_name in ("numba", "sklearn")
        ],
        "shallow": [
            (
                f"STS base ensemble, OOB votes included ({engine_name})",
                lambda engine_name=engine_name: base_ensemble(
                    X, y, seed=1, depths=(1, 2, 3), trees_per_depth=500, engine=engine_name
                ),
            )
            for engine_name in ("numba", "sklearn")
        ],
    }


def forward_selection_rows(data: dict, n_trees: int) -> list[tuple[str, object]]:
    X, y, costs = data["X"], data["y"].astype(int), data["costs"]
    paper_grid = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())["xi_grid"]

    def search(grid, budgets, **mode):
        values = {**load_method("fs").defaults(), "n_trees": n_trees, **mode}
        return fs.forward_paths(X, y, costs, budgets, grid, seed=1, **values)

    full = f"full xi grid ({len(paper_grid)} values) x budgets {{1, 2, 5}}, {n_trees} trees"
    exhaustive_per_set = {"forests": "per_set", "racing": False}
    return [
        (
            f"FS, xi in {{0, 1}} x budgets {{1, 2}}, {n_trees} trees, per-set forests, exhaustive",
            lambda: search([0, 1], [1, 2], **exhaustive_per_set),
        ),
        (
            f"FS, {full}, per-set forests, exhaustive",
            lambda: search(paper_grid, [1, 2, 5], **exhaustive_per_set),
        ),
        (
            f"FS, {full}, common random numbers, exhaustive",
            lambda: search(paper_grid, [1, 2, 5], forests="common", racing=False),
        ),
        (
            f"FS, {full}, common random numbers, racing (the default)",
            lambda: search(paper_grid, [1, 2, 5], forests="common", racing=True),
        ),
    ]


def report(label: str, ours: list[float], theirs: list[float] | None) -> None:
    mine = statistics.median(ours)
    if theirs is None:
        print(f"| {label} | {mine:.3f} s | - | - |")
        return
    ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
    shown = ", ".join(f"{ratio:.2f}" for ratio in ratios)
    print(f"| {label} | {mine:.3f} s | {statistics.median(theirs):.3f} s | {shown} |")


def main() -> None:
    args = parse_arguments()
    missing = ranger_missing(args.bench)
    with tempfile.TemporaryDirectory() as directory:
        data_dir = Path(directory)
        if missing is None:
            make_data = [sys.executable, str(args.bench / "make_data.py"), str(data_dir)]
            subprocess.run(make_data, check=True)
            data = dict(np.load(data_dir / "data.npz"))
        else:
            print(f"NOTE: ranger not run: {missing}. costfs's times only.")
            data = synthetic_setting_a()
        print(f"rounds {args.rounds}, repeats {args.repeats}; one thread each")
        print("| unit | costfs | ranger | ratio per round |\n|---|---|---|---|")
        units = our_units(data)
        for unit in args.units:
            rows = units.get(unit) or forward_selection_rows(data, args.fs_trees)
            timings = {label: [] for label, _ in rows}
            ranger = [] if missing is None else None
            for _ in range(args.rounds):
                for label, function in rows:
                    if unit != "fs":  # FS takes minutes: one run, no warm-up
                        function()  # loads the compiled kernels and warms the caches
                    repeats = 1 if unit == "fs" else args.repeats
                    timings[label].append(median_seconds(function, repeats))
                if ranger is not None and unit == "fs":
                    seconds, forests = ranger_fs_seconds(args.bench, data_dir, args.fs_trees)
                    ranger.append(seconds)
                elif ranger is not None:
                    ranger.append(ranger_unit_seconds(args.bench, data_dir, unit, args.repeats))
            for label, seconds in timings.items():
                report(label, seconds, ranger)
            if unit == "fs" and ranger is not None:
                print(f"(ranger's loop: xi in {{0, 1}} x budgets {{1, 2}}, {forests} forests)")


def synthetic_setting_a() -> dict:
    """make_data.py's design, for a run without the R side."""
    rng = np.random.default_rng(1)
    beta = rng.normal(0, 0.5, 800)
    mu = np.r_[beta[np.abs(beta) <= 1][:100], np.zeros(100)]

    def draw(rows):
        labels = rng.integers(0, 2, rows)
        return rng.standard_normal((rows, 200)) + labels[:, None] * mu, labels

    (X, y), (X_test, y_test) = draw(500), draw(5000)
    return {"X": X, "y": y, "Xt": X_test, "yt": y_test, "costs": rng.uniform(0.1, 1.0, 200)}


if __name__ == "__main__":
    main()
