#!/usr/bin/env bash
# Verify on a GPU machine without MkDocs (a device lease, a self-hosted runner) and pack this
# GPU's records into ONE tarball for `glossary verify --merge` at a checkout.
#
#   scripts/gpu-verify.sh OUTDIR [verify args]      default args: --force --jobs <CPU count>
#   scripts/gpu-verify.sh "$OUT" --force --multi-gpu   on a multi-GPU node: only gpus="2" snippets
#
# Writes OUTDIR/gpu-records.tgz (snippets/<section>/<term>/<snippet>/<gpu>.json and the
# PTX/SASS) and OUTDIR/verify.log; exits with verify's status (1 if a snippet failed).
set -uo pipefail
out=${1:?usage: scripts/gpu-verify.sh OUTDIR [verify args]}; shift
mkdir -p "$out"
[ $# -gt 0 ] || set -- --force --jobs "$(nproc)"
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}." PYTHONUNBUFFERED=1
py=${PYTHON:-python3}
(
  echo "== $(date -u +%FT%TZ) glossary verify $*"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  "$py" -m glossary_tool verify "$@" --pack "$out/gpu-records.tgz"
  status=$?
  echo "== $(date -u +%FT%TZ) warm re-run (nothing changed: everything cached)"
  "$py" -m glossary_tool verify $(printf '%s\n' "$@" | grep -x -e --multi-gpu) 2>/dev/null | sed 's/^verify:/warm verify:/'
  exit $status
) > "$out/verify.log" 2>&1
status=$?
grep -E "^(== |verify|warm verify|pack|FAILED)|(failed|skipped) \(" "$out/verify.log" | tail -60
exit $status
