"""The [[...]] contract in every Markdown context (issue: cross-references hold everywhere).

Markdown in, rendered HTML out (parsed with BeautifulSoup): each reference becomes exactly one
link to the right page with the right text, in tables, wrapped lines, lists, quotes,
admonitions, content tabs, footnotes and paragraphs with inline HTML; what is not Markdown
(raw HTML blocks) is an error that says how to fix it; and what the renderer produced is
checked for raw brackets, so a context nobody thought of cannot pass silently.
"""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from glossary_tool.emit.leftovers import Leftover, html_leftovers, leftover_diagnostics, locate, markdown_leftovers
from glossary_tool.emit.links import RelativeLinker, term_src
from glossary_tool.emit.markdown import BodyRewriter
from glossary_tool.emit.render import RenderOptions, render_body
from glossary_tool.pipeline import load_project
from tests.conftest import term_text, trio

W = "device-software/warp.md"


def _load(make_glossary, warp_body: str):
    files = trio({"sm": "\n## What it is\n\nA unit.\n"})
    files[W] = term_text("Warp", warp_body)
    root = make_glossary(files)
    return load_project(root, check_records=False)


def _rendered(make_glossary, warp_body: str):
    loaded = _load(make_glossary, warp_body)
    glossary = loaded.glossary
    warp = glossary.terms["warp"]
    html = render_body(warp, RenderOptions(glossary, RelativeLinker(term_src(warp)), None)).html
    return loaded, BeautifulSoup(html, "html.parser")


def _links(soup: BeautifulSoup) -> list[tuple[str, str]]:
    """Links a reader follows in the text (not permalinks or footnote markers)."""
    return [(a.get_text(), a["href"]) for a in soup.find_all("a") if "headerlink" not in (a.get("class") or []) and not a["href"].startswith("#fn")]


def _errors(loaded) -> list[tuple[str, int, int]]:
    return [(d.code, d.line, d.col) for d in loaded.diagnostics if d.severity.value == "error"]


THREAD = "thread.md"
SM = "../device-hardware/streaming-multiprocessor.md"

