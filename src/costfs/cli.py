"""Command-line entry points the workflow rules call: read files, call the package, write files.

Every subcommand logs to stderr (the rule redirects it to its log file) and writes its outputs
atomically.
"""

import argparse
import json
import logging
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from costfs import aggregation, evaluation, findings, realdata, simulate, storage
from costfs.forest import resolve_engine
from costfs.methods import load_method
from costfs.seeds import derive_rng, derive_seed
from costfs.validation import DataError

log = logging.getLogger("costfs")


def _json(text: str):
    return json.loads(text)


def simulate_design(args) -> None:
    design = simulate.draw_design(derive_rng(args.study_seed, "design"), **args.simulation)
    storage.write_arrays(args.out, design)
    log.info("drew mu, Sigma and both cost vectors for p=%d", design["mu"].size)


def simulate_data(args) -> None:
    design = storage.read_arrays(args.design)
    sigma = design["sigma_correlated"] if args.data_type == "correlated" else None
    rng = derive_rng(args.study_seed, "simulate", args.data_type, args.part)
    X, y = simulate.draw_samples(rng, args.n_rows, design["mu"], sigma)
    names = np.array(simulate.feature_names(X.shape[1]))
    storage.write_arrays(args.out, {"X": X, "y": y.astype(np.int8), "feature_names": names})
    log.info("%s data, %s: %d rows x %d features", args.data_type, args.part, *X.shape)


def _read_source_table(name: str, source: dict, data_dir: str | None):
    """The data set as a table, where it came from, its target column and positive class.

    Sources in order: `<data_dir>/<name>.csv(.gz)`, a scikit-learn loader, OpenML by id
    (cached under `openml_cache`).
    """
    if data_dir:
        directory = Path(data_dir)
        if not directory.is_dir():
            raise DataError(f"data_dir {str(directory)!r} does not exist or is not a directory")
        for candidate in (directory / f"{name}.csv.gz", directory / f"{name}.csv"):
            if candidate.exists():
                return (
                    pd.read_csv(candidate),
                    str(candidate),
                    source.get("target", "target"),
                    source.get("positive_class", 1),
                )
    if source.get("sklearn_loader"):
        import sklearn.datasets

        bunch = getattr(sklearn.datasets, source["sklearn_loader"])(as_frame=True)
        return (
            bunch.frame,
            f"sklearn.datasets.{source['sklearn_loader']}",
            "target",
            source["sklearn_positive_class"],
        )
    if source.get("openml_id"):
        from sklearn.datasets import fetch_openml

        try:
            bunch = fetch_openml(
                data_id=source["openml_id"], as_frame=True, data_home=source.get("openml_cache")
            )
        except Exception as error:
            raise DataError(
                f"data set {name!r}: not found in data_dir {data_dir!r} and OpenML id "
                f"{source['openml_id']} could not be fetched ({error})"
            ) from error
        return (
            bunch.frame,
            f"OpenML {source['openml_id']}",
            source["source_target"],
            source["source_positive_class"],
        )
    raise DataError(
        f"data set {name!r}: no {name}.csv(.gz) in data_dir {data_dir!r} and no other source"
    )


def load_dataset(args) -> None:
    frame, origin, target, positive = _read_source_table(args.name, args.source, args.data_dir)
    X, y, names = realdata.table_to_arrays(frame, target, positive, origin)
    for note in realdata.degenerate_columns(X, names):
        log.warning("%s: %s (kept as a feature)", origin, note)
    storage.write_arrays(args.out, {"X": X, "y": y, "feature_names": np.array(names)})
    log.info(
        "%s from %s: %d rows x %d features, P(y=1)=%.4f", args.name, origin, *X.shape, y.mean()
    )


