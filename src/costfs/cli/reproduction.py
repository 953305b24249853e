"""The reproduction of the RF paper's study (config/reproduction.yaml), run in batches of
replicates from a checkout of costfs, and its page docs/reproduction.md.

    python -m costfs.cli.reproduction run-batch --methods paper --first-rep 1 --n-rep 5 \
        --workdir ../batches/paper-1 --cores 2
    python -m costfs.cli.reproduction assemble ../assembly
    python -m costfs.cli.reproduction update-doc

`run-batch` runs some replicates of the study, for the paper's entries or for the related work,
with the workflow and package of the checkout (run it from an unchanging copy, e.g. `git
archive`, to keep editing the project meanwhile). An interrupted batch resumes when run again,
even after a kill left Snakemake's lock behind (a lock of its own on --workdir stops a second
run there at once). When it finishes, its runs (without the feature names, which the data
sets' columns give), timings and costs are added to the batch store reproduction/batches/
(`BatchStore`). `--sensitivity` runs a variant of the study on settings C and D: `seed` with
another study seed (new draws of mu, Sigma and costs), `fs-trees` forward selection with
500-tree internal forests (the paper's size) instead of 100, `sts-depth` STS with a base
ensemble of depths 1-7 and each budget held to the depth its cheapest features allow.

`assemble` computes the committed tables under reproduction/tables/ from the store: the union's
findings tables, the counts, the verdicts (`costfs.study.verdicts`), and the sensitivity
analyses' verdicts against the main study's on the same settings and replicates. `update-doc`
rewrites the generated blocks of docs/reproduction.md from those tables
(`costfs.study.reproduction`).
"""

import argparse
import fcntl
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import yaml

from costfs.cli import storage
from costfs.cli.batches import combine
from costfs.cli.run_snakemake import run_checkout_workflow
from costfs.core.errors import DataError
from costfs.study import aggregation, comparisons, findings, plots
from costfs.study.findings import PAPER_METHODS
from costfs.study.method_docs import replace_block
from costfs.study.reproduction import (
    BENCHMARK_FAMILIES,
    COMMITTED,
    SENSITIVITY_NAMES,
    TABLES,
    XI_METHODS,
    benchmark_entries,
    benchmark_statistics,
    blocks,
    compute,
    counts,
)
from costfs.study.verdicts import verdicts

CHECKOUT = Path(__file__).resolve().parents[3]
"""The checkout this package is in: the reproduction runs from one (`pip install -e .`)."""
REPRODUCTION = CHECKOUT / "reproduction"
TABLE_DIR = REPRODUCTION / "tables"
BATCH_STORE = REPRODUCTION / "batches"
SENSITIVITY_DIR = TABLE_DIR / "sensitivity"
DOCUMENT = CHECKOUT / "docs" / "reproduction.md"
CRITICAL_DIFFERENCE = CHECKOUT / "docs" / "reproduction-critical-difference.png"
CONFIG = CHECKOUT / "config" / "reproduction.yaml"


