"""Aggregation: the runs, summary and timings tables of a study, its findings tables and the
model schedules of the methods that keep them."""

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from costfs.cli import storage
from costfs.cli.arguments import OUT, add_command, named_path
from costfs.core.costs import FeatureCosts
from costfs.methods import load_method
from costfs.study import aggregation, findings

log = logging.getLogger("costfs")


def aggregate(args) -> None:
    runs = aggregation.combine_runs([storage.read_table(path) for path in args.evaluations])
    summary = aggregation.summary_table(runs, args.strategies)
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
        storage.write_text(path, table.to_csv(index=False, float_format="%.5g"))
    log.info("wrote %d finding tables", len(args.out))


def describe_problems(args) -> None:
    """The data overview: one row per problem, from its data and its costs."""
    rows = []
    for problem, kind, data_path, costs_path in args.problem:
        data = storage.read_arrays(data_path)
        costs = FeatureCosts.from_arrays(storage.read_arrays(costs_path))
        rows.append(
            {"problem": problem, "kind": kind}
            | findings.describe_problem(data["X"], data["y"], costs)
        )
    storage.write_text(args.out, pd.DataFrame(rows).to_csv(index=False, float_format="%.5g"))
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


def register(commands) -> None:
    add_command(
        commands,
        "aggregate",
        aggregate,
        (["--evaluations"], {"nargs": "+", "required": True}),
        (["--benchmarks"], {"nargs": "*", "default": []}),
        (["--strategies"], {"nargs": "+", "required": True}),
        (["--out-runs"], {"required": True}),
        (["--out-summary"], {"required": True}),
        (["--out-timings"], {"required": True}),
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
        "describe-problems",
        describe_problems,
        OUT,
        (
            ["--problem"],
            {
                "nargs": 4,
                "action": "append",
                "required": True,
                "metavar": ("PROBLEM", "KIND", "DATA", "COSTS"),
                "help": "a problem, its kind (simulated or real), its data and its costs",
            },
        ),
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
