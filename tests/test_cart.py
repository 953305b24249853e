"""The numba tree engine (costfs.engine.cart) against scikit-learn's exact trees, the reference."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from costfs.engine import cart, trees
from costfs.engine.trees import IN_BAG, features_and_oob_votes, tree_seeds


def grown_by_numba(X, y, counts, max_depth, bins=None):
    """One numba tree on the bootstrap `counts`, every feature a candidate at every node: its
    node arrays (feature, threshold, left, right, label, missing_left) and its vote on every
    row of X. `bins` "always" or "never" overrides where a node scans a column's value bins
    instead of its ordered rows."""
    grower = cart.TreeGrower(X, y)
    set_bins(grower, bins)
    nodes, n_nodes, oob_votes, _ = grow_one(grower, counts, max_depth)
    label = nodes[4]
    votes = np.array([label[cart._route(X, r, -1, r, nodes, 0)] for r in range(X.shape[0])])
    # The OOB rows, partitioned down the tree as it grows, land in the leaves routing finds.
    assert np.array_equal(oob_votes, np.where(counts == 0, votes, IN_BAG))
    return tuple(array[:n_nodes] for array in nodes), votes


def grow_one(grower, counts, max_depth):
    """`cart._grow` on the bootstrap `counts`, every feature a candidate at every node: the
    node arrays, the node count, the OOB votes, and the OOB rows as partitioned down the tree
    with each node's range of them."""
    n_rows, n_features = grower.X.shape
    nodes = cart.new_nodes(n_rows)
    oob_votes = np.full(n_rows, IN_BAG, dtype=np.int8)
    oob = np.flatnonzero(counts == 0)
    oob_ranges = np.empty((nodes[0].size, 2), dtype=np.int64)
    n_nodes = cart._grow(
        grower.columns_major,
        grower.y,
        grower.n_classes,
        counts,
        np.arange(n_features),
        grower.column_orders,
        grower.ordered_values,
        grower.ranks,
        grower.base_counts,
        grower.value_bins,
        grower.n_values,
        grower.histogram_share,
        n_features,
        -1 if max_depth is None else max_depth,
        nodes,
        oob,
        oob_ranges,
        oob_votes,
    )
    return nodes, n_nodes, oob_votes, (oob, oob_ranges)


def set_bins(grower, bins):
    """Makes every node of `grower`'s trees scan value bins ("always"), order its rows
    ("never"), or choose by size (None)."""
    if bins is not None:
        share = np.inf if bins == "always" else -1.0
        grower.histogram_share = np.full_like(grower.histogram_share, share)


def bootstrap_problem(rng, n_rows, n_classes, missing_share=0.0, sparse=False):
    """Continuous features, the class a noisy function of features 0 and 3; with
    `missing_share`, that share of features 0 and 3 is missing, more often in the top class.
    `sparse` features are mostly zero, their smallest value (as word counts are), one is
    binary and one a count of at most 4."""
    X = rng.normal(size=(n_rows, 7)).astype(np.float32).astype(float)  # scikit-learn's float32
    if sparse:
        X = np.where(rng.random(X.shape) < 0.7, 0.0, np.abs(X))
        X[:, 5] = X[:, 5] > 0
        X[:, 6] = np.minimum(np.round(X[:, 6] * 2), 4)
    signal = X[:, 0] - X[:, 3] + 0.8 * rng.normal(size=n_rows)
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    for j in (0, 3):
        odds = np.where(y == n_classes - 1, 2.0, 1.0)
        X[rng.random(n_rows) < missing_share * odds / odds.mean(), j] = np.nan
    counts = np.bincount(rng.integers(0, n_rows, size=n_rows), minlength=n_rows)
    return X, y, counts


def weighted_gini_score(y, weights, n_classes):
    """sum_k w_k^2 / w: larger is purer (the weighted Gini decrease up to a constant)."""
    class_weights = np.bincount(y, weights=weights, minlength=n_classes)
    return (class_weights**2).sum() / class_weights.sum()


def brute_force_sides(values, missing):
    """Every way to split a node's rows on one feature: each threshold midway between distinct
    present values with the missing rows right and then left, and present | missing."""
    present = np.unique(values[~missing])
    for cut in (present[1:] + present[:-1]) / 2:
        yield (values <= cut) & ~missing
        if missing.any():
            yield (values <= cut) | missing
    if missing.any() and present.size:
        yield ~missing


