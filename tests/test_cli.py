import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import sklearn.datasets

from costfs import cli
from costfs.cli import storage


def load(tmp_path, name, source, data_dir=None):
    out = tmp_path / f"{name}.npz"
    arguments = ["load-dataset", "--name", name, "--source", json.dumps(source), "--out", str(out)]
    if data_dir:
        arguments += ["--data-dir", str(data_dir)]
    return cli.main(arguments), out


def test_csv_from_data_dir_is_preferred(tmp_path, data_sets):
    code, out = load(tmp_path, "wdbc", {"openml_id": 1510}, data_sets)
    assert code == 0
    data = storage.read_arrays(out)
    assert data["X"].shape == (569, 30) and int(data["y"].sum()) == 212
    assert data["feature_names"][0] == "mean radius"


def test_openml_source_maps_its_own_labels(tmp_path, monkeypatch):
    frame = pd.DataFrame({"a": [0.1, 0.2, 0.3, 0.4], "Class": ["1", "2", "2", "1"]})
    calls = []

    def fake_fetch_openml(data_id, as_frame, data_home):
        calls.append((data_id, data_home))
        return sklearn.datasets._base.Bunch(frame=frame)

    monkeypatch.setattr(sklearn.datasets, "fetch_openml", fake_fetch_openml)
    source = {
        "openml_id": 99,
        "source_target": "Class",
        "source_positive_class": "2",
        "openml_cache": str(tmp_path / "cache"),
    }
    code, out = load(tmp_path, "toy", source, tmp_path)  # no toy.csv there
    assert code == 0 and calls == [(99, str(tmp_path / "cache"))]
    assert storage.read_arrays(out)["y"].tolist() == [0, 1, 1, 0]


def test_unreachable_openml_is_a_clear_error(tmp_path, monkeypatch, caplog):
    def offline(**_):
        raise OSError("network is unreachable")

    monkeypatch.setattr(sklearn.datasets, "fetch_openml", offline)
    code, out = load(
        tmp_path,
        "toy",
        {"openml_id": 99, "source_target": "c", "source_positive_class": 1},
        tmp_path,
    )
    assert code == 2 and not out.exists()
    assert "OpenML id 99 could not be fetched (network is unreachable)" in caplog.text


def test_bad_csv_names_the_file_and_column_and_writes_nothing(tmp_path, caplog):
    pd.DataFrame({"a": [1.0, np.inf], "target": [0, 1]}).to_csv(tmp_path / "bad.csv", index=False)
    code, out = load(tmp_path, "bad", {}, tmp_path)
    assert code == 2 and not out.exists()
    assert "bad.csv: column 'a' has an infinite value" in caplog.text
    assert not list(tmp_path.glob(".*.tmp"))


def test_atomic_write_leaves_no_file_when_writing_fails(tmp_path):
    with pytest.raises(pa.ArrowInvalid):
        storage.write_table(tmp_path / "t.parquet", pd.DataFrame({"x": [object()]}))
    assert list(tmp_path.iterdir()) == []


def frame_with(**columns) -> pd.DataFrame:
    """Six rows of two good columns and a 0/1 target, with `columns` added or replaced."""
    frame = pd.DataFrame(
        {"a": [0.1, 0.5, 0.2, 0.9, 0.4, 0.7], "b": [1.0, 2, 3, 4, 5, 6], "target": [0, 1] * 3}
    )
    return frame.assign(**columns)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (frame_with(b=[np.nan] * 6), r"column 'b' has no values \(all missing\)"),
        (frame_with(b=[1.0, 2, np.inf, 4, 5, 6]), r"column 'b' has .* \(inf in row 2\)"),
        (frame_with(b=[1.0, 2, "x", 4, 5, 6]), r"column 'b' mixes numbers and text \(e.g. 'x'"),
        (frame_with(target=[1] * 6), r"target has 1 class \(1\); at least two are needed"),
        (
            frame_with(target=[0, 1, np.nan, 0, 1, 0]),
            r"target column 'target' has no value in 1 row\(s\), e.g. row\(s\) \[3\]",
        ),
        (frame_with().drop(columns="target"), "no target column 'target'"),
    ],
)
def test_loader_corpus_names_the_problem_and_writes_nothing(tmp_path, caplog, frame, message):
    frame.to_csv(tmp_path / "bad.csv", index=False)
    code, out = load(tmp_path, "bad", {}, tmp_path)
    assert code == 2 and not out.exists()
    assert re.search(f"bad.csv.*{message}", caplog.text), caplog.text


