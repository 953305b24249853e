"""Exact CART trees on bootstrap samples, compiled with numba: the "numba" tree engine.

The methods that need each tree's OOB rows (STS's base ensemble, the permutation importance)
grow many small trees; scikit-learn's per-tree fit costs about 3.5 ms on 500 x 200 data, about
4x ranger's. These kernels grow a tree the way ranger grows a classification tree and compute
what those methods need from it while it is at hand, so no tree is stored:

- bootstrap: n draws with replacement, kept as per-row counts (OOB rows have count 0);
- each node draws `mtry` candidate features without replacement from the tree's columns and
  takes the split of largest weighted Gini decrease over all thresholds midway between
  consecutive distinct in-bag values; ties go to the earlier candidate, then the lower
  threshold; rows equal to or below the threshold go left;
- missing values (NaN), scikit-learn's rule: where a node's in-bag rows miss the candidate,
  each threshold is scored with them on the right and then on the left, and one more split
  puts every row that has the value left and every row that misses it right; ties go to the
  earlier of these. Where a node saw no missing value of its split feature, a row missing it
  goes to the child of larger in-bag weight (the right one on a tie);
- a node is a leaf when it is pure, at `max_depth`, or when none of its candidates varies in it
  (ranger draws no further candidates); a leaf votes for its class of largest in-bag count,
  the lowest class on a tie.

A node orders its rows by a candidate feature without sorting: it sets one bit per row at the
row's rank in the feature's presorted order and reads the bits back in order, in time linear in
the node's size (plus one word per 64 training rows). The rows at the feature's smallest value
come first in any order: they are counted, not ordered, which in a sparse column (mostly zeros)
leaves only the other rows to read back and scan. The sums of the scan are exact (the weights
are counts), so starting it with those rows on the left scores every cut as the row by row scan
does, and the trees are the same.

A node's class weights are its parent's at the split, never summed again. With two classes
and no missing value in a column, the scan runs as the bits are read back, and a cut is divided
out only where its cross-multiplied score can beat the best (`SCORE_MARGIN`).

Where a column has few distinct values for the node's size (binary columns, rating scales,
counts), the node does not order its rows at all: it adds each row's weight to its value's bin
(each row's bin is found once per column, before any tree) and scans the bins, with the same
exact sums, so the trees are again the same. The bins cost a step per distinct value, the
ordering a step per row above the smallest value: a node takes the bins where they are fewer.

Every tree draws from its own numba generator seeded by its own seed, so a tree depends only on
its seed, never on which thread grows it or how many do.
"""

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from costfs.engine.forest import IN_BAG, class_count

LEAF = -1
SCORE_MARGIN = 1.0 - 1e-12
"""A cut is scored exactly only where its cross-multiplied score reaches the best score times
this: far more than the few units in the last place by which the two forms can differ."""
CHUNKS_PER_THREAD = 4


@intrinsic
def _trailing_zeros(typingctx, bits):
    """The number of trailing zero bits of a nonzero uint64 (LLVM's cttz)."""

    def codegen(context, builder, signature, arguments):
        return builder.cttz(arguments[0], ir.Constant(ir.IntType(1), 1))

    return types.uint64(types.uint64), codegen


@numba.njit(cache=True, nogil=True, inline="always")
def _goes_left(value, threshold, missing_left):
    # `|` and `&`, not `or` and `and`: a branch-free split in `_vote_on`.
    return (value <= threshold) | (missing_left & np.isnan(value))


@numba.njit(cache=True, nogil=True)
def _route(X, row, swapped_feature, swapped_row, nodes, node):
    """The leaf of row `row` of X from `node` down, reading feature `swapped_feature` from row
    `swapped_row`."""
    feature, threshold, left, right, label, missing_left = nodes
    while feature[node] != LEAF:
        split = feature[node]
        value = X[swapped_row, split] if split == swapped_feature else X[row, split]
        node = left[node] if _goes_left(value, threshold[node], missing_left[node]) else right[node]
    return node


@numba.njit(cache=True, nogil=True)
def new_nodes(n_rows):
    """Room for the nodes of a tree on n_rows rows: per node its split feature (LEAF for a
    leaf), threshold, left and right child, class vote and whether a missing value goes left."""
    size = 2 * n_rows + 1
    index = np.empty(size, dtype=np.int64)
    return (
        index,
        np.empty(size),
        index.copy(),
        index.copy(),
        index.copy(),
        np.zeros(size, dtype=np.bool_),
    )


