#!/usr/bin/env bash
# Refresh constraints.txt: every package ctxlab, its `suite`, `test`, `record`, `peers`, `ray` and `compactbench` extras and CI
# install, pinned to one version (pip-tools' pip-compile). Run after changing a dependency in
# pyproject.toml, then run `ctxlab run` and `pytest -q` on the new pins and commit both.
# Pins already in constraints.txt are kept (only what is new is resolved); `scripts/lock.sh
# --upgrade` moves every pin to the newest version instead.
#
# It resolves against PyPI itself, ignoring this machine's pip configuration (local indexes,
# global constraint files), so the pins hold on a fresh machine and in CI. Needs network.
set -euo pipefail
cd "$(dirname "$0")/.."

tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
export PIP_CONFIG_FILE=/dev/null  # no local indexes, find-links or global constraints
python3 -m venv "$tools"
"$tools/bin/pip" install --quiet --index-url https://pypi.org/simple pip-tools
CUSTOM_COMPILE_COMMAND="scripts/lock.sh" "$tools/bin/pip-compile" --quiet "$@" --index-url https://pypi.org/simple \
    --no-emit-index-url --no-emit-find-links --strip-extras --allow-unsafe \
    --extra suite --extra test --extra record --extra peers --extra ray --extra compactbench \
    --output-file constraints.txt pyproject.toml
echo "constraints.txt refreshed; now run: ctxlab run && pytest -q"