def test_loader_maps_multi_class_targets_one_against_the_rest(tmp_path):
    frame_with(target=[0, 1, 2, 2, 1, 0]).to_csv(tmp_path / "three.csv", index=False)
    code, out = load(tmp_path, "three", {"positive_class": 2}, tmp_path)
    assert code == 0 and storage.read_arrays(out)["y"].tolist() == [0, 0, 1, 1, 0, 0]


def test_loader_keeps_constant_and_duplicated_columns_and_says_so(tmp_path, caplog):
    frame_with(c=[3.0] * 6, d=[1.0, 2, 3, 4, 5, 6]).to_csv(tmp_path / "odd.csv", index=False)
    code, out = load(tmp_path, "odd", {}, tmp_path)
    assert code == 0 and storage.read_arrays(out)["X"].shape == (6, 4)
    assert "column 'c' is constant (kept as a feature)" in caplog.text
    assert "column 'd' duplicates column 'b' (kept as a feature)" in caplog.text


def test_a_split_without_both_classes_in_training_is_an_error(tmp_path, caplog):
    frame_with(target=[0, 0, 0, 0, 0, 1]).to_csv(tmp_path / "rare.csv", index=False)
    _, dataset = load(tmp_path, "rare", {}, tmp_path)
    outcomes = []
    for rep in range(1, 6):
        train, test = tmp_path / f"train{rep}.npz", tmp_path / f"test{rep}.npz"
        arguments = ["split-data", "--study-seed", "1", "--dataset", str(dataset), "--name"]
        arguments += ["rare", "--rep", str(rep), "--train-fraction", "0.5"]
        arguments += ["--out-train", str(train), "--out-test", str(test)]
        code = cli.main(arguments)
        outcomes.append(code)
        assert (code == 0) == train.exists() == test.exists()
    assert 2 in outcomes, "the single row of class 1 landed in the training part every time"
    assert "the training part has no rows of class 1 (rows per class: 3, 0)" in caplog.text


def test_a_two_class_method_on_three_classes_fails_naming_method_and_data_set(tmp_path, caplog):
    frame = frame_with(target=[0, 1, 2, 0, 1, 2])
    frame.to_csv(tmp_path / "three.csv", index=False)
    code, data = load(tmp_path, "three", {}, tmp_path)
    assert code == 0 and set(storage.read_arrays(data)["y"]) == {0, 1, 2}
    out = tmp_path / "prepared"
    arguments = ["prepare-method", "--method", "sts_features", "--dataset", "three", "--reps", "1"]
    arguments += ["--data", str(data), "--out", str(out), "--study-seed", "1"]
    assert cli.main(arguments) == 2
    assert "method sts_features handles two classes only, but data set three has 3" in caplog.text
    assert not out.exists()


def test_loader_and_split_keep_missing_values_and_code_levels_from_training_rows(tmp_path):
    """`?` (listed) and empty cells are missing; `grade` is one categorical column whose
    levels become training-row class shares; `rare` misses a level, which is then a level of
    its own."""
    rng = np.random.default_rng(3)
    n_rows = 120
    grade = rng.choice(["a", "b", "c"], size=n_rows)
    target = (grade == "b").astype(int)
    crp = rng.normal(size=n_rows).round(3).astype(object)
    crp[::7] = "?"
    crp[3::11] = ""
    rare = np.where(rng.random(n_rows) < 0.5, "x", "y").astype(object)
    rare[5] = None
    frame = pd.DataFrame({"crp": crp, "grade": grade, "rare": rare, "target": target})
    frame.to_csv(tmp_path / "clinic.csv", index=False)
    code, out = load(tmp_path, "clinic", {"target": "target", "missing_values": ["?"]}, tmp_path)
    assert code == 0
    data = storage.read_arrays(out)
    assert np.isnan(data["X"][:, 0]).sum() == len(range(0, n_rows, 7)) + sum(
        1 for i in range(3, n_rows, 11) if i % 7
    )
    assert list(data["categorical"]) == [1, 2]
    assert set(np.unique(data["X"][:, 1])) == {0.0, 1.0, 2.0}  # sorted level codes

    split = ["split-data", "--dataset", str(out), "--name", "clinic", "--study-seed", "1"]
    train_out, test_out = tmp_path / "train.npz", tmp_path / "test.npz"
    split += ["--rep", "1", "--train-fraction", "0.5"]
    assert cli.main([*split, "--out-train", str(train_out), "--out-test", str(test_out)]) == 0
    train, test = storage.read_arrays(train_out), storage.read_arrays(test_out)
    # grade's shares separate class 1 (level b) from the rest on the test rows.
    assert test["X"][test["y"] == 1, 1].min() > test["X"][test["y"] == 0, 1].max()
    assert not np.isnan(train["X"][:, 1:]).any() and not np.isnan(test["X"][:, 1:]).any()
    assert np.isnan(test["X"][:, 0]).any()  # numeric missing values stay missing


