"""Which code a workflow job runs, as a content hash: Snakemake does not follow Python imports,
so each rule carries the hash of the modules it runs as a param and reruns when they change."""

import ast
import hashlib
from pathlib import Path

PACKAGE_ROOT = Path(__file__).parents[1]


def module_closure(modules: list[str], root: Path = PACKAGE_ROOT) -> list[str]:
    """`modules` (paths relative to the package), every package module they import, and the
    `__init__.py` of each package on the way (Python runs it before the module)."""
    pending, seen = list(modules), set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        pending += [
            (package / "__init__.py").as_posix()
            for package in Path(current).parents
            if (root / package / "__init__.py").exists()
        ]
        for node in _run_time_nodes(ast.parse((root / current).read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
                names += [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            for name in names:
                if not name.startswith("costfs."):
                    continue
                parts = name.split(".")[1:]
                for path in (Path(*parts).with_suffix(".py"), Path(*parts) / "__init__.py"):
                    if (root / path).exists():
                        pending.append(path.as_posix())
    return sorted(seen)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_nodes(tree: ast.AST):
    """Every node of `tree` but those under `if TYPE_CHECKING:`, whose imports (for type
    checkers and IDEs: `costfs/__init__.py` names every method's selector there) never run."""
    pending = [tree]
    while pending:
        node = pending.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                pending += child.orelse
            else:
                pending.append(child)


def code_version(*modules: str, root: Path = PACKAGE_ROOT) -> str:
    """Short content hash of `modules` and the package modules they import."""
    digest = hashlib.sha256()
    for module in module_closure(list(modules), root):
        digest.update(module.encode())
        digest.update((root / module).read_bytes())
    return digest.hexdigest()[:16]


def package_code_version(root: Path = PACKAGE_ROOT) -> str:
    """Short content hash of every module of the package: the code a study's results came from.
    The workflow a wheel ships inside the package (`costfs/workflow/`) is not the package's
    code: an editable install has none there."""
    modules = sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*.py")
        if path.relative_to(root).parts[0] != "workflow"
    )
    return code_version(*modules, root=root)


NOT_THE_STUDY = ("first_rep", "n_rep", "selection_replicates_per_job")
"""Config keys that say which replicates a run holds and how its jobs are cut, not what a
replicate computes: batches of one study differ in them."""

NOT_THE_METHOD = ("replicates_per_job",)
"""Keys of `methods.<name>` that say how the method's jobs are cut, not what it computes."""

LOCATION_KEYS = ("data_dir", "openml_cache")
"""Keys of `real_data` that say where files are, not what they hold (their content is in the
provenance's input hashes)."""


def study_identity(config: dict) -> dict:
    """What makes a replicate of the study `config` what it is: the config without
    `NOT_THE_STUDY` (nor a method's `NOT_THE_METHOD`) and without the locations of its files
    (`LOCATION_KEYS`, each data set's `path` and `costs`), whose content the provenance hashes
    instead."""
    identity = {key: value for key, value in config.items() if key not in NOT_THE_STUDY}
    if "methods" in identity:
        identity["methods"] = {
            name: {key: value for key, value in settings.items() if key not in NOT_THE_METHOD}
            for name, settings in identity["methods"].items()
        }
    real = dict(identity.get("real_data", {}))
    for key in LOCATION_KEYS:
        real.pop(key, None)
    real["datasets"] = {
        name: {key: value for key, value in settings.items() if key not in ("path", "costs")}
        for name, settings in real.get("datasets", {}).items()
    }
    identity["real_data"] = real
    return identity


def differences(first, second, prefix: str = "") -> list[str]:
    """The dotted keys at which two nested dicts (of JSON values) differ, with both values."""
    if isinstance(first, dict) and isinstance(second, dict):
        found = []
        for key in sorted(set(first) | set(second), key=str):
            name = f"{prefix}.{key}" if prefix else str(key)
            if key not in first or key not in second:
                found.append(f"{name} only in {'the second' if key not in first else 'the first'}")
            else:
                found += differences(first[key], second[key], name)
        return found
    return [] if first == second else [f"{prefix}: {first!r} against {second!r}"]
