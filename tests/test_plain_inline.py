"""The parser's shortcuts change no token and no result built on them.

The parser tokenizes prose, line breaks and xrefs without markdown-it's inline rule loop
(load/plain_inline.py), makes tokens and sets up its block state without the stock
constructors (load/fast_tokens.py) and splits table rows with ``str.split``
(load/fast_table.py); the loader builds XRefs without the dataclass ``__init__``. These
tests hold it to markdown-it's own tokens (every field of every token and child) and to
what the loader and the check compute from them (xrefs with their line and column,
headings, snippets, word counts, diagnostics, the leftover proof, block spans): on the real
glossary, a generated corpus, the xref contexts and property blocks of the xref tests, and
random inline text dense in the characters that decide between the plain path and the
stock one.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock

from benchmarks.generate import generate
from glossary_tool.emit.leftovers import brackets_cannot_render
from glossary_tool.load import body as body_module
from glossary_tool.load import fast_tokens, frontmatter
from glossary_tool.load.fast_table import escaped_split
from glossary_tool.load.plain_inline import plain_children
from glossary_tool.load.xref_rule import make_parser, table_module
from glossary_tool.verify.figure_check import block_spans
from tests.test_dispatch import FAST, STOCK, _tokens
from tests.test_xref_contexts import CASES
from tests.test_xref_property import block

REPO = Path(__file__).resolve().parent.parent




def _results(md: MarkdownIt, text: str, monkeypatch: pytest.MonkeyPatch) -> tuple:
    """What the loader and the check's precomputed functions make of ``text`` with ``md``."""
    monkeypatch.setattr(body_module, "_PARSER", md)
    body_module.forget_tokens()
    try:
        return (body_module.parse_body("glossary/s/t.md", text, 7), brackets_cannot_render(text), block_spans(text))
    finally:
        body_module.forget_tokens()


def _same(text: str, monkeypatch: pytest.MonkeyPatch | None = None) -> None:
    assert _tokens(FAST, text) == _tokens(STOCK, text), text
    if monkeypatch is not None:
        assert _results(FAST, text, monkeypatch) == _results(STOCK, text, monkeypatch), text


def test_the_parser_takes_the_shortcuts() -> None:
    """Else the comparisons below would compare markdown-it with itself."""
    assert FAST.inline.parse.__qualname__.startswith("plain_inline.")
    assert FAST.block.parse.__qualname__.startswith("fast_block_push.")
    assert fast_tokens.fields_known()
    assert plain_children("a [[x|y]]s\nb") is not None
    assert plain_children("a *b*") is None
    assert _table_rule(FAST).__module__ == "glossary_tool.load.fast_table"
    assert _table_rule(STOCK).__globals__["escapedSplit"].__name__ == "_xref_aware_split"
    assert _rule(FAST, "paragraph").__module__ == "glossary_tool.load.fast_paragraph"
    assert _rule(STOCK, "paragraph").__module__ == "markdown_it.rules_block.paragraph"
    assert _core_rule(FAST, "normalize").__module__ == "glossary_tool.load.fast_normalize"
    assert _core_rule(STOCK, "normalize").__module__ == "markdown_it.rules_core.normalize"
    assert _core_rule(FAST, "inline").__qualname__.startswith("plain_inline.")
    assert _core_rule(STOCK, "inline").__module__ == "markdown_it.rules_core.inline"


def test_text_join_leaves_the_plain_lists_alone() -> None:
    """The core inline rule notes the children lists the plain path filled, and text_join
    keeps exactly those (the same list objects) without looking into them."""
    from markdown_it.rules_core.state_core import StateCore

    from glossary_tool.load import plain_inline

    state = StateCore("a [[x]] b\n\nc *d*\n", FAST, {})
    for rule in FAST.core.ruler.getRules(""):
        rule(state)
    made = getattr(state, plain_inline._MADE)
    inline = [t for t in state.tokens if t.type == "inline"]
    assert [id(t.children) in made for t in inline] == [True, False]
    assert [t.as_dict() for t in state.tokens] == [t.as_dict() for t in STOCK.parse("a [[x]] b\n\nc *d*\n")]


