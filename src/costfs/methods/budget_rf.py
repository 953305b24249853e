"""BudgetRF (Nan et al. 2015): a forest of cost-aware greedy trees under a budget.

GreedyTree grows one tree on a bootstrap sample with the threshold-Pairs impurity F_alpha on
class counts and minimax splits: per feature, the threshold minimising the larger impurity of
the two children; then the feature minimising c(t)^xi / (F(S) - max_i F(S_i)), xi the cost
exponent (xi = 1 is the authors' rule, xi = 0 cost-agnostic). A node is a leaf when F(S) = 0,
when no split lowers the larger child impurity below F(S), or when no split leaves `min_leaf`
bootstrap draws on both sides.

Two ways to meet the protocol's hard budget on the union of the features used:

- `hard_budget` (the default): every tree grows within what is left of the budget. A split on
  a feature not yet paid for is eligible only if its cost fits the rest; a feature in the
  paid union (earlier trees, or earlier nodes of this tree) costs 0 from then on. All
  `n_trees_max` trees are added, each adding its new features to the union. A forest grown
  for a budget the budget never constrained (no split was ruled out) is also the forest of
  every larger budget, so it is grown once.
- the literal adaptation (`hard_budget: false`): trees grow as in the authors' code, where c(t)
  is the feature's own cost wherever it is used (`paid_features_free=True` makes features
  already used on the path to a node cost 0 there), and are added while the union of their
  features fits the budget: the first tree that would exceed it is not added, and growth
  stops. All budgets share one sequence of trees per (alpha, xi), cut where the budget binds.

Tree i of every (alpha, xi, budget) uses the same bootstrap sample (seeded from (seed, i)).
The protocol's result is the union of the forest's features; each record also carries the
forest's own majority-vote OOB error and its expected acquisition cost (the mean over training
rows of the summed cost of the distinct features the forest evaluates for that row: the
paper's cost notion). `select` keeps the forests as flat arrays, from which
`ensemble_test_metrics` gives their own test error and acquisition cost.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.core.progress import progress_bar
from costfs.core.seeds import derive_seed
from costfs.core.tabular import missing_as_lowest
from costfs.engine.forest import class_count, majority_class
from costfs.methods._base import (
    Hyperparameter,
    Method,
    Parameter,
    Selection,
    boolean,
    integer,
    number,
    numbers,
)

if TYPE_CHECKING:
    import pandas as pd


def _pair_products(counts, alpha: float) -> list:
    """[n_i - alpha]_+ [n_j - alpha]_+ for every pair of classes i < j."""
    excess = [np.maximum(np.asarray(n) - alpha, 0) for n in counts]
    return [excess[i] * excess[j] for i in range(len(excess)) for j in range(i + 1, len(excess))]


def pairs_impurity(counts, alpha: float):
    """Threshold-Pairs F_alpha of nodes with class counts `counts` (one count, or array of
    counts, per class): the sum over ordered pairs i != j of [[n_i - alpha]_+ [n_j - alpha]_+ -
    alpha^2]_+, twice the sum over the pairs i < j."""
    total = 0
    for product in _pair_products(counts, alpha):
        total = total + np.maximum(product - alpha**2, 0.0)
    return 2.0 * total


def winning_classes(class_votes: np.ndarray, tie_label: int) -> np.ndarray:
    """Per row of (rows x K) class counts, the class with the most; a tie goes to
    `tie_label` where it is among the tied classes, else to the lowest of them."""
    is_max = class_votes == class_votes.max(axis=-1, keepdims=True)
    return np.where(is_max[..., tie_label], tie_label, np.argmax(is_max, axis=-1))


@dataclass(frozen=True)
class GreedyTree:
    """A binary tree in arrays: node k sends x to `left[k]` if x[feature[k]] <= threshold[k],
    else to `right[k]`; a leaf (`feature` == `costfs.methods._budget_trees.LEAF`) predicts
    `label`."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    label: np.ndarray

    def used_features(self) -> np.ndarray:
        from costfs.methods._budget_trees import LEAF

        return np.unique(self.feature[self.feature != LEAF])

    def route(self, X: np.ndarray, acquired: np.ndarray) -> np.ndarray:
        """The tree's labels for the rows of X; sets acquired[r, j] for every feature j the
        tree evaluates on row r's path (acquired is an (n, p) bool array, updated in place)."""
        from costfs.methods._budget_trees import tree_labels

        return tree_labels(
            np.asarray(X, dtype=float),
            self.feature,
            self.threshold,
            self.left,
            self.right,
            self.label,
            acquired,
        )


