"""Boruta (Kursa et al.; a comparator of the FeatBoost paper) as a cost-agnostic ranking filled
to the budget.

Boruta runs through the `boruta` package (BorutaPy, 0.4), which works with numpy 2 and current
scikit-learn. Its importance model is a Random Forest of the project's engine
(`costfs.engine.forest`, scikit-learn-intelex where it installs: same API, faster)
with Gini importances, `max_depth` 5 (BorutaPy's advice: 3-7) and BorutaPy's rule for the number of
trees (`n_estimators="auto"`) unless given. The FeatBoost paper ran Boruta on XGBoost instead; this
project keeps Boruta's own Random Forest.

Ranking: by BorutaPy's decision — confirmed (`support_`), then tentative (`support_weak_`: the
tentative features its rough fix keeps), then rejected — and within each group by the median
importance over Boruta's iterations (over the iterations before rejection, for rejected
features); ties go to the lower cost, then the lower index. `keep` says how far down the
ranking the budget is filled: "confirmed" (Boruta's selection, the default), "tentative"
(confirmed and tentative) or "all" (the whole ranking). The decisions and importances are
cost-free: `prepare` runs Boruta once per data set.
"""

import numpy as np

from costfs.core.costs import FeatureCosts
from costfs.core.extras import import_optional
from costfs.engine.forest import ENGINES, gini_importances, random_forest
from costfs.methods._base import Method, Parameter, choice, integer, number, or_value
from costfs.methods._bcr import ranking_selections

CONFIRMED, TENTATIVE, REJECTED = 0, 1, 2
KEEP = {"confirmed": CONFIRMED, "tentative": TENTATIVE, "all": REJECTED}
"""The worst decision a feature may have to be filled into the budget."""


def boruta_decisions(
    X: np.ndarray,
    y: np.ndarray,
    *,
    seed: int,
    max_iter: int,
    max_depth: int,
    n_estimators: int | str,
    alpha: float,
    n_jobs: int = 1,
    engine: str = "auto",
) -> tuple[np.ndarray, np.ndarray]:
    """Per feature: Boruta's decision (CONFIRMED, TENTATIVE or REJECTED) and its median
    importance over the iterations in which it took part."""
    package = import_optional("boruta", extra="related", needed_by="method boruta")

    forest = random_forest(
        n_trees=1, n_features=X.shape[1], seed=seed, n_jobs=n_jobs, engine=engine
    )
    # BorutaPy sets the number of trees itself; the shadow features double the columns, so
    # mtry follows the column count instead of being fixed from p.
    forest.set_params(oob_score=False, max_features="sqrt", max_depth=int(max_depth))

    class MissingValueBoruta(package.BorutaPy):
        """BorutaPy whose input check lets missing values through to the forest, which
        handles them (BorutaPy itself only shuffles columns), and which takes the forest's
        importances from `gini_importances` (the same floats, faster for a sklearnex forest)."""

        def _check_params(self, X, y):
            super()._check_params(np.nan_to_num(X), y)

        def _get_imp(self, X, y):
            self.estimator.fit(X, y)
            return gini_importances(self.estimator)

    boruta = MissingValueBoruta(
        forest,
        n_estimators=n_estimators,
        alpha=float(alpha),
        max_iter=int(max_iter),
        random_state=seed,
    )
    boruta.fit(np.asarray(X, dtype=float), np.asarray(y))
    decisions = np.full(X.shape[1], REJECTED)
    decisions[boruta.support_weak_] = TENTATIVE
    decisions[boruta.support_] = CONFIRMED
    # The history's first row is BorutaPy's all-zero initialisation, not an iteration.
    importance = np.nanmedian(boruta.importance_history_[1:], axis=0)
    return decisions, importance


def boruta_order(
    decisions: np.ndarray, importance: np.ndarray, costs: np.ndarray, keep: str
) -> np.ndarray:
    """Features by decision, then decreasing importance, lower cost, lower index; only those
    whose decision is at least as good as `keep` allows."""
    standalone = FeatureCosts.of(costs).standalone()
    order = np.lexsort((np.arange(decisions.size), standalone, -importance, decisions))
    return order[decisions[order] <= KEEP[keep]]


class BorutaSelector(Method):
    summary = (
        "Boruta (BorutaPy) decisions, confirmed features by importance, filled to the budget "
        "(cost-agnostic)"
    )
    parameters = (
        Parameter("max_iter", integer(), 100, "Boruta iterations (BorutaPy)", stage="prepare"),
        Parameter(
            "max_depth", integer(), 5, "depth of Boruta's Random Forest trees", stage="prepare"
        ),
        Parameter(
            "n_estimators",
            or_value(integer(), "auto"),
            "auto",
            "trees of Boruta's forest (`auto`: BorutaPy's rule)",
            stage="prepare",
        ),
        Parameter(
            "alpha",
            number(exclusive_minimum=0, exclusive_maximum=1),
            0.05,
            "significance level of Boruta's tests",
            stage="prepare",
        ),
        Parameter(
            "keep",
            choice(*KEEP),
            "confirmed",
            "which Boruta decisions may be filled into the budget (ranked confirmed, tentative, "
            "rejected, then by median importance)",
        ),
    )
    preparation_engines = ENGINES
    parallel_preparation = True  # its forests, the same on any thread count
    missing_values = (
        "native: Boruta's forest (scikit-learn's trees) sends a missing value to the side "
        "that lowers impurity; a shadow feature keeps its missing values"
    )
    colour = "#332288"
    exact_path = True

    def prepare(self, X, y, context, *, max_iter, max_depth, n_estimators, alpha):
        decisions, importance = boruta_decisions(
            X,
            y,
            seed=context.seed,
            max_iter=max_iter,
            max_depth=max_depth,
            n_estimators=n_estimators,
            alpha=alpha,
            n_jobs=context.n_jobs,
            engine=context.engine,
        )
        return {"decisions": decisions, "importance": importance}

    def select(self, X, y, costs, budgets, grid, context, *, keep):
        order = boruta_order(
            context.prepared["decisions"], context.prepared["importance"], costs, keep
        )
        return ranking_selections(order, costs, budgets)