@pytest.mark.parametrize(
    "n_classes, missing_share, sparse, bins",
    [
        (2, 0.0, False, None),
        (3, 0.0, False, None),
        (2, 0.2, False, None),
        (3, 0.2, False, None),
        (2, 0.0, True, None),
        (3, 0.2, True, None),
        (3, 0.2, False, "always"),
        (3, 0.2, True, "always"),
        (3, 0.2, True, "never"),
    ],
)
def test_every_split_is_the_best_of_all_features_and_thresholds(
    rng, n_classes, missing_share, sparse, bins
):
    """A brute force over every feature and every threshold midway between distinct in-bag
    values (with the missing values on either side, or alone): each node of a fully grown tree
    takes a split of the largest Gini score, its leaves are pure or cannot be split, and each
    leaf votes for its in-bag majority; whether its nodes scan value bins or ordered rows."""
    X, y, counts = bootstrap_problem(rng, 300, n_classes, missing_share, sparse)
    (feature, threshold, left, right, label, missing_left), _ = grown_by_numba(
        X, y, counts, None, bins
    )
    open_nodes = [(0, np.flatnonzero(counts))]
    while open_nodes:
        node, rows = open_nodes.pop()
        weights = counts[rows].astype(float)
        assert label[node] == np.argmax(np.bincount(y[rows], weights=weights, minlength=3))
        best = -1.0
        for j in range(X.shape[1]):
            for below in brute_force_sides(X[rows, j], np.isnan(X[rows, j])):
                best = max(
                    best,
                    weighted_gini_score(y[rows][below], weights[below], n_classes)
                    + weighted_gini_score(y[rows][~below], weights[~below], n_classes),
                )
        if feature[node] == -1:
            assert np.unique(y[rows]).size == 1 or best < 0
            continue
        values = X[rows, feature[node]]
        below = (values <= threshold[node]) | (np.isnan(values) & missing_left[node])
        score = weighted_gini_score(y[rows][below], weights[below], n_classes)
        score += weighted_gini_score(y[rows][~below], weights[~below], n_classes)
        assert score == pytest.approx(best, rel=1e-12)
        open_nodes += [(left[node], rows[below]), (right[node], rows[~below])]


@pytest.mark.parametrize("n_classes, missing_share", [(2, 0.0), (3, 0.0), (4, 0.0), (2, 0.15)])
def test_a_depth_two_tree_with_every_feature_a_candidate_is_scikit_learns_tree(
    rng, n_classes, missing_share
):
    """With all features candidates and nodes of hundreds of rows the best split is unique
    (continuous data), so both engines must grow the same tree on the same bootstrap sample:
    the same splits and the same vote on every in-bag and OOB row. (Deeper, in nodes of a few
    rows, several features often split equally well and each engine takes the first in its own
    random order.) With missing values, both send them to the side that scores better, so the
    trees still agree on every row, the rows that miss a split feature included."""
    X, y, counts = bootstrap_problem(rng, 600, n_classes, missing_share)
    reference = DecisionTreeClassifier(max_depth=2, random_state=0).fit(
        X, y, sample_weight=counts.astype(float)
    )
    (feature, threshold, *_), votes = grown_by_numba(X, y, counts, 2)
    tree = reference.tree_
    assert sorted(feature[feature >= 0]) == sorted(tree.feature[tree.feature >= 0])
    assert sorted(threshold[feature >= 0]) == pytest.approx(
        sorted(tree.threshold[tree.feature >= 0]), abs=1e-6
    )
    assert np.array_equal(votes, reference.predict(X))
    assert (counts == 0).any()


@pytest.mark.parametrize("n_classes, missing_share", [(2, 0.0), (3, 0.2)])
def test_counting_and_binning_rows_grows_the_trees_ordering_every_row_grows(
    rng, n_classes, missing_share
):
    """A node counts the rows at a column's smallest value instead of ordering them, and scans
    the value bins of a column with few distinct values: on sparse columns (ties at zero, a
    binary column, a count, missing values) the trees are those grown ordering every row (no
    column's smallest value known, no bins), vote for vote, importance for importance, and
    those grown with bins at every node."""
    X, y, _ = bootstrap_problem(rng, 400, n_classes, missing_share, sparse=True)
    chosen, ordering, binning = (cart.TreeGrower(X, y) for _ in range(3))
    assert (chosen.base_counts > 200).sum() >= 5
    assert chosen.n_values[5] == 2 and chosen.n_values[6] <= 5
    ordering.base_counts = np.zeros_like(chosen.base_counts)
    set_bins(ordering, "never")
    set_bins(binning, "always")
    options = dict(seeds=tree_seeds(5, 40), column_sets=None, max_depth=None)
    options |= dict(with_importance=True, X_test=X[::3] + 0.01)
    for max_features in (2, X.shape[1]):
        grown = chosen.grow(max_features=max_features, **options)
        for other in (ordering, binning):
            compared = other.grow(max_features=max_features, **options)
            for batch in ("used", "votes", "test_votes", "importance"):
                assert np.array_equal(getattr(grown, batch), getattr(compared, batch))


