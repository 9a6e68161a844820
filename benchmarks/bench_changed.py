"""Time `glossary check --changed` against a full `glossary check` on a generated glossary.

Run: .venv/bin/python -m benchmarks.bench_changed [--size 5000] [--repeat 5]

The glossary (benchmarks/generate.py: ~15 cross-references and ~250 words per term) is
committed to a fresh git repository; each scenario edits the working tree, then each
command runs in a fresh process (best of --repeat). Prints wall seconds, CPU seconds
(user + system of the command and its git calls) and peak RSS. On a busy machine wall
time includes waiting for a core, so the target is judged on CPU time; the load average
is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.generate import generate

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org", "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org"}
TARGET_S = 2.0


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=GIT_ENV)


def timed(root: Path, args: list[str], repeat: int) -> tuple[float, float, int, str]:
    """Best wall and best CPU seconds of ``repeat`` runs, peak RSS in KiB, the summary line."""
    best_wall = best_cpu = float("inf")
    peak = 0
    summary = ""
    argv = ["glossary", "--root", str(root), "check", *args]
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _RUN, *argv], capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode not in (0, 1) or "Traceback" in proc.stderr:
            raise SystemExit(proc.stderr)
        lines = proc.stderr.strip().splitlines()
        best_wall = min(best_wall, wall)
        best_cpu = min(best_cpu, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        peak = max(peak, int(lines[-1].removeprefix("maxrss=")))
        summary = lines[-2]
    return best_wall, best_cpu, peak, summary


# The command in a fresh interpreter that reports its own peak RSS (KiB) last on stderr.
_RUN = """
import resource, runpy, sys
sys.argv = sys.argv[1:]
try:
    runpy.run_module("glossary_tool", run_name="__main__")
finally:
    print(f"maxrss={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", file=sys.stderr)
"""


def edit_one(glossary: Path) -> None:
    path = glossary / "device-software" / "term-00011.md"
    path.write_text(path.read_text(encoding="utf-8").replace("## Part", "## A renamed part", 1), encoding="utf-8")


def edit_fifty(glossary: Path) -> None:
    for path in sorted(glossary.rglob("term-*.md"))[::100]:
        path.write_text(path.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")


def add_term(glossary: Path) -> None:
    path = glossary / "performance" / "new-term.md"
    path.write_text(
        "---\ntitle: New Term\nsummary: A term a contributor adds.\nsources:\n  - title: Source\n    url: https://example.org/\n---\n"
        "Links [[term-00001]], [[term-00002]] and [[alias 00003]].\n",
        encoding="utf-8",
    )
    toc = glossary / "toc.yml"
    toc.write_text(toc.read_text(encoding="utf-8").replace("performance:\n", "performance:\n  - new-term\n"), encoding="utf-8")


SCENARIOS: list[tuple[str, Callable[[Path], None]]] = [
    ("one term edited", edit_one),
    ("50 terms edited", edit_fifty),
    ("one term added (+ toc.yml)", add_term),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPU(s)")
    with tempfile.TemporaryDirectory() as tmp:
        root = generate(Path(tmp), args.size)
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "generated glossary")
        wall, cpu, peak, summary = timed(root, [], args.repeat)
        print(f"N={args.size} full check:                 {wall:5.2f} s wall, {cpu:5.2f} s CPU, peak RSS {peak / 1024:.0f} MiB  ({summary})")
        for name, change in SCENARIOS:
            git(root, "checkout", "-q", "--", ".")
            git(root, "clean", "-qfd")
            change(root / "glossary")
            wall, cpu, peak, summary = timed(root, ["--changed", "HEAD"], args.repeat)
            verdict = "under" if cpu < TARGET_S else "OVER"
            print(f"N={args.size} --changed, {name:27s} {wall:5.2f} s wall, {cpu:5.2f} s CPU, peak RSS {peak / 1024:.0f} MiB, CPU {verdict} the {TARGET_S:.0f} s target  ({summary})")


if __name__ == "__main__":
    main()
