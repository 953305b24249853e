"""STS on feature-limited trees (RF paper, section 5, future work): the base ensemble has trees
of unlimited depth that use at most k distinct features, for each k in `max_features_per_tree`.

A tree is grown breadth-first on its bootstrap sample. While it uses fewer than k distinct
features, each node takes the best split among mtry = floor(sqrt(p)) random candidates of all
p features, as in a Random Forest. Once k distinct features are in use, the remaining nodes
split only on those (min(mtry, k) random candidates each). Nodes split until they are pure or
no candidate can split them. Selection is the STS core (`sts.ensemble_selections`).

scikit-learn cannot restrict the features of a tree midway, so the trees are grown by a small
numpy CART that follows scikit-learn's best splitter: weighted Gini proxy, midpoint thresholds,
values closer than `FEATURE_THRESHOLD` not split apart, features that are constant in a node not
counted as candidates, and ties going to the first split found (lower threshold, and among
features the lower index instead of scikit-learn's random visiting order). Nodes of one depth
are split together, so a tree costs a few dozen vectorised steps.
"""

from collections import deque

import numpy as np
from joblib import Parallel, delayed

from costfs.core.seeds import derive_seed
from costfs.core.tabular import missing_as_lowest
from costfs.engine.forest import IN_BAG, default_mtry
from costfs.methods._base import (
    XI,
    Method,
    Parameter,
    integer,
    positive_integers,
)
from costfs.methods._bcr import POSITIVE_DELTA
from costfs.methods.sts import (
    TreeEnsembleSelection,
    pack_ensemble,
)

FEATURE_THRESHOLD = np.float32(1e-7)
"""Feature values closer than this are not split apart (scikit-learn's rule)."""


def _split_scores(values, segment, ones, zeros):
    """Gini proxy (scikit-learn's: -n_right * gini_right - n_left * gini_left, larger is
    better) of splitting after each position of node-major, value-sorted columns.

    `values`, `ones`, `zeros` are (rows x columns): sorted values and the class-1 and class-0
    weights of their rows; `segment` is the node of each row. -inf where no split is possible.
    """
    total_ones = np.bincount(segment, ones[:, 0])
    total_zeros = np.bincount(segment, zeros[:, 0])
    # Cumulative class weights per node: running sums minus what the earlier nodes hold.
    left_ones = (
        np.cumsum(ones, axis=0)[:-1] - (np.cumsum(total_ones) - total_ones)[segment[:-1], None]
    )
    left_zeros = (
        np.cumsum(zeros, axis=0)[:-1] - (np.cumsum(total_zeros) - total_zeros)[segment[:-1], None]
    )
    right_ones = total_ones[segment[:-1], None] - left_ones
    right_zeros = total_zeros[segment[:-1], None] - left_zeros
    left_weight, right_weight = left_ones + left_zeros, right_ones + right_zeros
    valid = (segment[1:] == segment[:-1])[:, None] & (values[1:] > values[:-1] + FEATURE_THRESHOLD)
    with np.errstate(divide="ignore", invalid="ignore"):
        gini_left = 1.0 - (left_zeros * left_zeros + left_ones * left_ones) / left_weight**2
        gini_right = 1.0 - (right_zeros * right_zeros + right_ones * right_ones) / right_weight**2
        proxy = -right_weight * gini_right - left_weight * gini_left
    return np.where(valid, proxy, -np.inf)


def _best_splits(x, y, weights, node, n_candidates, rng):
    """The best split of every node over at most `n_candidates` random columns of `x` that can
    split it: (column, threshold) per node, column -1 where no column can. Node ids run from 0,
    and every node has at least two rows."""
    columns = np.arange(x.shape[1])
    sizes = np.bincount(node)
    by_value = np.argsort(x, axis=0, kind="stable")
    order = by_value[np.argsort(node[by_value], axis=0, kind="stable"), columns]
    values = x[order, columns]
    ones = (weights * y)[order]
    segment = np.repeat(np.arange(sizes.size), sizes)
    proxy = _split_scores(values, segment, ones, weights[order] - ones)
    # The first best position of each node and column, as scikit-learn's left-to-right scan.
    starts = np.cumsum(sizes) - sizes
    scores = np.maximum.reduceat(proxy, starts, axis=0)
    positions = np.arange(proxy.shape[0])[:, None]
    first = np.where(proxy == scores[segment[:-1]], positions, proxy.shape[0])
    first = np.minimum.reduceat(first, starts, axis=0)
    splittable = scores > -np.inf
    if n_candidates < columns.size:
        # Like scikit-learn, draw candidates among the columns that can split the node.
        keys = np.where(splittable, rng.random(scores.shape), np.inf)
        drawn = np.zeros_like(splittable)
        np.put_along_axis(drawn, np.argsort(keys, axis=1)[:, :n_candidates], True, axis=1)
        splittable &= drawn
        scores[~drawn] = -np.inf
    best = scores.argmax(axis=1)
    position = first[np.arange(best.size), best]
    low, high = values[position, best].astype(float), values[position + 1, best].astype(float)
    return np.where(splittable.any(axis=1), best, -1), low / 2.0 + high / 2.0


