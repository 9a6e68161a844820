"""Figures quoted in prose against the figures a snippet printed.

A page that says "a hop took 414 cycles" while its record says 416 has drifted; so has one that
still quotes last month's run after the snippet was re-verified. This module holds the pure part
of that check: find the numbers with units in a piece of prose, find the numbers with units in the
records' stdout, and say which prose figures claim to be a record's figure but match none.

Rules (documented in CONTRIBUTING.md, "Figures in prose"):

* Only a number followed by a unit is a figure (``416 cycles``, ``4.8 TB/s``, ``83.7%``, ``1.99x``).
  A range (``6.2-8.1 GB/s``, ``276 to 283 cycles``) is one figure: it states a spread, between
  runs, copies or GPUs, and holds when some printed value lies inside it.
* A figure is *checked* when some record printed a figure with the same unit within a factor of
  1.5 of it: that is a figure that claims to come from the record. Figures with no such neighbour
  (a datasheet peak, a derived estimate of a different size) are left alone.
* A checked figure matches a printed one when the printed value rounds to it at the precision it
  is written with (``0.20 ms`` stands for 0.195-0.205; trailing zeros of a number of three or more
  digits are read as rounding, so ``340 ns`` stands for 335-345 but ``40 cycles`` for 39.5-40.5). After a hedge
  (``about``, ``roughly``, ``~`` ...) it may differ by up to 10 %. After a bound (``over``,
  ``more than``, ``at least`` / ``under``, ``up to``, ``at most``) any printed value on the right
  side of it matches.
* A figure is quoted for the GPU named last before it in its sentence (or the only GPU the
  sentence names) and is matched against that GPU's records only; with no record from that GPU it
  is not checked here. One GPU's output is never quoted as another's.
* A figure within a few words of "peak", "theoretical", "datasheet", "maximum", "specified",
  "rated", "nominal", "advertised", "raw", "roof", "quoted" or "carries" ("the 450 GB/s each way
  that NVLink 4 carries") is a specification, not a measurement,
  and is not checked; nor is a threshold ("shorter than about 10 us") or the result of arithmetic
  written out before it ("2 x 114 KiB = 228 KiB").

The caller decides which prose belongs to which records (see ``figure_check``); everything here
works on strings, so it does not care how records are stored on disk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

#: Unit spellings -> canonical unit. Longest spellings first in the regex below.
_UNITS: dict[str, str] = {
    "cycles": "cycles",
    "cycle": "cycles",
    "ns": "ns",
    "us": "us",
    "µs": "us",
    "μs": "us",
    "ms": "ms",
    "s": "s",
    "TB/s": "TB/s",
    "GB/s": "GB/s",
    "MB/s": "MB/s",
    "GiB/s": "GiB/s",
    "TFLOP/s": "TFLOP/s",
    "TFLOPS": "TFLOP/s",
    "GFLOP/s": "GFLOP/s",
    "GFLOPS": "GFLOP/s",
    "MHz": "MHz",
    "GHz": "GHz",
    "%": "%",
    "x": "x",
    "×": "x",
    "W": "W",
    "ulp": "ulp",
    "TB": "TB",
    "GB": "GB",
    "MB": "MB",
    "KB": "KB",
    "GiB": "GiB",
    "MiB": "MiB",
    "KiB": "KiB",
}
_UNIT_RE = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
#: A number (or a range of two) followed by a unit that ends at a word boundary.
_FIGURE = re.compile(
    rf"(?<![\w.,/-])(?P<a>{_NUM})(?:\s*(?:-|–|to)\s*(?P<b>{_NUM}))?(?P<space>\s?)(?P<unit>{_UNIT_RE})(?![\w/])"
)
_HEDGE = re.compile(r"(?:\babout|\broughly|\baround|\bapproximately|\bnearly|\bnear|\balmost|\bsome|~|≈|\bclose to)\s*$", re.I)
#: "shorter than about 10 us", "= 228 KiB": a threshold or the result of arithmetic shown in the text.
_NOT_A_QUOTE = re.compile(r"(?:\bthan(?:\s+(?:about|roughly|around|~))?|=)\s*$", re.I)
_LOWER = re.compile(r"(?:\bover|\bmore than|\babove|\bat least|\bexceeding|\bbeyond)\s*$", re.I)
_UPPER = re.compile(r"(?:\bunder|\bless than|\bbelow|\bat most|\bup to|\bwithin)\s*$", re.I)
_REFERENCE = re.compile(
    r"\b(?:peaks?|theoretical|datasheet|data sheet|maximum|max|specified|spec|rated|nominal|advertised|raw|roof|quotes|quoted|carries)\b", re.I
)
_GPU = re.compile(r"\b(H100|H200|H20|A100|B200|GB200|L40S?)\b")

#: How far a printed figure may be from a prose figure for the prose one to count as a quote.
NEIGHBOUR_FACTOR = 1.5
#: How far a hedged figure ("about N") may be from the printed one.
HEDGE_TOLERANCE = 0.10


@dataclass(frozen=True)
class RecordOutput:
    """What one record of a snippet printed, and on which GPU."""

    gpu_name: str
    stdout: str


@dataclass(frozen=True)
class Figure:
    """A number with a unit, as written; ``offset`` is its position in the text it came from."""

    value: float
    unit: str
    text: str
    offset: int
    #: Half the step of the last written digit: 340 -> 5, 0.20 -> 0.005, 416 -> 0.5.
    half_step: float
    #: "about", "lower" (over N), "upper" (up to N) or "" (exact).
    qualifier: str = ""
    #: The upper end of a range ("276 to 283 cycles"); ``value`` is then its lower end.
    high: float | None = None
    high_half: float = 0.0


@dataclass(frozen=True)
class FigureProblem:
    figure: Figure
    #: The printed values of the same unit that made the figure a quote, closest first.
    near: tuple[float, ...]
    gpus: tuple[str, ...]

    def describe(self) -> str:
        shown = ", ".join(_fmt(v) for v in self.near[:3])
        where = " or ".join(self.gpus) if self.gpus else "any GPU"
        how = {"about": "within 10 % of", "lower": "at or above", "upper": "at or below"}.get(self.figure.qualifier, "rounding to")
        if self.figure.high is not None:
            how = "a range holding"
        return (f"'{self.figure.text}' matches no figure the snippet printed on {where} "
                f"(nearest: {shown} {self.figure.unit}; a figure must be {how} a printed one)")


def _fmt(value: float) -> str:
    return f"{value:g}"


def _number(text: str) -> tuple[float, float]:
    """The value of a written number and half the step of its last digit."""
    plain = text.replace(",", "")
    if "." in plain:
        decimals = len(plain.split(".", 1)[1])
        return float(plain), 0.5 * 10.0 ** -decimals
    # Trailing zeros of a number of three or more digits are read as rounding (340, 1,980).
    stripped = plain.rstrip("0")
    zeros = len(plain) - len(stripped) if stripped and len(plain) >= 3 else 0
    return float(plain), 0.5 * 10.0 ** zeros


def _qualifier(before: str) -> str:
    if _HEDGE.search(before):
        return "about"
    if _LOWER.search(before):
        return "lower"
    if _UPPER.search(before):
        return "upper"
    return ""


def parse_figures(text: str) -> list[Figure]:
    """Every figure in ``text``: a number, or both ends of a range, followed by a known unit."""
    out: list[Figure] = []
    for m in _FIGURE.finditer(text):
        unit = _UNITS[m.group("unit")]
        if unit == "x" and m.group("space"):
            continue  # "16 x 16" is a shape, "1.99x" a ratio
        qualifier = _qualifier(text[max(0, m.start() - 20) : m.start()])
        low, low_half = _number(m.group("a"))
        if m.group("b") is None:
            out.append(Figure(low, unit, m.group(0), m.start(), low_half, qualifier))
            continue
        # A range states a spread (between runs, GPUs or copies): it holds when a printed value lies in it.
        high, high_half = _number(m.group("b"))
        out.append(Figure(low, unit, m.group(0), m.start(), low_half, "", high, high_half))
    return out


def _table_figures(stdout: str) -> list[tuple[float, str]]:
    """Figures in whitespace-separated tables whose header names the unit (``busbw_GB/s``, ``time_us``)."""
    found: list[tuple[float, str]] = []
    units: list[str | None] | None = None
    for line in stdout.splitlines():
        cells = line.split()
        header = [_UNITS.get(c.rsplit("_", 1)[1]) if "_" in c else None for c in cells]
        if any(header) and not any(re.fullmatch(_NUM, c) for c in cells):
            units = header
            continue
        if units is None or len(cells) != len(units):
            units = None  # the table ended
            continue
        for cell, unit in zip(cells, units, strict=True):
            if unit and re.fullmatch(_NUM, cell):
                found.append((_number(cell)[0], unit))
    return found


@lru_cache(maxsize=4096)
def _stdout_figures(stdout: str) -> tuple[tuple[float, str], ...]:
    """(value, unit) of every figure one record printed; records are quoted by many sentences."""
    return tuple((f.value, f.unit) for f in parse_figures(stdout)) + tuple(_table_figures(stdout))


@lru_cache(maxsize=1024)
def _written_figures(written: str) -> frozenset[tuple[float, str]]:
    return frozenset((f.value, f.unit) for f in parse_figures(written))


def printed_figures(outputs: Iterable[RecordOutput]) -> list[tuple[str, float, str]]:
    """(gpu_name, value, unit) for every figure in the records' stdout, tables included."""
    return [(output.gpu_name, value, unit) for output in outputs for value, unit in _stdout_figures(output.stdout)]