@dataclass(frozen=True)
class SortedColumns:
    """The columns of X and each column's argsort (rows by increasing value), computed once
    for all trees."""

    columns: np.ndarray
    order: np.ndarray

    @classmethod
    def of(cls, X: np.ndarray) -> "SortedColumns":
        X = np.asarray(X, dtype=float)
        return cls(
            columns=np.ascontiguousarray(X.T),
            order=np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T, dtype=np.intp),
        )


@dataclass
class BudgetLedger:
    """The features a forest has paid for under a hard budget, updated as trees grow: a split
    on a feature is eligible if the feature is paid for or what it adds (`costs.added`) fits
    the budget left (`budget - costs.total(paid)`)."""

    costs: FeatureCosts
    budget: float
    paid: np.ndarray
    constrained: bool = False
    """Whether the budget ruled out a split that impurity alone would have allowed."""

    @classmethod
    def empty(cls, costs, budget: float) -> "BudgetLedger":
        costs = FeatureCosts.of(costs)
        return cls(costs=costs, budget=budget, paid=np.zeros(costs.n_features, dtype=bool))


def grow_greedy_tree(
    X: np.ndarray,
    sorted_columns: SortedColumns,
    y: np.ndarray,
    draws: np.ndarray,
    costs: np.ndarray,
    *,
    alpha: float,
    cost_exponent: float,
    min_leaf: int,
    paid_features_free: bool,
    ledger: BudgetLedger | None = None,
    tie_label: int = 0,
) -> GreedyTree:
    """GreedyTree on the rows drawn `draws[r]` times (a bootstrap sample as counts).

    With a `ledger`, only splits the budget affords are eligible, features it has paid for
    cost 0, and every split on a new feature pays for it. Ties: features by lower ratio, then
    lower cost, then larger impurity decrease, then lower index; within a feature, the cut
    with the smallest pair product, then the lowest threshold. A leaf predicts the class with
    the most draws; a tie among classes goes to `tie_label` if it is among them, else the
    lowest. `y` holds class codes 0..K-1.

    The tree is grown by `costfs.methods._budget_trees.grow_tree`, compiled with numba. It
    skips work that cannot change the tree: a child that will be a leaf is not sorted by every
    feature, and once the budget has ruled out a split, the cuts of features it cannot afford
    are not searched.
    """
    # Without a ledger the prices are `costs` and the ledger's arrays go unread.
    ledger_costs = FeatureCosts.of(ledger.costs if ledger is not None else costs)
    paid = ledger.paid if ledger is not None else np.zeros(X.shape[1], dtype=bool)
    from costfs.methods._budget_trees import grow_tree

    feature, threshold, left, right, label, constrained = grow_tree(
        sorted_columns.columns,
        sorted_columns.order,
        np.asarray(y, dtype=np.intp),
        np.asarray(draws, dtype=np.int64),
        class_count(y),
        float(alpha),
        float(cost_exponent),
        int(min_leaf),
        int(tie_label),
        np.asarray(costs, dtype=float),
        bool(paid_features_free),
        ledger is not None,
        float(ledger.budget) if ledger is not None else np.inf,
        paid,
        ledger_costs.own,
        ledger_costs.group.astype(np.intp),
        ledger_costs.shared,
        ledger is not None and ledger.constrained,
    )
    if ledger is not None:
        ledger.constrained = constrained
    return GreedyTree(feature=feature, threshold=threshold, left=left, right=right, label=label)