class BatchStore:
    """The reproduction's batches as four files in one folder: `batches.csv` (one row per
    batch: its name, sensitivity variant, methods, replicates, config, commit and the columns
    of its runs table), and `runs.parquet`, `timings.parquet` and `costs.parquet` holding every
    batch's rows under a `batch` column (a batch's costs are its `costs/<problem>.npz` files as
    they were written, so that `combine` compares them byte for byte). `unpack` gives each batch
    back as the results folder it ran in."""

    FILES = ("runs", "timings", "costs")

    def __init__(self, folder: Path):
        self.folder = folder

    def descriptions(self) -> pd.DataFrame:
        path = self.folder / "batches.csv"
        if not path.is_file():
            return pd.DataFrame(columns=["batch", "sensitivity"])
        return pd.read_csv(path)

    def names(self, variant: str | None = None) -> list[str]:
        """The batches of the main study (`variant` None) or of a sensitivity variant, in name
        order."""
        table = self.descriptions()
        of = table["sensitivity"].isna() if variant is None else table["sensitivity"] == variant
        return sorted(table.loc[of, "batch"])

    def _read(self, name: str) -> pa.Table | None:
        path = self.folder / f"{name}.parquet"
        return storage.read_arrow_table(path) if path.is_file() else None

    def add(self, name: str, results: Path, description: dict) -> None:
        """Adds the batch `name` from its `results` folder; refuses a name the store has."""
        if name in set(self.descriptions()["batch"]):
            raise DataError(f"{self.folder} already holds a batch {name}")
        runs = pq.read_table(results / "runs.parquet").drop_columns(list(DROPPED_COLUMNS))
        costs = sorted((results / "costs").glob("*.npz"))
        new = {
            "runs": runs,
            "timings": pq.read_table(results / "timings.parquet"),
            "costs": pa.table(
                {
                    "problem": [path.stem for path in costs],
                    "npz": pa.array([path.read_bytes() for path in costs], pa.binary()),
                }
            ),
        }
        for kind, table in new.items():
            table = table.add_column(0, "batch", pa.array([name] * len(table), pa.string()))
            stored = self._read(kind)
            if stored is not None:
                table = pa.concat_tables([stored, table], promote_options="default")
            storage.write_table(self.folder / f"{kind}.parquet", table)
        row = {"batch": name, **description, "columns": " ".join(runs.column_names)}
        row["methods"] = ", ".join(row["methods"])
        table = pd.DataFrame([*self.descriptions().to_dict("records"), row])
        storage.write_text(self.folder / "batches.csv", table.to_csv(index=False))

    def unpack(self, names: list[str], out: Path) -> list[Path]:
        """The batches `names` as results folders `out/<name>` (runs.parquet, timings.parquet,
        costs/*.npz), as they ran but for the feature names."""
        columns = self.descriptions().set_index("batch")["columns"]
        tables = {kind: self._read(kind) for kind in self.FILES}
        folders = []
        for name in names:
            folder = out / name
            rows = {
                kind: table.filter(pc.equal(table["batch"], name)).drop_columns(["batch"])
                for kind, table in tables.items()
            }
            # The columns the batch's own runs table had, each of its own type again: the
            # store's union of every batch's columns made a column one batch lacks nullable.
            runs = rows["runs"].select(columns[name].split()).to_pandas()
            storage.write_table(folder / "runs.parquet", runs)
            storage.write_table(folder / "timings.parquet", rows["timings"].to_pandas())
            for problem, npz in zip(
                rows["costs"]["problem"].to_pylist(), rows["costs"]["npz"].to_pylist(), strict=True
            ):
                storage.write_bytes(folder / "costs" / f"{problem}.npz", npz)
            folders.append(folder)
        return folders


DROPPED_COLUMNS = ("feature_names",)
"""Columns a batch's committed runs table leaves out: the names follow from `features` and
the data set's columns, and are most of the table's bytes."""


SENSITIVITY_SETTINGS = ["C", "D"]
SECOND_SEED = 20240608
FS_TREES = 500
STS_DEPTHS = [1, 2, 3, 4, 5, 6, 7]
"""The base ensemble of the `sts-depth` variant: deep enough for the largest budget of C and D
(30: the 127 cheapest features cost less), each budget held to its `budget_depth`."""
REPLACED_METHOD = {"fs-trees": "fs", "sts-depth": "sts"}
"""The variants that rerun one paper method: compared with the main study's other methods."""


def sensitivity_config(config: dict, sensitivity: str) -> dict:
    """The variant `sensitivity` of the study `config` on settings C and D only: "seed" draws
    the simulation anew from another study seed; "fs-trees" grows forward selection's internal
    forests at the paper's 500 trees, forward selection alone; "sts-depth" runs STS alone with
    a budget-dependent depth bound (`STS_DEPTHS`)."""
    config["simulation"]["settings"] = SENSITIVITY_SETTINGS
    config["real_data"]["datasets"] = {}
    if sensitivity == "seed":
        config["seed"] = SECOND_SEED
    elif sensitivity == "fs-trees":
        config["methods"] = {"fs": {**config["methods"]["fs"], "n_trees": FS_TREES}}
    elif sensitivity == "sts-depth":
        sts = {**config["methods"]["sts"], "depths": STS_DEPTHS, "depth_bound": "budget"}
        config["methods"] = {"sts": sts}
    else:
        raise ValueError(f"unknown sensitivity variant {sensitivity!r}")
    return config


def batch_config(
    source: Path, methods: str, first_rep: int, n_rep: int, sensitivity: str | None = None
) -> dict:
    """The study `source` with replicates first_rep..first_rep + n_rep - 1 and only the paper's
    entries (`methods` "paper") or only the others ("related"), or its `sensitivity` variant
    (`sensitivity_config`)."""
    config = yaml.safe_load(source.read_text())
    config["first_rep"] = first_rep
    config["n_rep"] = n_rep
    config["real_data"]["data_dir"] = str(CHECKOUT / "data")
    config["methods"] = {
        name: settings
        for name, settings in config["methods"].items()
        if (name in PAPER_METHODS) == (methods == "paper")
    }
    return sensitivity_config(config, sensitivity) if sensitivity else config