@pytest.mark.parametrize("method", ["pfi", "fs"])
def test_a_block_of_replicates_selects_as_one_job_per_replicate(tmp_path, method):
    """prepare-method and select-features over replicates 1-3 in one job each write, per
    replicate, what a job of that replicate alone writes (the same arrays; the same bytes for
    the selections)."""
    X, y = sklearn.datasets.make_classification(n_samples=80, n_features=6, random_state=0)
    costs = tmp_path / "costs.npz"
    storage.write_arrays(costs, {"costs": np.linspace(0.2, 1.0, 6)})
    common = ["--study-seed", "1", "--method", method, "--dataset", "toy"]
    params = ["--params", json.dumps({"n_trees": 20}), "--budgets", "[1, 2]", "--grid", "[0, 1]"]
    data, prepared = [], []
    for rep in (1, 2, 3):
        data.append(tmp_path / f"train{rep}.npz")
        rows = np.random.default_rng(rep).choice(80, size=60, replace=False)
        storage.write_arrays(data[-1], {"X": X[rows], "y": y[rows]})

    def prepare(reps, out):
        arguments = ["prepare-method", *common, "--params", json.dumps({"n_trees": 20})]
        arguments += ["--reps", *map(str, reps), "--data", *(str(data[r - 1]) for r in reps)]
        assert cli.main([*arguments, "--out", str(out)]) == 0

    if method == "pfi":
        prepare([1, 2, 3], tmp_path / "prepared")
        prepared = [tmp_path / "prepared" / f"rep~{rep}.npz" for rep in (1, 2, 3)]
        assert sorted(p.name for p in (tmp_path / "prepared").iterdir()) == [
            p.name for p in prepared
        ]
        for rep in (1, 2, 3):
            prepare([rep], tmp_path / f"prepared_alone{rep}")
            alone = storage.read_arrays(tmp_path / f"prepared_alone{rep}" / f"rep~{rep}.npz")
            in_block = storage.read_arrays(prepared[rep - 1])
            assert alone.keys() == in_block.keys()
            assert all(np.array_equal(alone[key], in_block[key]) for key in alone)

    def select(reps, out):
        chosen = [rep - 1 for rep in reps]
        arguments = ["select-features", *common, *params, "--costs", str(costs), "--out", out]
        arguments += ["--reps", *map(str, reps), "--data", *(str(data[i]) for i in chosen)]
        if prepared:
            arguments += ["--prepared", *(str(prepared[i]) for i in chosen)]
        assert cli.main(arguments) == 0

    select([1, 2, 3], str(tmp_path / "block"))
    for rep in (1, 2, 3):
        select([rep], str(tmp_path / f"alone{rep}"))
        for name in (f"rep~{rep}.parquet", f"rep~{rep}.artifacts.npz"):
            assert (tmp_path / "block" / name).read_bytes() == (
                tmp_path / f"alone{rep}" / name
            ).read_bytes()
    assert sorted(p.name for p in (tmp_path / "block").iterdir()) == [
        f"rep~{rep}{suffix}" for rep in (1, 2, 3) for suffix in (".artifacts.npz", ".parquet")
    ]


