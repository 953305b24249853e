"""costfs: cost-constrained feature selection for Random Forests.

The selectors are imported on first use, so that the workflow's light jobs (data, costs,
aggregation) start without loading scikit-learn.
"""

import importlib

__version__ = "0.1.0"

_SELECTORS = {
    "AUCFilter": "costfs.methods.auc",
    "PermutationImportanceFilter": "costfs.methods.pfi",
    "ShallowTreeSelector": "costfs.methods.sts",
    "FeatureLimitedTreeSelector": "costfs.methods.sts_features",
    "ForwardSelector": "costfs.methods.fs",
    "BudgetRFSelector": "costfs.methods.budget_rf",
    "ModelScheduleSelector": "costfs.methods.msb",
    "FeatBoostSelector": "costfs.methods.featboost",
    "XGBImportanceSelector": "costfs.methods.xgb_fs",
    "ReliefFSelector": "costfs.methods.relieff",
    "BorutaSelector": "costfs.methods.boruta",
}
__all__ = list(_SELECTORS)


def __getattr__(name: str):
    if name in _SELECTORS:
        return getattr(importlib.import_module(_SELECTORS[name]), name)
    raise AttributeError(f"module 'costfs' has no attribute {name!r}")
