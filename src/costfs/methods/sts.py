"""Shallow Tree Selection (RF paper, section 2.1): greedy forward selection of shallow trees.

A cost-free base ensemble of shallow trees is grown once per data set (`prepare`); selection
then adds, one at a time, the tree with the best benefit-cost ratio until no tree fits the
budget, and returns the union of the chosen trees' features.

Selection works on a "prepared" ensemble: a flat dict of arrays (`pack_ensemble`) holding each
tree's distinct features and its class votes on the training rows (-1 where the row is in-bag).
`ensemble_selections` is the selection core shared with `sts_features`.
"""

import functools
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import ThreadpoolController

from costfs.core.costs import BUDGET_TOLERANCE, NO_GROUP, FeatureCosts
from costfs.core.seeds import derive_seed
from costfs.engine.forest import IN_BAG, TREE_ENGINES, class_count, default_mtry
from costfs.engine.trees import features_and_oob_votes
from costfs.methods._base import (
    XI,
    Method,
    Parameter,
    Selection,
    choice,
    integer,
    positive_integers,
)
from costfs.methods._bcr import (
    POSITIVE_DELTA,
    ratio_ranks,
    step_ratio,
)
from costfs.methods._kept import Kept, digest


def empty_ensemble_error(n_classes: int) -> float:
    """MMCE of the empty ensemble: 0.5 for two classes (RF paper, equation 1), in general
    that of guessing among K classes, 1 - 1/K."""
    return 1.0 - 1.0 / n_classes


def pack_ensemble(tree_features: list[np.ndarray], votes: np.ndarray) -> dict[str, np.ndarray]:
    """The prepared form of a tree ensemble: flat arrays that `np.savez` stores without pickle.

    `tree_features[i]` are the distinct features tree i splits on; `votes[i, r]` is its class
    vote (0..K-1) on training row r, or `IN_BAG` where r is in its bootstrap sample.
    """
    arrays = [np.asarray(features, dtype=np.int32).ravel() for features in tree_features]
    sizes = [array.size for array in arrays]
    return {
        "tree_features": np.concatenate([np.empty(0, dtype=np.int32), *arrays]),
        "tree_feature_offsets": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        "votes": np.asarray(votes, dtype=np.int8),
    }


