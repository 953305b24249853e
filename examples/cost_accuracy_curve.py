"""A cost-accuracy curve: the cost-sensitive AUC filter (ξ tuned by a refit's OOB error) at
budgets from a tenth to all of the total cost, drawn as test error against cost."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402

from costfs.study.single_run import select_once  # noqa: E402

X, y = load_breast_cancer(return_X_y=True)
costs = np.random.default_rng(1).uniform(0.1, 1.0, X.shape[1])
budgets = np.round(np.linspace(0.1, 1.0, 6) * costs.sum(), 2)

curve = select_once(X, y, costs, budgets, method="auc", n_trees=200, seed=0)
print(curve[["budget", "value", "cost", "oob_mmce"]].to_string(index=False))

figure, axes = plt.subplots(figsize=(5, 3.5), layout="constrained")
axes.plot(curve["cost"], curve["oob_mmce"], marker="o")
axes.set(xlabel="cost of the selected features", ylabel="OOB error of a refit (MMCE)")
figure.savefig("cost_accuracy.png", dpi=120)
print("wrote cost_accuracy.png")
