import io

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.tree import DecisionTreeClassifier

from costfs.core.costs import BUDGET_TOLERANCE
from costfs.methods import sts, sts_features
from costfs.methods._bcr import ratio_ranks, step_ratio
from costfs.methods.sts import pack_ensemble, path_features, unpack_tree_features
from tests.conftest import declared, run_method, small_selector

base_ensemble = declared("sts", sts.base_ensemble)
feature_limited_ensemble = declared("sts_features", sts_features.feature_limited_ensemble)

selection_paths = declared("sts", sts.selection_paths)

# A worked example in the manner of the RF paper's Fig. 1: six features, trees A-F (A-C stumps,
# D-F of depth 2). Votes per row: "c" correct, "w" wrong, "-" in-bag (no vote).
FIG1_Y = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0])
FIG1_TREES = {
    "A": ([0], "cccccc----"),
    "B": ([2], "ccccc-----"),
    "C": ([5], "cccccc----"),
    "D": ([0, 1], "cccccccc--"),
    "E": ([1, 3], "cccccw-cc-"),
    "F": ([3, 4], "----cccccc"),
}
FIG1_COSTS = np.array([0.3, 0.2, 0.3, 0.3, 0.2, 0.2])
A, B, C, D, E, F = range(6)


def votes_from_pattern(pattern: str, y: np.ndarray) -> np.ndarray:
    code = {"c": y, "w": 1 - y, "-": np.full(y.size, sts.IN_BAG)}
    return np.array([code[mark][row] for row, mark in enumerate(pattern)])


def fig1_ensemble() -> dict:
    features = [features for features, _ in FIG1_TREES.values()]
    votes = np.array([votes_from_pattern(pattern, FIG1_Y) for _, pattern in FIG1_TREES.values()])
    return pack_ensemble(features, votes)


def paths_for(prepared, y, costs, budgets, xi, positive_delta="multiply"):
    (paths,) = selection_paths(prepared, y, costs, budgets, [xi], positive_delta=positive_delta)
    return paths


def test_fig1_example_step_by_step():
    # xi = 1, budget 1.4. BCR = delta / added cost (all deltas below are <= 0).
    # Step 1 (MMCE(empty) = 0.5; a tree's MMCE alone = 1 - correct votes / 10):
    #   A -0.1/0.3, B 0, C -0.1/0.2, D -0.3/0.5 = -0.6, E -0.2/0.5, F -0.1/0.5 -> D; then A
    #   (feature 0) is paid for and dropped. Error 0.2 (rows 8, 9 have no vote).
    # Step 2: B 0, C 0 (no vote on rows 8, 9), E (+1 row 5, -1 row 8) 0, F -0.2/0.5 -> F;
    #   E (features 1, 3) is dropped. Error 0.
    # Step 3: remaining 0.4; B and C change nothing (BCR 0): the cheaper C wins the tie, although
    #   B has the lower index. B (0.3) no longer fits the remaining 0.2: the path ends.
    # Budget 0.5 takes D as well and then has nothing left.
    wide, narrow = paths_for(fig1_ensemble(), FIG1_Y, FIG1_COSTS, [1.4, 0.5], xi=1.0)
    assert [step.tree for step in wide] == [D, F, C]
    assert [step.dropped for step in wide] == [(A,), (E,), ()]
    assert [step.new_features for step in wide] == [(0, 1), (3, 4), (5,)]
    assert [step.added_cost for step in wide] == pytest.approx([0.5, 0.5, 0.2])
    assert [step.error for step in wide] == pytest.approx([0.2, 0.0, 0.0])
    assert list(path_features(wide)) == [0, 1, 3, 4, 5]
    assert [step.tree for step in narrow] == [D]
    assert list(path_features(narrow)) == [0, 1]


def test_fig1_records_of_select():
    records = run_method(
        "sts", None, FIG1_Y, FIG1_COSTS, [1.4, 0.1], [0.0, 1.0], prepared=fig1_ensemble()
    ).records
    assert [(r["value"], r["budget"]) for r in records] == [
        (0.0, 1.4),
        (0.0, 0.1),
        (1.0, 1.4),
        (1.0, 0.1),
    ]
    assert list(records[2]["features"]) == [0, 1, 3, 4, 5]
    assert records[3]["features"].size == 0


def ensemble_error(votes: np.ndarray, y: np.ndarray, trees: list[int]) -> float:
    """A row is right when its true class has more votes than every other class."""
    classes = range(int(y.max()) + 1)
    if not trees:
        return sts.empty_ensemble_error(len(classes))
    counts = np.array([(votes[trees] == k).sum(axis=0) for k in classes])
    right = [
        all(counts[y[r], r] > counts[k, r] for k in classes if k != y[r]) for r in range(y.size)
    ]
    return float(np.mean(~np.array(right)))


