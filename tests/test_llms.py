"""llms.txt read by the llms-txt package's own parser; Markdown copies and llms-full.txt."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from llms_txt import parse_llms_file

from glossary_tool.pipeline import load_project
from tests.conftest import REPO

SITE_URL = "https://gpu-glossary.github.io/gpu-glossary/"


def test_llms_txt_lists_every_term_once_with_its_summary(real_site):
    parsed = parse_llms_file((real_site / "llms.txt").read_text(encoding="utf-8"))
    glossary = load_project(REPO).glossary
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


def test_markdown_copy_has_absolute_links_sources_and_outputs(real_site):
    glossary = load_project(REPO).glossary
    term = next(t for t in glossary.ordered_terms() if t.snippets and glossary.links[t.slug])
    text = (real_site / term.section / f"{term.slug}.md").read_text(encoding="utf-8")
    assert text.startswith(f"# {term.display_title}".replace("_", "\\_"))
    target = glossary.terms[glossary.links[term.slug][0].target]
    assert f"({SITE_URL}{target.section}/{target.slug}.md" in text.replace("(<", "(")
    assert "## Sources" in text
    assert "[[" not in re.sub(r"```.*?```", "", text, flags=re.S)


def test_llms_full_links_resolve_inside_the_file(real_site):
    text = (real_site / "llms-full.txt").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', text))
    glossary = load_project(REPO).glossary
    assert {f"term-{slug}" for slug in glossary.terms} <= anchors
    targets = set(re.findall(r"\]\(<?#([^)>\s]+)>?", text))
    assert targets and targets <= anchors, sorted(targets - anchors)[:5]