def split_data(args) -> None:
    data = storage.read_arrays(args.dataset)
    rng = derive_rng(args.study_seed, "split", args.name, args.rep)
    train, test = realdata.split_indices(rng, data["y"].size, args.train_fraction)
    realdata.check_training_classes(data["y"][train], f"split {args.name} rep {args.rep}")
    for rows, out in ((train, args.out_train), (test, args.out_test)):
        storage.write_arrays(
            out,
            {"X": data["X"][rows], "y": data["y"][rows], "feature_names": data["feature_names"]},
        )
    log.info("split %s rep %s: %d train / %d test rows", args.name, args.rep, train.size, test.size)


def draw_costs(args) -> None:
    if args.design:
        costs = storage.read_arrays(args.design)[f"costs_{args.cost_type}"]
    else:
        n_features = storage.read_arrays(args.dataset)["X"].shape[1]
        rng = derive_rng(args.study_seed, "costs", args.problem)
        costs = realdata.uniform_costs(rng, n_features, *args.cost_range)
    storage.write_arrays(args.out, {"costs": costs})
    log.info("costs of %s: %d features, total %.3f", args.problem, costs.size, costs.sum())


def prepare(args) -> None:
    method = load_method(args.method)
    data = storage.read_arrays(args.data)
    started = time.perf_counter()
    prepared = method.prepare(
        data["X"],
        data["y"],
        seed=derive_seed(args.study_seed, "prepare", args.method, args.dataset, args.rep),
        n_jobs=args.threads,
        **args.params,
    )
    storage.write_arrays(args.out, prepared)
    log.info(
        "prepared %s on %s rep %s in %.2f s",
        args.method,
        args.dataset,
        args.rep,
        time.perf_counter() - started,
    )


def select(args) -> None:
    method = load_method(args.method)
    data = storage.read_arrays(args.data)
    costs = storage.read_arrays(args.costs)["costs"]
    prepared = storage.read_arrays(args.prepared) if args.prepared else None
    started = time.perf_counter()
    # Methods with more to keep than the selections (BudgetRF's forests, msB's schedule) give
    # it as arrays through `select_with_artifacts`.
    select_function = getattr(method, "select_with_artifacts", method.select)
    outcome = select_function(
        data["X"],
        data["y"],
        costs,
        args.budgets,
        args.grid,
        prepared=prepared,
        seed=derive_seed(args.study_seed, "select", args.method, args.dataset, args.rep),
        n_jobs=args.threads,
        **args.params,
    )
    records, artifacts = outcome if select_function is not method.select else (outcome, {})
    storage.write_arrays(args.out_artifacts, artifacts)
    table = pd.DataFrame(records)
    table["features"] = [np.asarray(f, dtype=np.int32).tolist() for f in table["features"]]
    table.insert(0, "hyperparameter", method.HYPERPARAMETER or "")
    storage.write_table(args.out, table)
    log.info(
        "selected %d (%s, budget) sets with %s in %.2f s",
        len(table),
        method.HYPERPARAMETER,
        args.method,
        time.perf_counter() - started,
    )


def evaluate(args) -> None:
    selection = storage.read_table(args.selection)
    train = storage.read_arrays(args.train)
    test = storage.read_arrays(args.test)
    costs = storage.read_arrays(args.costs)["costs"]
    engine = resolve_engine(args.engine)
    sets = [tuple(int(j) for j in features) for features in selection["features"]]
    results = evaluation.evaluate_feature_sets(
        train["X"],
        train["y"],
        test["X"],
        test["y"],
        sets,
        n_trees=args.n_trees,
        seed_parts=(args.study_seed, args.dataset, args.rep),
        n_jobs=args.threads,
        engine=engine,
    )
    log.info(
        "evaluated %d distinct sets of %d selections with %s in %.2f s",
        len(results),
        len(sets),
        engine,
        results["seconds"].sum(),
    )
    if hasattr(method := load_method(args.method), "ensemble_test_metrics"):
        # The method's own model on the test rows (BudgetRF's ensemble), besides the refit.
        metrics = method.ensemble_test_metrics(
            storage.read_arrays(args.artifacts), test["X"], test["y"], costs
        )
        selection = selection.astype({"value": float}).merge(
            metrics, on=["value", "ensemble_trees"], how="left", validate="many_to_one"
        )
    by_set = results.set_index("features")
    runs = selection.assign(
        problem=args.problem,
        kind=args.kind,
        dataset=args.dataset,
        rep=args.rep,
        method=args.method,
        n_selected=[len(s) for s in sets],
        cost=[float(costs[list(s)].sum()) for s in sets],
        oob_mmce=by_set.loc[sets, "oob_mmce"].to_numpy(),
        test_mmce=by_set.loc[sets, "test_mmce"].to_numpy(),
        engine=engine,
    )
    leading = [
        "problem",
        "kind",
        "dataset",
        "rep",
        "method",
        "hyperparameter",
        "hyperparameter_value",
        "budget",
    ]
    runs = runs.rename(columns={"value": "hyperparameter_value"})
    storage.write_table(args.out, runs[leading + [c for c in runs.columns if c not in leading]])


