"""Rewrites the blocks of the config schema, config/README.md and README.md that come from the
methods' declarations (`costfs.study.method_docs`). Run after adding or changing a method:

    .venv/bin/python scripts/update_docs.py
"""

from pathlib import Path

from costfs.cli import storage
from costfs.study.method_docs import DOCUMENTS, updated

REPO = Path(__file__).resolve().parents[1]

for relative in DOCUMENTS:
    path = REPO / relative
    text = path.read_text()
    new = updated(relative, text)
    if new != text:
        storage.write_text(path, new)
        print(f"updated {relative}")
