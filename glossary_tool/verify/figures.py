"""Figures quoted in prose against the figures a snippet printed.

A page that says "a hop took 414 cycles" while its record says 416 has drifted; so has one that
still quotes last month's run after the snippet was re-verified. This module holds the pure part
of that check: find the numbers with units in a piece of prose, find the numbers with units in the
records' stdout, and say which prose figures claim to be a record's figure but match none.

Rules (documented in CONTRIBUTING.md, "Figures in prose"):

* A figure is a number followed by a unit (``416 cycles``, ``4.8 TB/s``, ``83.7%``, ``1.99x``,
  ``200 microseconds``); a list shares the unit after its last number ("51.5, 431.2 and 870.6
  TFLOP/s"). A range (``6.2-8.1 GB/s``, ``276 to 283 cycles``, "between 59.6 and 64.4 TFLOP/s")
  is one figure: it states a spread, between runs, copies or GPUs, and holds when some printed
  value lies inside it; ends more than ``RANGE_FACTOR`` apart are two figures, not a range.
* Ratios ("18 times slower", "a ratio of 1.78") are matched against printed ratios and numbers
  and against ratios of two figures of one unit in one record; a share "of" a figure ("81.2 % of
  the 4,814 GB/s") against printed figures of that quantity divided by it.
* A number without a unit is checked when it reads as a measurement (a decimal point, an
  exponent, or ``UNITLESS_DIGITS`` significant digits) and is not a version, year, power of two,
  name ("stride 32"), compound ("2,048-thread") or operand of arithmetic written out.
* A figure is *checked* when some record printed a value of the same quantity within a factor of
  1.5 of it (in any unit of that quantity): that is a figure that claims to come from the record.
  Figures with no such neighbour (a derived estimate of a different size) are left alone.
* A checked figure matches a printed one when the printed value rounds to it at the precision it
  is written with (``0.20 ms`` stands for 0.195-0.205; trailing zeros of a number of three or more
  digits are read as rounding, so ``340 ns`` stands for 335-345 but ``40 cycles`` for 39.5-40.5). After a hedge
  (``about``, ``roughly``, ``~`` ...) it may differ by up to 10 %. After a bound (``over``,
  ``more than``, ``at least`` / ``under``, ``up to``, ``at most``) any printed value on the right
  side of it matches.
* A figure is quoted for the GPU named right after it ("81,079 MiB on the H100"), else the GPU
  named last before it in its sentence (or the only GPU the sentence names) and is matched against that GPU's records only; with no record from that GPU it
  is not checked here. One GPU's output is never quoted as another's.
* A specification keyword ("peak", "maximum", "theoretical", "quoted", "carries", "according
  to" ...) exempts only the figure it qualifies (see :func:`_specifications`), not every figure
  near it; thresholds ("shorter than about 10 us") and the result of arithmetic written out
  before it ("2 x 114 KiB = 228 KiB") are not checked either.

The caller decides which prose belongs to which records (see ``figure_check``); everything here
works on strings, so it does not care how records are stored on disk.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

#: Unit spellings -> canonical unit. Longest spellings first in the regex below.
_UNITS: dict[str, str] = {
    "cycles": "cycles",
    "cycle": "cycles",
    "ns": "ns",
    "nanoseconds": "ns",
    "us": "us",
    "µs": "us",
    "μs": "us",
    "microseconds": "us",
    "microsecond": "us",
    "ms": "ms",
    "milliseconds": "ms",
    "millisecond": "ms",
    "s": "s",
    "seconds": "s",
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
    "G results/s": "G results/s",
    "ulp": "ulp",
    "TB": "TB",
    "GB": "GB",
    "MB": "MB",
    "KB": "KB",
    "GiB": "GiB",
    "MiB": "MiB",
    "KiB": "KiB",
}
#: Units of one quantity and their size in a base unit: a share "of 4.8 TB/s" is computed from
#: figures printed in GB/s.
_SCALE: dict[str, tuple[str, float]] = {
    "TB/s": ("B/s", 1e12), "GB/s": ("B/s", 1e9), "MB/s": ("B/s", 1e6), "GiB/s": ("B/s", 2.0**30),
    "TFLOP/s": ("FLOP/s", 1e12), "GFLOP/s": ("FLOP/s", 1e9), "GHz": ("Hz", 1e9), "MHz": ("Hz", 1e6),
    "s": ("s", 1.0), "ms": ("s", 1e-3), "us": ("s", 1e-6), "ns": ("s", 1e-9),
    "TB": ("B", 1e12), "GB": ("B", 1e9), "MB": ("B", 1e6), "KB": ("B", 1e3),
    "GiB": ("B", 2.0**30), "MiB": ("B", 2.0**20), "KiB": ("B", 2.0**10),
}
_UNIT_RE = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
#: A number (or a range of two) followed by a unit that ends at a word boundary.
_FIGURE = re.compile(
    rf"(?<![\w.,/-])(?P<a>{_NUM})(?:\s*(?:-|–|to)\s*(?P<b>{_NUM}))?(?P<space>\s?)(?P<unit>{_UNIT_RE})(?![\w/])"
)
#: A ratio written in words: "18 times slower", "1.99 times as long", "a ratio of 1.78" (a count
#: such as "loads the table 1,056 times" matches the printed number itself).
_RATIO = re.compile(
    rf"(?<![\w.,/-])(?P<a>{_NUM})\s+times\b"
    rf"|\bratio\s+of\s+(?:only\s+|about\s+|roughly\s+)?(?P<r>{_NUM})(?![\w]|\.\d)",
)
#: The number before a list's last member: "51.5, 431.2 and 870.6 TFLOP/s" shares the unit.
_LIST_BEFORE = re.compile(rf"(?<![\w.,/^-])(?P<n>{_NUM})(?P<sep>\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)$")
_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
#: A number without a unit; ``-`` or ``−`` before it is a sign, "e-7" after it an exponent.
_NUMBER = re.compile(rf"(?<![\w.,/^])(?P<sign>[-−])?(?P<n>{_NUM})(?P<exp>[eE][-+−]?\d+)?(?![\w%]|\.\d|,\d|-\w)")
#: Printed numbers: as loose as a program's output is.
_PRINTED_NUMBER = re.compile(r"(?<![\w.])[-−]?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?")
_HEDGE = re.compile(r"(?:\babout|\broughly|\baround|\bapproximately|\bnearly|\bnear|\balmost|\bsome|~|≈|\bclose to)\s*$", re.I)
#: "shorter than about 10 us", "= 228 KiB": a threshold or the result of arithmetic shown in the text.
_NOT_A_QUOTE = re.compile(r"(?:\bthan(?:\s+(?:about|roughly|around|~))?|=)\s*$", re.I)
_LOWER = re.compile(r"(?:\bover|\bmore than|\babove|\bat least|\bexceeding|\bbeyond)\s*$", re.I)
#: "up to" is a bound, but "add up to" a sum.
_UPPER = re.compile(r"(?:\bunder|\bless than|\bbelow|\bat most|(?<!\badd )(?<!\badds )(?<!\badded )\bup to|\bwithin)\s*$", re.I)
_REFERENCE = re.compile(
    r"\b(?:peaks?|theoretical|datasheet|data sheet|maximum|max|specified|specification|spec|rated|nominal|advertised|raw|roof|quotes|quoted|carries|according to|product page|white ?paper)\b", re.I
)
#: Where a specification keyword's reach ends: it qualifies a figure of its own clause.
_CLAUSE_END = re.compile(r"[,;:()]|\s[-–—]\s")
_DETERMINER_END = re.compile(r"\b(?:the|its|their|a|an|this|that|our)\s*$", re.I)
#: How far (characters) a specification keyword may stand from the figure it qualifies.
REFERENCE_REACH = 40
#: "6.7 : 1", "56 x 256 = 14,336": an operand of arithmetic written out in the text.
_OPERATOR_BEFORE = re.compile(r"[x×*/+=^:]\s*\(?\s*$")
_OPERATOR_AFTER = re.compile(r"^\s*(?:[A-Za-z]+\s+)?\)?\s*[x×*/+=^:]\s")
#: Words after which a number names a version, an identifier or a setting, not a measurement.
_NAME_BEFORE = re.compile(
    r"\b(?:CUDA|capability|cc|version|versions|release|driver|nvcc|NCCL|cuDNN|PTX|ISA|sm|compute_|lane|lanes|element|elements|"
    r"bin|bins|rank|ranks|GPU|GPUs|link|links|phase|column|columns|row|rows|index|tile|stride|strides|step|level|levels|node|"
    r"error|code|W|N|K|M|d)\s*$"
)
_GPU = re.compile(r"\b(H100|H200|H20|A100|B200|GB200|L40S?)\b")

#: How far a printed figure may be from a prose figure for the prose one to count as a quote.
NEIGHBOUR_FACTOR = 1.5
#: How far a hedged figure ("about N") may be from the printed one.
HEDGE_TOLERANCE = 0.10
#: A "range" whose ends are further apart than this is no range: "from 1,300 GB/s at stride 1 to
#: 480 GB/s" runs two figures together.
RANGE_FACTOR = 2.0
#: A unitless number is read as a measurement only with this many significant digits (or a decimal
#: point): "977 program instances", "4.23"; "lane 5", "8 blocks" are the program's own settings.
UNITLESS_DIGITS = 3


@dataclass(frozen=True)
class RecordOutput:
    """What one record of a snippet printed, and on which GPU."""

    gpu_name: str
    stdout: str


@dataclass(frozen=True)
class Figure:
    """A number with a unit, as written; ``offset`` is its position in the text it came from.

    ``unit`` is "" for a number written without one ("977 program instances") and "x" for a
    ratio ("1.99x", "18 times slower", "a ratio of 1.78").
    """

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
    #: The figure a percentage is taken of ("81.2 % of the 4,814 GB/s", "0.2 % below the 1980 MHz
    #: maximum"): value, unit and "of", "below" or "above".
    base: tuple[float, str, str] | None = None
    #: Offset of the figure that carries the unit of a list ("51.5, 431.2 and 870.6 TFLOP/s"):
    #: the members of one list share it, and a specification keyword exempts the whole list.
    group: int = -1


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
        unit = {"": "", "x": " x (printed, or the ratio of two printed figures)"}.get(self.figure.unit, " " + self.figure.unit)
        if self.figure.base is not None:
            value, of, relation = self.figure.base
            unit = f"% (printed, or a printed figure {'as a share of' if relation == 'of' else relation} {_fmt(value)} {of})"
        return (f"'{self.figure.text}' matches no figure the snippet printed on {where} "
                f"(nearest: {shown}{unit}; a figure must be {how} a printed one)")


def _fmt(value: float) -> str:
    return f"{value:g}"


def _number(text: str) -> tuple[float, float]:
    """The value of a written number and half the step of its last digit."""
    plain = text.replace(",", "").replace("−", "-")
    mantissa, _, exponent = plain.lower().partition("e")
    scale = 10.0 ** int(exponent) if exponent else 1.0
    if "." in mantissa:
        decimals = len(mantissa.split(".", 1)[1])
        return abs(float(mantissa)) * scale, 0.5 * 10.0 ** -decimals * scale
    if exponent:
        return abs(float(mantissa)) * scale, 0.5 * scale
    # Trailing zeros of a number of three or more digits are read as rounding (340, 1,980).
    digits = mantissa.lstrip("-")
    stripped = digits.rstrip("0")
    zeros = len(digits) - len(stripped) if stripped and len(digits) >= 3 else 0
    return abs(float(digits)), 0.5 * 10.0 ** zeros


def _qualifier(before: str) -> str:
    if _HEDGE.search(before):
        return "about"
    if _LOWER.search(before):
        return "lower"
    if _UPPER.search(before):
        return "upper"
    return ""


def _list_members(text: str, end: int, unit: str, group: int, qualifier: str) -> list[Figure]:
    """Numbers listed before a figure that share its unit, nearest last ("0.118 and 2.155 ms").

    A list of two after "between" is a range; a number that names something ("CUDA 13.0, 1.2 ms",
    "stride 8 and 0.2 ms") ends the list."""
    members: list[tuple[re.Match[str], int]] = []
    pos = end
    while (m := _LIST_BEFORE.search(text, 0, pos)) is not None and not _NAME_BEFORE.search(text[max(0, m.start() - 20) : m.start()]):
        members.append((m, m.start()))
        pos = m.start()
    if not members:
        return []
    first = members[-1][1]
    shared = qualifier or _qualifier(text[max(0, first - 20) : first])
    out: list[Figure] = []
    for m, start in reversed(members):
        value, half = _number(m.group("n"))
        own = _qualifier(text[max(0, start - 20) : start]) or shared
        out.append(Figure(value, unit, m.group("n"), start, half, own, group=group))
    return out


def _percent_base(text: str, end: int, figures: Sequence[Figure]) -> tuple[float, str, str] | None:
    """The figure a percentage ending at ``end`` is taken of, and how: "83.7 % of the computed
    66.91 TFLOP/s" (of), "0.2 % below the 1980 MHz maximum" (below), "5 % above 3.2 GHz" (above)."""
    m = re.match(r"\s+(?P<relation>of|below|above)\b", text[end:])
    if m is None:
        return None
    after = end + m.end()
    for figure in figures:
        if after <= figure.offset <= after + REFERENCE_REACH and figure.unit in _SCALE and figure.high is None:
            if _CLAUSE_END.search(text[after : figure.offset]) is None:
                return figure.value, figure.unit, m.group("relation")
            return None
    return None


