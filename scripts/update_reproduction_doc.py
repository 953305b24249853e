"""Rewrites the generated tables of docs/reproduction.md (`reproduction_doc`) from the
tables committed under docs/reproduction/; with --results, first copies those tables from a
finished study's results/findings (the run of config/reproduction.yaml) and recounts
counts.csv.

    .venv/bin/python scripts/update_reproduction_doc.py --results ../run/results
"""

import argparse
import shutil
from pathlib import Path

import pandas as pd
from method_docs import replace_block
from reproduction_doc import COMMITTED, TABLES, XI_METHODS, blocks, counts
from reproduction_verdicts import verdicts

REPO = Path(__file__).resolve().parents[1]
TABLE_DIR = REPO / "docs" / "reproduction"
DOCUMENT = REPO / "docs" / "reproduction.md"


def read_tables(names=COMMITTED) -> dict[str, pd.DataFrame]:
    return {name: pd.read_csv(TABLE_DIR / f"{name}.csv") for name in names}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", type=Path, help="a finished study's results directory")
    args = parser.parse_args()
    if args.results:
        TABLE_DIR.mkdir(exist_ok=True)
        for name in TABLES:
            shutil.copyfile(args.results / "findings" / f"{name}.csv", TABLE_DIR / f"{name}.csv")
        # The paper's xi curves only: the other methods' would double the committed size.
        curves = pd.read_csv(TABLE_DIR / "xi_curves.csv")
        curves = curves[curves["method"].isin(XI_METHODS)]
        curves.to_csv(TABLE_DIR / "xi_curves.csv", index=False, float_format="%.5g")
        counts(read_tables(TABLES)).to_csv(TABLE_DIR / "counts.csv", index=False)
        verdicts(read_tables(TABLES)).to_csv(TABLE_DIR / "verdicts.csv", index=False)
    text = DOCUMENT.read_text()
    for name, block in blocks(read_tables()).items():
        text = replace_block(text, name, block, ("<!--", "-->"))
    DOCUMENT.write_text(text)
    print(f"updated {DOCUMENT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
