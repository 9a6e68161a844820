"""Time `glossary check` on generated glossaries (N = 500 and 5,000) in a fresh process.

Run: .venv/bin/python -m benchmarks.bench_check [--sizes 500 5000]
Prints one line per size: wall seconds (best of 3), terms/s, peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.generate import generate


def time_check(root: Path, repeat: int = 3) -> tuple[float, int]:
    best = float("inf")
    peak = 0
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "glossary_tool", "--root", str(root), "check", "--no-records"], capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        if proc.returncode not in (0, 1):
            raise SystemExit(proc.stderr)
        peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return best, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 5000])
    args = parser.parse_args()
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = generate(Path(tmp), n)
            seconds, peak_kib = time_check(root)
            print(f"check N={n}: {seconds:.2f} s ({n / seconds:,.0f} terms/s), peak RSS {peak_kib / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
