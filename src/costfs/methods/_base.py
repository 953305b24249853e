"""The method contract: what one file under `costfs/methods/` declares and provides.

A method is one class in its own module `costfs/methods/<name>.py`, a subclass of `Method`
whose scikit-learn selector `costfs.methods.load_selector` makes (with
`costfs.methods._selector.CostConstrainedSelector`); the module's name is the method's name,
its config key (`methods.<name>`), its workflow wildcard and the `method` column of the
results. The class declares, once:

- `summary`: one line for the documentation tables;
- `hyperparameter`: the `Hyperparameter` the tuned strategy varies (`XI` for the benefit-cost
  ratio methods), or None for a method with one fixed configuration;
- `parameters`: its own `Parameter`s, each with type, default, allowed values, meaning and the
  stage that uses it (`prepare`, `select` or both);
- `engines`: the Random Forest engines its selection's forests can run on, preferred first
  (empty: it grows no forest), and `preparation_engines` where `prepare`'s forests differ;
- `parallel_selection`: whether its selection runs many pieces of work side by side (forests,
  FeatBoost's paths, `l1_cost`'s paths in worker processes) and so wants several threads in
  the workflow; `parallel_preparation` the
  same for `prepare` (its forests). Either holds only where the result does not depend on
  the threads (the conformance suite runs every method on one thread and on two);
- `missing_values`: how it handles missing values (NaN) in X: "native" where its model routes
  them itself, else the one declared rule it applies;
- `colour`: its colour in the figures (a stable colour from its name when not given);
- `multi_class`: whether it handles targets of more than two classes (a method that does not
  raises a `DataError` naming itself on such a target, never a silent binary result).

and implements `select` (and, where it has a cost-free part, `prepare`), each receiving the
data, its stage's declared parameters and a `Context` (seed, threads, engine, the prepared
cost-free part). They are the method's algorithm: they read no attribute of the estimator, whose
`fit` passes its own parameters to them. Optional hooks with defaults: `evaluation_columns`
(extra columns of the method's own model on the test rows), `schedule` (a model schedule, one
cost-accuracy curve per run) and `choose_record` (the selector's pick where a method returns
several records per hyperparameter value and budget).

From the declaration come the config schema's `methods` part and the rows of config/README.md
(`costfs.study.method_docs`, kept current by a test), the workflow's jobs and their parameters,
and the selector's keyword-only `__init__` and numpydoc docstring, which list exactly the
declared parameters.
"""

import functools
import operator
import textwrap
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

from costfs.core.errors import DataError
from costfs.core.schema import explain_error, validator
from costfs.engine.forest import (
    ENGINES,
    TREE_ENGINES,
    class_count,
    engine_available,
    resolve_engine,
)

if TYPE_CHECKING:
    from costfs.core.costs import FeatureCosts

Stage = Literal["prepare", "select", "both"]

_SPARE_COLOURS = ("#44AA99", "#AA4499", "#999933", "#117733", "#661100", "#6699CC", "#AA4466")


@dataclass(frozen=True)
class Parameter:
    """One parameter of a method, declared once.

    `schema` is the JSON Schema of its value (see the constructors below); `stage` says which
    part of the method uses it: the cost-free `prepare` (computed once per data set), `select`,
    or both. Only the parameters of its stage reach a workflow job, so changing a selection
    parameter never recomputes the cost-free part.
    """

    name: str
    schema: Mapping[str, Any]
    default: Any
    help: str
    stage: Stage = "select"

    def json_schema(self) -> dict:
        return {**self.schema, "default": self.default, "description": self.help}


@dataclass(frozen=True)
class Hyperparameter:
    """The parameter a method's tuned strategy picks from a grid by OOB error.

    `xi`, the benefit-cost ratio exponent, has the strategies agnostic (xi = 0), simple
    (xi = 1) and tuned, and takes its grid from the study's `xi_grid` unless the method gives
    its own under `methods.<name>.xi_grid` (the paper runs forward selection at xi = 0 and 1
    only); any other hyperparameter has its grid under `methods.<name>.<hyperparameter>_grid`
    and the strategy tuned. `schema` is the JSON Schema of one value: the selector's value and
    every value of a grid are checked against it.
    """

    name: str
    schema: Mapping[str, Any]
    default: float
    help: str
    grid: tuple[float, ...] = ()
    """Default grid (a method's own hyperparameter); `xi` defaults to the study's `xi_grid`."""

    @property
    def grid_key(self) -> str:
        return f"{self.name}_grid"


