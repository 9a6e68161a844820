"""Time the one-pass ``git log`` that dates every term page (glossary_tool/publish/history.py).

Run: .venv/bin/python -m benchmarks.bench_history [--size 5000] [--edits 2000] [--repeat 5]

A generated glossary (benchmarks/generate.py) is committed to a fresh repository with
``git fast-import``: the terms added 20 per commit, then ``--edits`` commits that each
change three terms picked at random (seeded), so the log has thousands of commits and each
file several entries. Prints the wall and CPU seconds (this process and its git children)
of ``read_history`` (best of --repeat), and, for comparison, one ``git log -1`` per file as
a naive implementation would run, timed on 100 files and scaled to all of them.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from benchmarks.generate import generate
from glossary_tool.publish.history import read_history

ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
T0 = 1_760_000_000
BATCH = 20


def _data(text: bytes) -> bytes:
    return b"data %d\n" % len(text) + text + b"\n"


def commit_history(root: Path, edits: int, seed: int = 7) -> int:
    """Commit root/glossary as a history of additions and edits; returns the number of commits."""
    rng = random.Random(seed)
    files = sorted(p.relative_to(root).as_posix() for p in (root / "glossary").rglob("*") if p.is_file())
    terms = [f for f in files if "/term-" in f]
    content = {f: (root / f).read_bytes() for f in files}
    stream = bytearray()
    mark = 0
    when = T0

    def commit(message: str, changed: list[str]) -> None:
        nonlocal mark, when
        mark += 1
        when += 600
        stream.extend(b"commit refs/heads/main\nmark :%d\n" % mark)
        stream.extend(b"committer bench <bench@example.org> %d +0000\n" % when)
        stream.extend(_data(message.encode()))
        if mark > 1:
            stream.extend(b"from :%d\n" % (mark - 1))
        for path in changed:
            stream.extend(b"M 100644 inline %s\n" % path.encode())
            stream.extend(_data(content[path]))

    others = [f for f in files if f not in terms]
    commit("scaffold", others)
    for start in range(0, len(terms), BATCH):
        commit(f"terms {start}..", terms[start : start + BATCH])
    for k in range(edits):
        picked = rng.sample(terms, 3)
        for path in picked:
            content[path] += b"\nEdit %d.\n" % k
        commit(f"edit {k}", picked)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=ENV)
    subprocess.run(["git", "-C", str(root), "fast-import", "--quiet"], input=bytes(stream), check=True, env=ENV)
    subprocess.run(["git", "-C", str(root), "reset", "-q", "--hard", "main"], check=True, env=ENV)
    return mark


def cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=5000)
    parser.add_argument("--edits", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-history-") as tmp:
        root = generate(Path(tmp) / "repo", args.size)
        started = time.perf_counter()
        commits = commit_history(root, args.edits)
        print(f"{args.size} terms, {commits} commits (made in {time.perf_counter() - started:.1f} s)")
        best_wall = best_cpu = float("inf")
        for _ in range(args.repeat):
            c0, w0 = cpu(), time.perf_counter()
            history = read_history(root)
            best_wall, best_cpu = min(best_wall, time.perf_counter() - w0), min(best_cpu, cpu() - c0)
        dated = sum(1 for path, d in history.files.items() if "/term-" in path and d.exact)
        print(f"read_history (one git log pass + rev-parse + status): {best_wall:.3f} s wall, {best_cpu:.3f} s CPU; {dated} term files dated; fallback: {history.fallback or 'none'}")
        sample = sorted(p for p in history.files if "/term-" in p)[:: max(1, dated // 100)][:100]
        c0, w0 = cpu(), time.perf_counter()
        for path in sample:
            subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct", "--", path], check=True, capture_output=True, env=ENV)
        wall, spent = time.perf_counter() - w0, cpu() - c0
        scale = dated / len(sample)
        print(f"one git log -1 per file: {wall:.2f} s wall for {len(sample)} files, about {wall * scale:.0f} s wall ({spent * scale:.0f} s CPU) for all {dated}")
        print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
