"""The study's figures and results table, from the runs and summary tables only."""

import logging
from pathlib import Path

import pandas as pd

from costfs.cli import storage
from costfs.cli.arguments import add_command, named_path, named_value
from costfs.core.errors import DataError

log = logging.getLogger("costfs")


def read_inputs(args) -> dict:
    """The study tables given, read; those not given are None (a figure that reads one fails
    naming its option)."""
    return {
        "runs": storage.read_table(args.runs) if args.runs else None,
        "summary": storage.read_table(args.summary) if args.summary else None,
        "recommendations": (
            storage.read_csv(
                args.recommendations,
                keep_default_na=False,
                na_values=[""],
                # A set of one feature named "3" is a name, not a number.
                dtype={"features": str, "frequencies": str},
            )
            if args.recommendations
            else None
        ),
        "real_data": {
            Path(path).parent.name: storage.read_arrays(path)["X"] for path in args.real_data
        },
        "sigma": storage.read_arrays(args.design)["sigma_correlated"] if args.design else None,
        "schedules": (
            pd.concat([storage.read_table(path) for path in args.schedules], ignore_index=True)
            if args.schedules
            else None
        ),
    }


CELL_TABLES = ("runs", "summary", "recommendations", "schedules")
"""The tables a figure split into cells reads its cell's rows of."""


def plot_figures(args) -> None:
    # matplotlib and seaborn take a second to import: only this subcommand loads them.
    from costfs.study import figures
    from costfs.study.figure_outputs import FIGURE_OUTPUTS

    outputs = {output.name: output for output in FIGURE_OUTPUTS}
    unknown = sorted({name for name, _ in args.out} - outputs.keys())
    if unknown:
        raise DataError(f"--out: no figure output {unknown}; there are {sorted(outputs)}")
    for name, _ in args.out:
        absent = [
            key
            for key in outputs[name].reads
            if key in ("runs", "summary", "recommendations") and not getattr(args, key)
        ]
        if absent:
            raise DataError(
                f"figure output {name!r} is drawn from {', '.join(absent)}: give "
                + " ".join(f"--{key} FILE" for key in absent)
            )
    cell = dict(args.cell)
    for name, _ in args.out:
        cells = outputs[name].cells
        if set(cell) != set(cells):
            raise DataError(
                f"figure output {name!r} is "
                + (
                    "one file per "
                    + " and ".join(cells)
                    + ": give "
                    + " ".join(f"--cell {key}=VALUE" for key in cells)
                    if cells
                    else "drawn from the whole study: give no --cell"
                )
            )
    inputs = read_inputs(args)
    if cell:
        tables = [name for name in CELL_TABLES if inputs[name] is not None]
        for name in tables:
            inputs[name] = figures.cell_rows(inputs[name], cell)
        if not any(len(inputs[name]) for name in tables):
            given = " or ".join(f"--{name}" for name in tables) or "the tables given (none)"
            raise DataError(f"no rows of the cell {cell} in {given}")
    runs, summary = inputs.pop("runs"), inputs.pop("summary")
    draws = {name: getattr(figures, output.draw) for name, output in outputs.items()}
    written = 0
    for name, path in args.out:
        files = draws[name](runs, summary, inputs)
        if "" not in files:
            # A directory output exists even when it has no files (e.g. no xi methods).
            Path(path).mkdir(parents=True, exist_ok=True)
        for file_name, content in files.items():
            target = Path(path) / file_name if file_name else Path(path)
            if isinstance(content, str):
                storage.write_text(target, content)
            else:
                storage.write_figure(target, content, dpi=args.dpi)
            written += 1
    log.info("wrote %d files", written)


def register(commands) -> None:
    add_command(
        commands,
        "figures",
        plot_figures,
        (["--runs"], {"help": "runs.parquet, for the figures drawn from it"}),
        (["--summary"], {"help": "summary.parquet, for the figures drawn from it"}),
        (["--recommendations"], {"help": "recommendations.csv, for the figures drawn from it"}),
        (["--real-data"], {"nargs": "*", "default": [], "help": "full.npz of each real data set"}),
        (["--design"], {"help": "simulation.npz with the simulated correlation matrix"}),
        (
            ["--schedules"],
            {"nargs": "*", "default": [], "help": "model schedules (schedules/<method>.parquet)"},
        ),
        (["--dpi"], {"type": int, "default": 150}),
        (
            ["--cell"],
            {
                "type": named_value,
                "action": "append",
                "default": [],
                "metavar": "NAME=VALUE",
                "help": "the cell of a figure split into cells to draw (setting=A, problem=wdbc)",
            },
        ),
        (
            ["--out"],
            {
                "type": named_path,
                "action": "append",
                "required": True,
                "metavar": "NAME=PATH",
                "help": "a figure output (file or directory) of costfs.study.figure_outputs",
            },
        ),
    )
