"""Rewrites the generated tables of docs/reproduction.md (`reproduction_doc`) from the tables
committed under docs/reproduction/. With --assemble, first computes those tables from the
committed batches of the reproduction (docs/reproduction/batches/, `run_reproduction_batch.py`):
their union's findings tables, the counts, the verdicts (`reproduction_verdicts`), and the
sensitivity analyses' verdicts against the main study's on the same settings and replicates.

    .venv/bin/python scripts/update_reproduction_doc.py --assemble ../assembly
"""

import argparse
import json
import sys
from pathlib import Path

import pandas as pd
import yaml
from checkout_workflow import REPO, run_workflow
from combine_batches import combine
from method_docs import replace_block
from reproduction_doc import (
    COMMITTED,
    SENSITIVITY_NAMES,
    TABLES,
    XI_METHODS,
    blocks,
    compute,
    counts,
)
from reproduction_verdicts import verdicts

from costfs.cli import storage
from costfs.study import aggregation, findings

TABLE_DIR = REPO / "docs" / "reproduction"
BATCH_DIR = TABLE_DIR / "batches"
SENSITIVITY_DIR = TABLE_DIR / "sensitivity"
DOCUMENT = REPO / "docs" / "reproduction.md"
CONFIG = REPO / "config" / "reproduction.yaml"

SENSITIVITY_TABLES = (
    "per_setting",
    "xi_curves",
    "method_differences",
    "tuning_by_setting",
    "tuned_against_curves",
)
"""The findings tables the verdicts of settings C and D read: those of a sensitivity analysis
are committed under docs/reproduction/sensitivity/<variant>/, with its verdicts."""


def read_tables(names=COMMITTED) -> dict[str, pd.DataFrame]:
    return {name: pd.read_csv(TABLE_DIR / f"{name}.csv") for name in names}


def batches(variant: str | None = None) -> list[Path]:
    """The committed batches of the main study (`variant` None) or of a sensitivity variant."""
    found = []
    for path in sorted(BATCH_DIR.glob("*/batch.json")):
        if json.loads(path.read_text()).get("sensitivity") == variant:
            found.append(path.parent)
    return found


def simulation_design(workdir: Path) -> dict:
    """The simulation's design arrays (mu, Sigma) of the reproduction's seed, and the problems
    table, from the workflow's own rules (one replicate: they need the data and costs only)."""
    config = yaml.safe_load(CONFIG.read_text())
    config["n_rep"] = 1
    config["real_data"]["data_dir"] = str(REPO / "data")
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "assembly.yaml").write_text(yaml.safe_dump(config))
    targets = ["results/design/simulation.npz", "results/findings/problems.csv"]
    run_workflow(workdir, workdir / "assembly.yaml", "--quiet", "rules", "--", *targets)
    return storage.read_arrays(workdir / "results" / "design" / "simulation.npz")


def strategies() -> list[str]:
    return yaml.safe_load(CONFIG.read_text())["strategies"]


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


def sensitivity(workdir: Path, main_runs: pd.DataFrame, main_costs: Path) -> pd.DataFrame:
    """Per sensitivity variant with committed batches: its findings and verdicts on settings C
    and D, and the main study's (`main_runs`, costs in `main_costs`), both on the replicates
    both have (and, for `fs-trees`, with forward selection's runs of the variant in place of
    the main study's), side by side in docs/reproduction/sensitivity.csv. Returns per variant
    the compute its batches took (`reproduction_doc.compute`)."""
    comparisons, compute_rows = [], []
    for variant in SENSITIVITY_NAMES:
        folders = batches(variant)
        if not folders:
            continue
        out = workdir / f"sensitivity-{variant}"
        combine(folders, strategies(), out / "union")
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
        if variant == "fs-trees":
            # The main study's other methods on the same replicates, its FS replaced.
            others = restricted(
                main_runs, main_costs, out / "others", ["C", "D"], reps, list(XI_METHODS)
            )
            combine([others, variant_runs], strategies(), out / "with")
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


def assemble(workdir: Path) -> None:
    main = batches()
    if not main:
        sys.exit(f"no batches under {BATCH_DIR.relative_to(REPO)}")
    results = workdir / "results"
    combine(main, strategies(), results)
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
    counts(read_tables(TABLES)).to_csv(TABLE_DIR / "counts.csv", index=False)
    verdicts(read_tables(TABLES)).to_csv(TABLE_DIR / "verdicts.csv", index=False)
    sensitivity_runs = sensitivity(
        workdir, storage.read_table(results / "runs.parquet"), main[0] / "costs"
    )
    compute(read_tables(TABLES), sensitivity_runs).to_csv(TABLE_DIR / "compute.csv", index=False)
    every_batch = main + [folder for variant in SENSITIVITY_NAMES for folder in batches(variant)]
    described = [
        {"batch": folder.name, "sensitivity": None}
        | json.loads((folder / "batch.json").read_text())
        for folder in every_batch
    ]
    table = pd.DataFrame(described)
    table["methods"] = [", ".join(methods) for methods in table["methods"]]
    columns = ["batch", "sensitivity", "methods", "first_rep", "last_rep", "commit"]
    table[columns].to_csv(TABLE_DIR / "batches.csv", index=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--assemble",
        type=Path,
        metavar="WORKDIR",
        help="first compute the tables from the committed batches, working in WORKDIR",
    )
    args = parser.parse_args()
    if args.assemble:
        assemble(args.assemble)
    text = DOCUMENT.read_text()
    for name, block in blocks(read_tables()).items():
        text = replace_block(text, name, block, ("<!--", "-->"))
    DOCUMENT.write_text(text)
    print(f"updated {DOCUMENT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
