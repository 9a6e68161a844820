"""Where the one Markdown engine writes what MkDocs authors know from Python-Markdown, it
writes the same: compared element by element with Python-Markdown itself.

Heading anchors (``toc`` and ``attr_list``, both in mkdocs.yml): the anchor `check` accepts
in ``[[term#anchor]]`` (load/body.py) and the id the page writes (emit/render.py) come from
the same tokens, and both are Python-Markdown's for the same Markdown: repeats numbered
``_1``, ``_2`` past taken ones, a heading with no ASCII letter or digit ``_1``,
``## Title {#id .class}`` applied and taken off the text.

Footnotes: the markup Material's CSS and JavaScript read (``a.footnote-ref`` inside
``sup#fnref:label``, ``li#fn:label``, back links), as Python-Markdown's ``footnotes`` writes it.
"""

from __future__ import annotations

import random

import lxml.html
import markdown
import pytest

from glossary_tool.emit.links import RelativeLinker, term_src
from glossary_tool.emit.render import PageState, RenderOptions, render_body, render_markdown
from glossary_tool.load.body import parse_body
from glossary_tool.pipeline import load_project
from tests.conftest import term_text, trio

HEADINGS = [
    "## Plain heading", "## Plain heading", "## Plain heading", "## Café déjà vu", "## `code` in heading", "## **Bold** and *em*",
    "## A [link](https://x.org) inside", "## Punct: a/b, c.d (e) — f!", "## Explicit {#custom-id}", "## Later {#plain-heading_5}",
    "## Ünïcödé only ÄÖÜ", "## 日本語の見出し", "## 中文", "## Trailing hashes ##", "Setext heading\n---", "## HTML <span>inside</span> it",
    "## Numbers 1.2.3 and 4_5", "## Dup-slug", "## Dup slug", "## plain-heading", "## Plain heading_1", "## Plain heading_5",
    "## Classy {.wide}", "## Both { #both-id .c1 .c2 }", "## Colon {: #colon-id }", "## Not a list {...}", "## Braces {like this}",
    "## Ampersand & co", "## a < b > c", "## Under_score_words", "##    Spaces   around   ", "## Esc\\*aped",
    "## x_2", "## x", "## x", "## &amp; entity", "## 1.5x faster", "## No space{#glued}", "### Deeper {#deep .c}",
]

_WORDS = ["Warp", "warp", "SM", "x", "x_1", "x_2", "`code`", "*em*", "日本", "é", "—", "1.5", "a/b", "&amp;", "<b>b</b>", "_"]
#: Not `` {#}``: Python-Markdown writes ``id=""`` for it, where the page writes the generated id.
#: Not a list glued to an inline element (```code`{#x}``): Python-Markdown gives it to that
#: element, where this dialect shows it as text and `check` warns (the last test here).
_LISTS = ["", "", "", " {#a}", " {#x_1}", " {.c}", " {#a .c}", " {: #b }", " {k=v}", " {x}", " {.c .d #e}"]


def _random_headings(seed: int, count: int = 30) -> list[str]:
    rng = random.Random(seed)
    return [f"{'#' * rng.randint(2, 4)} {' '.join(rng.choices(_WORDS, k=rng.randint(1, 3)))}{rng.choice(_LISTS)}" for _ in range(count)]


def _document(headings: list[str]) -> str:
    return "\n\nA paragraph.\n\n".join(headings) + "\n"


def _theirs(text: str) -> list[tuple[str | None, str | None, str]]:
    html = markdown.markdown(text, extensions=["toc", "attr_list"])
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    return [(h.get("id"), h.get("class"), h.text_content().strip()) for h in root.iter("h2", "h3", "h4")]


def _ours(text: str) -> list[tuple[str | None, str | None, str]]:
    rendered = render_markdown(text, RenderOptions(None, None, None, permalinks=False, highlight_code=False), PageState())  # type: ignore[arg-type]
    root = lxml.html.fragment_fromstring(rendered.html, create_parent="div")
    return [(h.get("id"), h.get("class"), h.text_content().strip()) for h in root.iter("h2", "h3", "h4")]


@pytest.mark.parametrize("seed", [None, 1, 2, 3, 4, 5])
def test_anchors_classes_and_text_are_python_markdowns(seed):
    headings = HEADINGS if seed is None else _random_headings(seed)
    text = _document(headings)
    theirs = _theirs(text)
    assert len(theirs) == len(headings)
    assert _ours(text) == theirs, "the page writes Python-Markdown's ids, classes and text"
    assert [h.anchor for h in parse_body("glossary/s/t.md", text, 0, is_term=False).headings] == [ident for ident, _, _ in theirs], "check knows the same anchors"


