"""FeatBoost (Alsahaf et al., Algorithm 1) under a budget, with a cost-sensitive choice.

The algorithm. Sample weights start equal. Each iteration fits the ranking model H1 (XGBoost,
gain importance) on all features with the current weights, takes the `n_candidates` (m = 50,
capped at p) best-ranked features, and scores each one by `n_folds`-fold (k = 3) cross-validated
accuracy of the evaluation classifier H2 on the selected set plus the candidate. The best
candidate is added if its accuracy gain over the selected set exceeds `epsilon` (1e-18) and it
is not already selected. After an addition, H1 is fit on the selected set (unweighted, as in the
authors' code), each row's cross-entropy loss is divided by its loss after the previous
addition (1 before the first) and the weights are multiplied by that ratio and normalised
(paper, eq. 4.2). When no candidate qualifies, the weights are reset to equal and the
iteration is repeated; if that fails as well, the search stops. At most `max_features_selected`
(p' = 100) features are selected.

Decisions where the paper is silent or ambiguous:
- H2 is a k-nearest-neighbour classifier (`evaluator="knn"`, the paper's second configuration,
  which it found as good and much faster) on columns standardised with each training fold's
  mean and standard deviation (the held-out fold never informs its own scaling),
  `n_neighbors` = 5 (the paper says "Nearest Neighbor" without k; 5 is scikit-learn's
  default). Votes are uniform, as scikit-learn's, except where training rows tie at the k-th
  distance (common on data with many equal values, such as spambase's zeros): the tied rows
  share the votes left equally, so a class's vote is its expected count under a random
  choice among them. scikit-learn takes whichever tied rows numpy's `argpartition` leaves
  first, which depends on the CPU's vector instructions (AVX-512 or not), so its votes, and
  the selections, differed between machines. A tie between classes goes to the lowest.
  `evaluator="xgboost"` is the first configuration (H2 = H1's model). H2 ignores the weights
  (authors' code).
- H1 is the paper's XGBoost: `n_estimators` = 100, `max_depth` = 20, `learning_rate` = 0.1 (the
  default of XGBoost 0.90 that the paper used), `max_bin` = 256 histogram bins (XGBoost's
  default; 64 fits faster). It has no random parts (no subsampling).
- Weights have mean 1, not sum 1 (as in the authors' code): XGBoost's `min_child_weight` is on
  the weighted hessian, so weights of 1/n would stop every split.
- The loss is computed from H1's margin (softplus; for K > 2 classes the softmax cross-entropy of
  its K margins), so a row predicted right with certainty
  keeps a small positive loss instead of 0, which would make the next ratio 0/0.
- Resets: the authors' code allows a single reset per run, the pseudocode re-arms the reset
  after each successful addition. The default follows the code (`reset_rule: once`, the
  `resets` column is 0 or 1); `reset_rule: rearm` is the pseudocode's rule.
- The selected set's accuracy before the first addition is that of predicting the training
  fold's majority class, in the same folds. The folds are stratified and fixed for the run.
- Ties in the choice go to the lower added cost, then the better-ranked candidate.

Budget and costs. Only affordable features are candidates: the top m of the ranking among the
features whose cost fits the remaining budget (`costfs.methods._bcr.BUDGET_TOLERANCE`) and the
selected ones (which stay in the ranking, so that "selected twice" can stop the search). The search
also stops when no unselected feature is affordable. The choice maximises the accuracy gain over
c_j^xi (times c_j^xi for a gain <= 0, as `costfs.methods._bcr.step_ratio`); xi = 0 is the original
choice. A selected feature scores 0. The method keeps its own stopping rule, so a selection may
leave budget unused: records carry `unused_budget` and `resets`.

Sharing work. Affordability differs between budgets, so each (xi, budget) runs its own path,
but all paths of one call share three memos, each keyed by exactly what its result depends on:
H1's importances by the weight vector, H2's CV accuracy by the features in their order of
selection (fixed folds, deterministic H2; k-NN adds up the columns' distances in that order),
H1's losses by the sorted selected set. The k-NN evaluator keeps, per fold, the distances on
the last selected set it scored, to which a path's next step adds one column.
Paths of different budgets share all their work until a budget binds, and a reset returns to
the ranking with equal weights, which `prepare` computes once per data set (H1 has no random
parts, so it is the ranking `select` would compute). The values of xi run on `n_jobs` threads,
each xi's budgets one after the other in one thread, all sharing the memos: as each memo holds
the value any path would compute, which thread computes it first cannot change a selection.
Each thread keeps its own distances per fold (held-out x training rows of the fold, 8 bytes
each), so the k-NN evaluator's memory grows with the threads.
Every H1 fit runs on one thread (`costfs.methods._xgboost.xgboost_classifier`), as XGBoost's
gains depend on how many threads add up its histograms: the selections are the same on one
thread or several.
"""

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.core.seeds import derive_seed
from costfs.core.validation import DataError
from costfs.engine.forest import class_count
from costfs.methods._base import XI, Method, Parameter, Selection, choice, integer, number, or_null
from costfs.methods._bcr import ratio_ranks, step_ratio
from costfs.methods._kept import Kept, digest
from costfs.methods._xgboost import (
    XGBOOST_PARAMETERS,
    GainImportancePreparation,
    xgboost_classifier,
    xgboost_importance,
)

