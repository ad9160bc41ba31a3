#!/usr/bin/env bash
# The slow profiles the README's command leaves out: the full state machines, the wheel install,
# the browser, the longest scenarios, the bench's shards on Ray (docs/testing.md). The ray extra
# (docs/install.md) is installed here rather than by install.sh, so that the steps before this
# one never wait for its wheel; without it the Ray test is skipped, saying why.
set -euo pipefail
cd "$(dirname "$0")/../.."
python -m pip install --quiet -c constraints.txt -e '.[ray]'
pytest -m slow
