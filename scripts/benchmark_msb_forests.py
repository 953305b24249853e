"""msB's model schedules on a finished run's problems, scored on oneDAL's forests and on the
numba trees, alternating in one process: the seconds of each and their ratio per problem.

Reads a run folder (a study, or `scripts/benchmark_replicate.py --workdir`) with msB's
preparations: each problem's replicate-1 training data, costs and prepared parts, and the
budgets of its config (`--config`, by default `<workdir>/replicate.yaml`). Pin it to one core:

    taskset -c 1 .venv/bin/python scripts/benchmark_msb_forests.py --workdir /tmp/replicate
"""

import argparse
import time
from pathlib import Path

import yaml

from costfs.cli import storage
from costfs.core.costs import FeatureCosts
from costfs.methods.msb import model_schedule
from costfs.study.simulate import SETTINGS

ENGINES = ("sklearnex", "numba")


def problems(config: dict) -> dict[str, tuple[str, list[float]]]:
    """Each problem's training data folder (under results/data) and budgets."""
    simulated = {
        setting: (f"simulated/{SETTINGS[setting][0]}", config["simulation"]["budgets"])
        for setting in config["simulation"]["settings"]
    }
    real = {
        name: (f"real/{name}", dataset["budgets"])
        for name, dataset in config["real_data"]["datasets"].items()
    }
    return simulated | real


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--config", type=Path)
    parser.add_argument("--n-trees", type=int, default=200)
    arguments = parser.parse_args()
    results = arguments.workdir / "results"
    config = yaml.safe_load((arguments.config or arguments.workdir / "replicate.yaml").read_text())
    totals = dict.fromkeys(ENGINES, 0.0)
    for problem, (data_folder, budgets) in problems(config).items():
        data = storage.read_arrays(results / "data" / data_folder / "rep~1" / "train.npz")
        dataset = data_folder.split("/")[1]
        # In its preparation job's folder (reps~1-<n>/); older runs kept it in the data set's.
        (prepared_path,) = (results / "prepared" / "msb" / dataset).glob("**/rep~1.npz")
        prepared = storage.read_arrays(prepared_path)
        costs = FeatureCosts.from_arrays(storage.read_arrays(results / "costs" / f"{problem}.npz"))
        seconds = {}
        for engine in ENGINES:
            started = time.perf_counter()
            model_schedule(
                data["X"],
                data["y"],
                costs,
                seed=7,
                prepared=prepared,
                n_trees=arguments.n_trees,
                gamma=0.1,
                min_model_size=2,
                max_cost=max(budgets),
                engine=engine,
            )
            seconds[engine] = time.perf_counter() - started
            totals[engine] += seconds[engine]
        print(
            f"{problem:24s} oneDAL {seconds['sklearnex']:6.2f} s  numba {seconds['numba']:6.2f} s"
            f"  ratio {seconds['numba'] / seconds['sklearnex']:.2f}",
            flush=True,
        )
    print(
        f"{'all':24s} oneDAL {totals['sklearnex']:6.2f} s  numba {totals['numba']:6.2f} s"
        f"  ratio {totals['numba'] / totals['sklearnex']:.2f}"
    )


if __name__ == "__main__":
    main()
