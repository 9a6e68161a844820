#!/usr/bin/env bash
# PDF export of the real glossary, two trees alternating: `benchmarks/pdf_ab.sh BASE NEW [PAIRS]`.
#
# BASE and NEW are whole trees (e.g. `git archive <commit> | tar -x -C /tmp/base`), each run
# with its own package (PYTHONPATH) and its own .cache: the cache file is named by the tool's
# version and a save removes other versions' files, so two trees sharing one .cache would
# each find it cold on every run. One warm-up export each, then PAIRS pairs (default 3);
# prints wall, CPU (user + sys, children included) and peak RSS of each export, and the
# load average as it ended. Needs WeasyPrint and pikepdf in .venv (make install).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
py="$repo/.venv/bin/python"
base="$(cd "$1" && pwd)"
new="$(cd "$2" && pwd)"
pairs="${3:-3}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

run() {  # tree label
  (cd "$1" && SOURCE_DATE_EPOCH=1700000000 /usr/bin/time -o "$out/time" -f "%e %U %S %M" \
    env PYTHONPATH="$1" "$py" -m glossary_tool export pdf --out "$out/$2.pdf" >/dev/null)
}

run "$base" base
run "$new" new
for _ in $(seq 1 "$pairs"); do
  for label in base new; do
    tree=$base
    [ "$label" = new ] && tree=$new
    run "$tree" "$label"
    read -r wall user sys rss <"$out/time"
    awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" -v load="$(cut -d' ' -f1 /proc/loadavg)" -v at="$(date +%H:%M:%S)" \
      'BEGIN { printf "%-4s wall %6.2f s  cpu %6.1f s  rss %4d MB  load %s  %s\n", l, w, u + s, r / 1024, load, at }'
  done
done
