"""llms.txt read by the llms-txt package's own parser; Markdown copies and llms-full.txt."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from llms_txt import parse_llms_file

from glossary_tool.emit.answers import snippet_records
from glossary_tool.emit.llms import render_llms, section_file
from glossary_tool.verify.freshness import Freshness, freshness
from tests.conftest import REPO

SITE_URL = "https://gpu-glossary.github.io/gpu-glossary/"


def test_llms_txt_lists_every_term_once_with_its_summary(real_site, real_project):
    parsed = parse_llms_file((real_site / "llms.txt").read_text(encoding="utf-8"))
    glossary = real_project.glossary
    assert parsed.title == (glossary.home.title if glossary.home else "GPU Glossary")
    assert parsed.summary
    sections = parsed.sections
    assert list(sections)[: len(glossary.sections)] == [s.title for s in glossary.sections]
    assert "Optional" in sections
    seen: dict[str, str] = {}
    for section in glossary.sections:
        for link in sections[section.title]:
            assert link["title"] not in seen, f"{link['title']} listed twice"
            seen[link["title"]] = link["desc"]
    for term in glossary.ordered_terms():
        assert seen.get(term.display_title) == term.summary, term.slug
    assert len(seen) == len(glossary.terms)


def test_every_linked_markdown_file_exists(real_site):
    parsed = parse_llms_file((real_site / "llms.txt").read_text(encoding="utf-8"))
    for links in parsed.sections.values():
        for link in links:
            url = link["url"]
            assert url.startswith(SITE_URL), url
            path = real_site / urlsplit(url).path.removeprefix(urlsplit(SITE_URL).path)
            assert path.is_file(), url


def test_markdown_copy_has_absolute_links_sources_and_outputs(real_site, real_project):
    glossary = real_project.glossary
    term = next(t for t in glossary.ordered_terms() if t.snippets and glossary.links[t.slug])
    text = (real_site / term.section / f"{term.slug}.md").read_text(encoding="utf-8")
    assert text.startswith(f"# {term.display_title}".replace("_", "\\_"))
    target = glossary.terms[glossary.links[term.slug][0].target]
    assert f"({SITE_URL}{target.section}/{target.slug}.md" in text.replace("(<", "(")
    assert "## Sources" in text
    assert "[[" not in re.sub(r"```.*?```", "", text, flags=re.S)


def test_llms_full_links_resolve_inside_the_file(real_site, real_project):
    text = (real_site / "llms-full.txt").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', text))
    glossary = real_project.glossary
    assert set(glossary.terms) <= anchors
    targets = set(re.findall(r"\]\(<?#([^)>\s]+)>?", text))
    assert targets and targets <= anchors, sorted(targets - anchors)[:5]


# --- llms-full.txt and the per-section files: sized for a model's context, nothing lost ---

FULL_LIMIT = 1_000_000
SECTION_LIMIT = 300_000


@pytest.fixture(scope="module")
def llms_files(real_project) -> dict[str, str]:
    """The real glossary's llms files rendered without MkDocs (fast; same function the build calls)."""
    loaded = real_project
    return render_llms(loaded.glossary, REPO / "snippets", REPO / "llms_txt", SITE_URL, "GPU Glossary", loaded.diagrams, reference=loaded.project.reference_gpus).files


def _plain(text: str) -> str:
    """Markdown links reduced to their text, escapes undone: what a reader of the file sees."""
    text = re.sub(r"\[((?:\\.|[^\]\\])*)\]\((?:<[^>]*>|[^)\s]*)(?: \"[^\"]*\")?\)", r"\1", text)
    return re.sub(r"\\([\\\[\]*_`])", r"\1", text).replace("&lt;", "<")


def _term_parts(text: str) -> dict[str, str]:
    """Slug -> the text from the term's anchor to the next anchor of any term or section."""
    marks = list(re.finditer(r'<a id="([^"]+)"></a>', text))
    return {m.group(1): text[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)] for i, m in enumerate(marks)}


def _body_lines(term) -> list[re.Pattern[str]]:
    """Each prose line of a term's body as written, with every [[xref]] free to show any text.

    Built from the raw file body, not from the renderer, so a renderer that drops or mangles
    text fails here. Verify snippets (fence and output) are left out: their outputs are checked
    separately and long programs are linked, not inlined. A reference that wraps onto the next
    line (the loader records where it ends) joins the two lines, as the rendered link does.
    """
    lines = term.body.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def at(line: int, col: int) -> int:
        return starts[min(max(line - term.body_offset - 1, 0), len(lines))] + col - 1

    spans = []
    for xref in term.xrefs:
        first = at(xref.line, xref.col)
        end_line = getattr(xref, "end_line", 0)
        spans.append((first, at(end_line, getattr(xref, "end_col", 0)) if end_line else first + len(xref.raw)))
    for snippet in term.snippets:
        spans.append((starts[snippet.body_start], starts[min(snippet.body_end, len(lines))] - 1))
    text = term.body
    for first, stop in sorted(spans, reverse=True):
        text = text[:first] + ("\x00" if text[first : first + 2] == "[[" else "\x01") + text[stop:]
    patterns = []
    for line in text.split("\n"):
        if not line.strip() or line.strip() == "\x01":
            continue
        pieces = [re.escape(_plain(piece)) for piece in line.replace("\x01", "").split("\x00")]
        patterns.append(re.compile(".+?".join(pieces)))
    return patterns