@numba.njit(cache=True, nogil=True)
def _partition(rows, start, end, columns_major, feature, threshold, missing_left):
    """Reorders rows[start:end] so that the rows that go left (`_goes_left`) come first;
    returns where the others begin."""
    low, high = start, end - 1
    while low <= high:
        if _goes_left(columns_major[feature, rows[low]], threshold, missing_left):
            low += 1
        else:
            rows[low], rows[high] = rows[high], rows[low]
            high -= 1
    return low


@numba.njit(cache=True, nogil=True, inline="always")
def _cut(value, following):
    """The threshold midway between two consecutive distinct values (the lower value where
    rounding puts the midpoint on the upper one)."""
    midpoint = (value + following) / 2.0
    return value if midpoint >= following else midpoint


@numba.njit(cache=True, nogil=True, inline="always")
def _missing_left_score(left_weights, missing_weights, class_weights, left_total, total):
    """The Gini proxy of a split whose left side gets the rows of `missing_weights` too."""
    left_squares, right_squares = 0.0, 0.0
    for k in range(class_weights.size):
        on_left = left_weights[k] + missing_weights[k]
        left_squares += on_left * on_left
        right_squares += (class_weights[k] - on_left) ** 2
    return left_squares / left_total + right_squares / (total - left_total)


@numba.njit(cache=True, nogil=True, inline="always")
def _keep_left(best_left, left_weights, missing_weights, with_missing):
    """Keeps the class weights of the best split's left child: the rows on the left of the cut,
    and with them those missing the value where `with_missing`."""
    for k in range(best_left.size):
        best_left[k] = left_weights[k] + missing_weights[k] if with_missing else left_weights[k]