def parse_figures(text: str) -> list[Figure]:
    """Every figure in ``text`` with a unit, in text order: a number, a range, a ratio, or the
    numbers of a list that share the unit after its last one."""
    out: list[Figure] = []
    for m in _FIGURE.finditer(text):
        unit = _UNITS[m.group("unit")]
        if unit == "x" and m.group("space"):
            continue  # "16 x 16" is a shape, "1.99x" a ratio
        low, low_half = _number(m.group("a"))
        if m.group("b") is not None:
            high, high_half = _number(m.group("b"))
            if low <= 0 or high / low <= RANGE_FACTOR:
                # A range states a spread (between runs, GPUs or copies): it holds when a printed value lies in it.
                out.append(Figure(low, unit, m.group(0), m.start(), low_half, "", high, high_half, group=m.start()))
                continue
            start = m.start("b")  # "stride 1 to 480 GB/s": only the second number carries the unit
            qualifier = _qualifier(text[max(0, start - 20) : start])
            out.append(Figure(high, unit, text[start : m.end()], start, high_half, qualifier, group=start))
            continue
        qualifier = _qualifier(text[max(0, m.start() - 20) : m.start()])
        members = _list_members(text, m.start(), unit, m.start(), qualifier)
        if len(members) == 1 and re.search(r"\bbetween\s+$", text[max(0, members[0].offset - 10) : members[0].offset]) \
                and " and " in text[members[0].offset : m.start()]:
            first = members[0]
            out.append(Figure(first.value, unit, text[first.offset : m.end()], first.offset, first.half_step, "", low, low_half, group=m.start()))
            continue
        shared = qualifier or (members[0].qualifier if members else "")
        out += members
        out.append(Figure(low, unit, m.group(0), m.start(), low_half, shared, group=m.start()))
    for m in _RATIO.finditer(text):
        key = "a" if m.group("a") is not None else "r"
        value, half = _number(m.group(key))
        start = m.start(key)
        text_ = m.group(0) if key == "a" else m.group(key)
        out.append(Figure(value, "x", text_, start, half, _qualifier(text[max(0, start - 20) : start]), group=start))
    out.sort(key=lambda f: f.offset)
    # "84 % and 82 % of the 4,814 GB/s": a share "of" a figure, and the shares listed before it.
    base: tuple[float, str, str] | None = None
    for i in reversed(range(len(out))):
        figure = out[i]
        if figure.unit != "%" or figure.high is not None:
            base = None
            continue
        end = figure.offset + len(figure.text)
        own = _percent_base(text, end, out)
        if own is None and base is not None and i + 1 < len(out) and _LIST_SEPARATOR.fullmatch(text[end : out[i + 1].offset]):
            own = base
        base = own
        if own is not None:
            out[i] = Figure(figure.value, "%", figure.text, figure.offset, figure.half_step, figure.qualifier, base=own, group=figure.group)
    return out


