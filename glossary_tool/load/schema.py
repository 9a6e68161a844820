"""One schema layer for the YAML the glossary reads: front matter, ``glossary/toc.yml`` and
``diagrams/*.yml``.

Each file's shape is declared once as frozen :class:`Record`, :class:`ListOf`, :class:`Text`...
values: front matter and toc.yml at the end of this module, diagrams in
:mod:`glossary_tool.draw.load` (beside the diagram model, so that ``load/`` never imports
``draw/``). :func:`compose` parses a file once and :func:`validate` checks the node tree
against a shape. Every problem is a :class:`Problem` with a path such as ``("sources", 0,
"url")``; :meth:`Document.diagnostic` is the one place that turns a path into
``file:line:col`` (the node at that path, else its nearest existing parent). Loaders use the
same helper for the checks a schema cannot state (an arrow naming no box, a summary of two
sentences), so none turns a problem into a position by itself.

Why a small layer of our own rather than pydantic (considered, and installed for the ``mcp``
extra):

- It checks the composed node tree where it stands: the values and their positions come from
  the same walk, with no second parse and no Python objects built only to be thrown away.
  Front matter is checked for every term of a 5,000-term glossary, so this stays cheap.
- Messages are written for a contributor ("field 'aliases' must be a list of non-empty
  strings", "did you mean 'url'?") and declared beside the shape. pydantic reports
  "Input should be a valid string" by error type; keeping today's messages would take a
  translation table keyed by error type and field, a second copy of the schema.
- Hostile YAML stays bounded: an alias bomb is a small node graph that a loader can count
  while walking it, whereas pydantic validates constructed Python data, where the bomb has
  already expanded (and a self-referencing alias is a cycle).
- No new core dependency.
"""

from __future__ import annotations

import difflib
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from glossary_tool.diagnostics import Diagnostic, Severity, error

try:  # libyaml when present: ~10x faster on 5,000-term glossaries
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - pure-Python fallback
    _Loader = yaml.SafeLoader

#: libyaml composes recursively in C: YAML nested some 100,000 levels deep overflows the C
#: stack and kills the process (SIGSEGV), which no except clause can catch. Text that could
#: nest deeper than this goes to the pure-Python loader, whose RecursionError is a diagnostic.
C_SAFE_DEPTH = 1000


class DeepSafeLoader(yaml.SafeLoader):
    """PyYAML's pure-Python SafeLoader, for text that may nest deeper than libyaml survives,
    without its quadratic look-ahead.

    PyYAML keeps one possible simple key per flow level and, before every token, walks all
    of them to drop the stale ones (on an earlier line, or more than 1,024 characters back).
    On a line of a thousand ``[`` that is a million steps before the RecursionError that ends
    the parse: 1.7 s for one front matter (measured: ``stale_possible_simple_keys`` was 8.0 of
    11.7 profiled seconds). The keys sit in the dict in flow-level order, which is also the
    order they were made in (a key is only saved or replaced at the current, deepest level,
    and a level's key is removed when its collection ends), so the oldest comes first; and a
    key is stale whenever any newer one is (lines and offsets only grow). The walk can
    therefore stop at the first key that is still fresh: the same keys dropped, the same
    error for a stale required key, in the same order. For the same reason the oldest key
    holds the smallest token number, which PyYAML also finds by walking them all.
    """

    def next_possible_simple_key(self) -> int | None:
        for key in self.possible_simple_keys.values():
            return key.token_number  # the oldest: made first, numbered first
        return None

    def stale_possible_simple_keys(self) -> None:
        keys = self.possible_simple_keys
        for level in list(keys):
            key = keys[level]
            if key.line == self.line and self.index - key.index <= 1024:
                return  # every newer key is fresher still
            if key.required:
                raise yaml.scanner.ScannerError("while scanning a simple key", key.mark, "could not find expected ':'", self.get_mark())
            del keys[level]