EVALUATORS = ("knn", "xgboost")
RESET_RULES = ("once", "rearm")


@dataclass(frozen=True)
class FeatBoostPath:
    """The result of one (xi, budget) run."""

    features: tuple[int, ...]
    """In the order of selection."""
    spent: float
    accuracy: float
    """Cross-validated accuracy of H2 on the selected set."""
    resets: int
    stop: str
    """"no_gain", "repeated" (the best candidate was already selected), "budget" (no
    unselected feature fits) or "max_features"."""


class FeatBoostModels:
    """H1 and H2 on one training set, memoised for every path of a `select` call (and of the
    calls of one fit's budget path: `kept_models`)."""

    def __init__(
        self,
        X: np.ndarray,
        y: np.ndarray,
        *,
        seed: int,
        n_folds: int,
        evaluator: str,
        n_neighbors: int,
        n_estimators: int,
        max_depth: int,
        learning_rate: float,
        max_bin: int,
        equal_weight_importance: np.ndarray | None = None,
    ):
        self.X = np.asarray(X, dtype=float)
        self.y = np.unique(y, return_inverse=True)[1]
        self.n_classes = class_count(self.y)
        self.evaluator = evaluator
        self.n_neighbors = int(n_neighbors)
        self.xgboost = dict(
            n_estimators=n_estimators,
            max_depth=max_depth,
            learning_rate=learning_rate,
            max_bin=max_bin,
            seed=seed,
        )
        smallest_class = int(np.bincount(self.y).min())
        if smallest_class < n_folds:
            raise DataError(
                f"featboost: n_folds={n_folds} stratified folds need at least {n_folds} rows of "
                f"each class, but a class has only {smallest_class}; lower n_folds or add rows"
            )
        # Imported here: the preparation (H1's ranking) and the evaluation's jobs need no
        # scikit-learn, whose import takes about 0.9 s of a job's start.
        from sklearn.model_selection import StratifiedKFold

        splitter = StratifiedKFold(
            int(n_folds), shuffle=True, random_state=derive_seed(seed, "folds")
        )
        self.folds = list(splitter.split(self.X, self.y))
        self.fold_columns = [self._evaluated_columns(train, test) for train, test in self.folds]
        self._thread_state = threading.local()
        self.importance_memo: dict[bytes, np.ndarray] = {}
        if equal_weight_importance is not None:
            equal = self.equal_weights().tobytes()
            self.importance_memo[equal] = np.asarray(equal_weight_importance)
        self.accuracy_memo: dict[tuple[int, ...], float] = {(): self._majority_accuracy()}
        self.loss_memo: dict[tuple[int, ...], np.ndarray] = {}

    def _evaluated_columns(self, train, test) -> tuple[np.ndarray, np.ndarray]:
        """H2's (training, test) columns of one fold. For k-NN, standardised by the training
        fold (distances would otherwise be ruled by the widest column); trees need no scaling."""
        if self.evaluator != "knn":
            return self.X[train], self.X[test]
        from sklearn.preprocessing import StandardScaler

        scaler = StandardScaler().fit(self.X[train])
        # A missing value becomes the training fold's mean: k-NN has no rule of its own for it.
        return tuple(
            np.nan_to_num(scaler.transform(self.X[rows]), nan=0.0) for rows in (train, test)
        )

    @property
    def fold_distances(self) -> list[tuple[tuple[int, ...], np.ndarray] | None]:
        """Per fold, the last selected set this thread scored and its distances: each thread
        runs one path at a time, whose next step adds one column to its last set."""
        kept = getattr(self._thread_state, "fold_distances", None)
        if kept is None:
            kept = self._thread_state.fold_distances = [None] * len(self.folds)
        return kept

    @property
    def n_rows(self) -> int:
        return self.y.size

    def equal_weights(self) -> np.ndarray:
        return np.ones(self.n_rows)

    def importance(self, weights: np.ndarray) -> np.ndarray:
        """H1's gain importance of every feature, fit with `weights`."""
        key = weights.tobytes()
        if key not in self.importance_memo:
            self.importance_memo[key] = xgboost_importance(
                self.X, self.y, sample_weight=weights, **self.xgboost
            )
        return self.importance_memo[key]

    def accuracy(self, features: tuple[int, ...]) -> float:
        """H2's cross-validated accuracy on `features`, in the order a path selected them."""
        if features not in self.accuracy_memo:
            self.accuracies(features[:-1], np.array(features[-1:]))
        return self.accuracy_memo[features]

    def accuracies(self, selected: tuple[int, ...], candidates: np.ndarray) -> np.ndarray:
        """H2's cross-validated accuracy on `selected` plus each candidate (mean over folds).
        Memoised by the features in their order, not as a set: k-NN sums the columns' squared
        distances in that order, and another order can round a distance, and so break a tie
        at the k-th, otherwise. Keyed by the set, a path would get whichever order another
        path reached the set in first, and its selection would depend on the other paths."""
        keys = [(*selected, int(j)) for j in candidates]
        missing = [k for k, key in enumerate(keys) if key not in self.accuracy_memo]
        if missing:
            new_candidates = np.asarray(candidates, dtype=int)[missing]
            score = self._knn_accuracies if self.evaluator == "knn" else self._xgboost_accuracies
            per_fold = [score(fold, selected, new_candidates) for fold in range(len(self.folds))]
            new_accuracies = np.mean(per_fold, axis=0)
            self.accuracy_memo.update(zip((keys[k] for k in missing), new_accuracies, strict=True))
        return np.array([self.accuracy_memo[key] for key in keys])

    def _majority_accuracy(self) -> float:
        """The empty set's accuracy: each test fold predicted as its training fold's majority."""
        per_fold = [
            np.mean(self.y[test] == np.bincount(self.y[train]).argmax())
            for train, test in self.folds
        ]
        return float(np.mean(per_fold))

    def _xgboost_accuracies(self, fold, selected, candidates) -> np.ndarray:
        train, test = self.folds[fold]
        X_train, X_test = self.fold_columns[fold]
        accuracies = []
        for candidate in candidates:
            columns = [*selected, candidate]
            model = xgboost_classifier(**self.xgboost).fit(X_train[:, columns], self.y[train])
            accuracies.append(np.mean(model.predict(X_test[:, columns]) == self.y[test]))
        return np.asarray(accuracies)

    def _knn_accuracies(self, fold, selected, candidates) -> np.ndarray:
        """k-NN accuracies of all candidates on one fold at once. Squared Euclidean distances
        add up over columns: the selected set's are computed once and each candidate adds its
        own column's, which is what makes 50 candidates cheaper than one scikit-learn call."""
        train, test = self.folds[fold]
        X_train, X_test = self.fold_columns[fold]
        k = min(self.n_neighbors, train.size)
        # Imported here: the preparation's job (H1's ranking) needs no numba.
        from costfs.methods._knn import NEAR_SHARE, knn_votes

        predicted = knn_votes(
            self._selected_distances(fold, tuple(selected)),
            X_test[:, candidates].T.copy(),
            X_train[:, candidates].T.copy(),
            self.y[train],
            k,
            self.n_classes,
            round(NEAR_SHARE * train.size),
        )
        return np.mean(predicted == self.y[test], axis=1)

    def _selected_distances(self, fold: int, selected: tuple[int, ...]) -> np.ndarray:
        """Squared distances (test x training rows of `fold`) on the columns `selected`, added
        up in their order. The last ones are kept per fold: a path's next step selects one more
        feature, and adding its column to them gives the very sums of adding up every column
        again, in a fraction of the time."""
        X_train, X_test = self.fold_columns[fold]
        kept = self.fold_distances[fold]
        if kept is not None and kept[0] == selected:
            return kept[1]
        if kept is not None and selected and kept[0] == selected[:-1]:
            distances, columns = kept[1], list(selected[-1:])
        else:
            distances, columns = np.zeros((X_test.shape[0], X_train.shape[0])), list(selected)
        from costfs.methods._knn import add_squared_distances

        add_squared_distances(distances, X_test[:, columns].T.copy(), X_train[:, columns].T.copy())
        self.fold_distances[fold] = (selected, distances)
        return distances

    def loss(self, features: tuple[int, ...]) -> np.ndarray:
        """Per row, the cross-entropy of H1 fit (unweighted) on the sorted set `features`."""
        if features not in self.loss_memo:
            columns = self.X[:, list(features)]
            model = xgboost_classifier(**self.xgboost).fit(columns, self.y)
            margin = model.predict(columns, output_margin=True).astype(float)
            if margin.ndim == 1:
                signed_margin = np.where(self.y == 1, margin, -margin)
                loss = np.logaddexp(0.0, -signed_margin)
            else:
                # Softmax cross-entropy over the K class margins.
                from scipy.special import logsumexp

                true_margin = margin[np.arange(self.n_rows), self.y]
                loss = logsumexp(margin, axis=1) - true_margin
            # Floored so that the next iteration's ratio never divides by zero.
            self.loss_memo[features] = np.maximum(loss, 1e-300)
        return self.loss_memo[features]


