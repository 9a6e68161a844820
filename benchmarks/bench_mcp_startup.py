"""Start-up time of ``glossary mcp``: spawn it over stdio, time until tools/list answers.

Run from the repository root: ``PYTHONPATH=. python benchmarks/bench_mcp_startup.py [RUNS]``.
Prints each run and the median (figures in README.md, "Using the glossary from a model").
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent


async def one_run() -> tuple[float, int]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "glossary_tool", "--root", str(ROOT), "mcp"], env={"PYTHONPATH": str(ROOT)}, cwd=str(ROOT))
    started = time.perf_counter()
    async with Client(params, mode="legacy") as client:
        tools = (await client.list_tools()).tools
        return time.perf_counter() - started, len(tools)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    times = []
    for n in range(runs):
        seconds, tools = anyio.run(one_run)
        times.append(seconds)
        print(f"run {n + 1}: tools/list answered after {seconds:.2f} s ({tools} tools)")
    print(f"median {statistics.median(times):.2f} s over {runs} runs, on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