def test_the_oob_rows_paths_read_off_the_partition_are_the_routed_paths(rng):
    """`_first_splits` reads each OOB row's path off the tree's partition of the OOB rows: per
    feature the tree splits on, the first node of the row's path that splits on it and whether
    a node below splits on it again, as routing the row from the root finds them (missing
    values and three classes included)."""
    X, y, _ = bootstrap_problem(rng, 400, 3, missing_share=0.2)
    grower = cart.TreeGrower(X, y)
    counts = np.bincount(rng.integers(0, 400, 400), minlength=400)
    nodes, n_nodes, _, (oob, oob_ranges) = grow_one(grower, counts, max_depth=None)
    feature, threshold, left, right = nodes[0], nodes[1], nodes[2], nodes[3]
    used = np.zeros(X.shape[1], dtype=bool)
    used[feature[:n_nodes][feature[:n_nodes] != cart.LEAF]] = True
    oob_rows = np.flatnonzero(counts == 0)
    position_of = np.zeros(X.shape[0], dtype=np.int64)
    position_of[oob_rows] = np.arange(oob_rows.size)
    first, again = cart._first_splits(nodes, n_nodes, used, oob, oob_ranges, position_of)

    expected_first = np.full(first.shape, cart.LEAF)
    expected_again = np.zeros(again.shape, dtype=bool)
    slot_of = np.cumsum(used) - 1
    for i, row in enumerate(oob_rows):
        node = 0
        while feature[node] != cart.LEAF:
            slot = slot_of[feature[node]]
            if expected_first[slot, i] == cart.LEAF:
                expected_first[slot, i] = node
            else:
                expected_again[slot, i] = True
            goes_left = cart._goes_left(X[row, feature[node]], threshold[node], nodes[5][node])
            node = left[node] if goes_left else right[node]
    assert np.array_equal(first, expected_first)
    assert np.array_equal(again, expected_again)
    assert again.any() and (first == cart.LEAF).any()  # both cases are exercised


def test_trees_depend_only_on_their_seed_and_keep_to_their_columns(rng):
    X = rng.normal(size=(150, 10))
    y = (X[:, 1] + X[:, 7] > 0).astype(int)
    seeds = tree_seeds(3, 12)
    columns = [np.array([j % 10, (j + 3) % 10]) for j in range(12)]
    options = dict(column_sets=columns, max_features=1, max_depth=2)
    whole = cart.grow_tree_batch(X, y, seeds=seeds, n_jobs=2, **options)
    alone = cart.grow_tree_batch(X, y, seeds=seeds[5:6], **{**options, "column_sets": columns[5:6]})
    assert np.array_equal(whole.votes[5], alone.votes[0])
    assert np.array_equal(whole.used[5], alone.used[0])
    for tree, allowed in enumerate(columns):
        assert set(np.flatnonzero(whole.used[tree])) <= set(allowed)
    in_bag = whole.votes == IN_BAG
    assert in_bag.any(axis=1).all() and (~in_bag).any(axis=1).all()


def test_tree_engines_give_the_same_oob_error_distribution(rng):
    """The engines draw different bootstrap samples, so only their ensembles' OOB votes can be
    compared: the mean per-tree OOB error of depth-3 trees agrees within its Monte Carlo error."""
    X = rng.normal(size=(300, 16))
    y = (X[:, :4].sum(axis=1) + rng.normal(size=300) > 0).astype(int)

    def tree_errors(engine):
        _, votes = features_and_oob_votes(
            X, y, n_trees=300, max_features=4, max_depth=3, seed=1, engine=engine
        )
        voted = votes != IN_BAG
        return ((votes != y) & voted).sum(axis=1) / voted.sum(axis=1)

    numba, reference = tree_errors("numba"), tree_errors("sklearn")
    standard_error = np.sqrt(numba.var() / numba.size + reference.var() / reference.size)
    assert abs(numba.mean() - reference.mean()) < 4 * standard_error
    assert 0.1 < numba.mean() < 0.4


