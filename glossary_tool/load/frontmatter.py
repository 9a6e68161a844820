"""Split, parse and validate YAML front matter, keeping a line number for every field.

YAML is parsed with the safe loader only (no arbitrary tags); it is composed first so each
top-level key keeps its line, which lets a diagnostic point at ``summary:`` rather than
at line 1.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from glossary_tool.diagnostics import Diagnostic, error

try:  # libyaml when present: ~10x faster on 5,000-term glossaries
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - pure-Python fallback
    _Loader = yaml.SafeLoader

#: libyaml composes recursively in C: YAML nested some 100,000 levels deep overflows the C
#: stack and kills the process (SIGSEGV), which no except clause can catch. Text that could
#: nest deeper than this goes to the pure-Python loader, whose RecursionError is a diagnostic.
C_SAFE_DEPTH = 1000


def loader_for(text: str) -> type:
    """The fast C loader, unless ``text`` has enough brackets or indentation to nest dangerously deep."""
    if _Loader is yaml.SafeLoader:
        return _Loader
    if text.count("[") + text.count("{") > C_SAFE_DEPTH or any(len(line) - len(line.lstrip(" \t-?:")) > 2 * C_SAFE_DEPTH for line in text.split("\n")):
        return yaml.SafeLoader
    return _Loader

TERM_FIELDS = ("title", "abbreviation", "aliases", "summary", "sources", "equivalents", "diagrams")
SECTION_FIELDS = ("title", "summary", "diagrams")
SOURCE_FIELDS = ("title", "url")
SUMMARY_MAX = 200


@dataclass(frozen=True)
class FrontMatter:
    data: dict[str, Any]
    #: 1-based file line of each top-level key.
    lines: dict[str, int]
    #: Number of file lines before the body starts.
    body_offset: int
    body: str
    diagnostics: tuple[Diagnostic, ...] = field(default=())
    #: 1-based file line of every node below the top-level keys, by path: ("sources", 0, "url").
    node_lines: dict[tuple[str | int, ...], int] = field(default_factory=dict)
    #: The YAML between the ``---`` lines as written (its first line is file line 2).
    yaml_text: str = ""

    def line_at(self, *path: str | int) -> int:
        """The line of the node at ``path``, else of its nearest recorded ancestor: a
        diagnostic about ``sources[1].url`` points at that url, not at ``sources:``."""
        for end in range(len(path), 0, -1):
            found = self.node_lines.get(path[:end]) if end > 1 else self.lines.get(str(path[0]))
            if found is not None:
                return found
        return 1


def node_lines(node: yaml.Node, path: tuple[str | int, ...], out: dict[tuple[str | int, ...], int], depth: int = 0) -> None:
    """Record the line of each item and key below ``node`` (front matter is shallow: 4 levels)."""
    if depth > 4:
        return
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            out[(*path, index)] = item.start_mark.line + 2
            node_lines(item, (*path, index), out, depth + 1)
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode):
                # a value on its own line (a nested list or mapping) is reported at its key
                line = (key.start_mark.line if isinstance(value, yaml.ScalarNode) else key.start_mark.line) + 2
                out[(*path, key.value)] = line
                node_lines(value, (*path, key.value), out, depth + 1)


def split(path: str, text: str) -> tuple[str | None, int, str, list[Diagnostic]]:
    """Return (yaml text, body offset, body, diagnostics)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None, 0, text, [error(path, 1, 1, "frontmatter-missing", "file must start with a '---' line opening the YAML front matter")]
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            yaml_text = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :])
            return yaml_text, index + 1, body, []
    return None, 0, text, [error(path, 1, 1, "frontmatter-unterminated", "front matter opened with '---' on line 1 is never closed by a '---' line")]