def unpack_tree_features(prepared: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The features of each tree of a prepared ensemble."""
    offsets = prepared["tree_feature_offsets"]
    return np.split(prepared["tree_features"], offsets[1:-1])


def base_ensemble(
    X: np.ndarray,
    y: np.ndarray,
    *,
    seed: int,
    depths,
    trees_per_depth: int,
    n_jobs: int = 1,
    engine: str = "numba",
) -> dict[str, np.ndarray]:
    """The cost-free base ensemble: per depth 1 one stump per feature, per depth d >= 2 a
    forest of `trees_per_depth` trees of depth d (mtry = floor(sqrt(p))), all bootstrapped.

    Trees are ordered by `depths`, then by their index within the depth; `engine` is one of
    `costfs.engine.trees.TREE_ENGINES`. The result does not depend on `n_jobs`.
    """
    X = np.asarray(X, dtype=float)
    n_features = X.shape[1]
    tree_features, votes, tree_depths = [], [], []
    for depth in map(int, depths):
        if depth == 1:
            columns = [np.array([feature]) for feature in range(n_features)]
            options = dict(n_trees=n_features, max_features=None, column_sets=columns)
        else:
            options = dict(n_trees=int(trees_per_depth), max_features=default_mtry(n_features))
        features, depth_votes = features_and_oob_votes(
            X,
            y,
            max_depth=depth,
            seed=derive_seed(seed, "depth", depth),
            n_jobs=n_jobs,
            engine=engine,
            **options,
        )
        tree_features += features
        votes.append(depth_votes)
        tree_depths.append(np.full(len(features), depth, dtype=np.int8))
    return {
        **pack_ensemble(tree_features, np.vstack(votes)),
        "tree_depths": np.concatenate(tree_depths),
    }


@dataclass(frozen=True)
class Step:
    """One iteration of the greedy selection."""

    tree: int
    """The tree added to the result ensemble."""
    new_features: tuple[int, ...]
    """Its features that were not yet paid for."""
    added_cost: float
    dropped: tuple[int, ...]
    """Candidate trees removed afterwards because all their features are now paid for."""
    error: float
    """OOB MMCE of the result ensemble after the step."""


class _Candidates:
    """Per-tree matrices of the base ensemble that every step of every path reuses."""

    def __init__(self, prepared: dict[str, np.ndarray], y: np.ndarray, costs: np.ndarray):
        votes = np.asarray(prepared["votes"])
        y = np.asarray(y)
        if votes.ndim != 2 or votes.shape[1] != y.size:
            raise ValueError(
                f"the prepared ensemble has votes of shape {votes.shape}, expected one column "
                f"per training row ({y.size})"
            )
        if y.size and (y.min() < 0 or not np.issubdtype(y.dtype, np.integer)):
            raise ValueError("labels must be class codes 0..K-1")
        self.y = y
        self.n_rows = y.size
        self.n_classes = class_count(y)
        self.empty_error = empty_ensemble_error(self.n_classes)
        self.votes = votes
        self.costs = FeatureCosts.of(costs)
        voted = votes != IN_BAG
        correct = voted & (votes == y)
        wrong = voted & ~correct
        # One product with [wrong votes | correct votes] counts, for all trees at once, the rows
        # a tree would flip: a wrong vote breaks a row won by one vote over the class it votes
        # for, a correct vote wins a tied row. With two classes every wrong vote is for the one
        # rival; with more, wrong votes are split by the class they vote for.
        if self.n_classes == 2:
            wrong_blocks = [wrong]
        else:
            wrong_blocks = [wrong & (votes == k) for k in range(self.n_classes)]
        self.flip_counts = np.hstack([*wrong_blocks, correct]).astype(np.float32)
        self.feature_mask = self._feature_mask(prepared, self.costs.n_features)
        self.mask_weights = self.feature_mask.astype(float)
        # Per tree and group: whether the tree uses a feature of the group.
        self.group_mask = np.zeros((self.feature_mask.shape[0], self.costs.shared.size))
        grouped = self.costs.group != NO_GROUP
        for group in range(self.costs.shared.size):
            members = grouped & (self.costs.group == group)
            self.group_mask[:, group] = self.feature_mask[:, members].any(axis=1)
        self.own_cost = self.added_costs(np.ones(self.costs.n_features, dtype=bool))
        self.errors_by_prefix: dict[tuple[int, ...], np.ndarray] = {}
        """`errors_after` of the ensemble of each path prefix met (its trees in order): the
        budgets of a fit's path, asked call after call, walk the same prefixes."""

    @staticmethod
    def _feature_mask(prepared: dict[str, np.ndarray], n_features: int) -> np.ndarray:
        features = unpack_tree_features(prepared)
        flat = np.asarray(prepared["tree_features"], dtype=np.int64)
        if flat.size and (flat.min() < 0 or flat.max() >= n_features):
            raise ValueError(
                f"the prepared ensemble uses feature {flat.max()}, but there are only "
                f"{n_features} costs"
            )
        mask = np.zeros((len(features), n_features), dtype=bool)
        mask[np.repeat(np.arange(len(features)), [f.size for f in features]), flat] = True
        return mask

    def added_costs(self, unpaid: np.ndarray) -> np.ndarray:
        """Per tree: its unpaid features' own costs plus the shared costs of the unpaid groups
        it uses."""
        added = self.mask_weights @ (self.costs.own * unpaid)
        if self.costs.has_groups:
            unpaid_groups = ~self.costs.groups_paid(~unpaid)
            added += self.group_mask @ (self.costs.shared * unpaid_groups)
        return added

    def margins(self, class_votes: np.ndarray) -> np.ndarray:
        """Per row: the ensemble's votes for the true class minus those of its strongest rival."""
        rows = np.arange(self.n_rows)
        rivals = class_votes.copy()
        rivals[rows, self.y] = np.iinfo(rivals.dtype).min
        return class_votes[rows, self.y] - rivals.max(axis=1)

    def errors_after(self, class_votes: np.ndarray) -> np.ndarray:
        """Misclassified rows of the result ensemble if each tree were added to it."""
        margins = self.margins(class_votes)
        won_by_one = margins == 1
        if self.n_classes == 2:
            breakable = [won_by_one]
        else:
            strongest_rival = (
                class_votes == (class_votes[np.arange(self.n_rows), self.y] - 1)[:, None]
            )
            breakable = [won_by_one & strongest_rival[:, k] for k in range(self.n_classes)]
        flips = np.concatenate([*breakable, margins == 0]).astype(np.float32)
        flips[-self.n_rows :] *= -1
        changes = (self.flip_counts @ flips).astype(float)
        return np.count_nonzero(margins <= 0) + changes

    def add_votes(self, class_votes: np.ndarray, tree: int) -> None:
        voted = np.flatnonzero(self.votes[tree] != IN_BAG)
        class_votes[voted, self.votes[tree, voted]] += 1


@dataclass
class _PathState:
    """A result ensemble under construction."""

    class_votes: np.ndarray
    """Per row and class: the votes of the ensemble's trees."""
    unpaid: np.ndarray
    alive: np.ndarray
    """Trees that are still candidates."""
    spent: float = 0.0
    steps: list[Step] = field(default_factory=list)

    def copy(self) -> "_PathState":
        return _PathState(
            self.class_votes.copy(),
            self.unpaid.copy(),
            self.alive.copy(),
            self.spent,
            list(self.steps),
        )


def _start(
    candidates: _Candidates, largest_budget: float, allowed: np.ndarray | None = None
) -> _PathState:
    # A tree without features costs nothing (cost-free candidates leave the pool), and one
    # dearer than the budget can never fit.
    alive = candidates.feature_mask.any(axis=1)
    if allowed is not None:
        alive &= allowed
    alive &= candidates.own_cost <= largest_budget + BUDGET_TOLERANCE
    return _PathState(
        class_votes=np.zeros((candidates.n_rows, candidates.n_classes), dtype=np.int32),
        unpaid=np.ones(candidates.costs.n_features, dtype=bool),
        alive=alive,
    )


def _next_trees(
    candidates: _Candidates,
    state: _PathState,
    budgets: np.ndarray,
    xi: float,
    positive_delta: str,
) -> np.ndarray:
    """The tree each budget adds next (-1: none fits): minimal BCR, then lower added cost,
    then lower index.

    Eligible sets grow with the budget, so the budgets that can afford the overall best tree
    all take it, and only the smaller ones need to look further down the ranking.
    """
    added = candidates.added_costs(state.unpaid)
    remaining = budgets - state.spent + BUDGET_TOLERANCE
    eligible = np.flatnonzero(state.alive & (added <= remaining.max()))
    if eligible.size == 0:
        return np.full(budgets.size, -1)
    prefix = tuple(step.tree for step in state.steps)
    if prefix not in candidates.errors_by_prefix:
        candidates.errors_by_prefix[prefix] = candidates.errors_after(state.class_votes)
    errors = candidates.errors_by_prefix[prefix][eligible]
    error = state.steps[-1].error if state.steps else candidates.empty_error
    delta = errors / candidates.n_rows - error
    ratio = step_ratio(delta, added[eligible], xi, positive_delta)
    ranking = eligible[np.lexsort((eligible, added[eligible], ratio_ranks(ratio)))]
    fits = added[ranking] <= remaining[:, None]
    return np.where(fits.any(axis=1), ranking[fits.argmax(axis=1)], -1)


def _add_tree(candidates: _Candidates, state: _PathState, tree: int) -> None:
    new_features = np.flatnonzero(candidates.feature_mask[tree] & state.unpaid)
    costs = candidates.costs
    added_cost = float(costs.own[new_features].sum())
    if costs.has_groups:
        new_groups = costs.groups_paid(~state.unpaid | candidates.feature_mask[tree])
        added_cost += float(costs.shared[new_groups & ~costs.groups_paid(~state.unpaid)].sum())
    candidates.add_votes(state.class_votes, tree)
    state.unpaid[new_features] = False
    state.spent += added_cost
    state.alive[tree] = False
    cost_free = state.alive & (candidates.mask_weights @ state.unpaid == 0)
    state.alive &= ~cost_free
    state.steps.append(
        Step(
            tree=tree,
            new_features=tuple(new_features.tolist()),
            added_cost=added_cost,
            dropped=tuple(np.flatnonzero(cost_free).tolist()),
            error=float(np.mean(candidates.margins(state.class_votes) <= 0)),
        )
    )


def _paths(
    candidates: _Candidates,
    budgets: np.ndarray,
    xi: float,
    positive_delta: str,
    allowed: np.ndarray | None = None,
) -> list[list[Step]]:
    """The selection path of every budget, from the trees `allowed` (all by default). Budgets
    share one path until they choose different trees; then the path branches."""
    paths: list[list[Step]] = [[] for _ in budgets]
    if not paths:
        return paths
    start = _start(candidates, budgets.max(), allowed)
    pending = [(start, np.argsort(budgets, kind="stable"))]
    while pending:
        state, group = pending.pop()
        choices = _next_trees(candidates, state, budgets[group], xi, positive_delta)
        for index in group[choices < 0]:
            paths[index] = list(state.steps)
        trees = np.unique(choices[choices >= 0])
        for position, tree in enumerate(trees):
            # The last branch continues in `state`, after the others have copied it.
            branch = state.copy() if position < trees.size - 1 else state
            _add_tree(candidates, branch, int(tree))
            pending.append((branch, group[choices == tree]))
    return paths


kept_candidates = Kept()
"""The candidate matrices of the last few fits' ensembles and costs: a fit's budget path asks
for budget after budget of one ensemble (`costfs.methods._kept`)."""


@functools.cache
def _thread_pools() -> ThreadpoolController:
    # Finding the loaded libraries takes milliseconds, once per select call without this;
    # BLAS is loaded with NumPy, before the first call.
    return ThreadpoolController()


def _single_threaded_blas():
    # The matrix-vector products of a step are small: threaded BLAS only adds overhead, and is
    # 10-100x slower than one thread when the cores are busy with other jobs.
    return _thread_pools().limit(limits=1, user_api="blas")


DEPTH_BOUNDS = ("none", "budget")
"""Which trees of the base ensemble a budget may choose: all ("none"), or those no deeper than
`budget_depth` ("budget")."""


def budget_depth(costs: FeatureCosts, budget: float, depths) -> int:
    """The deepest of `depths` whose trees' features could all fit `budget`: a tree of depth d
    splits on at most 2^d - 1 distinct features, so d is sensible while the 2^d - 1 cheapest
    features (own costs) cost at most `budget`. The RF paper suggests an upper depth "set to
    the maximum value for sensible combinations within the budget limit"; this makes it
    precise. The shallowest depth when none fits."""
    cheapest = np.cumsum(np.sort(costs.own))
    fitting = [
        depth
        for depth in sorted(map(int, depths))
        if cheapest[min(2**depth - 1, cheapest.size) - 1] <= budget + BUDGET_TOLERANCE
    ]
    return fitting[-1] if fitting else min(map(int, depths))


def selection_paths(
    prepared: dict[str, np.ndarray],
    y: np.ndarray,
    costs: np.ndarray,
    budgets: list[float],
    grid: list[float],
    positive_delta: str,
    depth_bound: str = "none",
) -> list[list[list[Step]]]:
    """The greedy forward tree selection (RF paper, section 2.1.2): `paths[i][j]` is the path
    for `grid[i]` (xi) and `budgets[j]`.

    Each step adds the candidate tree with the minimal BCR (Δ = change of the ensemble's OOB
    MMCE, Δc = cost of the tree's unpaid features) among those that fit the remaining budget,
    then drops the candidates that became cost-free; the path ends when no candidate fits.
    With `depth_bound` "budget", a budget chooses among the trees no deeper than its
    `budget_depth` only.
    """
    costs = FeatureCosts.of(costs)
    arrays = [np.asarray(prepared[key]) for key in sorted(prepared)]
    key = digest(y, costs.own, costs.group, costs.shared, *arrays, keys=sorted(prepared))
    candidates = kept_candidates.get(key, lambda: _Candidates(prepared, y, costs))
    budget_array = np.asarray(budgets, dtype=float)
    groups = [(None, np.arange(budget_array.size))]
    if depth_bound == "budget":
        tree_depths = np.asarray(prepared["tree_depths"])
        present = np.unique(tree_depths)
        limits = np.array([budget_depth(candidates.costs, b, present) for b in budget_array])
        groups = [
            (tree_depths <= limit, np.flatnonzero(limits == limit)) for limit in np.unique(limits)
        ]
    paths = [[[] for _ in budget_array] for _ in grid]
    with _single_threaded_blas():
        for allowed, members in groups:
            for i, xi in enumerate(grid):
                found = _paths(
                    candidates, budget_array[members], float(xi), positive_delta, allowed
                )
                for index, path in zip(members, found, strict=True):
                    paths[i][index] = path
    return paths


def path_features(path: list[Step]) -> np.ndarray:
    """The union of the features of a path's trees, sorted."""
    return np.sort(np.asarray([f for step in path for f in step.new_features], dtype=int))


def ensemble_selections(
    prepared: dict[str, np.ndarray],
    y: np.ndarray,
    costs: np.ndarray,
    budgets: list[float],
    grid: list[float],
    positive_delta: str,
    depth_bound: str = "none",
) -> list[dict]:
    """The selection of every (xi, budget) from a prepared tree ensemble: a `select`'s records."""
    paths = selection_paths(prepared, y, costs, budgets, grid, positive_delta, depth_bound)
    return [
        {"value": xi, "budget": budget, "features": path_features(path)}
        for xi, xi_paths in zip(grid, paths, strict=True)
        for budget, path in zip(budgets, xi_paths, strict=True)
    ]


class TreeEnsembleSelection:
    """`select` of the methods that choose trees from a prepared ensemble (`prepare` returns
    `pack_ensemble`'s arrays): STS and its feature-limited variant."""

    def select(self, X, y, costs, budgets, grid, context, *, positive_delta):
        return Selection(
            ensemble_selections(context.prepared, y, costs, budgets, grid, positive_delta)
        )


class ShallowTreeSelector(TreeEnsembleSelection, Method):
    summary = (
        "Shallow Tree Selection: greedy forward selection of trees from a base ensemble of "
        "stumps and depth-2/3 forests by ΔOOB-MMCE / Δc^ξ; the union of the chosen trees' "
        "features"
    )
    hyperparameter = XI
    parameters = (
        Parameter(
            "depths",
            positive_integers(),
            [1, 2, 3],
            "depths of the base ensemble: depth 1 = one stump per feature, depth d ≥ 2 = a "
            "forest of depth-d trees",
            stage="prepare",
        ),
        Parameter("trees_per_depth", integer(), 500, "trees per depth d ≥ 2", stage="prepare"),
        POSITIVE_DELTA,
        Parameter(
            "depth_bound",
            choice(*DEPTH_BOUNDS),
            "none",
            "which trees a budget may choose: all depths (`none`), or only those no deeper "
            "than the deepest whose 2^d − 1 cheapest features fit the budget (`budget`, the "
            "RF paper's suggested upper depth)",
        ),
    )
    # Depth-limited trees on explicit bootstrap samples (`costfs.engine.trees`).
    engines = TREE_ENGINES
    parallel_preparation = True  # its forests, the same on any thread count
    missing_values = (
        "native: the base ensemble's trees send a missing value to the side that lowers "
        "impurity (scikit-learn's rule, numba's trees too)"
    )
    colour = "#009E73"
    exact_path = True

    def path_is_exact(self, values):
        # A depth bound by budget changes the candidate trees with the budget.
        return values["depth_bound"] == "none"

    def select(self, X, y, costs, budgets, grid, context, *, positive_delta, depth_bound):
        return Selection(
            ensemble_selections(
                context.prepared, y, costs, budgets, grid, positive_delta, depth_bound
            )
        )

    def prepare(self, X, y, context, *, depths, trees_per_depth):
        return base_ensemble(
            X,
            y,
            seed=context.seed,
            depths=depths,
            trees_per_depth=trees_per_depth,
            n_jobs=context.n_jobs,
            engine=context.engine,
        )