def test_a_selection_without_forests_is_labelled_with_its_preparation_engine(tmp_path, caplog):
    """pfi's selection grows no forest: it takes the engine its prepared file names (without
    importing it); a prepared file that names none was written by an older costfs and is
    refused with an error naming it."""
    X, y = sklearn.datasets.make_classification(n_samples=60, n_features=5, random_state=1)
    data, costs = tmp_path / "train.npz", tmp_path / "costs.npz"
    storage.write_arrays(data, {"X": X, "y": y})
    storage.write_arrays(costs, {"costs": np.linspace(0.2, 1.0, 5)})
    common = ["--study-seed", "1", "--method", "pfi", "--dataset", "toy"]
    arguments = ["prepare-method", *common, "--reps", "1", "--data", str(data)]
    arguments += ["--params", json.dumps({"n_trees": 20}), "--out", str(tmp_path / "prepared")]
    assert cli.main(arguments) == 0
    prepared = tmp_path / "prepared" / "rep~1.npz"
    assert str(storage.read_arrays(prepared)["preparation_engine"]) == "numba"

    def select(prepared_path, out):
        arguments = ["select-features", *common, "--budgets", "[1]", "--grid", "[0]"]
        arguments += ["--costs", str(costs), "--reps", "1", "--data", str(data)]
        return cli.main([*arguments, "--prepared", str(prepared_path), "--out", str(out)])

    assert select(prepared, tmp_path / "labelled") == 0
    table = pd.read_parquet(tmp_path / "labelled" / "rep~1.parquet")
    assert set(table["selection_engine"]) == {"numba"}
    stale = tmp_path / "stale.npz"
    scores = storage.read_arrays(prepared)["scores"]
    storage.write_arrays(stale, {"scores": scores})
    assert select(stale, tmp_path / "refused") == 2
    assert f"{stale}: holds no 'preparation_engine'" in caplog.text
    assert not (tmp_path / "refused" / "rep~1.parquet").exists()


@pytest.mark.parametrize("command", ["prepare-method", "select-features"])
def test_a_block_job_needs_one_data_file_per_replicate(tmp_path, command):
    arguments = [command, "--study-seed", "1", "--method", "auc", "--dataset", "toy"]
    arguments += ["--reps", "1", "2", "--data", str(tmp_path / "only.npz")]
    if command == "select-features":
        arguments += ["--costs", str(tmp_path / "c.npz"), "--budgets", "[1]", "--grid", "[0]"]
    with pytest.raises(ValueError, match="one path per --reps"):
        cli.main([*arguments, "--out", str(tmp_path / "out")])
    assert not (tmp_path / "out").exists()


def test_an_openmp_runtime_loaded_during_a_job_keeps_to_its_threads():
    # scikit-learn's own OpenMP runtime loads with scikit-learn, after the job's thread limit
    # was set: it has to pick the limit up as it loads. The job runs in a fresh Python, where
    # nothing has loaded scikit-learn yet.
    program = (
        "import os, json, threadpoolctl\n"
        "from costfs.cli import job_threads\n"
        "os.environ.pop('OMP_NUM_THREADS', None)\n"
        "with job_threads(1):\n"
        "    import sklearn.ensemble\n"
        "    pools = threadpoolctl.threadpool_info()\n"
        "print(json.dumps([[p['user_api'], p['num_threads']] for p in pools]))\n"
        "print(os.environ.get('OMP_NUM_THREADS'))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    pools, variable_after = run.stdout.splitlines()
    openmp = [threads for api, threads in json.loads(pools) if api == "openmp"]
    assert openmp and all(threads == 1 for threads in openmp)
    assert variable_after == "None"


def test_a_csv_cell_a_spreadsheet_would_run_is_written_as_text_and_read_back(tmp_path):
    """OWASP's CSV injection advice: a text cell starting with =, +, -, @, a tab or a carriage
    return gets a leading apostrophe; numbers stay numbers; `read_csv` gives the names back."""
    table = pd.DataFrame(
        {
            "features": ['=HYPERLINK("http://x")', "+1", "-lg", "@sum", "\tx", "plain"],
            "cost": [-1.5, 2.0, 0.0, 1.0, 3.0, 4.0],
        }
    )
    path = tmp_path / "recommendations.csv"
    storage.write_csv(path, table)
    cells = [line.split(",")[0] for line in path.read_text().splitlines()[1:]]
    assert all(cell.lstrip('"').startswith("'") for cell in cells[:5]) and cells[5] == "plain"
    assert "-1.5" in path.read_text()
    pd.testing.assert_frame_equal(storage.read_csv(path), table)


def test_run_study_takes_its_options_after_the_study_and_passes_on_what_follows_dashes(
    tmp_path, monkeypatch
):
    import costfs.cli.run_study as run_study

    study = tmp_path / "study.yaml"
    study.write_text("seed: 1\n")
    ran = []
    monkeypatch.setattr(run_study, "run_owned", lambda command, lock: ran.append(command) or 0)
    arguments = ["run-study", str(study), "--cores", "2", "--", "--quiet", "-n"]
    assert cli.main(arguments) == 0
    (command,) = ran
    assert command[-3:] == ["--rerun-incomplete", "--quiet", "-n"]
    assert command[command.index("--cores") + 1] == "2"


def test_a_command_without_a_tool_to_pass_on_to_refuses_arguments_after_dashes(capsys):
    with pytest.raises(SystemExit):
        cli.main(["select", "data.csv", "--costs", "c.csv", "--budget", "1", "--", "-n"])
    assert "costfs select takes no arguments after --" in capsys.readouterr().err


def test_run_study_refuses_a_config_that_is_not_plain_yaml_naming_yaml(tmp_path, caplog):
    study = tmp_path / "study.yaml"
    study.write_text("seed: !!python/object/apply:os.system ['true']\n")
    assert cli.main(["run-study", str(study)]) == 2
    assert f"{study}: not a valid YAML study config" in caplog.text
    assert "python/object" in caplog.text and "JSON" not in caplog.text


def _study_folder(folder, seed=1):
    """A study folder with a config reading `data/clinic.csv` and results of it."""
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "clinic.csv").write_text("a,target\n1,0\n2,1\n")
    study = folder / "study.yaml"
    study.write_text(
        f"seed: {seed}\nreal_data:\n  data_dir: data\n  datasets:\n    clinic: {{budgets: [1]}}\n"
    )
    return study


