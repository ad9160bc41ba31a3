#!/usr/bin/env bash
# The slow profiles the README's command leaves out: the full state machines, the wheel install,
# the browser, the longest scenarios (docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
pytest -m slow
