"""The [[...]] syntax: every form, positions, and code/HTML left untouched."""

from __future__ import annotations

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
    assert "[[warp]]" in html


def test_code_spans_fences_indented_and_html_untouched():
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
    found = xrefs(body)
    assert [x.target for x in found] == ["real"]
    assert found[0].line == 12


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
    assert [d.code for d in found.diagnostics] == ["xref-empty"]
