"""A run's evaluation: one Random Forest refit per distinct selected set, as rows of the runs
table."""

import logging

from costfs import evaluation, storage
from costfs.commands import OUT, STUDY_SEED, THREADS, add_command
from costfs.costs import FeatureCosts
from costfs.forest import resolve_engine
from costfs.methods import load_method

log = logging.getLogger("costfs")


def evaluate(args) -> None:
    selection = storage.read_table(args.selection)
    train = storage.read_arrays(args.train)
    test = storage.read_arrays(args.test)
    costs = FeatureCosts.from_arrays(storage.read_arrays(args.costs))
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
    method = load_method(args.method)
    # The method's own model on the test rows (BudgetRF's ensemble), besides the refit.
    extra_columns = method.evaluation_columns(
        selection, storage.read_arrays(args.artifacts), test["X"], test["y"], costs
    )
    runs = evaluation.run_table(
        selection,
        results,
        costs,
        identity={
            "problem": args.problem,
            "kind": args.kind,
            "dataset": args.dataset,
            "rep": args.rep,
            "method": args.method,
        },
        engine=engine,
        feature_names=train["feature_names"],
        extra_columns=extra_columns,
    )
    storage.write_table(args.out, runs)


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
        (["--rep"], {"type": int, "required": True}),
        (["--selection"], {"required": True}),
        (["--artifacts"], {"required": True}),
        (["--train"], {"required": True}),
        (["--test"], {"required": True}),
        (["--costs"], {"required": True}),
        (["--n-trees"], {"type": int, "required": True}),
        (["--engine"], {"default": "auto"}),
    )