def bootstrap_draws(seed: int, n_trees: int, n_rows: int) -> np.ndarray:
    """Row t: how often each row is drawn into tree t's bootstrap sample (trees x rows). The
    same for every alpha, cost exponent and budget, so `grow_budget_forests` draws them once
    for all their forests: drawing them again for each took about 5% of a selection."""
    draws = np.empty((n_trees, n_rows), dtype=np.int64)
    for tree in range(n_trees):
        rng = np.random.default_rng(derive_seed(seed, "budget_rf", "tree", tree))
        draws[tree] = np.bincount(rng.integers(0, n_rows, size=n_rows), minlength=n_rows)
    return draws


@dataclass(frozen=True)
class BudgetForest:
    """The trees of one (alpha, cost exponent) in the order they were added, with per-prefix
    summaries: entry k of each array describes the forest of the first k trees."""

    alpha: float
    cost_exponent: float
    trees: list[GreedyTree]
    union_cost: np.ndarray
    oob_mmce: np.ndarray
    acquisition_cost: np.ndarray
    constrained: bool = False
    """Grown under a hard budget that ruled out some split (else it is the forest of every
    larger budget too)."""

    def trees_within(self, budget: float) -> int:
        """The number of leading trees whose features fit `budget`."""
        return int(np.searchsorted(self.union_cost, budget + BUDGET_TOLERANCE, side="right")) - 1

    def features(self, n_trees: int) -> np.ndarray:
        used = [tree.used_features() for tree in self.trees[:n_trees]]
        return np.unique(np.concatenate([np.empty(0, dtype=np.intp), *used]))


def _vote_error(class_votes, y, tie_label) -> float:
    """MMCE of majority votes (`winning_classes`) over the rows that have at least one vote."""
    voted = class_votes.sum(axis=1) > 0
    if not voted.any():
        return float(np.mean(y != tie_label))
    return float(np.mean(winning_classes(class_votes[voted], tie_label) != y[voted]))


def grow_budget_forest(
    X: np.ndarray,
    y: np.ndarray,
    costs,
    alpha: float,
    *,
    budget: float,
    seed: int,
    cost_exponent: float,
    hard_budget: bool,
    n_trees_max: int,
    min_leaf: int,
    paid_features_free: bool,
    sorted_columns: SortedColumns | None = None,
    draws: np.ndarray | None = None,
) -> BudgetForest:
    """Trees for one (alpha, cost exponent) within `budget`: grown within what is left of it
    (`hard_budget`), or added while the union of their features fits it (the literal rule).

    The OOB error of the first k trees is over the training rows out of bag for at least one
    of them (the majority class's error for k = 0); tied votes go to the majority class.
    `sorted_columns` and `draws` (`bootstrap_draws`) may be passed in when computed once for
    several forests.
    """
    n_rows = X.shape[0]
    if sorted_columns is None:
        sorted_columns = SortedColumns.of(X)
    if draws is None:
        draws = bootstrap_draws(seed, n_trees_max, n_rows)
    tie_label = majority_class(y)
    costs = FeatureCosts.of(costs)
    ledger = BudgetLedger.empty(costs, budget) if hard_budget else None
    # The literal rule prices a feature as if it were used alone.
    static_costs = costs.standalone()
    used = np.zeros(X.shape[1], dtype=bool)
    acquired = np.zeros(X.shape, dtype=bool)
    class_votes = np.zeros((n_rows, class_count(y)), dtype=np.int64)
    trees = []
    union_cost, oob_mmce, acquisition_cost = [0.0], [_vote_error(class_votes, y, tie_label)], [0.0]
    for index in range(n_trees_max):
        tree = grow_greedy_tree(
            X,
            sorted_columns,
            y,
            draws[index],
            static_costs,
            alpha=alpha,
            cost_exponent=cost_exponent,
            min_leaf=min_leaf,
            paid_features_free=paid_features_free,
            ledger=ledger,
            tie_label=tie_label,
        )
        with_tree = used.copy()
        with_tree[tree.used_features()] = True
        cost = costs.total(np.flatnonzero(with_tree))
        if cost > budget + BUDGET_TOLERANCE:
            break
        used = with_tree
        trees.append(tree)
        predicted = tree.route(X, acquired)
        out_of_bag = np.flatnonzero(draws[index] == 0)
        class_votes[out_of_bag, predicted[out_of_bag]] += 1
        union_cost.append(cost)
        oob_mmce.append(_vote_error(class_votes, y, tie_label))
        acquisition_cost.append(float(costs.row_totals(acquired).mean()))
    return BudgetForest(
        alpha=float(alpha),
        cost_exponent=float(cost_exponent),
        trees=trees,
        union_cost=np.array(union_cost),
        oob_mmce=np.array(oob_mmce),
        acquisition_cost=np.array(acquisition_cost),
        constrained=ledger is not None and ledger.constrained,
    )


