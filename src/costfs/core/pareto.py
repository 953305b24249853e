"""The Pareto front of models by cost and the area under its staircase (the msB paper's AUP):
the one definition the selectors' paths, the workflow, the figures and the docs use."""

from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

Kind = Literal["accuracy", "error"]
KINDS: tuple[Kind, ...] = ("accuracy", "error")


def _points(costs: Sequence[float], values: Sequence[float], kind: Kind) -> pd.DataFrame:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    costs, values = np.asarray(costs, float), np.asarray(values, float)
    if costs.shape != values.shape or costs.ndim != 1:
        raise ValueError(
            f"costs and values must be two sequences of one length, got shapes {costs.shape} "
            f"and {values.shape}"
        )
    if np.isnan(costs).any() or np.isnan(values).any():
        raise ValueError("costs and values must not be missing (NaN)")
    return pd.DataFrame({"cost": costs, kind: values})


def on_pareto_front(
    costs: Sequence[float], values: Sequence[float], *, kind: Kind = "error"
) -> np.ndarray:
    """Whether each point is on the Pareto front: strictly better than every cheaper point
    (of equal costs, only the best; of equal points, the first). `kind` says whether `values`
    are errors (lower is better) or accuracies (higher is better)."""
    points = _points(costs, values, kind)
    loss = points[kind] if kind == "error" else -points[kind]
    order = pd.DataFrame({"cost": points["cost"], "loss": loss}).sort_values(
        ["cost", "loss"], kind="stable"
    )
    previous_best = order["loss"].cummin().shift(fill_value=np.inf)
    return (order["loss"] < previous_best).sort_index().to_numpy()


def pareto_front(
    costs: Sequence[float], values: Sequence[float], *, kind: Kind = "error"
) -> pd.DataFrame:
    """The non-dominated points by increasing cost, columns `cost` and `kind`: each is strictly
    better than every cheaper point (a model schedule in the msB paper's sense)."""
    points = _points(costs, values, kind)
    front = points[on_pareto_front(points["cost"], points[kind], kind=kind)]
    return front.sort_values("cost", kind="stable").reset_index(drop=True)


def area_under_pareto(
    costs: Sequence[float],
    values: Sequence[float],
    *,
    full_cost: float | None = None,
    kind: Kind = "accuracy",
    reference_cost: float | None = None,
) -> float:
    """The area under the Pareto staircase, cost normalised to [0, 1] (the msB paper's AUP).

    The staircase is v(c), the best value of the points affordable at cost c: the highest
    accuracy (0 where no point is affordable) or the lowest error (1 where none is). Its area
    over [0, R] is divided by R, the reference cost: by default `full_cost`, the cost of the
    model on every feature (the msB paper's normalisation); `reference_cost` sets another (a
    study compares methods up to its largest budget). Points costlier than R do not count.
    Higher is better for accuracy, lower for error; with accuracy = 1 - error the two areas
    add up to 1.
    """
    reference = full_cost if reference_cost is None else reference_cost
    if reference is None:
        raise ValueError("give full_cost (the cost of every feature) or reference_cost")
    if not reference > 0:
        raise ValueError(f"the reference cost must be positive, got {reference}")
    front = pareto_front(costs, values, kind=kind)
    front = front[front["cost"] <= reference]
    steps = np.concatenate([[0.0], front["cost"].to_numpy(), [reference]])
    unaffordable = 0.0 if kind == "accuracy" else 1.0
    levels = np.concatenate([[unaffordable], front[kind].to_numpy()])
    return float(np.sum(np.diff(steps) * levels) / reference)