def _significant(text: str) -> int:
    digits = text.replace(",", "").split(".")[0].lstrip("-−0")
    return len(digits.rstrip("0")) if digits else 0


def _is_year(text: str) -> bool:
    return re.fullmatch(r"(?:19[89]\d|20[0-3]\d)", text) is not None


def _is_power_of_two(text: str) -> bool:
    value = int(text.replace(",", ""))
    return value > 0 and value & (value - 1) == 0


def parse_numbers(text: str, taken: Sequence[Figure] = ()) -> list[Figure]:
    """Numbers without a unit that read as measurements: a decimal point, an exponent or three
    significant digits, not a version, a year, a power of two (a size or limit of the design), a name ("lane 5", "CUDA 13.0"), a compound
    ("2,048-thread"), an operand of arithmetic written out, or part of a figure in ``taken``."""
    spans = [(f.offset, f.offset + len(f.text)) for f in taken]
    out: list[Figure] = []
    for m in _NUMBER.finditer(text):
        if any(a <= m.start("n") < b for a, b in spans):
            continue
        n = m.group("n")
        if "." not in n and not m.group("exp") and (_significant(n) < UNITLESS_DIGITS or _is_year(n) or _is_power_of_two(n)):
            continue
        before, after = text[max(0, m.start() - 20) : m.start()], text[m.end() : m.end() + 16]
        if _NAME_BEFORE.search(before) or _OPERATOR_BEFORE.search(before) or _OPERATOR_AFTER.match(after) \
                or _NOT_A_QUOTE.search(before) or re.match(r"\s*(?:-|to|–)\s*\d", after) or re.search(r"\d\s*(?:-|to|–)\s*$", before):
            continue  # a name, arithmetic, a threshold, or one end of a range without a unit
        value, half = _number((m.group("sign") or "") + n + (m.group("exp") or ""))
        out.append(Figure(value, "", m.group(0), m.start(), half, _qualifier(before), group=m.start()))
    return out