SENSITIVITY_TABLES = (
    "per_setting",
    "xi_curves",
    "method_differences",
    "tuning_by_setting",
    "tuned_against_curves",
)
"""The findings tables the verdicts of settings C and D read: those of a sensitivity analysis
are committed under reproduction/tables/sensitivity/<variant>/, with its verdicts."""


def read_tables(names=COMMITTED) -> dict[str, pd.DataFrame]:
    return {name: pd.read_csv(TABLE_DIR / f"{name}.csv") for name in names}


def simulation_design(workdir: Path) -> dict:
    """The simulation's design arrays (mu, Sigma) of the reproduction's seed, and the problems
    table, from the workflow's own rules (one replicate: they need the data and costs only)."""
    config = yaml.safe_load(CONFIG.read_text())
    config["n_rep"] = 1
    config["real_data"]["data_dir"] = str(CHECKOUT / "data")
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "assembly.yaml").write_text(yaml.safe_dump(config))
    targets = ["results/design/simulation.npz", "results/findings/problems.csv"]
    run_checkout_workflow(
        CHECKOUT, workdir, workdir / "assembly.yaml", "--quiet", "rules", "--", *targets
    )
    return storage.read_arrays(workdir / "results" / "design" / "simulation.npz")


def strategies() -> list[str]:
    return yaml.safe_load(CONFIG.read_text())["strategies"]


def train_fraction() -> float:
    """The real data's training fraction: the batches' runs predate their held-out share, so
    the assembly sets it (`aggregation.HELD_OUT_SHARE`)."""
    return float(yaml.safe_load(CONFIG.read_text())["real_data"]["train_fraction"])


def findings_tables(results: Path, design: dict | None, names) -> dict[str, pd.DataFrame]:
    """The findings tables `names` of a combined study (`combine_batches`) in `results`."""
    runs = storage.read_table(results / "runs.parquet")
    chosen = aggregation.choose_strategies(runs, strategies())
    timings_path = results / "timings.parquet"
    timings = storage.read_table(timings_path) if timings_path.exists() else pd.DataFrame()
    context = {
        "runs": runs,
        "common_methods": list(XI_METHODS),
        "n_rep": runs.groupby("method")["rep"].nunique().to_dict(),
        "design": design,
    }
    return {name: findings.TABLES[name](chosen, timings, context) for name in names}


def restricted(runs: pd.DataFrame, costs: Path, out: Path, problems, reps, methods=None) -> Path:
    """The runs of `problems`, replicates `reps` (and `methods`) with their costs (from the
    folder `costs`) as one combined study in `out`."""
    keep = runs["problem"].isin(problems) & runs["rep"].isin(reps)
    if methods is not None:
        keep &= runs["method"].isin(methods)
    (out / "costs").mkdir(parents=True, exist_ok=True)
    for problem in problems:
        source = costs / f"{problem}.npz"
        (out / "costs" / source.name).write_bytes(source.read_bytes())
    storage.write_table(out / "runs.parquet", runs[keep].reset_index(drop=True))
    return out


