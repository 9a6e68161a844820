"""Compare a snippet's output with its expected ``output`` fence, doctest-ELLIPSIS style.

A line ``...`` matches any number of lines (zero included); ``{...}`` inside a line matches
any text. Trailing whitespace and trailing blank lines are ignored, so editors that trim
them do not break a snippet.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

ELLIPSIS_LINE = "..."
WILDCARD = "{...}"


@dataclass(frozen=True)
class Mismatch:
    expected_line: int
    expected: str
    actual: str

    def describe(self) -> str:
        return f"expected line {self.expected_line} {self.expected!r}, got {self.actual!r}"


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


@lru_cache(maxsize=4096)
def _line_pattern(line: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(part) for part in line.split(WILDCARD)), re.S)


def match_output(expected: str, actual: str) -> Mismatch | None:
    """None when ``actual`` matches ``expected``, else the first expected line that failed."""
    want, got = _lines(expected), _lines(actual)
    memo: dict[tuple[int, int], bool] = {}
    best = [0, 0]

    def ok(i: int, j: int) -> bool:
        key = (i, j)
        if key in memo:
            return memo[key]
        if i > best[0] or (i == best[0] and j > best[1]):
            best[0], best[1] = i, j
        if i == len(want):
            result = j == len(got)
        elif want[i].strip() == ELLIPSIS_LINE:
            result = any(ok(i + 1, k) for k in range(j, len(got) + 1))
        else:
            result = j < len(got) and _line_pattern(want[i]).fullmatch(got[j]) is not None and ok(i + 1, j + 1)
        memo[key] = result
        return result

    # Iterative deepening of recursion is unnecessary for real snippets (tens of lines);
    # guard against pathological outputs by bounding the work.
    if len(want) * (len(got) + 1) > 5_000_000:
        return Mismatch(1, want[0] if want else "", "(output too long to compare)")
    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, len(want) + len(got) + 100))
    try:
        if ok(0, 0):
            return None
    finally:
        sys.setrecursionlimit(limit)
    i, j = best
    i = min(i, max(len(want) - 1, 0))
    return Mismatch(i + 1, want[i] if want else "", got[j] if j < len(got) else "(end of output)")