def _class_weights(y, weights, node, n_nodes):
    ones = np.bincount(node, weights * y, minlength=n_nodes)
    return ones, np.bincount(node, weights, minlength=n_nodes)


def _grow_to_purity(x, y, weights, node, x_oob, oob_node, n_candidates, rng) -> np.ndarray:
    """Grows the open nodes (`node`: node id per row of `x`) until every leaf is pure or cannot
    be split, one depth at a time; returns the class votes for the rows of `x_oob`."""
    votes = np.empty(x_oob.shape[0], dtype=np.int8)
    oob_index = np.arange(x_oob.shape[0])
    n_nodes = int(node.max(initial=-1)) + 1
    while n_nodes:
        ones, total = _class_weights(y, weights, node, n_nodes)
        impure = (ones > 0) & (ones < total)
        column = np.full(n_nodes, -1)
        threshold = np.zeros(n_nodes)
        if impure.any():
            inside = impure[node]
            compact = np.cumsum(impure) - 1
            column[impure], threshold[impure] = _best_splits(
                x[inside], y[inside], weights[inside], compact[node[inside]], n_candidates, rng
            )
        split = column >= 0
        at_leaf = ~split[oob_node]
        leaf_node = oob_node[at_leaf]
        votes[oob_index[at_leaf]] = 2 * ones[leaf_node] > total[leaf_node]
        left_child = 2 * (np.cumsum(split) - 1)
        kept, oob_kept = split[node], ~at_leaf
        x, y, weights, node = x[kept], y[kept], weights[kept], node[kept]
        x_oob, oob_index, oob_node = x_oob[oob_kept], oob_index[oob_kept], oob_node[oob_kept]
        right = x[np.arange(node.size), column[node]] > threshold[node]
        oob_right = x_oob[np.arange(oob_node.size), column[oob_node]] > threshold[oob_node]
        node = left_child[node] + right
        oob_node = left_child[oob_node] + oob_right
        n_nodes = 2 * int(split.sum())
    return votes


def _majority(node_y: np.ndarray, node_weights: np.ndarray) -> int:
    """The weighted majority class of a node (0 on a tie, as scikit-learn's argmax)."""
    return int(2 * (node_weights @ node_y) > node_weights.sum())


def _draw_candidates(node_x: np.ndarray, mtry: int, rng: np.random.Generator) -> np.ndarray:
    """`mtry` random features that are not constant among the node's rows."""
    varies = node_x.max(axis=0) > node_x.min(axis=0) + FEATURE_THRESHOLD
    order = rng.permutation(node_x.shape[1])
    return order[varies[order]][:mtry]


def _split_on_any_feature(node_x, node_y, node_weights, mtry, rng) -> tuple[int, np.float64]:
    """A Random Forest node: the best split among `mtry` random features (-1: none).

    The threshold stays a numpy float64: compared with float32 values, a Python float would be
    rounded to float32 first and could send rows to the wrong side.
    """
    pure = node_weights @ node_y in (0, node_weights.sum())
    candidates = np.empty(0, dtype=int) if pure else _draw_candidates(node_x, mtry, rng)
    if candidates.size == 0:
        return -1, np.float64(0)
    node = np.zeros(node_y.size, dtype=int)
    column, threshold = _best_splits(
        node_x[:, candidates], node_y, node_weights, node, candidates.size, rng
    )
    if column[0] < 0:
        return -1, np.float64(0)
    return int(candidates[column[0]]), threshold[0]


def _grow_open_nodes(X, y, weights, oob_rows, open_nodes, columns, n_candidates, rng):
    """Votes (and their positions in `oob_rows`) of the open nodes grown on `columns` only."""
    rows = np.concatenate([rows for rows, _ in open_nodes])
    positions = np.concatenate([positions for _, positions in open_nodes])
    node = np.repeat(np.arange(len(open_nodes)), [rows.size for rows, _ in open_nodes])
    oob_node = np.repeat(np.arange(len(open_nodes)), [p.size for _, p in open_nodes])
    x_oob = X[np.ix_(oob_rows[positions], columns)]
    votes = _grow_to_purity(
        X[np.ix_(rows, columns)], y[rows], weights[rows], node, x_oob, oob_node, n_candidates, rng
    )
    return positions, votes


