"""A problem's cost vector: the design's (simulated settings), a real data set's costs file or
drawn from U(low, high)."""

import logging

from costfs import realdata, storage
from costfs.commands import OUT, STUDY_SEED, add_command
from costfs.commands.realdata import read_table_file
from costfs.seeds import derive_rng

log = logging.getLogger("costfs")


def draw_costs(args) -> None:
    if args.design:
        costs = storage.read_arrays(args.design)[f"costs_{args.cost_type}"]
    elif args.costs_file:
        names = [str(name) for name in storage.read_arrays(args.dataset)["feature_names"]]
        table = read_table_file(args.costs_file)
        costs = realdata.costs_from_table(table, names, args.costs_file)
    else:
        n_features = storage.read_arrays(args.dataset)["X"].shape[1]
        rng = derive_rng(args.study_seed, "costs", args.problem)
        costs = realdata.uniform_costs(rng, n_features, *args.cost_range)
    storage.write_arrays(args.out, {"costs": costs})
    log.info("costs of %s: %d features, total %.3f", args.problem, costs.size, costs.sum())


def register(commands) -> None:
    add_command(
        commands,
        "draw-costs",
        draw_costs,
        STUDY_SEED,
        OUT,
        (["--problem"], {"required": True}),
        (["--design"], {}),
        (["--cost-type"], {}),
        (["--dataset"], {}),
        (["--cost-range"], {"type": float, "nargs": 2, "default": [0.1, 1.0]}),
        (["--costs-file"], {"help": "CSV with columns feature, cost"}),
    )
