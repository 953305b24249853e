"""MkDocs hooks: one page per method from its declaration (`costfs.study.method_docs`) and
one page per example script, so neither can drift from the code."""

from pathlib import Path

from mkdocs.structure.files import File

from costfs.methods import all_methods
from costfs.study.method_docs import method_page

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _example_page(path: Path) -> str:
    source = path.read_text()
    title = path.stem.replace("_", " ").capitalize()
    return (
        f"# {title}\n\n`examples/{path.name}` (the test suite runs it):\n\n```python\n{source}```\n"
    )


def on_config(config):
    methods = [{method.name: f"methods/{method.name}.md"} for method in all_methods()]
    examples = [
        {path.stem.replace("_", " ").capitalize(): f"examples/{path.stem}.md"}
        for path in sorted(EXAMPLES.glob("*.py"))
    ]
    config["nav"] = [*config["nav"], {"Methods": methods}, {"Examples": examples}]
    return config


def on_files(files, config):
    for method in all_methods():
        files.append(
            File.generated(config, f"methods/{method.name}.md", content=method_page(method))
        )
    for path in sorted(EXAMPLES.glob("*.py")):
        files.append(
            File.generated(config, f"examples/{path.stem}.md", content=_example_page(path))
        )
    return files
