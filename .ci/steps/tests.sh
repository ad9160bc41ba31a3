#!/usr/bin/env bash
# The README's test command: the unit tests and one test per claim of reports/claims.csv, on two
# workers (pytest-xdist), with the two-process session test at its full 50 rounds per store (8 by
# default).
set -euo pipefail
cd "$(dirname "$0")/../.."
CTXLAB_SESSION_ROUNDS=50 pytest -n 2
