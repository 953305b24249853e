"""A selector on a data set: Shallow Tree Selection on the breast-cancer data (scikit-learn's
copy of wdbc), with a cost per feature and a budget, then a Random Forest on what it chose."""

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

import costfs

X, y = load_breast_cancer(return_X_y=True, as_frame=True)
costs = dict(zip(X.columns, np.random.default_rng(1).uniform(0.1, 1.0, X.shape[1]), strict=True))

selector = costfs.ShallowTreeSelector(
    feature_costs=costs, budget=2.0, xi=1.0, trees_per_depth=200, random_state=0
)
selector.fit(X, y)
print(f"{selector.selected_features_.size} features, total cost {selector.total_cost_:.2f}:")
print(", ".join(selector.get_feature_names_out()))

# The selector is a scikit-learn transformer: cross-validate selection and model together.
model = make_pipeline(selector, RandomForestClassifier(n_estimators=100, random_state=0))
accuracy = cross_val_score(model, X, y, cv=3).mean()
print(f"cross-validated accuracy with the budget: {accuracy:.3f}")
