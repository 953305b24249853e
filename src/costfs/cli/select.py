"""One data set without a study: `costfs select` prints a selection for each budget."""

import contextlib
import inspect
import json
import logging
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd

from costfs.cli import storage
from costfs.cli.arguments import (
    QUIET,
    THREADS,
    VERBOSE,
    VERBOSITY,
    add_command,
    group_cost,
    positive_integer,
)
from costfs.cli.stages.realdata import read_table_file
from costfs.core.costs import FeatureCosts
from costfs.core.errors import DataError
from costfs.core.metrics import FURTHER_METRICS
from costfs.core.names import name_list, shown_name
from costfs.core.progress import shown_on as progress_shown_on
from costfs.core.tabular import encode_levels
from costfs.methods import load_method, load_selector, method_names
from costfs.study import realdata, single_run
from costfs.study.assessment import SPLITS, assess_selection, held_out_splits

log = logging.getLogger("costfs.cli")
library_log = logging.getLogger("costfs")

SELECT_DEFAULTS = {
    name: parameter.default
    for name, parameter in inspect.signature(single_run.select_once).parameters.items()
    if parameter.default is not parameter.empty
}
"""`costfs select`'s defaults are those of the function it calls."""


class Problem(NamedTuple):
    X: np.ndarray
    """Features; categorical columns as level codes (`realdata.table_to_arrays`)."""
    y: np.ndarray
    names: list[str]
    categorical: np.ndarray
    """Positions of the categorical columns."""
    costs: FeatureCosts
    classes: list[str]
    """The label of each class code."""
    frame: pd.DataFrame
    """The table as read: what a saved model is fit on and later reads."""


def read_problem(args) -> Problem:
    """The data, its costs and its classes' labels."""
    frame = read_table_file(args.data, args.missing_values, args.sep, args.decimal)
    X, y, names, categorical = realdata.table_to_arrays(
        frame, args.target, args.positive_class, args.data, tuple(args.drop)
    )
    costs = realdata.costs_from_table(
        read_table_file(args.costs, data=False), names, args.costs, dict(args.group_costs)
    )
    for note in realdata.degenerate_columns(X, names):
        log.warning("%s: %s (kept as a feature)", args.data, note)
    classes = realdata.class_labels(frame[args.target], args.positive_class)
    return Problem(X, y, names, categorical, costs, classes, frame)


ESTIMATES = {
    "features": "the set recommended: the selection on all rows",
    "chosen_by_splits": "how many of the held-out splits chose this very set",
    "held_out_this_set": "this set's held-out error, on the splits that chose it",
    "held_out": "the procedure's held-out error: the whole selection repeated on each split, "
    "which may choose other sets (mean and 95% interval); its cost and n_features are the "
    "means over the splits of the chosen sets' cost and size, distinct_sets how many different "
    "sets they chose, on_pareto_front whether no budget of lower mean cost has a lower mean "
    "error",
}
"""What each estimate of `costfs select`'s JSON is: the same wording as its printed table."""


def metric_definitions(metrics: list[str], classes: list[str]) -> dict[str, str]:
    """What each metric is for these classes: which class is positive for two (the larger
    label, or --positive-class), the averaging for more."""
    positive = classes[-1]
    binary = {
        "mmce": "share of rows misclassified",
        "auc": f"area under the ROC curve of class {positive!r} against {classes[0]!r}",
        "brier": f"mean squared error of the predicted probability of class {positive!r}",
        "sensitivity": f"true positive rate, positive class {positive!r}",
        "specificity": f"true negative rate, positive class {positive!r}",
    }
    several = {
        "mmce": "share of rows misclassified",
        "auc": f"macro average over the {len(classes)} classes of each against the rest",
        "brier": "squared error of the predicted probabilities summed over the classes",
        "sensitivity": f"macro average over the {len(classes)} classes of each one's true "
        "positive rate against the rest",
        "specificity": f"macro average over the {len(classes)} classes of each one's true "
        "negative rate against the rest",
    }
    return {metric: (binary if len(classes) == 2 else several)[metric] for metric in metrics}


def _value(text: str) -> float | str:
    if text == "tuned":
        return text
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"expected 'tuned' or a number, got {text!r}") from None


def check_out_is_not_an_input(args) -> None:
    """Raises `DataError` where `--out` names the data or the costs file the command reads:
    writing it would replace the user's file."""
    if not args.out:
        return
    out = Path(args.out).resolve()
    for option, path in (("the data", args.data), ("--costs", args.costs)):
        if out == Path(path).resolve():
            raise DataError(
                f"--out {args.out} is {option} file this command reads; write to another path"
            )


