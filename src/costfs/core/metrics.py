"""Test metrics of a classifier from its class vote shares (rows x classes 0..K-1).

A row whose top share is tied is predicted as one of the tied classes at random (ranger's
tie-break), so the class-based metrics are their expected values over that draw, as the MMCE of
`costfs.engine.trees.tally_errors` is. Binary problems take class 1 as the positive class;
with more classes, sensitivity and specificity are the means over the classes of each class
against the rest (macro averages), and AUC is the one-vs-rest macro average.
"""

import numpy as np

METRICS = ("mmce", "auc", "brier", "sensitivity", "specificity")
"""What can be measured: misclassification rate, area under the ROC curve, Brier score (mean
squared error of the predicted probabilities: of class 1 for two classes, summed over the
classes for more), sensitivity (true positive rate) and specificity (true negative rate)."""

FURTHER_METRICS = tuple(metric for metric in METRICS if metric != "mmce")
"""What a study or `costfs select` can measure besides the error rate, which it always does."""


def check_metrics(metrics) -> None:
    unknown = sorted(set(metrics) - set(METRICS))
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; known: {list(METRICS)}")


def prediction_shares(shares: np.ndarray) -> np.ndarray:
    """Per row, the probability that each class is predicted: 1 for a unique top share, split
    evenly among tied top shares."""
    shares = np.asarray(shares, dtype=float)
    top = shares == shares.max(axis=1, keepdims=True)
    return top / top.sum(axis=1, keepdims=True)


def classification_metrics(
    y: np.ndarray, shares: np.ndarray, metrics: tuple[str, ...] = METRICS
) -> dict[str, float]:
    """The `metrics` (of `METRICS`) of vote `shares` against the labels `y`; NaN where a metric
    is undefined (AUC or a class-wise rate when a class is absent from `y`)."""
    from sklearn.metrics import brier_score_loss, roc_auc_score

    check_metrics(metrics)
    y = np.asarray(y)
    shares = np.asarray(shares, dtype=float)
    n_classes = shares.shape[1]
    predicted = prediction_shares(shares)
    present = [k for k in range(n_classes) if np.any(y == k)]
    values = {}
    for metric in metrics:
        if metric == "mmce":
            values[metric] = float(1 - predicted[np.arange(len(y)), y].mean())
        elif metric == "brier":
            probabilities = shares[:, 1] if n_classes == 2 else shares
            values[metric] = float(
                brier_score_loss(y, probabilities, labels=list(range(n_classes)))
            )
        elif len(present) < n_classes:
            values[metric] = np.nan
        elif metric == "auc":
            values[metric] = float(
                roc_auc_score(y, shares[:, 1])
                if n_classes == 2
                else roc_auc_score(y, shares, multi_class="ovr", labels=list(range(n_classes)))
            )
        else:
            # Binary: class 1 against class 0; more classes: each against the rest.
            positives = [1] if n_classes == 2 else range(n_classes)
            rates = [
                predicted[y == k, k].mean()
                if metric == "sensitivity"
                else 1 - predicted[y != k, k].mean()
                for k in positives
            ]
            values[metric] = float(np.mean(rates))
    return values
