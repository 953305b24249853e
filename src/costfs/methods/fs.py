"""Random Forest forward selection (RF paper, section 2.4) under a budget.

Each step grows a forest on S + {j} for every feature j that still fits the budget and adds the
one with the smallest BCR (OOB error change over c_j^xi, `costfs.methods._bcr.step_ratio`); ties go
to the lower cost, then the lower index. S starts empty, with the training majority class's error,
and grows until no feature fits (no early stopping). A column constant on the training rows is
never a candidate: no tree can split on it, and by chance its forest (the majority vote of the
bootstrap samples) can beat a weak feature's.

Sharing work. A set's OOB error depends on the set only, under either kind of `forests`:
- "per_set": each set's forest is seeded from (seed, sorted set) and grown on the forest
  engine (oneDAL where it installs);
- "common" (the default; common random numbers, `costfs.engine.trees.CommonRandomForests`): tree t
  of every set's forest is grown from the run's t-th seed, on the same bootstrap sample, with
  the numba trees. Two candidates' errors then differ by their columns, not by their draws,
  and a forest of n trees is the first n trees of a larger one, so racing's small forests are
  the start of the large ones.
All (xi, budget) paths of one `select` call run in lockstep through one memo, so a forest is
grown once however many paths ask for it: paths of different budgets coincide until a budget
binds, paths of nearby xi often share their first steps, and each round's distinct forests are
grown together, `n_jobs` threads at a time.

Bounding. A candidate's OOB error cannot fall below 0, so its BCR cannot fall below that of
a step to error 0 at its cost: the BCR grows with the error change at a fixed cost. A step
grows its candidates in chunks, those with the best such bound first, and drops every
candidate whose bound is worse than the best BCR already found: it could neither win nor tie.
The chosen feature is the one the exhaustive step would choose, and the chunks do not depend
on the memo, so a path grows the same forests alone or beside others. At xi = 0 all bounds are
equal and nothing can be dropped; the larger xi, the more expensive candidates are dropped.

Racing (`racing=True`, the default) is successive halving over the candidates of a step.
With `n_trees` = 100 they are first scored by 6-tree forests, the best eighth (`RACING_KEEP`,
at least `RACING_MIN_SURVIVORS`) by 25-tree forests, and the best eighth of those by full
forests, bounded as above; only full forests decide the step and give the errors carried to the
next one. From 384 trees up the n_trees/16 and n_trees/4 levels pass on half as many in every
step (`SCREENED_KEEP`), the second at least `SCREENED_FINALISTS` = 2, and a screen comes first
in a step of more than 16 candidates (`SCREEN_KEEP`): with `n_trees` = 500 every candidate is
scored by 7-tree forests, their best quarter by 31-tree forests, the best sixteenth of the
step's candidates by 125-tree forests and the best 1/128 (at least 2) by full forests. Each
level ranks by the BCR against S's own forest of that level's size, so a level's ratios are on
one scale. Levels smaller than `RACING_MIN_TREES` are skipped; a step of at most 4 candidates
(2 from 384 trees up) goes straight to full forests. A candidate whose small forest ranks
badly by chance is lost: racing can pick another set than the exhaustive search. With common
random numbers the small forests rank more reliably, and cost less: they are grown on as the
larger ones.
"""

import logging
import math
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from costfs.core.costs import BUDGET_TOLERANCE, FeatureCosts
from costfs.core.progress import progress_bar
from costfs.core.seeds import derive_seed
from costfs.engine.forest import ENGINES, majority_class, oob_errors
from costfs.methods._base import (
    XI,
    Method,
    Parameter,
    Selection,
    boolean,
    choice,
    integer,
)
from costfs.methods._bcr import (
    POSITIVE_DELTA,
    RATIO_TOLERANCE,
    ratio_ranks,
    step_ratio,
)
from costfs.methods._kept import Kept, digest

