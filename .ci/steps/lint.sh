#!/usr/bin/env bash
# Lint, format check and type check.
set -euo pipefail
cd "$(dirname "$0")/../.."
ruff check .
ruff format --check .
mypy