def check_budget_options(args) -> None:
    """Raises `DataError` where the budgets do not fit the options: `--budget` is needed
    unless `--path` is given, and `--save-model` takes one budget."""
    if args.save_model and (args.budget is None or len(args.budget) != 1):
        raise DataError(
            f"--save-model {args.save_model}: give exactly one --budget, the budget whose "
            "features the model reads"
        )
    if args.budget is None and not args.path:
        raise DataError(
            "give --budget B [B ...], or --path for the selection at every budget at which it "
            "changes"
        )


def select(args) -> None:
    check_out_is_not_an_input(args)
    check_budget_options(args)
    problem = read_problem(args)
    codes, y, names, categorical, costs, classes, frame = problem
    X, _ = encode_levels(codes, y, categorical, seed=args.seed)
    everything = costs.total(np.arange(costs.n_features))
    log.info("%s: %d rows x %d features, total cost %.4g", args.data, *X.shape, everything)
    log.info("%s", _classes_line(classes, args.positive_class))
    metrics = list(dict.fromkeys(["mmce", *args.metric]))
    shown = (
        contextlib.nullcontext()
        if args.verbosity == QUIET
        else progress_shown_on(sys.stderr, None if args.verbosity == VERBOSE else 1)
    )
    with shown:
        if args.path:
            document, report = path_result(args, problem, X, metrics)
            chosen = document["path"][-1]
        else:
            document, report = budget_results(args, problem, X, metrics)
            chosen = document["results"][-1]
    # The result is shown before it is written: a path that cannot be written loses nothing.
    print(report, flush=True)
    if args.out:
        try:
            text = json.dumps(document, indent=2, allow_nan=False)
            storage.write_text(Path(args.out), text + "\n")
        except OSError as error:
            raise DataError(f"--out {args.out}: cannot be written ({error})") from None
    if args.save_model:
        from costfs.cli.model import save_model

        features = chosen["features"]
        save_model(
            args.save_model,
            frame,
            features,
            {
                "labels": np.asarray(classes, dtype=object)[y],
                "categorical": [names[j] for j in categorical if names[j] in features],
                "classes": classes,
                "target": args.target,
                "missing_values": list(args.missing_values),
                "method": args.method,
                "budget": float(args.budget[0]),
                "cost": float(chosen["cost"]),
                "data": str(args.data),
            },
            n_trees=args.n_trees,
            seed=args.seed,
            n_jobs=args.threads,
        )
        log.info(
            "model on %d feature(s) written to %s; apply it with: costfs predict %s NEW.csv",
            len(features),
            args.save_model,
            args.save_model,
        )


def budget_results(args, problem: Problem, X: np.ndarray, metrics: list[str]):
    """The selection at each of `--budget`: the JSON document and the printed report."""
    codes, y, names, _, costs, classes, _ = problem
    table = single_run.select_once(
        X,
        y,
        costs,
        args.budget,
        method=args.method,
        value=args.xi,
        seed=args.seed,
        n_trees=args.n_trees,
        n_jobs=args.threads,
        progress=lambda message: library_log.info("%s", message),
    )
    assessment = _held_out(
        args,
        _selector(args, costs),
        problem,
        dict(zip(table["budget"], table["features"], strict=True)),
        metrics,
    )
    hyperparameter = load_method(args.method).hyperparameter
    constant = set(np.flatnonzero(np.nanmax(codes, axis=0) == np.nanmin(codes, axis=0)).tolist())
    results = []
    for row in table.itertuples():
        warn_of_a_budget_that_buys_little(row.budget, row.features, costs, names)
        bought = sorted(constant & set(row.features))
        if bought:
            log.warning(
                "budget %g buys constant column(s) %s: they carry no information; drop them "
                "from the data or the costs file",
                row.budget,
                [names[j] for j in bought],
            )
        result = {
            "budget": row.budget,
            **({} if hyperparameter is None else {hyperparameter.name: row.value}),
            "features": [names[j] for j in row.features],
            "cost": row.cost,
            "oob_mmce": _json_number(row.oob_mmce),
        }
        if assessment is not None:
            result.update(_held_out_fields(assessment.loc[row.budget], metrics))
        results.append(result)
    document = {
        **_document_head(args, classes, metrics if assessment is not None else []),
        "results": results,
    }
    report = _report(results, hyperparameter.name if hyperparameter else None, classes)
    return document, report