RACING_ETA = 4
"""Each racing level grows RACING_ETA x the trees of the one before."""
RACING_LEVELS = 3
"""Forest sizes per step when racing, without the screen: n_trees / RACING_ETA**2,
n_trees / RACING_ETA, n_trees."""
RACING_KEEP = 8
"""Each of those levels but the last passes on the best 1/RACING_KEEP of the candidates the
level before it passed on (of the step's, for the first)."""
RACING_MIN_TREES = 4
"""Smaller racing levels are skipped: their OOB errors are mostly noise."""
RACING_MIN_SURVIVORS = 4
SCREEN_KEEP = 4
"""The screen, a level of n_trees / RACING_ETA**RACING_LEVELS trees before the others,
passes the best 1/SCREEN_KEEP of a step's candidates on. It runs only where it passes on more
than RACING_MIN_SURVIVORS: its small forests never choose the full forests' candidates."""
SCREEN_MIN_TREES = 6
"""The screen runs where it has at least this many trees (from 384 trees up)."""
SCREENED_KEEP = 2
"""Where forests are large enough for the screen, the levels after it pass on 1/SCREENED_KEEP
as many as without it (their minimums aside): the best 1/16 and 1/128 of the step's candidates,
not 1/8 and 1/64. Measured at 500 trees, test error does not change (design decisions, forward
selection)."""
SCREENED_FINALISTS = 2
"""The fewest candidates the n_trees / RACING_ETA level passes on to full forests from 384
trees up (RACING_MIN_SURVIVORS below)."""
FORESTS = ("per_set", "common")
CHUNK_PER_THREAD = 4
"""A bounded step grows this many candidates per thread (at least 8) before it drops again."""

log = logging.getLogger("costfs")

Evaluation = tuple[tuple[int, ...], int]
"""A forest to grow: (sorted feature set, number of trees)."""


@dataclass(frozen=True)
class Step:
    """One forward step: the feature added, its cost, the new set's OOB error and the BCR."""

    feature: int
    cost: float
    error: float
    ratio: float


@dataclass
class ForwardSearch:
    """The steps of every (xi, budget) path and the forests grown for them.

    `errors` maps each evaluation (sorted feature set, n_trees) to its OOB error. `fits` and
    `trees` count the forests grown (the empty set needs none) and their trees; `requested`
    counts the forests that separate runs per (xi, budget), each with its own memo, would grow;
    `bounded` counts the candidates the paths dropped by their bound without growing them.
    """

    paths: dict[tuple[float, float], list[Step]] = field(default_factory=dict)
    errors: dict[Evaluation, float] = field(default_factory=dict)
    fits: int = 0
    trees: int = 0
    requested: int = 0
    bounded: int = 0


def empty_set_error(y: np.ndarray) -> float:
    """MMCE of S = {}: predicting the training majority class on the training rows."""
    y = np.asarray(y)
    return float(np.mean(y != majority_class(y)))


class RacingLevel(NamedTuple):
    """One level of racing: its forests' trees, the share of the step's candidates it passes
    on (the best 1/share, and at least `passes_at_least`; 1 for full forests, which decide the
    step) and the most candidates at which it is skipped."""

    trees: int
    share: int
    passes_at_least: int
    skipped_up_to: int


def racing_schedule(n_trees: int, racing: bool) -> list[RacingLevel]:
    """Racing's levels, smallest first, ending with full forests."""
    full = RacingLevel(n_trees, 1, 1, 0)
    if not racing:
        return [full]
    screen = n_trees // RACING_ETA**RACING_LEVELS
    screened = screen >= SCREEN_MIN_TREES
    schedule, share = [], SCREENED_KEEP if screened else 1
    for level in range(RACING_LEVELS - 1, 0, -1):
        trees = n_trees // RACING_ETA**level
        if trees >= RACING_MIN_TREES:
            share *= RACING_KEEP
            at_least = SCREENED_FINALISTS if screened and level == 1 else RACING_MIN_SURVIVORS
            schedule.append(RacingLevel(trees, share, at_least, at_least))
    if screened:
        skipped_up_to = SCREEN_KEEP * RACING_MIN_SURVIVORS
        schedule.insert(0, RacingLevel(screen, SCREEN_KEEP, RACING_MIN_SURVIVORS, skipped_up_to))
    return [*schedule, full]


def _best_first(ratios: np.ndarray, costs: np.ndarray, features: np.ndarray) -> np.ndarray:
    """Positions by increasing BCR; ties (`ratio_ranks`) by lower cost, then lower index."""
    return np.lexsort((features, costs, ratio_ranks(ratios)))