# Constructors of parameter schemas.


def integer(minimum: int = 1) -> dict:
    return {"type": "integer", "minimum": minimum}


def number(*, minimum=None, exclusive_minimum=None, maximum=None, exclusive_maximum=None) -> dict:
    schema = {"type": "number"}
    for key, value in (
        ("minimum", minimum),
        ("exclusiveMinimum", exclusive_minimum),
        ("maximum", maximum),
        ("exclusiveMaximum", exclusive_maximum),
    ):
        if value is not None:
            schema[key] = value
    return schema


def boolean() -> dict:
    return {"type": "boolean"}


def choice(*values: str) -> dict:
    return {"enum": list(values)}


def numbers(minimum: float = 0) -> dict:
    return {
        "type": "array",
        "items": {"type": "number", "minimum": minimum},
        "minItems": 1,
        "uniqueItems": True,
    }


def positive_integers() -> dict:
    return {
        "type": "array",
        "items": {"type": "integer", "minimum": 1},
        "minItems": 1,
        "uniqueItems": True,
    }


def or_null(schema: Mapping) -> dict:
    return {"anyOf": [dict(schema), {"type": "null"}]}


def or_value(schema: Mapping, value: str) -> dict:
    return {"anyOf": [dict(schema), {"const": value}]}


XI = Hyperparameter(
    "xi",
    number(minimum=0),
    default=1.0,
    help="benefit-cost trade-off: 0 ignores costs except as the constraint, larger favours "
    "cheap features",
)


_JSON_TYPES = {"integer": int, "number": float, "boolean": bool, "string": str, "null": type(None)}


def schema_annotation(schema: Mapping) -> Any:
    """The Python type of a parameter schema's values, for the selectors' signatures."""
    if "anyOf" in schema:
        return functools.reduce(operator.or_, (schema_annotation(s) for s in schema["anyOf"]))
    if "enum" in schema or "const" in schema:
        return Literal[tuple(schema.get("enum", [schema.get("const")]))]
    if schema.get("type") == "array":
        return tuple[schema_annotation(schema["items"]), ...]
    return _JSON_TYPES[schema["type"]]


SELECTOR_ANNOTATIONS = {
    "feature_costs": "ArrayLike | Mapping[str, float] | None",
    "feature_groups": "Mapping[str, str] | Sequence[str | None] | None",
    "group_costs": "Mapping[str, float] | None",
    "budget": float,
    "path_budgets": "Sequence[float] | None",
    "random_state": "int | np.random.RandomState | None",
    "precomputed": "dict[str, np.ndarray] | None",
    "n_jobs": int,
    "engine": Literal["auto", "sklearnex", "sklearn"],
}
"""Annotations of the selector parameters every method shares."""


def describe_schema(schema: Mapping, *, plural: bool = False) -> str:
    """A short human reading of a parameter schema, for the documentation tables."""
    if "anyOf" in schema:
        return " or ".join(describe_schema(part) for part in schema["anyOf"])
    if "enum" in schema:
        return " or ".join(f"`{value}`" for value in schema["enum"])
    if "const" in schema:
        return f"`{schema['const']}`"
    kind = schema.get("type")
    if kind == "array":
        return f"list of {describe_schema(schema['items'], plural=True)}"
    bounds = []
    for key, sign in (
        ("minimum", "≥"),
        ("exclusiveMinimum", ">"),
        ("maximum", "≤"),
        ("exclusiveMaximum", "<"),
    ):
        if key in schema:
            bounds.append(f"{sign} {schema[key]:g}")
    return " ".join([f"{kind}s" if plural else kind, *bounds])


