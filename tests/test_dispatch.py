"""The parser's first-character dispatch of block rules (load/dispatch.py) changes no token.

The dispatch skips a rule only where the rule's own code would reject the line on its first
character; these tests hold it to that by comparing every token (type, map, content, info,
markup, meta, children) with the stock rule chains, on the real glossary, on Markdown built
to hit the rules' edges (indentation, containers, lazy lines, setext underlines, tables,
admonitions, tabs, footnotes) and on random mixtures of those lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from glossary_tool.load.xref_rule import make_parser

REPO = Path(__file__).resolve().parent.parent


STOCK, FAST = make_parser(shortcuts=False), make_parser()


def _tokens(md: MarkdownIt, text: str) -> list[dict]:
    return [token.as_dict() for token in md.parse(text, {})]


def _same(text: str) -> None:
    assert _tokens(FAST, text) == _tokens(STOCK, text), text


def test_the_parser_dispatches() -> None:
    rules = FAST.block.ruler.getRules("")
    assert len(rules) == 1 and rules[0] not in STOCK.block.ruler.getRules("")


@pytest.mark.parametrize("path", sorted((REPO / "glossary").rglob("*.md")), ids=lambda p: p.name)
def test_real_glossary(path: Path) -> None:
    _same(path.read_text(encoding="utf-8"))


EDGES = [
    "Title\n===\n\nSub\n---\n\npara\n  ===\n",
    "para\n- item\n+ other\n* third\n1. one\n2) two\n10. ten\n",
    "para\n> quote\nlazy\n> > nested\n\n    code\n\tcode tab\n",
    "- a\n  - b\n    - c\n      - d\n        - e\n          text\n",
    "| a | b |\n|---|:-:|\n| [[x\\|y]] | c |\ntext\n\na | b\n-- | --\n1 | 2\n",
    "| a |\n| - |\n\n|a|\n-|\n\n- | x\n---|\n",
    "!!! note \"Title\"\n    body [[x]]\n\n??? tip\n    folded\n\n???+ warning\n    open\n",
    '=== "One"\n\n    tab one\n\n=== "Two"\n    tab two\n\n===\nnot a tab\n',
    "Text[^1] and ^[inline [[x]] note].\n\n[^1]: The note\n    continued.\n\n[ref]: https://example.org\n[ref]\n",
    "```cuda verify name=\"a\"\nint x;\n```\n~~~\ntilde\n~~~\n```\nunclosed\n",
    "<div>\n*html*\n</div>\n\n<!-- c -->\n<pre>\nx\n</pre>\n# H1\n## H2 ##\n#nohash\n",
    "***\n---\n___\n* * *\n- - -\npara\n***\n",
    "  > indented quote\n   - indented list\n    not code after para\n\n     code\n",
    "para\n    lazy code-looking\n# heading ends para\n<div>\nhtml ends para\n",
    "> - list in quote\n>   continued\n> ```\n> fence in quote\n> ```\n> | t | u |\n> |---|---|\n",
    "- item\n\n      indented code in item\n- [[x]]\n  ===\n",
    "\t- tab list\n\t\tcontinued\n \t> mixed\n",
    "",
    "\n\n\n",
    "   \n  \t\n",
    "x\r\ny\r\n===\r\n",
    "a\u0000b\n---\n",
]


@pytest.mark.parametrize("text", EDGES)
def test_edges(text: str) -> None:
    _same(text)


LINES = st.sampled_from(
    [
        "", "text", "more text [[x]]", "  indented", "    code", "\tcode", "===", "---", "--", "***", "* * *",
        "- item", "  - sub", "+ plus", "1. one", "2) two", "> quote", "> > deep", ">", "# h", "###### h6", "####### no",
        "```", "```cuda verify", "~~~", "| a | b |", "|---|---|", "|:-:|", "-|-", "a | b", "<div>", "</div>",
        "<!-- x -->", "[ref]: /url", "[^n]: note", '!!! note "t"', "??? tip", '=== "Tab"', "  ===", "_ _ _", "\\[[x",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINES, max_size=14), st.lists(st.sampled_from(["", " ", "  ", "   ", "    ", "> ", "- "]), max_size=14))
def test_random_mixtures(lines: list[str], prefixes: list[str]) -> None:
    text = "\n".join(prefix + line for prefix, line in zip(prefixes + [""] * len(lines), lines, strict=False))
    _same(text)
    _same(text + "\n")


def test_other_releases_keep_the_stock_chains(monkeypatch) -> None:
    """Under a release nobody read the rules of, the parser is markdown-it-py's own."""
    import markdown_it

    from glossary_tool.load import dispatch

    monkeypatch.setattr(markdown_it, "__version__", "9.9.0")
    md = make_parser()
    assert md.block.ruler.getRules.__func__ is type(md.block.ruler).getRules  # not swapped
    assert dispatch._read_for_installed() is False


@settings(max_examples=600, deadline=None)
@given(st.text(st.sampled_from(["a", "-", "=", " ", "\t", "\n", "\r", "é"]), max_size=20))
def test_underline_search_is_the_one_pattern(src: str) -> None:
    """dispatch.could_underline (two searches, each opening with a literal) finds a line where
    the one character-class pattern does."""
    from glossary_tool.load import dispatch

    assert dispatch.could_underline(src) == (dispatch._UNDERLINE.search(src) is not None)


def test_a_rule_changed_after_dispatch_rebuilds_the_chains() -> None:
    """get_rules answers from the chains it built while the ruler keeps the compiled cache
    they came from; a rule disabled or enabled later (the ruler drops its cache) is seen."""
    text = "| a | b |\n|---|---|\n| c | d |\n\n---\n"
    fast, stock = make_parser(), make_parser(shortcuts=False)
    assert _tokens(fast, text) == _tokens(stock, text)
    assert any(t["type"] == "table_open" for t in _tokens(fast, text))
    fast.disable("table")
    stock.disable("table")
    assert not any(t["type"] == "table_open" for t in _tokens(fast, text))
    assert _tokens(fast, text) == _tokens(stock, text)
    fast.enable("table")
    assert any(t["type"] == "table_open" for t in _tokens(fast, text))