def _header_unit(cell: str) -> str | None:
    """The unit a table header cell names: ``time_us``, ``time (ms)``, ``useful read GB/s``;
    a unit after "per" is a rate's denominator, not the column's unit."""
    words = re.split(r"[\s,()\[\]]+", cell)
    for i, word in enumerate(words):
        if i and words[i - 1].lower() == "per":
            continue
        unit = _UNITS.get(word) or (_UNITS.get(word.rsplit("_", 1)[1]) if "_" in word else None)
        if unit and unit != "x":
            return unit
    return None


def _table_figures(stdout: str) -> list[tuple[float, str]]:
    """Figures in whitespace-separated tables whose header names each column's unit
    (``busbw_GB/s``, ``time (ms)``, ``useful read GB/s``); header cells are set apart by two or
    more spaces, so a header cell may be several words."""
    found: list[tuple[float, str]] = []
    units: list[str | None] | None = None
    for line in stdout.splitlines():
        cells = line.split()
        header_cells = re.split(r"\s{2,}|\t", line.strip())
        header = [_header_unit(c) for c in header_cells]
        if any(header) and not any(re.fullmatch(_NUM, c) for c in header_cells):
            units = header
            continue
        if units is None or len(cells) != len(units):
            units = None  # the table ended
            continue
        for cell, unit in zip(cells, units, strict=True):
            if unit and re.fullmatch(_NUM, cell):
                found.append((_number(cell)[0], unit))
    return found


