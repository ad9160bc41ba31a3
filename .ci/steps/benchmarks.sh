#!/usr/bin/env bash
# The benchmark suite, quick: fails only on complexity ratios and deterministic figures (the
# meter's error), never on absolute times (benchmarks/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
python -m benchmarks --quick
