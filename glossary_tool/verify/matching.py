"""Compare a snippet's output with its expected ``output`` fence, portably across GPUs.

The fence states what must hold on any GPU that can run the snippet:

* a line ``...`` matches any number of lines (zero included);
* inside a line, ``{...}`` or ``{any}`` matches any text, ``{int}`` an integer, ``{float}``
  a decimal number (integers and exponents too), and ``{gpu_name}``, ``{cc}``,
  ``{sm_count}``, ``{driver}`` the running GPU's device name, compute capability, SM count
  and driver version (any text when the GPU is unknown);
* a line starting ``{on H100}`` applies only on a GPU whose device name has that word
  (``{on *}``: any other GPU). Consecutive ``{on ...}`` lines are alternatives for one
  output line (``{on *}``, or a GPU named a second time, ends the group); on a GPU none of
  them names, and without ``{on *}``, the line may be anything.

Any other ``{word}`` is literal text. Trailing whitespace and trailing blank lines are
ignored, so editors that trim them do not break a snippet.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache

from glossary_tool.verify.records import Machine

ELLIPSIS_LINE = "..."
WILDCARD = "{...}"
ANY_LINE = "{any}"
#: Placeholders whose pattern does not depend on the GPU.
PATTERNS = {
    "{...}": r".*?",
    "{any}": r".*?",
    "{int}": r"[-+]?\d+",
    "{float}": r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?",
}
#: Placeholders replaced by a fact about the GPU that ran the snippet.
GPU_FIELDS = ("gpu_name", "cc", "sm_count", "driver")
_PLACEHOLDER = re.compile(r"\{(?:\.\.\.|any|int|float|gpu_name|cc|sm_count|driver)\}")
_ON = re.compile(r"^\{on ([^}]+)\} ?")


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


def _facts(machine: Machine | None) -> tuple[tuple[str, str], ...]:
    if machine is None:
        return ()
    values = (machine.gpu_name, machine.compute_capability, str(machine.sm_count), machine.driver_version)
    return tuple(zip(GPU_FIELDS, values, strict=True))


@lru_cache(maxsize=8192)
def _line_pattern(line: str, facts: tuple[tuple[str, str], ...] = ()) -> re.Pattern[str]:
    known = dict(facts)
    out: list[str] = []
    last = 0
    for match in _PLACEHOLDER.finditer(line):
        out.append(re.escape(line[last : match.start()]))
        token = match.group(0)
        field = token[1:-1]
        out.append(re.escape(known[field]) if field in known else PATTERNS.get(token, r".*?"))
        last = match.end()
    out.append(re.escape(line[last:]))
    return re.compile("".join(out), re.S)


def selects(selector: str, machine: Machine | None) -> bool:
    """Whether ``{on selector}`` names ``machine``: a whole word (or words) of its device name."""
    if machine is None:
        return False
    words = re.escape(selector.strip())
    return re.search(rf"(?<![A-Za-z0-9]){words}(?![A-Za-z0-9])", machine.gpu_name, re.I) is not None


def resolve(expected: str, machine: Machine | None) -> list[tuple[int, str]]:
    """The expected lines for ``machine`` with their fence line numbers, ``{on ...}`` groups settled."""
    out: list[tuple[int, str]] = []
    lines = _lines(expected)
    i = 0
    while i < len(lines):
        if not _ON.match(lines[i]):
            out.append((i + 1, lines[i]))
            i += 1
            continue
        group: list[tuple[int, str, str]] = []
        while i < len(lines) and (m := _ON.match(lines[i])):
            selector = m.group(1).strip()
            if any(g[1] in (selector, "*") for g in group):
                break  # a GPU named again, or after the fallback: the next output line's group
            group.append((i + 1, selector, lines[i][m.end() :]))
            i += 1
        chosen = next((g for g in group if g[1] != "*" and selects(g[1], machine)), None)
        chosen = chosen or next((g for g in group if g[1] == "*"), None)
        out.append((chosen[0], chosen[2]) if chosen else (group[0][0], ANY_LINE))
    return out


def match_output(expected: str, actual: str, machine: Machine | None = None) -> Mismatch | None:
    """None when ``actual`` (printed on ``machine``) matches ``expected``, else the first line that failed."""
    numbered = resolve(expected, machine)
    want = [line for _, line in numbered]
    got = _lines(actual)
    facts = _facts(machine)
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
            result = j < len(got) and _line_pattern(want[i], facts).fullmatch(got[j]) is not None and ok(i + 1, j + 1)
        memo[key] = result
        return result

    # Guard against pathological outputs by bounding the work.
    if len(want) * (len(got) + 1) > 5_000_000:
        return Mismatch(1, want[0] if want else "", "(output too long to compare)")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, len(want) + len(got) + 100))
    try:
        if ok(0, 0):
            return None
    finally:
        sys.setrecursionlimit(limit)
    i, j = best
    i = min(i, max(len(want) - 1, 0))
    line_number = numbered[i][0] if numbered else 1
    return Mismatch(line_number, want[i] if want else "", got[j] if j < len(got) else "(end of output)")
