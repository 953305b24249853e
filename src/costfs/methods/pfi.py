"""Permutation-importance filter (RF paper, section 2.3): rank by pFI / c^xi, fill the budget."""

from costfs.engine.importance import IMPORTANCE_ENGINES, permutation_importance
from costfs.methods._base import XI, Method, Parameter, integer
from costfs.methods._bcr import filter_selections


class PermutationImportanceFilter(Method):
    summary = "rank by OOB permutation importance / c^ξ of one Random Forest, fill the budget"
    hyperparameter = XI
    parameters = (
        Parameter(
            "n_trees",
            integer(),
            1000,
            "trees of the permutation-importance forest",
            stage="prepare",
        ),
    )
    preparation_engines = IMPORTANCE_ENGINES
    parallel_preparation = True  # its forests, the same on any thread count
    missing_values = (
        "native: the trees send a missing value to the side that lowers impurity "
        "(scikit-learn's rule, numba's trees too); permuting a feature permutes its "
        "missing values with the rest"
    )
    colour = "#E69F00"
    exact_path = True

    def prepare(self, X, y, context, *, n_trees):
        scores = permutation_importance(
            X, y, n_trees=n_trees, seed=context.seed, n_jobs=context.n_jobs, engine=context.engine
        )
        return {"scores": scores}

    def select(self, X, y, costs, budgets, grid, context):
        return filter_selections(context.prepared["scores"], costs, budgets, grid)
