"""Your own data with real costs: a CSV, a costs file whose blood tests share one draw, a
selection for three budgets (the `costfs select` command does the same from the shell), and a
study config for the full workflow (`costfs init-study`)."""

import subprocess
import sys

import numpy as np
import pandas as pd

from costfs.core.costs import FeatureCosts
from costfs.study.single_run import select_once

rng = np.random.default_rng(3)
n = 400
visits = pd.DataFrame(
    {
        "age": rng.normal(50, 12, n),
        "bmi": rng.normal(27, 4, n),
        "glucose": rng.normal(110, 25, n),
        "insulin": rng.normal(80, 30, n),
        "questionnaire": rng.normal(0, 1, n),
    }
)
risk = 0.04 * (visits["glucose"] - 110) + 0.03 * (visits["insulin"] - 80) + 0.05 * visits["bmi"]
visits["target"] = (risk + rng.normal(0, 1, n) > risk.median()).astype(int)
visits.to_csv("visits.csv", index=False)
pd.DataFrame(
    {
        "feature": ["age", "bmi", "glucose", "insulin", "questionnaire"],
        "cost": [0.1, 0.5, 17.61, 22.78, 1.0],
        "group": ["", "", "blood", "blood", ""],
    }
).to_csv("costs.csv", index=False)

# In Python: glucose and insulin pay the blood draw (2.10) once between them.
names = ["age", "bmi", "glucose", "insulin", "questionnaire"]
costs = FeatureCosts.grouped(
    np.array([0.1, 0.5, 17.61, 22.78, 1.0]), [None, None, "blood", "blood", None], {"blood": 2.10}
)
X, y = visits[names].to_numpy(), visits["target"].to_numpy()
table = select_once(X, y, costs, [2, 20, 45], method="sts", n_trees=200, seed=0)
for row in table.itertuples():
    chosen = [names[j] for j in row.features]
    print(f"budget {row.budget:g}: {chosen} cost {row.cost:.2f}, OOB error {row.oob_mmce:.3f}")

# The same from the shell, with a held-out estimate (5 splits), and a study config for
# `costfs run-study study.yaml --cores 2 --report`.
command = [sys.executable, "-m", "costfs.cli"]
common = ["visits.csv", "--costs", "costs.csv", "--group-costs", "blood=2.10"]
subprocess.run(
    [*command, "select", *common, "--budget", "45", "--n-trees", "200", "--splits", "5"],
    check=True,
)
subprocess.run([*command, "init-study", *common, "--out", "study.yaml"], check=True)
print("wrote study.yaml")