def test_an_anchor_from_an_attribute_list_is_linkable(make_glossary):
    files = trio({"sm": "\n## What it does {#role .wide}\n\nIt runs warps.\n\n## Role\n\nThe second one.\n"})
    files["device-software/thread.md"] = term_text("Thread", "One lane of a [[warp]] in its [[sm#role|SM's role]] and [[sm#role_1]].\n")
    loaded = load_project(make_glossary(files), check_records=False)
    assert [d for d in loaded.diagnostics if d.code.startswith("xref")] == []
    sm = loaded.glossary.terms["streaming-multiprocessor"]
    assert [h.anchor for h in sm.headings] == ["role", "role_1"], "the generated id steps past the explicit one"
    html = render_body(sm, RenderOptions(loaded.glossary, RelativeLinker(term_src(sm)), None, permalinks=False, highlight_code=False)).html
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    assert [(h.get("id"), h.get("class"), h.text_content()) for h in root.iter("h2")] == [("role", "wide", "What it does"), ("role_1", None, "Role")]


def test_attributes_other_than_id_and_class_are_reported_not_written(make_glossary):
    files = trio({"sm": "\n## Sized {#sized width=80}\n\nText.\n\n## Handler {onclick=alert(1)}\n\nText.\n"})
    loaded = load_project(make_glossary(files), check_records=False)
    sm = loaded.glossary.terms["streaming-multiprocessor"]
    found = {(d.code, d.line - sm.body_offset, d.severity.value) for d in loaded.diagnostics if d.path == sm.path}
    assert ("heading-attr", 3, "warning") in found
    assert ("unsafe-html", 7, "error") in found and ("heading-attr", 7, "warning") not in found
    html = render_body(sm, RenderOptions(loaded.glossary, RelativeLinker(term_src(sm)), None, permalinks=False, highlight_code=False)).html
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    assert [dict(h.attrib) for h in root.iter("h2")] == [{"id": "sized"}, {"id": "handler"}]


def test_attribute_lists_outside_headings_are_reported_as_shown_text(make_glossary):
    """Python-Markdown would apply these; here they stay text, and `check` says so where they are."""
    body = "A [button](https://x.org){ .md-button } and `code`{#c} here.\n\nA paragraph\n{: .note }\n\nPlain {braces} and *em* {not glued} stay quiet.\n"
    files = trio({"sm": "\n" + body})
    loaded = load_project(make_glossary(files), check_records=False)
    sm = loaded.glossary.terms["streaming-multiprocessor"]
    found = [(d.line - sm.body_offset, d.col) for d in loaded.diagnostics if d.code == "attr-list-ignored"]
    assert found == [(3, 26), (3, 51), (6, 1)]


FOOTNOTES = [
    "Text[^1].\n\n[^1]: The note.\n",
    "One[^a] and two[^b], one again[^a].\n\n[^a]: First note.\n[^b]: Second, with *emphasis* and `code`.\n",
    "A list:\n\n- item[^x]\n\n> quoted[^y]\n\n[^x]: In a list.\n[^y]: In a quote.\n",
]


def _elements(html: str) -> list[tuple]:
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    return [(el.tag, sorted(el.attrib.items()), (el.text or "").strip(), (el.tail or "").strip()) for el in root.iter() if isinstance(el.tag, str)]


@pytest.mark.parametrize("text", FOOTNOTES)
def test_footnotes_are_python_markdowns(text):
    theirs = markdown.markdown(text, extensions=["footnotes"])
    ours = render_markdown(text, RenderOptions(None, None, None, permalinks=False, highlight_code=False), PageState()).html  # type: ignore[arg-type]
    assert _elements(ours) == _elements(theirs)


def test_abbreviation_definitions_are_reported_as_shown_text(make_glossary):
    """Python-Markdown's ``abbr`` (in mkdocs.yml) would apply ``*[SM]: ...``; here it stays
    text, and `check` says so and what to write instead."""
    files = trio({"sm": "\nThe SM runs warps.\n\n*[SM]: Streaming Multiprocessor\n\nNot one: *[x] here.\n"})
    loaded = load_project(make_glossary(files), check_records=False)
    sm = loaded.glossary.terms["streaming-multiprocessor"]
    found = [(d.line - sm.body_offset, d.col, d.message) for d in loaded.diagnostics if d.code == "abbr-ignored"]
    assert [(line, col) for line, col, _ in found] == [(5, 1)] and "[[SM]]" in found[0][2]


@pytest.mark.parametrize(
    ("block", "warned"),
    [
        ('<div markdown="1">\n**bold** and `code`\n</div>', True),
        ("<details markdown>\n<summary>More</summary>\n**bold** text\n</details>", True),
        ('<div markdown="1">\n\n**bold** and `code`\n\n</div>', False),  # blank lines: Markdown inside, as wanted
        ('<div class="note">\nPlain text.\n</div>', False),
    ],
)
def test_the_markdown_attribute_of_an_html_block_is_reported_when_it_would_be_needed(make_glossary, block, warned):
    """Python-Markdown's ``md_in_html`` (in mkdocs.yml) reads Markdown in ``<div markdown>``;
    CommonMark's HTML blocks do not, so `check` says how to get it."""
    files = trio({"sm": "\n" + block + "\n"})
    loaded = load_project(make_glossary(files), check_records=False)
    sm = loaded.glossary.terms["streaming-multiprocessor"]
    found = [d.line - sm.body_offset for d in loaded.diagnostics if d.code == "markdown-in-html"]
    assert found == ([3] if warned else [])