def test_columns_outside_the_data_are_an_error_not_a_crash(rng):
    X = rng.normal(size=(30, 3))
    with pytest.raises(ValueError, match=r"column sets name column 3; X has 3 columns"):
        cart.grow_tree_batch(
            X,
            (X[:, 0] > 0).astype(int),
            seeds=tree_seeds(0, 2),
            column_sets=[np.array([0]), np.array([3])],
            max_features=1,
            max_depth=1,
        )


def test_an_unknown_tree_engine_is_named(rng):
    X = rng.normal(size=(30, 3))
    with pytest.raises(ValueError, match="tree engine must be one of numba, sklearn; got 'ranger'"):
        features_and_oob_votes(
            X, X[:, 0] > 0, n_trees=2, max_features=1, max_depth=1, seed=0, engine="ranger"
        )


def test_tally_errors_leave_out_unvoted_rows_and_share_ties():
    y = np.array([0, 1, 1, 0])
    tallies = np.array(
        [
            [[3, 1], [2, 2], [0, 0], [0, 5]],  # right, tie, no vote, wrong
            [[0, 0], [0, 0], [0, 0], [0, 0]],  # votes on no row
        ]
    )
    assert trees.tally_errors(tallies, y) == pytest.approx([(0 + 0.5 + 1) / 3, 1.0])
    three_classes = np.array([[[2, 2, 2], [1, 3, 3]]])
    assert trees.tally_errors(three_classes, np.array([2, 0])) == pytest.approx([(2 / 3 + 1) / 2])


def test_common_forests_grow_on_and_equal_forests_grown_at_once(rng):
    X = rng.normal(size=(120, 8))
    y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)

    def at_once(columns, n_trees):
        batch = cart.grow_tree_batch(
            X,
            y,
            seeds=trees.tree_seeds(5, n_trees),
            column_sets=[np.array(columns)] * n_trees,
            max_features=max(1, int(np.sqrt(len(columns)))),
            max_depth=None,
        )
        tally = np.stack([(batch.votes == label).sum(axis=0) for label in (0, 1)], axis=1)
        return trees.tally_errors(tally[None], y)[0]

    common = trees.CommonRandomForests(X, y, seed=5, n_jobs=2)
    first = [((0, 1), 5), ((0, 1), 20), ((2,), 7), ((0, 1, 3, 6), 20)]
    # grown on, and back to fewer trees than a set has grown (its first trees again)
    later = [((0, 1), 3), ((0, 1), 40), ((2,), 12), ((0, 1, 3, 6), 20)]
    for requests in (first, later):
        assert common.oob_errors(requests) == [at_once(*request) for request in requests]
    # (0, 1) regrows its first 40 trees; (0, 1, 3, 6) has its 20
    assert common.trees_grown == 20 + 7 + 20 + 40 + (12 - 7)
    assert common.oob_errors([((0, 1, 3, 6), 20)]) == [at_once((0, 1, 3, 6), 20)]
    assert common.trees_grown == 20 + 7 + 20 + 40 + (12 - 7)


def test_a_row_missing_a_value_no_training_row_missed_goes_to_the_heavier_child(rng):
    """Where a node saw no missing value of its split feature, scikit-learn's rule: a row that
    misses it follows the child of larger in-bag weight."""
    X, y, counts = bootstrap_problem(rng, 400, 2)
    X[np.flatnonzero(counts == 0)[:20], 0] = np.nan  # OOB rows only: training saw none
    nodes, votes = grown_by_numba(X, y, counts, 3)
    feature, threshold, left, right, label, missing_left = nodes
    weight = np.zeros(feature.size)
    for row in np.flatnonzero(counts):
        node = 0
        while True:
            weight[node] += counts[row]
            if feature[node] == -1:
                break
            node = left[node] if X[row, feature[node]] <= threshold[node] else right[node]
    splits = np.flatnonzero(feature >= 0)
    assert np.array_equal(missing_left[splits], weight[left[splits]] > weight[right[splits]])
    assert (feature == 0).any() and missing_left[splits].any() and not missing_left[splits].all()