class _ForwardPath:
    """One (xi, budget) path; `requests` is a coroutine that yields the evaluations it needs
    next (per step: one request per racing level before the last, possibly empty, then the
    chunks of the bounded last level) and is sent a mapping (the memo) that holds their errors."""

    def __init__(self, costs, budget, xi, positive_delta, empty_error, schedule, chunk, constant):
        self.feature_costs = costs
        self.constant = constant
        # What each feature would add to the current set (its group's shared cost included
        # until the group is paid): updated after every step.
        self.costs = costs.standalone()
        self.budget = budget
        self.xi = xi
        self.positive_delta = positive_delta
        self.schedule = schedule
        self.chunk = chunk
        self.selected: list[int] = []
        self.spent = 0.0
        self.error = empty_error
        self.steps: list[Step] = []
        # Forests a run of this path alone would grow: its candidates. A racing baseline S is
        # never new to the path, having been a candidate that survived every level before.
        self.requested = 0
        self.bounded = 0

    def candidate_keys(self, candidates: np.ndarray, trees: int) -> list[Evaluation]:
        return [(tuple(sorted((*self.selected, int(j)))), trees) for j in candidates]

    def ratios(self, errors: np.ndarray, base_error: float, candidates: np.ndarray) -> np.ndarray:
        return step_ratio(errors - base_error, self.costs[candidates], self.xi, self.positive_delta)

    def bounded_errors(
        self, candidates: np.ndarray, trees: int
    ) -> Generator[list[Evaluation], dict[Evaluation, float], np.ndarray]:
        """The OOB errors of the step's candidates that could be chosen; NaN for the ones
        dropped because even an error of 0 would not give them the best BCR."""
        keys = self.candidate_keys(candidates, trees)
        bounds = self.ratios(np.zeros(candidates.size), self.error, candidates)
        errors = np.full(candidates.size, np.nan)
        pending = _best_first(bounds, self.costs[candidates], candidates)
        while True:
            grown = ~np.isnan(errors)
            if grown.any():
                best = self.ratios(errors[grown], self.error, candidates[grown]).min()
                # A bound tied with the best ratio can still win on cost or index.
                keep = bounds[pending] <= best + RATIO_TOLERANCE * abs(best)
                self.bounded += int(np.count_nonzero(~keep))
                pending = pending[keep]
            if pending.size == 0:
                return errors
            # Equal bounds cannot drop one another: grow them all at once.
            size = pending.size if bounds[pending].min() == bounds[pending].max() else self.chunk
            chunk, pending = pending[:size], pending[size:]
            self.requested += chunk.size
            grown_errors = yield [keys[i] for i in chunk]
            errors[chunk] = [grown_errors[keys[i]] for i in chunk]

    def requests(self) -> Generator[list[Evaluation], dict[Evaluation, float], list[Step]]:
        last_level = len(self.schedule) - 1
        while True:
            fits = self.spent + self.costs <= self.budget + BUDGET_TOLERANCE
            fits[self.selected] = False
            fits[self.constant] = False
            candidates = np.flatnonzero(fits)
            if candidates.size == 0:
                return self.steps
            base = tuple(sorted(self.selected))
            step_candidates = candidates.size
            for level, (trees, share, passes_at_least, skipped_up_to) in enumerate(self.schedule):
                if level < last_level and candidates.size <= skipped_up_to:
                    yield []
                    continue
                if level == last_level:
                    candidate_errors = yield from self.bounded_errors(candidates, trees)
                    base_error = self.error
                else:
                    keys = self.candidate_keys(candidates, trees)
                    self.requested += len(keys)
                    errors = yield [*keys, (base, trees)]
                    base_error = errors[base, trees]
                    candidate_errors = np.array([errors[key] for key in keys])
                ratios = self.ratios(candidate_errors, base_error, candidates)
                ratios[np.isnan(ratios)] = np.inf
                order = _best_first(ratios, self.costs[candidates], candidates)
                if level < last_level:
                    keep = max(passes_at_least, math.ceil(step_candidates / share))
                    candidates = np.sort(candidates[order[:keep]])
            best = order[0]
            feature = int(candidates[best])
            self.selected.append(feature)
            self.spent += self.costs[feature]
            self.error = float(candidate_errors[best])
            self.steps.append(
                Step(feature, float(self.costs[feature]), self.error, float(ratios[best]))
            )
            if self.feature_costs.has_groups:
                paid = np.zeros(self.costs.size, dtype=bool)
                paid[self.selected] = True
                self.costs = self.feature_costs.added(paid, np.arange(self.costs.size))


