#!/usr/bin/env bash
# The mutation catalogue: each mutation flips the claims it names, every seed row is flipped or a
# named guard, and the committed matrix is what the code produces (docs/claims.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
pytest -q -m mutations tests/lab/test_mutations.py
