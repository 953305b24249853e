"""The method contract: what one file under `costfs/methods/` declares and provides.

A method is a subclass of `Method` in its own module `costfs/methods/<name>.py`; the module's
name is the method's name, its config key (`methods.<name>`), its workflow wildcard and the
`method` column of the results. The class declares, once:

- `summary`: one line for the documentation tables;
- `hyperparameter`: the `Hyperparameter` the tuned strategy varies (`XI` for the benefit-cost
  ratio methods), or None for a method with one fixed configuration;
- `parameters`: its own `Parameter`s, each with type, default, allowed values, meaning and the
  stage that uses it (`prepare`, `select` or both);
- `engines`: the Random Forest engines its selection's forests can run on, preferred first
  (empty: it grows no forest), and `preparation_engines` where `prepare`'s forests differ;
- `parallel_selection`: whether its selection runs many pieces of work side by side (forests,
  FeatBoost's paths) and so wants several threads in the workflow;
- `missing_values`: how it handles missing values (NaN) in X: "native" where its model routes
  them itself, else the one declared rule it applies;
- `colour`: its colour in the figures (a stable colour from its name when not given);
- `multi_class`: whether it handles targets of more than two classes (a method that does not
  raises a `DataError` naming itself on such a target, never a silent binary result).

and implements `select` (and, where it has a cost-free part, `prepare`). Optional hooks with
defaults: `evaluation_columns` (extra columns of the method's own model on the test rows),
`schedule` (a model schedule, one cost-accuracy curve per run) and `choose_record` (the
selector's pick where a method returns several records per hyperparameter value and budget).

From the declaration come the config schema's `methods` part and the rows of config/README.md
(`method_docs`, kept current by a test), the workflow's jobs and their parameters, and
the scikit-learn selector (`Method.selector`), whose keyword-only `__init__` lists exactly the
declared parameters and whose `fit` validates them.
"""

import functools
import inspect
import operator
import zlib
from collections.abc import Callable, Mapping, Sequence
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


def stable_colour(name: str) -> str:
    """A colour from a name: the same whatever other methods a study has."""
    return _SPARE_COLOURS[zlib.crc32(name.encode()) % len(_SPARE_COLOURS)]


