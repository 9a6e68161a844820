"""The [[...]] syntax: every form, positions, and code/HTML left untouched."""

from __future__ import annotations

from bs4 import BeautifulSoup
from hypothesis import given, settings
from hypothesis import strategies as st

from glossary_tool.load.body import parse_body
from glossary_tool.load.xref_rule import make_parser


def xrefs(body: str, offset: int = 0):
    return parse_body("t.md", body, offset).xrefs


def test_plain_form_and_position():
    (x,) = xrefs("A [[warp]] here.\n", offset=5)
    assert (x.target, x.anchor, x.text, x.suffix) == ("warp", None, None, "")
    assert (x.line, x.col) == (6, 3)
    assert x.shown == "warp"


def test_text_suffix_and_anchor_forms():
    a, b, c = xrefs("[[warp|a group of 32 threads]], [[thread]]s and [[shared-memory#bank-conflicts|banks]].")
    assert (a.target, a.text, a.shown) == ("warp", "a group of 32 threads", "a group of 32 threads")
    assert (b.target, b.suffix, b.shown) == ("thread", "s", "threads")
    assert (c.target, c.anchor, c.text) == ("shared-memory", "bank-conflicts", "banks")
    assert (c.line, c.col) == (1, 49)


def test_escape_is_literal():
    assert xrefs(r"write \[[warp]] to get brackets") == ()
    html = make_parser().render(r"write \[[warp]] literally")
    paragraph = BeautifulSoup(html, "html.parser").p
    assert paragraph.get_text() == "write [[warp]] literally"
    assert paragraph.find("span", class_="xref-literal").get_text() == "[["


def test_code_untouched_inline_html_linked_html_block_reported():
    body = "\n".join(
        [
            "Inline `[[nodiscard]]` code.",
            "",
            "```cuda verify name=\"x\"",
            "[[nodiscard]] __device__ int f();",
            "[[likely]] if (x) {}",
            "```",
            "",
            "    [[indented]] code",
            "",
            "<div>[[in-html]]</div>",
            "",
            "Text <span>[[inline-html]]</span> and [[real]].",
        ]
    )
    parsed = parse_body("t.md", body, 0)
    # inline HTML in a paragraph is Markdown around it: the xref inside <span> is linked;
    # a raw HTML block is not Markdown, so its xref is an error that says how to fix it
    assert [(x.target, x.line) for x in parsed.xrefs] == [("inline-html", 12), ("real", 12)]
    assert [(d.code, d.line, d.col) for d in parsed.diagnostics] == [("xref-in-html", 10, 6)]


def test_positions_in_lists_quotes_and_tables():
    body = "- item with [[warp]]\n\n> quoted [[thread]]\n\n| a | b |\n|---|---|\n| [[cta]] | x |\n"
    w, t, c = xrefs(body, offset=10)
    assert (w.line, w.col) == (11, 13)
    assert (t.line, t.col) == (13, 10)
    assert (c.line, c.col) == (17, 3)


def test_multiline_paragraph_positions():
    body = "First line\n  second [[warp]] line\nthird [[thread|x]]y\n"
    w, t = xrefs(body)
    assert (w.line, w.col) == (2, 10)
    assert (t.line, t.col, t.suffix) == (3, 7, "y")


def test_unclosed_and_empty_brackets():
    found = parse_body("t.md", "an [[unclosed reference and [[]] empty\n", 0)
    assert found.xrefs == ()
    # the unclosed one would reach readers as brackets: an error at its column
    assert [(d.code, d.col) for d in found.diagnostics] == [("xref-unparsed", 4), ("xref-empty", 29)]


def test_squashing_a_name_gives_what_the_regex_gives_for_every_kind_of_whitespace():
    """_squash's shortcut for names with single spaces only must agree with the regex on
    every character that is whitespace to ``re`` or to ``str`` (tabs, newlines, NBSP...)."""
    import re
    import sys

    from glossary_tool.load.xref_rule import _SPACES, _squash

    spaces = [chr(c) for c in range(sys.maxunicode + 1) if re.match(r"\s", chr(c)) or chr(c).isspace()]
    assert len(spaces) > 20  # the set really was found
    for space in spaces:
        for text in (space, f"a{space}b", f" a{space}", f"a {space} b", space * 2, f"warp{space}{space}size "):
            assert _squash(text) == _SPACES.sub(" ", text).strip(), repr(text)


def test_content_tabs_are_grouped_and_a_body_without_tabs_keeps_its_tokens():
    """group_tabs wraps each run of tabs (its shortcut skips only sources without '===')."""
    from glossary_tool.load.xref_rule import make_parser

    md = make_parser()
    tokens = md.parse('Intro.\n\n=== "One"\n\n    tab one\n\n=== "Two"\n    tab two\n')
    groups = [t for t in tokens if t.type == "tabs_open"]
    assert [g.meta["titles"] for g in groups] == [["One", "Two"]]
    assert [t.type for t in tokens].count("tabs_close") == 1
    plain = md.parse("No tabs == here.\n\n- a\n- b\n")
    assert "tabs_open" not in [t.type for t in plain]


#: XREF_RE as first written: the target and anchor as alternations inside a repeat.
_ALTERNATION_XREF = (
    r"\[\[(?P<target>(?:[^\[\]|#\\]|\\(?!\|))*)(?:#(?P<anchor>(?:[^\[\]|\\]|\\(?!\|))*))?"
    r"(?:\\?\|(?P<text>[^\[\]]*))?\]\](?P<suffix>[A-Za-z]*)"
)


@settings(max_examples=600, deadline=None)  # a match at every position of each text: 3.3 s at 1,500
@given(st.lists(st.sampled_from(["[[", "]]", "[", "]", "|", "\\", "\\|", "#", "a", "s", " ", "\n", "é"]), max_size=16))
def test_unrolled_pattern_matches_as_the_alternation(pieces: list[str]) -> None:
    """xref_rule.XREF_RE, its names unrolled for speed, finds the matches (spans and groups)
    the alternation form finds, searching and matching at every position."""
    import re

    from glossary_tool.load.xref_rule import XREF_RE

    text = "".join(pieces)
    first = re.compile(_ALTERNATION_XREF)

    def seen(pattern: re.Pattern[str]) -> list:
        found = [(m.span(), m.groupdict(), m.span("target"), m.span("text")) for m in pattern.finditer(text)]
        at = [(m.span(), m.groupdict()) if (m := pattern.match(text, pos)) else None for pos in range(len(text))]
        return [found, at]

    assert seen(XREF_RE) == seen(first)
