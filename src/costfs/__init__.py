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
    from costfs.methods import auc as _auc
    from costfs.methods import boruta as _boruta
    from costfs.methods import budget_rf as _budget_rf
    from costfs.methods import cegb as _cegb
    from costfs.methods import featboost as _featboost
    from costfs.methods import fs as _fs
    from costfs.methods import l1_cost as _l1_cost
    from costfs.methods import msb as _msb
    from costfs.methods import pfi as _pfi
    from costfs.methods import random_fill as _random_fill
    from costfs.methods import relieff as _relieff
    from costfs.methods import rf_penalized as _rf_penalized
    from costfs.methods import sts as _sts
    from costfs.methods import sts_features as _sts_features
    from costfs.methods import xgb_fs as _xgb_fs
    from costfs.methods._selector import CostConstrainedSelector as _Selector
    from costfs.study.assessment import cost_accuracy_curve

    # The classes `costfs.methods.load_selector` makes, as type checkers and IDEs see them.
    class AUCFilter(_auc.AUCFilter, _Selector): ...

    class BorutaSelector(_boruta.BorutaSelector, _Selector): ...

    class BudgetRFSelector(_budget_rf.BudgetRFSelector, _Selector): ...

    class CostEfficientBoostingSelector(_cegb.CostEfficientBoostingSelector, _Selector): ...

    class FeatBoostSelector(_featboost.FeatBoostSelector, _Selector): ...

    class ForwardSelector(_fs.ForwardSelector, _Selector): ...

    class CostWeightedL1Selector(_l1_cost.CostWeightedL1Selector, _Selector): ...

    class ModelScheduleSelector(_msb.ModelScheduleSelector, _Selector): ...

    class PermutationImportanceFilter(_pfi.PermutationImportanceFilter, _Selector): ...

    class RandomFillSelector(_random_fill.RandomFillSelector, _Selector): ...

    class ReliefFSelector(_relieff.ReliefFSelector, _Selector): ...

    class PenalisedForestSelector(_rf_penalized.PenalisedForestSelector, _Selector): ...

    class ShallowTreeSelector(_sts.ShallowTreeSelector, _Selector): ...

    class FeatureLimitedTreeSelector(_sts_features.FeatureLimitedTreeSelector, _Selector): ...

    class XGBImportanceSelector(_xgb_fs.XGBImportanceSelector, _Selector): ...


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
