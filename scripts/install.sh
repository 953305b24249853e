#!/usr/bin/env bash
# Creates .venv (if missing) and installs costfs with its dependencies into it.
# Needs only python3 (>= 3.11) with pip and venv; scikit-learn-intelex is added where it installs.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[workflow,related,docs,dev]"
# The fast Random Forest engine is optional: the package falls back to scikit-learn without it.
.venv/bin/python -m pip install --quiet -e ".[fast]" \
    || echo "scikit-learn-intelex did not install; using plain scikit-learn" >&2
# The report's browser test drives Chromium from the system's package manager (Playwright is in
# the dev extra); as root it is installed where missing.
if ! command -v chromium >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -qq chromium >/dev/null || echo "chromium did not install" >&2
fi
.venv/bin/python -c "from costfs.engine.forest import resolve_engine; print('costfs installed; Random Forest engine:', resolve_engine())"
