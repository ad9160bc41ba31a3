#!/usr/bin/env bash
# The slow profiles the README's command leaves out: the full state machines, the wheel install,
# the browser, the longest scenarios, the bench's shards on Ray (docs/testing.md). The ray extra
# (docs/install.md) is installed here rather than by install.sh, so that the steps before this
# one never wait for its wheel; without it the Ray test is skipped, saying why. install.sh
# already built the editable project with setuptools (the test extra, pinned): building it again
# in a fresh isolated environment, and byte-compiling every module of Ray's wheel (thousands; the
# slow profile imports few of them, and compiles those when it does), were most of this
# install's 13.7 s of CPU (issue 48).
set -euo pipefail
cd "$(dirname "$0")/../.."
python -m pip install --quiet --no-build-isolation --no-compile -c constraints.txt -e '.[ray]'
pytest -m slow