def sensitivity(
    store: "BatchStore", workdir: Path, main_runs: pd.DataFrame, main_costs: Path
) -> pd.DataFrame:
    """Per sensitivity variant with committed batches: its findings and verdicts on settings C
    and D, and the main study's (`main_runs`, costs in `main_costs`), both on the replicates
    both have (and, for `fs-trees`, with forward selection's runs of the variant in place of
    the main study's), side by side in reproduction/tables/sensitivity.csv. Returns per variant
    the compute its batches took (`reproduction_doc.compute`)."""
    comparisons, compute_rows = [], []
    for variant in SENSITIVITY_NAMES:
        folders = store.unpack(store.names(variant), workdir / "batches")
        if not folders:
            continue
        out = workdir / f"sensitivity-{variant}"
        combine(folders, strategies(), out / "union", check=False, train_fraction=train_fraction())
        union = storage.read_table(out / "union" / "runs.parquet")
        reps = sorted(union["rep"].unique())
        costs = findings.stage_costs(
            storage.read_table(out / "union" / "timings.parquet"), len(reps)
        )
        compute_rows.append(
            {
                "variant": variant,
                "job_hours": costs["wall_hours"].sum(),
                "cpu_hours": costs["cpu_hours"].sum(),
                "job_hours_per_rep": costs["wall_hours_per_rep"].sum(),
            }
        )
        # Judged on the replicates where the main study has the variant's methods too, so that
        # a change is the variant's, not that of more replicates on one side.
        ran_too = main_runs["method"].isin(union["method"].unique())
        n_run, reps = len(reps), sorted(set(reps) & set(main_runs.loc[ran_too, "rep"]))
        variant_runs = restricted(union, folders[0] / "costs", out / "variant", ["C", "D"], reps)
        if variant in REPLACED_METHOD:
            # The main study's other methods on the same replicates, the variant's replaced.
            kept = sorted(PAPER_METHODS - {REPLACED_METHOD[variant]})
            others = restricted(main_runs, main_costs, out / "others", ["C", "D"], reps, kept)
            combine(
                [others, variant_runs],
                strategies(),
                out / "with",
                check=False,
                train_fraction=train_fraction(),
            )
            variant_runs = out / "with"
        baseline = restricted(main_runs, main_costs, out / "main", ["C", "D"], reps)
        tables = {}
        for name, folder in (("variant", variant_runs), ("main", baseline)):
            tables[name] = findings_tables(folder, None, SENSITIVITY_TABLES)
        folder = SENSITIVITY_DIR / variant
        folder.mkdir(parents=True, exist_ok=True)
        for name, table in tables["variant"].items():
            table.to_csv(folder / f"{name}.csv", index=False, float_format="%.5g")
        judged = {name: verdicts(of) for name, of in tables.items()}
        judged["variant"].to_csv(folder / "verdicts.csv", index=False)
        both = judged["main"].merge(
            judged["variant"], on=["finding", "claim", "problems", "rule"], suffixes=("", "_v")
        )
        both = both[(both["verdict"] != "not run") & (both["verdict_v"] != "not run")]
        comparisons.append(
            pd.DataFrame(
                {
                    "variant": variant,
                    "n_reps": len(reps),
                    "n_run": n_run,
                    "finding": both["finding"],
                    "claim": both["claim"],
                    "problems": both["problems"],
                    "rule": both["rule"],
                    "main_verdict": both["verdict"],
                    "variant_verdict": both["verdict_v"],
                    "changed": both["verdict"] != both["verdict_v"],
                }
            )
        )
    columns = ["variant", "n_reps", "n_run", "finding", "claim", "problems", "rule", "main_verdict"]
    columns += ["variant_verdict", "changed"]
    table = pd.concat(comparisons, ignore_index=True) if comparisons else pd.DataFrame()
    table.reindex(columns=columns).to_csv(TABLE_DIR / "sensitivity.csv", index=False)
    columns = ["variant", "job_hours", "cpu_hours", "job_hours_per_rep"]
    return pd.DataFrame(compute_rows, columns=columns)


def benchmark(per_setting: pd.DataFrame) -> None:
    """The benchmark statistics over the real data sets (`benchmark_statistics`) into
    reproduction/tables/, and the paper's entries' critical-difference diagram beside the
    page."""
    for name, table in benchmark_statistics(per_setting).items():
        table.to_csv(TABLE_DIR / f"{name}.csv", index=False, float_format="%.5g")
    blocks_by_level = comparisons.level_blocks(benchmark_entries(per_setting, "paper"), "mean")
    figure = plots.critical_difference_levels_figure(
        blocks_by_level, BENCHMARK_FAMILIES["paper"].capitalize()
    )
    storage.write_figure(CRITICAL_DIFFERENCE, figure)


