"""File I/O of the command-line layer: atomic writes, so a killed job never leaves a file that
a later job could read as complete."""

import io
import os
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from costfs.core.errors import DataError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


def _write_atomically(path: str | Path, write: Callable[[io.BytesIO], None]) -> None:
    # The content is made in memory first: the temporary file beside the output lives only
    # for one write and a rename, so a job killed (kill -9) while it serialises leaves nothing.
    content = io.BytesIO()
    write(content)
    # Beside the file a link points to: renaming onto the link would replace the link itself.
    path = Path(os.path.realpath(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(content.getbuffer())
        # mkstemp's file is private (0600); the output gets the mode of any new file.
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_arrays(path: str | Path, arrays: dict[str, np.ndarray]) -> None:
    _write_atomically(path, lambda stream: np.savez(stream, **arrays))


def _unreadable(path: str | Path, error: Exception) -> DataError:
    return DataError(
        f"{path}: cannot be read ({type(error).__name__}: {error}); if it is a file the workflow "
        "wrote, rebuild it with `snakemake --forcerun <rule>` or delete it and rerun"
    )


def read_arrays(path: str | Path) -> dict[str, np.ndarray]:
    try:
        with np.load(path, allow_pickle=False) as stored:
            return {name: stored[name] for name in stored.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise _unreadable(path, error) from None


def write_table(path: str | Path, table: "pd.DataFrame | pa.Table") -> None:
    """A pandas DataFrame or a pyarrow Table as Parquet: the stage jobs that only pass tables
    on (selection, evaluation) build pyarrow Tables, so they never import pandas."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    # No pandas index and a fixed writer: the same table gives the same bytes on every run.
    if isinstance(table, pa.Table):
        _write_atomically(path, lambda stream: pq.write_table(table, stream, compression="zstd"))
    else:
        _write_atomically(
            path, lambda stream: table.to_parquet(stream, index=False, compression="zstd")
        )


def write_bytes(path: str | Path, content: bytes) -> None:
    _write_atomically(path, lambda stream: stream.write(content))


def write_text(path: str | Path, text: str) -> None:
    write_bytes(path, text.encode())


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""The first characters with which a spreadsheet reads a cell as a formula (OWASP, "CSV
Injection")."""


def _inert(value):
    # OWASP's advice: a leading apostrophe makes the spreadsheet show the cell as text.
    return f"'{value}" if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def _restored(value):
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(FORMULA_STARTS):
        return value[1:]
    return value


def _text_columns(table: "pd.DataFrame") -> list:
    return list(table.select_dtypes(include=["object", "string"]).columns)


def write_csv(path: str | Path, table: "pd.DataFrame", float_format: str = "%.5g") -> None:
    """A table as CSV whose text cells (feature names, labels: a user's data) a spreadsheet
    shows as text: a cell that would start a formula gets a leading apostrophe, which
    `read_csv` takes off again."""
    inert = table.assign(**{column: table[column].map(_inert) for column in _text_columns(table)})
    write_text(path, inert.to_csv(index=False, float_format=float_format))


def read_csv(path: str | Path, **options) -> "pd.DataFrame":
    """A CSV that `write_csv` wrote, its text cells as they were."""
    import pandas as pd

    table = pd.read_csv(path, **options)
    return table.assign(**{column: table[column].map(_restored) for column in _text_columns(table)})


def write_figure(path: str | Path, figure, dpi: int = 150) -> None:
    _write_atomically(path, lambda stream: figure.savefig(stream, format="png", dpi=dpi))


def read_table(path: str | Path) -> "pd.DataFrame":
    import pandas as pd  # here: a job that reads arrays only needs no pandas

    try:
        return pd.read_parquet(path)
    except (OSError, ValueError) as error:
        raise _unreadable(path, error) from None


def read_arrow_table(path: str | Path) -> "pa.Table":
    """A Parquet file as a pyarrow Table (`pq.read_table` would import pandas)."""
    import pyarrow.parquet as pq

    try:
        with pq.ParquetFile(path) as parquet:
            return parquet.read()
    except (OSError, ValueError) as error:
        raise _unreadable(path, error) from None
