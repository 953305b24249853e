"""What one replicate of the reproduction study costs: job-hours per rule and method.

Runs config/reproduction.yaml with one replicate and every method on every problem (its
`problems` limits removed: BudgetRF on ada and spambase, FeatBoost on spambase put back) in a
fresh working directory, with the workflow and package of this checkout, and copies the
study's `results/findings/stage_costs.csv` (wall and CPU hours per rule x method, from
Snakemake's benchmarks) to --out, with the threads each rule x method's jobs had (the
workflow's, lowered to --cores), from which the projection counts core-hours. Run it at two
commits on one machine to compare them:

    .venv/bin/python benchmarks/benchmark_replicate.py --workdir /tmp/replicate --out before.csv
    .venv/bin/python benchmarks/benchmark_replicate.py --compare before.csv after.csv

`--compare` prints the job-hours per rule x method of both and their ratio, as Markdown.
`--config` measures another study the same way; `--methods` keeps some of its methods and
`--set` changes a key, e.g. the paper's entries at the paper's scale:

    .venv/bin/python benchmarks/benchmark_replicate.py --config config/paper.yaml \
        --methods auc pfi sts fs --set 'methods.fs.xi_grid=[0, 1]' --workdir ... --out ...
"""

import argparse
import os
import shutil
import time
from pathlib import Path

import pandas as pd
import yaml

from costfs.cli.run_snakemake import run_checkout_workflow
from costfs.study.plan import replicates_per_job, workflow_threads

REPO = Path(__file__).resolve().parents[1]
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"


def replicate_config(
    source: Path, settings=None, datasets=None, cost_vectors=None, methods=None, overrides=()
) -> dict:
    """One replicate of the study `source`, every method on every problem, or on the given
    simulated `settings` and real `datasets` only (None: all of the config's), with at most
    `cost_vectors` cost vectors per real data set (None: the config's), only the config's
    `methods` (None: all), and each `overrides` (dotted key, value) set."""
    config = yaml.safe_load(source.read_text())
    config["n_rep"] = 1
    if methods is not None:
        unknown = sorted(set(methods) - set(config["methods"]))
        if unknown:
            raise SystemExit(f"{source} has no methods {unknown}")
        config["methods"] = {name: config["methods"][name] for name in methods}
    for key, value in overrides:
        *parents, leaf = key.split(".")
        section = config
        for parent in parents:
            section = section.setdefault(parent, {})
        section[leaf] = value
    if settings is not None:
        config["simulation"]["settings"] = settings
    if datasets is not None:
        kept = config["real_data"]["datasets"]
        config["real_data"]["datasets"] = {name: kept[name] for name in datasets}
    if cost_vectors is not None:
        for dataset in config["real_data"]["datasets"].values():
            if dataset.get("n_cost_vectors", 1) > cost_vectors:
                dataset["n_cost_vectors"] = cost_vectors
    config["real_data"]["data_dir"] = str(REPO / "data")
    for settings in config["methods"].values():
        settings.pop("problems", None)
    return config


def comparison(before: pd.DataFrame, after: pd.DataFrame) -> str:
    """Job-hours per rule x method before and after, and after / before, as Markdown."""
    keys = ["rule", "method"]
    both = before.merge(after, on=keys, how="outer", suffixes=("_before", "_after")).fillna(0)
    both = both.sort_values("wall_hours_before", ascending=False)
    lines = [
        "| rule | method | job-hours before | after | after / before | longest job (s) "
        "before | after |",
        "|---|---|---|---|---|---|---|",
    ]
    rows = [*both.itertuples(), None]
    for row in rows:
        if row is None:
            label = ("**all**", "")
            hours = (both["wall_hours_before"].sum(), both["wall_hours_after"].sum())
            longest = (both["max_job_seconds_before"].max(), both["max_job_seconds_after"].max())
        else:
            label = (row.rule, row.method)
            hours = (row.wall_hours_before, row.wall_hours_after)
            longest = (row.max_job_seconds_before, row.max_job_seconds_after)
        ratio = f"{hours[1] / hours[0]:.2f}" if hours[0] else ""
        lines.append(
            f"| {label[0]} | {label[1]} | {hours[0]:.4f} | {hours[1]:.4f} | {ratio} | "
            f"{longest[0]:.0f} | {longest[1]:.0f} |"
        )
    return "\n".join(lines)


PER_PROBLEM_RULES = ("select_features", "evaluate_selection")
"""The rules whose jobs are per problem (a preparation is per data set, shared by its
problems)."""


def job_threads(table: pd.DataFrame, cores: int) -> list[int]:
    """The cores each rule x method row's jobs held on `cores` cores: the workflow's threads,
    which Snakemake lowers to --cores."""
    return [
        min(workflow_threads(rule, method), cores)
        for rule, method in zip(table["rule"], table["method"], strict=True)
    ]


def projection(measured: list[Path], repeats: dict[str, int]) -> pd.DataFrame:
    """Job-hours per replicate by rule and method: the sum of the `measured` stage-cost tables
    (one replicate of some problems each), plus, for a table named in `repeats` (by file
    stem), its per-problem rules that many more times (problems measured by a stand-in, e.g.
    setting B by A: the same data, other costs)."""
    tables = []
    for path in measured:
        table = pd.read_csv(path)
        if "threads" not in table:
            # Measured before the tables recorded threads, on two cores.
            table["threads"] = job_threads(table, cores=2)
        tables.append(table)
        extra = table[table["rule"].isin(PER_PROBLEM_RULES)]
        tables += [extra] * repeats.get(path.stem, 0)
    every = pd.concat(tables, ignore_index=True)
    every["core_hours"] = every["wall_hours"] * every["threads"]
    table = every.groupby(["rule", "method"], as_index=False).agg(
        jobs=("jobs", "sum"),
        wall_hours=("wall_hours", "sum"),
        core_hours=("core_hours", "sum"),
        cpu_hours=("cpu_hours", "sum"),
        max_job_seconds=("max_job_seconds", "max"),
    )
    return table.sort_values("wall_hours", ascending=False)