@numba.njit(cache=True, nogil=True)
def _grow(
    columns_major,
    y,
    n_classes,
    counts,
    columns,
    column_orders,
    ordered_values,
    ranks,
    base_counts,
    value_bins,
    n_values,
    histogram_share,
    mtry,
    max_depth,
    nodes,
    oob,
    oob_ranges,
    oob_votes,
):
    """Grows one tree on the rows with counts > 0 into `nodes` (`new_nodes`), writes its votes
    on the rows with count 0 (`oob`, in ascending order) into `oob_votes` and returns its node
    count.

    `columns_major` is X transposed (C order: a column's values are contiguous);
    `column_orders[j]` are all rows in the order of column j, `ordered_values[j]` their values
    in that order, and `ranks[j, row]` is the position of `row` in it; the first
    `base_counts[j]` rows of that order hold the column's smallest value (`base_counts_of`).
    `value_bins[j, row]` is the index of the row's value among column j's `n_values[j]` distinct
    values in ascending order, `n_values[j]` if it is missing (`value_bins_of`); a node scans
    column j's bins instead of its ordered rows where `n_values[j]` is at most
    `histogram_share[j]` times its number of rows.

    The OOB rows are partitioned down the tree beside the in-bag ones, so each lands in its
    leaf without being routed from the root; `oob` is left so partitioned, the rows that reach
    node n being oob[oob_ranges[n, 0]:oob_ranges[n, 1]]."""
    n_rows = columns_major.shape[1]
    feature, threshold, left, right, label, missing_left = nodes
    samples = np.flatnonzero(counts)
    # One bit per rank of a column: a node marks its rows' ranks and reads them back in order.
    n_words = (n_rows + 63) >> 6
    marks = np.zeros(n_words, dtype=np.uint64)
    rows = np.empty(samples.size, dtype=np.int64)
    values = np.empty(samples.size)
    candidates = columns.copy()
    n_candidates = min(mtry, candidates.size)
    class_weights = np.zeros(n_classes)
    left_weights = np.zeros(n_classes)
    missing_weights = np.zeros(n_classes)
    base_weights = np.zeros(n_classes)
    n_bins_at_most = 0  # of the tree's columns whose bins a node of every row would take
    for j in columns:
        if n_values[j] <= histogram_share[j] * samples.size:
            n_bins_at_most = max(n_bins_at_most, n_values[j])
    histogram = np.empty((n_bins_at_most + 1, n_classes))
    bin_rows = np.empty(n_bins_at_most + 1, dtype=np.int64)
    best_left = np.zeros(n_classes)
    stack = np.empty((2 * n_rows + 1, 6), dtype=np.int64)  # start, end, depth, node, oob range
    # The class weights of each open node: its parent's scan had them at the split.
    stack_weights = np.zeros((2 * n_rows + 1, n_classes))
    stack[0, 0], stack[0, 1], stack[0, 2], stack[0, 3] = 0, samples.size, 0, 0
    stack[0, 4], stack[0, 5] = 0, oob.size
    for i in range(samples.size):
        stack_weights[0, y[samples[i]]] += counts[samples[i]]
    n_open, n_nodes = 1, 1
    while n_open:
        n_open -= 1
        start, end = stack[n_open, 0], stack[n_open, 1]
        depth, node = stack[n_open, 2], stack[n_open, 3]
        oob_start, oob_end = stack[n_open, 4], stack[n_open, 5]
        oob_ranges[node, 0], oob_ranges[node, 1] = oob_start, oob_end
        total = 0.0
        for k in range(n_classes):
            class_weights[k] = stack_weights[n_open, k]
            total += class_weights[k]
        label[node] = np.argmax(class_weights)
        feature[node] = LEAF
        if depth == max_depth or class_weights[label[node]] == total:
            oob_votes[oob[oob_start:oob_end]] = label[node]
            continue
        best_score, best_feature, best_threshold, best_missing_left = -1.0, LEAF, 0.0, False
        saw_missing = False
        for c in range(n_candidates):
            swap = c + np.random.randint(0, candidates.size - c)
            candidates[c], candidates[swap] = candidates[swap], candidates[c]
            candidate = candidates[c]
            if n_values[candidate] <= histogram_share[candidate] * (end - start):
                # The node's class weights per distinct value, scanned in ascending order. Each
                # cut is scored as in the ordered scan below, written out in each place: with a
                # shared function returning a tuple (the best split, or a cut's score and side)
                # numba's code grew trees 2-2.5x slower, continuous data included.
                n_bins = n_values[candidate]
                histogram[: n_bins + 1] = 0.0
                for i in range(start, end):
                    row = samples[i]
                    value_bin = value_bins[candidate, row]
                    histogram[value_bin, y[row]] += counts[row]
                    bin_rows[value_bin] = row  # any row of a bin gives the bin's value
                missing_weights[:] = histogram[n_bins]
                missing_total = missing_weights.sum()
                left_weights[:] = 0.0
                left_total, left_squares = 0.0, 0.0
                right_squares = (class_weights**2).sum()
                value = np.nan  # the value of the last nonempty bin on the left
                for value_bin in range(n_bins):
                    bin_total = histogram[value_bin].sum()
                    if bin_total == 0.0:
                        continue
                    following = columns_major[candidate, bin_rows[value_bin]]
                    if left_total > 0.0:
                        score = left_squares / left_total + right_squares / (total - left_total)
                        if score > best_score:
                            best_score, best_feature = score, candidate
                            best_threshold, best_missing_left = _cut(value, following), False
                            saw_missing = missing_total > 0.0
                            _keep_left(best_left, left_weights, missing_weights, False)
                        if missing_total > 0.0:
                            score = _missing_left_score(
                                left_weights,
                                missing_weights,
                                class_weights,
                                left_total + missing_total,
                                total,
                            )
                            if score > best_score:
                                best_score, best_feature = score, candidate
                                best_threshold, best_missing_left = _cut(value, following), True
                                saw_missing = True
                                _keep_left(best_left, left_weights, missing_weights, True)
                    for k in range(n_classes):
                        weight = histogram[value_bin, k]
                        left_squares += 2.0 * left_weights[k] * weight + weight * weight
                        right_squares += (
                            weight * weight - 2.0 * (class_weights[k] - left_weights[k]) * weight
                        )
                        left_weights[k] += weight
                    left_total += bin_total
                    value = following
                if missing_total > 0.0 and total > missing_total:
                    # Every row that has the value left, every row that misses it right.
                    left_weights[:] = class_weights - missing_weights
                    score = (left_weights**2).sum() / (total - missing_total) + (
                        missing_weights**2
                    ).sum() / missing_total
                    if score > best_score:
                        best_score, best_feature = score, candidate
                        best_threshold, best_missing_left = np.inf, False
                        saw_missing = True
                        _keep_left(best_left, left_weights, missing_weights, False)
                continue
            # The node's rows in the column's order: mark their ranks, read the marks in order.
            # Rows at the column's smallest value come first in any order, so they are only
            # counted: in sparse columns (mostly zeros) they are most of the node.
            low_word, high_word = n_words, 0
            base_count = base_counts[candidate]
            base_weights[:] = 0.0
            for i in range(start, end):
                row = samples[i]
                rank = ranks[candidate, row]
                if rank < base_count:
                    base_weights[y[row]] += counts[row]
                    continue
                word = rank >> 6
                marks[word] |= np.uint64(1) << np.uint64(rank & 63)
                low_word = min(low_word, word)
                high_word = max(high_word, word)
            if n_classes == 2 and not np.isnan(ordered_values[candidate, n_rows - 1]):
                # Two classes and no missing value in the column (they would sort last): each
                # row is scanned as it is read back, the left side's class weights held as two
                # numbers. The sums are of counts, so exact however they are formed, and every
                # cut scores as in the scan below. A cut whose score, cross-multiplied, falls
                # short of the best by more than rounding can reach, cannot beat it: it is not
                # divided out. Both make continuous columns' trees about a tenth faster
                # (benchmarks/benchmark_tree_kernels.py).
                left_0, left_1 = base_weights[0], base_weights[1]
                total_0, total_1 = class_weights[0], class_weights[1]
                left_total = left_0 + left_1
                value = ordered_values[candidate, 0]
                scored = left_total > 0.0  # the cut above the smallest value, if it has rows
                for word in range(low_word, high_word + 1):
                    bits = marks[word]
                    marks[word] = 0
                    while bits:
                        position = (word << 6) + _trailing_zeros(bits)
                        bits &= bits - np.uint64(1)
                        following = ordered_values[candidate, position]
                        if scored and value != following:
                            right_total = total - left_total
                            left_squares = left_0 * left_0 + left_1 * left_1
                            right_squares = (total_0 - left_0) ** 2 + (total_1 - left_1) ** 2
                            if (
                                left_squares * right_total + right_squares * left_total
                                >= best_score * left_total * right_total * SCORE_MARGIN
                            ):
                                score = left_squares / left_total + right_squares / right_total
                                if score > best_score:
                                    best_score, best_feature = score, candidate
                                    best_threshold = _cut(value, following)
                                    best_missing_left, saw_missing = False, False
                                    best_left[0], best_left[1] = left_0, left_1
                        scored = True
                        row = column_orders[candidate, position]
                        if y[row]:
                            left_1 += counts[row]
                        else:
                            left_0 += counts[row]
                        left_total += counts[row]
                        value = following
                continue
            i = 0
            for word in range(low_word, high_word + 1):
                bits = marks[word]
                marks[word] = 0
                while bits:
                    position = (word << 6) + _trailing_zeros(bits)
                    rows[i] = column_orders[candidate, position]
                    values[i] = ordered_values[candidate, position]
                    i += 1
                    bits &= bits - np.uint64(1)
            n_above = i  # the rows above the smallest value, in order in rows[:n_above]
            # Missing values sort last: the node's rows that have the value come first.
            n_present = n_above
            while n_present and np.isnan(values[n_present - 1]):
                n_present -= 1
            missing_total = 0.0
            if n_present < n_above:
                missing_weights[:] = 0.0
                for i in range(n_present, n_above):
                    missing_weights[y[rows[i]]] += counts[rows[i]]
                missing_total = missing_weights.sum()
            # The scan starts with the smallest value's rows on the left. The weights are counts,
            # so these sums are exact, as the row by row updates below are. Sums by hand, not
            # numpy's expressions, which allocate a temporary array per candidate.
            base_total, left_squares, right_squares = 0.0, 0.0, 0.0
            for k in range(n_classes):
                left_weights[k] = base_weights[k]
                base_total += base_weights[k]
                left_squares += base_weights[k] * base_weights[k]
                right_squares += (class_weights[k] - base_weights[k]) ** 2
            left_total = base_total
            if base_total > 0.0 and n_present > 0:
                # The cut above the smallest value, scored before the scan rather than by a
                # branch in its loop: with the allocations above, that branch made continuous
                # columns' trees slower (benchmarks/benchmark_tree_kernels.py).
                value, following = ordered_values[candidate, 0], values[0]
                score = left_squares / left_total + right_squares / (total - left_total)
                if score > best_score:
                    best_score, best_feature = score, candidate
                    best_threshold, best_missing_left = _cut(value, following), False
                    saw_missing = missing_total > 0.0
                    _keep_left(best_left, left_weights, missing_weights, False)
                if missing_total > 0.0:
                    score = _missing_left_score(
                        left_weights,
                        missing_weights,
                        class_weights,
                        left_total + missing_total,
                        total,
                    )
                    if score > best_score:
                        best_score, best_feature = score, candidate
                        best_threshold, best_missing_left = _cut(value, following), True
                        saw_missing = True
                        _keep_left(best_left, left_weights, missing_weights, True)
            for q in range(n_present - 1):
                weight, k = counts[rows[q]], y[rows[q]]
                # Running sums of squared class weights: one update per row, two divisions.
                left_squares += 2.0 * left_weights[k] * weight + weight * weight
                right_squares += (
                    weight * weight - 2.0 * (class_weights[k] - left_weights[k]) * weight
                )
                left_weights[k] += weight
                left_total += weight
                value, following = values[q], values[q + 1]
                if value == following:
                    continue
                score = left_squares / left_total + right_squares / (total - left_total)
                if score > best_score:
                    best_score, best_feature = score, candidate
                    best_threshold, best_missing_left = _cut(value, following), False
                    saw_missing = missing_total > 0.0
                    _keep_left(best_left, left_weights, missing_weights, False)
                if missing_total > 0.0:
                    score = _missing_left_score(
                        left_weights,
                        missing_weights,
                        class_weights,
                        left_total + missing_total,
                        total,
                    )
                    if score > best_score:
                        best_score, best_feature = score, candidate
                        best_threshold, best_missing_left = _cut(value, following), True
                        saw_missing = True
                        _keep_left(best_left, left_weights, missing_weights, True)
            if missing_total > 0.0 and total > missing_total:
                # Every row that has the value left, every row that misses it right.
                left_weights[:] = class_weights - missing_weights
                score = (left_weights**2).sum() / (total - missing_total) + (
                    missing_weights**2
                ).sum() / missing_total
                if score > best_score:
                    best_score, best_feature = score, candidate
                    best_threshold, best_missing_left = np.inf, False
                    saw_missing = True
                    _keep_left(best_left, left_weights, missing_weights, False)
        if best_feature == LEAF:
            oob_votes[oob[oob_start:oob_end]] = label[node]
            continue
        low = _partition(
            samples, start, end, columns_major, best_feature, best_threshold, best_missing_left
        )
        left_total = 0.0
        for k in range(n_classes):
            left_total += best_left[k]
        if not saw_missing:
            # No in-bag row missed the value: a row that misses it goes to the heavier child.
            best_missing_left = left_total > total - left_total
        oob_low = _partition(
            oob, oob_start, oob_end, columns_major, best_feature, best_threshold, best_missing_left
        )
        feature[node], threshold[node] = best_feature, best_threshold
        missing_left[node] = best_missing_left
        left[node], right[node] = n_nodes, n_nodes + 1
        # The right child waits under the left one.
        stack[n_open, 0], stack[n_open, 1] = low, end
        stack[n_open, 2], stack[n_open, 3] = depth + 1, n_nodes + 1
        stack[n_open, 4], stack[n_open, 5] = oob_low, oob_end
        stack[n_open + 1, 0], stack[n_open + 1, 1] = start, low
        stack[n_open + 1, 2], stack[n_open + 1, 3] = depth + 1, n_nodes
        stack[n_open + 1, 4], stack[n_open + 1, 5] = oob_start, oob_low
        for k in range(n_classes):
            stack_weights[n_open, k] = class_weights[k] - best_left[k]
            stack_weights[n_open + 1, k] = best_left[k]
        n_open += 2
        n_nodes += 2
    return n_nodes


