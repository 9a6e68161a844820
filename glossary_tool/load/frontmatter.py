"""Split and compose YAML front matter; check its fields against the schema.

YAML is parsed with the safe loader only (no arbitrary tags) and composed once: the fields
are checked on that node tree by :mod:`glossary_tool.load.schema`, which reports each
problem at its node (``sources[2].url`` at that url, not at ``sources:`` or line 1). What
the schema cannot say (a summary is one sentence) is checked here, through the same helper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.load import schema
from glossary_tool.load.schema import loader_for  # noqa: F401  (imported from here by other modules)

#: The keys each kind of page may use, in the order the schema declares them.
TERM_FIELDS = tuple(schema.TERM.fields)
SECTION_FIELDS = tuple(schema.SECTION.fields)
SUMMARY_MAX = 200


@dataclass(frozen=True)
class FrontMatter:
    #: Each known key's value as YAML constructs it (first use of a repeated key wins).
    data: dict[str, Any]
    #: 1-based file line of each top-level key.
    lines: dict[str, int]
    #: Number of file lines before the body starts.
    body_offset: int
    body: str
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    #: The YAML between the ``---`` lines as written (its first line is file line 2).
    yaml_text: str = ""
    #: The composed YAML, for :func:`validate`; None where it could not be composed.
    doc: schema.Document | None = None


#: A line that closes the front matter: ``---`` or ``...``, then only whitespace (what
#: ``str.rstrip`` strips: ``\s`` is ``str.isspace``).
_CLOSING = re.compile(r"^(?:---|\.\.\.)[^\S\n]*$", re.M)


def split(path: str, text: str) -> tuple[str | None, int, str, list[Diagnostic]]:
    """Return (yaml text, body offset, body, diagnostics).

    The first line after line 1 whose ``rstrip()`` is ``---`` or ``...`` closes the front
    matter: found by one search and cut out with slices, where splitting the file into lines
    and joining the body's again cost a body's worth of strings (the same answer:
    tests/test_yaml_loader.py compares the two)."""
    first_end = text.find("\n")
    if (text if first_end < 0 else text[:first_end]).rstrip() != "---":
        return None, 0, text, [error(path, 1, 1, "frontmatter-missing", "file must start with a '---' line opening the YAML front matter")]
    closing = _CLOSING.search(text, first_end + 1) if first_end >= 0 else None
    if closing is None:
        return None, 0, text, [error(path, 1, 1, "frontmatter-unterminated", "front matter opened with '---' on line 1 is never closed by a '---' line")]
    start, end = closing.span()
    yaml_text = text[first_end + 1 : start - 1] if start > first_end + 1 else ""
    return yaml_text, text.count("\n", 0, start) + 1, text[end + 1 :], []


def parse(path: str, text: str) -> FrontMatter:
    """Split and compose once; ``data`` and ``lines`` hold the fields a term may have. Only
    YAML syntax is reported here: :func:`validate` checks the fields against a schema."""
    yaml_text, offset, body, diags = split(path, text)
    if yaml_text is None:
        return FrontMatter({}, {}, offset, body, tuple(diags))
    # the YAML starts on file line 2; a missing field is reported at the opening '---'
    doc, broken = schema.compose(path, yaml_text, "invalid YAML in front matter", line_offset=2, origin=(1, 1), explain=_yaml_error)
    if doc is None:
        return FrontMatter({}, {}, offset, body, tuple(broken))
    node = doc.root
    if node is None:
        return FrontMatter({}, {}, offset, body, (error(path, 1, 1, "frontmatter-empty", "front matter is empty; it needs at least 'title' and 'summary'"),))
    if not isinstance(node, yaml.MappingNode):
        line = node.start_mark.line + 2
        what = "a list" if isinstance(node, yaml.SequenceNode) else "a single value"
        return FrontMatter({}, {}, offset, body, (error(path, line, 1, "frontmatter-type", f"front matter must be a mapping of fields, not {what}"),))
    out: list[Diagnostic] = []
    data: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for key_node, value_node in node.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key not in TERM_FIELDS or key in data:  # the first use that constructs wins
            continue
        if value_node.tag == "tag:yaml.org,2002:str":  # what constructing it gives, sooner
            data[key] = value_node.value
            lines[key] = key_node.start_mark.line + 2
            continue
        try:
            # built from the composed node: the same value as serializing it and loading it
            # again (as glossary_tool/commands/changed.py does), without the two extra passes
            data[key] = construct(value_node)
        except RecursionError:
            out.append(doc.diagnostic((key,), f"invalid YAML value for '{key}': nested too deeply", "yaml-syntax"))
            continue
        except Exception:  # noqa: BLE001 - an unknown tag, `!!int abc`...: validate() reports it at its node
            continue
        lines[key] = key_node.start_mark.line + 2
    return FrontMatter(data, lines, offset, body, tuple(out), yaml_text, doc)


_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
#: How deep :func:`construct` follows lists and mappings before it leaves a value to PyYAML.
PLAIN_DEPTH = 16
#: The PyYAML releases (major.minor) whose SafeConstructor :func:`construct` was read
#: against: under any other, every value goes to PyYAML.
PLAIN_READ_FOR = ("6.0",)


def _read_for(version: str) -> bool:
    return ".".join(version.split(".")[:2]) in PLAIN_READ_FOR


_PLAIN_KNOWN = _read_for(yaml.__version__)


class _NotPlain(Exception):
    """A node :func:`construct` leaves to PyYAML's constructor."""


