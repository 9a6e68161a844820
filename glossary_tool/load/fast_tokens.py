"""markdown-it tokens made without the dataclass constructor.

A 250-word term body parses into about 90 block tokens and 80 inline children. markdown-it
makes each through ``Token(...)``: the dataclass ``__init__`` with its field defaults, then
``__post_init__``, which converts ``attrs`` (always empty here). Setting the thirteen slots
directly makes the same token in a third of the time. :func:`fast_block_push` gives a
parser a block state whose ``push`` does that; load/plain_inline.py makes its children the
same way. Both only run where :data:`FIELDS` are the Token's fields, so a release that adds
one keeps the stock constructor.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

#: The fields the functions below set, in the order markdown-it-py 4.3 declares them.
FIELDS = ("type", "tag", "nesting", "attrs", "map", "level", "children", "content", "markup", "info", "meta", "block", "hidden")
_new = Token.__new__


def fields_known() -> bool:
    """Whether :class:`Token` has exactly :data:`FIELDS` (then the functions here make
    tokens equal to ``Token(...)``'s)."""
    return tuple(field.name for field in dataclasses.fields(Token)) == FIELDS


def inline_token(kind: str, tag: str, content: str, meta: dict[str, Any]) -> Token:
    """``Token(kind, tag, 0, content=content, meta=meta)`` at level 0: an inline child."""
    token = _new(Token)
    token.type = kind
    token.tag = tag
    token.nesting = 0
    token.attrs = {}
    token.map = None
    token.level = 0
    token.children = None
    token.content = content
    token.markup = ""
    token.info = ""
    token.meta = meta
    token.block = False
    token.hidden = False
    return token


class _FastPushState(StateBlock):
    """markdown-it's block state, its ``push`` making the token by :data:`FIELDS`."""

    def push(self, ttype: str, tag: str, nesting: Literal[-1, 0, 1]) -> Token:
        token = _new(Token)
        token.type = ttype
        token.tag = tag
        token.nesting = nesting
        token.attrs = {}
        token.map = None
        if nesting < 0:
            self.level -= 1  # closing tag
        token.level = self.level
        if nesting > 0:
            self.level += 1  # opening tag
        token.children = None
        token.content = ""
        token.markup = ""
        token.info = ""
        token.meta = {}
        token.block = True
        token.hidden = False
        self.tokens.append(token)
        return token


def fast_block_push(md: MarkdownIt) -> MarkdownIt:
    """Give ``md``'s block parser :class:`_FastPushState` (its ``parse`` is markdown-it's
    ``ParserBlock.parse`` with that state); as it is where :func:`fields_known` fails."""
    from glossary_tool.load.dispatch import _read_for_installed  # the push copied is 4.3's

    if not fields_known() or not _read_for_installed():
        return md
    block = md.block

    def parse(src: str, md: MarkdownIt, env: Any, outTokens: list[Token]) -> list[Token] | None:
        if not src:
            return None
        state = _FastPushState(src, md, env, outTokens)
        block.tokenize(state, state.line, state.lineMax)
        return state.tokens

    block.parse = parse  # type: ignore[method-assign]
    return md