@numba.njit(cache=True, nogil=True)
def _grow_chunk(
    X,
    columns_major,
    y,
    n_classes,
    seeds,
    column_values,
    column_starts,
    column_ends,
    column_orders,
    ordered_values,
    ranks,
    base_counts,
    value_bins,
    n_values,
    histogram_share,
    mtry,
    max_depth,
    first,
    last,
    with_importance,
    used,
    votes,
    importance,
    test_columns,
    test_votes,
):
    """Trees first..last-1: each tree's split features, OOB votes, votes on the test rows
    (`test_columns`: their columns as rows; none if it has no rows) and, if asked, per-feature
    increase of its OOB error when the feature's OOB values are permuted."""
    n_rows = X.shape[0]
    test_rows = np.empty(test_columns.shape[1], dtype=np.int64)
    test_scratch = np.empty_like(test_rows)
    nodes = new_nodes(n_rows)
    feature = nodes[0]
    oob_ranges = np.empty((feature.size, 2), dtype=np.int64)
    position_of = np.empty(n_rows, dtype=np.int64)
    for tree in range(first, last):
        np.random.seed(seeds[tree])
        counts = np.zeros(n_rows, dtype=np.int64)
        for _ in range(n_rows):
            counts[np.random.randint(0, n_rows)] += 1
        columns = column_values[column_starts[tree] : column_ends[tree]]
        oob_rows = np.flatnonzero(counts == 0)
        oob = oob_rows.copy()
        n_nodes = _grow(
            columns_major,
            y,
            n_classes,
            counts,
            columns,
            column_orders,
            ordered_values,
            ranks,
            base_counts,
            value_bins,
            n_values,
            histogram_share,
            mtry[tree],
            max_depth,
            nodes,
            oob,
            oob_ranges,
            votes[tree],
        )
        for node in range(n_nodes):
            if feature[node] != LEAF:
                used[tree, feature[node]] = True
        if test_columns.shape[1]:
            _vote_on(test_columns, nodes, n_nodes, test_rows, test_scratch, test_votes[tree])
        if with_importance and oob_rows.size:
            position_of[oob_rows] = np.arange(oob_rows.size)
            first_node, splits_again = _first_splits(
                nodes, n_nodes, used[tree], oob, oob_ranges, position_of
            )
            _permutation_increases(
                X,
                y,
                oob_rows,
                used[tree],
                votes[tree],
                nodes,
                first_node,
                splits_again,
                importance[tree],
            )


