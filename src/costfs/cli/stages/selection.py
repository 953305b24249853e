"""A method's cost-free preparation (per data set) and its selections (per run)."""

import logging
import time

import numpy as np
import pandas as pd

from costfs.cli import storage
from costfs.cli.arguments import OUT, STUDY_SEED, THREADS, add_command, json_value
from costfs.core.costs import FeatureCosts
from costfs.core.seeds import derive_seed
from costfs.engine.forest import engine_for_data
from costfs.methods import load_method

log = logging.getLogger("costfs")


def prepare(args) -> None:
    method = load_method(args.method)
    data = storage.read_arrays(args.data)
    method.check_target(data["y"], f"data set {args.dataset}")
    started = time.perf_counter()
    prepared = method.prepare(
        data["X"],
        data["y"],
        seed=derive_seed(args.study_seed, "prepare", args.method, args.dataset, args.rep),
        n_jobs=args.threads,
        engine=engine_for_data(
            method.engine_for(args.engine, stage="prepare", values=args.params), data["X"]
        ),
        **method.stage_parameters(args.params, "prepare"),
    )
    storage.write_arrays(args.out, prepared)
    log.info(
        "prepared %s on %s rep %s in %.2f s",
        args.method,
        args.dataset,
        args.rep,
        time.perf_counter() - started,
    )


def selection_table(method, selection, engine: str) -> pd.DataFrame:
    """The records of a selection as a table: `hyperparameter` (its name, "" without one),
    `value` (a float), `budget`, `features` (int32 lists), method-specific columns and
    `selection_engine`."""
    table = pd.DataFrame(selection.records)
    table["value"] = table["value"].astype(float)
    table["features"] = [np.asarray(f, dtype=np.int32).tolist() for f in table["features"]]
    hyperparameter = method.hyperparameter
    table.insert(0, "hyperparameter", "" if hyperparameter is None else hyperparameter.name)
    table["selection_engine"] = engine
    return table


def select(args) -> None:
    method = load_method(args.method)
    data = storage.read_arrays(args.data)
    method.check_target(data["y"], f"data set {args.dataset}")
    costs = FeatureCosts.from_arrays(storage.read_arrays(args.costs))
    prepared = storage.read_arrays(args.prepared) if args.prepared else None
    engine = engine_for_data(method.engine_for(args.engine, values=args.params), data["X"])
    started = time.perf_counter()
    selection = method.select(
        data["X"],
        data["y"],
        costs,
        args.budgets,
        args.grid,
        prepared=prepared,
        seed=derive_seed(args.study_seed, "select", args.method, args.dataset, args.rep),
        n_jobs=args.threads,
        engine=engine,
        **method.stage_parameters(args.params, "select"),
    )
    storage.write_arrays(args.out_artifacts, selection.artifacts)
    table = selection_table(method, selection, engine)
    storage.write_table(args.out, table)
    log.info(
        "selected %d (%s, budget) sets with %s in %.2f s",
        len(table),
        table["hyperparameter"].iloc[0] or "no hyperparameter",
        args.method,
        time.perf_counter() - started,
    )


def register(commands) -> None:
    run = [
        STUDY_SEED,
        THREADS,
        (["--params"], {"type": json_value, "default": {}}),
        (["--engine"], {"default": "auto"}),
        (["--method"], {"required": True}),
        (["--dataset"], {"required": True}),
        (["--rep"], {"type": int, "required": True}),
        (["--data"], {"required": True}),
    ]
    add_command(commands, "prepare-method", prepare, OUT, *run)
    add_command(
        commands,
        "select-features",
        select,
        OUT,
        *run,
        (["--costs"], {"required": True}),
        (["--prepared"], {}),
        (["--budgets"], {"type": json_value, "required": True}),
        (["--grid"], {"type": json_value, "required": True}),
        (["--out-artifacts"], {"required": True}),
    )
