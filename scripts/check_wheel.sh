#!/usr/bin/env bash
# A study from a plain install: builds the wheel, installs it (non-editable, with the workflow
# extra) in a fresh virtual environment, and runs `costfs init-study` and `costfs run-study` on a
# small data set in an empty folder. Every test of the suite runs an editable install, which
# would not see a file the rules need and the wheel does not ship.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
# From a copy of the checkout's files: setuptools' build/ folder in the checkout may hold
# files of an earlier build that the package no longer lists.
"$python" - "$work/source" <<'PY'
import pathlib
import shutil
import subprocess
import sys

listed = ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"]
names = subprocess.run(listed, capture_output=True, check=True).stdout.decode().split("\0")
for name in filter(None, names):
    if pathlib.Path(name).is_file():  # a tracked file deleted in the work tree is not there
        copy = pathlib.Path(sys.argv[1]) / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(name, copy)
PY
"$work/venv/bin/python" -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$work/source"
wheel=("$work"/dist/costfs-*.whl)
"$work/venv/bin/python" -m pip install --quiet "${wheel[0]}[workflow]"
mkdir "$work/study"
cd "$work/study"
"$work/venv/bin/python" - <<'PY'
import numpy as np

rng = np.random.default_rng(0)
X = rng.normal(size=(150, 5))
y = (X[:, 0] + X[:, 1] + rng.normal(scale=0.5, size=150) > 0).astype(int)
header = ",".join([*(f"x{j}" for j in range(5)), "target"])
rows = [",".join([*(f"{value:.4f}" for value in row), str(label)]) for row, label in zip(X, y)]
open("data.csv", "w").write("\n".join([header, *rows]) + "\n")
costs = ["feature,cost", "x0,1.0", "x1,0.5", "x2,0.2", "x3,0.8", "x4,0.3"]
open("costs.csv", "w").write("\n".join(costs) + "\n")
PY
"$work/venv/bin/costfs" init-study data.csv --costs costs.csv --out study.yaml
# Two replicates and the paper's cheap methods: the check is that the installed workflow
# runs, not what it finds.
"$work/venv/bin/python" - <<'PY'
import yaml

study = yaml.safe_load(open("study.yaml"))
study["n_rep"] = 2
study["methods"] = {"auc": {}, "random_fill": {}}
open("study.yaml", "w").write(yaml.safe_dump(study))
PY
"$work/venv/bin/costfs" run-study study.yaml --cores 2 >"$work/run.log" 2>&1 || {
    tail -40 "$work/run.log"
    exit 1
}
test -s results/recommendations.csv
test -s results/runs.parquet
echo "wheel install: init-study and run-study ran a study from an empty folder"
