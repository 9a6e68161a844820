"""markdown-it tokens made without the dataclass constructor.

A 250-word term body parses into about 90 block tokens and 80 inline children. markdown-it
makes each through ``Token(...)``: the dataclass ``__init__`` with its field defaults, then
``__post_init__``, which converts ``attrs`` (always empty here). Setting the thirteen slots
directly makes the same token in a third of the time. :func:`fast_block_push` gives a
parser a block state whose ``push`` does that; load/plain_inline.py makes its children the
same way. Both only run where :data:`FIELDS` are the Token's fields, so a release that adds
one keeps the stock constructor.

The same block state also sets up its line markers (where each line starts and ends, its
indentation) from ``str.split`` and ``lstrip`` instead of markdown-it's loop over every
line (:func:`_line_marks`; its attributes compared with StateBlock's in
tests/test_plain_inline.py).
"""

from __future__ import annotations

import dataclasses
from itertools import accumulate
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


def _line_marks(src: str) -> tuple[list[int], list[int], list[int], list[int]]:
    """``StateBlock``'s line markers of ``src`` (``bMarks``, ``eMarks``, ``tShift``,
    ``sCount``, each with the closing entry at ``len(src)``), from ``str.split`` and
    ``lstrip`` instead of its loop over every line's indentation.

    As the stock loop: a last line without ``\\n`` made only of spaces and tabs gets no
    marker, nor does the empty text after a final ``\\n``; a tab in the indentation counts
    to the next multiple of 4 in ``sCount``.
    """
    lines = src.split("\n")
    if not lines[-1].strip(" \t"):  # after a final "\n", or spaces and tabs only: no line
        lines.pop()
    t_shift = [len(line) - len(line.lstrip(" \t")) for line in lines]
    if "\t" in src:
        s_count = [_columns(line[:shift]) if shift else 0 for line, shift in zip(lines, t_shift, strict=True)]
    else:
        s_count = t_shift.copy()
    b_marks = list(accumulate(map(_PLUS_ONE, map(len, lines)), initial=0))
    e_marks = list(map(_MINUS_ONE, b_marks[1:]))  # each line ends where the next begins, less its "\n"
    length = len(src)
    b_marks[-1] = length  # the closing entry
    e_marks.append(length)
    t_shift.append(0)
    s_count.append(0)
    return b_marks, e_marks, t_shift, s_count


_PLUS_ONE = (1).__add__
_MINUS_ONE = (-1).__add__


def _columns(indent: str) -> int:
    """The width of spaces and tabs, a tab reaching the next multiple of 4."""
    offset = 0
    for character in indent:
        offset += 4 - offset % 4 if character == "\t" else 1
    return offset


class _FastPushState(StateBlock):
    """markdown-it's block state, its ``push`` making the token by :data:`FIELDS` and its
    line markers computed by :func:`_line_marks`."""

    def __init__(self, src: str, md: MarkdownIt, env: Any, tokens: list[Token]) -> None:
        # The attributes StateBlock.__init__ sets (4.3), in its order.
        self.src = src
        self.md = md
        self.env = env
        self.tokens = tokens
        self.bMarks, self.eMarks, self.tShift, self.sCount = _line_marks(src)
        self.bsCount = [0] * len(self.bMarks)
        self.blkIndent = 0
        self.line = 0
        self.lineMax = len(self.bMarks) - 1
        self.tight = False
        self.ddIndent = -1
        self.listIndent = -1
        self.parentType = "root"
        self.level = 0
        self.result = ""
        self._code_enabled = "code" in md["block"].ruler.get_active_rules()

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