def _core_rule(md: MarkdownIt, name: str):  # noqa: ANN202 - markdown-it's rule signature
    return next(rule.fn for rule in md.core.ruler.__rules__ if rule.name == name)


def _rule(md: MarkdownIt, name: str):  # noqa: ANN202 - markdown-it's rule signature
    return next(rule.fn for rule in md.block.ruler.__rules__ if rule.name == name)


def _table_rule(md: MarkdownIt):  # noqa: ANN202 - markdown-it's rule signature
    return next(rule.fn for rule in md.block.ruler.__rules__ if rule.name == "table")


def _bodies(folder: Path) -> list[tuple[str, str]]:
    out = []
    for path in sorted(folder.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        out.append((path.name, frontmatter.split(path.name, text)[2]))
    return out


@pytest.mark.parametrize(("name", "text"), _bodies(REPO / "glossary"), ids=lambda v: v if v.endswith(".md") else "")
def test_real_glossary(name: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _same(text, monkeypatch)


def test_generated_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generate(tmp_path, 60)
    bodies = _bodies(tmp_path / "glossary")
    assert len(bodies) > 60
    taken = 0
    for _, text in bodies:
        _same(text, monkeypatch)
        taken += sum(plain_children(t.content) is not None for t in FAST.parse(text) if t.type == "inline")
    assert taken > 10 * len(bodies)  # the path is taken, not only declined


@pytest.mark.parametrize("name", list(CASES))
def test_xref_contexts(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _same(CASES[name][0], monkeypatch)


@settings(max_examples=150, deadline=None)
@given(st.lists(block(), min_size=1, max_size=6))
def test_xref_property_blocks(blocks: list) -> None:
    _same("\n\n".join(text for text, _ in blocks) + "\n")


EDGES = [
    "a  \nb", "a \nb", "a   \n  \tb", "a\\\nb", "  lead\n\n trail  ", "x !y ^z !", "x ![y] ^[z]", "end !", "end ^",
    "[[a]]b [[a|t\nu]]s [[a#h|t]] [[ a ]] [[]] [[a|]]", "[[a", "[[a]", "[a]", "[[a]b]]", "[[a|b]c]]", "\\[[a]]",
    "a]] b", "- : # $ % + = > @ ] { } text", "a & b", "a &amp; b", "<b>x</b>", "`c` [[x]]", "*e* [[x]]", "~s~ ~~t~~",
    "Title [[x]]\n===\n", "## Head [[x|y]] ##\n", "| a | [[x\\|y]] |\n|---|---|\n| [[x|z]] | b  |\n",
    "[^1] text\n\n[^1]: note [[x]]  \n  more\n", "Text ^[inline [[x]]\nnote] after.\n", "\u00a0a\u2003\n\u3000b",
    "a\tb \t\nc", "x [[a\n\nb]]", "![a &amp; *b* \\* c](u) x", "a \\* b &amp; c ** d", "[[x]] &#91;&#91;y]]",
]


@pytest.mark.parametrize("text", EDGES)
def test_edges(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _same(text, monkeypatch)
    _same(text + "\n", monkeypatch)


PIECES = st.sampled_from(
    ["word", " ", "  ", "\t", "\n", "  \n", " \n", "\n ", "[[x]]", "[[x|t]]", "[[x\n|t]]", "[[", "]]", "[", "]", "|", "\\", "\\[[",
     "`", "*", "_", "~", "!", "^", "<", ">", "&", "&amp;", "-", ":", "#", "=", "!!", "^[", "![", "é", "\u00a0", "s"]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(PIECES, max_size=30))
def test_random_inline_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    _same(text)
    _same("- " + text)
    _same("| h |\n|---|\n| " + text.replace("\n", " ") + " |")


def test_random_generated_paragraphs(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    words = ["warp", "lane", "[[x]]", "[[x|y z]]s", "a-b", "c:d", "n/a", "3.35", "!", "(p)", "{q}", "#1", "@x", "+", "="]
    for _ in range(200):
        lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) + rng.choice(["", " ", "  "]) for _ in range(rng.randint(1, 5))]
        _same("\n".join(lines), monkeypatch)


@settings(max_examples=600, deadline=None)
@given(st.text(st.sampled_from(["a", "Z", "9", " ", "\t", "\n", ".", "-", "[", "é", "\u00a0", "\u2003", "—", "*", "\x1c", "\x85", "_"]), max_size=16))
def test_word_count_regex_is_the_look_behind_one(text: str) -> None:
    """text.count_words's regex, its look-behind moved for speed, finds what the plain one did."""
    import re

    from glossary_tool.text import _NO_ALNUM_WORD

    assert _NO_ALNUM_WORD.findall(text) == re.findall(r"(?<!\S)[^\sA-Za-z0-9]+(?!\S)", text)


ROW_PIECES = st.sampled_from(["a", " ", "|", "\\", "\\|", "\\\\|", "||", "[[x|y]]", "é"])


@settings(max_examples=800, deadline=None)
@given(st.lists(ROW_PIECES, max_size=20))
def test_table_cell_split_is_markdown_its(pieces: list[str]) -> None:
    """fast_table.escaped_split cuts a row where markdown-it's escapedSplit does."""
    row = "".join(pieces)
    assert escaped_split(row) == table_module.escapedSplit(row)


TABLE_PIECES = st.sampled_from(["a", " ", "\t", "|", "||", "-", "---", ":", ":-", "-:", "\\|", "[[x|y]]", "\n", "\n|", "\n- ", "\n    ", "é", "\u00a0", "\u2003"])


@settings(max_examples=500, deadline=None)  # four parses by each parser an example: 7.7 s at 1,500
@given(st.lists(TABLE_PIECES, max_size=30), st.sampled_from(["", "- ", "> ", "  ", "    ", "1. "]))
def test_random_tables(pieces: list[str], prefix: str) -> None:
    """fast_table.table_rule (the stock table rule written out) makes markdown-it's tokens on
    text dense in delimiter-row and cell characters, at the top level and nested."""
    text = "".join(pieces)
    _same(text)
    _same("| a | b |\n" + text)
    _same(prefix + "| a | b |\n" + prefix.replace("-", " ").replace("1.", "  ") + text)
    _same("p\n" + text + "\n")


def test_table_edges() -> None:
    for text in [
        "| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 |\n| 4 | 5 | 6 |\n\nafter",
        "a | b\n-- | --\nc | d\n> quote",
        "|a|\n|-|\n|b|\n    code",
        "| a |\n| - |\n",
        "| a |\n|- |\n",
        "| a |\n-|\n",
        "| a |\n:\n",
        "| a | b |\n|---||---|\n",
        "| a | b |\n| --- | :-- |\n|  | \u00a0x\u00a0 |\n",
        "- | a | b |\n  |---|---|\n  | c | d |\n- e",
        "\t| a |\n\t|---|\n\t| b |\n",
    ]:
        _same(text)
        # (not ending in an empty quote line: a table then crashes the stock parse too,
        # IndexError in mdit_py_plugins' admonition rule)
        _same("> " + text.rstrip("\n").replace("\n", "\n> ") + "\n")


@settings(max_examples=800, deadline=None)
@given(st.text(st.sampled_from(["a", " ", "\t", "\n", "-", "é"]), max_size=24))
def test_block_state_is_markdown_its(src: str) -> None:
    """The block state's line markers (fast_tokens._line_marks) and every other attribute
    are what markdown-it's StateBlock sets up, trailing blank and whitespace lines included."""
    md = make_parser(shortcuts=False)
    assert vars(fast_tokens._FastPushState(src, md, {}, [])) == vars(StateBlock(src, md, {}, []))


def test_block_state_on_real_bodies() -> None:
    md = make_parser(shortcuts=False)
    for _, text in _bodies(REPO / "glossary"):
        assert vars(fast_tokens._FastPushState(text, md, {}, [])) == vars(StateBlock(text, md, {}, []))


def test_xrefs_made_directly_are_the_dataclass_ones() -> None:
    """parse_body fills an XRef's __dict__ itself (body._XREF_DIRECT): equal to XRef(...),
    same hash, same pickle (the cache stores them), same repr."""
    import pickle

    from glossary_tool.model import XRef

    assert body_module._XREF_DIRECT
    parsed = body_module.parse_body("glossary/s/t.md", "see [[a#h|t]]s and\n[[b]]\n", 3)
    made = [XRef(**{name: getattr(x, name) for name in body_module._XREF_FIELDS}) for x in parsed.xrefs]
    assert [x.target for x in parsed.xrefs] == ["a", "b"]
    assert list(parsed.xrefs) == made
    assert [hash(x) for x in parsed.xrefs] == [hash(x) for x in made]
    assert pickle.dumps(parsed.xrefs) == pickle.dumps(tuple(made))
    assert [repr(x) for x in parsed.xrefs] == [repr(x) for x in made]


def test_other_releases_keep_the_stock_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a markdown-it-py release nobody read, inline and block parse are its own."""
    import markdown_it

    monkeypatch.setattr(markdown_it, "__version__", "9.9.0")
    md = make_parser()
    assert md.inline.parse.__func__ is type(md.inline).parse  # type: ignore[attr-defined]
    assert md.block.parse.__func__ is type(md.block).parse  # type: ignore[attr-defined]
    assert _table_rule(md).__globals__["escapedSplit"].__name__ == "_xref_aware_split"
    assert _table_rule(md).__module__ == "markdown_it.rules_block.table"
    assert _rule(md, "paragraph").__module__ == "markdown_it.rules_block.paragraph"
    assert _core_rule(md, "normalize").__module__ == "markdown_it.rules_core.normalize"
    assert _core_rule(md, "inline").__module__ == "markdown_it.rules_core.inline"


@settings(max_examples=800, deadline=None)
@given(st.text(st.sampled_from(["a", "Z", "9", " ", "\t", "\n", "\x0b", "\x1c", "\x1f", ".", "-", "|", "[", "_", "*", "é", "\u00a0", "\x85", "\x7f", "\x00"]), max_size=20))
def test_word_count_without_the_regex_is_count_words(text: str) -> None:
    """text.count_words (ASCII text: punctuation deleted, then word starts counted) counts the
    words a split and the regex count, whitespace of every kind and non-ASCII text included."""
    from glossary_tool.text import _count_words_by_split, count_words

    assert count_words(text) == _count_words_by_split(text)


def test_word_count_on_real_bodies() -> None:
    from glossary_tool.text import _count_words_by_split, count_words

    bodies = [text for _, text in _bodies(REPO / "glossary")]
    assert sum(text.isascii() for text in bodies) > 10  # the translate path is taken
    for text in bodies:
        assert count_words(text) == _count_words_by_split(text)


@settings(max_examples=400, deadline=None)
@given(st.text(st.sampled_from(["a", "<", "=", "{", "]", "(", ":", "[", " ", "\n"]), max_size=12))
def test_html_marker_test_names_the_markers(text: str) -> None:
    """body._may_hold_html, written out for speed, tests for the markers body._HTML_MARKERS lists."""
    assert body_module._may_hold_html(text) == any(marker in text for marker in body_module._HTML_MARKERS)


@settings(max_examples=600, deadline=None)
@given(st.text(st.sampled_from(["a", " ", "\n", "\r", "\x00", "\ufffd", "-", "#"]), max_size=20))
def test_normalize_is_markdown_its(src: str) -> None:
    """fast_normalize.normalize leaves the text markdown-it's normalize makes, line endings
    and NULs or not (and so the same tokens)."""
    from markdown_it.rules_core.normalize import normalize as stock
    from markdown_it.rules_core.state_core import StateCore

    from glossary_tool.load.fast_normalize import normalize

    fast_state, stock_state = StateCore(src, FAST, {}), StateCore(src, STOCK, {})
    normalize(fast_state)
    stock(stock_state)
    assert fast_state.src == stock_state.src
    _same(src)
