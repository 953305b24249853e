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
    checkers and IDEs: `costfs/__init__.py` names every method's class there) never run."""
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
