"""docs/reproduction.md against the tables committed under reproduction/tables/: its generated
tables are current, every decimal number of the document stands in one of the tables, and so
does every count it cites as "N of M"."""

import re

import pandas as pd
import pytest

from costfs.cli.reproduction import DOCUMENT, TABLE_DIR
from costfs.study.method_docs import replace_block
from costfs.study.reproduction import (
    COMMITTED,
    TABLES,
    TARGET_REPLICATES,
    blocks,
    counts,
    replicates_run,
)
from costfs.study.verdicts import verdicts


@pytest.fixture(scope="module")
def tables():
    return {name: pd.read_csv(TABLE_DIR / f"{name}.csv") for name in COMMITTED}


def test_every_findings_table_names_its_problems_and_methods(tables):
    for name in TABLES:
        columns = set(tables[name].columns)
        if name not in ("stage_costs", "ranks"):  # per rule; per problem group
            assert "problem" in columns, name
        if name != "problems":
            assert "method" in columns, name


def test_generated_blocks_are_current(tables):
    text = DOCUMENT.read_text()
    for name, block in blocks(tables).items():
        assert replace_block(text, name, block, ("<!--", "-->")) == text, (
            f"block {name} is stale: run python -m costfs.cli.reproduction update-doc"
        )


def test_counts_are_those_of_the_tables(tables):
    recounted = counts({name: tables[name] for name in TABLES})
    pd.testing.assert_frame_equal(recounted, tables["counts"], check_dtype=False)


def test_verdicts_are_those_of_the_tables(tables):
    judged = verdicts({name: tables[name] for name in TABLES})
    committed = tables["verdicts"].fillna({"note": ""})
    pd.testing.assert_frame_equal(judged, committed, check_dtype=False)


def replicates(batches: pd.DataFrame) -> set[int]:
    return {rep for row in batches.itertuples() for rep in range(row.first_rep, row.last_rep + 1)}


def test_a_sensitivity_analysis_is_judged_on_the_replicates_the_main_study_has(tables):
    batches = tables["batches"]
    main = batches[batches["sensitivity"].isna()]
    for variant, of in tables["sensitivity"].groupby("variant"):
        ran = batches[batches["sensitivity"] == variant]
        methods = set(", ".join(ran["methods"]).split(", "))
        also_main = replicates(main[main["methods"].str.split(", ").map(methods.issubset)])
        assert set(of["n_run"]) == {len(replicates(ran))}
        assert set(of["n_reps"]) == {len(replicates(ran) & also_main)}


def count_pairs(tables: dict[str, pd.DataFrame]) -> set[tuple[int, int]]:
    """Every (N, M) a sentence "N of M" may cite: two values of one comparison and problem
    group of counts.csv, two counts (setups, support, against) of one verdict, the verdicts a
    sensitivity analysis changes of those it judges, or the replicates run of those planned."""
    pairs = set()
    for _, of in tables["counts"].groupby(["comparison", "problems"]):
        values = [int(v) for v in of["value"]]
        pairs |= {(a, b) for a in values for b in values}
    for row in tables["verdicts"][["setups", "support", "against"]].itertuples(index=False):
        pairs |= {(a, b) for a in row for b in row}
    for _, of in tables["sensitivity"].groupby("variant"):
        pairs.add((int(of["changed"].sum()), len(of)))
    for name, replicates in replicates_run(tables["batches"]).items():
        pairs.add((replicates, TARGET_REPLICATES[name]))
    return pairs


def test_every_count_cited_as_n_of_m_stands_in_a_table(tables):
    text = DOCUMENT.read_text()
    cited = {
        (int(n), int(m))
        for n, m in re.findall(r"(?<![\w.−-])(\d+) of (?:the )?(\d+)(?![\w.])", text)
    }
    assert cited, "the document cites no counts"
    missing = sorted(cited - count_pairs(tables))
    assert not missing, f"counts of docs/reproduction.md in no table: {missing}"


def test_every_decimal_number_of_the_document_stands_in_a_table():
    tables = [pd.read_csv(path) for path in sorted(TABLE_DIR.glob("*.csv"))]
    text = DOCUMENT.read_text().replace("−", "-")
    numbers = set(re.findall(r"(?<![\w.])-?\d+\.\d+(?![\w.])", text))
    assert numbers, "the document cites no numbers"
    values = [
        value
        for table in tables
        for column in table.select_dtypes("number").columns
        for value in table[column].dropna()
    ]
    formatted = {
        digits: {f"{value:.{digits}f}" for value in values}
        for digits in {len(n.split(".")[1]) for n in numbers}
    }
    missing = sorted(n for n in numbers if n not in formatted[len(n.split(".")[1])])
    assert not missing, f"numbers of docs/reproduction.md in no table: {missing}"
