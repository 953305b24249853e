"""A method's cost-free preparation (per data set and block of replicates) and its selections
(per problem and block of replicates)."""

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from costfs.cli import storage
from costfs.cli.arguments import (
    STUDY_SEED,
    THREADS,
    add_command,
    check_paths_per_rep,
    json_value,
)
from costfs.core.costs import FeatureCosts
from costfs.core.errors import DataError
from costfs.core.seeds import derive_seed
from costfs.engine.forest import engine_for_data
from costfs.methods import Context, load_method

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger("costfs")

PREPARATION_ENGINE = "preparation_engine"
"""The key of a prepared file that names the engine its forests grew on: the label of the
selections of a method whose selection grows no forest of its own (the permutation importance's
filter, Boruta), which so never imports an engine only to name it."""


def prepare(args) -> None:
    """The cost-free parts of one method on one data set in a block of replicates: per
    replicate, `rep~<r>.npz` in the folder `--out` (one job pays one start for all of them)."""
    check_paths_per_rep(args, "data")
    method = load_method(args.method)
    for rep, data_path in zip(args.reps, args.data, strict=True):
        prepare_run(args, method, rep, data_path)


def prepare_run(args, method, rep, data_path) -> None:
    data = storage.read_arrays(data_path)
    method.check_target(data["y"], f"data set {args.dataset}")
    engine = engine_for_data(
        method.engine_for(args.engine, stage="prepare", values=args.params), data["X"]
    )
    started = time.perf_counter()
    prepared = method.prepare(
        data["X"],
        data["y"],
        Context(
            derive_seed(args.study_seed, "prepare", args.method, args.dataset, rep),
            args.threads,
            engine,
        ),
        **method.stage_parameters(args.params, "prepare"),
    )
    storage.write_arrays(
        Path(args.out) / f"rep~{rep}.npz", {**prepared, PREPARATION_ENGINE: np.array(engine)}
    )
    log.info(
        "prepared %s on %s rep %s in %.2f s",
        args.method,
        args.dataset,
        rep,
        time.perf_counter() - started,
    )


def selection_table(method, selection, engine: str) -> "pa.Table":
    """The records of a selection as a table: `hyperparameter` (its name, "" without one),
    `value` (a float), `budget`, `features` (int64 lists), method-specific columns and
    `selection_engine`, typed as pandas types the records (`costfs.core.columns`: the job
    imports no pandas)."""
    import pyarrow as pa  # here: prepare-method writes arrays only

    from costfs.core import columns

    records = selection.records
    hyperparameter = method.hyperparameter
    name = "" if hyperparameter is None else hyperparameter.name
    table = {"hyperparameter": columns.text_column([name] * len(records))}
    for key in dict.fromkeys(key for record in records for key in record):
        values = [record.get(key) for record in records]
        if key == "value":
            table[key] = columns.float_column(values)
        elif key == "features":
            table[key] = columns.integer_lists_column(values)
        else:
            table[key] = columns.value_column(values, key)
    table["selection_engine"] = columns.text_column([engine] * len(records))
    return pa.table(table)


def select(args) -> None:
    """The selections of one method on one problem in a block of replicates: per replicate,
    `rep~<r>.parquet` and `rep~<r>.artifacts.npz` in the folder `--out` (one job pays one
    start for all of them)."""
    check_paths_per_rep(args, "data", "prepared")
    prepared_paths = args.prepared or [None] * len(args.reps)
    method = load_method(args.method)
    costs = FeatureCosts.from_arrays(storage.read_arrays(args.costs))
    for rep, data_path, prepared_path in zip(args.reps, args.data, prepared_paths, strict=True):
        select_run(args, method, costs, rep, data_path, prepared_path)


def select_run(args, method, costs, rep, data_path, prepared_path) -> None:
    data = storage.read_arrays(data_path)
    method.check_target(data["y"], f"data set {args.dataset}")
    prepared = storage.read_arrays(prepared_path) if prepared_path else None
    if prepared is not None and PREPARATION_ENGINE not in prepared:
        raise DataError(
            f"{prepared_path}: holds no {PREPARATION_ENGINE!r}: an older costfs wrote it; "
            "rebuild it (snakemake --forcerun prepare_method)"
        )
    preparation_engine = str(prepared.pop(PREPARATION_ENGINE)) if prepared else "none"
    engine = engine_for_data(method.engine_for(args.engine, values=args.params), data["X"])
    started = time.perf_counter()
    selection = method.select(
        data["X"],
        data["y"],
        costs,
        args.budgets,
        args.grid,
        Context(
            derive_seed(args.study_seed, "select", args.method, args.dataset, rep),
            args.threads,
            engine,
            prepared,
        ),
        **method.stage_parameters(args.params, "select"),
    )
    storage.write_arrays(Path(args.out) / f"rep~{rep}.artifacts.npz", selection.artifacts)
    table = selection_table(method, selection, preparation_engine if engine == "none" else engine)
    storage.write_table(Path(args.out) / f"rep~{rep}.parquet", table)
    log.info(
        "replicate %d: selected %d (%s, budget) sets with %s in %.2f s",
        rep,
        table.num_rows,
        table["hyperparameter"][0].as_py() or "no hyperparameter",
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
    ]
    block = [
        (["--reps"], {"type": int, "nargs": "+", "required": True}),
        (["--data"], {"nargs": "+", "required": True}),
    ]
    add_command(
        commands,
        "prepare-method",
        prepare,
        (["--out"], {"required": True, "help": "the folder of the block's prepared parts"}),
        *run,
        *block,
    )
    add_command(
        commands,
        "select-features",
        select,
        (["--out"], {"required": True, "help": "the folder of the block's selections"}),
        *run,
        *block,
        (["--prepared"], {"nargs": "+"}),
        (["--costs"], {"required": True}),
        (["--budgets"], {"type": json_value, "required": True}),
        (["--grid"], {"type": json_value, "required": True}),
    )