def aggregate(args) -> None:
    runs = pd.concat([storage.read_table(path) for path in args.evaluations], ignore_index=True)
    runs = runs.sort_values(
        ["kind", "problem", "rep", "method", "hyperparameter_value", "budget"], kind="stable"
    ).reset_index(drop=True)
    chosen = aggregation.choose_strategies(runs, args.strategies)
    summary = aggregation.summarise(chosen).merge(
        aggregation.pareto_areas(runs, args.strategies).drop(columns="n_runs"),
        on=["kind", "problem", "method", "strategy"],
        how="left",
    )
    storage.write_table(args.out_runs, runs)
    storage.write_table(args.out_summary, summary)
    timings = (
        pd.concat(
            [
                pd.read_csv(path, sep="\t").assign(job=Path(path).with_suffix("").as_posix())
                for path in args.benchmarks
            ],
            ignore_index=True,
        )
        if args.benchmarks
        else pd.DataFrame()
    )
    storage.write_table(args.out_timings, timings)
    log.info("aggregated %d runs into %d summary rows", len(runs), len(summary))


def tabulate_findings(args) -> None:
    chosen = aggregation.choose_strategies(storage.read_table(args.runs), args.strategies)
    tables = {
        args.out_tuning: findings.tuning_gains(chosen),
        args.out_tuning_by_budget: findings.tuning_gains(chosen, by_budget=True),
        args.out_methods: findings.compare_methods(chosen),
        args.out_methods_by_budget: findings.compare_methods(chosen, by_budget=True),
        args.out_common_methods: findings.compare_methods(chosen, args.common_methods),
        args.out_common_methods_by_budget: findings.compare_methods(
            chosen, args.common_methods, by_budget=True
        ),
        args.out_stage_costs: findings.stage_costs(storage.read_table(args.timings), args.n_rep),
    }
    for path, table in tables.items():
        storage.write_text(path, table.to_csv(index=False, float_format="%.5g"))
    log.info("wrote %d finding tables", len(tables))


def collect_schedules(args) -> None:
    """One table of a schedule method's model schedules (msB's cost-accuracy curves)."""
    method = load_method(args.method)
    tables = [
        method.schedule_from_arrays(storage.read_arrays(path)).assign(problem=problem, rep=int(rep))
        for problem, rep, path in args.schedule
    ]
    schedules = pd.concat(tables, ignore_index=True)
    schedules["features"] = [np.asarray(f, dtype=np.int32).tolist() for f in schedules["features"]]
    storage.write_table(args.out, schedules)
    log.info("collected %d schedules with %d models", len(tables), len(schedules))