def construct(node: yaml.Node) -> Any:
    """``SafeConstructor().construct_document(node)``, made directly where ``node`` is a tree
    of strings, lists and mappings with string keys in which no node occurs twice (a YAML
    alias): all that a term's front matter holds. PyYAML's constructor builds every list
    and mapping through a generator it resumes later and looks up a constructor per node:
    for a term's aliases and sources that was a fifth of its front matter's parse. Any
    other node (a number, a tag, an alias, a merge key, deeper than :data:`PLAIN_DEPTH`)
    goes to PyYAML (tests/test_yaml_loader.py compares the two), and so does every node
    under a PyYAML release :data:`PLAIN_READ_FOR` does not name."""
    if _PLAIN_KNOWN:
        try:
            return _plain(node, set(), 0)
        except _NotPlain:
            pass
    return yaml.constructor.SafeConstructor().construct_document(node)


def _plain(node: yaml.Node, seen: set[int], depth: int) -> Any:
    if id(node) in seen or depth > PLAIN_DEPTH:
        raise _NotPlain
    seen.add(id(node))
    tag, kind = node.tag, type(node)
    if tag == _STR and kind is yaml.ScalarNode:
        return node.value  # construct_yaml_str
    if tag == _SEQ and kind is yaml.SequenceNode:
        return [_plain(child, seen, depth + 1) for child in node.value]
    if tag == _MAP and kind is yaml.MappingNode:
        mapping = {}
        for key_node, value_node in node.value:  # in order: a repeated key's last value wins
            if key_node.tag != _STR or type(key_node) is not yaml.ScalarNode:
                raise _NotPlain  # a merge key (<<), a value key (=), a key that is no string
            key = _plain(key_node, seen, depth + 1)
            mapping[key] = _plain(value_node, seen, depth + 1)
        return mapping
    raise _NotPlain


def validate(fm: FrontMatter, shape: schema.Record = schema.TERM) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The fields of ``fm`` checked against ``shape`` (a term's or a section page's): the
    values that passed (whitespace tidied, sources as (title, url) pairs) and the problems."""
    if fm.doc is None:
        return {}, []
    clean, out = schema.validate(fm.doc, shape, schema.FRONT_MATTER_CODES, "the front matter")
    if "summary" in clean:
        out += summary_problems(fm.doc, clean["summary"])
    if "sources" in clean:
        clean["sources"] = tuple((s["title"], s["url"]) for s in clean["sources"])
    if "equivalents" in clean:  # a vendor left empty (as `glossary new` writes it) has none
        clean["equivalents"] = tuple((k, v) for k, v in clean["equivalents"] if v)
    return clean, out


def _yaml_error(path: str, exc: yaml.YAMLError, text: str) -> Diagnostic:
    """A YAML syntax error at the line where the broken construct starts (PyYAML's context
    mark: the opening quote of an unclosed string, say), with where the parser gave up as a
    note. The file line is the YAML line + 1 (the opening '---')."""
    context = getattr(exc, "context_mark", None)
    stopped = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    what = getattr(exc, "context", None)
    cause = None
    if stopped is not None and (context is None or (context.line, context.column) == (0, 0)):
        # "while parsing a block mapping" at the first key says nothing; an unclosed quote
        # that a later quote closed by accident is the usual cause: point at it
        cause = _unbalanced_quote(text, stopped.line)
    if cause is not None:
        line, col = cause[0] + 2, cause[1] + 1
        message = f"invalid YAML in front matter: this quoted string is not closed on its line ({problem} later)"
    else:
        mark = context or stopped
        line = (mark.line + 2) if mark is not None else 1
        col = (mark.column + 1) if mark is not None else 1
        message = f"invalid YAML in front matter: {problem}"
        if what and context is not None:
            message += f" {what} that starts here"
    if stopped is not None and (stopped.line + 2, stopped.column + 1) != (line, col):
        message += f" (note: the parser stopped at line {stopped.line + 2}, column {stopped.column + 1})"
    return error(path, line, col, "yaml-syntax", message)


_QUOTED_VALUE = re.compile(r"""^\s*(?:-\s+)?(?:[^\s:#'"][^:#]*:\s+)?(["'])""")


def _unbalanced_quote(text: str, upto: int) -> tuple[int, int] | None:
    """(line, column) of the first value on lines ``0..upto`` that opens a quote its line
    does not close (a YAML string may continue on the next line, so the parser only
    notices later)."""
    for number, line in enumerate(text.split("\n")[: upto + 1]):
        match = _QUOTED_VALUE.match(line)
        if match is None:
            continue
        quote, start = match.group(1), match.end() - 1
        rest = line[start + 1 :]
        closed = re.search(r'(?<!\\)"', rest) if quote == '"' else re.search(r"'(?!')", rest.replace("''", ""))
        if closed is None:
            return number, start
    return None


def summary_problems(doc: schema.Document, summary: str) -> list[Diagnostic]:
    """What a schema cannot say about a summary: one plain-text sentence, not too long."""
    out = []

    def fail(code: str, message: str) -> None:
        out.append(doc.diagnostic(("summary",), message, code))

    if len(summary) > SUMMARY_MAX:
        fail("summary-too-long", f"summary is {len(summary)} characters; at most {SUMMARY_MAX} allowed")
    if summary[-1] not in ".!?":
        fail("summary-not-sentence", "summary must be one sentence ending with '.', '!' or '?'")
    else:
        inner = re.findall(r"[.!?]\s+[A-Z]", summary[:-1])
        if inner:
            fail("summary-not-sentence", f"summary must be one sentence; found {len(inner) + 1}")
    if "[[" in summary or "](" in summary or "`" in summary:
        fail("summary-markup", "summary must be plain text: no Markdown, code or [[cross-references]]")
    return out
