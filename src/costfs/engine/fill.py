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
def _grown(values, capacity):
    grown = np.empty(capacity, dtype=values.dtype)
    grown[: values.size] = values
    return grown


@numba.njit(cache=True, nogil=True)
def _grown_rows(rows, capacity):
    grown = np.zeros((capacity, rows.shape[1]), dtype=rows.dtype)
    grown[: rows.shape[0]] = rows
    return grown
