"""Simulated data: the study's design (mu, Sigma, cost vectors) and its training and test sets."""

import logging

import numpy as np

from costfs.cli import storage
from costfs.cli.arguments import OUT, STUDY_SEED, add_command, json_value
from costfs.core.seeds import derive_rng
from costfs.study import simulate

log = logging.getLogger("costfs")


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


def register(commands) -> None:
    add_command(
        commands,
        "simulate-design",
        simulate_design,
        STUDY_SEED,
        OUT,
        (["--simulation"], {"type": json_value, "required": True}),
    )
    add_command(
        commands,
        "simulate-data",
        simulate_data,
        STUDY_SEED,
        OUT,
        (["--design"], {"required": True}),
        (["--data-type"], {"choices": ["independent", "correlated"], "required": True}),
        (["--part"], {"required": True}),
        (["--n-rows"], {"type": int, "required": True}),
    )