@numba.njit(cache=True, nogil=True)
def _vote_on(columns_major, nodes, n_nodes, rows, scratch, votes):
    """The tree's vote on every row of `columns_major` (columns as rows). The rows go down
    the tree together, each node splitting its rows by one column, which stays in cache,
    where routing row by row would read the rows' values scattered over all columns. The
    split is stable and branch-free (each row is written to both sides, and only the side
    it goes to advances), so a node's rows stay in ascending order and read its column
    forwards; `scratch` (as long as `rows`) holds the right side while the left is packed."""
    feature, threshold, left, right, label, missing_left = nodes
    rows[:] = np.arange(rows.size)
    stack_node = np.empty(n_nodes, dtype=np.int64)
    stack_start = np.empty(n_nodes, dtype=np.int64)
    stack_end = np.empty(n_nodes, dtype=np.int64)
    stack_node[0], stack_start[0], stack_end[0] = 0, 0, rows.size
    n_open = 1
    while n_open:
        n_open -= 1
        node, start, end = stack_node[n_open], stack_start[n_open], stack_end[n_open]
        if feature[node] == LEAF:
            for i in range(start, end):
                votes[rows[i]] = label[node]
            continue
        column = columns_major[feature[node]]
        cut, nan_left = threshold[node], missing_left[node]
        n_left, n_right = 0, 0
        for i in range(start, end):
            row = rows[i]
            value = column[row]
            goes_left = np.int64(_goes_left(value, cut, nan_left))
            rows[start + n_left] = row
            scratch[n_right] = row
            n_left += goes_left
            n_right += 1 - goes_left
        middle = start + n_left
        rows[middle:end] = scratch[:n_right]
        stack_node[n_open], stack_start[n_open], stack_end[n_open] = left[node], start, middle
        stack_node[n_open + 1], stack_start[n_open + 1] = right[node], middle
        stack_end[n_open + 1] = end
        n_open += 2


