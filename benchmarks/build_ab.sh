#!/usr/bin/env bash
# Cold `glossary build` of one corpus with two trees, alternating: `benchmarks/build_ab.sh CORPUS BASE NEW [PAIRS]`.
#
# BASE and NEW are whole trees (e.g. `git archive <commit> | tar -x -C /tmp/base`), each run
# with its own package on PYTHONPATH, from an empty folder: `python -m` puts the working
# folder first on sys.path, so run from a checkout it would import that checkout's package
# for both trees and compare it with itself. Each build starts without .cache. Prints wall,
# CPU (user + sys, children included), peak RSS, the site's size and the load average.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
py="$repo/.venv/bin/python"
corpus="$(cd "$1" && pwd)"
base="$(cd "$2" && pwd)"
new="$(cd "$3" && pwd)"
pairs="${4:-3}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

for _ in $(seq 1 "$pairs"); do
  for label in base new; do
    tree=$base
    [ "$label" = new ] && tree=$new
    rm -rf "$corpus/.cache" "$out/site"
    (cd "$out" && /usr/bin/time -o "$out/time" -f "%e %U %S %M" \
      env PYTHONPATH="$tree" "$py" -m glossary_tool --root "$corpus" build --out "$out/site" >/dev/null 2>&1)
    read -r wall user sys rss < "$out/time"
    printf '%s wall %s s cpu %.1f s peak %d MB site %d MB load %s\n' "$label" "$wall" "$(echo "$user + $sys" | bc)" $((rss / 1024)) $(($(du -sb "$out/site" | cut -f1) / 1000000)) "$(cut -d' ' -f1 /proc/loadavg)"
  done
done
