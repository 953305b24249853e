"""The base of every method's scikit-learn selector, and `selector_for`, which makes a
method's selector from its class."""

import hashlib
import inspect
from collections.abc import Mapping, Sequence
from typing import Self

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from costfs.core.tabular import encode_levels, encode_table
from costfs.core.validation import (
    DataError,
    check_budget,
    check_class_target,
    check_costs,
    check_feature_frame,
    check_feature_groups,
    check_features,
)
from costfs.methods._base import Method
from costfs.methods._path import (
    check_path_budgets,
    exact_path,
    grid_path,
    path_table,
)
from costfs.methods._tuning import TUNED, TUNING_TREES, tuned_record, tuning_grid


def _is_tuned(value) -> bool:
    return isinstance(value, str) and value == TUNED


FINGERPRINT = "fingerprint"
"""The key of `precomputed_` holding digests of what the cost-free part was computed from."""
FINGERPRINT_PARTS = ("X", "y", "the preparation's parameters, random_state or engine")


def _digest(*parts) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        if isinstance(part, np.ndarray):
            digest.update(repr((part.shape, part.dtype.str)).encode())
            part = np.ascontiguousarray(part).tobytes()
        digest.update(part if isinstance(part, bytes) else repr(part).encode())
    return digest.hexdigest()