def parse(path: str, text: str, allowed: tuple[str, ...] = TERM_FIELDS) -> FrontMatter:
    yaml_text, offset, body, diags = split(path, text)
    if yaml_text is None:
        return FrontMatter({}, {}, offset, body, tuple(diags))
    try:
        node = yaml.compose(yaml_text, Loader=loader_for(yaml_text))
    except RecursionError:
        return FrontMatter({}, {}, offset, body, (error(path, 2, 1, "yaml-syntax", "invalid YAML in front matter: nested too deeply"),))
    except yaml.YAMLError as exc:
        return FrontMatter({}, {}, offset, body, (_yaml_error(path, exc, yaml_text),))
    if node is None:
        return FrontMatter({}, {}, offset, body, (error(path, 1, 1, "frontmatter-empty", "front matter is empty; it needs at least 'title' and 'summary'"),))
    if not isinstance(node, yaml.MappingNode):
        line = node.start_mark.line + 2
        kind = "a list" if isinstance(node, yaml.SequenceNode) else "a single value"
        return FrontMatter({}, {}, offset, body, (error(path, line, 1, "frontmatter-type", f"front matter must be a mapping of fields, not {kind}"),))
    data: dict[str, Any] = {}
    lines: dict[str, int] = {}
    nested: dict[tuple[str | int, ...], int] = {}
    out: list[Diagnostic] = []
    for key_node, value_node in node.value:
        line = key_node.start_mark.line + 2
        col = key_node.start_mark.column + 1
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if not isinstance(key, str):
            out.append(error(path, line, col, "field-invalid", "front matter keys must be plain strings"))
            continue
        if key in data:
            out.append(error(path, line, col, "field-duplicate", f"field '{key}' is given twice (first on line {lines[key]})"))
            continue
        if key not in allowed:
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; allowed fields: {', '.join(allowed)}"
            out.append(error(path, line, col, "field-unknown", f"unknown front matter field '{key}'{hint}"))
            continue
        try:
            # built from the composed node: the same value as serializing it and loading it
            # again (as glossary_tool/commands/changed.py does), without the two extra passes
            data[key] = yaml.constructor.SafeConstructor().construct_document(value_node)
        except RecursionError:
            out.append(error(path, line, col, "yaml-syntax", f"invalid YAML value for '{key}': nested too deeply"))
            continue
        except yaml.YAMLError as exc:  # e.g. an unknown tag
            out.append(error(path, line, col, "yaml-syntax", f"invalid YAML value for '{key}': {getattr(exc, 'problem', exc)}"))
            continue
        lines[key] = line
        node_lines(value_node, (key,), nested)
    return FrontMatter(data, lines, offset, body, tuple(out), nested, yaml_text)


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


