#!/usr/bin/env bash
# The README's main job, offline from cassettes, into a fresh folder (the first argument, else a
# new temporary one); the committed reports/ must be exactly what it produces. The mutation
# matrix (reports/mutations.csv, shown by the report) takes minutes to compute and the mutations
# step checks the committed one, so the run starts from it and the digest of its inputs
# (mutations.inputs.json), in a folder marked as a reports folder of ctxlab's (.ctxlab-reports;
# docs/running.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out="${1:-$(mktemp -d)/reports}"
mkdir -p "$out"
cp reports/mutations.csv reports/.ctxlab-reports "$out/"
if [ -f reports/mutations.inputs.json ]; then cp reports/mutations.inputs.json "$out/"; fi
ctxlab run --out "$out"
if ! diff -r "$out" reports; then
    echo "reports/ differs from what 'ctxlab run' produces: run it and commit the result." >&2
    exit 1
fi
echo "reports/ matches a fresh 'ctxlab run'"
