"""`costfs combine-batches`: joins a study run in batches of replicates (the config's
`first_rep` and `n_rep`) into the runs table, summary and timings one run of all its
replicates writes.

    costfs combine-batches BATCH_RESULTS... --strategies agnostic simple tuned --out RESULTS

Each BATCH_RESULTS is a batch's `results/` folder (its `runs.parquet`, `provenance.json`,
`costs/` and, when every batch has one, `timings.parquet`). The batches must be of one study and
hold different runs: other replicates, or other methods. One study: their provenance records
(`results/provenance.json`) hold the same config but for the replicates, the same inputs (data,
costs, design) and the same code; `--allow-other-code` joins batches that other versions of
costfs ran. The findings tables of the union then come from
`costfs tabulate-findings --runs RESULTS/runs.parquet ...`.
"""

import json
from pathlib import Path

from costfs.cli import storage
from costfs.cli.arguments import VERBOSITY, add_command
from costfs.core.errors import DataError

PROVENANCE = "provenance.json"


def read_provenance(batch: Path) -> dict:
    path = batch / PROVENANCE
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise DataError(
            f"{path}: no provenance record, so nothing says which study the batch is of (a "
            "batch run with costfs 0.4 or earlier has none: in the batch's folder, `costfs "
            "run-study STUDY -- results/provenance.json --rerun-triggers mtime` writes it "
            "without rerunning anything else)"
        ) from None
    except json.JSONDecodeError as error:
        raise DataError(f"{path}: not a provenance record ({error})") from None


def check_provenance(batches: list[Path], allow_other_code: bool = False) -> dict:
    """The provenance of the union of `batches`, or a `DataError` naming the first batch that
    is not of the first batch's study and what differs."""
    from costfs.study.provenance import differences

    records = [read_provenance(batch) for batch in batches]
    first = records[0]
    compared = ("study", "inputs") if allow_other_code else ("study", "inputs", "code")
    for batch, record in zip(batches[1:], records[1:], strict=True):
        found = [
            difference
            for part in compared
            for difference in differences(first.get(part), record.get(part), part)
        ]
        if found:
            listed = "; ".join(found[:5])
            if len(found) > 5:
                listed += f"; and {len(found) - 5} more"
            advice = (
                " (--allow-other-code joins batches run with other versions of costfs)"
                if all(difference.startswith("code") for difference in found)
                else ""
            )
            raise DataError(
                f"{batch}: not a batch of the study of {batches[0]}: {listed} (first "
                f"against second){advice}"
            )
    replicates = sorted(span for record in records for span in record["replicates"])
    return {**first, "replicates": replicates} | (
        {"code": sorted({record["code"] for record in records})} if allow_other_code else {}
    )


def combine(
    batches: list[Path],
    strategies: list[str],
    out: Path,
    *,
    check: bool = True,
    allow_other_code: bool = False,
    train_fraction: float | None = None,
) -> None:
    """Joins `batches` into `out`; `check=False` skips the provenance check (for batches
    recorded before there was one, whose study the caller vouches for). `train_fraction`, the
    real data's, sets each run's held-out share (for batches run before runs carried it)."""
    import pandas as pd

    from costfs.core.costs import FeatureCosts
    from costfs.study import aggregation

    if any(out.resolve() == batch.resolve() for batch in batches):
        raise DataError(f"--out {out}: is one of the batches; write the union to another folder")
    provenance = check_provenance(batches, allow_other_code) if check else None
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
    with_share = [aggregation.HELD_OUT_SHARE in table for table in tables]
    if train_fraction is None and any(with_share) and not all(with_share):
        without = [str(batch) for batch, has in zip(batches, with_share, strict=True) if not has]
        raise DataError(
            f"{', '.join(without)}: runs without a {aggregation.HELD_OUT_SHARE} column (run "
            "by an older costfs) cannot join runs with one: rerun them with this version"
        )
    runs = aggregation.combine_runs(tables, train_fraction)
    n_features = {
        problem: FeatureCosts.from_arrays(
            storage.read_arrays(batches[0] / "costs" / f"{problem}.npz")
        ).n_features
        for problem in costs
    }
    storage.write_table(out / "runs.parquet", runs)
    if provenance:
        record = json.dumps(provenance, indent=1, sort_keys=True)
        storage.write_text(out / PROVENANCE, record + "\n")
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
    combine(args.batches, args.strategies, args.out, allow_other_code=args.allow_other_code)


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
        (
            ["--allow-other-code"],
            {
                "action": "store_true",
                "help": "join batches that other versions of costfs ran (same config and inputs)",
            },
        ),
        *VERBOSITY,
        help="join a study run in batches of replicates into the results of one run",
    )
