"""A fill order walked at every budget at once, compiled with numba.

A fill walks an order of features and keeps each whose added cost still fits the budget
(`costfs.methods._bcr.fill_budget`). Walking the order once over the whole budget range splits
the range into intervals in which the walk makes the same decisions: a feature that adds `a`
to an interval's spending `s` is kept from the budget s + a on and skipped below it. The
number of intervals grows with each feature, so the walk keeps them in arrays that double when
full; numpy would pay its per-call cost for each of a few dozen features.
"""

import numba
import numpy as np

from costfs.core.costs import NO_GROUP

INITIAL_INTERVALS = 64

PAIRWISE_BLOCK = 128
"""numpy's `sum` of a contiguous float array adds blocks of up to this many values with eight
running sums and splits longer arrays in halves (`pairwise_sum` in numpy's loops)."""


@numba.njit(cache=True, nogil=True)
def fill_intervals(order, own, group, shared, first_start, top):
    """The intervals of the budget range (in budget-plus-tolerance units, from `first_start`
    up to `top`) in which walking `order` keeps the same features, as (starts, kept): each
    interval's start, by increasing start, and its kept features (intervals x features).

    A feature of group g adds its own cost plus g's `shared` cost unless the interval has
    kept a feature of g; its threshold is the interval's spending plus that, summed in the
    walk's order as a fill sums; the feature is kept where the threshold is at or below the
    budget, so an interval wholly above the threshold keeps it, and one that the threshold
    cuts (below `top`) becomes two."""
    n_features = own.size
    n_groups = max(shared.size, 1)
    capacity = INITIAL_INTERVALS
    starts = np.empty(capacity)
    spent = np.empty(capacity)
    kept = np.zeros((capacity, n_features), dtype=np.bool_)
    paid = np.zeros((capacity, n_groups), dtype=np.bool_)
    starts[0] = first_start
    spent[0] = 0.0
    count = 1
    for feature in order:
        feature_group = group[feature]
        splits = 0
        thresholds = np.empty(count)
        for interval in range(count):
            added = own[feature]
            if feature_group != NO_GROUP and not paid[interval, feature_group]:
                added = added + shared[feature_group]
            thresholds[interval] = spent[interval] + added
            end = starts[interval + 1] if interval + 1 < count else np.inf
            threshold = thresholds[interval]
            if threshold > starts[interval] and threshold < end and threshold <= top:
                splits += 1
        if count + splits > capacity:
            while count + splits > capacity:
                capacity *= 2
            starts = _grown(starts, capacity)
            spent = _grown(spent, capacity)
            kept = _grown_rows(kept, capacity)
            paid = _grown_rows(paid, capacity)
        # From the top down, so each interval moves up past the splits below it unread.
        row = count + splits - 1
        for interval in range(count - 1, -1, -1):
            threshold = thresholds[interval]
            end = starts[interval + 1] if interval + 1 < count else np.inf
            whole = threshold <= starts[interval]
            split = not whole and threshold < end and threshold <= top
            if split:
                kept[row] = kept[interval]
                paid[row] = paid[interval]
                starts[row] = threshold
                spent[row] = threshold
                kept[row, feature] = True
                if feature_group != NO_GROUP:
                    paid[row, feature_group] = True
                row -= 1
            if row != interval:
                kept[row] = kept[interval]
                paid[row] = paid[interval]
                starts[row] = starts[interval]
                spent[row] = spent[interval]
            if whole:
                spent[row] = threshold
                kept[row, feature] = True
                if feature_group != NO_GROUP:
                    paid[row, feature_group] = True
            row -= 1
        count += splits
    return starts[:count].copy(), kept[:count].copy()


@numba.njit(cache=True, nogil=True)
def set_totals(members, own, group, shared):
    """Per row of the boolean (sets x features) matrix `members`, the cost of its set exactly
    as `FeatureCosts.total` gives it: the own costs of its features by increasing index,
    plus the shared cost of each used group by increasing group, each summed as numpy sums."""
    totals = np.empty(members.shape[0])
    gathered = np.empty(members.shape[1])
    used = np.empty(max(shared.size, 1))
    for row in range(members.shape[0]):
        size = 0
        groups = np.zeros(shared.size, dtype=np.bool_)
        for feature in range(members.shape[1]):
            if members[row, feature]:
                gathered[size] = own[feature]
                size += 1
                if group[feature] != NO_GROUP:
                    groups[group[feature]] = True
        used_size = 0
        for shared_group in range(shared.size):
            if groups[shared_group]:
                used[used_size] = shared[shared_group]
                used_size += 1
        totals[row] = _numpy_sum(gathered[:size])
        if used_size:
            totals[row] += _numpy_sum(used[:used_size])
    return totals


@numba.njit(cache=True, nogil=True)
def _numpy_sum(values):
    """`values.sum()` of a contiguous float array, in numpy's order of additions."""
    size = values.size
    if size < 8:
        total = 0.0
        for value in values:
            total += value
        return total
    if size <= PAIRWISE_BLOCK:
        partial = values[:8].copy()
        index = 8
        while index < size - size % 8:
            for lane in range(8):
                partial[lane] += values[index + lane]
            index += 8
        total = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + (
            (partial[4] + partial[5]) + (partial[6] + partial[7])
        )
        while index < size:
            total += values[index]
            index += 1
        return total
    half = size // 2
    half -= half % 8
    return _numpy_sum(values[:half]) + _numpy_sum(values[half:])


@numba.njit(cache=True, nogil=True)
def _grown(values, capacity):
    grown = np.empty(capacity, dtype=values.dtype)
    grown[: values.size] = values
    return grown


@numba.njit(cache=True, nogil=True)
def _grown_rows(rows, capacity):
    grown = np.zeros((capacity, rows.shape[1]), dtype=rows.dtype)
    grown[: rows.shape[0]] = rows
    return grown