def _is_str(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def validate_summary(path: str, line: int, summary: Any) -> list[Diagnostic]:
    if not _is_str(summary):
        return [error(path, line, 1, "field-invalid", "field 'summary' must be a non-empty string (one plain-text sentence)")]
    out = []
    text = " ".join(summary.split())
    if len(text) > SUMMARY_MAX:
        out.append(error(path, line, 1, "summary-too-long", f"summary is {len(text)} characters; at most {SUMMARY_MAX} allowed"))
    if text[-1] not in ".!?":
        out.append(error(path, line, 1, "summary-not-sentence", "summary must be one sentence ending with '.', '!' or '?'"))
    else:
        import re

        inner = re.findall(r"[.!?]\s+[A-Z]", text[:-1])
        if inner:
            out.append(error(path, line, 1, "summary-not-sentence", f"summary must be one sentence; found {len(inner) + 1}"))
    if "[[" in text or "](" in text or "`" in text:
        out.append(error(path, line, 1, "summary-markup", "summary must be plain text: no Markdown, code or [[cross-references]]"))
    return out


def validate_term(path: str, fm: FrontMatter) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Check field types and return the cleaned values the model needs."""
    data, lines = fm.data, fm.lines
    out: list[Diagnostic] = []
    clean: dict[str, Any] = {}

    def at(key: str) -> int:
        return lines.get(key, 1)

    for key in ("title", "summary"):
        if key not in data:
            out.append(error(path, 1, 1, "field-missing", f"required field '{key}' is missing from the front matter"))
    if "sources" not in data:
        out.append(error(path, 1, 1, "field-missing", "required field 'sources' is missing: cite at least one primary reference"))
    if "title" in data:
        if _is_str(data["title"]):
            clean["title"] = " ".join(data["title"].split())
        else:
            out.append(error(path, at("title"), 1, "field-invalid", "field 'title' must be a non-empty string"))
    if "summary" in data:
        found = validate_summary(path, at("summary"), data["summary"])
        out += found
        if _is_str(data["summary"]):
            clean["summary"] = " ".join(data["summary"].split())
    if "abbreviation" in data and data["abbreviation"] is not None:
        if _is_str(data["abbreviation"]):
            clean["abbreviation"] = data["abbreviation"].strip()
        else:
            out.append(error(path, at("abbreviation"), 1, "field-invalid", "field 'abbreviation' must be a string"))
    for key in ("aliases", "diagrams"):
        if key in data and data[key] is not None:
            value = data[key]
            if isinstance(value, list) and all(_is_str(v) for v in value):
                clean[key] = tuple(" ".join(v.split()) for v in value)
            else:
                bad = next((i for i, v in enumerate(value) if not _is_str(v)), None) if isinstance(value, list) else None
                line = fm.line_at(key, bad) if bad is not None else at(key)
                out.append(error(path, line, 1, "field-invalid", f"field '{key}' must be a list of non-empty strings"))
    def item(*node: str | int) -> int:
        return fm.line_at(*node)

    if "sources" in data:
        sources = data["sources"]
        if not isinstance(sources, list) or not sources:
            out.append(error(path, at("sources"), 1, "field-invalid", "field 'sources' must be a non-empty list of {title, url} entries"))
        else:
            clean_sources = []
            for index, entry in enumerate(sources, 1):
                if not isinstance(entry, dict):
                    out.append(error(path, item("sources", index - 1), 1, "field-invalid", f"sources[{index}] must be a mapping with 'title' and 'url'"))
                    continue
                unknown = [k for k in entry if k not in SOURCE_FIELDS]
                for key in unknown:
                    close = difflib.get_close_matches(str(key), SOURCE_FIELDS, n=1)
                    hint = f"; did you mean '{close[0]}'?" if close else ""
                    out.append(error(path, item("sources", index - 1, str(key)), 1, "field-unknown", f"sources[{index}] has unknown key '{key}'{hint}"))
                title, url = entry.get("title"), entry.get("url")
                if not _is_str(title):
                    out.append(error(path, item("sources", index - 1, "title"), 1, "field-invalid", f"sources[{index}].title must be a non-empty string"))
                if not _is_str(url) or not str(url).startswith(("https://", "http://")):
                    out.append(error(path, item("sources", index - 1, "url"), 1, "field-invalid", f"sources[{index}].url must be an http(s) URL"))
                if _is_str(title) and _is_str(url) and str(url).startswith(("https://", "http://")):
                    clean_sources.append((" ".join(title.split()), url.strip()))
            clean["sources"] = tuple(clean_sources)
    if "equivalents" in data and data["equivalents"] is not None:
        value = data["equivalents"]
        if isinstance(value, dict) and all(isinstance(k, str) and (v is None or isinstance(v, str)) for k, v in value.items()):
            clean["equivalents"] = tuple((k, " ".join(v.split())) for k, v in value.items() if v and v.strip())
        else:
            bad = next((k for k, v in value.items() if not (isinstance(k, str) and (v is None or isinstance(v, str)))), None) if isinstance(value, dict) else None
            line = fm.line_at("equivalents", str(bad)) if bad is not None else at("equivalents")
            out.append(error(path, line, 1, "field-invalid", "field 'equivalents' must map vendor names (amd, apple, intel, vulkan, ...) to strings; quote a value that starts with '[[', as in amd: \"[[wavefront]]\""))
    return clean, out