def plot_figures(args) -> None:
    # matplotlib and seaborn take a second to import: only this subcommand loads them.
    from costfs import figures

    runs = storage.read_table(args.runs)
    summary = storage.read_table(args.summary)
    simulated = runs[runs["kind"] == "simulated"]
    written = []

    def write(path: Path, figure) -> None:
        storage.write_figure(path, figure, dpi=args.dpi)
        written.append(path)

    if args.out_xi_curves:
        # A directory output: created even when no method has xi, so the rule's output exists.
        directory = Path(args.out_xi_curves)
        directory.mkdir(parents=True, exist_ok=True)
        with_xi = simulated[simulated["hyperparameter"] == "xi"]
        cells = with_xi[["problem", "budget"]].drop_duplicates().sort_values(["problem", "budget"])
        for problem, budget in cells.itertuples(index=False):
            write(
                directory / f"{problem}_budget~{budget:g}.png",
                figures.xi_curve_figure(runs, problem, budget),
            )
    if args.out_method_violins:
        directory = Path(args.out_method_violins)
        directory.mkdir(parents=True, exist_ok=True)
        for problem in sorted(simulated["problem"].unique()):
            write(directory / f"{problem}.png", figures.method_violin_figure(runs, problem))
    if args.out_real_comparison:
        directory = Path(args.out_real_comparison)
        directory.mkdir(parents=True, exist_ok=True)
        for problem in sorted(summary.loc[summary["kind"] == "real", "problem"].unique()):
            write(directory / f"{problem}.png", figures.real_comparison_figure(summary, problem))
    if args.out_mean_ranks:
        write(Path(args.out_mean_ranks), figures.mean_rank_figure(summary))
    if args.out_correlations:
        data = {Path(path).parent.name: storage.read_arrays(path)["X"] for path in args.real_data}
        sigma = storage.read_arrays(args.design)["sigma_correlated"] if args.design else None
        write(Path(args.out_correlations), figures.feature_correlation_figure(data, sigma))
    if args.out_cost_accuracy:
        # A schedule is one replicate's curve: the first replicate's is drawn per problem.
        schedules = {}
        if args.schedules:
            table = storage.read_table(args.schedules)
            first = table[table["rep"] == table["rep"].min()]
            schedules = {problem: rows for problem, rows in first.groupby("problem")}
        write(Path(args.out_cost_accuracy), figures.cost_accuracy_figure(summary, schedules))
    if args.out_table:
        storage.write_text(
            args.out_table,
            "# Results\n\n## Mean test MMCE [95% CI]\n\n"
            + figures.results_table(summary)
            + "\n## Area under the Pareto curve of test MMCE against cost (mean ± SE)\n\n"
            + figures.pareto_area_table(aggregation.pareto_areas(runs)),
        )
    log.info("wrote %d figures", len(written))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="costfs", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name, function, *arguments):
        sub = commands.add_parser(name)
        sub.set_defaults(function=function)
        for flags, options in arguments:
            sub.add_argument(*flags, **options)
        return sub

    seed = (["--study-seed"], {"type": int, "required": True})
    out = (["--out"], {"required": True})
    threads = (["--threads"], {"type": int, "default": 1})
    params = (["--params"], {"type": _json, "default": {}})
    command(
        "simulate-design",
        simulate_design,
        seed,
        out,
        (["--simulation"], {"type": _json, "required": True}),
    )
    command(
        "simulate-data",
        simulate_data,
        seed,
        out,
        (["--design"], {"required": True}),
        (["--data-type"], {"choices": ["independent", "correlated"], "required": True}),
        (["--part"], {"required": True}),
        (["--n-rows"], {"type": int, "required": True}),
    )
    command(
        "load-dataset",
        load_dataset,
        out,
        (["--name"], {"required": True}),
        (["--source"], {"type": _json, "required": True}),
        (["--data-dir"], {}),
    )
    command(
        "split-data",
        split_data,
        seed,
        (["--dataset"], {"required": True}),
        (["--name"], {"required": True}),
        (["--rep"], {"type": int, "required": True}),
        (["--train-fraction"], {"type": float, "required": True}),
        (["--out-train"], {"required": True}),
        (["--out-test"], {"required": True}),
    )
    command(
        "draw-costs",
        draw_costs,
        seed,
        out,
        (["--problem"], {"required": True}),
        (["--design"], {}),
        (["--cost-type"], {}),
        (["--dataset"], {}),
        (["--cost-range"], {"type": float, "nargs": 2, "default": [0.1, 1.0]}),
    )
    run = [
        seed,
        threads,
        params,
        (["--method"], {"required": True}),
        (["--dataset"], {"required": True}),
        (["--rep"], {"type": int, "required": True}),
    ]
    command("prepare", prepare, out, (["--data"], {"required": True}), *run)
    command(
        "select",
        select,
        out,
        *run,
        (["--data"], {"required": True}),
        (["--costs"], {"required": True}),
        (["--prepared"], {}),
        (["--budgets"], {"type": _json, "required": True}),
        (["--grid"], {"type": _json, "required": True}),
        (["--out-artifacts"], {"required": True}),
    )
    command(
        "evaluate",
        evaluate,
        out,
        seed,
        threads,
        (["--method"], {"required": True}),
        (["--problem"], {"required": True}),
        (["--kind"], {"required": True}),
        (["--dataset"], {"required": True}),
        (["--rep"], {"type": int, "required": True}),
        (["--selection"], {"required": True}),
        (["--artifacts"], {"required": True}),
        (["--train"], {"required": True}),
        (["--test"], {"required": True}),
        (["--costs"], {"required": True}),
        (["--n-trees"], {"type": int, "required": True}),
        (["--engine"], {"default": "auto"}),
    )
    command(
        "aggregate",
        aggregate,
        (["--evaluations"], {"nargs": "+", "required": True}),
        (["--benchmarks"], {"nargs": "*", "default": []}),
        (["--strategies"], {"nargs": "+", "required": True}),
        (["--out-runs"], {"required": True}),
        (["--out-summary"], {"required": True}),
        (["--out-timings"], {"required": True}),
    )
    command(
        "tabulate-findings",
        tabulate_findings,
        (["--runs"], {"required": True}),
        (["--timings"], {"required": True}),
        (["--n-rep"], {"type": int, "required": True}),
        (["--strategies"], {"nargs": "+", "required": True}),
        (["--common-methods"], {"nargs": "*", "default": []}),
        *(
            ([f"--out-{name}"], {"required": True})
            for name in (
                "tuning",
                "tuning-by-budget",
                "methods",
                "methods-by-budget",
                "common-methods",
                "common-methods-by-budget",
                "stage-costs",
            )
        ),
    )
    command(
        "collect-schedules",
        collect_schedules,
        out,
        (["--method"], {"required": True}),
        (
            ["--schedule"],
            {"nargs": 3, "action": "append", "metavar": ("PROBLEM", "REP", "ARTIFACTS")},
        ),
    )
    command(
        "figures",
        plot_figures,
        (["--runs"], {"required": True}),
        (["--summary"], {"required": True}),
        (["--real-data"], {"nargs": "*", "default": [], "help": "full.npz of each real data set"}),
        (["--design"], {"help": "simulation.npz with the simulated correlation matrix"}),
        (["--schedules"], {"help": "model schedules (results/schedules/<method>.parquet)"}),
        (["--dpi"], {"type": int, "default": 150}),
        (["--out-xi-curves"], {"help": "directory"}),
        (["--out-method-violins"], {"help": "directory"}),
        (["--out-real-comparison"], {"help": "directory"}),
        (["--out-mean-ranks"], {}),
        (["--out-correlations"], {}),
        (["--out-cost-accuracy"], {}),
        (["--out-table"], {}),
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    args = _parser().parse_args(argv)
    # A job uses the threads Snakemake gave it and no more: BLAS's own threads would compete
    # with the other jobs (and slow the many small products of the selection steps).
    try:
        with threadpool_limits(limits=getattr(args, "threads", 1)):
            args.function(args)
    except DataError as error:
        log.error("%s", error)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
