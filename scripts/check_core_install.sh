#!/usr/bin/env bash
# The light core: `pip install .` in a fresh virtual environment gives the selectors of the RF
# paper's methods without Snakemake or the related-work packages, and a related-work method
# says which extra it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
venv="$(mktemp -d)/core"
trap 'rm -rf "$(dirname "$venv")"' EXIT
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet .
"$venv/bin/python" - <<'PY'
import importlib.util

import numpy as np

import costfs

for package in ("snakemake", "xgboost", "skrebate", "boruta", "seaborn"):
    assert importlib.util.find_spec(package) is None, f"{package} is not a core dependency"
rng = np.random.default_rng(0)
X = rng.normal(size=(100, 5))
y = (X[:, 0] > 0).astype(int)
selector = costfs.AUCFilter(feature_costs=[1, 2, 1, 1, 3], budget=2.0).fit(X, y)
assert selector.selected_features_.tolist() and selector.total_cost_ <= 2.0
try:
    costfs.XGBImportanceSelector(budget=2.0).fit(X, y)
except ImportError as error:
    assert "costfs[related]" in str(error), error
else:
    raise AssertionError("XGBImportanceSelector ran without xgboost")
from costfs.cli.run_study import packaged_snakefile

snakefile = packaged_snakefile()
assert "site-packages" in str(snakefile), snakefile
for part in ("rules/common.smk", "schemas/config.schema.yaml", "report/workflow.rst"):
    assert (snakefile.parent / part).is_file(), f"the installed workflow has no {part}"
print("core install: costfs.AUCFilter works without Snakemake; related methods name their extra;")
print(f"the workflow is installed with the package ({snakefile.parent})")
PY