def best_first(importance: np.ndarray) -> np.ndarray:
    """Features by decreasing importance, ties by lower index."""
    return np.lexsort((np.arange(importance.size), -np.asarray(importance)))


def featboost_path(
    models: FeatBoostModels,
    costs,
    budget: float,
    xi: float,
    *,
    n_candidates: int,
    epsilon: float,
    max_features_selected: int | None,
    reset_rule: str,
) -> FeatBoostPath:
    """Algorithm 1 of the paper with budget and cost-sensitive choice (see the module doc)."""
    feature_costs = FeatureCosts.of(costs)
    n_features = feature_costs.n_features
    limit = n_features if max_features_selected is None else int(max_features_selected)
    weights = models.equal_weights()
    previous_loss = np.ones(models.n_rows)
    selected: list[int] = []
    spent = 0.0
    accuracy = models.accuracy(())
    resets = 0
    reset_armed = True
    stop = "max_features"
    while len(selected) < limit:
        is_selected = np.zeros(n_features, dtype=bool)
        is_selected[selected] = True
        # what each feature adds to the selected set (0 for a selected one)
        costs = feature_costs.added(is_selected, np.arange(n_features))
        affordable = (spent + costs <= budget + BUDGET_TOLERANCE) & ~is_selected
        if not affordable.any():
            stop = "budget"
            break
        ranking = best_first(models.importance(weights))
        candidates = ranking[(affordable | is_selected)[ranking]][:n_candidates]
        is_new = ~is_selected[candidates]
        added_costs = np.where(is_new, costs[candidates], 0.0)
        gains = np.zeros(candidates.size)
        gains[is_new] = models.accuracies(tuple(selected), candidates[is_new]) - accuracy
        scores = np.zeros(candidates.size)
        scores[is_new] = -step_ratio(-gains[is_new], added_costs[is_new], xi, "multiply")
        best = np.lexsort((np.arange(candidates.size), added_costs, ratio_ranks(-scores)))[0]
        if is_new[best] and gains[best] > epsilon:
            selected.append(int(candidates[best]))
            spent += costs[candidates[best]]
            accuracy = models.accuracy(tuple(selected))
            loss = models.loss(tuple(sorted(selected)))
            weights = weights * loss / previous_loss
            weights *= weights.size / weights.sum()
            previous_loss = loss
            reset_armed = reset_armed or reset_rule == "rearm"
        elif reset_armed:
            resets += 1
            reset_armed = False
            weights = models.equal_weights()
        else:
            stop = "no_gain" if is_new[best] else "repeated"
            break
    return FeatBoostPath(tuple(selected), spent, accuracy, resets, stop)


