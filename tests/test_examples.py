"""The documentation's example gallery runs: every script of examples/ in a fresh directory."""

import subprocess
import sys

import pytest

from tests.conftest import REPO

EXAMPLES = sorted((REPO / "examples").glob("*.py"))
OUTPUTS = {
    "cost_accuracy_curve.py": ["cost_accuracy.png"],
    "own_data_study.py": ["visits.csv", "costs.csv", "study.yaml"],
}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_example_runs(example, tmp_path):
    result = subprocess.run(
        [sys.executable, str(example)], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip()
    for name in OUTPUTS.get(example.name, []):
        assert (tmp_path / name).stat().st_size > 0