@dataclass(frozen=True)
class _Printed:
    """What one record printed: figures by unit, every number, and ratios of figures it printed."""

    figures: tuple[tuple[float, str], ...]
    numbers: tuple[float, ...]
    ratios: tuple[float, ...]
    #: 100 x a / b for two figures of one unit on one line ("962 GFLOP/s measured, roof 1204 GFLOP/s").
    shares: tuple[float, ...]


@lru_cache(maxsize=4096)
def _printed(stdout: str) -> _Printed:
    """One record's figures, parsed once; records are quoted by many sentences."""
    figures = tuple((f.value, f.unit) for f in parse_figures(stdout)) + tuple(_table_figures(stdout))
    numbers = tuple(_number(m.group(0))[0] for m in _PRINTED_NUMBER.finditer(stdout))
    by_unit: dict[str, list[float]] = {}
    for value, unit in figures:
        if value > 0 and unit not in ("x", "%"):
            by_unit.setdefault(unit, []).append(value)
    ratios = tuple(sorted({a / b for values in by_unit.values() for a in values for b in values if a > b}))
    shares: set[float] = set()
    for line in stdout.splitlines():
        on_line = [(f.value, f.unit) for f in parse_figures(line) if f.value > 0 and f.unit not in ("x", "%")]
        shares |= {100.0 * a / b for a, u in on_line for b, w in on_line if u == w and a < b}
    return _Printed(figures, numbers, ratios, tuple(sorted(shares)))


