#!/usr/bin/env bash
# Lint, format check and type check.
set -euo pipefail
cd "$(dirname "$0")/../.."
ruff check .
ruff format --check .
# mypy's incremental cache lives outside the checkout, so that .ci/run on a fresh clone starts
# from the previous run's (a cold check was about 17 s of CPU): mypy checks each file's hash
# against its cache entry, so a changed file is always checked again; on GitHub it starts empty.
export MYPY_CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/ctxlab/mypy"
mypy