@numba.njit(cache=True, nogil=True)
def _first_splits(nodes, n_nodes, used, oob, oob_ranges, position_of):
    """Per feature the tree splits on (its rank among them) and OOB row (`position_of[row]`,
    its rank among the OOB rows): the first node of the row's path that splits on the feature,
    LEAF if none does, and whether a node further down the path splits on it again.

    The rows' paths are read off `_grow`'s partition of the OOB rows (`oob`, `oob_ranges`), not
    routed again from the root: a node's children come after it, so visiting the nodes in order
    meets each path's nodes from the root down. The two tables are dense (used features x OOB
    rows): a few kilobytes per tree at this project's sizes."""
    feature = nodes[0]
    slot_of = np.cumsum(used) - 1
    n_used, n_oob = used.sum(), oob.size
    first_node = np.full((n_used, n_oob), LEAF, dtype=np.int32)
    splits_again = np.zeros((n_used, n_oob), dtype=np.bool_)
    for node in range(n_nodes):
        if feature[node] == LEAF:
            continue
        slot = slot_of[feature[node]]
        for p in range(oob_ranges[node, 0], oob_ranges[node, 1]):
            i = position_of[oob[p]]
            if first_node[slot, i] == LEAF:
                first_node[slot, i] = node
            else:
                splits_again[slot, i] = True
    return first_node, splits_again


