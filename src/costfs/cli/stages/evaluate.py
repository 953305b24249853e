"""The evaluation of a method's runs on one problem: per replicate, one Random Forest refit per
distinct selected set, as rows of the runs table (one job for the block of replicates of one
selection job: a paper-scale study would otherwise plan 15,400 small evaluation jobs)."""

import logging

import pyarrow as pa

from costfs.cli import storage
from costfs.cli.arguments import OUT, STUDY_SEED, THREADS, add_command, check_paths_per_rep
from costfs.core.costs import FeatureCosts
from costfs.core.metrics import FURTHER_METRICS
from costfs.engine.forest import engine_for_data
from costfs.engine.trees import resolve_refit_engine
from costfs.methods import load_method
from costfs.study import evaluation

log = logging.getLogger("costfs")


def evaluate(args) -> None:
    check_paths_per_rep(args, "selections", "artifacts", "train", "test")
    inputs = [args.selections, args.artifacts, args.train, args.test]
    costs = FeatureCosts.from_arrays(storage.read_arrays(args.costs))
    engine = resolve_refit_engine(args.engine)
    runs = [
        evaluate_run(args, rep, costs, engine, *paths)
        for rep, *paths in zip(args.reps, *inputs, strict=True)
    ]
    storage.write_table(args.out, pa.concat_tables(runs, promote_options="default"))


def evaluate_run(args, rep, costs, engine, selection_path, artifacts_path, train_path, test_path):
    selection = storage.read_arrow_table(selection_path)
    evaluation.check_selection(
        selection.select(["features", "budget"]).to_pydict(), costs, selection_path
    )
    train = storage.read_arrays(train_path)
    test = storage.read_arrays(test_path)
    sets = [tuple(features) for features in selection["features"].to_pylist()]
    engine = engine_for_data(engine, train["X"], test["X"])
    refits = evaluation.refit_feature_sets(
        train["X"],
        train["y"],
        test["X"],
        test["y"],
        sets,
        n_trees=args.n_trees,
        seed_parts=(args.study_seed, args.dataset, rep),
        n_jobs=args.threads,
        engine=engine,
        metrics=args.metrics,
    )
    log.info(
        "replicate %d: evaluated %d distinct sets of %d selections with %s in %.2f s",
        rep,
        len(refits),
        len(sets),
        engine,
        sum(refit["seconds"] for refit in refits),
    )
    method = load_method(args.method)
    # The method's own model on the test rows (BudgetRF's ensemble), besides the refit.
    extra_columns = method.evaluation_columns(
        selection, storage.read_arrays(artifacts_path), test["X"], test["y"], costs
    )
    return evaluation.run_table(
        selection,
        refits,
        costs,
        identity={
            "problem": args.problem,
            "kind": args.kind,
            "dataset": args.dataset,
            "rep": rep,
            "method": args.method,
        },
        engine=engine,
        feature_names=train["feature_names"],
        extra_columns=extra_columns,
    )


def register(commands) -> None:
    add_command(
        commands,
        "evaluate",
        evaluate,
        OUT,
        STUDY_SEED,
        THREADS,
        (["--method"], {"required": True}),
        (["--problem"], {"required": True}),
        (["--kind"], {"required": True}),
        (["--dataset"], {"required": True}),
        (["--reps"], {"type": int, "nargs": "+", "required": True}),
        (["--selections"], {"nargs": "+", "required": True}),
        (["--artifacts"], {"nargs": "+", "required": True}),
        (["--train"], {"nargs": "+", "required": True}),
        (["--test"], {"nargs": "+", "required": True}),
        (["--costs"], {"required": True}),
        (["--n-trees"], {"type": int, "required": True}),
        (["--engine"], {"default": "auto"}),
        (
            ["--metrics"],
            {
                "action": "append",
                "default": [],
                "choices": FURTHER_METRICS,
                "help": "a test metric recorded besides MMCE (repeatable)",
            },
        ),
    )
