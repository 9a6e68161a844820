#!/usr/bin/env bash
# Run on a GPU machine without MkDocs (the device image): verify every snippet, then the
# GPU fixture set, and pack the records. Usage: scripts/gpu-verify.sh OUTDIR [verify args]
set -uo pipefail
out=${1:?output directory}; shift
export PYTHONPATH=. PYTHONUNBUFFERED=1
{
  echo "== cold verify (all snippets)"; date -u
  python3 -m glossary_tool verify "$@"
  echo "== warm re-run (nothing changed)"
  python3 -m glossary_tool verify
} > "$out/verify.log" 2>&1
tar czf "$out/snippets.tgz" snippets
{
  echo "== fixtures under --sanitize"
  python3 -m glossary_tool --root tests/gpu_fixtures verify --sanitize --records /tmp/fixture-records
  tar czf "$out/fixture-records.tgz" -C /tmp fixture-records
} > "$out/fixtures.log" 2>&1
tail -5 "$out/verify.log"; tail -25 "$out/fixtures.log"
