"""Real data sets: reading a table, label mapping, costs and random train/test splits."""

import difflib
import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from costfs.core.costs import FeatureCosts
from costfs.core.names import some_names
from costfs.core.tabular import encode_table
from costfs.core.validation import DataError, check_class_target, check_costs, check_feature_frame

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class DataSource:
    """Where a real data set comes from: `kind` is `file` (`location` is a CSV, .csv.gz or
    Parquet file, whose cells in `missing_values` are missing besides pandas' usual marks, with
    its `sep` and `decimal` mark where they are not detected), `sklearn` (a `sklearn.datasets`
    loader) or `openml` (a data id, cached under `cache`). The columns in `drop` are not
    features (an Id, a date of entry)."""

    kind: str
    location: str
    target: str
    positive_class: object
    cache: str | None = None
    missing_values: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    sep: str | None = None
    decimal: str | None = None


LOADING_KEYS = (
    "path",
    "missing_values",
    "drop",
    "sep",
    "decimal",
    "target",
    "positive_class",
    "sklearn_loader",
    "sklearn_positive_class",
    "openml_id",
    "source_target",
    "source_positive_class",
)
"""The keys of a data set's config that say how it is loaded (`choose_source`, `table_to_arrays`);
its budgets, costs and cost vectors do not change the data."""


DATASET_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
"""A real data set's name: a config key, a path segment and a workflow wildcard (the config
schema's `real_data.datasets` keys have the same pattern)."""