kept_models = Kept()
"""The models, with their memos, of the last few fits (`costfs.methods._kept`)."""


class FeatBoostSelector(GainImportancePreparation, Method):
    summary = (
        "FeatBoost (Alsahaf et al.): XGBoost ranking on re-weighted rows, top-m affordable "
        "candidates scored by 3-fold CV (k-NN) with the selected set, softmax re-weighting, "
        "one reset, ε stop; cost-sensitive by ΔAcc / c^ξ. `unused_budget` column"
    )
    hyperparameter = XI
    parameters = (
        Parameter(
            "n_candidates",
            integer(),
            50,
            "top-m features of the XGBoost ranking scored by cross-validation each step "
            "(capped at p)",
        ),
        Parameter("n_folds", integer(minimum=2), 3, "k of the k-fold CV"),
        Parameter("epsilon", number(minimum=0), 1.0e-18, "stop when the accuracy gain is below ε"),
        # The ranking model: its ranking with equal weights is the cost-free part, the
        # re-weighted rankings are part of the selection.
        *(replace(parameter, stage="both") for parameter in XGBOOST_PARAMETERS),
        Parameter(
            "max_features_selected",
            or_null(integer()),
            100,
            "cap on the selected features (null: no cap)",
        ),
        Parameter(
            "evaluator",
            choice(*EVALUATORS),
            "knn",
            "classifier of the CV step (the paper's two setups)",
        ),
        Parameter("n_neighbors", integer(), 5, "k of the k-NN evaluator"),
        Parameter(
            "reset_rule",
            choice(*RESET_RULES),
            "once",
            "`once`: one weight reset per run (the authors' code); `rearm`: a reset again "
            "after each addition (the paper's pseudocode)",
        ),
    )
    missing_values = (
        "native: XGBoost learns each split's side for missing values; the k-NN evaluator "
        "replaces a missing standardised value by 0, the training fold's mean"
    )
    # Its (xi, budget) paths run on the job's threads.
    parallel_selection = True
    colour = "#56B4E9"
    exact_path = True

    def select(
        self,
        X,
        y,
        costs,
        budgets,
        grid,
        context,
        *,
        n_candidates,
        n_folds,
        epsilon,
        n_estimators,
        max_depth,
        learning_rate,
        max_bin,
        max_features_selected,
        evaluator,
        n_neighbors,
        reset_rule,
    ):
        """Per (xi, budget): the selected features, `unused_budget` and `resets`."""
        costs = FeatureCosts.of(costs)
        settings = {
            "seed": context.seed,
            "n_folds": n_folds,
            "evaluator": evaluator,
            "n_neighbors": n_neighbors,
            "n_estimators": n_estimators,
            "max_depth": max_depth,
            "learning_rate": learning_rate,
            "max_bin": max_bin,
        }
        scores = np.asarray(context.prepared["scores"])
        # The models' memos hold values keyed by all they depend on: a fit's budget path, which
        # asks for budget after budget, reuses them (`costfs.methods._kept`).
        models = kept_models.get(
            digest(X, y, scores, **settings),
            lambda: FeatBoostModels(X, y, equal_weight_importance=scores, **settings),
        )

        def run(xi: float) -> list[FeatBoostPath]:
            """The paths of one xi, budget after budget: they share their steps until a budget
            binds, and one after the other the memos serve all but the first."""
            return [
                featboost_path(
                    models,
                    costs,
                    budget,
                    xi,
                    n_candidates=n_candidates,
                    epsilon=epsilon,
                    max_features_selected=max_features_selected,
                    reset_rule=reset_rule,
                )
                for budget in budgets
            ]

        # The values of xi on the job's threads, sharing the memos: a value memoised is the one
        # any path would compute (each memo is keyed by all its value depends on), so which
        # thread computes it first cannot change a selection.
        with ThreadPoolExecutor(max_workers=max(1, min(context.n_jobs, len(grid)))) as pool:
            paths_per_xi = list(pool.map(run, grid))
        records = []
        for xi, paths in zip(grid, paths_per_xi, strict=True):
            for budget, path in zip(budgets, paths, strict=True):
                features = np.sort(np.asarray(path.features, dtype=int))
                records.append(
                    {
                        "value": xi,
                        "budget": budget,
                        "features": features,
                        "unused_budget": float(budget - costs.total(features)),
                        "resets": path.resets,
                    }
                )
        return Selection(records)
