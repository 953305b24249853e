"""The scikit-learn face of every method: a selector built on the method's workflow functions."""

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from costfs.methods import load_method
from costfs.validation import (
    check_binary_target,
    check_budget,
    check_costs,
    check_feature_frame,
    check_features,
)


class CostConstrainedSelector(SelectorMixin, BaseEstimator):
    """Selects features whose summed cost fits `budget`, by the rule of `_method`.

    Subclasses set `_method_name` (a module of `costfs.methods`) and list their parameters in
    `__init__`; the method's own parameters (besides `feature_costs`, `budget`, `xi`,
    `random_state` and `precomputed`) are passed on to its `select`.

    `precomputed`, where given, is the result of the method's cost-free `prepare` on the same
    (X, y): changing `feature_costs`, `budget` or `xi` then does not recompute it.

    `feature_costs` is an array in column order, or a mapping / pandas Series keyed by column
    name when X is a DataFrame. X must be numeric and finite and y must have exactly two
    classes; anything else raises `DataError` naming the column, row or value. Constant and
    duplicated columns are valid features: a constant column carries no information and is
    never chosen while an informative feature fits the budget; each copy of a duplicated column
    is a feature with its own cost.
    """

    _method_name: str
    _common_parameters = ("feature_costs", "budget", "xi", "random_state", "precomputed")

    def _method_parameters(self) -> dict:
        return {
            name: value
            for name, value in self.get_params(deep=False).items()
            if name not in self._common_parameters
        }

    def _grid(self) -> list:
        """The hyperparameter values `select` gets: the selector's xi."""
        return [self.xi]

    def _seed(self) -> int:
        if isinstance(self.random_state, int | np.integer):
            return int(self.random_state)
        return int(check_random_state(self.random_state).randint(2**31 - 1))

    def fit(self, X, y):
        """Select features on (X, y); sets `selected_features_`, `total_cost_`, `support_`."""
        if isinstance(X, pd.DataFrame):
            check_feature_frame(X, "X")
        else:
            check_features(X)
        X = validate_data(self, X, dtype=float, ensure_all_finite=True)
        y = check_binary_target(y, X.shape[0])
        costs = check_costs(
            self.feature_costs, X.shape[1], feature_names=getattr(self, "feature_names_in_", None)
        )
        budget = check_budget(self.budget)
        seed = self._seed()
        parameters = self._method_parameters()
        method = load_method(self._method_name)
        prepared = self.precomputed
        if prepared is None and hasattr(method, "prepare"):
            prepared = method.prepare(X, y, seed=seed, **parameters)
        self.precomputed_ = prepared
        (selection,) = method.select(
            X, y, costs, [budget], self._grid(), prepared=prepared, seed=seed, **parameters
        )
        self.selected_features_ = np.asarray(selection["features"], dtype=int)
        self.total_cost_ = float(costs[self.selected_features_].sum())
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[self.selected_features_] = True
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_