def reference_path(features, votes, y, costs, budget, xi, positive_delta):
    """STS spelled out naively: one candidate at a time, majority votes recounted."""
    chosen, paid, spent = [], set(), 0.0
    pool = [t for t, f in enumerate(features) if f and costs[f].sum() <= budget]
    while True:
        options = []
        for tree in pool:
            added = costs[sorted(set(features[tree]) - paid)].sum()
            if added > budget - spent + BUDGET_TOLERANCE:
                continue
            delta = ensemble_error(votes, y, chosen + [tree]) - ensemble_error(votes, y, chosen)
            ratio = step_ratio(np.array([delta]), np.array([added]), xi, positive_delta)[0]
            options.append((ratio, added, tree))
        if not options:
            return chosen
        # SPEC's tie rule on exact ties, whatever the rounding of the ratios
        ranks = ratio_ranks(np.array([ratio for ratio, _, _ in options]))
        _, added, tree = min(
            (rank, added, tree) for rank, (_, added, tree) in zip(ranks, options, strict=True)
        )
        chosen.append(tree)
        paid |= set(features[tree])
        spent += added
        pool = [t for t in pool if t != tree and set(features[t]) - paid]


def random_ensemble(rng, n_trees=30, n_features=8, n_rows=40, n_classes=2):
    y = rng.integers(0, n_classes, size=n_rows)
    features = [
        sorted(rng.choice(n_features, size=rng.integers(1, 4), replace=False).tolist())
        for _ in range(n_trees - 1)
    ] + [[]]  # a tree that never split
    correct = rng.random((n_trees, n_rows)) < 0.65
    wrong_class = (y + rng.integers(1, n_classes, size=(n_trees, n_rows))) % n_classes
    votes = np.where(correct, y, wrong_class)
    votes[rng.random((n_trees, n_rows)) < 0.4] = sts.IN_BAG
    # Costs in eighths add up exactly in any order, so ties are real ties in both versions.
    costs = rng.integers(1, 9, size=n_features) / 8
    return features, votes, y, costs


@pytest.mark.parametrize("positive_delta", ["multiply", "divide"])
@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_matches_a_naive_implementation_and_keeps_the_budget(positive_delta, n_classes):
    rng = np.random.default_rng(7)
    budgets = [0.5, 1.0, 2.0, 3.5]
    grid = [0.0, 0.5, 1.0, 2.0]
    for _ in range(8):
        features, votes, y, costs = random_ensemble(rng, n_classes=n_classes)
        prepared = pack_ensemble(features, votes)
        paths = selection_paths(prepared, y, costs, budgets, grid, positive_delta=positive_delta)
        for xi, xi_paths in zip(grid, paths, strict=True):
            for budget, path in zip(budgets, xi_paths, strict=True):
                expected = reference_path(features, votes, y, costs, budget, xi, positive_delta)
                assert [step.tree for step in path] == expected
                assert costs[path_features(path)].sum() <= budget + BUDGET_TOLERANCE
                assert len(features) - 1 not in expected


def test_budget_below_every_tree_selects_nothing():
    paths = selection_paths(fig1_ensemble(), FIG1_Y, FIG1_COSTS, [0.15], [0.0, 1.0, 3.0])
    assert paths == [[[]], [[]], [[]]]
    records = run_method(
        "sts", None, FIG1_Y, FIG1_COSTS, [0.15], [1.0], prepared=fig1_ensemble()
    ).records
    assert records[0]["features"].size == 0


def test_xi_zero_ignores_costs_except_as_constraint():
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    votes = np.array([votes_from_pattern("cccccc--", y), votes_from_pattern("ccccc---", y)])
    prepared = pack_ensemble([[0], [1]], votes)
    costs = np.array([1.0, 0.1])
    # Alone, tree 0 has MMCE 0.25 (delta -0.25), the cheap tree 1 MMCE 0.375 (delta -0.125).
    (agnostic,) = paths_for(prepared, y, costs, [2.0], xi=0.0)
    (simple,) = paths_for(prepared, y, costs, [2.0], xi=1.0)
    assert agnostic[0].tree == 0
    assert simple[0].tree == 1
    # ... but the budget still binds.
    (tight,) = paths_for(prepared, y, costs, [0.5], xi=0.0)
    assert [step.tree for step in tight] == [1]
    # On random ensembles every xi = 0 step takes a tree of minimal delta among those that fit.
    rng = np.random.default_rng(3)
    for _ in range(5):
        features, votes, y, costs = random_ensemble(rng)
        (path,) = paths_for(pack_ensemble(features, votes), y, costs, [2.0], xi=0.0)
        chosen, paid, spent = [], set(), 0.0
        for step in path:
            fits = [
                tree
                for tree, f in enumerate(features)
                if set(f) - paid
                and costs[sorted(set(f) - paid)].sum() <= 2.0 - spent + BUDGET_TOLERANCE
            ]
            best = min(ensemble_error(votes, y, chosen + [tree]) for tree in fits)
            assert ensemble_error(votes, y, chosen + [step.tree]) == best
            chosen.append(step.tree)
            paid |= set(features[step.tree])
            spent += step.added_cost