def _held_out(
    args, selector, problem: Problem, recommended: dict, metrics: list[str]
) -> pd.DataFrame | None:
    """`assess_selection` of `selector` at the budgets of `recommended` (budget -> the set
    selected on all rows) over `--splits` splits, by budget; None for no splits."""
    if not args.splits:
        return None
    log.info(
        "held-out assessment: the whole selection on %d splits, each holding out a third of "
        "the rows",
        args.splits,
    )
    return assess_selection(
        selector,
        problem.X,
        problem.y,
        list(recommended),
        categorical=problem.categorical,
        cv=held_out_splits(args.splits, args.seed),
        metrics=tuple(metrics),
        n_trees=args.n_trees,
        random_state=args.seed,
        n_jobs=args.threads,
        recommended=recommended,
    ).set_index("budget")


def _document_head(args, classes: list[str], metrics: list[str]) -> dict:
    """What the JSON of `--out` states before its results: the inputs, the method, the
    classes and, with a held-out assessment, what its metrics and estimates are."""
    return {
        "data": args.data,
        "costs": args.costs,
        "settings": {
            "target": args.target,
            "positive_class": args.positive_class,
            "group_costs": dict(args.group_costs) or None,
            "missing_values": list(args.missing_values),
            "drop": list(args.drop),
            "budgets": args.budget,
            "xi": args.xi,
            "seed": args.seed,
            "n_trees": args.n_trees,
            "splits": args.splits,
        },
        "method": args.method,
        "classes": classes,
        "positive_class": classes[-1] if len(classes) == 2 else None,
        **(
            {"metrics": metric_definitions(metrics, classes), "estimates": ESTIMATES}
            if metrics
            else {}
        ),
    }


def _held_out_fields(held_out: pd.Series, metrics: list[str]) -> dict:
    """A budget's row of `assess_selection` as the JSON's estimates (`ESTIMATES`); JSON has no
    NaN, so an undefined value (one split has no interval) is null."""
    return {
        "chosen_by_splits": int(held_out["same_set_splits"]),
        "held_out_this_set": {
            metric: _json_number(held_out[f"{metric}_same_set"]) for metric in metrics
        },
        "held_out": {
            key: _held_out_value(key, value)
            for key, value in held_out.items()
            if not key.startswith("same_set") and not key.endswith("_same_set")
        },
    }


def _held_out_value(key: str, value):
    """A held-out estimate as JSON: counts as integers, the front flag as a boolean."""
    if key in ("n_splits", "distinct_sets"):
        return int(value)
    if key == "on_pareto_front":
        return bool(value)
    return _json_number(value)


PATH_GRID = 20
"""Steps of the budget grid over [0, the largest --budget or the total cost] at which
`--path` reads a method whose path is not exact (which fits per budget)."""


def path_result(args, problem: Problem, X: np.ndarray, metrics: list[str]):
    """The selection's budget path up to the largest --budget (else the total cost) from one
    fit, each step with its held-out estimate: the JSON document and the printed report."""
    _, y, names, _, costs, classes, _ = problem
    everything = costs.total(np.arange(costs.n_features))
    top = min(max(args.budget), everything) if args.budget else everything
    if args.budget and max(args.budget) > everything:
        log.warning(
            "budget %g is more than every feature costs together (%.4g): the path ends there",
            max(args.budget),
            everything,
        )
    grid = sorted(
        {*np.linspace(0, top, PATH_GRID + 1).tolist(), *(b for b in args.budget or [] if b < top)}
    )
    selector = _selector(args, costs).set_params(budget=top, path_budgets=grid)
    # Fit on named columns, so that the path names the features it buys and drops.
    fitted = selector.fit(pd.DataFrame(X, columns=names), y)
    path = fitted.path_
    hyperparameter = load_method(args.method).hyperparameter
    value, setting = None, ""
    if hyperparameter is not None and args.xi == "tuned":
        value, setting = "tuned", f" ({hyperparameter.name} tuned at each budget)"
    elif hyperparameter is not None:
        value = float(getattr(fitted, f"{hyperparameter.name}_"))
        setting = f" ({hyperparameter.name} = {value:g})"
    log.info(
        "budget path of %s%s up to budget %g: %d step(s), %s",
        args.method,
        setting,
        top,
        len(path),
        "exact (every budget at which the selection changes)"
        if fitted.path_exact_
        else f"read at {len(grid)} budgets from 0 to {top:g} (the method fits per budget: a "
        "change between two of them is not seen)",
    )
    assessment = _held_out(
        args,
        selector,
        problem,
        dict(zip(path["budget"], path["feature_indices"], strict=True)),
        metrics,
    )
    steps = []
    for entry in path.to_dict("records"):
        step = {
            "budget": float(entry["budget"]),
            "cost": float(entry["cost"]),
            **{key: list(entry[key]) for key in ("features", "added", "dropped")},
        }
        if assessment is not None:
            step.update(_held_out_fields(assessment.loc[entry["budget"]], metrics))
        steps.append(step)
    document = {
        **_document_head(args, classes, metrics if assessment is not None else []),
        **({} if value is None else {hyperparameter.name: value}),
        "path_exact": bool(fitted.path_exact_),
        "path": steps,
    }
    return document, _path_report(steps, metrics if assessment is not None else [], classes)


