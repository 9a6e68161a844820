"""The ``[[target#anchor|text]]suffix`` cross-reference syntax as a markdown-it-py inline rule.

Being an inline rule means markdown-it-py never offers it code spans, fenced or indented
code, or raw HTML blocks: C++ attributes such as ``[[nodiscard]]`` inside code are untouched
by construction, not by a regex that tries to skip them. Because the rule runs on a
paragraph's inline content, an xref may wrap across a soft line break in any block that
holds inline text (paragraphs, list items, quotes, admonitions, tabs, footnotes, table cells).

Two places where plain markdown-it would break the syntax are adapted here:

- GFM tables split a row at every unescaped ``|``; the table rule used here leaves pipes
  inside ``[[...]]`` alone, so ``| [[tf32|TF32]] |`` is one cell (``[[tf32\\|TF32]]``, the
  Obsidian habit, works too).
- ``\\[[`` is a literal pair of brackets. It becomes an ``xref_literal`` token, so the
  check that no ``[[`` reaches a reader can tell a deliberate literal from a broken xref.
"""

from __future__ import annotations

import importlib
import re
import types
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.admon import admon_plugin
from mdit_py_plugins.footnote import footnote_plugin

from glossary_tool.load import fast_normalize, fast_paragraph
from glossary_tool.load.dispatch import _read_for_installed, dispatch_blocks
from glossary_tool.load.fast_table import escaped_split, table_rule
from glossary_tool.load.heading_attrs import heading_attrs_plugin
from glossary_tool.load.tabs_rule import tabs_plugin

# The submodule, not the function of the same name that markdown_it.rules_block exports.
table_module = importlib.import_module("markdown_it.rules_block.table")

# A target or anchor never holds brackets or a separator; `\|` is a separator too. The text
# may hold anything but brackets. Newlines are allowed: inline content never holds a blank
# line, so a newline inside an xref is a soft line break of the source.
#
# Each is written unrolled, runs of its plain characters joined by backslashes that do not
# start ``\|``, rather than as ``(?:[^...]|\\(?!\|))*``: the same strings, tried longest
# first in the same order, but Python's regex engine takes an alternation inside a repeat
# one character at a time with a backtracking frame each, and a run of one character class
# in a tight loop (:data:`XREF_RE` costs a third as much on a body; tests/test_xref_parser.py
# compares the two forms on random text).
_NAME = r"[^\[\]|#\\]*(?:\\(?!\|)[^\[\]|#\\]*)*"
_ANCHOR = r"[^\[\]|\\]*(?:\\(?!\|)[^\[\]|\\]*)*"
XREF_RE = re.compile(rf"\[\[(?P<target>{_NAME})(?:#(?P<anchor>{_ANCHOR}))?(?:\\?\|(?P<text>[^\[\]]*))?\]\](?P<suffix>[A-Za-z]*)")
_SPACES = re.compile(r"\s+")
assert tuple(XREF_RE.groupindex) == ("target", "anchor", "text", "suffix") and XREF_RE.groups == 4


def _squash(text: str) -> str:
    """Whitespace as a reader sees it: a wrapped name reads as one line."""
    if "  " not in text and text.isprintable():
        # the only whitespace a printable text holds is single ASCII spaces (every other
        # character ``\s`` matches is a control or separator character): nothing to squash
        return text.strip()
    return _SPACES.sub(" ", text).strip()


def parse_xref(match: re.Match[str], pos: int | None = None) -> dict[str, Any]:
    """An xref token's meta: its names squashed (:func:`_squash`), led by ``"pos"`` where
    ``pos`` is given (the xref's offset in its inline content, as the token records it)."""
    target, anchor, text, suffix = match.groups()  # the four groups, in this order
    meta: dict[str, Any] = {} if pos is None else {"pos": pos}
    meta["target"] = _squash(target)
    meta["anchor"] = (_squash(anchor) or None) if anchor else None
    meta["text"] = _squash(text) if text is not None else None
    meta["suffix"] = suffix
    return meta


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
        token.meta = parse_xref(match, pos)
    state.pos = match.end()
    return True


def literal_rule(state: StateInline, silent: bool) -> bool:
    """``\\[[`` -> a literal ``[[`` the reader is meant to see."""
    if not state.src.startswith("\\[[", state.pos):
        return False
    if not silent:
        token = state.push("xref_literal", "", 0)
        token.content = "[["
    state.pos += 3
    return True