def _matches(figure: Figure, value: float) -> bool:
    eps = 1e-9 * max(1.0, abs(value))
    if figure.high is not None:
        return figure.value - figure.half_step - eps <= value <= figure.high + figure.high_half + eps
    if abs(value - figure.value) <= figure.half_step + eps:
        return True
    if figure.qualifier == "about":
        return abs(value - figure.value) <= HEDGE_TOLERANCE * abs(value) + eps
    if figure.qualifier == "lower":
        return value >= figure.value - eps
    if figure.qualifier == "upper":
        return value <= figure.value + eps
    return False


def _is_neighbour(figure: Figure, value: float) -> bool:
    low, high = figure.value, figure.high if figure.high is not None else figure.value
    if low <= 0 or value <= 0:
        return low <= value <= high
    return low / NEIGHBOUR_FACTOR <= value <= high * NEIGHBOUR_FACTOR


def gpus_named(sentence: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(_GPU.findall(sentence)))


def _gpu_of(sentence: str, offset: int) -> str | None:
    """The GPU a figure at ``offset`` is quoted for: the last one named before it in the sentence,
    else the only one the sentence names, else None (any GPU)."""
    before = _GPU.findall(sentence[:offset])
    if before:
        return before[-1]
    named = gpus_named(sentence)
    return named[0] if len(named) == 1 else None