def _candidates(figure: Figure, outputs: Sequence[RecordOutput]) -> list[float]:
    """The printed values ``figure`` may be a quote of: same unit, or the same quantity printed in
    another unit (MiB as GiB); for a ratio also any printed number and the ratio of two figures of
    one record; for a percentage also a figure printed as a share of another on its line, and for a
    share "of" a figure each printed figure of that quantity divided by it; for a unitless number
    any printed number."""
    out: list[float] = []
    for output in outputs:
        printed = _printed(output.stdout)
        if figure.unit == "":
            out += printed.numbers
            continue
        out += [v for v, u in printed.figures if u == figure.unit]
        if figure.unit in _SCALE:  # the same quantity in another unit: 81,559 MiB as 79.6 GiB or 85.5 GB
            quantity, scale = _SCALE[figure.unit]
            out += [v * _SCALE[u][1] / scale for v, u in printed.figures if u != figure.unit and _SCALE.get(u, ("", 0.0))[0] == quantity]
        if figure.unit == "%" and figure.base is None:
            out += printed.shares
        if figure.unit == "x":
            out += printed.numbers
            out += printed.ratios
        if figure.base is not None:
            quantity, base_scale = _SCALE[figure.base[1]]
            whole = figure.base[0] * base_scale
            same = [v * _SCALE[u][1] for v, u in printed.figures if u in _SCALE and _SCALE[u][0] == quantity and whole > 0]
            sign = {"of": 0.0, "below": -1.0, "above": 1.0}[figure.base[2]]
            out += [100.0 * v / whole if not sign else 100.0 * sign * (v - whole) / whole for v in same]
    return out


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


#: "... 81,079 MiB on the H100": a GPU named right after a figure is the one that printed it.
_GPU_AFTER = re.compile(r"\s+(?:on|from)\s+(?:the\s+|an\s+|a\s+)?(?:NVIDIA\s+)?(?P<gpu>H100|H200|H20|A100|B200|GB200|L40S?)\b")


def _gpus_after(sentence: str, figures: Sequence[Figure]) -> dict[int, str]:
    """Offset -> GPU for figures followed directly by "on the H100" (and the figures listed
    before such a figure: "81%, 84% and 78% on the H100"), which the GPU named before them does
    not override."""
    out: dict[int, str] = {}
    ordered = sorted(figures, key=lambda f: f.offset)
    gpu: str | None = None
    for i in reversed(range(len(ordered))):
        figure = ordered[i]
        end = figure.offset + len(figure.text)
        m = _GPU_AFTER.match(sentence, end)
        if m is not None:
            gpu = m.group("gpu")
        elif gpu is not None and i + 1 < len(ordered) and _LIST_SEPARATOR.fullmatch(sentence[end : ordered[i + 1].offset]):
            pass  # a member of the list the GPU closes
        else:
            gpu = None
        if gpu is not None:
            out[figure.offset] = gpu
    return out