_XREF_SPAN = re.compile(r"\[\[[^\[\]\n]*\]\]")
_BARE_PIPE = re.compile(r"(?<!\\)\|")


def _protect(line: str) -> str:
    """``line`` with the pipes inside ``[[...]]`` escaped."""
    return _XREF_SPAN.sub(lambda m: _BARE_PIPE.sub(r"\\|", m.group(0)), line) if "[[" in line else line


def _xref_aware_split(line: str) -> list[str]:
    """markdown-it's cell splitter, with the pipes inside ``[[...]]`` escaped first.

    The stock splitter drops the backslash of an escaped pipe, so the cell holds
    ``[[x|text]]`` whether the author wrote ``|`` or ``\\|``.
    """
    return table_module.escapedSplit(_protect(line))


def _fast_xref_aware_split(line: str) -> list[str]:
    """:func:`_xref_aware_split` splitting by load/fast_table.py's ``escaped_split``."""
    return escaped_split(_protect(line))


def _table_with(split: Callable[[str], list[str]]) -> Callable[..., bool]:
    """The GFM table rule, its one helper swapped for ``split``: copying the 150-line rule to
    change one call would fork it from markdown-it-py's fixes; this binds the same code to
    other globals."""
    return types.FunctionType(table_module.table.__code__, {**table_module.table.__globals__, "escapedSplit": split}, "table")


_table_rule = _table_with(_xref_aware_split)
#: The parser's table rule when shortcuts are on (make_parser): the stock rule written out
#: (load/fast_table.py), splitting by ``escaped_split``.
_fast_table_rule = table_rule(_fast_xref_aware_split)


#: The class of the element around a deliberate ``[[``: the check for raw brackets skips it.
LITERAL_CLASS = "xref-literal"


def _render_literal(self, tokens, idx, options, env) -> str:  # noqa: ANN001 (markdown-it's renderer signature)
    return f'<span class="{LITERAL_CLASS}">[[</span>'


def _render_unresolved(self, tokens, idx, options, env) -> str:  # noqa: ANN001
    """Without a glossary to resolve against, an xref shows its text (emit/render.py links it)."""
    meta = tokens[idx].meta
    return escapeHtml((meta["text"] if meta["text"] is not None else meta["target"]) + meta["suffix"])


def xref_plugin(md: MarkdownIt) -> None:
    """Register the rules: xrefs before ``link`` (never read as a Markdown link), the
    literal before ``escape``, and the xref-aware table rule in place of the stock one."""
    md.inline.ruler.before("link", "xref", xref_rule)
    md.inline.ruler.before("escape", "xref_literal", literal_rule)
    md.block.ruler.at("table", _table_rule, {"alt": ["paragraph", "reference"]})
    md.add_render_rule("xref_literal", _render_literal)
    md.add_render_rule("xref", _render_unresolved)


def make_parser(*, shortcuts: bool = True) -> MarkdownIt:
    """The one Markdown dialect of term files, from `check` to page, book and llms.txt:
    CommonMark + tables + strikethrough + footnotes + admonitions (``!!! note``) + content
    tabs (``=== "Label"``) + heading attribute lists (``## Title {#id}``) + xrefs. Raw HTML
    is allowed (and checked and sanitised).

    Shortcuts make the same tokens faster: block rules chosen by a line's first character
    (load/dispatch.py), plain inline content tokenized directly (load/plain_inline.py),
    tokens made without the dataclass constructor and the block state's line markers set up
    from ``str.split`` (load/fast_tokens.py), table rows split without a walk over every
    character (load/fast_table.py), paragraphs cut out without the per-line helpers
    (load/fast_paragraph.py), the source normalized only where it has a ``\r`` or NUL
    (load/fast_normalize.py). ``shortcuts=False``
    gives markdown-it-py's own rule chains for the same dialect: what the tests compare with."""
    from glossary_tool.load.fast_tokens import fast_block_push
    from glossary_tool.load.plain_inline import plain_inline  # it reads XREF_RE from here

    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.use(xref_plugin).use(footnote_plugin).use(admon_plugin).use(tabs_plugin).use(heading_attrs_plugin)
    if shortcuts and _read_for_installed():
        md.block.ruler.at("table", _fast_table_rule, {"alt": ["paragraph", "reference"]})
        md.block.ruler.at("paragraph", fast_paragraph.paragraph)  # as the stock one, no alt
        md.core.ruler.at("normalize", fast_normalize.normalize)
    return fast_block_push(plain_inline(dispatch_blocks(md))) if shortcuts else md