def grow_budget_forests(
    X: np.ndarray,
    y: np.ndarray,
    costs,
    budgets: Sequence[float],
    alphas: Sequence[float],
    *,
    seed: int,
    cost_exponents: Sequence[float],
    hard_budget: bool,
    n_trees_max: int,
    min_leaf: int,
    paid_features_free: bool,
    n_jobs: int = 1,
) -> dict[tuple[float, float, float], tuple[BudgetForest, int]]:
    """(alpha, cost exponent, budget) -> (forest, number of its leading trees the budget takes),
    for every combination; the (alpha, cost exponent) pairs are grown `n_jobs` at a time (the
    result does not depend on it)."""
    from joblib import Parallel, delayed

    X = np.asarray(X, dtype=float)
    y = np.asarray(y).astype(np.intp)
    costs = FeatureCosts.of(costs)
    sorted_columns = SortedColumns.of(X)
    options = dict(
        seed=seed,
        hard_budget=hard_budget,
        n_trees_max=n_trees_max,
        min_leaf=min_leaf,
        paid_features_free=paid_features_free,
        sorted_columns=sorted_columns,
        draws=bootstrap_draws(seed, n_trees_max, X.shape[0]),
    )

    def forests_of(alpha: float, exponent: float) -> dict:
        if not hard_budget:
            shared = grow_budget_forest(
                X, y, costs, alpha, budget=max(budgets), cost_exponent=exponent, **options
            )
            return {budget: (shared, shared.trees_within(budget)) for budget in budgets}
        forests = {}
        unconstrained = None
        for budget in sorted(budgets):
            forest = unconstrained or grow_budget_forest(
                X, y, costs, alpha, budget=budget, cost_exponent=exponent, **options
            )
            if not forest.constrained:
                unconstrained = forest
            forests[budget] = (forest, len(forest.trees))
        return forests

    pairs = [(float(alpha), float(exponent)) for alpha in alphas for exponent in cost_exponents]
    grown = []
    with progress_bar("BudgetRF (alpha, exponent) forests", total=len(pairs)) as shown:
        for forests in Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
            delayed(forests_of)(alpha, exponent) for alpha, exponent in pairs
        ):
            grown.append(forests)
            shown.update(1)
    return {
        (alpha, exponent, budget): entry
        for (alpha, exponent), forests in zip(pairs, grown, strict=True)
        for budget, entry in forests.items()
    }


ForestKey = tuple[float, float, float]
"""(alpha, cost exponent, budget) of a stored forest."""