def _path_report(steps: list[dict], metrics: list[str], classes: list[str]) -> str:
    """The path as a table to read down: from which budget each set is bought, its cost, what
    it adds to and drops from the set before, and its held-out estimates (`ESTIMATES`): how
    many splits chose this very set and its error on them, the procedure's estimates at that
    budget, and whether no cheaper budget's procedure had a lower error."""
    header = ["from budget", "cost", "n", "buy", "drop"]
    if metrics:
        header += ["chosen by splits", f"this set's {metric_name('mmce', classes)} where chosen"]
        header += [
            f"procedure's {metric_name(metric, classes)} [95% interval]" for metric in metrics
        ]
        header.append("on the front")
    rows = [header]
    for step in steps:
        cells = [
            f"{step['budget']:g}",
            f"{step['cost']:.4g}",
            str(len(step["features"])),
            name_list(step["added"], "+") or "-",
            name_list(step["dropped"], "-") or "-",
        ]
        if metrics:
            cells.append(f"{step['chosen_by_splits']} of {step['held_out']['n_splits']:.0f}")
            cells.append(_shown(step["held_out_this_set"]["mmce"], 3))
            cells += [_interval(step["held_out"], metric) for metric in metrics]
            cells.append("yes" if step["held_out"]["on_pareto_front"] else "no")
        rows.append(cells)
    return aligned(rows)


def aligned(rows: list[list[str]]) -> str:
    """Rows of cells as a table with its columns lined up, two spaces apart."""
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


def warn_of_a_budget_that_buys_little(
    budget: float, features, costs: FeatureCosts, names: list[str]
) -> None:
    """Warns where a budget's answer is empty (its error is that of always predicting the
    most frequent class) or holds free features only: a reader of the table alone would take
    either for a selection like the others."""
    alone = [costs.total([j]) for j in range(costs.n_features)]
    priced = [(cost, names[j]) for j, cost in enumerate(alone) if cost > 0]
    cheapest = f"; the cheapest priced feature, {min(priced)[1]}, costs {min(priced)[0]:.4g}"
    cheapest = cheapest if priced and min(priced)[0] > budget else ""
    if len(features) == 0:
        log.warning(
            "budget %g buys no feature: its model always predicts the most frequent class%s",
            budget,
            cheapest,
        )
    elif costs.total(features) == 0 and budget > 0:
        log.warning(
            "budget %g buys free features only (cost 0)%s",
            budget,
            cheapest or ": the method spent nothing on the priced ones",
        )


def _classes_line(classes: list[str], positive_class: str | None) -> str:
    if len(classes) > 2:
        return f"{len(classes)} classes: {', '.join(map(repr, classes))}"
    how = (
        "--positive-class"
        if positive_class is not None
        else "the larger label; --positive-class LABEL sets it"
    )
    return f"classes {classes[0]!r} and {classes[1]!r}; positive class {classes[1]!r} ({how})"


def _json_number(value) -> float | None:
    return float(value) if np.isfinite(value) else None


def _selector(args, costs: FeatureCosts):
    """The method's selector with the command's costs, hyperparameter, seed and threads: what
    the held-out assessment repeats on each split."""
    method = load_method(args.method)
    grouped = costs.group >= 0
    options = {
        "feature_costs": costs.own,
        "feature_groups": (
            [costs.group_names[g] if g >= 0 else None for g in costs.group]
            if grouped.any()
            else None
        ),
        "group_costs": dict(zip(costs.group_names, costs.shared.tolist(), strict=True)) or None,
        "random_state": args.seed,
    }
    if method.hyperparameter is not None:
        options[method.hyperparameter.name] = args.xi
    selector = load_selector(args.method)
    if "n_jobs" in selector().get_params():
        options["n_jobs"] = args.threads
    return selector(**options)


