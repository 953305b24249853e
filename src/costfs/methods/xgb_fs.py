"""XGB-FS (FeatBoost paper, section 4.4.1): XGBoost gain importance with the mean as threshold,
as a cost-agnostic ranking filled to the budget.

The importances come from one XGBoost classifier on all features (paper: 100 trees, maximal
depth 20, other parameters at the defaults of XGBoost 0.90, whose learning rate was 0.1); they
are cost-free, so `prepare` computes them once per data set.

Threshold and budget. The paper's XGB-FS discards the features whose importance is below the
mean importance. With `threshold="mean"` (the default) only the features at or above the mean
are eligible: they are walked by decreasing importance and each one that still fits the budget
is kept (`costfs.methods._bcr.fill_budget`), so a large budget may stay partly unused — the record's
`unused_budget` says how much. `threshold="none"` fills the budget from the whole ranking.
Ties in importance go to the lower cost, then the lower index (as for every filter).

The XGBoost model and its cost-free importances are shared with FeatBoost
(`costfs.methods._xgboost`), the threshold and fill with ReliefF (`costfs.methods._bcr`).
"""

from costfs.methods._base import Method
from costfs.methods._bcr import THRESHOLD, thresholded_selection
from costfs.methods._xgboost import XGBOOST_PARAMETERS, GainImportancePreparation


class XGBImportanceSelector(GainImportancePreparation, Method):
    summary = (
        "XGBoost gain importance, features above the mean importance filled to the budget "
        "(cost-agnostic)"
    )
    parameters = (*XGBOOST_PARAMETERS, THRESHOLD)
    missing_values = "native: XGBoost learns each split's side for missing values"
    colour = "#8C6D31"
    exact_path = True

    def select(self, X, y, costs, budgets, grid, context, *, threshold):
        return thresholded_selection(context.prepared["scores"], costs, budgets, threshold)