def test_positive_delta_rules():
    # No tree beats MMCE(empty) = 0.5 alone: every first step has delta > 0.
    y = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    votes = np.array([votes_from_pattern("ccc-----", y)] * 2)
    prepared = pack_ensemble([[0], [1]], votes)
    costs = np.array([0.2, 0.8])
    (cheap,) = paths_for(prepared, y, costs, [0.9], xi=1.0, positive_delta="multiply")
    (dear,) = paths_for(prepared, y, costs, [0.9], xi=1.0, positive_delta="divide")
    assert [step.tree for step in cheap] == [0]
    assert [step.tree for step in dear] == [1]


def test_prepared_ensemble_must_match_the_data():
    with pytest.raises(ValueError, match="one column per training row"):
        paths_for(fig1_ensemble(), FIG1_Y[:-1], FIG1_COSTS, [1.0], xi=1.0)
    with pytest.raises(ValueError, match="only 4 costs"):
        paths_for(fig1_ensemble(), FIG1_Y, FIG1_COSTS[:4], [1.0], xi=1.0)


@pytest.fixture
def problem(rng):
    X = rng.normal(size=(120, 7))
    y = (X[:, 0] + 0.7 * X[:, 3] + rng.normal(scale=0.7, size=120) > 0).astype(int)
    costs = np.array([0.4, 0.3, 0.3, 0.5, 0.2, 0.9, 0.6])
    return X, y, costs


def saved_and_loaded(arrays: dict) -> dict:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def test_prepare_builds_the_base_ensemble(problem):
    X, y, _ = problem
    prepared = base_ensemble(X, y, seed=1, depths=[1, 2, 3], trees_per_depth=12)
    features = unpack_tree_features(prepared)
    assert len(features) == 7 + 12 + 12
    assert all(set(f) <= {j} for j, f in enumerate(features[:7]))
    assert max(len(f) for f in features[7:19]) <= 3
    assert max(len(f) for f in features[19:]) <= 7
    votes = prepared["votes"]
    assert votes.shape == (31, 120) and votes.dtype == np.int8
    assert set(np.unique(votes)) <= {sts.IN_BAG, 0, 1}
    assert 0.25 < np.mean(votes != sts.IN_BAG) < 0.5  # OOB share of a bootstrap: ~0.368
    loaded = saved_and_loaded(prepared)
    assert all(np.array_equal(loaded[name], prepared[name]) for name in prepared)


def test_same_seed_same_ensemble_and_selection(problem):
    X, y, costs = problem
    options = dict(depths=(1, 2), trees_per_depth=15)
    first = base_ensemble(X, y, seed=5, **options)
    threaded = base_ensemble(X, y, seed=5, n_jobs=2, **options)
    other = base_ensemble(X, y, seed=6, **options)
    assert all(np.array_equal(first[name], threaded[name]) for name in first)
    assert not np.array_equal(first["votes"], other["votes"])
    selections = [
        run_method("sts", X, y, costs, [1.0, 2.0], [0.0, 1.0], prepared=prepared).records
        for prepared in (first, threaded)
    ]
    assert all(
        np.array_equal(a["features"], b["features"]) for a, b in zip(*selections, strict=True)
    )
    grown_here = run_method("sts", X, y, costs, [1.0, 2.0], [0.0, 1.0], seed=5, **options)
    assert all(
        np.array_equal(a["features"], b["features"])
        for a, b in zip(selections[0], grown_here.records, strict=True)
    )


def test_selector_passes_positive_delta(problem):
    X, y, costs = problem
    selector = small_selector("sts", feature_costs=costs, positive_delta="divide", random_state=0)
    selector.fit(X, y)
    with pytest.raises(ValueError, match="positive_delta"):
        clone(selector).set_params(positive_delta="square").fit(X, y)


