import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import sklearn.datasets

from costfs import cli, storage


def load(tmp_path, name, source, data_dir=None):
    out = tmp_path / f"{name}.npz"
    arguments = ["load-dataset", "--name", name, "--source", json.dumps(source), "--out", str(out)]
    if data_dir:
        arguments += ["--data-dir", str(data_dir)]
    return cli.main(arguments), out


def test_csv_from_data_dir_is_preferred(tmp_path, shared_data):
    code, out = load(tmp_path, "wdbc", {"openml_id": 1510}, shared_data)
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
    pd.DataFrame({"a": [1.0, np.nan], "target": [0, 1]}).to_csv(tmp_path / "bad.csv", index=False)
    code, out = load(tmp_path, "bad", {}, tmp_path)
    assert code == 2 and not out.exists()
    assert "bad.csv: column 'a' has a missing or infinite value" in caplog.text
    assert not list(tmp_path.glob(".*.tmp"))


def test_atomic_write_leaves_no_file_when_writing_fails(tmp_path):
    with pytest.raises(pa.ArrowInvalid):
        storage.write_table(tmp_path / "t.parquet", pd.DataFrame({"x": [object()]}))
    assert list(tmp_path.iterdir()) == []