def forests_to_arrays(
    forests: Mapping[ForestKey, Sequence[GreedyTree]], tie_label: int
) -> dict[str, np.ndarray]:
    """The forests as flat arrays for `np.savez`: forest f has key (`alpha[f]`,
    `cost_exponent[f]`, `budget[f]`) and the next `n_trees[f]` trees; tree t has nodes
    `node_start[t]:node_start[t+1]` (child indices within the tree). `tie_label` is the
    training majority class, which takes tied votes."""
    trees = [tree for forest in forests.values() for tree in forest]

    def joined(name, dtype):
        parts = [getattr(tree, name) for tree in trees]
        return np.concatenate([np.empty(0, dtype=dtype), *parts]).astype(dtype)

    keys = np.array(list(forests), dtype=float).reshape(-1, 3)
    return {
        "alpha": keys[:, 0],
        "cost_exponent": keys[:, 1],
        "budget": keys[:, 2],
        "n_trees": np.array([len(forest) for forest in forests.values()], dtype=np.int64),
        "node_start": np.cumsum([0] + [tree.feature.size for tree in trees], dtype=np.int64),
        "node_feature": joined("feature", np.int32),
        "node_threshold": joined("threshold", float),
        "node_left": joined("left", np.int32),
        "node_right": joined("right", np.int32),
        "node_label": joined("label", np.int8),
        "tie_label": np.array(tie_label),
    }


def ensemble_test_metrics(
    forests: Mapping[str, np.ndarray], X_test: np.ndarray, y_test: np.ndarray, costs
) -> "pd.DataFrame":
    """Each stored forest's own test MMCE (majority vote, ties to the training majority class)
    and expected acquisition cost per test row: columns `value` (alpha), `cost_exponent`,
    `budget`, `ensemble_test_mmce`, `ensemble_test_acquisition_cost` -- joined to a selection
    on its first three.

    `forests` is the array dict `select` keeps (`forests_to_arrays`).
    """
    # Only BudgetRF's evaluation job, which joins these to its selections, needs pandas.
    import pandas as pd

    from costfs.methods._budget_trees import forest_votes

    X_test = np.ascontiguousarray(X_test, dtype=float)
    y_test = np.asarray(y_test)
    costs = FeatureCosts.of(costs)
    tie_label = int(forests["tie_label"])
    # Wide enough for every label a leaf can predict.
    n_classes = max(tie_label, int(np.max(forests["node_label"], initial=0))) + 1
    first = np.cumsum(np.concatenate([[0], forests["n_trees"]]))
    keys = zip(forests["alpha"], forests["cost_exponent"], forests["budget"], strict=True)
    rows = []
    for f, (alpha, exponent, budget) in enumerate(keys):
        acquired = np.zeros(X_test.shape, dtype=bool)
        class_votes = forest_votes(
            X_test,
            forests["node_feature"],
            forests["node_threshold"],
            forests["node_left"],
            forests["node_right"],
            forests["node_label"],
            forests["node_start"],
            first[f],
            first[f + 1],
            n_classes,
            acquired,
        )
        predicted = winning_classes(class_votes, tie_label)
        rows.append(
            {
                "value": float(alpha),
                "cost_exponent": float(exponent),
                "budget": float(budget),
                "ensemble_test_mmce": float(np.mean(predicted != y_test)),
                "ensemble_test_acquisition_cost": float(costs.row_totals(acquired).mean()),
            }
        )
    return pd.DataFrame(rows)