def _specifications(sentence: str, figures: Sequence[Figure]) -> set[int]:
    """Groups of the figures presented as specifications, not measurements.

    A keyword ("peak", "maximum", "quoted", "according to" ...) qualifies the nearest figure with a
    physical unit in its clause, within ``REFERENCE_REACH`` characters and with no other keyword
    between ("the 1,980 MHz maximum", "the quoted 450 GB/s", "450 GB/s each way that NVLink 4
    carries"; one before the keyword first), with the rest of its list; and every figure in a
    parenthesis right after the keyword ("peaks (about 495 and 989 TFLOP/s)"). The whole a share is
    taken of ("83 % of its 3.35 TB/s") is a ceiling too. Measurements elsewhere in the sentence
    stay checked: a keyword no longer exempts every figure near it."""
    groups: set[int] = set()
    physical = [f for f in figures if f.unit not in ("", "%", "x")]
    for m in _REFERENCE.finditer(sentence):
        paren = re.match(r"\s*\(([^()]*)\)", sentence[m.end() :])
        if paren:
            a, b = m.end() + paren.start(1), m.end() + paren.end(1)
            groups |= {f.group for f in figures if a <= f.offset < b}
        before: tuple[int, Figure, str] | None = None
        after: tuple[int, Figure] | None = None
        for figure in physical:
            end = figure.offset + len(figure.text)
            is_after = end > m.start()  # "peak of 4.8 TB/s" rather than "the 4.8 TB/s peak"
            gap = sentence[m.end() : figure.offset] if is_after else sentence[end : m.start()]
            if _CLAUSE_END.search(gap) or _REFERENCE.search(gap) or len(gap) > REFERENCE_REACH:
                continue  # another clause, or another keyword's figure
            if is_after and (after is None or len(gap) < after[0]):
                after = (len(gap), figure)
            if not is_after and (before is None or len(gap) < before[0]):
                before = (len(gap), figure, gap)
        # The figure before the keyword ("the 1,980 MHz maximum"), unless the keyword opens the
        # next phrase: "478 GB/s against the quoted 450 GB/s".
        if before is not None and not (after is not None and _DETERMINER_END.search(before[2])):
            groups.add(before[1].group)
        elif after is not None:
            groups.add(after[1].group)
    # The whole a share is taken of ("83 % of its 3.35 TB/s") is a ceiling, not a measurement.
    for share in figures:
        if share.base is not None:
            groups |= {f.group for f in physical if f.offset > share.offset and (f.value, f.unit) == share.base[:2]}
    return groups


def _figures_to_check(prose: str, written: str) -> Iterator[Figure]:
    """Figures of ``prose`` that may be quotes: not repeated from the snippet (``written``), not a
    specification, a threshold or the result of arithmetic shown in the text."""
    constants, numbers = _written(written), _written_numbers(written)
    figures = parse_figures(prose)
    exempt = _specifications(prose, figures)
    for figure in figures + parse_numbers(prose, figures):
        if (figure.value, figure.unit) in constants or (figure.unit == "" and figure.value in numbers):
            continue
        if figure.group in exempt or _NOT_A_QUOTE.search(prose[max(0, figure.offset - 20) : figure.offset]):
            continue
        yield figure


@lru_cache(maxsize=1024)
def _written(written: str) -> frozenset[tuple[float, str]]:
    return frozenset((f.value, f.unit) for f in parse_figures(written))


@lru_cache(maxsize=1024)
def _written_numbers(written: str) -> frozenset[float]:
    """Every number in the snippet's source and output fence: a unitless number the prose repeats
    from there is the program's setting, not its measurement."""
    return frozenset(_number(m.group(0))[0] for m in _PRINTED_NUMBER.finditer(written))


def quoted_figures(prose: str, outputs: Sequence[RecordOutput], written: str = "") -> list[Figure]:
    """Figures with a unit in ``prose`` that match a figure the records printed: the measurements it quotes."""
    found: list[Figure] = []
    for figure in _figures_to_check(prose, written):
        if figure.unit in ("", "x") or figure.base is not None:
            continue
        same_unit = _candidates(figure, outputs)
        if any(_is_neighbour(figure, v) for v in same_unit) and any(_matches(figure, v) for v in same_unit):
            found.append(figure)
    return found


def figure_problems(prose: str, outputs: Sequence[RecordOutput], written: str = "") -> list[FigureProblem]:
    """Figures in ``prose`` that quote the records in ``outputs`` but match none of their figures.

    ``prose`` is one sentence; ``outputs`` holds what each record of the snippets the prose
    describes printed (one per GPU, or one per run). ``written`` is text whose figures the prose
    may repeat without their being measurements (the snippet's source and output fence:
    "a 256 MiB buffer", "1e8 cycles, about 50 ms").
    """
    problems: list[FigureProblem] = []
    checked = list(_figures_to_check(prose, written))
    after = _gpus_after(prose, checked)
    for figure in checked:
        gpu = after.get(figure.offset) or _gpu_of(prose, figure.offset)
        pool = [o for o in outputs if gpu is None or gpu in o.gpu_name]
        values = _candidates(figure, pool)
        near = sorted({v for v in values if _is_neighbour(figure, v)}, key=lambda v: abs(v - figure.value))
        if not near or any(_matches(figure, v) for v in values):
            continue
        gpus = tuple(dict.fromkeys(o.gpu_name for o in pool))
        problems.append(FigureProblem(figure, tuple(near), gpus))
    return problems