@numba.njit(cache=True, nogil=True)
def _permutation_increases(X, y, oob_rows, used, votes, nodes, first_node, splits_again, increases):
    """Per used feature: the increase of the tree's OOB error when the feature's values are
    permuted among the OOB rows (`oob_rows`, ascending; `first_node` and `splits_again` as
    `_first_splits` gives them).

    A row's vote can change only if its path splits on the permuted feature, so only those
    rows are routed again, from the first node of their path that splits on it (the path
    above does not read it), and only their part of the permutation is drawn: the first draws
    of a Fisher-Yates shuffle, which give them distinct OOB rows uniformly at random, as a
    whole permutation would. Where the path splits on the feature once, and the drawn value
    goes the row's own way there, the row ends in its own leaf: not routed at all."""
    feature, threshold, left, right, label, missing_left = nodes
    n_oob = oob_rows.size
    used_features = np.flatnonzero(used)
    shuffle = np.arange(n_oob)
    swaps = np.empty(n_oob, dtype=np.int64)
    for slot in range(used_features.size):
        permuted = used_features[slot]
        changed_wrong, k = 0, 0
        for i in range(n_oob):
            node = first_node[slot, i]
            if node == LEAF:
                continue
            swaps[k] = k + np.random.randint(0, n_oob - k)
            shuffle[k], shuffle[swaps[k]] = shuffle[swaps[k]], shuffle[k]
            row = oob_rows[i]
            swapped_row = oob_rows[shuffle[k]]
            k += 1
            if not splits_again[slot, i]:
                cut, nan_left = threshold[node], missing_left[node]
                swapped_left = _goes_left(X[swapped_row, permuted], cut, nan_left)
                if swapped_left == _goes_left(X[row, permuted], cut, nan_left):
                    continue
                node = left[node] if swapped_left else right[node]
            leaf = _route(X, row, permuted, swapped_row, nodes, node)
            changed_wrong += (label[leaf] != y[row]) - (votes[row] != y[row])
        for q in range(k - 1, -1, -1):
            shuffle[q], shuffle[swaps[q]] = shuffle[swaps[q]], shuffle[q]
        increases[permuted] = changed_wrong / n_oob


@numba.njit(cache=True, nogil=True)
def tally_runs(votes, run_starts, n_classes):
    """Per run of consecutive trees (run r: trees run_starts[r] up to the next start), the class
    vote counts on each row (runs x rows x classes)."""
    n_trees, n_rows = votes.shape
    tallies = np.zeros((run_starts.size, n_rows, n_classes), dtype=np.uint16)
    for run in range(run_starts.size):
        end = run_starts[run + 1] if run + 1 < run_starts.size else n_trees
        for tree in range(run_starts[run], end):
            for row in range(n_rows):
                if votes[tree, row] >= 0:
                    tallies[run, row, votes[tree, row]] += 1
    return tallies


def base_counts_of(columns_major: np.ndarray, column_orders: np.ndarray) -> np.ndarray:
    """Per column (a row of `columns_major`), how many rows hold its smallest value: the
    first ones of its order (none for a column of missing values, NaN being unequal)."""
    smallest = np.take_along_axis(columns_major, column_orders[:, :1], axis=1)
    return (columns_major == smallest).sum(axis=1)


