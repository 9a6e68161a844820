"""``[[...]]`` references inside a term's ``equivalents`` values, found with their file positions.

``equivalents: {amd: "[[wavefront]] (64 lanes on CDNA)"}`` says that the AMD name has a page of
its own. The loader records each such reference as an :class:`~glossary_tool.model.XRef` whose
line and column point into the front matter, so `glossary check` can report a dangling one
exactly where it was written; the linker resolves them (glossary_tool/link/equivalents.py).
"""

from __future__ import annotations

from glossary_tool.load.xref_rule import XREF_RE
from glossary_tool.model import XRef


def equivalent_xrefs(yaml_text: str, field_line: int, equivalents: tuple[tuple[str, str], ...]) -> tuple[tuple[str, XRef], ...]:
    """(vendor, xref) for every ``[[...]]`` in the ``equivalents`` values, in writing order.

    ``yaml_text`` is the front matter between its ``---`` lines (its first line is file line 2),
    ``field_line`` the 1-based file line of the ``equivalents:`` key. Each reference is searched
    for in the text from where the previous one was found, so two equal references get their
    own columns; one that YAML folding hides from the raw text falls back to the key's line.
    """
    lines = [""] + yaml_text.split("\n")  # index = 0-based file line
    cursor = (field_line - 1, 0)
    found: list[tuple[str, XRef]] = []
    for vendor, value in equivalents:
        for match in XREF_RE.finditer(value):
            raw = match.group(0)
            line, col = _search(lines, raw, cursor)
            if line < 0:
                line, col = field_line - 1, 0
            else:
                cursor = (line, col + len(raw))
            text_part = match.group("text")
            found.append(
                (
                    vendor,
                    XRef(
                        target=match.group("target").strip(),
                        anchor=(match.group("anchor") or "").strip() or None,
                        text=text_part.strip() if text_part is not None else None,
                        suffix=match.group("suffix"),
                        line=line + 1,
                        col=col + 1,
                        raw=raw,
                    ),
                )
            )
    return tuple(found)


def _search(lines: list[str], raw: str, cursor: tuple[int, int]) -> tuple[int, int]:
    """0-based (line, column) of ``raw`` at or after ``cursor``; (-1, -1) if absent."""
    line, col = cursor
    while 0 <= line < len(lines):
        at = lines[line].find(raw, col)
        if at >= 0:
            return line, at
        line, col = line + 1, 0
    return -1, -1


def plain_text(value: str) -> str:
    """An ``equivalents`` value as a reader sees it: each ``[[target|text]]suffix`` as its text."""
    return XREF_RE.sub(lambda m: (m.group("text") if m.group("text") is not None else m.group("target")).strip() + m.group("suffix"), value)