@dataclass
class Selection:
    """What `select` returns: one record per (hyperparameter value, budget) and the arrays the
    method keeps besides (e.g. BudgetRF's forests, msB's model schedule)."""

    records: list[dict]
    """Keys `value` (the hyperparameter value; NaN without one), `budget`, `features` (sorted
    column indices) and any method-specific columns (numbers, None or strings: the columns of
    the selection table, `costfs.core.columns.value_column`)."""
    artifacts: dict[str, np.ndarray] = field(default_factory=dict)
    fill_order: np.ndarray | None = None
    """Where every budget is filled from one order (the filters, a ranking): that order, from
    which the budget path is read directly (`path_steps`); not kept with the results."""


@dataclass(frozen=True)
class Context:
    """What one call of `prepare` or `select` runs with besides the data and the declared
    parameters."""

    seed: int
    """Seeds every random draw of the call."""
    n_jobs: int = 1
    """Threads the call may use; no result depends on them."""
    engine: str = "none"
    """The Random Forest engine of the stage's forests (`Method.engine_for`); "none" for a
    stage that grows none."""
    prepared: Mapping[str, np.ndarray] | None = None
    """`select` only: the result of `prepare` on the same (X, y); None for a method without a
    cost-free part."""


def stable_colour(name: str) -> str:
    """A colour from a name: the same whatever other methods a study has."""
    return _SPARE_COLOURS[zlib.crc32(name.encode()) % len(_SPARE_COLOURS)]


