"""Aggregation: the runs, summary and timings tables of a study, its findings tables and the
model schedules of the methods that keep them."""

import hashlib
import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd

import costfs
from costfs.cli import storage
from costfs.cli.arguments import OUT, add_command, json_value, named_path
from costfs.core.costs import FeatureCosts
from costfs.methods import load_method
from costfs.study import aggregation, findings, realdata, recommendations

log = logging.getLogger("costfs")


def aggregate(args) -> None:
    runs = aggregation.combine_runs(
        [storage.read_table(path) for path in args.evaluations], args.train_fraction
    )
    n_features = {
        problem: FeatureCosts.from_arrays(storage.read_arrays(path)).n_features
        for problem, path in args.costs
    }
    summary = aggregation.summary_table(runs, args.strategies, n_features)
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


def record_provenance(args) -> None:
    """`results/provenance.json`: what the study's results come from (its config without the
    replicates, a hash of each input and of the package's code) and which replicates they
    hold, for `costfs combine-batches` to join only batches of one study."""
    provenance = {
        "study": args.study,
        "inputs": {
            name: hashlib.sha256(Path(path).read_bytes()).hexdigest() for name, path in args.input
        },
        "code": args.code,
        "costfs_version": costfs.__version__,
        "replicates": [[args.replicates[0], args.replicates[1]]],
    }
    storage.write_text(args.out, json.dumps(provenance, indent=1, sort_keys=True) + "\n")
    log.info("recorded the provenance of %d inputs", len(args.input))


def tabulate_findings(args) -> None:
    runs = storage.read_table(args.runs)
    chosen = aggregation.choose_strategies(runs, args.strategies)
    timings = storage.read_table(args.timings)
    context = {
        "runs": runs,
        "common_methods": args.common_methods,
        "n_rep": args.n_rep,
        "design": storage.read_arrays(args.design) if args.design else None,
    }
    for name, path in args.out:
        table = findings.TABLES[name](chosen, timings, context)
        storage.write_csv(path, table)
    log.info("wrote %d finding tables", len(args.out))


def _read_problems(problems):
    """Per problem (NAME KIND DATA COSTS): its name, kind, data arrays and costs."""
    for problem, kind, data_path, costs_path in problems:
        costs = FeatureCosts.from_arrays(storage.read_arrays(costs_path))
        yield problem, kind, storage.read_arrays(data_path), costs


def _problem_names_and_costs(problems) -> tuple[dict, dict]:
    """Per problem (NAME KIND DATA COSTS): its feature names (a simulated setting's are x1, x2,
    ...) and its costs."""
    names, costs = {}, {}
    for problem, _, data, problem_costs in _read_problems(problems):
        names[problem] = (
            [str(name) for name in data["feature_names"]]
            if "feature_names" in data
            else [f"x{j + 1}" for j in range(data["X"].shape[1])]
        )
        costs[problem] = problem_costs
    return names, costs


def recommend_features(args) -> None:
    """What to buy per problem, budget and method (`costfs.study.recommendations`)."""
    runs = storage.read_table(args.runs)
    chosen = findings.best_rows(aggregation.choose_strategies(runs, args.strategies))
    names, costs = _problem_names_and_costs(args.problem)
    table = recommendations.recommendations(chosen, names, costs)
    # Simulated data (and data loaded before labels were kept) have the classes 0 and 1.
    positive = {
        problem: realdata.positive_class_text(data.get("class_labels", ["0", "1"]))
        for problem, _, data, _ in _read_problems(args.problem)
    }
    table.insert(table.columns.get_loc("verdict"), "positive_class", table["problem"].map(positive))
    storage.write_csv(args.out, table)
    log.info("wrote %d recommendations", len(table))


def describe_problems(args) -> None:
    """The data overview: one row per problem, from its data and its costs."""
    rows = [
        {"problem": problem, "kind": kind} | findings.describe_problem(data["X"], data["y"], costs)
        for problem, kind, data, costs in _read_problems(args.problem)
    ]
    storage.write_csv(args.out, pd.DataFrame(rows))
    log.info("described %d problems", len(rows))


def collect_schedules(args) -> None:
    """One table of a method's model schedules (msB's cost-accuracy curves)."""
    method = load_method(args.method)
    tables = [
        method.schedule(storage.read_arrays(path)).assign(problem=problem, rep=int(rep))
        for problem, rep, path in args.schedule
    ]
    schedules = pd.concat(tables, ignore_index=True)
    schedules["features"] = [np.asarray(f, dtype=np.int32).tolist() for f in schedules["features"]]
    storage.write_table(args.out, schedules)
    log.info("collected %d schedules with %d models", len(tables), len(schedules))


PROBLEMS = (
    ["--problem"],
    {
        "nargs": 4,
        "action": "append",
        "required": True,
        "metavar": ("PROBLEM", "KIND", "DATA", "COSTS"),
        "help": "a problem, its kind (simulated or real), its data and its costs",
    },
)


def register(commands) -> None:
    add_command(
        commands,
        "aggregate",
        aggregate,
        (["--evaluations"], {"nargs": "+", "required": True}),
        (["--benchmarks"], {"nargs": "*", "default": []}),
        (["--strategies"], {"nargs": "+", "required": True}),
        (
            ["--costs"],
            {
                "type": named_path,
                "action": "append",
                "default": [],
                "metavar": "PROBLEM=PATH",
                "help": "each problem's costs (its feature count, for the stability index)",
            },
        ),
        (
            ["--train-fraction"],
            {
                "type": float,
                "required": True,
                "help": "the real data's training fraction (the intervals' resampling correction)",
            },
        ),
        (["--out-runs"], {"required": True}),
        (["--out-summary"], {"required": True}),
        (["--out-timings"], {"required": True}),
    )
    add_command(
        commands,
        "record-provenance",
        record_provenance,
        OUT,
        (["--study"], {"type": json_value, "required": True, "help": "the study's identity"}),
        (["--code"], {"required": True, "help": "the hash of the package's code"}),
        (
            ["--replicates"],
            {"type": int, "nargs": 2, "required": True, "metavar": ("FIRST", "LAST")},
        ),
        (
            ["--input"],
            {"type": named_path, "action": "append", "default": [], "metavar": "NAME=PATH"},
        ),
    )
    add_command(
        commands,
        "tabulate-findings",
        tabulate_findings,
        (["--runs"], {"required": True}),
        (["--timings"], {"required": True}),
        (["--design"], {"help": "the simulation's design (simulated settings only)"}),
        (["--n-rep"], {"type": int, "required": True}),
        (["--strategies"], {"nargs": "+", "required": True}),
        (["--common-methods"], {"nargs": "*", "default": []}),
        (
            ["--out"],
            {
                "type": named_path,
                "action": "append",
                "required": True,
                "metavar": "NAME=PATH",
                "help": f"a findings table: one of {', '.join(findings.TABLES)}",
            },
        ),
    )
    add_command(
        commands,
        "recommend-features",
        recommend_features,
        OUT,
        (["--runs"], {"required": True}),
        (["--strategies"], {"nargs": "+", "required": True}),
        PROBLEMS,
    )
    add_command(
        commands,
        "describe-problems",
        describe_problems,
        OUT,
        PROBLEMS,
    )
    add_command(
        commands,
        "collect-schedules",
        collect_schedules,
        OUT,
        (["--method"], {"required": True}),
        (
            ["--schedule"],
            {"nargs": 3, "action": "append", "metavar": ("PROBLEM", "REP", "ARTIFACTS")},
        ),
    )