def _close_match(name: str, columns) -> str:
    """ "; did you mean ...?" where a column's name is close to `name`, else nothing."""
    close = difflib.get_close_matches(str(name), [str(column) for column in columns], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _drop_hint(name: str) -> str:
    """How to leave the column `name` out, quoted for a shell and for YAML."""
    return f"leave it out with --drop {shlex.quote(name)}; in a study, drop: [{json.dumps(name)}]"


def dataset_name_from_file(path: str) -> str:
    """A data set name from a file's name: its stem with every other character as `_`, and a
    leading `d` where it would not start with a letter (`2020 visits.csv` -> `d2020_visits`)."""
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", Path(path).name.split(".")[0])
    return stem if DATASET_NAME.fullmatch(stem) else f"d{stem}"


def choose_source(
    name: str,
    source: dict,
    data_dir: str | None,
    exists: Callable[[Path], bool] = Path.exists,
) -> DataSource:
    """The data set's `path` if it has one; else the first source that is there, in the order
    `<data_dir>/<name>.csv.gz` or `<data_dir>/<name>.csv` (a data_dir holding both is refused:
    which one is current is for the user to say), a scikit-learn loader, OpenML by id."""
    target, positive_class = source.get("target", "target"), source.get("positive_class")
    marks = tuple(str(mark) for mark in source.get("missing_values", ()))
    reading = {
        "missing_values": marks,
        "drop": tuple(str(column) for column in source.get("drop", ())),
        "sep": source.get("sep"),
        "decimal": source.get("decimal"),
    }
    if source.get("path"):
        return DataSource("file", str(source["path"]), target, positive_class, **reading)
    if data_dir:
        directory = Path(data_dir)
        if not directory.is_dir():
            raise DataError(f"data_dir {str(directory)!r} does not exist or is not a directory")
        candidates = [
            path
            for path in (directory / f"{name}.csv.gz", directory / f"{name}.csv")
            if exists(path)
        ]
        if len(candidates) > 1:
            raise DataError(
                f"data set {name!r}: data_dir holds both {candidates[0]} and {candidates[1]}; "
                f"remove the one that is not current, or name the file with "
                f"real_data.datasets.{name}.path"
            )
        if candidates:
            return DataSource("file", str(candidates[0]), target, positive_class, **reading)
    if source.get("sklearn_loader"):
        return DataSource(
            "sklearn",
            source["sklearn_loader"],
            "target",
            source["sklearn_positive_class"],
            drop=reading["drop"],
        )
    if source.get("openml_id"):
        return DataSource(
            "openml",
            str(source["openml_id"]),
            source["source_target"],
            source["source_positive_class"],
            source.get("openml_cache"),
            drop=reading["drop"],
        )
    raise DataError(
        f"data set {name!r}: no {name}.csv(.gz) in data_dir {data_dir!r} and no other source"
    )


def table_to_arrays(
    frame: "pd.DataFrame",
    target: str,
    positive_class: object,
    source: str,
    drop: tuple[str, ...] = (),
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray]:
    """Features (NaN where missing), class codes, feature names and the positions of the
    categorical columns, whose values are level codes (`costfs.core.tabular.encode_table`).
    The columns in `drop` are left out. With a `positive_class`, that label is 1 and all others
    0; without, each distinct label is a class (codes in sorted label order)."""
    if target not in frame.columns:
        raise DataError(
            f"{source}: no target column {target!r}{_close_match(target, frame.columns)}; "
            f"columns are {some_names(frame.columns)}"
        )
    unknown = [column for column in drop if column not in frame.columns or column == target]
    if unknown:
        raise DataError(
            f"{source}: cannot drop {unknown}: "
            + (
                f"{target!r} is the target"
                if target in unknown
                else f"no such column; columns are {some_names(frame.columns)}"
            )
        )
    labels = frame[target]
    features = frame.drop(columns=[target, *drop])
    check_feature_frame(features, source)
    copies = [
        str(column)
        for column in features.columns
        if np.array_equal(features[column].to_numpy(), labels.to_numpy())
    ]
    if copies:
        raise DataError(
            f"{source}: column(s) {copies} equal the target column {target!r} row for row, so "
            "the label would be a feature; drop them"
        )
    if labels.isna().any():
        rows = np.flatnonzero(labels.isna().to_numpy()) + 1
        raise DataError(
            f"{source}: target column {target!r} has no value in {rows.size} row(s), e.g. "
            f"row(s) {rows[:3].tolist()} (rows counted from 1 after the header); remove them "
            "or give their class"
        )
    if positive_class is not None:
        labels = labels.astype(str) == str(positive_class)
        if not labels.any():
            found = sorted(frame[target].astype(str).unique())[:8]
            raise DataError(
                f"{source}: positive class {positive_class!r} does not occur in target "
                f"{target!r} (values: {found})"
            )
    y = check_class_target(labels.to_numpy(), len(frame), f"{source} target {target!r}")
    X, categorical = encode_table(features, source)
    return X, y, [str(c) for c in features.columns], categorical


def class_labels(labels: "pd.Series", positive_class: object) -> list[str]:
    """The label of each class code `table_to_arrays` gives the target `labels`: with a
    `positive_class`, "not LABEL" and LABEL; else the distinct labels in sorted order."""
    if positive_class is not None:
        return [f"not {positive_class}", str(positive_class)]
    return [str(label) for label in np.unique(labels.to_numpy())]


def positive_class_text(class_labels) -> str:
    """Which class the class-specific metrics (AUC, sensitivity, specificity, Brier) are of:
    two classes, the label of class 1; more, their macro average."""
    labels = [str(label) for label in class_labels]
    return labels[1] if len(labels) == 2 else f"macro average over {len(labels)} classes"


COST_COLUMNS = ("feature", "cost", "group")


def costs_from_table(
    table: "pd.DataFrame",
    feature_names: list[str],
    source: str,
    group_costs: dict[str, float] | None = None,
) -> FeatureCosts:
    """The features' costs from a table with columns `feature`, `cost` and optionally `group`,
    in the order of `feature_names`: every feature needs exactly one own cost >= 0, every
    row must name a feature of the data, and every group named needs its shared cost. A row
    with a `group` and a `cost` but no `feature` gives that group's shared cost; `group_costs`
    (a flag or config key) gives it too, and where both give one they must agree."""
    import pandas as pd

    absent = [column for column in COST_COLUMNS[:2] if column not in table.columns]
    if absent:
        raise DataError(
            f"{source}: a costs file needs the columns feature and cost; missing {absent}, "
            f"found {list(table.columns)}"
        )
    extra = [column for column in table.columns if column not in COST_COLUMNS]
    if extra:
        raise DataError(
            f"{source}: unexpected columns {extra}; a costs file has the columns feature, cost "
            "and optionally group"
        )
    shared_rows = table["feature"].isna() | (table["feature"].astype(str).str.strip() == "")
    shared = _shared_costs_from_rows(table[shared_rows], source)
    table = table[~shared_rows]
    names = table["feature"].astype(str)
    unknown = [name for name in names if name not in set(feature_names)]
    if unknown:
        raise DataError(
            f"{source}: costs for {unknown[:5]}, which are not features of the data"
            f"{_close_match(unknown[0], feature_names)} (a column left out with --drop or drop: "
            "has no cost row; remove the row, or correct the name)"
        )
    uncosted = [name for name in feature_names if name not in set(names)]
    if uncosted:
        raise DataError(
            f"{source}: no cost for the data's column(s) {uncosted[:5]}; give each a row "
            f"(cost 0 where it is free), or leave out a column that is not a feature "
            f"({_drop_hint(uncosted[0])})"
        )
    own = check_costs(
        _costs_by_label(names, table["cost"], source, "feature"),
        len(feature_names),
        source,
        feature_names,
    )
    given = {str(group): cost for group, cost in (group_costs or {}).items()}
    if "group" not in table.columns:
        if given:
            raise DataError(
                f"{source}: group costs are given (--group-costs, or group_costs in a study) but "
                "the file has no group column"
            )
        return FeatureCosts.ungrouped(own)
    for group in sorted(set(shared) & set(given)):
        if float(given[group]) != shared[group]:
            raise DataError(
                f"{source}: group {group!r} has the shared cost {shared[group]:g} in the file "
                f"and {given[group]!r} in --group-costs (group_costs in a study); give it once"
            )
    group_of = dict(zip(names, table["group"], strict=True))
    groups = [group_of[name] for name in feature_names]
    named = {str(group) for group in groups if not pd.isna(group) and str(group) != ""}
    missing = sorted(named - set(shared) - set(given))
    if missing:
        raise DataError(
            f"{source}: no shared cost for group(s) {missing}; give each one as a row with an "
            f"empty feature (`,COST,{missing[0]}`) in the costs file, or with --group-costs "
            f"{missing[0]}=COST (costfs select) / group_costs (a study config)"
        )
    return FeatureCosts.grouped(own, groups, shared | given, source=f"{source} group_costs")


def _shared_costs_from_rows(rows: "pd.DataFrame", source: str) -> dict[str, float]:
    """Group -> shared cost from the rows of a costs table that name no feature."""
    if rows.empty:
        return {}
    if "group" not in rows.columns or rows["group"].isna().any():
        raise DataError(
            f"{source}: a row without a feature must name the group whose shared cost it gives"
        )
    return _costs_by_label(rows["group"].astype(str), rows["cost"], source, "group").to_dict()


def _costs_by_label(labels: "pd.Series", raw: "pd.Series", source: str, kind: str) -> "pd.Series":
    """The costs `raw` as numbers >= 0 keyed by `labels`, each label once; errors name the
    `kind` of row (feature or group), its label and its value."""
    import pandas as pd

    repeated = sorted(set(labels[labels.duplicated()]))
    if repeated:
        raise DataError(f"{source}: {kind}s listed more than once: {repeated[:5]}")
    values = pd.to_numeric(raw, errors="coerce")
    for label, text, value in zip(labels, raw, values, strict=True):
        if not np.isfinite(value) or value < 0:
            raise DataError(
                f"{source}: {kind} {label!r} has cost {text!r}; costs must be numbers >= 0 "
                "(0: free)"
            )
    return pd.Series(values.to_numpy(dtype=float), index=labels)


IDENTIFIER_MIN_ROWS = 20
"""An identifier-like column is flagged from this many rows on: in a handful of rows, distinct
whole numbers are common."""


def degenerate_columns(X: np.ndarray, names: list[str]) -> list[str]:
    """Constant columns, columns identical to an earlier one and identifier-like columns
    (whole numbers or labels, a different one in every row), described by name.

    All are valid features (a constant column carries no information, a copy has its own cost,
    an identifier lets a forest memorise rows); they are reported because they usually mean a
    preprocessing slip.
    """
    spread = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
    notes = [f"column {names[j]!r} is constant" for j in np.flatnonzero(spread == 0)]
    for j in range(X.shape[1]):
        column = X[:, j]
        if (
            column.size >= IDENTIFIER_MIN_ROWS
            and not np.isnan(column).any()
            and np.array_equal(column, np.round(column))
            and np.unique(column).size == column.size
        ):
            notes.append(
                f"column {names[j]!r} has a different whole number or label in every row, like "
                f"an identifier ({_drop_hint(names[j])})"
            )
    first_of = {}
    for j in range(X.shape[1]):
        first = first_of.setdefault(X[:, j].tobytes(), j)
        if first != j:
            notes.append(f"column {names[j]!r} duplicates column {names[first]!r}")
    return notes


def check_training_classes(y_train: np.ndarray, n_classes: int, source: str) -> None:
    """A training part needs rows of every class."""
    counts = np.bincount(y_train, minlength=n_classes)
    if counts.min() == 0:
        missing = ", ".join(str(k) for k in np.flatnonzero(counts == 0))
        raise DataError(
            f"{source}: the training part has no rows of class {missing} (rows per class: "
            f"{', '.join(str(count) for count in counts)}); the data set is too small or too "
            "unbalanced for train_fraction"
        )


def split_indices(
    rng: np.random.Generator, n_rows: int, train_fraction: float
) -> tuple[np.ndarray, np.ndarray]:
    """A random (not stratified) split; both parts sorted so row order stays that of the source."""
    order = rng.permutation(n_rows)
    n_train = round(train_fraction * n_rows)
    return np.sort(order[:n_train]), np.sort(order[n_train:])


def uniform_costs(rng: np.random.Generator, n_features: int, low: float, high: float) -> np.ndarray:
    return rng.uniform(low, high, size=n_features)