def test_a_study_folder_moved_whole_is_the_same_study(tmp_path):
    from costfs.cli.run_study import claim_folder

    study = _study_folder(tmp_path / "first")
    claim_folder(study)
    shutil.copytree(tmp_path / "first", tmp_path / "moved")
    claim_folder(tmp_path / "moved" / "study.yaml")
    mark = (tmp_path / "moved" / "results" / ".study").read_text()
    assert mark.startswith(f"{tmp_path / 'moved' / 'study.yaml'}\n")


def test_a_study_edited_in_place_keeps_its_folder(tmp_path):
    from costfs.cli.run_study import claim_folder

    study = _study_folder(tmp_path)
    claim_folder(study)
    study.write_text(study.read_text().replace("[1]", "[1, 2]"))
    claim_folder(study)


@pytest.mark.parametrize("changed", ["another config", "the data", "a moved config, edited"])
def test_another_studys_results_are_refused_naming_their_config(tmp_path, changed):
    from costfs.cli.run_study import claim_folder
    from costfs.core.errors import DataError

    study = _study_folder(tmp_path / "first")
    claim_folder(study)
    other = tmp_path / "first" / "other.yaml"
    if changed == "another config":
        other.write_text(study.read_text().replace("seed: 1", "seed: 2"))
    else:
        shutil.copytree(tmp_path / "first", tmp_path / "moved")
        other = tmp_path / "moved" / "study.yaml"
        if changed == "the data":
            (tmp_path / "moved" / "data" / "clinic.csv").write_text("a,target\n1,1\n2,0\n")
        else:
            other.write_text(other.read_text().replace("seed: 1", "seed: 3"))
    with pytest.raises(DataError, match=f"holds the results of {study}, whose config or data"):
        claim_folder(other)


def test_a_half_written_config_is_fingerprinted_without_a_traceback(tmp_path):
    from costfs.cli.run_study import study_fingerprint

    study = tmp_path / "study.yaml"
    for text in ("real_data:\n  datasets:\n    mydata:\n", "- a list\n", "real_data: 3\n"):
        study.write_text(text)
        assert len(study_fingerprint(study)) == 64


def test_combine_batches_refuses_to_write_into_one_of_its_batches(tmp_path):
    from costfs.cli.batches import combine
    from costfs.core.errors import DataError

    batches = [tmp_path / "batch1", tmp_path / "batch2"]
    with pytest.raises(DataError, match="is one of the batches"):
        combine(batches, ["tuned"], tmp_path / "batch1")