class CostConstrainedSelector(SelectorMixin, BaseEstimator, Method):
    """Selects features whose summed cost fits `budget`, by the rule of its method.

    Every method's selector is one subclass, made by `selector_for` from the method's class
    (a `Method` in `costfs/methods/<name>.py`, which declares its parameters and implements
    `prepare`/`select`); its keyword-only `__init__`, which stores exactly the declared
    parameters, and its numpydoc docstring come from that declaration.

    `precomputed`, where the method has it, is the `precomputed_` of an earlier fit on the same
    (X, y): changing `feature_costs`, `budget` or the hyperparameter then does not recompute
    the cost-free part.

    `feature_costs` is an array in column order, or a mapping / pandas Series keyed by column
    name when X is a DataFrame; None gives every feature the cost 1 (the budget is then a
    number of features). `feature_groups` and `group_costs` add shared costs: a group's cost
    is paid once, when the first of its features is selected (`costfs.core.costs.FeatureCosts`);
    `total_cost_` is the true cost of the selected set.

    X may miss values (NaN; each method's `missing_values` says how it handles them) and, as
    a DataFrame, have categorical columns (strings, booleans, pandas categoricals): each is one
    feature, coded by its levels' class shares (`costfs.core.tabular`), and `get_feature_names_out`
    names the input columns. y must have at least two classes (more than two where the method
    handles them, `multi_class`). Anything else (an infinite value, a column with no values)
    raises `DataError` naming the column, row or value.
    The hyperparameter (`xi`; BudgetRF: `alpha`) is a number, or "tuned": then each value of
    its tuning grid (xi: 0, 0.5, 1, 2; another: its default grid) selects, a Random Forest of
    500 trees is refit on each selected set, and the value whose set has the lowest OOB error
    wins (ties: lower cost, then lower value), as `costfs select` tunes it; `xi_` (`alpha_`)
    is the value used.
    Constant and duplicated columns are valid features: a constant column carries no
    information and is never chosen while an informative feature fits the budget; each copy
    of a duplicated column is a feature with its own cost.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        signature = inspect.Signature(
            [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + [
                inspect.Parameter(
                    key,
                    inspect.Parameter.KEYWORD_ONLY,
                    default=default,
                    annotation=cls.selector_annotation(key),
                )
                for key, default in cls.selector_parameters().items()
            ]
        )

        def __init__(self, **parameters):
            bound = signature.bind(self, **parameters)
            bound.apply_defaults()
            for key, value in list(bound.arguments.items())[1:]:
                setattr(self, key, value)

        __init__.__signature__ = signature
        __init__.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = __init__
        cls.__doc__ = cls.selector_doc(cls.__doc__)

    def _seed(self) -> int:
        if isinstance(self.random_state, int | np.integer):
            return int(self.random_state)
        return int(check_random_state(self.random_state).randint(2**31 - 1))

    def _grid(self) -> list:
        """The hyperparameter values `select` gets: the selector's own value, if any."""
        hyperparameter = self.hyperparameter
        return [] if hyperparameter is None else [getattr(self, hyperparameter.name)]

    def fit(self, X: ArrayLike | pd.DataFrame, y: ArrayLike) -> Self:
        """Select features on (X, y); sets `selected_features_`, `total_cost_`, `support_`,
        the hyperparameter's value used (`xi_`, `alpha_`) and `precomputed_` (the cost-free
        part, None for a method without one)."""
        name = type(self).__name__
        values = {parameter.name: getattr(self, parameter.name) for parameter in self.parameters}
        if isinstance(X, pd.DataFrame):
            check_feature_frame(X, "X")
            keyed = isinstance(self.feature_costs, Mapping | pd.Series)
            if keyed and not all(isinstance(column, str) for column in X.columns):
                raise DataError(
                    f"{name}: feature_costs are keyed by column name, but X's column names "
                    f"are not all strings ({list(X.columns)[:5]}); name the columns with strings "
                    "or give the costs as an array in column order"
                )
            # scikit-learn's record of the column names; the columns are ours to read.
            validate_data(self, X, skip_check_array=True)
            X, categorical = encode_table(X, "X")
        else:
            # scikit-learn's checks of shape, sparsity and dtype.
            X = validate_data(self, X, dtype=float, ensure_all_finite=False)
            categorical = np.array([], dtype=int)
        # Ours, which name the row and column of an infinite value or an empty column.
        X = check_features(X)
        y = check_class_target(y, X.shape[0])
        seed = self._seed()
        X, _ = encode_levels(X, y, categorical, seed=seed)
        feature_names = getattr(self, "feature_names_in_", None)
        own_costs = (
            np.ones(X.shape[1])
            if self.feature_costs is None
            else check_costs(
                self.feature_costs,
                X.shape[1],
                feature_names=feature_names,
            )
        )
        costs = check_feature_groups(
            own_costs, self.feature_groups, self.group_costs, feature_names
        )
        budget = check_budget(self.budget)
        hyperparameter = self.hyperparameter
        tuned = hyperparameter is not None and _is_tuned(getattr(self, hyperparameter.name))
        if not isinstance(self.n_jobs, int | np.integer) or self.n_jobs < 1:
            raise DataError(f"{name}: n_jobs must be a positive integer, got {self.n_jobs!r}")
        engine = getattr(self, "engine", "auto")
        # A random_state of None asks for no particular draw: any seed's cost-free part fits.
        fixed_seed = seed if isinstance(self.random_state, int | np.integer) else None
        fingerprint = [
            _digest(X),
            _digest(y),
            _digest(sorted(self.stage_parameters(values, "prepare").items()), fixed_seed, engine),
        ]
        prepared = self._checked_precomputed(fingerprint)
        grid = list(tuning_grid(hyperparameter)) if tuned else self._grid()
        artifacts: dict = {}

        def choose(budgets: Sequence[float]) -> list[dict]:
            """The selector's record at each budget, from one `select` call (the cost-free
            part computed on the first)."""
            nonlocal prepared
            prepared, selection = self.prepare_and_select(
                X,
                y,
                costs,
                list(budgets),
                grid,
                seed=seed,
                n_jobs=int(self.n_jobs),
                engine=engine,
                prepared=prepared,
                source=name,
                **values,
            )
            artifacts["selection"] = selection
            by_budget: dict[float, list[dict]] = {}
            for record in selection.records:
                by_budget.setdefault(float(record["budget"]), []).append(record)
            if not tuned:
                return [self.choose_record(by_budget[float(budget)]) for budget in budgets]
            return [
                tuned_record(
                    by_budget[float(budget)],
                    X,
                    y,
                    costs,
                    seed=seed,
                    n_trees=TUNING_TREES,
                    n_jobs=int(self.n_jobs),
                )
                for budget in budgets
            ]

        self.path_exact_ = not tuned and self.path_is_exact(values)
        if self.path_exact_:
            steps, record = exact_path(
                choose, costs, budget, lambda: self.path_steps(artifacts["selection"], costs)
            )
        else:
            path_budgets = check_path_budgets(self.path_budgets, name)
            steps, records = grid_path(choose, [*path_budgets, budget])
            record = records[sorted({*path_budgets, budget}).index(budget)]
        if getattr(self, "precomputed", None) is not None:
            self.precomputed_ = self.precomputed
        else:
            self.precomputed_ = (
                None if prepared is None else {**prepared, FINGERPRINT: np.array(fingerprint)}
            )
        if hyperparameter is not None:
            setattr(self, f"{hyperparameter.name}_", float(record["value"]))
        self.path_ = path_table(
            steps,
            costs,
            getattr(self, "feature_names_in_", None),
            X.shape[1],
            at_cost=self.path_exact_,
        )
        self.selected_features_ = np.asarray(record["features"], dtype=int)
        self.total_cost_ = costs.total(self.selected_features_)
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[self.selected_features_] = True
        return self

    def _checked_precomputed(self, fingerprint: list[str]) -> dict | None:
        """`precomputed` without its fingerprint, or a `DataError` naming what differs where
        it was computed from other data or settings than this fit's `fingerprint`."""
        given = getattr(self, "precomputed", None)
        if given is None:
            return None
        name = type(self).__name__
        if FINGERPRINT not in given:
            raise DataError(
                f"{name}: precomputed has no {FINGERPRINT!r}: pass the precomputed_ of a fit of "
                "this selector"
            )
        differ = [
            part
            for part, stored, now in zip(
                FINGERPRINT_PARTS, given[FINGERPRINT], fingerprint, strict=True
            )
            if str(stored) != now
        ]
        if differ:
            raise DataError(
                f"{name}: precomputed was computed with another {' and '.join(differ)} than this "
                "fit's; fit without precomputed, or pass the precomputed_ of a fit on this data"
            )
        return {key: value for key, value in given.items() if key != FINGERPRINT}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        return tags

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_


def selector_for(method: type[Method]) -> type[CostConstrainedSelector]:
    """The scikit-learn selector of `method`, a `Method` subclass: a subclass of both, named
    as the method's class and found as `costfs.<name>`, where pickling looks for it.

    The method's class comes first, so that what it defines overrides the contract's defaults.
    `costfs.methods.load_selector` makes each method's selector once: a second one would be
    another class. Pickling finds the selector only where `costfs.SELECTORS` names it."""
    # Created in the method's module, so that `Method` derives the method's name from it.
    selector = type(
        method.__name__,
        (method, CostConstrainedSelector),
        {"__module__": method.__module__, "__doc__": method.__doc__},
    )
    selector.__module__ = "costfs"
    return selector
