"""Read ``diagrams/*.yml`` into :class:`Diagram` values, and check them against the glossary.

The shape of a diagram file is declared once below (:data:`DIAGRAM`, :data:`BOX`...) with the
schema layer of :mod:`glossary_tool.load.schema`, which checks the composed YAML and reports
each problem at its node: a typo in a box, an unknown ``term`` or a dangling arrow is reported
at ``diagrams/<name>.yml:<line>:<col>`` like any other ``glossary check`` problem, and a broken
diagram never stops the rest of the build. What a schema cannot say (ids unique, arrows
naming boxes, points inside the axes) is checked here, through the same path-to-line helper.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path as FilePath
from types import MappingProxyType
from typing import Any

from glossary_tool.diagnostics import Diagnostic, error, warning
from glossary_tool.draw.model import ALIGNS, LAYOUTS, Arrow, Axis, Box, Diagram, Mark, Plot, Series
from glossary_tool.draw.style import TONES
from glossary_tool.load import cache, schema
from glossary_tool.load.cache import Cache
from glossary_tool.load.schema import Check, Choice, Codes, Document, Field, Fields, Flag, ListOf, Number, Pair, Path, Raw, Record, Text, Whole, collapse
from glossary_tool.model import Glossary, Term
from glossary_tool.text import SLUG_RE

SUFFIXES = (".yml", ".yaml")
MAX_BYTES = 500_000
MAX_REPEAT = 1024
MAX_BOXES = 5000
#: Boxes inside boxes, at most: bounds the recursion of reading, layout and drawing (a
#: self-referencing YAML alias would otherwise recurse until Python gives up).
MAX_DEPTH = 32

#: Diagnostic codes, so tests and docs name them once.
SYNTAX = "diagram-syntax"
INVALID = "diagram-invalid"
ID = "diagram-id"
UNKNOWN_TERM = "diagram-unknown-term"
UNKNOWN = "diagram-unknown"
UNUSED = "diagram-unused"
CODES = Codes(INVALID, INVALID, INVALID, INVALID, SYNTAX)

# --- the shape of a diagram file, declared once ---


def _keep(text: str) -> str:
    return text.strip("\n")


_TEXT = Text(numbers=True, tidy=_keep)
_SIZE = Field(Number(positive=True, most=2000))
_SPACE = Field(Number(least=0, most=2000))
_TONE = Field(Choice(tuple(TONES)))
_CHILDREN = Field(ListOf(Raw()), nullable=True)  # boxes: walked by _Walk, which bounds depth and count
AXIS = Record(
    {
        "label": Field(_TEXT, required=True),
        "min": Field(Number(), required=True),
        "max": Field(Number(), required=True),
        "log": Field(Flag()),
        "ticks": Field(ListOf(Number(), item_what="a tick"), nullable=True),
        "tick_labels": Field(ListOf(Text(empty=True, numbers=True, tidy=_keep), item_what="a tick label"), nullable=True),
    },
    label="{parent} '{key}'",
)
SERIES = Record(
    {
        "label": Field(_TEXT, required=True),
        "points": Field(ListOf(Pair(), min_items=2, expected="a list of at least two points [x, y]", item_what="a point"), required=True),
        "tone": _TONE,
        "dashed": Field(Flag()),
        "label_at": Field(Pair()),
    },
    label="{parent} '{key}'",
)
MARK = Record({"label": Field(_TEXT, required=True), "at": Field(Pair(), required=True)}, label="{parent} '{key}'")
PLOT = Record(
    {
        "width": _SIZE,
        "height": _SIZE,
        "x": Field(AXIS, required=True, label="the x axis"),
        "y": Field(AXIS, required=True, label="the y axis"),
        "series": Field(ListOf(SERIES, item_what="a series"), nullable=True),
        "marks": Field(ListOf(MARK, item_what="a mark"), nullable=True),
    },
    label="the plot '{key}'",
    missing="a plot needs a '{key}' axis",
)
ARROW = Record(
    {"from": Field(_TEXT, required=True), "to": Field(_TEXT, required=True), "label": Field(_TEXT), "dashed": Field(Flag()), "both": Field(Flag())},
    missing="an arrow needs '{key}' (the id of a box)",
)
BOX = Record(
    {
        "label": Field(Text(empty=True, numbers=True, tidy=_keep)),  # label: "" draws a box without text (a lane, a bank)
        "caption": Field(_TEXT),
        "term": Field(Text(numbers=True)),
        "id": Field(_TEXT),
        "layout": Field(Choice(LAYOUTS)),
        "align": Field(Choice(ALIGNS)),
        "columns": Field(Whole(1, 64)),
        "gap": _SPACE,
        "pad": _SPACE,
        "boxes": _CHILDREN,
        "repeat": Field(Whole(1, MAX_REPEAT)),
        "show": Field(Whole(1, MAX_REPEAT)),
        "more": Field(_TEXT),
        "width": _SIZE,
        "height": _SIZE,
        "tone": _TONE,
        "dashed": Field(Flag()),
        "plot": Field(PLOT),
    }
)
DIAGRAM = Record(
    {
        "title": Field(_TEXT, required=True),
        "description": Field(_TEXT, required=True, missing="diagram needs a 'description' (plain text: alt text and caption)"),
        "layout": BOX.fields["layout"],
        "columns": BOX.fields["columns"],
        "gap": _SPACE,
        "boxes": Field(ListOf(Raw()), required=True),
        "arrows": Field(ListOf(ARROW, item_what="an arrow"), nullable=True),
        "notes": Field(ListOf(_TEXT, item_what="a note"), nullable=True),
        "legend": Field(Flag()),
    },
    missing="diagram needs a '{key}'",
    partial=True,
)


def parse_diagram(name: str, path: str, text: str) -> tuple[Diagram | None, list[Diagnostic]]:
    """One diagram from its YAML text; ``path`` is how diagnostics name the file."""
    doc, broken = schema.compose(path, text, "invalid YAML", code=SYNTAX)
    if doc is None:
        return None, broken
    node = doc.root
    if node is None:
        return None, [error(path, 1, 1, INVALID, "diagram file is empty; it needs 'title', 'description' and 'boxes'")]
    ck = Check(CODES)
    if not SLUG_RE.match(name):
        ck.fail((), f"diagram file name '{name}' must be a kebab-case name such as 'sm-architecture.yml'")
    top = ck.check(DIAGRAM, node, (), "a diagram")
    if top is schema.INVALID:
        return None, doc.diagnostics(ck.problems)
    walk = _Walk(doc, ck)
    root = walk.box(top, (), inside_repeat=False)
    found = top.get("arrows", ())
    walk.check_arrows(root, found)
    arrows = tuple(Arrow(a["from"], a["to"], doc.line(a.path), a.get("label"), a.get("dashed", False), a.get("both", False)) for a in found)
    if ck.problems:
        return None, doc.diagnostics(ck.problems)
    notes = tuple(collapse(n) for n in top.get("notes", ()))
    return Diagram(name, path, collapse(top["title"]), collapse(top["description"]), root, arrows, notes, top.get("legend", False)), []


@dataclass
class _Walk:
    """Boxes in boxes, checked against :data:`BOX` one level at a time: depth and count stay
    bounded (YAML aliases can make a small file name billions of boxes, or loop)."""

    doc: Document
    ck: Check
    count: int = 0
    depth: int = 0
    #: id -> line of the box that first uses it
    seen: dict[str, int] = field(default_factory=dict)

    def box(self, f: Mapping[str, Any], path: Path, *, inside_repeat: bool) -> Box:
        ck, line = self.ck, self.doc.line(path)
        self.count += 1
        if self.count == MAX_BOXES + 1:
            ck.fail(path, f"a diagram may have at most {MAX_BOXES} boxes")
        if self.count > MAX_BOXES:  # stop reading
            return Box(line=line)
        kw: dict[str, Any] = {k: f[k] for k in ("label", "caption", "more", "layout", "align", "columns", "gap", "pad", "width", "height", "tone", "dashed") if k in f}
        if "term" in f:
            kw["term"], kw["term_line"] = f["term"], self.doc.line((*path, "term"))
        ident = f.get("id")
        if ident is not None and not SLUG_RE.match(ident):
            ck.fail((*path, "id"), f"id '{ident}' must be kebab-case: lower-case letters, digits and '-'", ID)
        elif ident is not None and inside_repeat:
            ck.fail((*path, "id"), f"id '{ident}' is inside a repeated box, so it would name several boxes; give the id to the repeated box instead", ID)
        elif ident is not None and ident in self.seen:
            ck.fail((*path, "id"), f"id '{ident}' is already used on line {self.seen[ident]}", ID)
        elif ident is not None:
            kw["id"], self.seen[ident] = ident, line
        repeat = kw["repeat"] = f.get("repeat", 1)
        show = f.get("show")
        if show is not None and show >= repeat:
            ck.fail((*path, "show"), f"'show' ({show}) must be smaller than 'repeat' ({repeat}); it draws that many copies and one 'more' box")
        elif show is not None:
            kw["show"] = show
        if "columns" in f and f.get("layout") != "grid":
            ck.fail((*path, "columns"), "'columns' only applies to 'layout: grid'")
        children = f.get("boxes")
        if children is not None and self.depth >= MAX_DEPTH:
            ck.fail((*path, "boxes"), f"boxes may nest at most {MAX_DEPTH} levels deep")
        elif children is not None:
            self.depth += 1
            found = []
            for index, child in enumerate(children):
                at = (*path, "boxes", index)
                fields = ck.check(BOX, child, at, "a box")
                if fields is not schema.INVALID:
                    found.append(self.box(fields, at, inside_repeat=inside_repeat or repeat > 1))
            self.depth -= 1
            kw["boxes"] = tuple(found)
            if not children:
                ck.fail((*path, "boxes"), "'boxes' is empty; leave it out for a box without children")
        if "plot" in f and children is not None:
            ck.fail((*path, "plot"), "a box holds either 'boxes' or a 'plot', not both")
        elif "plot" in f:
            kw["plot"] = self.plot(f["plot"], (*path, "plot"))
        return Box(line=line, **kw)

    def plot(self, f: Mapping[str, Any], path: Path) -> Plot | None:
        axes = [self.axis(f[k], (*path, k), f"the {k} axis") if k in f else None for k in ("x", "y")]
        x, y = axes
        series = []
        for s in f.get("series", ()):
            at = s.path
            if x is not None and y is not None:
                outside = next(((px, py) for px, py in s["points"] if not (x.min <= px <= x.max and y.min <= py <= y.max)), None)
                if outside is not None:
                    self.ck.fail(at, f"series '{s['label']}' has point [{outside[0]:g}, {outside[1]:g}] outside the axes")
            series.append(Series(s["label"], s["points"], s.get("tone"), s.get("dashed", False), s.get("label_at"), self.doc.line(at)))
        marks = tuple(Mark(m["label"], m["at"], self.doc.line(m.path)) for m in f.get("marks", ()))
        if x is None or y is None:
            return None
        # sizes past 2000 are refused by the schema; min() keeps the defaults' meaning explicit
        return Plot(x, y, tuple(series), marks, min(f.get("width", 560.0), 2000.0), min(f.get("height", 320.0), 2000.0))

    def axis(self, f: Mapping[str, Any], path: Path, what: str) -> Axis | None:
        low, high, log = f["min"], f["max"], f.get("log", False)
        ticks, tick_labels = f.get("ticks", ()), f.get("tick_labels", ())
        if high <= low or (log and low <= 0):
            self.ck.fail(path, f"{what} needs min < max" + (", both above 0 on a log axis" if log else ""))
            return None
        if tick_labels and len(tick_labels) != len(ticks):
            self.ck.fail((*path, "tick_labels"), f"{what} has {len(ticks)} ticks but {len(tick_labels)} tick labels")
            return None
        for index, tick in enumerate(ticks):
            if not low <= tick <= high:
                self.ck.fail((*path, "ticks", index), f"tick {tick:g} lies outside {what} [{low:g}, {high:g}]")
                return None
        return Axis(f["label"], low, high, log, ticks, tick_labels)

    def check_arrows(self, root: Box, arrows: Iterable[Fields]) -> None:
        names = box_ids(root)
        for arrow in arrows:
            for key in ("from", "to"):
                end = arrow[key]
                if end not in names:
                    close = difflib.get_close_matches(end, sorted(names), n=1)
                    hint = f"; did you mean '{close[0]}'?" if close else ("; known ids: " + ", ".join(sorted(self.seen)) if self.seen else "; give the box an 'id' first")
                    self.ck.fail((*arrow.path, key), f"arrow end '{end}' names no box{hint}", ID)


def box_ids(root: Box) -> dict[str, tuple[Box, int]]:
    """Every name an arrow may use: ``id`` for a box, ``id.N`` for copy N (from 0) of a repeated one."""
    found: dict[str, tuple[Box, int]] = {}

    def walk(box: Box) -> None:
        if box.id:
            found.setdefault(box.id, (box, 0))
            if box.repeat > 1:
                for index in range(box.show or box.repeat):
                    found.setdefault(f"{box.id}.{index}", (box, index))
        for child in box.boxes:
            walk(child)

    walk(root)
    return found


@dataclass(frozen=True)
class LoadedDiagrams:
    """The diagrams that loaded, the names of those that did not, and why."""

    diagrams: Mapping[str, Diagram]
    #: Files that exist but failed to load: terms naming them get no second "unknown" error.
    broken: frozenset[str]
    diagnostics: tuple[Diagnostic, ...]


def load_diagrams(directory: FilePath, root: FilePath, store: Cache | None = None) -> LoadedDiagrams:
    """Every ``*.yml`` under ``directory`` (not recursive), keyed by name; paths relative to
    ``root``. ``store``: the content cache, which keeps each file's parse (a pure function of
    its name, shown path and text) across runs."""
    out: list[Diagnostic] = []
    diagrams: dict[str, Diagram] = {}
    broken: set[str] = set()
    if not directory.is_dir():
        return LoadedDiagrams(MappingProxyType(diagrams), frozenset(), ())
    for path in sorted(directory.iterdir()):
        if path.name.startswith(".") or path.is_dir() or path.suffix not in SUFFIXES:
            continue
        try:
            shown = path.relative_to(root).as_posix()
        except ValueError:
            shown = path.as_posix()
        if path.is_symlink() and not path.resolve().is_relative_to(directory.resolve()):
            out.append(error(shown, 1, 1, "symlink-outside", f"symbolic link points outside diagrams/ ({os.readlink(path)}); copy the file in instead"))
            broken.add(path.stem)
            continue
        text = _read(path, shown, out)
        if text is None:
            broken.add(path.stem)
            continue
        if path.stem in diagrams:
            out.append(error(shown, 1, 1, INVALID, f"diagram '{path.stem}' is defined twice ({diagrams[path.stem].path})"))
            continue
        diagram, problems = _parse_cached(path.stem, shown, text, store)
        out += problems
        if diagram is not None:
            diagrams[diagram.name] = diagram
        else:
            broken.add(path.stem)
    return LoadedDiagrams(MappingProxyType(dict(sorted(diagrams.items()))), frozenset(broken), tuple(out))


def _parse_cached(name: str, shown: str, text: str, store: Cache | None) -> tuple[Diagram | None, list[Diagnostic]]:
    """:func:`parse_diagram` through the content cache (100 diagrams: 0.07 s of a warm check)."""
    if store is None:
        return parse_diagram(name, shown, text)
    return store.get_or_make(cache.key("diagram", name, shown, text), lambda: parse_diagram(name, shown, text))


def _read(path: FilePath, shown: str, out: list[Diagnostic]) -> str | None:
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            out.append(error(shown, 1, 1, INVALID, f"diagram file is {size:,} bytes; at most {MAX_BYTES:,} allowed"))
            return None
        data = path.read_bytes()
    except OSError as exc:
        out.append(error(shown, 1, 1, INVALID, f"cannot read diagram file: {exc.strerror or exc}"))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        out.append(error(shown, line, 1, SYNTAX, f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8"))
        return None
    return text.removeprefix("\ufeff").replace("\r\n", "\n")


def check_diagrams(diagrams: Mapping[str, Diagram], glossary: Glossary, broken: Iterable[str] = ()) -> list[Diagnostic]:
    """Cross-checks that need both sides: diagram -> term names, term -> diagram names."""
    broken = set(broken)
    out: list[Diagnostic] = []
    slugs = sorted(glossary.terms)
    for diagram in diagrams.values():
        for slug, line in diagram.terms():
            if slug not in glossary.terms:
                close = difflib.get_close_matches(slug, slugs, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else "; use a term slug from glossary/toc.yml"
                out.append(error(diagram.path, line, 1, UNKNOWN_TERM, f"unknown term '{slug}'{hint}"))
    used: set[str] = set()
    pages: list[Term] = [*glossary.terms.values(), *(s.page for s in glossary.sections if s.page is not None)]
    for term in pages:
        for name in term.diagrams:
            used.add(name)
            if name not in diagrams and name not in broken:
                close = difflib.get_close_matches(name, sorted(diagrams), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else "; diagrams live in diagrams/<name>.yml"
                out.append(error(term.path, term.line_of("diagrams"), 1, UNKNOWN, f"unknown diagram '{name}'{hint}"))
    for name, diagram in diagrams.items():
        if name not in used:
            out.append(warning(diagram.path, 1, 1, UNUSED, f"no term shows diagram '{name}'; add it to the 'diagrams:' front matter of the terms it explains"))
    return out