def loader_for(text: str) -> type:
    """The fast C loader, unless ``text`` has enough brackets or indentation to nest dangerously deep."""
    if _Loader is yaml.SafeLoader:
        return DeepSafeLoader
    if text.count("[") + text.count("{") > C_SAFE_DEPTH:
        return DeepSafeLoader
    # a line indented that deep is longer than that: a shorter text has none
    if len(text) > 2 * C_SAFE_DEPTH and any(len(line) - len(line.lstrip(" \t-?:")) > 2 * C_SAFE_DEPTH for line in text.split("\n")):
        return DeepSafeLoader
    return _Loader


#: A position in a document: mapping keys and 0-based list indexes, e.g. ("sources", 0, "url").
Path = tuple[Any, ...]


@dataclass(frozen=True)
class KeyAt:
    """A path step naming the *key* of a mapping's ``index``-th pair (where an unknown or
    repeated key is reported), rather than the value under it."""

    index: int


class _Invalid:
    def __repr__(self) -> str:
        return "INVALID"


#: What a shape returns for a value it rejected (the problem is already recorded).
INVALID: Any = _Invalid()

_SAFE_TAGS = frozenset(t for t in yaml.constructor.SafeConstructor.yaml_constructors if t is not None)
_SCALAR = yaml.constructor.SafeConstructor()
_KIND = {yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list", yaml.ScalarNode: "a single value"}


def render(path: Path) -> str:
    """``sources[1].url`` for ("sources", 0, "url"): 1-based, as a contributor counts."""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step + 1}]"
        elif isinstance(step, str):
            out += f".{step}" if out else step
    return out


def kind(node: yaml.Node) -> str:
    return _KIND.get(type(node), "that")


def collapse(text: str) -> str:
    """Runs of whitespace (a folded line break too) become one space."""
    return " ".join(text.split())


class Label:
    """How a message names a value (``field 'title'``, ``sources[2].url``), formatted only
    when a message needs it: most values pass, and a check runs on every term."""

    __slots__ = ("key", "parent", "path", "template")

    def __init__(self, template: str, path: Path, parent: object, key: str = ""):
        self.template, self.path, self.parent, self.key = template, path, parent, key

    def __str__(self) -> str:
        n = self.path[-1] + 1 if self.path and isinstance(self.path[-1], int) else ""
        return self.template.format(key=self.key, at=render(self.path), parent=self.parent, n=n)


@dataclass(frozen=True)
class Codes:
    """The diagnostic codes one kind of file reports schema problems under."""

    invalid: str
    unknown: str
    duplicate: str
    missing: str
    syntax: str


@dataclass(frozen=True)
class Problem:
    path: Path
    message: str
    code: str


@dataclass(frozen=True)
class Document:
    """A composed YAML document and how its positions map to the file it came from."""

    shown: str
    root: yaml.Node | None
    #: File line of YAML line 0, minus one: 1 for a whole file, 2 for front matter (after '---').
    line_offset: int = 1
    #: Where a problem about the document as a whole goes (a missing required field), if not
    #: at its root node: front matter reports those at its opening '---'.
    origin: tuple[int, int] | None = None

    def node_at(self, path: Path) -> tuple[yaml.Node | None, int]:
        """The node at ``path``, else its nearest existing parent; and how many steps matched."""
        node = self.root
        for depth, step in enumerate(path):
            child = _child(node, step)
            if child is None:
                return node, depth
            node = child
        return node, len(path)

    def position(self, path: Path) -> tuple[int, int]:
        node, depth = self.node_at(path)
        if node is None or (depth == 0 and self.origin is not None):
            return self.origin or (1, 1)
        return node.start_mark.line + self.line_offset, node.start_mark.column + 1

    def line(self, path: Path) -> int:
        return self.position(path)[0]

    def diagnostic(self, path: Path, message: str, code: str, severity: Severity = Severity.ERROR) -> Diagnostic:
        """The one helper from a path in this document to ``file:line:col``."""
        line, col = self.position(path)
        return Diagnostic(self.shown, line, col, severity, code, message)

    def diagnostics(self, problems: list[Problem]) -> list[Diagnostic]:
        return [self.diagnostic(p.path, p.message, p.code) for p in problems]