class BudgetRFSelector(Method):
    summary = (
        "BudgetRF (Nan et al.): GreedyTrees with the threshold-Pairs impurity and minimax "
        "splits weighted by cost^ξ on bootstrap samples, each grown within what is left of the "
        "budget; (α, ξ) tuned by OOB error. `runs.parquet` also gets `cost_exponent` and the "
        "ensemble's own `ensemble_oob_mmce`, `ensemble_test_mmce` and expected per-example "
        "acquisition cost (`expected_acquisition_cost` on training rows, "
        "`ensemble_test_acquisition_cost` on test rows)"
    )
    hyperparameter = Hyperparameter(
        "alpha",
        number(minimum=0),
        default=0.0,
        help="threshold of the Pairs impurity, in class counts: larger alpha gives shallower, "
        "cheaper trees",
        grid=(0, 2, 4, 6, 8, 10, 15, 25, 35, 45),
    )
    parameters = (
        Parameter(
            "cost_exponents",
            numbers(),
            [0, 0.5, 1],
            "exponents ξ of the split rule c(t)^ξ / impurity decrease (1: the authors' rule, "
            "0: cost-agnostic), tuned together with alpha (the selector takes the pair with "
            "the lowest ensemble OOB error)",
        ),
        Parameter(
            "hard_budget",
            boolean(),
            True,
            "grow every tree within what is left of the budget, paid features free; false: "
            "the literal adaptation, trees added while the union of their features fits",
        ),
        Parameter("n_trees_max", integer(), 40, "at most this many GreedyTrees"),
        Parameter("min_leaf", integer(), 1, "smallest leaf (in bootstrap draws)"),
        Parameter(
            "paid_features_free",
            boolean(),
            False,
            "literal adaptation only: a feature already used on the path to a node costs 0 "
            "there (the authors' code keeps costs static)",
        ),
    )
    parallel_selection = True  # (alpha, exponent) pairs side by side
    missing_values = (
        "declared: a missing value counts as lower than every value, so a GreedyTree "
        "split puts it with the lowest values or splits it off (on test rows too)"
    )
    colour = "#CC79A7"

    def select(
        self,
        X,
        y,
        costs,
        budgets,
        grid,
        context,
        *,
        cost_exponents,
        hard_budget,
        n_trees_max,
        min_leaf,
        paid_features_free,
    ):
        """Per (alpha, cost exponent, budget): the sorted `features` of the forest's trees
        that fit, `cost_exponent`, `ensemble_trees`, `ensemble_oob_mmce`,
        `expected_acquisition_cost`; the forests are kept as arrays (`forests_to_arrays`)."""
        costs = FeatureCosts.of(costs)
        grown = grow_budget_forests(
            missing_as_lowest(X),
            y,
            costs,
            budgets,
            grid,
            seed=context.seed,
            cost_exponents=cost_exponents,
            hard_budget=hard_budget,
            n_trees_max=n_trees_max,
            min_leaf=min_leaf,
            paid_features_free=paid_features_free,
            n_jobs=context.n_jobs,
        )
        records, kept = [], {}
        for alpha in grid:
            for exponent in cost_exponents:
                for budget in budgets:
                    key = (float(alpha), float(exponent), float(budget))
                    forest, k = grown[key]
                    kept[key] = forest.trees[:k]
                    records.append(
                        {
                            "value": alpha,
                            "budget": budget,
                            "features": forest.features(k),
                            "cost_exponent": float(exponent),
                            "ensemble_trees": k,
                            "ensemble_oob_mmce": float(forest.oob_mmce[k]),
                            "expected_acquisition_cost": float(forest.acquisition_cost[k]),
                        }
                    )
        tie_label = majority_class(np.asarray(y).astype(np.intp))
        return Selection(records, forests_to_arrays(kept, tie_label))

    def choose_record(self, records):
        """The cost exponent with the lowest ensemble OOB error (ties: lower cost, then lower
        exponent)."""
        return min(
            records,
            key=lambda r: (
                r["ensemble_oob_mmce"],
                r["expected_acquisition_cost"],
                r["cost_exponent"],
            ),
        )

    def evaluation_columns(self, selection, artifacts, X_test, y_test, costs):
        """Each selection's forest's own test MMCE and acquisition cost per test row."""
        metrics = ensemble_test_metrics(artifacts, missing_as_lowest(X_test), y_test, costs)
        keys = ["value", "cost_exponent", "budget"]
        joined = (
            selection.select(keys)
            .to_pandas()
            .astype(float)
            .merge(metrics, on=keys, how="left", validate="many_to_one")
        )
        return joined.drop(columns=keys)
