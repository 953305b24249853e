"""`costfs init-study`: a commented study config for one data set, to run with `costfs
run-study`."""

import json
import logging
import os
import sys
from pathlib import Path

import numpy as np
import yaml

from costfs.cli import storage
from costfs.cli.arguments import VERBOSITY, add_command
from costfs.cli.select import check_out_is_not_an_input, data_arguments, read_problem
from costfs.core.costs import FeatureCosts
from costfs.core.errors import DataError
from costfs.methods import method_names
from costfs.study import realdata
from costfs.study.budgets import budget_breakpoints

log = logging.getLogger("costfs.cli")

STUDY_METHODS = ("auc", "pfi", "sts", "random_fill")
"""The paper's cheap methods and the chance baseline: `init-study`'s methods, with forward
selection added for data sets of at most `FORWARD_SELECTION_MAX_FEATURES` features."""

FORWARD_SELECTION_MAX_FEATURES = 50


def init_study(args) -> None:
    check_out_is_not_an_input(args)
    if args.out and Path(args.out).exists() and not args.force:
        raise DataError(
            f"--out {args.out} exists (an edited config?); give another path, or --force to "
            "replace it"
        )
    X, _, names, _, costs, _, _ = read_problem(args)
    if args.name is not None and not realdata.DATASET_NAME.fullmatch(args.name):
        raise DataError(
            f"--name {args.name!r}: a data set name starts with a letter and has only letters, "
            "digits, _ and -"
        )
    name = args.name or realdata.dataset_name_from_file(args.data)
    breakpoints = budget_breakpoints(costs, names)
    budgets = [budget for budget, _ in breakpoints]
    reasons = "".join(
        f"      #   {budget:g}: {_comment_text(why)}\n" for budget, why in breakpoints
    )
    total = costs.total(np.arange(costs.n_features))
    # The shared costs given on the command line; those in the costs file stay there.
    flagged = dict(args.group_costs)
    group_costs = f"      group_costs: {json.dumps(flagged)}\n" if flagged else ""
    marks = (
        f"      missing_values: {json.dumps(args.missing_values)}\n" if args.missing_values else ""
    )
    reading = "".join(
        f"      {key}: {json.dumps(value)}\n"
        for key, value in (("drop", args.drop), ("sep", args.sep), ("decimal", args.decimal))
        if value
    )
    positive_class = (
        f"      positive_class: {json.dumps(args.positive_class)}\n"
        if args.positive_class is not None
        else "      # positive_class: LABEL  # to map the target to LABEL against the rest\n"
    )
    methods = [*STUDY_METHODS, *(["fs"] if X.shape[1] <= FORWARD_SELECTION_MAX_FEATURES else [])]
    # A study reads the paths of its config from the config's folder (costfs run-study).
    data_path, costs_path = (
        _relative_to(Path(path), Path(args.out).resolve().parent) if args.out else str(path)
        for path in (args.data, args.costs)
    )
    cheapest = cheapest_paid(costs)
    method_lines = "\n".join(f"  {method}: {{}}" for method in methods)
    others = ", ".join(m for m in method_names() if m not in methods)
    described = f"{_comment_text(name)} ({X.shape[0]} rows x {X.shape[1]} features)"
    study = f"""# Study of {described}, written by
# `costfs init-study`. Run it with: costfs run-study THIS_FILE --cores N --report
# (results, logs and report.html in this file's folder; paths here are read from that folder).
# config/README.md documents every key.
seed: 1
n_rep: 10  # random train/test splits; the results report their mean and interval
engine: auto

simulation:
  settings: []  # no simulated data: only your data set

real_data:
  train_fraction: 0.6666666666666666
  datasets:
    {_yaml_scalar(name)}:
      path: {json.dumps(data_path)}
      costs: {json.dumps(costs_path)}
{group_costs}{marks}{reading}      target: {json.dumps(args.target)}
{positive_class}      # Suggested where what a budget buys changes (total cost {total:.4g},
      # cheapest paid feature {cheapest:.4g}); edit to the budgets you consider:
{reasons}      budgets: {json.dumps(budgets)}

xi_grid: [0, 0.5, 1, 2]
strategies: [agnostic, simple, tuned]

evaluation:
  n_trees: 500
  metrics: [auc, brier, sensitivity, specificity]  # besides the error rate (MMCE)

methods:
{method_lines}
  # More: {others} (see config/README.md)
"""
    if args.out:
        storage.write_text(Path(args.out), study)
        log.info(
            "wrote %s; run it with: costfs run-study %s --cores N --report", args.out, args.out
        )
    else:
        sys.stdout.write(study)


def _comment_text(text: str) -> str:
    """`text` (a file's or a column's name) on one comment line: its line breaks and other
    control characters escaped, so that it cannot end the comment and start a key."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _yaml_scalar(value) -> str:
    """`value` as a YAML scalar on one line, quoted by the YAML library where it needs quotes
    (double quotes, with escapes, where it has a line break)."""
    text = yaml.safe_dump(value, allow_unicode=True, width=1 << 20).removesuffix("\n...\n")
    if "\n" in text.strip():
        text = yaml.safe_dump(value, allow_unicode=True, width=1 << 20, default_style='"')
    return text.strip()


def _relative_to(path: Path, folder: Path) -> str:
    """`path` from `folder` (absolute where it is on another drive)."""
    try:
        return Path(os.path.relpath(path.resolve(), folder)).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def cheapest_paid(costs: FeatureCosts) -> float:
    """The standalone cost of the cheapest feature that is not free (1 when all are)."""
    standalone = costs.standalone()
    return float(standalone[standalone > 0].min()) if (standalone > 0).any() else 1.0


def register(commands) -> None:
    add_command(
        commands,
        "init-study",
        init_study,
        *data_arguments(),
        (["--name"], {"help": "the data set's name in the study (default: the file's name)"}),
        (
            ["--out"],
            {
                "help": "write the config to this file, its paths relative to the file's folder "
                "(default: print it, paths relative to the current folder)"
            },
        ),
        (["--force"], {"action": "store_true", "help": "replace an existing --out file"}),
        *VERBOSITY,
        help="write a study config for your own data set, to run with Snakemake",
    )
