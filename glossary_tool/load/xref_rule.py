"""The ``[[target#anchor|text]]suffix`` cross-reference syntax as a markdown-it-py inline rule.

Being an inline rule means markdown-it-py never offers it code spans, fenced or indented
code, or raw HTML: C++ attributes such as ``[[nodiscard]]`` inside code are untouched by
construction, not by a regex that tries to skip them.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

# target: no brackets, pipes, hashes or newlines; anchor: no brackets/pipes; text: no brackets.
XREF_RE = re.compile(
    r"\[\[(?P<target>[^\[\]\n|#]*)(?:#(?P<anchor>[^\[\]\n|]*))?(?:\|(?P<text>[^\[\]\n]*))?\]\](?P<suffix>[A-Za-z]*)"
)


def xref_rule(state: StateInline, silent: bool) -> bool:
    pos = state.pos
    if not state.src.startswith("[[", pos):
        return False
    match = XREF_RE.match(state.src, pos)
    if match is None:
        return False
    if not silent:
        token = state.push("xref", "", 0)
        token.content = match.group(0)
        token.meta = {
            "pos": pos,
            "target": match.group("target").strip(),
            "anchor": (match.group("anchor") or "").strip() or None,
            "text": match.group("text").strip() if match.group("text") is not None else None,
            "suffix": match.group("suffix"),
        }
    state.pos = match.end()
    return True


def xref_plugin(md: MarkdownIt) -> None:
    """Register the rule before ``link`` so ``[[x]]`` is never read as a Markdown link."""
    md.inline.ruler.before("link", "xref", xref_rule)


def make_parser() -> MarkdownIt:
    """The one Markdown dialect of term files: CommonMark + tables + strikethrough + xrefs."""
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.use(xref_plugin)
    return md