class Method:
    """Base class of every method: subclass it once in `costfs/methods/<name>.py`."""

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
    missing_values: ClassVar[str]
    """How the method handles missing values in X, for the documentation (required)."""
    colour: ClassVar[str | None] = None
    multi_class: ClassVar[bool] = True
    selector_name: ClassVar[str]
    """Set by `selector`: the name of the scikit-learn selector in the `costfs` namespace."""

    # Derived from the subclass when it is defined.
    has_preparation: ClassVar[bool]
    has_schedule: ClassVar[bool]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.name = cls.__module__.rsplit(".", 1)[-1]
        cls.has_preparation = cls.prepare is not Method.prepare
        cls.has_schedule = cls.schedule is not Method.schedule
        names = [parameter.name for parameter in cls.parameters]
        if len(set(names)) != len(names):
            raise TypeError(f"method {cls.name}: a parameter is declared twice: {names}")
        if not getattr(cls, "missing_values", ""):
            raise TypeError(f"method {cls.name}: declare how it handles missing values")
        if cls.preparation_engines is None:
            cls.preparation_engines = cls.engines
        unknown = set(cls.engines + cls.preparation_engines) - set(ENGINES + TREE_ENGINES)
        if unknown:
            raise TypeError(f"method {cls.name}: unknown engines {sorted(unknown)}")

    # The method's work.

    def prepare(self, X, y, *, seed: int, n_jobs: int, engine: str, **parameters) -> dict:
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
        *,
        prepared: dict | None,
        seed: int,
        n_jobs: int,
        engine: str,
        **parameters,
    ) -> Selection:
        """The selection for every (value in `grid`, budget); `grid` is empty for a method
        without a hyperparameter. `costs` are the features' costs, with any shared-cost groups
        (`FeatureCosts.of(costs)` reads a plain array too): a selection's true cost,
        `costs.total(features)`, must fit its budget. Receives the selection parameters and
        `prepared`, the result of `prepare` on the same (X, y) (None for a method without
        one)."""
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
                seed=seed,
                n_jobs=n_jobs,
                engine=self.engine_for(engine, stage="prepare", values=values),
                **self.stage_parameters(values, "prepare"),
            )
        selection = self.select(
            X,
            y,
            costs,
            budgets,
            grid,
            prepared=prepared,
            seed=seed,
            n_jobs=n_jobs,
            engine=self.engine_for(engine, values=values),
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

    def defaults(self) -> dict:
        return {parameter.name: parameter.default for parameter in self.parameters}

    @property
    def all_engines(self) -> tuple[str, ...]:
        """Every engine some forest of the method can run on."""
        return tuple(dict.fromkeys(self.engines + self.preparation_engines))

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
    def selector(cls, name: str) -> Callable[[str], type]:
        """Declares the method's scikit-learn selector, named `name`, and returns the
        `__getattr__` of the method's module, which builds it on first use: importing
        scikit-learn takes about a second, which a stage job that never builds a selector
        should not pay. In the method's module: `__getattr__ = MyMethod.selector("MySelector")`.
        """
        cls.selector_name = name

        def module_attribute(attribute: str) -> type:
            if attribute == name:
                return cls().selector_class
            raise AttributeError(f"module {cls.__module__!r} has no attribute {attribute!r}")

        return module_attribute

    @property
    def selector_class(self) -> type:
        """The scikit-learn selector (built once per method).

        Its `__init__` takes keyword-only parameters: `feature_costs`, `budget`, the
        hyperparameter (if any), the declared parameters, `random_state`, `precomputed` (if
        the method has a cost-free part), `n_jobs` and `engine` (if it grows forests).
        """
        cls = type(self)
        if "_selector_class" not in cls.__dict__:
            cls._selector_class = self._build_selector()
        return cls._selector_class

    def _build_selector(self) -> type:
        from costfs.methods._selector import CostConstrainedSelector

        name = self.selector_name
        signature = inspect.Signature(
            [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + [
                inspect.Parameter(
                    key,
                    inspect.Parameter.KEYWORD_ONLY,
                    default=default,
                    annotation=self.selector_annotation(key),
                )
                for key, default in self.selector_parameters().items()
            ]
        )

        def __init__(self, **parameters):
            bound = signature.bind(self, **parameters)
            bound.apply_defaults()
            for key, value in list(bound.arguments.items())[1:]:
                setattr(self, key, value)

        __init__.__signature__ = signature
        __init__.__qualname__ = f"{name}.__init__"
        return type(
            name,
            (CostConstrainedSelector,),
            {
                "__init__": __init__,
                "__module__": type(self).__module__,
                "__qualname__": name,
                "__doc__": self.selector_doc(),
                "_method": self,
            },
        )

    def selector_annotation(self, key: str) -> Any:
        """The type annotation of selector parameter `key`."""
        if key in SELECTOR_ANNOTATIONS:
            return SELECTOR_ANNOTATIONS[key]
        if self.hyperparameter is not None and key == self.hyperparameter.name:
            return float | Literal["tuned"]
        (parameter,) = (parameter for parameter in self.parameters if parameter.name == key)
        return schema_annotation(parameter.schema)

    def selector_parameters(self) -> dict[str, Any]:
        """The selector's parameters and their defaults, in signature order."""
        parameters: dict[str, Any] = {
            "feature_costs": None,
            "feature_groups": None,
            "group_costs": None,
            "budget": 1.0,
        }
        if self.hyperparameter is not None:
            parameters[self.hyperparameter.name] = self.hyperparameter.default
        # Tuples: a scikit-learn default must be immutable.
        parameters.update(
            {
                name: tuple(value) if isinstance(value, list) else value
                for name, value in self.defaults().items()
            }
        )
        parameters["random_state"] = None
        if self.has_preparation:
            parameters["precomputed"] = None
        parameters["n_jobs"] = 1
        if self.all_engines:
            parameters["engine"] = "auto"
        return parameters

    def selector_doc(self) -> str:
        lines = [
            f"{self.summary}",
            "",
            f"The scikit-learn selector of method `{self.name}` (costfs/methods/{self.name}.py).",
            "",
            "Parameters (keyword-only):",
            "- feature_costs: one cost >= 0 per column (0: free; array in column order, or a "
            "mapping / Series keyed by column name); None: every feature costs 1",
            "- feature_groups: each grouped feature's group (mapping keyed by column name, or "
            "one entry per column, None for no group); a group's shared cost is paid once, when "
            "its first feature is used",
            "- group_costs: mapping group -> shared cost (>= 0)",
            "- budget: the largest summed cost of the selected features",
        ]
        if self.hyperparameter is not None:
            hyper = self.hyperparameter
            lines.append(
                f"- {hyper.name} (default {hyper.default:g}): {hyper.help}; or 'tuned': the "
                f"value of the lowest refit OOB error, in `{hyper.name}_`"
            )
        for parameter in self.parameters:
            lines.append(f"- {parameter.name} (default {parameter.default!r}): {parameter.help}")
        lines.append("- random_state: seeds every random draw of the method")
        if self.has_preparation:
            lines.append(
                "- precomputed: `precomputed_` of a fit on the same (X, y); changing the costs, "
                "the budget or the hyperparameter then reuses the cost-free part"
            )
        lines.append("- n_jobs: threads (the result does not depend on it)")
        if self.all_engines:
            lines.append(
                f"- engine: Random Forest engine, auto or one of {', '.join(self.all_engines)}"
            )
        return "\n".join(lines)


def _plain(value):
    """Python values for the JSON Schema check: lists for tuples and arrays, numbers for
    numpy scalars."""
    if isinstance(value, tuple | list | np.ndarray):
        return [_plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value
