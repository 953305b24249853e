"""Real data sets: reading one from its source, and its replicates' train/test splits."""

import csv
import gzip
import logging
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from costfs.cli import storage
from costfs.cli.arguments import OUT, STUDY_SEED, add_command, json_value
from costfs.core.seeds import derive_rng, derive_seed
from costfs.core.tabular import encode_levels
from costfs.core.validation import DataError, check_unique_names
from costfs.engine.forest import class_count
from costfs.study import realdata
from costfs.study.realdata import DataSource

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("costfs.cli")


SEPARATORS = ";\t|"
"""Column separators detected where a CSV's header has no comma."""
DECIMAL_COMMA = re.compile(r"[+-]?\d+,\d+")
DECIMAL_POINT = re.compile(r"[+-]?\d*\.\d+")


def csv_dialect(path: str, sep: str | None = None) -> tuple[str, str]:
    """The column separator and decimal mark of a CSV (plain or gzipped; other compressions
    read as commas and points): `sep` where given, else a comma unless the header has none
    outside quotes, then the separator `csv.Sniffer` finds among `SEPARATORS`; a decimal comma
    where the separator is not a comma and the first rows' numbers have one and none a point,
    as in `1,5;2,25`."""
    if path.endswith((".bz2", ".xz", ".zip", ".zst", ".tar")):
        return sep or ",", "."
    opened = gzip.open if path.endswith(".gz") else open
    try:
        with opened(path, "rt", newline="", errors="replace") as file:
            sample = file.read(1 << 16)
    except (OSError, EOFError) as error:
        raise DataError(f"{path}: cannot be read as a table ({error})") from None
    lines = sample.splitlines()
    if sep is None:
        header = re.sub(r'"[^"]*"', "", lines[0] if lines else "")
        if "," in header or not any(separator in header for separator in SEPARATORS):
            return ",", "."
        try:
            sep = csv.Sniffer().sniff("\n".join(lines[:50]), SEPARATORS).delimiter
        except csv.Error:
            return ",", "."
    if sep == ",":
        return sep, "."
    cells = [cell.strip() for row in csv.reader(lines[1:200], delimiter=sep) for cell in row]
    comma = any(DECIMAL_COMMA.fullmatch(cell) for cell in cells)
    point = any(DECIMAL_POINT.fullmatch(cell) for cell in cells)
    return sep, "," if comma and not point else "."


def check_decimal_commas(frame: "pd.DataFrame", path: str) -> None:
    """Raises `DataError` naming a text column whose every value is a number with a decimal
    comma (`1,5`), which a decimal point reading took for levels of a category."""
    from pandas.api.types import is_object_dtype, is_string_dtype

    for column in frame.columns:
        if not (is_object_dtype(frame[column]) or is_string_dtype(frame[column])):
            continue
        values = frame[column].dropna().astype(str).str.strip()
        if (
            len(values)
            and values.str.fullmatch(r"[+-]?\d+(,\d+)?").all()
            and values.str.contains(",").any()
        ):
            example = values[values.str.contains(",")].iloc[0]
            raise DataError(
                f"{path}: column {column!r} holds numbers with decimal commas (e.g. "
                f"{example!r}), read as text; give --decimal , (a study: decimal: ',')"
            )


def read_table_file(
    path: str,
    missing_values: Sequence[str] = (),
    sep: str | None = None,
    decimal: str | None = None,
    *,
    data: bool = True,
) -> "pd.DataFrame":
    """A CSV (also gzipped) or Parquet file as a table; in a CSV, empty cells, pandas' usual
    marks (`NA`, `NaN`, `NULL`, `n/a`, ...) and the `missing_values` are missing values. A
    CSV's `sep` and `decimal` mark are `csv_dialect`'s where not given. `data=False` (a costs
    file): errors do not point to the data's --sep and --decimal."""
    # Imported here: a split or a cost draw of its own needs no pandas, whose import takes
    # most of a job's start.
    import pandas as pd

    if Path(path).is_dir():
        raise DataError(f"{path}: is a folder; give the data file in it (CSV, .csv.gz, Parquet)")
    if not Path(path).is_file():
        raise DataError(f"{path}: no such file (relative to {Path.cwd()})")
    try:
        if path.endswith((".parquet", ".pq")):
            frame = pd.read_parquet(path)
            header = frame.columns
        else:
            detected = csv_dialect(path, sep) if sep is None or decimal is None else (sep, decimal)
            sep, decimal = sep or detected[0], decimal or detected[1]
            if (sep, decimal) != (",", "."):
                log.info("%s: columns separated by %r, decimal mark %r", path, sep, decimal)
            frame = pd.read_csv(path, na_values=list(missing_values), sep=sep, decimal=decimal)
            # pandas renames a repeated name (`target` -> `target.1`): compare the raw header.
            header = pd.read_csv(path, header=None, nrows=1, dtype=str, sep=sep).iloc[0].tolist()
    except (ValueError, OSError, EOFError, pd.errors.ParserError) as error:
        hint = (
            "; if its columns are not separated by commas, give the separator with --sep (a "
            "study: sep) and a decimal comma with --decimal , (decimal)"
            if data
            else ""
        )
        raise DataError(f"{path}: cannot be read as a table ({error}){hint}") from None
    if data and frame.shape[1] == 1 and not path.endswith((".parquet", ".pq")):
        raise DataError(
            f"{path}: reads as one column ({str(frame.columns[0])[:60]!r}) with the separator "
            f"{sep!r}; give the file's separator with --sep (a study: sep), e.g. --sep ';'"
        )
    check_unique_names(header, path)
    if data and decimal == "." and not path.endswith((".parquet", ".pq")):
        check_decimal_commas(frame, path)
    unnamed = [k + 1 for k, name in enumerate(header) if not isinstance(name, str) or not name]
    if unnamed:
        raise DataError(
            f"{path}: the header has no name for column(s) {unnamed} (counting from 1); name "
            "every column"
        )
    return frame