def _update_counts(search: ForwardSearch, paths) -> None:
    search.requested = sum(path.requested for path in paths)
    search.bounded = sum(path.bounded for path in paths)


def forward_paths(
    X: np.ndarray,
    y: np.ndarray,
    costs: np.ndarray,
    budgets: Sequence[float],
    grid: Sequence[float],
    *,
    seed: int,
    n_trees: int,
    racing: bool,
    forests: str,
    positive_delta: str,
    n_jobs: int = 1,
    engine: str = "auto",
    known_errors: dict[Evaluation, float] | None = None,
) -> ForwardSearch:
    """The forward steps of every (xi in grid, budget) path, grown through one memo; `forests`
    is "per_set" (each set's forest seeded from the set, on the forest `engine`) or "common"
    (`costfs.engine.trees.CommonRandomForests`, seeded from the run). `known_errors`, the
    memo of an earlier call on the same data, seed, `forests` and engine, is read and added
    to: its forests are not grown again."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    costs = FeatureCosts.of(costs)
    schedule = racing_schedule(n_trees, racing)
    empty_error = empty_set_error(y)
    # No tree can split on a column constant on the training rows: it would only take budget.
    constant = np.ptp(X, axis=0) == 0 if X.shape[0] else np.zeros(X.shape[1], dtype=bool)
    errors = {} if known_errors is None else known_errors
    errors.update({((), level.trees): empty_error for level in schedule})
    search = ForwardSearch(errors=errors)
    if forests == "common":
        from costfs.engine.trees import CommonRandomForests

        common = CommonRandomForests(X, y, seed=derive_seed(seed, "fs", "common"), n_jobs=n_jobs)

        def grow(evaluations: list[Evaluation]) -> tuple[list[float], int]:
            """The evaluations' OOB errors and the number of trees grown for them."""
            trees_before = common.trees_grown
            return common.oob_errors(evaluations), common.trees_grown - trees_before
    else:

        def grow(evaluations: list[Evaluation]) -> tuple[list[float], int]:
            """The evaluations' OOB errors and the number of trees grown for them."""
            errors = oob_errors(
                X,
                y,
                [features for features, _ in evaluations],
                n_trees=[trees for _, trees in evaluations],
                seeds=[derive_seed(seed, "fs", *features) for features, _ in evaluations],
                n_jobs=n_jobs,
                engine=engine,
            )
            return errors, sum(trees for _, trees in evaluations)

    chunk = max(8, CHUNK_PER_THREAD * n_jobs)
    paths = {
        (xi, budget): _ForwardPath(
            costs, budget, xi, positive_delta, empty_error, schedule, chunk, constant
        )
        for xi in grid
        for budget in budgets
    }
    coroutines = {key: path.requests() for key, path in paths.items()}
    requests: dict[tuple[float, float], list[Evaluation]] = {}
    # What every path is sent: nothing to start it, then the memo, which holds the errors of
    # whatever it asked for (a dict of each path's own answers cost a lookup per evaluation).
    answers: dict[Evaluation, float] | None = None
    logged_step = fits_logged = requested_logged = 0
    with progress_bar("forward selection", total=len(paths), unit="path") as shown:
        while True:
            for key in list(coroutines):
                try:
                    requests[key] = coroutines[key].send(answers)
                except StopIteration as finished:
                    search.paths[key] = finished.value
                    shown.update(1)
                    del coroutines[key]
                    requests.pop(key, None)
            if not coroutines:
                break
            shown.set_postfix_str(f"{search.fits} forests grown")
            active = [paths[key] for key in coroutines]
            # Bounded steps take a path's own number of rounds: report when the furthest advances.
            step = max(len(path.steps) for path in active)
            # Each evaluation looked up, not `wanted - search.errors.keys()`: that copies and
            # rehashes the whole memo every round, most of the steps' own time on 200 features.
            missing = sorted(
                {
                    evaluation
                    for evaluations in requests.values()
                    for evaluation in evaluations
                    if evaluation not in search.errors
                }
            )
            if missing:
                new_errors, trees = grow(missing)
                search.errors.update(zip(missing, new_errors, strict=True))
                search.fits += len(missing)
                search.trees += trees
            # Logged once this round's forests are grown, so that the requests counted so far
            # are all answered: a path counts its requests when it makes them.
            if step > logged_step:
                _update_counts(search, paths.values())
                sizes = [len(path.selected) for path in active]
                remaining = [path.budget - path.spent for path in active]
                log.info(
                    "FS step %d: %d of %d paths active, |S| = %d-%d, remaining budget %.3g-%.3g; "
                    "%d forests grown, %d more served by the memo (total %d grown, %d saved by the "
                    "memo, %d candidates dropped by the bound)",
                    step,
                    len(active),
                    len(paths),
                    min(sizes),
                    max(sizes),
                    min(remaining),
                    max(remaining),
                    search.fits - fits_logged,
                    search.requested - requested_logged - (search.fits - fits_logged),
                    search.fits,
                    search.requested - search.fits,
                    search.bounded,
                )
                logged_step, fits_logged, requested_logged = step, search.fits, search.requested
            answers = search.errors
    _update_counts(search, paths.values())
    log.info(
        "FS done: %d paths, %d forests grown for %d requested evaluations (%d saved by the memo); "
        "%d candidates dropped by the bound",
        len(search.paths),
        search.fits,
        search.requested,
        search.requested - search.fits,
        search.bounded,
    )
    return search


