"""A model to take away: `costfs select --save-model FILE` writes it, `costfs predict FILE
new.csv` applies it.

The file is skops' format (`skops.io`), not a pickle: loading a pickle or joblib file runs
whatever code the file names, so a model file from a colleague or a download could run
anything; skops loads only the types it is told to trust, and `load_model` trusts
scikit-learn's, NumPy's and SciPy's types and refuses a file that names any other.
"""

import logging
from pathlib import Path

import pandas as pd

from costfs.cli import storage
from costfs.cli.arguments import add_command
from costfs.cli.stages.realdata import read_table_file
from costfs.core.errors import DataError
from costfs.core.names import name_list
from costfs.study.deployment import check_model_columns, fit_model

log = logging.getLogger("costfs.cli")

MODEL_FORMAT = "costfs-model"
MODEL_VERSION = 1
TRUSTED_MODULES = ("sklearn.", "numpy.", "scipy.")
"""The modules whose types a model file may name: those of the pipeline and its arrays."""


def save_model(path: str, frame: pd.DataFrame, features: list[str], description: dict, **fit):
    """Refits the model on `features` of `frame` and writes it with its `description` (the
    classes, the categorical columns, the budget, ...) to `path`."""
    import skops.io

    pipeline = fit_model(frame, features, description["categorical"], description["labels"], **fit)
    document = {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "pipeline": pipeline,
        "features": list(features),
        **{key: value for key, value in description.items() if key != "labels"},
    }
    try:
        storage.write_bytes(Path(path), skops.io.dumps(document))
    except OSError as error:
        raise DataError(f"--save-model {path}: cannot be written ({error})") from None


def load_model(path: str) -> dict:
    """The model file's document; raises `DataError` for a file that is not one, or that names
    types outside `TRUSTED_MODULES`."""
    import skops.io

    try:
        content = Path(path).read_bytes()
    except OSError as error:
        raise DataError(f"{path}: cannot be read ({error})") from None
    try:
        named = skops.io.get_untrusted_types(data=content)
    except Exception as error:  # skops raises what its zip and JSON readers raise
        raise DataError(
            f"{path}: not a model file of costfs select --save-model ({error})"
        ) from None
    foreign = [name for name in named if not name.startswith(TRUSTED_MODULES)]
    if foreign:
        raise DataError(
            f"{path}: names type(s) {foreign} beyond scikit-learn's, NumPy's and SciPy's; not "
            "loaded, since loading them could run code"
        )
    document = skops.io.loads(content, trusted=named)
    if not isinstance(document, dict) or document.get("format") != MODEL_FORMAT:
        raise DataError(f"{path}: not a model file of costfs select --save-model")
    if document["version"] > MODEL_VERSION:
        raise DataError(
            f"{path}: written by a newer costfs (model format {document['version']}); update "
            "costfs to read it"
        )
    return document


def predict(args) -> None:
    document = load_model(args.model)
    features, categorical = document["features"], document["categorical"]
    missing_values = [*document["missing_values"], *args.missing_values]
    frame = read_table_file(args.data, missing_values, args.sep, args.decimal)
    kept = [column for column in args.keep if column not in frame.columns]
    if kept:
        raise DataError(f"{args.data}: no column(s) {kept} to keep")
    X = check_model_columns(frame, features, categorical, args.data)
    log.info(
        "%s: %d rows; model of %s at budget %g (cost %g) on %d feature(s): %s",
        args.data,
        len(frame),
        document["method"],
        document["budget"],
        document["cost"],
        len(features),
        name_list(features) or "none (every row gets the training class shares)",
    )
    pipeline = document["pipeline"]
    # The levels each text column was fit on are the encoder's own.
    encoder = pipeline["columns"].named_transformers_["levels"] if categorical else None
    known = (
        dict(zip(encoder.feature_names_in_, encoder.categories_, strict=True)) if encoder else {}
    )
    unseen = {name: sorted(set(X[name].dropna()) - set(known[name])) for name in categorical}
    for name, levels in unseen.items():
        if levels:
            log.warning(
                "%s: column %r has level(s) %s the model never saw; they get the overall class "
                "shares",
                args.data,
                name,
                levels[:5],
            )
    shares = pipeline.predict_proba(X)
    labels = [str(label) for label in pipeline.classes_]
    table = pd.DataFrame({column: frame[column] for column in args.keep})
    table[f"predicted_{document['target']}"] = pipeline.predict(X)
    for position, label in enumerate(labels):
        table[f"probability_{label}"] = shares[:, position]
    if args.out:
        storage.write_csv(Path(args.out), table, float_format="%.4f")
        log.info("%d predictions written to %s", len(table), args.out)
    else:
        print(table.to_csv(index=False, float_format="%.4f"), end="")


def register(commands) -> None:
    add_command(
        commands,
        "predict",
        predict,
        (["model"], {"help": "a model file of costfs select --save-model"}),
        (
            ["data"],
            {"help": "the rows to predict: CSV, .csv.gz or Parquet with the model's columns"},
        ),
        (["--out"], {"help": "write the predictions as CSV to this file (default: print them)"}),
        (
            ["--keep"],
            {
                "nargs": "+",
                "default": [],
                "metavar": "COLUMN",
                "help": "columns of the data to copy beside the predictions (an Id)",
            },
        ),
        (
            ["--missing-values"],
            {
                "nargs": "*",
                "default": [],
                "metavar": "MARK",
                "help": "marks of a missing value besides those the model's data had",
            },
        ),
        (["--sep"], {"help": "the CSV's column separator (default: found from the header)"}),
        (["--decimal"], {"choices": [".", ","], "help": "the CSV's decimal mark"}),
        help="apply a model of costfs select --save-model to new rows",
    )
