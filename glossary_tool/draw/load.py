"""Read ``diagrams/*.yml`` into :class:`Diagram` values, and check them against the glossary.

The YAML is composed (not just loaded) so every node keeps its line: a typo in a box, an
unknown ``term`` or a dangling arrow is reported at ``diagrams/<name>.yml:<line>`` like any
other ``glossary check`` problem, and a broken diagram never stops the rest of the build.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from glossary_tool.diagnostics import Diagnostic, error, warning
from glossary_tool.draw.model import ALIGNS, LAYOUTS, Arrow, Axis, Box, Diagram, Mark, Plot, Series
from glossary_tool.draw.style import TONES
from glossary_tool.load.frontmatter import loader_for
from glossary_tool.model import Glossary, Term
from glossary_tool.text import SLUG_RE

SUFFIXES = (".yml", ".yaml")
MAX_BYTES = 500_000
MAX_REPEAT = 1024
MAX_BOXES = 5000
#: Boxes inside boxes, at most: bounds the recursion of reading, layout and drawing (a
#: self-referencing YAML alias would otherwise recurse until Python gives up).
MAX_DEPTH = 32

TOP_KEYS = ("title", "description", "layout", "columns", "gap", "boxes", "arrows", "notes", "legend")
BOX_KEYS = ("label", "caption", "term", "id", "layout", "align", "columns", "gap", "pad", "boxes", "repeat", "show", "more", "width", "height", "tone", "dashed", "plot")
ARROW_KEYS = ("from", "to", "label", "dashed", "both")
PLOT_KEYS = ("width", "height", "x", "y", "series", "marks")
AXIS_KEYS = ("label", "min", "max", "log", "ticks", "tick_labels")
SERIES_KEYS = ("label", "points", "tone", "dashed", "label_at")
MARK_KEYS = ("label", "at")

#: Diagnostic codes, so tests and docs name them once.
SYNTAX = "diagram-syntax"
INVALID = "diagram-invalid"
ID = "diagram-id"
UNKNOWN_TERM = "diagram-unknown-term"
UNKNOWN = "diagram-unknown"
UNUSED = "diagram-unused"


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _col(node: yaml.Node) -> int:
    return node.start_mark.column + 1


_KIND = {yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list", yaml.ScalarNode: "a single value"}


@dataclass
class _Reader:
    """Typed access to YAML nodes; every mismatch becomes a diagnostic, never an exception."""

    path: str
    out: list[Diagnostic] = field(default_factory=list)
    count: int = 0
    depth: int = 0

    def fail(self, node: yaml.Node, message: str, code: str = INVALID) -> None:
        self.out.append(error(self.path, _line(node), _col(node), code, message))

    def mapping(self, node: yaml.Node, allowed: tuple[str, ...], what: str) -> dict[str, tuple[yaml.Node, yaml.Node]] | None:
        if not isinstance(node, yaml.MappingNode):
            self.fail(node, f"{what} must be a mapping of keys ({', '.join(allowed)}), not {_KIND.get(type(node), 'that')}")
            return None
        found: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str):
                self.fail(key_node, f"keys of {what} must be plain strings")
                continue
            if key in found:
                self.fail(key_node, f"key '{key}' of {what} is given twice (first on line {_line(found[key][0])})")
                continue
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else f"; allowed: {', '.join(allowed)}"
                self.fail(key_node, f"unknown key '{key}' in {what}{hint}")
                continue
            found[key] = (key_node, value_node)
        return found

    def scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            return _NOT_SCALAR
        try:
            return yaml.constructor.SafeConstructor().construct_object(node)
        except yaml.YAMLError:
            return _NOT_SCALAR

    def string(self, node: yaml.Node, what: str, *, allow_empty: bool = False) -> str | None:
        value = self.scalar(node)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = node.value  # "128" as a label is fine
        if not isinstance(value, str) or (not allow_empty and not value.strip()):
            self.fail(node, f"{what} must be a non-empty string")
            return None
        return value.strip("\n")

    def integer(self, node: yaml.Node, what: str, low: int, high: int) -> int | None:
        value = self.scalar(node)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            self.fail(node, f"{what} must be a whole number from {low} to {high}")
            return None
        return value

    def number(self, node: yaml.Node, what: str, *, positive: bool = False) -> float | None:
        value = self.scalar(node)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or (positive and value <= 0):
            self.fail(node, f"{what} must be a {'positive ' if positive else ''}number")
            return None
        return float(value)

    def boolean(self, node: yaml.Node, what: str) -> bool:
        value = self.scalar(node)
        if not isinstance(value, bool):
            self.fail(node, f"{what} must be true or false")
            return False
        return value

    def sequence(self, node: yaml.Node, what: str) -> list[yaml.Node]:
        if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
            return []
        if not isinstance(node, yaml.SequenceNode):
            self.fail(node, f"{what} must be a list, not {_KIND.get(type(node), 'that')}")
            return []
        return list(node.value)

    def pair(self, node: yaml.Node, what: str) -> tuple[float, float] | None:
        items = self.sequence(node, what)
        if len(items) != 2:
            if isinstance(node, yaml.SequenceNode):
                self.fail(node, f"{what} must be a pair [x, y]")
            return None
        x, y = (self.number(i, what) for i in items)
        return None if x is None or y is None else (x, y)


_NOT_SCALAR = object()


def parse_diagram(name: str, path: str, text: str) -> tuple[Diagram | None, list[Diagnostic]]:
    """One diagram from its YAML text; ``path`` is how diagnostics name the file."""
    reader = _Reader(path)
    try:
        node = yaml.compose(text, Loader=loader_for(text))
    except RecursionError:
        return None, [error(path, 1, 1, SYNTAX, "invalid YAML: nested too deeply")]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line, col = ((mark.line + 1, mark.column + 1) if mark is not None else (1, 1))
        return None, [error(path, line, col, SYNTAX, f"invalid YAML: {problem}")]
    if node is None:
        return None, [error(path, 1, 1, INVALID, "diagram file is empty; it needs 'title', 'description' and 'boxes'")]
    if not SLUG_RE.match(name):
        reader.out.append(error(path, 1, 1, INVALID, f"diagram file name '{name}' must be a kebab-case name such as 'sm-architecture.yml'"))
    top = reader.mapping(node, TOP_KEYS, "a diagram")
    if top is None:
        return None, reader.out
    title = description = None
    for key in ("title", "description", "boxes"):
        if key not in top:
            reader.out.append(error(path, 1, 1, INVALID, f"diagram needs a '{key}'" + (" (plain text: alt text and caption)" if key == "description" else "")))
    if "title" in top:
        title = reader.string(top["title"][1], "'title'")
    if "description" in top:
        description = reader.string(top["description"][1], "'description'")
    root = _box_fields(reader, top, _line(node), inside_repeat=False, root=True)
    arrows = tuple(a for a in (_arrow(reader, n) for n in reader.sequence(top["arrows"][1], "'arrows'")) if a is not None) if "arrows" in top else ()
    notes: list[str] = []
    if "notes" in top:
        for item in reader.sequence(top["notes"][1], "'notes'"):
            note = reader.string(item, "a note")
            if note is not None:
                notes.append(" ".join(note.split()))
    legend = reader.boolean(top["legend"][1], "'legend'") if "legend" in top else False
    _check_ids(reader, root, arrows)
    if title is None or description is None or reader.out:
        return None, reader.out
    return Diagram(name, path, " ".join(title.split()), " ".join(description.split()), root, arrows, tuple(notes), legend), reader.out


def _box(reader: _Reader, node: yaml.Node, inside_repeat: bool) -> Box | None:
    fields = reader.mapping(node, BOX_KEYS, "a box")
    if fields is None:
        return None
    return _box_fields(reader, fields, _line(node), inside_repeat=inside_repeat, root=False)


def _box_fields(reader: _Reader, f: Mapping[str, tuple[yaml.Node, yaml.Node]], line: int, *, inside_repeat: bool, root: bool) -> Box:
    reader.count += 1
    if reader.count == MAX_BOXES + 1:
        reader.out.append(error(reader.path, line, 1, INVALID, f"a diagram may have at most {MAX_BOXES} boxes"))
    if reader.count > MAX_BOXES:  # stop reading: YAML aliases can make a small file name billions of boxes
        return Box(line=line)

    def value(key: str) -> yaml.Node | None:
        return f[key][1] if key in f else None

    kw: dict[str, Any] = {}
    for key in ("label", "caption", "more"):
        n = value(key)
        if n is not None:  # label: "" draws a box without text (a lane, a bank)
            kw[key] = reader.string(n, f"'{key}'", allow_empty=key == "label")
    n = value("term")
    if n is not None:
        term = reader.string(n, "'term'")
        if term is not None:
            kw["term"] = term.strip()
            kw["term_line"] = _line(n)
    n = value("id")
    if n is not None:
        ident = reader.string(n, "'id'")
        if ident is not None and not SLUG_RE.match(ident):
            reader.fail(n, f"id '{ident}' must be kebab-case: lower-case letters, digits and '-'", ID)
        elif ident is not None:
            kw["id"] = ident
    def choice(key: str, allowed: tuple[str, ...], suggest: bool = False) -> None:
        """A string field that must be one of ``allowed`` (with a did-you-mean where ``suggest``)."""
        n = value(key)
        if n is None:
            return
        text = reader.string(n, f"'{key}'")
        if text is not None and text not in allowed:
            close = difflib.get_close_matches(text, allowed, n=1) if suggest else []
            reader.fail(n, f"{key} '{text}' is not one of {', '.join(allowed)}" + (f"; did you mean '{close[0]}'?" if close else ""))
        elif text is not None:
            kw[key] = text

    choice("layout", LAYOUTS)
    choice("align", ALIGNS)
    n = value("columns")
    if n is not None:
        kw["columns"] = reader.integer(n, "'columns'", 1, 64)
    choice("tone", tuple(TONES), suggest=True)
    for key in ("width", "height", "gap", "pad"):
        n = value(key)
        if n is not None:
            number = reader.number(n, f"'{key}'", positive=key in ("width", "height"))
            if number is not None and number > 2000:
                reader.fail(n, f"'{key}' must be at most 2000")
            elif number is not None and number >= 0:
                kw[key] = number
    n = value("dashed")
    if n is not None:
        kw["dashed"] = reader.boolean(n, "'dashed'")
    repeat = 1
    n = value("repeat")
    if n is not None and not root:
        repeat = reader.integer(n, "'repeat'", 1, MAX_REPEAT) or 1
        kw["repeat"] = repeat
    elif n is not None:
        reader.fail(n, "'repeat' belongs on a box, not on the whole diagram")
    n = value("show")
    if n is not None:
        show = reader.integer(n, "'show'", 1, MAX_REPEAT)
        if show is not None and show >= repeat:
            reader.fail(n, f"'show' ({show}) must be smaller than 'repeat' ({repeat}); it draws that many copies and one 'more' box")
        elif show is not None:
            kw["show"] = show
    if "id" in kw and inside_repeat:
        reader.fail(f["id"][1], f"id '{kw['id']}' is inside a repeated box, so it would name several boxes; give the id to the repeated box instead", ID)
        del kw["id"]
    n = value("boxes")
    if n is not None and reader.depth >= MAX_DEPTH:
        reader.fail(n, f"boxes may nest at most {MAX_DEPTH} levels deep")
    elif n is not None:
        reader.depth += 1
        children = [_box(reader, item, inside_repeat or repeat > 1) for item in reader.sequence(n, "'boxes'")]
        reader.depth -= 1
        kw["boxes"] = tuple(c for c in children if c is not None)
        if not kw["boxes"] and isinstance(n, yaml.SequenceNode):
            reader.fail(n, "'boxes' is empty; leave it out for a box without children")
    n = value("plot")
    if n is not None:
        if "boxes" in kw:
            reader.fail(n, "a box holds either 'boxes' or a 'plot', not both")
        else:
            kw["plot"] = _plot(reader, n)
    if kw.get("columns") is not None and kw.get("layout") != "grid":
        reader.fail(f["columns"][1], "'columns' only applies to 'layout: grid'")
    kw = {k: v for k, v in kw.items() if v is not None}
    return Box(line=line, **kw)


def _arrow(reader: _Reader, node: yaml.Node) -> Arrow | None:
    f = reader.mapping(node, ARROW_KEYS, "an arrow")
    if f is None:
        return None
    ends = {}
    for key in ("from", "to"):
        if key not in f:
            reader.fail(node, f"an arrow needs '{key}' (the id of a box)")
            continue
        ends[key] = reader.string(f[key][1], f"'{key}'")
    if ends.get("from") is None or ends.get("to") is None:
        return None
    label = reader.string(f["label"][1], "'label'") if "label" in f else None
    dashed = reader.boolean(f["dashed"][1], "'dashed'") if "dashed" in f else False
    both = reader.boolean(f["both"][1], "'both'") if "both" in f else False
    return Arrow(ends["from"], ends["to"], _line(node), label, dashed, both)


def _axis(reader: _Reader, node: yaml.Node, what: str) -> Axis | None:
    f = reader.mapping(node, AXIS_KEYS, what)
    if f is None:
        return None
    for key in ("label", "min", "max"):
        if key not in f:
            reader.fail(node, f"{what} needs '{key}'")
    if any(k not in f for k in ("label", "min", "max")):
        return None
    label = reader.string(f["label"][1], f"{what} 'label'")
    low = reader.number(f["min"][1], f"{what} 'min'")
    high = reader.number(f["max"][1], f"{what} 'max'")
    log = reader.boolean(f["log"][1], f"{what} 'log'") if "log" in f else False
    ticks = tuple(t for t in (reader.number(n, "a tick") for n in reader.sequence(f["ticks"][1], "'ticks'")) if t is not None) if "ticks" in f else ()
    tick_labels = tuple(t or "" for t in (reader.string(n, "a tick label") for n in reader.sequence(f["tick_labels"][1], "'tick_labels'"))) if "tick_labels" in f else ()
    if label is None or low is None or high is None:
        return None
    if high <= low or (log and low <= 0):
        reader.fail(node, f"{what} needs min < max" + (", both above 0 on a log axis" if log else ""))
        return None
    if tick_labels and len(tick_labels) != len(ticks):
        reader.fail(f["tick_labels"][1], f"{what} has {len(ticks)} ticks but {len(tick_labels)} tick labels")
        return None
    for tick in ticks:
        if not low <= tick <= high:
            reader.fail(f["ticks"][1], f"tick {tick:g} lies outside {what} [{low:g}, {high:g}]")
            return None
    return Axis(label, low, high, log, ticks, tick_labels)


def _plot(reader: _Reader, node: yaml.Node) -> Plot | None:
    f = reader.mapping(node, PLOT_KEYS, "a plot")
    if f is None:
        return None
    if "x" not in f or "y" not in f:
        reader.fail(node, "a plot needs an 'x' and a 'y' axis")
        return None
    x = _axis(reader, f["x"][1], "the x axis")
    y = _axis(reader, f["y"][1], "the y axis")
    series: list[Series] = []
    for item in reader.sequence(f["series"][1], "'series'") if "series" in f else []:
        s = reader.mapping(item, SERIES_KEYS, "a series")
        if s is None:
            continue
        if "label" not in s or "points" not in s:
            reader.fail(item, "a series needs 'label' and 'points'")
            continue
        label = reader.string(s["label"][1], "a series 'label'")
        points = [reader.pair(p, "a point") for p in reader.sequence(s["points"][1], "'points'")]
        tone = reader.string(s["tone"][1], "'tone'") if "tone" in s else None
        if tone is not None and tone not in TONES:
            reader.fail(s["tone"][1], f"tone '{tone}' is not one of {', '.join(TONES)}")
            tone = None
        dashed = reader.boolean(s["dashed"][1], "'dashed'") if "dashed" in s else False
        label_at = reader.pair(s["label_at"][1], "'label_at'") if "label_at" in s else None
        if label is None or any(p is None for p in points) or len(points) < 2:
            if len(points) < 2:
                reader.fail(s["points"][1], "a series needs at least two points")
            continue
        series.append(Series(label, tuple(p for p in points if p is not None), tone, dashed, label_at, _line(item)))
    marks: list[Mark] = []
    for item in reader.sequence(f["marks"][1], "'marks'") if "marks" in f else []:
        m = reader.mapping(item, MARK_KEYS, "a mark")
        if m is None:
            continue
        if "label" not in m or "at" not in m:
            reader.fail(item, "a mark needs 'label' and 'at'")
            continue
        label = reader.string(m["label"][1], "a mark 'label'")
        at = reader.pair(m["at"][1], "'at'")
        if label is not None and at is not None:
            marks.append(Mark(label, at, _line(item)))
    width = reader.number(f["width"][1], "the plot 'width'", positive=True) if "width" in f else None
    height = reader.number(f["height"][1], "the plot 'height'", positive=True) if "height" in f else None
    if x is None or y is None:
        return None
    for s in series:
        for px, py in s.points:
            if not (x.min <= px <= x.max and y.min <= py <= y.max):
                reader.out.append(error(reader.path, s.line, 1, INVALID, f"series '{s.label}' has point [{px:g}, {py:g}] outside the axes"))
                break
    plot = Plot(x, y, tuple(series), tuple(marks))
    if width is not None:
        plot = Plot(plot.x, plot.y, plot.series, plot.marks, min(width, 2000.0), plot.height)
    if height is not None:
        plot = Plot(plot.x, plot.y, plot.series, plot.marks, plot.width, min(height, 2000.0))
    return plot


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


def _check_ids(reader: _Reader, root: Box, arrows: Iterable[Arrow]) -> None:
    seen: dict[str, int] = {}

    def walk(box: Box) -> None:
        if box.id:
            if box.id in seen:
                reader.out.append(error(reader.path, box.line, 1, ID, f"id '{box.id}' is already used on line {seen[box.id]}"))
            else:
                seen[box.id] = box.line
        for child in box.boxes:
            walk(child)

    walk(root)
    names = box_ids(root)
    for arrow in arrows:
        for end in (arrow.source, arrow.target):
            if end not in names:
                close = difflib.get_close_matches(end, sorted(names), n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ("; known ids: " + ", ".join(sorted(seen)) if seen else "; give the box an 'id' first")
                reader.out.append(error(reader.path, arrow.line, 1, ID, f"arrow end '{end}' names no box{hint}"))


@dataclass(frozen=True)
class LoadedDiagrams:
    """The diagrams that loaded, the names of those that did not, and why."""

    diagrams: Mapping[str, Diagram]
    #: Files that exist but failed to load: terms naming them get no second "unknown" error.
    broken: frozenset[str]
    diagnostics: tuple[Diagnostic, ...]


def load_diagrams(directory: Path, root: Path) -> LoadedDiagrams:
    """Every ``*.yml`` under ``directory`` (not recursive), keyed by name; paths relative to ``root``."""
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
        diagram, problems = parse_diagram(path.stem, shown, text)
        out += problems
        if diagram is not None:
            diagrams[diagram.name] = diagram
        else:
            broken.add(path.stem)
    return LoadedDiagrams(MappingProxyType(dict(sorted(diagrams.items()))), frozenset(broken), tuple(out))


def _read(path: Path, shown: str, out: list[Diagnostic]) -> str | None:
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