CASES = {
    "table cell with text": ("| a | b |\n|---|---|\n| [[thread|one lane]] | x |\n", [("one lane", THREAD)]),
    "table cell, escaped pipe": ("| a | b |\n|---|---|\n| [[thread\\|one lane]] | x |\n", [("one lane", THREAD)]),
    "table cell, trail and anchor": ("| a |\n|---|\n| [[thread]]s and [[sm#what-it-is|its part]] |\n", [("threads", THREAD), ("its part", SM + "#what-it-is")]),
    "wrapped text in a paragraph": ("A [[thread|one\nlane]] here and [[thread]]s\nthere.\n", [("one lane", THREAD), ("threads", THREAD)]),
    "wrapped target": ("See [[streaming\nmultiprocessor|the SM]] now.\n", [("the SM", SM)]),
    "wrapped in a list item": ("- first [[thread|a\n  lane]] item\n- second\n", [("a lane", THREAD)]),
    "wrapped in a blockquote": ("> quoted [[thread|a\n> lane]] here\n", [("a lane", THREAD)]),
    "admonition": ('!!! note "Aside"\n    An admonition with [[thread|a\n    lane]].\n', [("a lane", THREAD)]),
    "content tabs": ('=== "One"\n\n    Tab [[thread]].\n\n=== "Two"\n\n    Other [[sm]].\n', [("thread", THREAD), ("SM", SM)]),
    "footnote": ("Text.[^1]\n\n[^1]: A note on [[thread|lanes\n    wrapped]].\n", [("lanes wrapped", THREAD)]),
    # an inline footnote's tokens carry no source map (it was a KeyError in the loader)
    "inline footnote": ("Text.^[An inline note on [[thread|a\nlane]] and [[sm]].]\n", [("a lane", THREAD), ("SM", SM)]),
    "small": ("<small>An aside on [[thread]]s.</small>\n", [("threads", THREAD)]),
    "sub, abbr, kbd": ("H<sub>[[thread]]</sub> <abbr title='x'>[[sm]]</abbr> <kbd>k</kbd> [[thread|t]]\n", [("thread", THREAD), ("SM", SM), ("t", THREAD)]),
    "emphasis around": ("*[[thread]]* and **[[sm|bold]]** and ~~[[thread]]~~\n", [("thread", THREAD), ("bold", SM), ("thread", THREAD)]),
    "beside a Markdown link": ("[plain](https://example.org) [[thread]] [x](https://example.org)\n", [("plain", "https://example.org"), ("thread", THREAD), ("x", "https://example.org")]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_xref_is_one_link_in_every_context(make_glossary, name):
    body, wanted = CASES[name]
    loaded, soup = _rendered(make_glossary, "Also [[thread]] and [[sm]].\n\n" + body)
    assert _errors(loaded) == []
    links = _links(soup)
    assert links[:2] == [("thread", THREAD), ("SM", SM)]
    assert links[2:] == wanted
    assert html_leftovers(str(soup)) == []


def test_wrapped_xref_keeps_its_source_span(make_glossary):
    """A wrapped reference points at where it starts, and the Markdown copy replaces all of it."""
    loaded = _load(make_glossary, "Intro line.\nA [[thread|one\nlane]] here.\n")
    warp = loaded.glossary.terms["warp"]
    (xref,) = [x for x in warp.xrefs if x.text == "one lane"]
    assert (xref.line - warp.body_offset, xref.col, xref.end_line - warp.body_offset, xref.end_col) == (2, 3, 3, 7)
    copy = BodyRewriter(loaded.glossary, RelativeLinker(term_src(warp))).body(warp)
    assert "[[" not in copy
    assert copy.splitlines()[1].startswith("A [one lane](<thread.md>")


def test_code_is_untouched(make_glossary):
    body = "Inline `[[nodiscard]]`.\n\n```cpp\n[[likely]] if (x) {}\n```\n\n    [[indented]]\n\nLiteral \\[[brackets]] too, and [[thread]].\n"
    loaded, soup = _rendered(make_glossary, body)
    assert _errors(loaded) == []
    codes = [c.get_text() for c in soup.find_all("code")]
    assert "[[nodiscard]]" in codes
    assert any("[[likely]] if (x) {}" in c for c in codes) and any("[[indented]]" in c for c in codes)
    assert "Literal [[brackets]] too" in soup.get_text()
    assert html_leftovers(str(soup)) == []  # the literal is marked as meant
    assert _links(soup) == [("thread", THREAD)]


def test_raw_html_block_is_an_error_with_a_fix(make_glossary):
    loaded = _load(make_glossary, "Intro [[thread]] and [[sm]].\n\n<div class=\"aside\">\nSee [[thread]] here.\n</div>\n")
    (found,) = [d for d in loaded.diagnostics if d.code == "xref-in-html"]
    assert (found.line, found.col) == (loaded.glossary.terms["warp"].body_offset + 4, 5)
    assert "blank line" in found.message
    # the same HTML with blank lines around its text is Markdown, and is linked
    loaded, soup = _rendered(make_glossary, "Intro [[thread]] and [[sm]].\n\n<div class=\"aside\">\n\nSee [[thread|it]] here.\n\n</div>\n")
    assert _errors(loaded) == []
    assert ("it", THREAD) in _links(soup)
    assert soup.find("div", class_="aside").find("a").get_text() == "it"


def test_inline_footnote_xref_points_at_its_source(make_glossary):
    loaded = _load(make_glossary, "Intro [[thread]] and [[sm]].\n\nText.^[a note on [[thread|lanes]]]\n")
    warp = loaded.glossary.terms["warp"]
    (xref,) = [x for x in warp.xrefs if x.text == "lanes"]
    assert (xref.line - warp.body_offset, xref.col) == (3, 18), "1-based, at its first bracket"


def test_unclosed_brackets_are_an_error_at_their_column(make_glossary):
    loaded = _load(make_glossary, "Fine [[thread]] and [[sm]].\n\nBroken [[thread here.\n")
    warp = loaded.glossary.terms["warp"]
    assert ("xref-unparsed", warp.body_offset + 3, 8) in _errors(loaded)
    assert [d.code for d in loaded.diagnostics if d.line == warp.body_offset + 3] == ["xref-unparsed"]  # reported once


def test_leftover_in_an_output_is_reported_at_its_source(make_glossary):
    """The backstop: raw brackets in produced HTML or Markdown, wherever they came from,
    become an error at the term's file and line."""
    loaded = _load(make_glossary, "Fine [[thread]] and [[sm]].\n\nA line with [[odd context]] inside.\n")
    warp = loaded.glossary.terms["warp"]
    html = "<article><p>A line with [[odd context]] inside.</p><pre><code>[[nodiscard]]</code></pre></article>"
    leftovers = html_leftovers(html)
    assert leftovers == [Leftover("[[odd context]] inside.")]
    (diag,) = leftover_diagnostics(warp, leftovers, "its page")
    assert (diag.path, diag.line, diag.col, diag.code) == (warp.path, warp.body_offset + 3, 13, "xref-raw-output")
    assert markdown_leftovers("Text with [[warp]] left in a copy, `[[code]]` and \\[[literal]].") == [Leftover("[[warp]]")]
    assert locate(warp, Leftover("not in the file")) == (warp.body_offset + 1, 1)


#: Brackets a reader sees although no ``[[`` stands in the source: (the line, the error, its
#: 1-based column in that line). Entities and escapes write a bracket; the tags that inline
#: markup becomes are not seen, so the brackets on either side of them meet.
SEEN_BRACKETS = {
    "entities in inline HTML": ("Raw: <span>&#91;&#91;warp]]</span> here.", "xref-unparsed", 12),
    "a bracket and an entity": ("Mixed: <span>[&#91;sm]]</span> here.", "xref-unparsed", 14),
    "strong emphasis between": ("Split: **[**[warp]] there.", "xref-raw-output", 10),
    "strikethrough between": ("Struck ~~[~~[warp]] there.", "xref-raw-output", 10),
    "a link's text ends in one": ("See [a\\[](https://x.org)[warp]] there.", "xref-raw-output", 7),
    "an autolink ends in one": ("Go <https://x.org/a[>[warp]] there.", "xref-raw-output", 20),
    "entities in an HTML block": ("<div>\n&lbrack;&lbrack;warp]] in a block\n</div>", "xref-raw-output", 1),
}


@pytest.mark.parametrize("case", list(SEEN_BRACKETS))
def test_brackets_a_reader_sees_are_errors_where_they_were_written(make_glossary, case):
    """In the second term of the reading order: the first page the shortcut clears is
    rendered anyway, so only a sound shortcut (leftovers.brackets_cannot_render) lets a
    later page be checked."""
    written, code, col = SEEN_BRACKETS[case]
    files = trio()
    files["device-software/thread.md"] = term_text("Thread", "One lane of a [[warp]] on its [[sm]].\n\n" + written + "\n")
    loaded = load_project(make_glossary(files), check_records=False)
    thread = loaded.glossary.terms["thread"]
    line = thread.body_offset + 3 + (1 if written.startswith("<div>") else 0)
    found = [(d.code, d.line, d.col) for d in loaded.diagnostics if d.severity.value == "error"]
    assert found == [(code, line, col)], case


def test_a_whole_book_leftover_goes_to_the_term_that_wrote_it(make_glossary):
    """A leftover of the EPUB or llms-full.txt whose text also stands in another term as a
    reference that was linked belongs to the term that wrote the brackets."""
    from glossary_tool.emit.leftovers import output_diagnostics

    files = trio()
    files["device-software/thread.md"] = term_text("Thread", "One lane of a [[warp]] here and its [[sm]].\n")
    files["device-hardware/streaming-multiprocessor.md"] = term_text("Streaming Multiprocessor", "Runs [[thread]]s.\n\nRaw: <span>&#91;&#91;warp]] here</span>.\n", abbreviation="SM")
    glossary = load_project(make_glossary(files), check_records=False).glossary
    (diag,) = output_diagnostics(glossary, html_leftovers("<div><p>Raw: [[warp]] here.</p></div>"), "the EPUB")
    sm = glossary.terms["streaming-multiprocessor"]
    assert (diag.path, diag.line, diag.col) == (sm.path, sm.body_offset + 3, 12)


def _whole_file(terms: list[str]) -> str:
    """A file laid out like llms-full.txt: a header, then each term after its anchor line."""
    return "# Glossary\n\n> All terms.\n" + "".join(f'\n<a id="t{i}"></a>\n\n{text}\n' for i, text in enumerate(terms))


@pytest.mark.parametrize(
    ("opened", "expected", "pieces"),
    [
        ("A closed paragraph.", ["[[one", "[[two", "[[thr"], 4),  # every term parsed on its own
        ("```\nan unclosed fence: the rest of the file is code", ["[[one"], 0),
        ("<pre>\n\nan open HTML block", ["[[one", "[[two"], 0),  # the rest is one block, reported once
        ("A paragraph using a [reference][r].\n\n[r]: https://example.com", ["[[one", "[[two", "[[thr"], 0),  # definitions reach the whole file
        ("A note[^1].\n\n[^1]: with [[brackets]] of its own", ["[[one", "[[two", "[[thr", "[[bra"], 0),  # footnotes go to the end
    ],
)
def test_whole_glossary_file_is_scanned_term_by_term_with_the_same_result(opened, expected, pieces):
    """llms-full.txt is scanned for leftovers one term at a time (a 5,000-term file's tokens
    were 400 MB), which must find exactly what a parse of the whole file finds: a piece
    holds only when the next term's anchor starts a block of its own."""
    from glossary_tool.emit.leftovers import _Inseparable, _parts, _token_leftovers
    from glossary_tool.load.body import parser

    text = _whole_file(["- a list with [[one]]\n\n  continued", opened, "> a quote with [[two]]", "`[[code]]` and [[three]] in a paragraph"])
    whole = _token_leftovers(parser().parse(text))
    assert [leftover.text[:5] for leftover in whole] == expected
    assert markdown_leftovers(text) == whole
    try:
        found = sum(1 for _ in _parts(text))
    except _Inseparable:
        found = 0
    assert found == pieces + (1 if pieces else 0)  # the header is a piece of its own


def test_check_renders_and_fails_on_a_missed_context(make_glossary, monkeypatch):
    """If the renderer ever missed a context, check would fail at the source line."""
    from glossary_tool.emit import render

    root = make_glossary({**trio(), W: term_text("Warp", "A [[thread]] and [[sm]] here.\n")})
    monkeypatch.setattr(render._Renderer, "xref", lambda self, tokens, idx, options, env: tokens[idx].content)
    monkeypatch.setattr(render, "_RENDERER", None)
    errors = [d for d in load_project(root, check_records=False).diagnostics if d.code == "xref-raw-output"]
    assert {(d.path, d.line) for d in errors} >= {("glossary/device-software/warp.md", 8)}


def test_yaml_error_reported_once_at_its_cause(make_glossary):
    files = trio()
    files[W] = '---\ntitle: Warp\nsummary: "unclosed quote\nsources:\n  - {title: T, url: "https://x.org"}\n---\nBody [[thread]] [[sm]].\n'
    loaded = load_project(make_glossary(files), check_records=False)
    mine = [d for d in loaded.diagnostics if d.path.endswith("warp.md") or d.path.endswith("toc.yml")]
    assert [(d.code, d.line, d.col) for d in mine] == [("yaml-syntax", 3, 10)]
    assert "note: the parser stopped at line" in mine[0].message


def test_code_in_a_references_text_is_shown_as_code(make_glossary):
    """``[[thread|`__syncthreads()` calls]]``: the page shows code, as the Markdown link
    ``[`__syncthreads()` calls](...)`` would; the preview card's plain text has no backticks."""
    from glossary_tool.emit.previews import opening, resolver

    loaded, soup = _rendered(make_glossary, "Barriers: [[thread|`__syncthreads()` calls]] and [[sm|the `a` and `f` suffixes]].\n\nMore [[thread]]s.\n")
    links = [a for a in soup.find_all("a") if a.get("href") in (THREAD, SM)]
    assert [str(a.decode_contents()) for a in links[:2]] == ["<code>__syncthreads()</code> calls", "the <code>a</code> and <code>f</code> suffixes"]
    warp = loaded.glossary.terms["warp"]
    assert opening(warp, loaded.glossary, resolver(loaded.glossary)).startswith("Barriers: __syncthreads() calls and the a and f suffixes.")


def test_a_references_text_renders_as_the_same_markdown_link_text_would():
    """For texts of words, spaces, ampersands and backtick runs, the reference's text is the
    HTML that markdown-it gives the same text as a link's (raw HTML in a reference's text
    stays text, where a link's would be a tag)."""
    import random

    from glossary_tool.emit.render import shown_html
    from glossary_tool.load.body import parser

    rng = random.Random(11)
    pieces = ["`", "``", "a", "b c", " ", "__x()", " < ", "&", "`` x ``", "`y`", "`a<b`"]  # no ">": no tag
    compared = 0
    for _ in range(500):
        text = "".join(rng.choices(pieces, k=rng.randint(1, 6))).strip()
        if not text or text.startswith("`") and text.endswith("`") and set(text) == {"`"}:
            continue
        html_out = parser().render(f"[{text}](u)\n")
        soup = BeautifulSoup(html_out, "html.parser")
        anchor = soup.find("a")
        if anchor is None:  # the text made it something else than a link
            continue
        assert shown_html(text) == anchor.decode_contents(), text
        compared += 1
    assert compared > 300


def test_a_reference_that_breaks_a_link_or_an_alt_text_is_reported(make_glossary):
    """A reference inside a Markdown link's text ends the link: the reader sees ``[the docs
    on``, the reference, and ``](url)``. One inside an image's alt text is dropped from it."""
    loaded = _load(make_glossary, "Intro [[thread]] and [[sm]].\n\nSee [the docs on [[thread|threads]]](https://x.org) and ![alt [[sm]]](https://x.org/i.png).\n\n[Plain](https://x.org) is fine.\n")
    warp = loaded.glossary.terms["warp"]
    found = [(d.line - warp.body_offset, d.col, d.severity.value) for d in loaded.diagnostics if d.code == "link-syntax-shown"]
    assert found == [(3, 36, "warning"), (3, 57, "warning")]
