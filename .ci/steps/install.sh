#!/usr/bin/env bash
# Install the project with every version pinned by constraints.txt (docs/install.md), into the
# Python on PATH (.ci/run's fresh venv, or the runner's setup-python).
set -euo pipefail
cd "$(dirname "$0")/../.."
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -c constraints.txt -e '.[test]'