def _shown(value: float | None, digits: int) -> str:
    return "undefined" if value is None or np.isnan(value) else f"{value:.{digits}f}"


def _interval(held_out: dict, metric: str, digits: int = 3) -> str:
    value, low, high = (held_out[key] for key in (metric, f"{metric}_low", f"{metric}_high"))
    if value is None:
        return "undefined"
    if low is None or high is None:
        return f"{value:.{digits}f} [no interval from one split]"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def metric_name(metric: str, classes: list[str]) -> str:
    """A metric's name with the class it is of, or its averaging over more classes."""
    if metric in ("sensitivity", "specificity") and len(classes) == 2:
        return f"{metric} of {classes[-1]!r}"
    if metric in ("auc", "sensitivity", "specificity") and len(classes) > 2:
        return f"{METRIC_NAMES[metric]} (macro average)"
    return METRIC_NAMES[metric]


def _report(results: list[dict], hyperparameter: str | None, classes: list[str]) -> str:
    """The selection of one budget in full; several budgets as a cost-accuracy table. With a
    held-out assessment, three labelled estimates (`ESTIMATES`): how many splits chose the
    recommended set, its error on those splits, and the procedure's error with its interval;
    else the refit's OOB error."""
    metrics = [
        key for key in results[0].get("held_out", {}) if f"{key}_low" in results[0]["held_out"]
    ]
    if len(results) == 1:
        (result,) = results
        lines = [
            f"budget {result['budget']:g}: {len(result['features'])} features to buy (the "
            "selection on all rows)"
        ]
        lines += [f"  {shown_name(name)}" for name in result["features"]]
        lines.append(f"total cost {result['cost']:.4g}")
        if hyperparameter:
            lines.append(f"{hyperparameter} = {result[hyperparameter]:g}")
        if metrics:
            held_out, chosen = result["held_out"], result["chosen_by_splits"]
            splits = f"{held_out['n_splits']:.0f}"
            lines.append(
                f"this very set was chosen by {chosen} of {splits} held-out splits (they chose "
                f"{held_out['distinct_sets']:.0f} distinct "
                f"{'set' if held_out['distinct_sets'] == 1 else 'sets'})"
            )
            if chosen:
                own = result["held_out_this_set"]
                lines.append(
                    f"this set's held-out estimate, on the {chosen} splits that chose it (mean):"
                )
                lines += [
                    f"  {metric_name(metric, classes)} {_shown(own[metric], 3)}"
                    for metric in metrics
                ]
            lines.append(
                f"the procedure's held-out estimate over {splits} splits (the whole selection "
                "repeated on each, whichever set it chose; mean [95% interval]):"
            )
            lines += [
                f"  {metric_name(metric, classes)} {_interval(held_out, metric)}"
                for metric in metrics
            ]
        else:
            lines.append(
                f"OOB error of a refit {_shown(result['oob_mmce'], 4)} (optimistic: the set was "
                "chosen on these rows; --splits gives a held-out estimate)"
            )
        return "\n".join(lines)
    header = ["budget", *([hyperparameter] if hyperparameter else []), "cost"]
    if metrics:
        header += ["chosen by splits", f"this set's {metric_name('mmce', classes)} where chosen"]
        header += [
            f"procedure's {metric_name(metric, classes)} [95% interval]" for metric in metrics
        ]
    else:
        header.append("oob_mmce")
    rows = [[*header, "features to buy"]]
    for result in results:
        cells = [f"{result['budget']:g}"]
        if hyperparameter:
            cells.append(f"{result[hyperparameter]:g}")
        cells.append(f"{result['cost']:.4g}")
        if metrics:
            cells.append(f"{result['chosen_by_splits']} of {result['held_out']['n_splits']:.0f}")
            cells.append(_shown(result["held_out_this_set"]["mmce"], 3))
            cells += [_interval(result["held_out"], metric) for metric in metrics]
        else:
            cells.append(_shown(result["oob_mmce"], 4))
        cells.append(name_list(result["features"]))
        rows.append(cells)
    return aligned(rows)