def elapsed_hours(table: pd.DataFrame, n_rep: int, cores: int, blocks: dict[str, int]) -> float:
    """Elapsed hours of `n_rep` replicates on `cores` cores at best: the core-hours spread
    evenly, but never less than the longest job (a method's selection job selects
    `blocks[method]` replicates and an evaluation job evaluates them, at their longest
    replicate's time)."""
    per_rep = table["max_job_seconds"] / 3600
    blocked = table["rule"].isin(["select_features", "evaluate_selection"])
    block = table["method"].map(blocks).clip(upper=n_rep)
    longest = (per_rep * block)[blocked].max()
    return max(table["core_hours"].sum() * n_rep / cores, longest)


def block_sizes(config: dict, default: int | None) -> dict[str, int]:
    """Each method's replicates per selection job (`costfs.study.plan.replicates_per_job`),
    with `default` (--block), else the config's or the schema's `selection_replicates_per_job`
    for the methods without their own."""
    schema = yaml.safe_load(SCHEMA.read_text())["properties"]["selection_replicates_per_job"]
    filled = {
        "selection_replicates_per_job": default
        or config.get("selection_replicates_per_job", schema["default"]),
        "methods": {method: settings or {} for method, settings in config["methods"].items()},
    }
    return {method: replicates_per_job(filled, method) for method in filled["methods"]}


def setting(text: str) -> tuple[str, str]:
    """KEY and YAML of a --set KEY=YAML."""
    key, separator, value = text.partition("=")
    if not separator or not key:
        raise SystemExit(f"--set takes KEY=YAML, not {text!r}")
    return key, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--cores", default="2")
    parser.add_argument("--config", type=Path, default=REPO / "config" / "reproduction.yaml")
    parser.add_argument("--settings", nargs="*", help="simulated settings to run (default: all)")
    parser.add_argument("--datasets", nargs="*", help="real data sets to run (default: all)")
    parser.add_argument(
        "--cost-vectors", type=int, help="at most this many cost vectors per real data set"
    )
    parser.add_argument("--methods", nargs="+", help="the config's methods to run (default: all)")
    parser.add_argument(
        "--set",
        nargs="+",
        default=[],
        metavar="KEY=YAML",
        help="set a config key (dotted, e.g. methods.fs.xi_grid='[0, 1]') to a YAML value",
    )
    parser.add_argument(
        "--project",
        nargs="+",
        type=Path,
        metavar="TABLE",
        help="sum these stage-cost tables (--out of runs on some problems) per rule x method",
    )
    parser.add_argument(
        "--block",
        type=int,
        help="with --project: replicates per selection job of a method without its own "
        "replicates_per_job (default: the config's selection_replicates_per_job, else 10)",
    )
    parser.add_argument(
        "--repeat",
        nargs="*",
        default=[],
        metavar="STEM=N",
        help="with --project: add the selections and evaluations of table STEM N more times",
    )
    args = parser.parse_args()
    if args.compare:
        print(comparison(*(pd.read_csv(path) for path in args.compare)))
        return
    if args.project:
        repeats = {stem: int(n) for stem, n in (item.split("=") for item in args.repeat)}
        table = projection(args.project, repeats)
        print(table.to_markdown(index=False, floatfmt=".4f"))
        print(
            f"\nper replicate: {table['wall_hours'].sum():.3f} job-hours, "
            f"{table['core_hours'].sum():.3f} core-hours, {table['cpu_hours'].sum():.3f} "
            f"CPU-hours (sampled: a lower bound), {int(table['jobs'].sum())} jobs"
        )
        study = yaml.safe_load(args.config.read_text())
        n_rep = study["n_rep"]
        print(f"{n_rep} replicates: {table['wall_hours'].sum() * n_rep:.0f} job-hours")
        for cores in (16, 128):
            hours = elapsed_hours(table, n_rep, cores, block_sizes(study, args.block))
            print(f"on {cores} cores: at least {hours:.1f} h elapsed")
        return
    if args.workdir is None or args.out is None:
        parser.error("--workdir and --out are needed to run a replicate")
    if args.cores != "all" and not args.cores.isdigit():
        parser.error(f"--cores takes a number of cores or all, not {args.cores!r}")
    cores = os.cpu_count() if args.cores == "all" else int(args.cores)
    config = replicate_config(
        args.config,
        args.settings,
        args.datasets,
        args.cost_vectors,
        args.methods,
        [(key, yaml.safe_load(value)) for key, value in map(setting, args.set)],
    )
    if args.workdir.exists():
        shutil.rmtree(args.workdir)
    args.workdir.mkdir(parents=True)
    config_file = args.workdir / "replicate.yaml"
    config_file.write_text(yaml.safe_dump(config))
    started = time.perf_counter()
    run_checkout_workflow(REPO, args.workdir, config_file, cores=args.cores)
    elapsed = time.perf_counter() - started
    costs = pd.read_csv(args.workdir / "results" / "findings" / "stage_costs.csv")
    costs["threads"] = job_threads(costs, cores)
    costs.to_csv(args.out, index=False)
    print(
        f"one replicate: {costs['wall_hours'].sum():.3f} job-hours, "
        f"{costs['cpu_hours'].sum():.3f} CPU-hours (sampled: a lower bound), "
        f"{elapsed / 3600:.3f} h elapsed on {args.cores} cores"
    )


if __name__ == "__main__":
    main()
