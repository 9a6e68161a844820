"""Property tests (Hypothesis) of loading and rendering term files.

1. Whatever a term file holds, loading, linking and rendering it yields diagnostics, never
   an exception, and every diagnostic is one well-formed line.
2. Text inside code spans and code blocks comes out of the renderer exactly as written.
3. Rendering then re-parsing the Markdown keeps every link: one link per resolved
   cross-reference, in order, with the text the reader should see and the right target.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from glossary_tool.diagnostics import Diagnostic, Severity
from glossary_tool.emit.links import RelativeLinker, term_src
from glossary_tool.emit.markdown import BodyRewriter, display_text, term_markdown
from glossary_tool.pipeline import load_project
from tests.conftest import TRIO_TOC, term_text, trio, write_glossary

W = "device-software/warp.md"
#: GLOSSARY_HYPOTHESIS_EXAMPLES=5000 for a long hunt; CI runs the default.
SETTINGS = settings(max_examples=int(os.environ.get("GLOSSARY_HYPOTHESIS_EXAMPLES", "150")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
CODE_RE = re.compile(r"^[a-z][a-z0-9-]*$")

# Pieces that matter to the parsers, mixed with arbitrary text.
FRAGMENTS = [
    "---", "\n", "\r\n", "\r", "\t", "\ufeff", "\x00", " ", "title: Warp", "summary: A sentence.", "sources:", "  - {title: T, url: 'https://x.org'}",
    "aliases: [", "]", "[[", "]]", "[[thread]]", "[[warp]]", "[[thread#x|y]]", "|", "#", "## H", "```", "```cuda verify name=\"x\"", "~~~", "`", "> ", "- ", "1. ",
    "    ", "<script>", "</div>", "<a href='x'>", "&amp;", "&#x61;", "\\", "*", "_", "!", "[x](http://e.org)", "<http://e.org>", "{", "}", ":", "&", "'", '"', "é", "\u202e",
]


def _load(files: dict[str, str | bytes]):
    with tempfile.TemporaryDirectory() as tmp:
        return load_project(write_glossary(Path(tmp) / "repo", files, TRIO_TOC), check_records=False)


def _check_diagnostics(diagnostics: tuple[Diagnostic, ...]) -> None:
    for d in diagnostics:
        assert isinstance(d, Diagnostic)
        assert d.severity in (Severity.ERROR, Severity.WARNING)
        assert CODE_RE.match(d.code), d
        assert d.line >= 0 and d.col >= 0, d
        assert d.path.startswith("glossary/"), d
        text = d.format()
        assert "\n" not in text and "\r" not in text, f"a diagnostic must be one line: {text!r}"


fragment_text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=40).map("".join)
file_content = st.one_of(st.text(max_size=400), fragment_text, st.binary(max_size=200), fragment_text.map(lambda body: term_text("Warp", body)))


@SETTINGS
@given(content=file_content)
@example(content="---\ntitle: Warp\nsummary: [\n---\n")
@example(content=term_text("Warp", "```\n[[x]]\n"))
@example(content=b"---\ntitle: caf\xe9\n---\n")
@example(content="---\ntitle: A\nsummary: A\n---\n\r[[\n0")  # a leftover whose excerpt spans two lines
def test_any_term_file_yields_diagnostics_not_exceptions(content):
    files = trio()
    files[W] = content
    loaded = _load(files)
    _check_diagnostics(loaded.diagnostics)
    for term in loaded.glossary.terms.values():  # whatever loaded must also render
        term_markdown(term, loaded.glossary, RelativeLinker(term_src(term)), None)


@SETTINGS
@given(front=fragment_text, body=fragment_text)
def test_any_front_matter_and_body_yield_diagnostics_not_exceptions(front, body):
    files = trio()
    files[W] = f"---\n{front}\n---\n{body}"
    loaded = _load(files)
    _check_diagnostics(loaded.diagnostics)


# --- code is never changed ------------------------------------------------------------------

_PARSER = MarkdownIt("commonmark")


def _code(markdown: str) -> list[tuple[str, str]]:
    """Every code block and code span of a Markdown text, in order."""
    found: list[tuple[str, str]] = []
    for token in _PARSER.parse(markdown):
        if token.type in ("fence", "code_block"):
            found.append((token.type, token.content))
        for child in token.children or []:
            if child.type == "code_inline":
                found.append(("code_inline", child.content))
    return found


code_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="`\r\x00"), max_size=60)
code_with_xrefs = st.lists(st.one_of(code_text, st.sampled_from(["[[warp]]", "[[thread]]", "[[nodiscard]]", "[[x|y]]", "<b>", "*", "_", "\\", "&amp;"])), max_size=8).map("".join)


@SETTINGS
@given(span=code_with_xrefs.filter(lambda s: s.strip() and "\n" not in s), block=code_with_xrefs, indented=code_with_xrefs.filter(lambda s: "\n" not in s))
def test_text_inside_code_is_never_changed(span, block, indented):
    fence = "~~~~"
    body = (
        f"A [[thread]] on an [[streaming-multiprocessor|SM]] and `{span}` here.\n\n"
        f"{fence}cuda\n{block}\n{fence}\n\n"
        f"    {indented.lstrip() or 'x'}\n\n"
        "Then [[thread]]s.\n"
    )
    files = trio()
    files[W] = term_text("Warp", body)
    loaded = _load(files)
    term = loaded.glossary.terms["warp"]
    rendered = BodyRewriter(loaded.glossary, RelativeLinker(W)).body(term)
    assert _code(rendered) == _code(term.body)
    assert len(_code(term.body)) == 3


# --- links survive rendering ------------------------------------------------------------------

link_text = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="[]|\n&"), min_size=1, max_size=20).filter(lambda s: s.strip())
NAMES = ["thread", "streaming-multiprocessor", "SM", "sm", "multiprocessor", "Thread"]


@st.composite
def xref_bodies(draw):
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        name = draw(st.sampled_from(NAMES))
        text = draw(st.one_of(st.none(), link_text))
        suffix = draw(st.sampled_from(["", "", "s", "es"]))
        before = draw(st.sampled_from([" ", " ", "(", "!", "\\!", "*", "_", "\\", "a", "&", "<"]))
        raw = f"[[{name}|{text}]]{suffix}" if text is not None else f"[[{name}]]{suffix}"
        parts.append(f"{before}{raw} ")
    plain = draw(st.integers(0, 2))
    for i in range(plain):
        parts.append(f" [plain {i}](https://example.org/{i}) ")
    return "Text" + "".join(parts) + ".\n", plain


def _links(markdown: str) -> list[tuple[str, str]]:
    """(text, href) of every link, after the CommonMark parser has read the Markdown."""
    out = []
    for token in _PARSER.parse(markdown):
        children = token.children or []
        for i, child in enumerate(children):
            if child.type == "link_open":
                text = []
                for inner in children[i + 1 :]:
                    if inner.type == "link_close":
                        break
                    text.append(inner.content)
                out.append(("".join(text), child.attrs["href"]))
            if child.type == "image":
                out.append(("<image>", child.attrs.get("src", "")))
    return out


@SETTINGS
@given(case=xref_bodies())
@example(case=("Wow![[thread]] now.\n", 0))
@example(case=("Not an image: \\![[thread]] and \\\\![[thread]].\n", 0))
@example(case=("Text &[[thread|amp;]] x [[SM|*b* _i_ `c` <x> \\]]s.\n", 1))
def test_rendering_then_reparsing_keeps_every_link(case):
    body, plain = case
    if plain and "https://example.org/" not in body:
        body += " [plain 0](https://example.org/0)\n"
    files = trio()
    files[W] = term_text("Warp", "A [[thread]] on an [[streaming-multiprocessor|SM]].\n\n" + body)
    loaded = _load(files)
    glossary = loaded.glossary
    term = glossary.terms["warp"]
    rendered = BodyRewriter(glossary, RelativeLinker(W)).body(term)
    linker = RelativeLinker(W)
    want = []
    for xref in term.xrefs:
        link = glossary.link_for("warp", xref)
        assert link is not None, xref
        target = glossary.terms[link.target]
        want.append((" ".join(display_text(xref, target).split()), linker.to_term(target, xref.anchor)))
    links = _links(rendered)
    got = [(" ".join(text.split()), href) for text, href in links if not href.startswith("https://example.org/")]
    assert got == want, rendered
    assert sum(href.startswith("https://example.org/") for _, href in links) == plain
