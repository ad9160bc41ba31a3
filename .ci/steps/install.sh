#!/usr/bin/env bash
# Install the project with every version pinned by constraints.txt (docs/install.md), into the
# Python on PATH (.ci/run's fresh venv, or the runner's setup-python).
set -euo pipefail
cd "$(dirname "$0")/../.."
python -m pip install --quiet --upgrade pip
# --no-compile: pip byte-compiles every module it installs (82 MB of sources: pandas', numpy's
# and fontTools' own tests among them); CI imports a fraction of them, which Python compiles on
# first import instead. Measured on a 2-core machine: the install 46 -> 28 s of CPU, the first
# imports of a `ctxlab run` and a collection 4.5 s more (docs/ci.md).
python -m pip install --quiet --no-compile -c constraints.txt -e '.[test]'
