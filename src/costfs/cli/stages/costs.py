"""A problem's cost vector: the design's (simulated settings), a real data set's costs file or
drawn from U(low, high)."""

import logging

import numpy as np

from costfs.cli import storage
from costfs.cli.arguments import OUT, STUDY_SEED, add_command, json_value
from costfs.cli.stages.realdata import read_table_file
from costfs.core.costs import FeatureCosts
from costfs.core.seeds import derive_rng
from costfs.study import realdata

log = logging.getLogger("costfs")


def draw_costs(args) -> None:
    if args.design:
        costs = FeatureCosts.ungrouped(storage.read_arrays(args.design)[f"costs_{args.cost_type}"])
    elif args.costs_file:
        names = [str(name) for name in storage.read_arrays(args.dataset)["feature_names"]]
        table = read_table_file(args.costs_file, data=False)
        costs = realdata.costs_from_table(table, names, args.costs_file, args.group_costs)
    else:
        n_features = storage.read_arrays(args.dataset)["X"].shape[1]
        rng = derive_rng(args.study_seed, "costs", args.problem)
        costs = FeatureCosts.ungrouped(realdata.uniform_costs(rng, n_features, *args.cost_range))
    arrays = costs.to_arrays() if costs.has_groups else {"costs": costs.own}
    storage.write_arrays(args.out, arrays)
    log.info(
        "costs of %s: %d features, %d shared-cost groups, total %.3f",
        args.problem,
        costs.n_features,
        costs.shared.size,
        costs.total(np.arange(costs.n_features)),
    )


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
        (["--costs-file"], {"help": "CSV with columns feature, cost and optionally group"}),
        (["--group-costs"], {"type": json_value, "help": "JSON mapping group -> shared cost"}),
    )