kept_errors = Kept()
"""The forests' OOB errors of the last few fits (`costfs.methods._kept`)."""


class ForwardSelector(Method):
    summary = (
        "Random Forest forward selection by ΔOOB-MMCE / c_j^ξ; forests on common random numbers "
        "(or seeded per set), racing (successive halving) over each step's candidates, and one "
        "memo for the whole ξ grid and all budgets of a run"
    )
    hyperparameter = XI
    parameters = (
        Parameter(
            "n_trees",
            integer(),
            500,
            "trees of each internal forest (OOB error of S ∪ {j})",
        ),
        Parameter(
            "racing",
            boolean(),
            True,
            "successive halving: candidates first scored with n_trees/16 trees, only the best "
            "eighth get n_trees/4 and the best eighth of those n_trees; from 384 trees up, "
            "n_trees/64-tree forests first pass the best quarter on to n_trees/16 in a step of "
            "more than 16 candidates, and in every step n_trees/16 and n_trees/4 pass on half as "
            "many, the latter at least 2 (may select another set)",
        ),
        Parameter(
            "forests",
            choice(*FORESTS),
            "common",
            "`per_set`: each set's forest seeded from the set (forest engine); `common`: tree t "
            "of every set's forest on the run's t-th bootstrap sample (numba trees, forests "
            "grown on as racing asks for more trees)",
        ),
        POSITIVE_DELTA,
    )
    engines = ("numba", *ENGINES)
    parallel_selection = True
    missing_values = (
        "native: the forests (scikit-learn's where X misses values, numba's with common "
        "random numbers) send a missing value to the side that lowers impurity"
    )
    colour = "#D55E00"
    exact_path = True

    def stage_engines(self, stage, values):
        return ("numba",) if values["forests"] == "common" else ENGINES

    def path_is_exact(self, values):
        # Racing keeps a share of each step's candidates: fewer affordable candidates keep
        # fewer survivors, so a smaller budget can lose the larger budget's choice.
        return not values["racing"]

    def select(
        self, X, y, costs, budgets, grid, context, *, n_trees, racing, forests, positive_delta
    ):
        # A set's OOB error depends on the data, the seed and the forests only: a fit's budget
        # path, which asks for budget after budget, grows each forest once.
        key = digest(X, y, seed=context.seed, forests=forests, engine=context.engine)
        search = forward_paths(
            X,
            y,
            costs,
            budgets,
            grid,
            seed=context.seed,
            n_trees=n_trees,
            racing=racing,
            forests=forests,
            positive_delta=positive_delta,
            n_jobs=context.n_jobs,
            engine=context.engine,
            known_errors=kept_errors.get(key, dict),
        )
        return Selection(
            [
                {
                    "value": xi,
                    "budget": budget,
                    "features": np.sort(
                        np.array([step.feature for step in search.paths[xi, budget]], dtype=int)
                    ),
                }
                for xi in grid
                for budget in budgets
            ]
        )
