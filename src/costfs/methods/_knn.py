"""FeatBoost's k-nearest-neighbour evaluator H2 (`costfs.methods.featboost`): compiled kernels
that score every candidate column of a step at once, exactly (ties at the k-th distance share
the votes left), visiting few training rows per (candidate, held-out row) pair."""

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def add_squared_distances(distances, test_columns, train_columns):
    """Adds to `distances` (test x train rows) the squared differences on each column, one
    column after the other in their order (rows of `test_columns` and `train_columns` are
    columns of the data)."""
    for column in range(test_columns.shape[0]):
        for i in range(test_columns.shape[1]):
            for t in range(train_columns.shape[1]):
                difference = test_columns[column, i] - train_columns[column, t]
                distances[i, t] += difference * difference


NEAR_SHARE = 0.01
"""The share of training rows, nearest on the selected columns, that `knn_votes` tries first
for each test row; on spambase 3 in 4 (candidate, test row) pairs find their k nearest among
them (benchmarks/benchmark_featboost.py)."""


@numba.njit(cache=True, nogil=True)
def _kth_distance(distances, n, k, nearest):
    """The k-th smallest of the first `n` `distances` (`nearest` is work space of size k)."""
    nearest[:] = np.inf
    kth = np.inf
    for t in range(n):
        distance = distances[t]
        if distance < kth:
            position = k - 1
            while position > 0 and nearest[position - 1] > distance:
                nearest[position] = nearest[position - 1]
                position -= 1
            nearest[position] = distance
            kth = nearest[k - 1]
    return kth


@numba.njit(cache=True, nogil=True)
def _vote(distances, labels, n, kth, k, counts, tied_counts):
    """The class voted by the first `n` rows' `distances` and `labels`, the k-th distance
    being `kth`: the rows tied at it share the votes left (their class's score is its expected
    vote count under a uniform choice among them, times the number tied); a tie between classes
    goes to the lowest. `counts` and `tied_counts` are work space of size n_classes."""
    # One pass per class, each of which the compiler can vectorise.
    for label in range(counts.size):
        closer = 0
        tied = 0
        for t in range(n):
            is_label = labels[t] == label
            closer += is_label and distances[t] < kth
            tied += is_label and distances[t] == kth
        counts[label] = closer
        tied_counts[label] = tied
    scores = counts * tied_counts.sum() + tied_counts * (k - counts.sum())
    return np.argmax(scores)


@numba.njit(cache=True, nogil=True)
def knn_votes(selected_distances, test_columns, train_columns, train_labels, k, n_classes, n_near):
    """Per candidate column and test row, the uniform k-NN vote on the selected columns plus
    the candidate (`_vote`).

    Exact, without visiting every training row for every pair: adding a column never brings a
    row nearer, so a row farther than the k-th distance on the selected columns alone cannot
    be among the k nearest. Each test row first gathers its `n_near` nearest training rows on
    the selected columns (those within `bound`); a candidate whose k-th distance among them is
    at most `bound` has all rows within that distance among them, so their vote is the vote of
    all rows. Any other candidate visits every row."""
    n_candidates, n_test = test_columns.shape
    n_train = train_columns.shape[1]
    n_near = min(max(n_near, k), n_train)
    predicted = np.empty((n_candidates, n_test), dtype=np.int64)
    distances = np.empty(n_train)
    near_rows = np.empty(n_train, dtype=np.int64)
    near_selected = np.empty(n_train)
    near_labels = np.empty(n_train, dtype=train_labels.dtype)
    nearest = np.empty(k)
    near_nearest = np.empty(n_near)
    counts = np.empty(n_classes, dtype=np.int64)
    tied_counts = np.empty(n_classes, dtype=np.int64)
    for i in range(n_test):
        row = selected_distances[i]
        # The same value as np.partition's, in less time: it neither copies nor reorders.
        bound = _kth_distance(row, n_train, n_near, near_nearest)
        n = 0
        for t in range(n_train):
            if row[t] <= bound:
                near_rows[n] = t
                near_selected[n] = row[t]
                near_labels[n] = train_labels[t]
                n += 1
        for c in range(n_candidates):
            train_column = train_columns[c]
            test_value = test_columns[c, i]
            for s in range(n):
                difference = test_value - train_column[near_rows[s]]
                distances[s] = near_selected[s] + difference * difference
            kth = _kth_distance(distances, n, k, nearest)
            if kth <= bound:
                predicted[c, i] = _vote(distances, near_labels, n, kth, k, counts, tied_counts)
                continue
            for t in range(n_train):
                difference = test_value - train_column[t]
                distances[t] = row[t] + difference * difference
            kth = _kth_distance(distances, n_train, k, nearest)
            predicted[c, i] = _vote(distances, train_labels, n_train, kth, k, counts, tied_counts)
    return predicted