def _is_reference(sentence: str, figure: Figure) -> bool:
    """A figure presented as a specification, not a measurement ("the 1,980 MHz maximum")."""
    end = figure.offset + len(figure.text)
    window = sentence[max(0, figure.offset - 50) : end + 50]
    return _REFERENCE.search(window) is not None or _NOT_A_QUOTE.search(sentence[max(0, figure.offset - 20) : figure.offset]) is not None


def quoted_figures(prose: str, outputs: Sequence[RecordOutput], written: str = "") -> list[Figure]:
    """Figures in ``prose`` that match a figure the records printed: the measurements it quotes."""
    constants = _written_figures(written)
    printed = printed_figures(outputs)
    found: list[Figure] = []
    for figure in parse_figures(prose):
        if (figure.value, figure.unit) in constants or _is_reference(prose, figure):
            continue
        same_unit = [v for _, v, u in printed if u == figure.unit]
        if any(_is_neighbour(figure, v) for v in same_unit) and any(_matches(figure, v) for v in same_unit):
            found.append(figure)
    return found


def figure_problems(prose: str, outputs: Sequence[RecordOutput], written: str = "") -> list[FigureProblem]:
    """Figures in ``prose`` that quote the records in ``outputs`` but match none of their figures.

    ``prose`` is one sentence; ``outputs`` holds what each record of the snippets the prose
    describes printed (one per GPU, or one per run). ``written`` is text whose figures the prose
    may repeat without their being measurements (the snippet's source and output fence:
    "a 256 MiB buffer", "1e8 cycles, about 50 ms"); only its figures with units count.
    """
    constants = _written_figures(written)
    problems: list[FigureProblem] = []
    for figure in parse_figures(prose):
        if (figure.value, figure.unit) in constants or _is_reference(prose, figure):
            continue
        gpu = _gpu_of(prose, figure.offset)
        pool = [o for o in outputs if gpu is None or gpu in o.gpu_name]
        same_unit = [v for _, v, u in printed_figures(pool) if u == figure.unit]
        near = sorted({v for v in same_unit if _is_neighbour(figure, v)}, key=lambda v: abs(v - figure.value))
        if not near or any(_matches(figure, v) for v in same_unit):
            continue
        gpus = tuple(dict.fromkeys(o.gpu_name for o in pool))
        problems.append(FigureProblem(figure, tuple(near), gpus))
    return problems
