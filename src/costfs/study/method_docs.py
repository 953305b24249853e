"""What the methods' declarations give the documentation: the config schema's `methods` part,
the method rows of config/README.md and the method table of README.md.

Each is a block of text between two marker lines of its file; `scripts/update_docs.py`
rewrites the blocks, and a test fails when a file's block differs from what the declarations
give.
"""

import importlib
import re

import yaml

from costfs.methods import Method, all_methods, describe_schema

PROBLEMS_SCHEMA = {"$ref": "#/$defs/problems"}
REPLICATES_PER_JOB_SCHEMA = {"$ref": "#/$defs/replicates_per_job"}


def method_schema(method: Method) -> dict:
    """The JSON Schema of `methods.<name>`."""
    properties = {"problems": PROBLEMS_SCHEMA, "replicates_per_job": REPLICATES_PER_JOB_SCHEMA}
    hyperparameter = method.hyperparameter
    if hyperparameter is not None:
        properties[hyperparameter.grid_key] = {
            "type": "array",
            "items": dict(hyperparameter.schema),
            "minItems": 1,
            "uniqueItems": True,
            **({} if hyperparameter.name == "xi" else {"default": list(hyperparameter.grid)}),
            "description": _grid_help(hyperparameter),
        }
    for parameter in method.parameters:
        properties[parameter.name] = parameter.json_schema()
    return {
        "type": "object",
        "additionalProperties": False,
        "description": method.summary,
        "properties": properties,
    }


def _grid_help(hyperparameter) -> str:
    if hyperparameter.name == "xi":
        return (
            "this method's grid of xi, instead of the study's xi_grid (e.g. [0, 1]: the paper "
            "runs forward selection at xi = 0 and 1 only); the tuned strategy picks from it"
        )
    return f"grid of {hyperparameter.name} for the tuned strategy: {hyperparameter.help}"


def _flow(value) -> str:
    text = yaml.safe_dump(
        value, default_flow_style=True, sort_keys=False, width=10**6, allow_unicode=True
    )
    # A scalar comes with YAML's end-of-document marker.
    return text.strip().removesuffix("...").strip()


def schema_block(indent: int = 6) -> str:
    """The `methods` entries of the config schema, as YAML lines (one flow mapping each)."""
    pad = " " * indent
    lines = []
    for method in all_methods():
        schema = method_schema(method)
        lines.append(f"{pad}{method.name}:")
        for key in ("type", "additionalProperties", "description"):
            lines.append(f"{pad}  {key}: {_flow(schema[key])}")
        lines.append(f"{pad}  properties:")
        for name, value in schema["properties"].items():
            lines.append(f"{pad}    {name}: {_flow(value)}")
    return "\n".join(lines)


def _default_text(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return f"{value:g}" if isinstance(value, float) else str(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def config_rows() -> str:
    """The table of config/README.md's method parameters (`methods.<name>...`)."""
    rows = ["| key | type | default | meaning (stage) |", "|---|---|---|---|"]
    for method in all_methods():
        prefix = f"methods.{method.name}"
        rows.append(f"| `{prefix}` | mapping | `{{}}` | {_cell(method.summary)} |")
        hyperparameter = method.hyperparameter
        if hyperparameter is not None:
            grid = (
                "xi_grid"
                if hyperparameter.name == "xi"
                else "[" + ", ".join(_default_text(value) for value in hyperparameter.grid) + "]"
            )
            rows.append(
                f"| `{prefix}.{hyperparameter.grid_key}` | list of numbers ≥ 0 | `{grid}` | "
                f"{_cell(_grid_help(hyperparameter))} |"
            )
        for parameter in method.parameters:
            stage = {"prepare": "cost-free preparation", "select": "selection", "both": "both"}
            rows.append(
                f"| `{prefix}.{parameter.name}` | {describe_schema(parameter.schema)} | "
                f"`{_default_text(parameter.default)}` | {_cell(parameter.help)} "
                f"({stage[parameter.stage]}) |"
            )
    return "\n".join(rows)


def readme_rows() -> str:
    """README.md's method table."""
    rows = ["| method key | selector | hyperparameter | what it does |", "|---|---|---|---|"]
    for method in all_methods():
        hyperparameter = method.hyperparameter.name if method.hyperparameter else "—"
        rows.append(
            f"| `{method.name}` | `costfs.{type(method).__name__}` | {hyperparameter} | "
            f"{_cell(method.summary)} |"
        )
    return "\n".join(rows)


def replace_block(text: str, name: str, block: str, comment: tuple[str, str]) -> str:
    """`text` with the lines between its BEGIN/END markers of `name` replaced by `block`."""
    opening, closing = comment
    pattern = re.compile(
        rf"(^[ \t]*{re.escape(opening)} BEGIN {name}\b[^\n]*\n)(.*?)(^[ \t]*{re.escape(opening)} "
        rf"END {name}\b[^\n]*$)",
        re.DOTALL | re.MULTILINE,
    )
    if not pattern.search(text):
        raise ValueError(f"no BEGIN/END {name} markers found")
    return pattern.sub(lambda match: match[1] + block + "\n" + match[3], text, count=1)


DOCUMENTS = {
    "workflow/schemas/config.schema.yaml": ("methods", schema_block, ("#", "")),
    "config/README.md": ("methods", config_rows, ("<!--", "-->")),
    "README.md": ("methods", readme_rows, ("<!--", "-->")),
}
"""Repository file -> (marker name, block function, comment delimiters)."""


def updated(path: str, text: str) -> str:
    """The text of repository file `path` with its generated block current."""
    name, block, comment = DOCUMENTS[path]
    return replace_block(text, name, block(), comment)


def method_page(method: Method) -> str:
    """The documentation page of one method: its declaration and its module's description."""
    hyperparameter = method.hyperparameter
    lines = [
        f"# `{method.name}`",
        "",
        method.summary,
        "",
        f"- Python: `costfs.{type(method).__name__}`",
        f"- config key, workflow wildcard and `method` column: `{method.name}`",
        "- hyperparameter: "
        + (
            "none (the strategy `fixed`)"
            if hyperparameter is None
            else f"`{hyperparameter.name}` (selector default {hyperparameter.default:g}): "
            f"{hyperparameter.help}"
            + f"; grid `methods.{method.name}.{hyperparameter.grid_key}`"
            + (", by default the study's `xi_grid`" if hyperparameter.name == "xi" else "")
        ),
        "- Random Forest engines: "
        + (", ".join(f"`{engine}`" for engine in method.all_engines) or "none (grows no forest)"),
        "- classes: " + ("two or more" if method.multi_class else "two only"),
        f"- missing values: {method.missing_values}",
        "",
        "## Parameters",
        "",
    ]
    if method.parameters:
        lines += ["| parameter | type | default | meaning | stage |", "|---|---|---|---|---|"]
        lines += [
            f"| `{p.name}` | {_cell(describe_schema(p.schema))} | `{_default_text(p.default)}` "
            f"| {_cell(p.help)} | {p.stage} |"
            for p in method.parameters
        ]
    else:
        lines.append("No parameters besides the budget, the costs and the hyperparameter.")
    description = importlib.import_module(type(method).__module__).__doc__ or ""
    lines += ["", "## How it works", "", description.strip(), ""]
    return "\n".join(lines)
