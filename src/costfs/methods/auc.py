"""AUC filter (RF paper, section 2.2): rank by 2|AUC - 0.5| / c^xi, fill the budget."""

from costfs.engine.importance import auc_scores
from costfs.methods._base import XI, Method
from costfs.methods._bcr import filter_selections


class AUCFilter(Method):
    summary = "rank by 2·|AUC−0.5| / c^ξ, fill the budget"
    hyperparameter = XI
    missing_values = (
        "a pair of rows of which one misses the value is a tie: the AUC of the rows that "
        "have it, shrunk towards 0.5 by the share of pairs they make"
    )
    colour = "#0072B2"
    exact_path = True

    def prepare(self, X, y, context):
        return {"scores": auc_scores(X, y)}

    def select(self, X, y, costs, budgets, grid, context):
        return filter_selections(context.prepared["scores"], costs, budgets, grid)
