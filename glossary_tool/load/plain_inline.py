"""Inline text of prose, line breaks and xrefs tokenized without markdown-it's rule loop.

markdown-it-py tokenizes an inline token's content by offering each position to every
inline rule in turn, then runs four post-passes (delimiter pairing, emphasis, strikethrough,
text merging). Most inline content of a term body is prose and ``[[xrefs]]``: at every
position one of only three rules can act (``text``, ``newline`` and ``xref``), and the
post-passes find nothing to do. For that content this module makes the children directly.

What it handles, read for the version pinned here: between the characters below, the
``text`` rule takes every run (any other character is text, whether the text rule takes it
or, for a terminator no rule starts with, such as ``-``, ``:`` or ``]``, the tokenizer's
fallback appends it); ``\\n`` is the ``newline`` rule (a softbreak, or a hardbreak after
two spaces, trailing spaces dropped, the next line's leading spaces and tabs skipped); ``[[``
where :data:`XREF_RE` matches is the ``xref`` rule (which comes before ``link``); ``!`` and
``^`` not followed by ``[`` are text (image and inline footnote need the bracket). Any other
character that can start a rule (``[`` not starting an xref, ``\\``, backticks, ``~``,
``*``, ``_``, ``<``, ``&``) sends the whole content to markdown-it as before. So the tokens
are the ones markdown-it makes (tests/test_plain_inline.py compares the two on real,
generated and random bodies).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_core.state_core import StateCore
from markdown_it.rules_core.text_join import _join_text_tokens
from markdown_it.token import Token

from glossary_tool.load.dispatch import _read_for_installed
from glossary_tool.load.fast_tokens import fields_known, inline_token
from glossary_tool.load.xref_rule import XREF_RE, parse_xref

#: Where the plain scan stops: a line break, or a character some inline rule other than
#: ``text`` may start with.
_STOP = re.compile(r"[\n\[\\`~*_!^<&]")
#: The inline rules (and post-passes) the scan was read against, in chain order: with any
#: other set the stock tokenizer is kept.
RULES = ("text", "newline", "xref_literal", "escape", "backticks", "strikethrough", "emphasis", "xref", "link", "image", "footnote_inline", "footnote_ref", "autolink", "html_inline", "entity")
POST_RULES = ("balance_pairs", "strikethrough", "emphasis", "fragments_join")

def plain_children(src: str) -> list[Token] | None:
    """The inline tokens markdown-it makes of ``src``, or None where ``src`` holds anything
    but text, line breaks and xrefs (see the module docstring)."""
    tokens: list[Token] = []
    append = tokens.append
    search = _STOP.search
    pending = ""
    pos = 0
    end = len(src)
    while True:
        stop = search(src, pos)
        if stop is None:
            pending += src[pos:]
            break
        at = stop.start()
        pending += src[pos:at]
        char = src[at]
        if char == "\n":
            kind, tag = "softbreak", "br"
            if pending.endswith(" "):
                if pending.endswith("  "):
                    pending = pending.rstrip(" ")
                    kind = "hardbreak"
                else:
                    pending = pending[:-1]
            if pending:
                append(inline_token("text", "", pending, {}))
                pending = ""
            append(inline_token(kind, tag, "", {}))
            at += 1
            while at < end and src[at] in " \t":
                at += 1
            pos = at
        elif char == "[":
            match = XREF_RE.match(src, at) if src.startswith("[[", at) else None
            if match is None:
                return None
            if pending:
                append(inline_token("text", "", pending, {}))
                pending = ""
            append(inline_token("xref", "", match.group(0), parse_xref(match, at)))
            pos = match.end()
        elif char in "!^" and at + 1 < end and src[at + 1] != "[":
            pending += char
            pos = at + 1
        else:
            return None
    if pending:
        append(inline_token("text", "", pending, {}))
    return tokens


def _nothing_to_join(children: list[Token]) -> bool:
    """Whether markdown-it's text_join would leave ``children`` as they are: no
    ``text_special`` to turn into text, no two text tokens in a row, no child with children."""
    after_text = False
    for child in children:
        kind = child.type
        if kind == "text":
            if after_text:
                return False
            after_text = True
        elif kind == "text_special" or child.children:
            return False
        else:
            after_text = False
    return True


#: The StateCore attribute where :func:`plain_inline`'s core ``inline`` rule leaves the
#: children lists the plain path made (by id, each held): text_join leaves them as they are.
_MADE = "_glossary_plain_children"


def text_join(state: StateCore) -> None:
    """markdown-it's ``text_join`` core rule, which copies every inline token's children into
    a new list as it joins them; where there is nothing to join (all that the plain path
    makes: no text_special, no two texts in a row, no nested children) the children are
    left as they are, an equal list."""
    made: dict[int, list[Token]] = getattr(state, _MADE, None) or {}
    for token in state.tokens:
        if token.type != "inline":
            continue
        children = token.children or []
        if made.get(id(children)) is children or _nothing_to_join(children):
            token.children = children
            continue
        for child in children:
            if child.children:  # an image's alt text is parsed into its own tokens
                child.children = _join_text_tokens(child.children)
        token.children = _join_text_tokens(children)


def _rule_names(ruler: Any) -> tuple[str, ...]:
    return tuple(rule.name for rule in ruler.__rules__ if rule.enabled)


def plain_inline(md: MarkdownIt) -> MarkdownIt:
    """Give ``md``'s inline parser the plain path (see the module docstring) for content
    parsed into an empty list (every inline token's, an inline footnote's), and the
    ``text_join`` above. Call it last;
    leaves ``md`` as it is when its inline rules are not the ones :data:`RULES` names or
    under a markdown-it-py or plugin release not listed in dispatch.READ_FOR."""
    if not _read_for_installed() or not fields_known() or _rule_names(md.inline.ruler) != RULES or _rule_names(md.inline.ruler2) != POST_RULES or md.options.get("linkify"):
        return md
    stock: Callable[..., list[Token]] = md.inline.parse

    def parse(src: str, md: MarkdownIt, env: Any, tokens: list[Token]) -> list[Token]:
        if not tokens and md.options["maxNesting"] > 0:  # at 0 no rule runs at all
            children = plain_children(src)
            if children is not None:
                tokens.extend(children)
                return tokens
        return stock(src, md, env, tokens)

    def inline(state: StateCore) -> None:
        """markdown-it's ``inline`` core rule (4.3) with the plain path taken here: one
        ``maxNesting`` read a document instead of a parse call and a read per inline token,
        and the lists it fills noted for :func:`text_join`."""
        made: dict[int, list[Token]] = {}
        setattr(state, _MADE, made)
        plain = md.options["maxNesting"] > 0  # at 0 no rule runs at all
        for token in state.tokens:
            if token.type == "inline":
                if token.children is None:
                    token.children = []
                children = token.children
                if plain and not children:
                    found = plain_children(token.content)
                    if found is not None:
                        children.extend(found)
                        made[id(children)] = children
                        continue
                stock(token.content, md, state.env, children)

    md.inline.parse = parse  # type: ignore[method-assign]
    names = _rule_names(md.core.ruler)
    if "text_join" in names:
        md.core.ruler.at("text_join", text_join)
        if "inline" in names:
            md.core.ruler.at("inline", inline)
    return md