METRIC_NAMES = {
    "mmce": "error rate (MMCE)",
    "auc": "AUC",
    "brier": "Brier score",
    "sensitivity": "sensitivity",
    "specificity": "specificity",
}


def data_arguments():
    return (
        (["data"], {"help": "the data: CSV, .csv.gz or Parquet, features and a target column"}),
        (["--costs"], {"required": True, "help": "CSV with columns feature,cost[,group]"}),
        (
            ["--group-costs"],
            {
                "type": group_cost,
                "nargs": "*",
                "default": [],
                "metavar": "GROUP=COST",
                "help": "shared cost of each group of the costs file, paid once",
            },
        ),
        (["--target"], {"default": "target", "help": "the target column (default: target)"}),
        (
            ["--missing-values"],
            {
                "nargs": "*",
                "default": [],
                "metavar": "MARK",
                "help": "cells that mark a missing value besides empty ones and pandas' usual "
                "NA, NaN, NULL, n/a (e.g. ?)",
            },
        ),
        (
            ["--drop"],
            {
                "nargs": "+",
                "default": [],
                "metavar": "COLUMN",
                "help": "columns that are not features (an Id, a date of entry): left out",
            },
        ),
        (
            ["--sep"],
            {
                "help": "the CSV's column separator (default: a comma, or the one found where "
                "the header has none, e.g. ;)"
            },
        ),
        (
            ["--decimal"],
            {
                "choices": [".", ","],
                "help": "the CSV's decimal mark (default: a point, or a comma found in a file "
                "whose separator is not a comma)",
            },
        ),
        (
            ["--positive-class"],
            {
                "help": "the target value mapped to 1, all others to 0 (default: each distinct "
                "target value is a class)"
            },
        ),
    )


def register(commands) -> None:
    add_command(
        commands,
        "select",
        select,
        *data_arguments(),
        (
            ["--budget"],
            {
                "type": float,
                "nargs": "+",
                "help": "the budget(s) to select for; with --path, the largest is where the "
                "path stops (default: the total cost)",
            },
        ),
        (
            ["--path"],
            {
                "action": "store_true",
                "help": "print the whole budget path instead: every budget at which the "
                "selection changes, the features it buys or drops there and each step's "
                f"held-out error (a method that fits per budget is read at {PATH_GRID + 1} "
                "budgets from 0 to where the path stops, and at each --budget)",
            },
        ),
        (
            ["--save-model"],
            {
                "metavar": "FILE",
                "help": "write the Random Forest refit on the budget's features, as a "
                "scikit-learn pipeline in skops' format, for costfs predict (one --budget)",
            },
        ),
        (
            ["--method"],
            {
                "default": SELECT_DEFAULTS["method"],
                "choices": method_names(),
                "help": f"the selection method (default: {SELECT_DEFAULTS['method']}); "
                "the README's table of methods describes each",
            },
        ),
        (
            ["--xi"],
            {
                "type": _value,
                "default": SELECT_DEFAULTS["value"],
                "help": "the method's hyperparameter (ξ; BudgetRF: α): a number, or tuned "
                "(lowest OOB error of a refit over the default grid; default: "
                f"{SELECT_DEFAULTS['value']})",
            },
        ),
        (
            ["--seed"],
            {
                "type": int,
                "default": SELECT_DEFAULTS["seed"],
                "help": "seeds every random draw: the same seed gives the same answer "
                f"(default: {SELECT_DEFAULTS['seed']})",
            },
        ),
        (
            ["--n-trees"],
            {
                "type": positive_integer,
                "default": SELECT_DEFAULTS["n_trees"],
                "help": f"trees of the refits (default: {SELECT_DEFAULTS['n_trees']})",
            },
        ),
        (
            ["--splits"],
            {
                "type": int,
                "default": SPLITS,
                "help": f"random splits of the held-out estimate (default {SPLITS}; each repeats "
                "the whole selection on two thirds of the rows and scores the rest); 0: none",
            },
        ),
        (
            ["--metric"],
            {
                "nargs": "+",
                "default": [],
                "choices": FURTHER_METRICS,
                "help": "held-out metrics besides the error rate: auc, brier, sensitivity, "
                "specificity (positive: the larger of two labels, or --positive-class; "
                "macro averages over more classes)",
            },
        ),
        (["--out"], {"help": "also write the result as JSON to this file"}),
        THREADS,
        *VERBOSITY,
        help="select the features to buy for each budget on your own data set",
    )
