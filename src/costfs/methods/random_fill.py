"""Random fill: a baseline every study needs ("better than chance?").

The features in a random order, seeded by the run, filled to the budget: each feature that
still fits is kept, the others are skipped. It ignores the data and the costs (except as the
constraint), so a method worth its cost beats it at every budget.
"""

import numpy as np

from costfs.methods._base import Method
from costfs.methods._bcr import ranking_selections


class RandomFillSelector(Method):
    summary = "features in a seeded random order filled to the budget (cost-agnostic baseline)"
    missing_values = "not read: the order is random"
    colour = "#BBBBBB"
    exact_path = True

    def select(self, X, y, costs, budgets, grid, context):
        order = np.random.default_rng(context.seed).permutation(np.asarray(X).shape[1])
        return ranking_selections(order, costs, budgets)
