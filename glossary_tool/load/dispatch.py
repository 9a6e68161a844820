"""Try only the block rules that can match a line, chosen by its first character.

markdown-it-py finds a block by calling every rule in turn until one accepts the line, and
a paragraph asks every terminator rule about each of its lines; each call logs, checks for
indented code and reads the line's first character before giving up. For a term body that
is most of the parse: a plain prose line is offered to about a dozen rules that reject it
on its first character.

:func:`dispatch_blocks` swaps each rule chain of a parser for one function that looks at
the line's first character (after indentation) once and calls, in the stock order, only
the rules that accept that character. Every rule skipped is one whose code, read for the
version pinned here, returns False without touching the state for any other first
character, so the tokens are the ones the stock chain makes (tests/test_dispatch.py
compares the two on real, generated and random bodies). Lines indented as code, empty
lines and rules not listed here go through the whole chain as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock

BlockRule = Callable[[StateBlock, int, int, bool], bool]

#: Rule name -> the first characters (at ``bMarks + tShift``) it can accept on a line
#: indented less than a code block. Each returns False at once for any other character.
FIRST_CHARS: dict[str, frozenset[str]] = {
    "fence": frozenset("`~"),
    "blockquote": frozenset(">"),
    "hr": frozenset("*-_"),
    "list": frozenset("*-+0123456789"),
    "reference": frozenset("["),
    "footnote_def": frozenset("["),
    "html_block": frozenset("<"),
    "heading": frozenset("#"),
    "admonition": frozenset("!?"),  # mdit_py_plugins.admon: !!!, ???, ???+
    "tab": frozenset("="),  # load/tabs_rule.py: === "Label"
}
#: Accepts only a line indented as code (the filtered path never offers it one).
CODE_ONLY = frozenset({"code"})
#: Decided by the next line (a delimiter row starts with |, - or :).
TABLE = "table"
_DELIMITER_START = frozenset("|-:")


def _chain(rules: Sequence[tuple[str, BlockRule]]) -> BlockRule:
    """One function standing for ``rules`` (names and functions, in chain order)."""
    every = tuple(fn for _, fn in rules)
    table = next((fn for name, fn in rules if name == TABLE), None)
    by_char: dict[str, tuple[BlockRule, ...]] = {}

    def candidates(char: str) -> tuple[BlockRule, ...]:
        found = tuple(fn for name, fn in rules if name not in CODE_ONLY and (name not in FIRST_CHARS or char in FIRST_CHARS[name]))
        by_char[char] = found
        return found

    def run(state: StateBlock, line: int, end_line: int, silent: bool) -> bool:
        pos = state.bMarks[line] + state.tShift[line]
        indent = state.sCount[line] - state.blkIndent
        if pos >= state.eMarks[line] or indent >= 4:
            for rule in every:
                if rule(state, line, end_line, silent):
                    return True
            return False
        char = state.src[pos]
        found = by_char.get(char)
        if found is None:  # an empty tuple (no rule takes this character) is an answer too
            found = candidates(char)
        for rule in found:
            if rule is table:
                following = line + 1
                if line + 2 > end_line:
                    continue
                start = state.bMarks[following] + state.tShift[following]
                if start >= state.eMarks[following] or state.src[start] not in _DELIMITER_START:
                    continue
            if rule(state, line, end_line, silent):
                return True
        return False

    return run


#: A line that could underline a setext heading: ``-`` or ``=`` last, then only spaces or tabs.
_UNDERLINE = re.compile(r"[-=][ \t]*$", re.M)
#: :data:`_UNDERLINE` as two searches, one per character: a pattern that opens with a
#: character class is tried at every position through a call per character, one that opens
#: with a literal skips to that character in a tight loop (a body costs a tenth as much).
_DASH_LAST = re.compile(r"-[ \t]*$", re.M)
_EQUALS_LAST = re.compile(r"=[ \t]*$", re.M)


def could_underline(src: str) -> bool:
    """Whether some line of ``src`` matches :data:`_UNDERLINE`."""
    return _DASH_LAST.search(src) is not None or _EQUALS_LAST.search(src) is not None


def _quick_lheading(stock: BlockRule) -> BlockRule:
    """The setext-heading rule, short-cut for a source with no line that could underline one.

    The stock rule runs before the paragraph rule on every paragraph and walks all its lines
    (asking every terminator about each) looking for a ``---``/``===`` underline; without
    one it returns False, leaving ``parentType`` set to "paragraph" (which the list rule
    reads). Where no line of the source ends in ``-`` or ``=`` (then spaces), the walk cannot
    find one, so this does only what the walk leaves behind.
    """
    last: list[Any] = [None, True]  # the source last asked about, and its answer

    def lheading(state: StateBlock, line: int, end_line: int, silent: bool) -> bool:
        src = state.src
        if src is not last[0]:
            last[0], last[1] = src, could_underline(src)
        if last[1]:
            return stock(state, line, end_line, silent)
        if not state.is_code_block(line):
            state.parentType = "paragraph"
        return False

    return lheading


#: The releases whose block rules FIRST_CHARS was read against (major.minor). With any
#: other release the stock chains are kept: slower, never different.
READ_FOR = {"markdown_it": ("4.3",), "mdit_py_plugins": ("0.7",)}


def _read_for_installed() -> bool:
    import markdown_it
    import mdit_py_plugins

    for module in (markdown_it, mdit_py_plugins):
        release = ".".join(str(getattr(module, "__version__", "")).split(".")[:2])
        if release not in READ_FOR[module.__name__]:
            return False
    return True


def dispatch_blocks(md: MarkdownIt) -> MarkdownIt:
    """Give ``md``'s block ruler chains that dispatch on the first character (see the module
    docstring). Call it last: a rule enabled, disabled or added later rebuilds the chains.
    Leaves ``md`` as it is under a markdown-it-py or plugin release not listed in READ_FOR."""
    if not _read_for_installed():
        return md
    ruler: Any = md.block.ruler
    for rule in ruler.__rules__:
        if rule.name == "lheading":
            rule.fn = _quick_lheading(rule.fn)
    ruler.__cache__ = None  # compiled again with the new function
    stock = ruler.getRules
    # chain -> (the ruler's compiled cache it was built from, the one function). The ruler
    # drops its cache (None) on every change and compiles a new dict when asked next: a
    # chain built from the dict in place now is current, without asking the stock getRules
    # (15 times a body).
    built: dict[str, tuple[Any, list[BlockRule]]] = {}

    def get_rules(chain: str) -> list[BlockRule]:
        cached = built.get(chain)
        if cached is not None and cached[0] is ruler.__cache__:
            return cached[1]
        base = stock(chain)  # compiles the cache where it was dropped
        names = {id(rule.fn): rule.name for rule in ruler.__rules__}
        single = [_chain([(names.get(id(fn), ""), fn) for fn in base])] if base else []
        built[chain] = (ruler.__cache__, single)
        return single

    ruler.getRules = get_rules
    return md
