"""costfs: cost-constrained feature selection for Random Forests.

Every method file under `costfs/methods/` holds one class, the method; its scikit-learn
selector is reachable here by the class's name (`costfs.AUCFilter`,
`costfs.ShallowTreeSelector`, ...), made on first use: the workflow's jobs load their method
without scikit-learn. `costfs.cost_accuracy_curve` scores a selector's choice at each budget on
held-out data (`costfs.study.assessment`); `costfs.pareto_front` and `costfs.area_under_pareto`
are the Pareto front and its area (`costfs.core.pareto`).
"""

import importlib
from typing import TYPE_CHECKING

__version__ = "0.4.0"

SELECTORS = {
    "AUCFilter": "auc",
    "BorutaSelector": "boruta",
    "BudgetRFSelector": "budget_rf",
    "CostEfficientBoostingSelector": "cegb",
    "CostWeightedL1Selector": "l1_cost",
    "FeatBoostSelector": "featboost",
    "FeatureLimitedTreeSelector": "sts_features",
    "ForwardSelector": "fs",
    "ModelScheduleSelector": "msb",
    "PenalisedForestSelector": "rf_penalized",
    "PermutationImportanceFilter": "pfi",
    "RandomFillSelector": "random_fill",
    "ReliefFSelector": "relieff",
    "ShallowTreeSelector": "sts",
    "XGBImportanceSelector": "xgb_fs",
}
"""Each method's selector -> its method's module in `costfs.methods` (a conformance test holds
the two to each other)."""

if TYPE_CHECKING:
    from costfs.core.pareto import area_under_pareto, pareto_front
    from costfs.methods.auc import AUCFilter
    from costfs.methods.boruta import BorutaSelector
    from costfs.methods.budget_rf import BudgetRFSelector
    from costfs.methods.cegb import CostEfficientBoostingSelector
    from costfs.methods.featboost import FeatBoostSelector
    from costfs.methods.fs import ForwardSelector
    from costfs.methods.l1_cost import CostWeightedL1Selector
    from costfs.methods.msb import ModelScheduleSelector
    from costfs.methods.pfi import PermutationImportanceFilter
    from costfs.methods.random_fill import RandomFillSelector
    from costfs.methods.relieff import ReliefFSelector
    from costfs.methods.rf_penalized import PenalisedForestSelector
    from costfs.methods.sts import ShallowTreeSelector
    from costfs.methods.sts_features import FeatureLimitedTreeSelector
    from costfs.methods.xgb_fs import XGBImportanceSelector
    from costfs.study.assessment import cost_accuracy_curve

__all__ = [
    "AUCFilter",
    "BorutaSelector",
    "BudgetRFSelector",
    "CostEfficientBoostingSelector",
    "CostWeightedL1Selector",
    "FeatBoostSelector",
    "FeatureLimitedTreeSelector",
    "ForwardSelector",
    "ModelScheduleSelector",
    "PenalisedForestSelector",
    "PermutationImportanceFilter",
    "RandomFillSelector",
    "ReliefFSelector",
    "ShallowTreeSelector",
    "XGBImportanceSelector",
    "area_under_pareto",
    "cost_accuracy_curve",
    "pareto_front",
]


def __getattr__(name: str):
    if name == "cost_accuracy_curve":
        from costfs.study.assessment import cost_accuracy_curve

        return cost_accuracy_curve
    if name in ("pareto_front", "area_under_pareto"):
        return getattr(importlib.import_module("costfs.core.pareto"), name)
    if name in SELECTORS:
        from costfs.methods import load_selector

        return load_selector(SELECTORS[name])
    raise AttributeError(f"module 'costfs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