def _child(node: yaml.Node | None, step: Any) -> yaml.Node | None:
    if isinstance(step, KeyAt):
        return node.value[step.index][0] if isinstance(node, yaml.MappingNode) and step.index < len(node.value) else None
    if isinstance(node, yaml.SequenceNode) and isinstance(step, int):
        return node.value[step] if 0 <= step < len(node.value) else None
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:  # the first pair wins, as in every loader
            if isinstance(key, yaml.ScalarNode) and key.value == step:
                return value
    return None


class Check:
    """One validation pass: the problems found so far and the codes to file them under."""

    def __init__(self, codes: Codes, line_offset: int = 1):
        self.codes = codes
        self.line_offset = line_offset
        self.problems: list[Problem] = []
        #: A field's own message, which replaces the type messages below it (see Field.message).
        self.override: str | None = None

    def fail(self, path: Path, message: str, code: str | None = None) -> Any:
        self.problems.append(Problem(path, message, code or self.codes.invalid))
        return INVALID

    def expect(self, path: Path, what: object, expected: str) -> Any:
        return self.fail(path, self.override or f"{what} must be {expected}")

    def check(self, shape: Shape, node: yaml.Node, path: Path, what: object) -> Any:
        """``node`` checked against ``shape``: its value, or INVALID once a problem is recorded."""
        if node.tag not in _SAFE_TAGS and not (isinstance(node, yaml.ScalarNode) and node.tag == "!"):
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            return self.fail(path, f"invalid YAML value for {what}: could not determine a constructor for the tag '{tag}'", self.codes.syntax)
        return shape.check(node, path, self, what)

    def scalar(self, node: yaml.Node) -> Any:
        """The Python value of a scalar node; INVALID for a list or mapping."""
        if not isinstance(node, yaml.ScalarNode):
            return INVALID
        if node.tag == "tag:yaml.org,2002:str" or node.tag == "!":
            return node.value
        try:
            return _SCALAR.yaml_constructors[node.tag](_SCALAR, node)
        except Exception:  # noqa: BLE001 - `!!int abc`, `!!bool maybe`: PyYAML raises what its converter does
            return INVALID


class Fields(dict):
    """What a :class:`Record` hands back: its fields that passed, and where the record is
    (so a loader's later check can report at it, or at one of its fields)."""

    __slots__ = ("path",)

    def __init__(self, path: Path):
        super().__init__()
        self.path = path


class Shape:
    """What a node must look like. ``check`` returns the value (tidied) or INVALID."""

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        raise NotImplementedError


@dataclass(frozen=True)
class Raw(Shape):
    """Any node, handed back as it is: for a loader that walks a recursive shape (boxes in
    boxes) itself, to bound its depth and size."""

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        return node


@dataclass(frozen=True)
class Text(Shape):
    """A string; ``numbers`` also takes a plain number as its text (a box labelled 128)."""

    empty: bool = False
    numbers: bool = False
    tidy: Callable[[str], str] = str.strip
    expected: str = "a non-empty string"

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        value = ck.scalar(node)
        if self.numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = node.value
        if not isinstance(value, str) or (not self.empty and not value.strip()):
            return ck.expect(path, what, self.expected)
        return self.tidy(value)


@dataclass(frozen=True)
class Url(Shape):
    """An absolute http(s) URL (a source must not be ``javascript:``)."""

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        value = ck.scalar(node)
        if not isinstance(value, str) or not value.strip().startswith(("https://", "http://")):
            return ck.expect(path, what, "an http(s) URL")
        return value.strip()


@dataclass(frozen=True)
class Choice(Shape):
    """One of a fixed set of words, with a did-you-mean for a near miss."""

    options: tuple[str, ...]

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        value = ck.scalar(node)
        if not isinstance(value, str) or value not in self.options:
            close = difflib.get_close_matches(value, self.options, n=1) if isinstance(value, str) else []
            shown = f"'{value}'" if isinstance(value, str) else kind(node) if value is INVALID else f"'{node.value}'"
            hint = f"; did you mean '{close[0]}'?" if close else ""
            return ck.fail(path, ck.override or f"{what} is {shown}, which is not one of {', '.join(self.options)}{hint}")
        return value


@dataclass(frozen=True)
class Whole(Shape):
    low: int
    high: int

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        value = ck.scalar(node)
        if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
            return ck.expect(path, what, f"a whole number from {self.low} to {self.high}")
        return value


