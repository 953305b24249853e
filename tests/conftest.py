from pathlib import Path

import numpy as np
import pytest

import costfs

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"

# Every selector, small enough for unit tests.
SELECTORS = {
    "auc": lambda: costfs.AUCFilter(),
    "pfi": lambda: costfs.PermutationImportanceFilter(n_trees=30),
    "sts": lambda: costfs.ShallowTreeSelector(trees_per_depth=20),
    "sts_features": lambda: costfs.FeatureLimitedTreeSelector(trees_per_k=10),
    "fs": lambda: costfs.ForwardSelector(n_trees=20),
    "budget_rf": lambda: costfs.BudgetRFSelector(n_trees_max=5),
    "msb": lambda: costfs.ModelScheduleSelector(n_trees=20, importance_trees=20, l1_path_length=10),
    "featboost": lambda: costfs.FeatBoostSelector(n_estimators=10, n_candidates=5, max_bin=32),
    "xgb_fs": lambda: costfs.XGBImportanceSelector(n_estimators=10),
    "relieff": lambda: costfs.ReliefFSelector(),
    "boruta": lambda: costfs.BorutaSelector(max_iter=10),
}


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(f"the shared data sets are expected in {SHARED_DATA}")
    return SHARED_DATA
