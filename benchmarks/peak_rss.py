"""Peak memory of each process of a command's tree (issue 16: a build forks a term-page
worker, the map and the EPUB/llms.txt process, and `ru_maxrss` names only the largest).

Run: .venv/bin/python -m benchmarks.peak_rss COMMAND [ARGS...]

Starts the command, reads VmHWM (the kernel's high-water mark of resident memory) of it and
of every descendant from /proc every 50 ms, and prints one JSON line: exit status, wall
seconds, CPU seconds of the tree (RUSAGE_CHILDREN), the largest child peak by rusage as a
cross-check, and [pid, first seen (s), peak MiB] per process. RSS counts pages a forked
child still shares with its parent, so a child starts at its parent's size. Linux only.
A process that lives less than 50 ms may be missed (a subprocess between fork and exec
shows its parent's size).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _hwm_mib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    except OSError:
        return None
    return None


def main(argv: list[str]) -> int:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    peak: dict[int, int] = {}
    seen: dict[int, float] = {}
    while proc.poll() is None:
        for pid in _tree(proc.pid):
            hwm = _hwm_mib(pid)
            if hwm is not None:
                seen.setdefault(pid, round(time.perf_counter() - start, 1))
                peak[pid] = max(peak.get(pid, 0), hwm)
        time.sleep(0.05)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({
        "exit": proc.returncode,
        "wall_s": round(time.perf_counter() - start, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "largest_by_rusage_mib": usage.ru_maxrss // 1024,
        "processes": [[pid, seen[pid], peak[pid]] for pid in sorted(peak, key=seen.__getitem__)],
    }))
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