@dataclass(frozen=True)
class Number(Shape):
    """A finite number, as a float; ``most`` is an upper bound with its own message."""

    positive: bool = False
    least: float | None = None
    most: float | None = None

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        value = ck.scalar(node)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or (self.positive and value <= 0):
            return ck.expect(path, what, f"a {'positive ' if self.positive else ''}number")
        if self.least is not None and value < self.least:
            return ck.expect(path, what, f"at least {self.least:g}")
        if self.most is not None and value > self.most:
            return ck.expect(path, what, f"at most {self.most:g}")
        return float(value)


@dataclass(frozen=True)
class Flag(Shape):
    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        value = ck.scalar(node)
        return value if isinstance(value, bool) else ck.expect(path, what, "true or false")


@dataclass(frozen=True)
class ListOf(Shape):
    """A list of ``item``; the value is a tuple of the items that passed (one bad item is
    reported, and the loader still checks the others).

    ``item_what`` names an item in messages: ``{at}`` its path (``aliases[2]``), ``{n}`` its
    1-based index, ``{parent}`` the list's own name.
    """

    item: Shape
    min_items: int = 0
    max_items: int | None = None
    expected: str = "a list"
    item_what: str = "{at}"

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        if not isinstance(node, yaml.SequenceNode):
            return ck.expect(path, what, f"{self.expected}, not {kind(node)}")
        if len(node.value) < self.min_items or (self.max_items is not None and len(node.value) > self.max_items):
            return ck.expect(path, what, self.expected)
        items = []
        for index, child in enumerate(node.value):
            at = (*path, index)
            value = ck.check(self.item, child, at, Label(self.item_what, at, what))
            if value is not INVALID:
                items.append(value)
        return tuple(items)  # the good items, for the loader's own checks (the rest are reported)


@dataclass(frozen=True)
class Pair(Shape):
    """``[x, y]``: two numbers."""

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        if not isinstance(node, yaml.SequenceNode) or len(node.value) != 2:
            return ck.expect(path, what, "a pair [x, y]")
        x, y = (ck.check(Number(), n, (*path, i), what) for i, n in enumerate(node.value))
        return INVALID if INVALID in (x, y) else (x, y)


@dataclass(frozen=True)
class MapOf(Shape):
    """A mapping of free string keys to ``value``; the value is a tuple of (key, value) pairs
    in file order."""

    value: Shape
    nullable: bool = True
    expected: str = "a mapping"

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        if not isinstance(node, yaml.MappingNode):
            return ck.expect(path, what, f"{self.expected}, not {kind(node)}")
        pairs: list[tuple[str, Any]] = []
        seen: dict[str, int] = {}
        for index, (key_node, value_node) in enumerate(node.value):
            key = ck.scalar(key_node)
            if not isinstance(key, str) or not key.strip():
                ck.expect((*path, KeyAt(index)), f"the keys of {what}", "plain strings")
                continue
            if key in seen:
                ck.fail((*path, KeyAt(index)), f"key '{key}' of {what} is given twice (first on line {seen[key]})", ck.codes.duplicate)
                continue
            seen[key] = key_node.start_mark.line + ck.line_offset
            if self.nullable and value_node.tag == "tag:yaml.org,2002:null":
                pairs.append((key, None))
                continue
            value = ck.check(self.value, value_node, (*path, key), Label("{parent}.{key}", path, what, key))
            if value is not INVALID:
                pairs.append((key, value))
        return tuple(pairs)


@dataclass(frozen=True)
class Field:
    """One key of a :class:`Record`.

    ``label`` names the field in messages (default: the record's ``label``); ``message``
    replaces the type messages of this field and of the lists and scalars inside it (not of
    records inside it), for a field whose rule reads best as one sentence. A ``nullable``
    field given as ``null`` or left empty counts as absent.
    """

    shape: Shape
    required: bool = False
    nullable: bool = False
    label: str | None = None
    message: str | None = None
    missing: str | None = None