def assemble(workdir: Path) -> None:
    """Computes the committed tables from the batch store (see the module's docstring)."""
    store = BatchStore(BATCH_STORE)
    main = store.unpack(store.names(), workdir / "batches")
    if not main:
        raise DataError(f"no batches in {BATCH_STORE}")
    results = workdir / "results"
    # The store's batches predate provenance records; batches.csv names each one's config and
    # commit instead, and the costs are compared byte for byte.
    combine(main, strategies(), results, check=False, train_fraction=train_fraction())
    design = simulation_design(workdir)
    names = [name for name in TABLES if name != "problems"]
    for name, table in findings_tables(results, design, names).items():
        table.to_csv(TABLE_DIR / f"{name}.csv", index=False, float_format="%.5g")
    problems = pd.read_csv(results / "findings" / "problems.csv")
    problems.to_csv(TABLE_DIR / "problems.csv", index=False, float_format="%.5g")
    # The paper's xi curves only: the other methods' would double the committed size.
    curves = pd.read_csv(TABLE_DIR / "xi_curves.csv")
    curves = curves[curves["method"].isin(XI_METHODS)]
    curves.to_csv(TABLE_DIR / "xi_curves.csv", index=False, float_format="%.5g")
    benchmark(read_tables(["per_setting"])["per_setting"])
    counts(read_tables(TABLES)).to_csv(TABLE_DIR / "counts.csv", index=False)
    verdicts(read_tables(TABLES)).to_csv(TABLE_DIR / "verdicts.csv", index=False)
    sensitivity_runs = sensitivity(
        store, workdir, storage.read_table(results / "runs.parquet"), main[0] / "costs"
    )
    compute(read_tables(TABLES), sensitivity_runs).to_csv(TABLE_DIR / "compute.csv", index=False)
    every_batch = store.names() + [
        name for variant in SENSITIVITY_NAMES for name in store.names(variant)
    ]
    table = store.descriptions().set_index("batch").loc[every_batch].reset_index()
    columns = ["batch", "sensitivity", "methods", "first_rep", "last_rep", "commit"]
    table[columns].to_csv(TABLE_DIR / "batches.csv", index=False)


def run_batch(args) -> None:
    last_rep = args.first_rep + args.n_rep - 1
    name = f"{args.methods}-reps-{args.first_rep}-{last_rep}"
    if args.sensitivity:
        name = f"{args.sensitivity}-{name}"
    store = BatchStore(args.store)
    if name in store.descriptions()["batch"].tolist():
        raise DataError(f"{args.store} already holds a batch {name}")
    args.workdir.mkdir(parents=True, exist_ok=True)
    config = batch_config(args.config, args.methods, args.first_rep, args.n_rep, args.sensitivity)
    config_file = args.workdir / "batch.yaml"
    config_file.write_text(yaml.safe_dump(config))
    with open(args.workdir / "batch.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise DataError(
                f"another batch runs in {args.workdir}; wait for it or stop it"
            ) from None
        # No other batch runs here, so a Snakemake lock left by a killed run is stale.
        run_checkout_workflow(CHECKOUT, args.workdir, config_file, "--unlock", cores=args.cores)
        run_checkout_workflow(
            CHECKOUT,
            args.workdir,
            config_file,
            "--rerun-incomplete",
            "results/runs.parquet",
            cores=args.cores,
        )
    store.add(
        name,
        args.workdir / "results",
        {
            "methods": sorted(config["methods"]),
            "sensitivity": args.sensitivity,
            "first_rep": args.first_rep,
            "last_rep": last_rep,
            "config": str(args.config.name),
            "commit": args.commit,
        },
    )
    print(f"batch {name}: added to {args.store}")


def update_doc(_args=None) -> None:
    text = DOCUMENT.read_text()
    for name, block in blocks(read_tables()).items():
        text = replace_block(text, name, block, ("<!--", "-->"))
    storage.write_text(DOCUMENT, text)
    print(f"updated {DOCUMENT.relative_to(CHECKOUT)}")


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m costfs.cli.reproduction", description=__doc__.split("\n\n")[0]
    )
    commands = parser.add_subparsers(dest="command", required=True)
    batch = commands.add_parser("run-batch", help="run a batch of replicates into the store")
    batch.set_defaults(function=run_batch)
    batch.add_argument("--methods", choices=["paper", "related"], required=True)
    batch.add_argument("--first-rep", type=int, required=True)
    batch.add_argument("--n-rep", type=int, required=True)
    batch.add_argument("--workdir", type=Path, required=True)
    batch.add_argument("--sensitivity", choices=list(SENSITIVITY_NAMES))
    batch.add_argument("--cores", default="2")
    batch.add_argument("--config", type=Path, default=CONFIG)
    batch.add_argument(
        "--store", type=Path, default=BATCH_STORE, help="the batch store (default: %(default)s)"
    )
    batch.add_argument("--commit", help="the project commit the checkout is a copy of")
    tables = commands.add_parser("assemble", help="compute the tables from the batch store")
    tables.set_defaults(function=lambda args: (assemble(args.workdir), update_doc()))
    tables.add_argument("workdir", type=Path, help="a working folder for the unpacked batches")
    doc = commands.add_parser("update-doc", help="rewrite docs/reproduction.md's tables")
    doc.set_defaults(function=update_doc)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        args.function(args)
    except DataError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
