"""A researcher's own data sets through the workflow: a messy CSV under every method and a
three-class one. A module of its own, so that its study runs on another pytest worker than
test_workflow.py's."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine

from costfs.methods import load_method
from tests.conftest import true_cost, write_messy_clinic
from tests.test_workflow import TINY, run_study, write_study

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def own_data_study(tmp_path_factory) -> dict:
    """A researcher's problems, run as one study: `clinic` as it comes
    (`tests.conftest.write_messy_clinic`: missing values marked `?` or empty, a text column, a
    free feature, the `blood` group's shared cost only in the costs file) under every method,
    and `wine` (scikit-learn's, three classes, no positive_class) with a costs file, under
    every method that handles K > 2 classes."""
    tmp_path = tmp_path_factory.mktemp("own_data")
    clinic = write_messy_clinic(tmp_path)
    wine = load_wine(as_frame=True).frame
    wine.to_csv(tmp_path / "wine.csv", index=False)
    wine_names = list(wine.columns[:-1])
    pd.DataFrame({"feature": wine_names, "cost": np.linspace(0.5, 1.5, len(wine_names))}).to_csv(
        tmp_path / "wine_costs.csv", index=False
    )
    methods = {
        name: {
            **{key: value for key, value in settings.items() if key != "problems"},
            "problems": ["clinic", "wine"] if load_method(name).multi_class else ["clinic"],
        }
        for name, settings in TINY["methods"].items()
    }
    directory = write_study(
        tmp_path / "study",
        n_rep=1,
        simulation={**TINY["simulation"], "settings": []},
        real_data={
            "datasets": {
                "clinic": {
                    "path": str(clinic["data"]),
                    "costs": str(clinic["costs"]),
                    "missing_values": ["?"],
                    "budgets": [0.5, 1.5, 3.0],
                },
                "wine": {
                    "path": str(tmp_path / "wine.csv"),
                    "costs": str(tmp_path / "wine_costs.csv"),
                    "budgets": [1.5, 4.0],
                },
            }
        },
        methods=methods,
    )
    results = run_study(directory, cores=2)
    return {
        "runs": pd.read_parquet(results / "runs.parquet"),
        "results": results,
        "methods": methods,
        "clinic": clinic,
        "wine": wine,
    }


def test_own_data_as_it_comes_runs_under_every_method(own_data_study):
    """Every method runs on the clinic with its missing values, text column, free feature and
    file-only group cost; every selection is recorded by name at its true cost (own costs plus
    the blood draw once) within its budget, and the forests refit on it beat the majority."""
    runs = own_data_study["runs"].query("problem == 'clinic'")
    clinic = own_data_study["clinic"]
    own, blood = clinic["own"], clinic["blood"]
    assert set(runs["method"]) == set(own_data_study["methods"])
    for row in runs.itertuples():
        assert list(row.feature_names) == [own.index[j] for j in row.features]
        assert row.cost == pytest.approx(true_cost(own, blood, row.feature_names))
        assert row.cost <= row.budget + 1e-9
    assert runs["n_selected"].max() > 1
    # some selection uses two or more features of the draw, paying it once
    assert any(len(blood & set(selected)) >= 2 for selected in runs["feature_names"])
    assert any("grade" in selected for selected in runs["feature_names"])
    assert runs["test_mmce"].notna().all() and runs["test_mmce"].min() < 0.2
    # The refits ran on the numba trees, which take missing values (scikit-learn's rule).
    assert (runs["engine"] == "numba").all()
    assert "sklearnex" not in set(runs["selection_engine"])


def test_a_multi_class_data_set_runs_end_to_end(own_data_study):
    """wine's three classes are kept; each method keeps the budget and, given enough of it,
    beats guessing the majority class."""
    runs = own_data_study["runs"].query("problem == 'wine'")
    methods = {
        name
        for name, settings in own_data_study["methods"].items()
        if "wine" in settings["problems"]
    }
    assert set(runs["method"]) == methods
    assert {"auc", "pfi", "sts", "fs", "budget_rf", "featboost", "msb"} <= methods
    assert (runs["cost"] <= runs["budget"] + 1e-9).all()
    (train_file,) = (own_data_study["results"] / "data/real/wine").glob("rep~*/train.npz")
    assert set(np.load(train_file)["y"]) == {0, 1, 2}
    rich = runs[runs["budget"] == 4.0]
    wine = own_data_study["wine"]
    majority_error = 1 - np.bincount(wine["target"]).max() / len(wine)
    assert (rich["n_selected"] > 0).all()
    assert rich.groupby("method")["test_mmce"].min().max() < majority_error