def value_bins_of(columns_major: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column (a row of `columns_major`): each row's index among the column's distinct
    values in ascending order, the number of distinct values for a missing one, and that
    number."""
    value_bins = np.empty(columns_major.shape, dtype=np.int32)
    n_values = np.empty(columns_major.shape[0], dtype=np.int64)
    for j, column in enumerate(columns_major):
        present = ~np.isnan(column)
        distinct, value_bins[j, present] = np.unique(column[present], return_inverse=True)
        n_values[j] = distinct.size
        value_bins[j, ~present] = distinct.size
    return value_bins, n_values


class TreeBatch:
    """What a batch of trees yields: per tree its split features, OOB votes and (if asked)
    per-feature permutation importance."""

    def __init__(
        self,
        used: np.ndarray,
        votes: np.ndarray,
        importance: np.ndarray | None,
        test_votes: np.ndarray | None = None,
    ):
        self.used = used
        """used[t, j]: tree t splits on feature j."""
        self.votes = votes
        """votes[t, r]: tree t's class vote on row r, IN_BAG where r is in its sample."""
        self.test_votes = test_votes
        """test_votes[t, r]: tree t's class vote on row r of the test rows (if given)."""
        self.importance = importance
        """importance[t, j]: increase of tree t's OOB error with feature j permuted."""

    def used_features(self) -> list[np.ndarray]:
        return [np.flatnonzero(row) for row in self.used]


class TreeGrower:
    """Grows batches of trees on one training set; its column orders (and each row's rank in
    them) are sorted once, so many small batches (forward selection's forests) cost no more
    than one large one."""

    def __init__(self, X: np.ndarray, y: np.ndarray):
        self.X = np.ascontiguousarray(X, dtype=np.float64)
        self.y = np.ascontiguousarray(y, dtype=np.int64)
        self.n_classes = class_count(self.y)
        self.columns_major = np.ascontiguousarray(self.X.T)
        # 32-bit positions: half the memory (and cache) of numpy's 64-bit indices.
        self.column_orders = np.argsort(self.columns_major, axis=1).astype(np.int32)
        self.ranks = np.empty_like(self.column_orders)
        # A node reads its rows' values back in the column's order, from consecutive memory.
        self.ordered_values = np.take_along_axis(self.columns_major, self.column_orders, axis=1)
        positions = np.arange(self.X.shape[0], dtype=np.int32)
        np.put_along_axis(self.ranks, self.column_orders, positions[None, :], axis=1)
        self.base_counts = base_counts_of(self.columns_major, self.column_orders)
        self.value_bins, self.n_values = value_bins_of(self.columns_major)
        # A node's bins cost a step per distinct value, ordering its rows a step per row above
        # the smallest value: the bins are taken where they are fewer than those rows.
        self.histogram_share = 1.0 - self.base_counts / max(1, self.X.shape[0])

    def grow(
        self,
        *,
        seeds: np.ndarray,
        column_sets: list[np.ndarray] | None,
        max_features: int | np.ndarray | None,
        max_depth: int | None,
        with_importance: bool = False,
        X_test: np.ndarray | None = None,
        n_jobs: int = 1,
    ) -> TreeBatch:
        """One tree per seed; tree t sees `column_sets[t]` (all columns by default) and draws
        `max_features` candidates per node (one count for all trees or one per tree; all of
        its columns for None). With `X_test` (the columns of X), each tree's votes on its
        rows too."""
        seeds = np.asarray(seeds, dtype=np.uint32)
        n_trees, (n_rows, n_features) = seeds.size, self.X.shape
        if column_sets is None:
            column_values = np.arange(n_features, dtype=np.int64)
            starts, ends = np.zeros(n_trees, dtype=np.int64), np.full(n_trees, n_features)
        else:
            sizes = np.array([len(columns) for columns in column_sets], dtype=np.int64)
            column_values = np.concatenate([np.asarray(c, dtype=np.int64) for c in column_sets])
            ends = np.cumsum(sizes)
            starts = ends - sizes
            # The kernels do not check bounds: a bad column would read outside X.
            outside = column_values[(column_values < 0) | (column_values >= n_features)]
            if outside.size:
                raise ValueError(
                    f"column sets name column {outside[0]}; X has {n_features} columns"
                )
        mtry = np.array(
            np.broadcast_to(n_features if max_features is None else max_features, n_trees),
            dtype=np.int64,
        )
        used = np.zeros((n_trees, n_features), dtype=np.bool_)
        votes = np.full((n_trees, n_rows), IN_BAG, dtype=np.int8)
        importance = np.zeros((n_trees, n_features) if with_importance else (0, 0))
        X_test = np.zeros((0, n_features)) if X_test is None else X_test
        test_columns = np.ascontiguousarray(np.asarray(X_test, dtype=np.float64).T)
        test_votes = np.empty((n_trees, X_test.shape[0]), dtype=np.int8)
        bounds = np.linspace(0, n_trees, max(1, n_jobs) * CHUNKS_PER_THREAD + 1).astype(int)

        def grow(chunk: int) -> None:
            _grow_chunk(
                self.X,
                self.columns_major,
                self.y,
                self.n_classes,
                seeds,
                column_values,
                starts,
                ends,
                self.column_orders,
                self.ordered_values,
                self.ranks,
                self.base_counts,
                self.value_bins,
                self.n_values,
                self.histogram_share,
                mtry,
                -1 if max_depth is None else int(max_depth),
                bounds[chunk],
                bounds[chunk + 1],
                with_importance,
                used,
                votes,
                importance,
                test_columns,
                test_votes,
            )

        with ThreadPoolExecutor(max_workers=max(1, n_jobs)) as pool:
            list(pool.map(grow, range(bounds.size - 1)))
        return TreeBatch(
            used,
            votes,
            importance if with_importance else None,
            test_votes if X_test.shape[0] else None,
        )


def grow_tree_batch(X: np.ndarray, y: np.ndarray, **batch) -> TreeBatch:
    """`TreeGrower(X, y).grow(**batch)`; `y` holds class codes 0..K-1."""
    return TreeGrower(X, y).grow(**batch)