def grow_feature_limited_tree(
    X: np.ndarray, y: np.ndarray, *, max_distinct: int, mtry: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One bootstrapped tree with at most `max_distinct` distinct features.

    Returns its features (sorted), its OOB rows and its class votes on them. `X` is float32
    (the precision scikit-learn's trees split on).
    """
    rng = np.random.default_rng(seed)
    n_rows = X.shape[0]
    weights = np.bincount(rng.integers(0, n_rows, size=n_rows), minlength=n_rows).astype(float)
    oob_rows = np.flatnonzero(weights == 0)
    votes = np.empty(oob_rows.size, dtype=np.int8)
    used: list[int] = []
    # Each open node: its in-bag rows and the positions in `oob_rows` of the OOB rows it holds.
    open_nodes = deque([(np.flatnonzero(weights), np.arange(oob_rows.size))])
    while open_nodes and len(used) < max_distinct:
        rows, positions = open_nodes.popleft()
        feature, threshold = _split_on_any_feature(X[rows], y[rows], weights[rows], mtry, rng)
        if feature < 0:
            votes[positions] = _majority(y[rows], weights[rows])
            continue
        if feature not in used:
            used.append(feature)
        right = X[rows, feature] > threshold
        oob_right = X[oob_rows[positions], feature] > threshold
        open_nodes += [(rows[~right], positions[~oob_right]), (rows[right], positions[oob_right])]
    if open_nodes:
        columns = np.sort(used)
        positions, open_votes = _grow_open_nodes(
            X, y, weights, oob_rows, open_nodes, columns, min(mtry, columns.size), rng
        )
        votes[positions] = open_votes
    return np.sort(used), oob_rows, votes


def feature_limited_ensemble(
    X: np.ndarray,
    y: np.ndarray,
    *,
    seed: int,
    max_features_per_tree,
    trees_per_k: int,
    n_jobs: int = 1,
) -> dict[str, np.ndarray]:
    """The cost-free base ensemble: `trees_per_k` feature-limited trees per k, ordered by k as
    listed, then by tree index. Tree i of k is seeded from (seed, k, i), so the result does not
    depend on `n_jobs`."""
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    y = np.asarray(y)
    mtry = default_mtry(X32.shape[1])
    limits = [int(k) for k in max_features_per_tree]
    jobs = (
        delayed(grow_feature_limited_tree)(
            X32, y, max_distinct=k, mtry=mtry, seed=derive_seed(seed, "max_features", k, i)
        )
        for k in limits
        for i in range(int(trees_per_k))
    )
    trees = Parallel(n_jobs=n_jobs, prefer="threads")(jobs)
    votes = np.full((len(trees), X32.shape[0]), IN_BAG, dtype=np.int8)
    for index, (_, oob_rows, oob_votes) in enumerate(trees):
        votes[index, oob_rows] = oob_votes
    return pack_ensemble([features for features, _, _ in trees], votes)


class FeatureLimitedTreeSelector(TreeEnsembleSelection, Method):
    summary = (
        "STS on trees grown without depth limit but with at most k distinct features (the RF "
        "paper's future work)"
    )
    hyperparameter = XI
    parameters = (
        Parameter(
            "max_features_per_tree",
            positive_integers(),
            [1, 2, 3],
            "k: trees grown without depth limit but with at most k distinct features",
            stage="prepare",
        ),
        Parameter("trees_per_k", integer(), 500, "trees per k", stage="prepare"),
        POSITIVE_DELTA,
    )
    parallel_preparation = True  # its forests, the same on any thread count
    missing_values = (
        "declared: a missing value counts as lower than every value, so a split puts it "
        "with the lowest values or splits it off"
    )
    colour = "#005F46"
    exact_path = True
    # The numpy CART scores splits by two-class Gini.
    multi_class = False

    def prepare(self, X, y, context, *, max_features_per_tree, trees_per_k):
        return feature_limited_ensemble(
            missing_as_lowest(X),
            y,
            seed=context.seed,
            max_features_per_tree=max_features_per_tree,
            trees_per_k=trees_per_k,
            n_jobs=context.n_jobs,
        )