class Method:
    """The workflow's face of a method: its declaration and its algorithm. Every method's
    class is one, and its scikit-learn selector (`costfs.methods.load_selector`) too."""

    name: ClassVar[str]
    """Set from the module's name: file name = config key = wildcard = `method` column."""
    summary: ClassVar[str] = ""
    hyperparameter: ClassVar[Hyperparameter | None] = None
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    engines: ClassVar[tuple[str, ...]] = ()
    """Random Forest engines the method's selection forests run on, preferred first (the
    engine under `auto` is the first that installs); empty: selection grows no forest."""
    preparation_engines: ClassVar[tuple[str, ...] | None] = None
    """The same for the forests of `prepare`, where they differ (None: `engines`)."""
    parallel_selection: ClassVar[bool] = False
    parallel_preparation: ClassVar[bool] = False
    missing_values: ClassVar[str]
    """How the method handles missing values in X, for the documentation (required)."""
    colour: ClassVar[str | None] = None
    multi_class: ClassVar[bool] = True
    exact_path: ClassVar[bool] = False
    """Whether the set at a budget depends on the budget only through the budget path (see
    `path_is_exact`); False: the path is read over a grid of budgets (`path_budgets`)."""

    # Derived from the subclass when it is defined.
    has_preparation: ClassVar[bool]
    has_schedule: ClassVar[bool]
    all_engines: ClassVar[tuple[str, ...]]
    """Every engine some forest of the method can run on."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        module = cls.__module__.rsplit(".", 1)[-1]
        if module.startswith("_"):
            return  # a base class of the contract, not a method
        cls.name = module
        cls.has_preparation = cls.prepare is not Method.prepare
        cls.has_schedule = cls.schedule is not Method.schedule
        names = [parameter.name for parameter in cls.parameters]
        if len(set(names)) != len(names):
            raise TypeError(f"method {cls.name}: a parameter is declared twice: {names}")
        if not getattr(cls, "missing_values", ""):
            raise TypeError(f"method {cls.name}: declare how it handles missing values")
        if cls.preparation_engines is None:
            cls.preparation_engines = cls.engines
        cls.all_engines = tuple(dict.fromkeys(cls.engines + cls.preparation_engines))
        unknown = set(cls.engines + cls.preparation_engines) - set(ENGINES + TREE_ENGINES)
        if unknown:
            raise TypeError(f"method {cls.name}: unknown engines {sorted(unknown)}")

    # The method's work.

    def prepare(self, X: np.ndarray, y: np.ndarray, context: Context, **parameters) -> dict:
        """The cost-free part, computed once per data set and reused for every cost vector,
        budget and hyperparameter value: a dict of arrays. Receives the preparation
        parameters. The default: no cost-free part."""
        raise NotImplementedError(f"method {self.name} has no cost-free preparation")

    def select(
        self,
        X: np.ndarray,
        y: np.ndarray,
        costs: "FeatureCosts | np.ndarray",
        budgets: Sequence[float],
        grid: Sequence[float],
        context: Context,
        **parameters,
    ) -> Selection:
        """The selection for every (value in `grid`, budget); `grid` is empty for a method
        without a hyperparameter. `costs` are the features' costs, with any shared-cost groups
        (`FeatureCosts.of(costs)` reads a plain array too): a selection's true cost,
        `costs.total(features)`, must fit its budget. Receives the selection parameters;
        `context.prepared` is the result of `prepare` on the same (X, y)."""
        raise NotImplementedError

    def prepare_and_select(
        self,
        X: np.ndarray,
        y: np.ndarray,
        costs: "FeatureCosts | np.ndarray",
        budgets: Sequence[float],
        grid: Sequence[float],
        *,
        seed: int,
        n_jobs: int = 1,
        engine: str = "auto",
        prepared: dict | None = None,
        source: str = "parameters",
        **values,
    ) -> tuple[dict | None, Selection]:
        """`prepare` (unless `prepared` is given) and `select` in one process, with the
        declared defaults for the parameters not in `values` and each stage on its engine for
        the study's `engine`: the cost-free part and the selection. The parameters and every
        value of `grid` are checked against their declaration first (errors name `source`)."""
        values = {**self.defaults(), **values}
        self.check_parameters(values, source)
        if self.hyperparameter is not None:
            for value in grid:
                self.check_parameters({self.hyperparameter.name: value}, source)
        self.check_target(y)
        if prepared is None and self.has_preparation:
            prepared = self.prepare(
                X,
                y,
                Context(seed, n_jobs, self.engine_for(engine, stage="prepare", values=values)),
                **self.stage_parameters(values, "prepare"),
            )
        selection = self.select(
            X,
            y,
            costs,
            budgets,
            grid,
            Context(seed, n_jobs, self.engine_for(engine, values=values), prepared),
            **self.stage_parameters(values, "select"),
        )
        return prepared, selection

    def check_target(self, y: np.ndarray, source: str = "y") -> None:
        """Raises `DataError` where the method cannot handle the number of classes of the
        class codes `y`."""
        n_classes = class_count(y)
        if n_classes > 2 and not self.multi_class:
            raise DataError(
                f"method {self.name} handles two classes only, but {source} has {n_classes}; "
                "map the labels to two classes (positive_class) or choose another method"
            )

    # Optional hooks.

    def evaluation_columns(self, selection, artifacts, X_test, y_test, costs):
        """Extra columns of `runs.parquet` from the method's own model on the test rows, one
        row per row of `selection` (the selection table, a pyarrow Table), as a mapping of
        column names to sequences (a DataFrame is one). The default: none."""
        return None

    def choose_record(self, records: Sequence[dict]) -> dict:
        """The selector's result among the records of one hyperparameter value and budget: a
        method that also tunes a parameter over a grid of its own (BudgetRF's cost exponents)
        returns one record per grid point and picks here. The default: the only record."""
        (record,) = records
        return record

    def path_is_exact(self, values: Mapping[str, Any]) -> bool:
        """Whether, with the parameters `values`, the method's set at a budget is constant
        from its own true cost up to that budget, so that its budget path is exact
        (`costfs.methods._path`); a conformance test holds every method to its answer. The
        default: `exact_path`."""
        return self.exact_path

    def path_steps(
        self, selection: Selection, costs: "FeatureCosts"
    ) -> list[tuple[float, dict]] | None:
        """The whole budget path up to the largest budget asked for, read off one selection,
        as (true cost, record) pairs, each set from its own true cost on, where the selection
        holds it (a fill order; msB's model schedule); None: found by asking for budgets."""
        if selection.fill_order is None:
            return None
        # Here: `_path` imports pandas, which a method's stage job may not need.
        from costfs.methods._path import fill_path

        budget = max(float(record["budget"]) for record in selection.records)
        value = selection.records[0]["value"]
        return [
            (cost, {"value": value, "budget": cost, "features": features})
            for cost, features in fill_path(selection.fill_order, costs, budget)
        ]

    def schedule(self, artifacts: Mapping[str, np.ndarray]):
        """The model schedule (a cost-accuracy curve) kept in a run's artifacts, as a table
        with columns `cost`, `oob_mmce`, `n_features`, `features`, `sequence`; only for
        methods that keep one (`has_schedule`)."""
        raise NotImplementedError(f"method {self.name} keeps no model schedule")

    # What the declaration gives.

    @property
    def strategies(self) -> tuple[str, ...]:
        if self.hyperparameter is None:
            return ("fixed",)
        if self.hyperparameter.name == "xi":
            return ("agnostic", "simple", "tuned")
        return ("tuned",)

    def figure_colour(self) -> str:
        return self.colour or stable_colour(self.name)

    def stage_parameters(self, values: Mapping[str, Any], stage: str) -> dict:
        """The declared parameters of `stage` ('prepare' or 'select') out of `values`, with
        the defaults for those not given."""
        return {
            parameter.name: values.get(parameter.name, parameter.default)
            for parameter in self.parameters
            if parameter.stage in (stage, "both")
        }

    @classmethod
    def defaults(cls) -> dict:
        return {parameter.name: parameter.default for parameter in cls.parameters}

    def stage_engines(self, stage: str, values: Mapping[str, Any]) -> tuple[str, ...]:
        """The engines `stage`'s forests can run on with the parameters `values`, preferred
        first; a method whose forests depend on a parameter narrows its `engines` here."""
        return self.preparation_engines if stage == "prepare" else self.engines

    def engine_for(
        self, preference: str, stage: str = "select", values: Mapping[str, Any] | None = None
    ) -> str:
        """The engine the forests of `stage` ("prepare" or "select") run on with parameters
        `values` (defaults where not given) when the study asks for `preference`: under `auto`
        the first of `stage_engines` that installs, else the engine asked for where the stage
        supports it, else the stage's first; "none" without forests."""
        engines = self.stage_engines(stage, {**self.defaults(), **(values or {})})
        if not engines:
            return "none"
        if preference == "auto":
            return next(engine for engine in engines if engine_available(engine))
        engine = resolve_engine(preference)
        return engine if engine in engines else engines[0]

    def value_schemas(self) -> dict[str, Mapping[str, Any]]:
        """The JSON Schema of every declared parameter's value and of one hyperparameter value."""
        schemas = {parameter.name: parameter.schema for parameter in self.parameters}
        if self.hyperparameter is not None:
            schemas[self.hyperparameter.name] = self.hyperparameter.schema
        return schemas

    def check_parameters(self, values: Mapping[str, Any], source: str) -> None:
        """Raises `DataError` naming the parameter, its value and what is allowed; `values`
        may hold the hyperparameter's value too."""
        schemas = self.value_schemas()
        for name, value in values.items():
            errors = list(validator(schemas[name]).iter_errors(_plain(value)))
            if errors:
                raise DataError(f"{source}: {explain_error(errors[0], name, noun='parameter')}")

    @classmethod
    def selector_annotation(cls, key: str) -> Any:
        """The type annotation of selector parameter `key`."""
        if key in SELECTOR_ANNOTATIONS:
            return SELECTOR_ANNOTATIONS[key]
        if cls.hyperparameter is not None and key == cls.hyperparameter.name:
            return float | Literal["tuned"]
        (parameter,) = (parameter for parameter in cls.parameters if parameter.name == key)
        return schema_annotation(parameter.schema)

    @classmethod
    def selector_parameters(cls) -> dict[str, Any]:
        """The selector's parameters and their defaults, in signature order."""
        parameters: dict[str, Any] = {
            "feature_costs": None,
            "feature_groups": None,
            "group_costs": None,
            "budget": 1.0,
        }
        if cls.hyperparameter is not None:
            parameters[cls.hyperparameter.name] = cls.hyperparameter.default
        # Tuples: a scikit-learn default must be immutable.
        parameters.update(
            {
                name: tuple(value) if isinstance(value, list) else value
                for name, value in cls.defaults().items()
            }
        )
        parameters["path_budgets"] = None
        parameters["random_state"] = None
        if cls.has_preparation:
            parameters["precomputed"] = None
        parameters["n_jobs"] = 1
        if cls.all_engines:
            parameters["engine"] = "auto"
        return parameters

    @classmethod
    def selector_doc(cls, description: str | None) -> str:
        """The selector's numpydoc docstring: `description` (the class's own docstring, else
        the summary), then its parameters and fitted attributes from the declaration."""
        parameters = [
            (
                "feature_costs : array-like, mapping or None, default=None",
                "One cost >= 0 per column (0: free), in column order or keyed by column name; "
                "None: every feature costs 1 (the budget is then a number of features).",
            ),
            (
                "feature_groups : mapping, sequence or None, default=None",
                "Each grouped feature's group (keyed by column name, or one entry per column, "
                "None for no group); a group's shared cost is paid once, when its first "
                "feature is used.",
            ),
            ("group_costs : mapping or None, default=None", "Group -> shared cost (>= 0)."),
            ("budget : float, default=1.0", "The largest true cost of the selected features."),
        ]
        if cls.hyperparameter is not None:
            hyper = cls.hyperparameter
            parameters.append(
                (
                    f"{hyper.name} : {describe_schema(hyper.schema)} or 'tuned', "
                    f"default={hyper.default:g}",
                    f"{_sentence(hyper.help)} 'tuned': the value of the lowest refit OOB "
                    f"error over the tuning grid, in `{hyper.name}_`.",
                )
            )
        parameters += [
            (
                f"{parameter.name} : {describe_schema(parameter.schema)}, "
                f"default={parameter.default!r}",
                _sentence(parameter.help),
            )
            for parameter in cls.parameters
        ]
        parameters.append(
            (
                "path_budgets : sequence of float or None, default=None",
                "The budgets over which `path_` is read where the path is not exact "
                "(`path_exact_` False; an exact path needs none): None, the budget alone.",
            )
        )
        parameters.append(
            ("random_state : int, RandomState or None, default=None", "Seeds every random draw.")
        )
        if cls.has_preparation:
            parameters.append(
                (
                    "precomputed : dict or None, default=None",
                    "`precomputed_` of a fit on the same (X, y): changing the costs, the "
                    "budget or the hyperparameter then reuses the cost-free part.",
                )
            )
        parameters.append(("n_jobs : int, default=1", "Threads (no result depends on them)."))
        if cls.all_engines:
            engines = ", ".join(f"'{engine}'" for engine in ("auto", *cls.all_engines))
            parameters.append((f"engine : {{{engines}}}, default='auto'", "Forest engine."))
        attributes = [
            ("selected_features_ : ndarray of int", "Column indices of the features to buy."),
            ("total_cost_ : float", "Their true cost, each used group's shared cost once."),
            ("support_ : ndarray of bool", "The selected columns as a mask."),
            (
                "path_ : pandas.DataFrame",
                "The budget path up to `budget`: one row per set, by the budget from which "
                "it is chosen "
                "(`budget`, its true `cost`, `n_features`, the `features`, `added` and "
                "`dropped` by name, `feature_indices`, and the method's own columns).",
            ),
            (
                "path_exact_ : bool",
                "True: `path_` holds every budget at which the selection changes, and the "
                "selection at any budget is the row in force there; False: `path_` is read "
                "over `path_budgets` and the fit's budget.",
            ),
        ]
        if cls.hyperparameter is not None:
            attributes.append((f"{cls.hyperparameter.name}_ : float", "The value used."))
        attributes.append(
            (
                "precomputed_ : dict or None",
                "The cost-free part, to pass as `precomputed` (None for a method without one).",
            )
        )
        lines = [
            textwrap.fill((description or cls.summary).strip(), 88),
            "",
            f"The scikit-learn selector of method `{cls.name}` (costfs/methods/{cls.name}.py).",
        ]
        for title, entries in (("Parameters", parameters), ("Attributes", attributes)):
            lines += ["", title, "-" * len(title)]
            for head, text in entries:
                lines += [
                    head,
                    textwrap.fill(text, 88, initial_indent="    ", subsequent_indent="    "),
                ]
        return "\n".join(lines)


def _sentence(text: str) -> str:
    return f"{text[0].upper()}{text[1:]}{'' if text.endswith('.') else '.'}"


def _plain(value):
    """Python values for the JSON Schema check: lists for tuples and arrays, numbers for
    numpy scalars."""
    if isinstance(value, tuple | list | np.ndarray):
        return [_plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