@pytest.mark.parametrize(
    ("labels", "source", "kept", "positive"),
    [
        (["healthy", "disease"] * 3, {}, ["disease", "healthy"], "healthy"),
        (
            ["healthy", "disease"] * 3,
            {"positive_class": "disease"},
            ["not disease", "disease"],
            "disease",
        ),
        (["a", "b", "c"] * 2, {}, ["a", "b", "c"], "macro average over 3 classes"),
    ],
)
def test_a_loaded_data_set_keeps_its_class_labels_for_the_metrics(
    tmp_path, labels, source, kept, positive
):
    from costfs.study.realdata import positive_class_text

    frame_with(target=labels).to_csv(tmp_path / "labelled.csv", index=False)
    code, out = load(tmp_path, "labelled", source, tmp_path)
    assert code == 0
    stored = storage.read_arrays(out)["class_labels"].tolist()
    assert stored == kept and positive_class_text(stored) == positive


def test_batches_with_and_without_the_held_out_share_are_not_joined(tmp_path):
    """A batch of an older costfs has no held_out_share: joined to one that has, its real-data
    runs would get no standard error. combine refuses, naming it; given the real data's
    training fraction (the reproduction's assembly), it sets the share for all."""
    from costfs.cli.batches import combine
    from costfs.core.costs import FeatureCosts
    from costfs.core.validation import DataError

    runs = pd.DataFrame(
        {"kind": "real", "problem": "wdbc", "rep": [1, 2], "method": "auc"}
        | {"hyperparameter": "", "hyperparameter_value": np.nan, "budget": 1.0}
        | {"test_mmce": [0.1, 0.2], "oob_mmce": 0.1, "cost": 1.0, "n_selected": 1}
        | {"features": [[0], [0]], "dataset": "wdbc"}
    )
    old, new = tmp_path / "old", tmp_path / "new"
    for folder, rows in ((old, runs[runs["rep"] == 1]), (new, runs[runs["rep"] == 2])):
        (folder / "costs").mkdir(parents=True)
        costs = FeatureCosts.ungrouped(np.ones(2)).to_arrays()
        storage.write_arrays(folder / "costs" / "wdbc.npz", costs)
        storage.write_table(folder / "runs.parquet", rows)
    storage.write_table(new / "runs.parquet", runs[runs["rep"] == 2].assign(held_out_share=0.5))
    with pytest.raises(DataError, match=f"{old}: runs without a held_out_share"):
        combine([old, new], ["tuned"], tmp_path / "union", check=False)
    assert not (tmp_path / "union").exists()
    combine([old, new], ["tuned"], tmp_path / "union", check=False, train_fraction=2 / 3)
    joined = storage.read_table(tmp_path / "union" / "runs.parquet")
    assert list(joined["held_out_share"]) == pytest.approx([0.5, 0.5])


def test_figures_names_the_tables_a_figure_is_drawn_from(tmp_path, caplog):
    # One figure per job: each is given only the tables it reads, and says which it lacks.
    table = tmp_path / "results.md"
    assert cli.main(["figures", "--out", f"table={table}"]) == 2
    assert "--runs FILE --summary FILE --recommendations FILE" in caplog.text
    assert not table.exists()
    caplog.clear()
    assert cli.main(["figures", "--out", f"tables={table}"]) == 2
    assert "no figure output ['tables']" in caplog.text and "'table'" in caplog.text


def test_a_figure_split_into_cells_is_drawn_for_one_cell_named_in_full(tmp_path, caplog):
    runs = tmp_path / "runs.parquet"
    storage.write_table(
        runs,
        pd.DataFrame(
            {"problem": ["A", "wdbc"], "kind": ["simulated", "real"], "budget": [2.0, 2.0]}
        ),
    )
    figures = tmp_path / "xi_curves" / "A"
    arguments = ["figures", "--runs", str(runs), "--out", f"xi_curves={figures}"]
    assert cli.main(arguments) == 2
    assert "one file per setting: give --cell setting=VALUE" in caplog.text
    caplog.clear()
    for setting in ("B", "wdbc"):
        assert cli.main([*arguments, "--cell", f"setting={setting}"]) == 2
        assert f"no rows of the cell {{'setting': '{setting}'}}" in caplog.text
    caplog.clear()
    violins = tmp_path / "method_violins"
    assert (
        cli.main([*arguments[:3], "--cell", "setting=A", "--out", f"method_violins={violins}"]) == 2
    )
    assert "drawn from the whole study: give no --cell" in caplog.text
    assert not figures.exists() and not violins.exists()