def test_feature_limited_trees_use_at_most_k_features(rng):
    X = rng.normal(size=(150, 12))
    y = (X[:, :4].sum(axis=1) + rng.normal(size=150) > 0).astype(int)
    limits = (1, 2, 3)
    prepared = feature_limited_ensemble(X, y, seed=2, max_features_per_tree=limits, trees_per_k=15)
    counts = np.array([f.size for f in unpack_tree_features(prepared)]).reshape(3, 15)
    for k, row in zip(limits, counts, strict=True):
        assert row.max() == k  # unlimited depth reaches the limit on noisy data
    threaded = feature_limited_ensemble(
        X, y, seed=2, max_features_per_tree=limits, trees_per_k=15, n_jobs=2
    )
    assert all(np.array_equal(prepared[name], threaded[name]) for name in prepared)


def test_feature_limited_tree_on_one_feature_is_scikit_learns_tree(rng):
    # With a single feature there is no random choice left: the numpy CART must reproduce
    # scikit-learn's fully grown tree on the same bootstrap sample, ties in X included.
    for seed in range(6):
        X = np.round(rng.normal(size=(200, 1)), 1).astype(np.float32)
        y = (X[:, 0] + rng.normal(size=200) > 0).astype(int)
        features, oob_rows, votes = sts_features.grow_feature_limited_tree(
            X, y, max_distinct=1, mtry=1, seed=seed
        )
        # The grower's bootstrap: the first draw of its generator.
        draws = np.random.default_rng(seed).integers(0, 200, size=200)
        weights = np.bincount(draws, minlength=200).astype(float)
        in_bag = weights > 0
        reference = DecisionTreeClassifier(random_state=0)
        reference.fit(X[in_bag], y[in_bag], sample_weight=weights[in_bag])
        assert list(features) == [0]
        assert np.array_equal(oob_rows, np.flatnonzero(~in_bag))
        assert np.array_equal(votes, reference.predict(X[oob_rows]))


def test_feature_limited_select_keeps_budget(problem):
    X, y, costs = problem
    records = run_method(
        "sts_features", X, y, costs, [0.5, 1.0, 3.0], [0.0, 1.0], trees_per_k=10
    ).records
    assert len(records) == 6
    for record in records:
        assert costs[record["features"]].sum() <= record["budget"] + BUDGET_TOLERANCE


def test_an_exact_tie_reached_through_rounding_goes_to_the_cheaper_tree():
    # Alone, P errs on 3 of 10 rows (delta -0.2 at cost 1.0) and Q on 4 (delta -0.1 at cost
    # 0.5): both BCRs are -0.2, but in floats Q's is -0.19999999999999996 and P would win.
    votes = np.array([votes_from_pattern(p, FIG1_Y) for p in ("ccccccc---", "cccccc----")])
    costs = np.array([1.0, 0.5])
    assert step_ratio(np.array([0.3 - 0.5]), 1.0, 1.0, "multiply") < step_ratio(
        np.array([0.4 - 0.5]), 0.5, 1.0, "multiply"
    )
    (path,) = paths_for(pack_ensemble([[0], [1]], votes), FIG1_Y, costs, [1.0], xi=1.0)
    assert path[0].tree == 1


def test_a_budget_depth_bound_keeps_each_budget_to_trees_whose_features_could_fit():
    """Costs 0.1 each (7 features): a tree of depth d splits on up to 2^d - 1 features, so a
    budget of 0.25 allows depth 1 (one feature), 0.35 depth 2 (three), 0.7 depth 3 (seven). With
    the bound, each budget's chosen trees are no deeper than that; without it (the default)
    the selection is today's."""
    from costfs.core.costs import FeatureCosts

    costs = FeatureCosts.ungrouped(np.full(7, 0.1))
    assert [sts.budget_depth(costs, b, [1, 2, 3]) for b in (0.05, 0.25, 0.35, 0.7)] == [1, 1, 2, 3]
    assert sts.budget_depth(costs, 0.7, [1, 2]) == 2
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 7))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=200) > 0).astype(int)
    prepared = base_ensemble(X, y, seed=1, depths=[1, 2, 3], trees_per_depth=40)
    assert list(np.unique(prepared["tree_depths"], return_counts=True)[1]) == [7, 40, 40]
    budgets = [0.25, 0.35, 0.7]
    bounded = sts.selection_paths(prepared, y, costs, budgets, [1.0], "multiply", "budget")[0]
    for path, limit in zip(bounded, [1, 2, 3], strict=True):
        assert path and max(prepared["tree_depths"][step.tree] for step in path) <= limit
    plain = sts.selection_paths(prepared, y, costs, budgets, [1.0], "multiply")[0]
    assert max(prepared["tree_depths"][step.tree] for step in plain[0]) > 1
    selector = small_selector("sts", feature_costs=costs.own, random_state=0, budget=0.25)
    assert selector.set_params(depth_bound="budget").fit(X, y).get_support().sum() <= 2