def test_llms_full_and_section_files_fit_a_context_window(llms_files, real_project):
    glossary = real_project.glossary
    assert len(llms_files["llms-full.txt"].encode()) <= FULL_LIMIT
    for section in glossary.sections:
        assert len(llms_files[section_file(section.slug)].encode()) <= SECTION_LIMIT, section.slug


def test_llms_full_has_plain_links_and_no_backlink_lists(llms_files):
    text = llms_files["llms-full.txt"]
    assert "Linked from" not in text
    titled = re.findall(r"\]\([^)\s]*#[a-z0-9-]+>? \"", text)
    assert not titled, titled[:3]
    assert re.search(r"\]\(#[a-z0-9-]+\)", text)


def test_every_body_line_and_verified_output_is_in_llms_full_and_its_section_file(llms_files, real_project):
    loaded = real_project
    # each term's own part of each file (between its anchor and the next): a body line must be
    # in its term, and searching 4 KB instead of 1 MB per line keeps the test to seconds
    full = _term_parts(_plain(llms_files["llms-full.txt"]))
    sections = {s.slug: _term_parts(_plain(llms_files[section_file(s.slug)])) for s in loaded.glossary.sections}
    checked_outputs = 0
    for term in loaded.glossary.ordered_terms():
        for pattern in _body_lines(term):
            assert pattern.search(full[term.slug]), (term.slug, pattern.pattern[:80])
            assert pattern.search(sections[term.section][term.slug]), (term.slug, pattern.pattern[:80])
        for snippet in term.snippets:
            for record in snippet_records(REPO / "snippets", term, snippet):  # every GPU's record
                if record.status != "passed" or freshness(snippet, record) is not Freshness.FRESH:
                    continue
                # outputs sit in code fences, which no Markdown escaping touches: compare with the raw files
                assert record.stdout in llms_files["llms-full.txt"], (term.slug, snippet.name)
                assert record.stdout in llms_files[section_file(term.section)], (term.slug, snippet.name)
                checked_outputs += 1
    assert checked_outputs > 0


def test_llms_txt_lists_each_section_file_under_optional(llms_files, real_project):
    parsed = parse_llms_file(llms_files["llms.txt"])
    optional = {link["url"] for link in parsed.sections["Optional"]}
    glossary = real_project.glossary
    for section in glossary.sections:
        assert SITE_URL + section_file(section.slug) in optional


def test_section_files_link_their_own_terms_inside_and_others_absolutely(llms_files, real_project):
    glossary = real_project.glossary
    for section in glossary.sections:
        text = llms_files[section_file(section.slug)]
        anchors = set(re.findall(r'<a id="([^"]+)"></a>', text))
        assert set(section.terms) <= anchors
        inside = set(re.findall(r"\]\(<?#([^)>\s]+)>?\)", text))
        assert inside <= anchors, sorted(inside - anchors)[:5]
        # cross-references only: not sources, not the "in full in the Markdown copy" snippet links
        prose = re.sub(r"^\*Sources:\* .*$", "", text, flags=re.M)
        prose = re.sub(r"^\*Program `.*$", "", prose, flags=re.M)
        outside = re.findall(r"\]\(<?(https?://[^)>\s]+)>?\)", prose)
        for url in outside:
            if url.startswith(SITE_URL) and url.endswith(".md"):
                other_section = url.removeprefix(SITE_URL).split("/")[0]
                assert other_section != section.slug or "#" in url, url


def test_llms_full_nests_body_headings_and_links_headings_and_written_links_inside_the_file(make_glossary):
    """Body headings sit under their term's ``###`` title (a ``##`` there read as a new
    section), and a reference to a heading ([[sm#what-it-is]]) or a link written to a page
    goes to an anchor the file has, or to the site."""
    from glossary_tool.pipeline import load_project
    from tests.conftest import term_text, trio

    files = trio({"sm": "\n## What it is\n\nA unit.\n\n### Inside it\n\nParts.\n"})
    files["device-software/warp.md"] = term_text("Warp", "See [[sm#what-it-is|its role]], [the thread](thread.md) and [A-Z](../a-z.md).\n\n## Part\n\nText [[thread]].\n")
    files["device-software/index.md"] = "---\ntitle: Device software\nsummary: What runs on the device.\n---\nThe [[warp]] and [[thread]].\n\n## Reading order\n\nStart at the warp.\n"
    loaded = load_project(make_glossary(files), check_records=False)
    text = render_llms(loaded.glossary, REPO / "snippets", REPO / "llms_txt", SITE_URL, "GPU Glossary", {}, reference=()).files["llms-full.txt"]
    levels = {line.lstrip("#").strip(): len(line) - len(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}
    assert (levels["Device software"], levels["Reading order"]) == (2, 3)
    assert (levels["Warp"], levels["Part"]) == (3, 4)
    assert (levels["Streaming Multiprocessor (SM)"], levels["What it is"], levels["Inside it"]) == (3, 4, 5)
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', text))
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    inside = [t[1:] for t in targets if t.startswith("#")]
    assert {"streaming-multiprocessor", "thread"} <= set(inside) <= anchors
    assert f"{SITE_URL.rstrip('/')}/a-z/" in targets
