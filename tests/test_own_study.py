"""An own-data study as a new user runs it: `costfs init-study` writes the config into an empty
folder, `costfs run-study` runs the packaged workflow there with one command, and the answer
is in the folder: recommendations naming the features to buy, and a report a browser shows."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

COSTFS = Path(sys.executable).parent / "costfs"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.workflow


def costfs(folder: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(COSTFS), *arguments],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=1200,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )


@pytest.fixture(scope="module")
def study(tmp_path_factory, data_sets) -> Path:
    """A clinic's data (wdbc's first ten columns) with costs, two of them one blood draw, in
    `inputs/`; the study in the empty folder `study/`, kept small (3 replicates, two methods)."""
    root = tmp_path_factory.mktemp("own")
    inputs = root / "inputs"
    inputs.mkdir()
    frame = pd.read_csv(data_sets / "wdbc.csv.gz").sample(240, random_state=3)
    columns = list(frame.columns[:10])
    frame[[*columns, "target"]].to_csv(inputs / "clinic.csv", index=False)
    costs = pd.DataFrame(
        {"feature": columns, "cost": np.round(np.linspace(0.2, 2.0, 10), 2), "group": ""}
    )
    costs.loc[:1, "group"] = "blood"
    costs.to_csv(inputs / "costs.csv", index=False)
    folder = root / "study"
    folder.mkdir()
    made = costfs(
        folder,
        "init-study",
        "../inputs/clinic.csv",
        "--costs",
        "../inputs/costs.csv",
        "--group-costs",
        "blood=1.0",
        "--out",
        "study.yaml",
    )
    assert made.returncode == 0, made.stderr
    config = yaml.safe_load((folder / "study.yaml").read_text())
    assert config["real_data"]["datasets"]["clinic"]["path"] == "../inputs/clinic.csv"
    config["n_rep"] = 3
    config["methods"] = {"auc": {}, "sts": {"trees_per_depth": 100}}
    config["evaluation"]["n_trees"] = 100
    (folder / "study.yaml").write_text(yaml.safe_dump(config))
    ran = costfs(folder, "run-study", "study.yaml", "--cores", "2", "--report")
    assert ran.returncode == 0, ran.stderr[-3000:]
    return folder


def test_the_study_answers_which_features_to_buy_in_its_own_folder(study):
    assert sorted(path.name for path in study.iterdir()) == [
        ".snakemake",
        "benchmarks",
        "logs",
        "report.html",
        "results",
        "study.yaml",
    ]
    table = pd.read_csv(study / "results" / "recommendations.csv")
    budgets = yaml.safe_load((study / "study.yaml").read_text())["real_data"]["datasets"]["clinic"][
        "budgets"
    ]
    assert sorted(table["budget"].unique()) == sorted(budgets)
    assert set(table["method"]) == {"auc", "sts"}
    # wdbc's target is 0/1: the class-specific metrics are of class 1, and the table says so.
    assert set(table["positive_class"].astype(str)) == {"1"}
    columns = set(pd.read_csv(study.parent / "inputs" / "clinic.csv", nrows=0).columns)
    bought = table.dropna(subset=["features"])
    assert len(bought) > 0
    for features, frequencies, cost, budget in bought[
        ["features", "frequencies", "cost", "budget"]
    ].itertuples(index=False):
        names = features.split("; ")
        shares = [float(share) for share in frequencies.split("; ")]
        assert set(names) <= columns and len(shares) == len(names)
        assert all(0.5 <= share <= 1 for share in shares)
        assert cost <= budget + 1e-9
    assert (table["ci_low"] <= table["test_mmce"]).all()
    assert (table["test_mmce"] <= table["ci_high"]).all()
    assert table["verdict"].isin(["best", "no significant difference", "worse"]).all()
    # the config's metrics besides MMCE, each with its interval
    assert (table["test_auc_low"] <= table["test_auc"]).all()
    markdown = (study / "results" / "figures" / "results.md").read_text()
    assert "## What to buy" in markdown and "### clinic" in markdown


def test_a_second_study_in_the_same_folder_is_refused(study):
    config = yaml.safe_load((study / "study.yaml").read_text())
    (study / "other.yaml").write_text(yaml.safe_dump({**config, "seed": config["seed"] + 1}))
    refused = costfs(study, "run-study", "other.yaml")
    (study / "other.yaml").unlink()
    assert refused.returncode == 2
    assert "holds the results of" in refused.stderr and "own folder" in refused.stderr


def test_a_study_folder_moved_whole_resumes_there_without_rerunning(study):
    moved = study.parent / "moved"
    shutil.copytree(study, moved, symlinks=True)
    try:
        ran = costfs(moved, "run-study", "study.yaml", "--", "--quiet", "rules")
        assert ran.returncode == 0, ran.stderr[-3000:]
        assert "holds the results of" not in ran.stderr
        runs = "results/runs.parquet"
        assert (moved / runs).read_bytes() == (study / runs).read_bytes()
        assert (moved / runs).stat().st_mtime == (study / runs).stat().st_mtime
    finally:
        shutil.rmtree(moved)


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (apt-get install chromium)")
def test_the_report_shows_its_landing_text_results_table_and_figure_in_a_browser(study):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto((study / "report.html").as_uri())
        # The landing text is the study's: its data set, budgets and methods.
        landing = page.locator("body").inner_text()
        assert "clinic" in landing and "auc, sts" in landing
        assert "simulated settings" not in landing.lower()
        # It opens on the answer: its heading in the window (not centred out of reach above
        # it), the best method's row per budget, and the cost-error figure drawn.
        answer = page.locator("h2", has_text="The answer: what to buy")
        assert 0 <= answer.bounding_box()["y"] < 300
        assert page.locator("td", has_text="of 3").first.is_visible()
        landing_figure = page.locator("img[alt^='cost against error']")
        assert landing_figure.evaluate("image => image.naturalWidth") > 500
        page.get_by_role("link", name="Results").click()
        page.locator("tr", has_text="results.html").locator("[iconname=eye]").click()
        results = page.frame_locator("iframe")
        assert results.locator("h2", has_text="What to buy").is_visible()
        assert results.locator("table").first.is_visible()
        assert results.locator("td", has_text="(100%)").first.is_visible()
        page.goto((study / "report.html").as_uri())
        page.get_by_role("link", name="Figures").click()
        page.get_by_role("link", name="What to buy: cost against error").click()
        page.locator("tr", has_text="clinic").locator("[iconname=eye]").first.click()
        # The figure, not the logo: drawn at full size, its pixels loaded.
        figure = page.locator("img").last
        assert figure.is_visible()
        assert figure.evaluate("image => image.naturalWidth") > 500
        browser.close()


def test_a_shipped_profile_is_found_by_name_and_an_unknown_one_is_named(tmp_path):
    from costfs.cli.run_study import profile_folder
    from costfs.core.errors import DataError

    assert Path(profile_folder("slurm"), "config.yaml").is_file()
    with pytest.raises(DataError, match=r"--profile nowhere: .*\['slurm'\]"):
        profile_folder("nowhere")