def read_source(name: str, source: DataSource) -> tuple["pd.DataFrame", str]:
    """The data set's table and a description of where it came from."""
    if source.kind == "file":
        frame = read_table_file(source.location, source.missing_values, source.sep, source.decimal)
        return frame, source.location
    if source.kind == "sklearn":
        import sklearn.datasets

        bunch = getattr(sklearn.datasets, source.location)(as_frame=True)
        return bunch.frame, f"sklearn.datasets.{source.location}"
    from sklearn.datasets import fetch_openml

    try:
        bunch = fetch_openml(data_id=int(source.location), as_frame=True, data_home=source.cache)
    except Exception as error:
        raise DataError(
            f"data set {name!r}: not found in data_dir and OpenML id {source.location} could "
            f"not be fetched ({error})"
        ) from error
    return bunch.frame, f"OpenML {source.location}"


def load_dataset(args) -> None:
    source = realdata.choose_source(args.name, args.source, args.data_dir)
    frame, origin = read_source(args.name, source)
    X, y, names, categorical = realdata.table_to_arrays(
        frame, source.target, source.positive_class, origin, source.drop
    )
    for note in realdata.degenerate_columns(X, names):
        log.warning("%s: %s (kept as a feature)", origin, note)
    classes = realdata.class_labels(frame[source.target], source.positive_class)
    arrays = {"X": X, "y": y, "feature_names": np.array(names), "class_labels": np.array(classes)}
    # Only a data set with categorical columns stores their positions: the others' files
    # stay as they were.
    storage.write_arrays(
        args.out, arrays | ({"categorical": categorical} if categorical.size else {})
    )
    shares = ", ".join(f"{share:.4f}" for share in np.bincount(y) / y.size)
    log.info(
        "%s from %s: %d rows x %d features (%d categorical), %.2f%% of values missing, class "
        "shares %s",
        args.name,
        origin,
        *X.shape,
        categorical.size,
        100 * np.isnan(X).mean(),
        shares,
    )


def split_data(args) -> None:
    data = storage.read_arrays(args.dataset)
    rng = derive_rng(args.study_seed, "split", args.name, args.rep)
    train, test = realdata.split_indices(rng, data["y"].size, args.train_fraction)
    realdata.check_training_classes(
        data["y"][train], class_count(data["y"]), f"split {args.name} rep {args.rep}"
    )
    # Categorical columns: their levels' class shares, from the training rows only.
    parts = encode_levels(
        data["X"][train],
        data["y"][train],
        data.get("categorical", np.array([], dtype=int)),
        seed=derive_seed(args.study_seed, "levels", args.name, args.rep),
        X_other=data["X"][test],
    )
    for X, rows, out in zip(parts, (train, test), (args.out_train, args.out_test), strict=True):
        storage.write_arrays(
            out, {"X": X, "y": data["y"][rows], "feature_names": data["feature_names"]}
        )
    log.info("split %s rep %s: %d train / %d test rows", args.name, args.rep, train.size, test.size)


def register(commands) -> None:
    add_command(
        commands,
        "load-dataset",
        load_dataset,
        OUT,
        (["--name"], {"required": True}),
        (["--source"], {"type": json_value, "required": True}),
        (["--data-dir"], {}),
    )
    add_command(
        commands,
        "split-data",
        split_data,
        STUDY_SEED,
        (["--dataset"], {"required": True}),
        (["--name"], {"required": True}),
        (["--rep"], {"type": int, "required": True}),
        (["--train-fraction"], {"type": float, "required": True}),
        (["--out-train"], {"required": True}),
        (["--out-test"], {"required": True}),
    )
