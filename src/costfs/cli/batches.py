"""`costfs combine-batches`: joins a study run in batches of replicates (the config's
`first_rep` and `n_rep`) into the runs table, summary and timings one run of all its
replicates writes.

    costfs combine-batches BATCH_RESULTS... --strategies agnostic simple tuned --out RESULTS

Each BATCH_RESULTS is a batch's `results/` folder (its `runs.parquet`, `costs/` and, when every
batch has one, `timings.parquet`). The batches must be of one study (the same costs, drawn from
the study seed) and hold different runs: other replicates, or other methods. The findings
tables of the union then come from `costfs tabulate-findings --runs RESULTS/runs.parquet ...`.
"""

from pathlib import Path

from costfs.cli import storage
from costfs.cli.arguments import add_command
from costfs.core.errors import DataError


def combine(batches: list[Path], strategies: list[str], out: Path) -> None:
    import pandas as pd

    from costfs.core.costs import FeatureCosts
    from costfs.study import aggregation

    tables = [storage.read_table(batch / "runs.parquet") for batch in batches]
    # Batches may split the replicates, the methods, or both (e.g. the paper's methods at 50
    # replicates, the others at 20): a run is one (problem, method, replicate).
    seen: dict[tuple, Path] = {}
    for batch, table in zip(batches, tables, strict=True):
        runs = table[["problem", "method", "rep"]].drop_duplicates()
        for problem, method, rep in sorted(runs.itertuples(index=False)):
            if (problem, method, rep) in seen:
                raise DataError(
                    f"{batch}: replicate {rep} of {method} on {problem} is also in "
                    f"{seen[problem, method, rep]}"
                )
            seen[problem, method, rep] = batch
    costs = {path.stem: path.read_bytes() for path in sorted((batches[0] / "costs").glob("*.npz"))}
    for batch in batches[1:]:
        for problem, content in costs.items():
            if (batch / "costs" / f"{problem}.npz").read_bytes() != content:
                raise DataError(
                    f"{batch}: the costs of {problem} differ from {batches[0]}'s: not one study"
                )
    runs = aggregation.combine_runs(tables)
    n_features = {
        problem: FeatureCosts.from_arrays(
            storage.read_arrays(batches[0] / "costs" / f"{problem}.npz")
        ).n_features
        for problem in costs
    }
    storage.write_table(out / "runs.parquet", runs)
    timings = [batch / "timings.parquet" for batch in batches]
    if all(path.exists() for path in timings):
        storage.write_table(
            out / "timings.parquet",
            pd.concat([storage.read_table(path) for path in timings], ignore_index=True),
        )
    storage.write_table(
        out / "summary.parquet", aggregation.summary_table(runs, strategies, n_features)
    )
    reps = sorted({rep for _, _, rep in seen})
    print(f"{len(batches)} batches, replicates {reps[0]}-{reps[-1]}: {len(runs)} runs in {out}")


def combine_batches(args) -> None:
    combine(args.batches, args.strategies, args.out)


def register(commands) -> None:
    add_command(
        commands,
        "combine-batches",
        combine_batches,
        (["batches"], {"nargs": "+", "type": Path, "help": "each batch's results/ folder"}),
        (
            ["--strategies"],
            {"nargs": "+", "default": ["agnostic", "simple", "tuned"], "help": "as the study's"},
        ),
        (["--out"], {"type": Path, "required": True, "help": "the union's results/ folder"}),
        help="join a study run in batches of replicates into the results of one run",
    )