@dataclass(frozen=True)
class Record(Shape):
    """A mapping with known keys. The value is a dict of the fields that passed (so a
    loader's own checks still see the rest of a record with one bad field), or INVALID
    where a required field is missing or bad: a returned dict always has its required keys
    (unless ``partial``).

    Message templates take ``{key}``, ``{at}`` (the field's path), ``{parent}`` (the record's
    own name), ``{hint}`` (did-you-mean, else the allowed keys) and ``{first}`` (the line of
    a repeated key's first use).
    """

    fields: Mapping[str, Field]
    label: str = "'{key}'"
    unknown: str = "unknown key '{key}' in {parent}{hint}"
    duplicate: str = "key '{key}' of {parent} is given twice (first on line {first})"
    missing: str = "{parent} needs '{key}'"
    expected: str = ""
    #: The code a missing required field is reported under, if not the file kind's ``missing``.
    missing_code: str | None = None
    #: Hand back the fields that passed even where a required one did not: for a whole
    #: document, whose other fields are still worth checking and reporting against.
    partial: bool = False

    def accepted(self, node: yaml.MappingNode) -> list[tuple[int, str, yaml.Node, yaml.Node]]:
        """(pair index, key, key node, value node) of each known key's first use."""
        out, seen = [], set()
        for index, (key_node, value_node) in enumerate(node.value):
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if key in self.fields and key not in seen:
                seen.add(key)
                out.append((index, key, key_node, value_node))
        return out

    def check(self, node: yaml.Node, path: Path, ck: Check, what: object) -> Any:
        if not isinstance(node, yaml.MappingNode):
            return ck.fail(path, f"{what} must be {self.expected or 'a mapping of keys (' + ', '.join(self.fields) + ')'}, not {kind(node)}")
        override, ck.override = ck.override, None
        try:
            return self._fields(node, path, ck, what)
        finally:
            ck.override = override

    def _fields(self, node: yaml.MappingNode, path: Path, ck: Check, what: object) -> Any:
        values = Fields(path)
        first: dict[str, yaml.Node] = {}
        fields, label = self.fields, self.label
        for index, (key_node, value_node) in enumerate(node.value):
            key = key_node.value if type(key_node) is yaml.ScalarNode else None
            spec = fields.get(key) if key not in first else None
            if spec is None:  # the rare paths: a bad, repeated or unknown key
                self._bad_key(key, index, first, path, ck, what)
                if isinstance(key, str):
                    first.setdefault(key, key_node)
                continue
            first[key] = key_node
            if spec.nullable and value_node.tag == "tag:yaml.org,2002:null":
                continue
            at = (*path, key)
            ck.override = spec.message
            value = ck.check(spec.shape, value_node, at, Label(spec.label or label, at, what, key))
            ck.override = None
            if value is not INVALID:
                values[key] = value
        complete = True
        for key in self.required:
            if key not in first:
                spec = self.fields[key]
                ck.fail((*path, key), (spec.missing or self.missing).format(key=key, parent=what, at=render((*path, key)), hint="", first=""), self.missing_code or ck.codes.missing)
            complete = complete and key in values
        return values if complete or self.partial else INVALID

    def _bad_key(self, key: str | None, index: int, first: dict[str, yaml.Node], path: Path, ck: Check, what: object) -> None:
        key_path = (*path, KeyAt(index))
        if not isinstance(key, str):
            ck.fail(key_path, f"the keys of {what} must be plain strings")
        elif key in first:
            line = first[key].start_mark.line + ck.line_offset
            ck.fail(key_path, self.duplicate.format(key=key, parent=what, first=line, at=render((*path, key)), hint=""), ck.codes.duplicate)
        else:
            close = difflib.get_close_matches(key, list(self.fields), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; allowed: {', '.join(self.fields)}"
            ck.fail(key_path, self.unknown.format(key=key, parent=what, hint=hint, at=render((*path, key)), first=""), ck.codes.unknown)

    @functools.cached_property
    def required(self) -> tuple[str, ...]:
        return tuple(key for key, spec in self.fields.items() if spec.required)


def compose(shown: str, text: str, what: str, *, line_offset: int = 1, origin: tuple[int, int] | None = None, explain: Callable[[str, yaml.YAMLError, str], Diagnostic] | None = None, code: str = "yaml-syntax") -> tuple[Document | None, list[Diagnostic]]:
    """``text`` composed once into a :class:`Document` (its root None for an empty one), or
    the syntax error that stopped it, at the mark PyYAML gives (``explain`` may do better)."""
    try:
        return Document(shown, yaml.compose(text, Loader=loader_for(text)), line_offset, origin), []
    except RecursionError:
        return None, [error(shown, line_offset, 1, code, f"{what}: nested too deeply")]
    except yaml.YAMLError as exc:
        if explain is not None:
            return None, [explain(shown, exc, text)]
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        line, col = (mark.line + line_offset, mark.column + 1) if mark is not None else (1, 1)
        return None, [error(shown, line, col, code, f"{what}: {problem}")]


def validate(doc: Document, shape: Shape, codes: Codes, what: str) -> tuple[Any, list[Diagnostic]]:
    """``doc``'s root checked against ``shape``: (value or INVALID, diagnostics)."""
    ck = Check(codes, doc.line_offset)
    value = ck.check(shape, doc.root, (), what) if doc.root is not None else INVALID
    return value, doc.diagnostics(ck.problems)


# --- the shapes of front matter and toc.yml (diagrams: glossary_tool/draw/load.py) ---

FRONT_MATTER_CODES = Codes("field-invalid", "field-unknown", "field-duplicate", "field-missing", "yaml-syntax")
TOC_CODES = Codes("toc-invalid", "toc-invalid", "toc-duplicate", "toc-invalid", "yaml-syntax")

_NAMES = ListOf(Text(tidy=collapse))
SOURCE = Record(
    {"title": Field(Text(tidy=collapse), required=True), "url": Field(Url(), required=True)},
    label="{at}",
    unknown="{parent} has unknown key '{key}'{hint}",
    missing="{at} is missing: each source needs a 'title' and an http(s) 'url'",
    missing_code="field-invalid",  # the code sources problems have always had
)
_FM = {
    "label": "field '{key}'",
    "unknown": "unknown front matter field '{key}'{hint}",
    "duplicate": "field '{key}' is given twice (first on line {first})",
    "missing": "required field '{key}' is missing from the front matter",
    "partial": True,
}
_SUMMARY = Field(Text(tidy=collapse, expected="a non-empty string (one plain-text sentence)"), required=True)
_DIAGRAMS = Field(_NAMES, nullable=True, message="field 'diagrams' must be a list of non-empty strings (diagram names)")

TERM = Record(
    {
        "title": Field(Text(tidy=collapse), required=True),
        "abbreviation": Field(Text(), nullable=True),
        "aliases": Field(_NAMES, nullable=True, message="field 'aliases' must be a list of non-empty strings"),
        "summary": _SUMMARY,
        "sources": Field(
            ListOf(SOURCE, min_items=1, expected="a non-empty list of {title, url} entries"),
            required=True,
            missing="required field 'sources' is missing: cite at least one primary reference",
        ),
        "equivalents": Field(
            MapOf(Text(empty=True, tidy=collapse)),
            nullable=True,
            message="field 'equivalents' must map vendor names (amd, apple, intel, vulkan, ...) to strings; quote a value that starts with '[[', as in amd: \"[[wavefront]]\"",
        ),
        "diagrams": _DIAGRAMS,
    },
    **_FM,
)
#: A section's ``index.md``.
SECTION = Record(
    {"title": Field(Text(tidy=collapse), required=True, missing="section page needs a 'title' string"), "summary": _SUMMARY, "diagrams": _DIAGRAMS},
    **_FM,
)


def toc_shape(sections: tuple[str, ...]) -> Record:
    """toc.yml: each known section to the list of its term slugs, in reading order."""
    slugs = ListOf(Text(numbers=True, expected="a term slug"), expected="a list of term slugs", item_what="entry {n} of {parent}")
    return Record(
        {name: Field(slugs, nullable=True) for name in sections},
        label="section '{key}'",
        unknown="unknown section '{key}' in reading order{hint}",
        duplicate="section '{key}' is listed twice (first on line {first})",
        expected="a mapping of each section to a list of term slugs",
    )
