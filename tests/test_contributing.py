"""What a contributor relies on: the "Edit this page" link, the licenses, and docs that match the tool."""

from __future__ import annotations

import re

import pytest
import yaml
from bs4 import BeautifulSoup

from glossary_tool.load.body import LANGUAGES, SNIPPET_OPTIONS
from glossary_tool.load.frontmatter import TERM_FIELDS
from glossary_tool.model import SECTIONS
from tests.built_site import has_class
from tests.conftest import REPO


class _AnyTagLoader(yaml.SafeLoader):
    """mkdocs.yml may use tags such as !!python/name: or !ENV; only plain keys are read here."""


_AnyTagLoader.add_multi_constructor("", lambda loader, suffix, node: None)


def mkdocs_config() -> dict:
    return yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_AnyTagLoader)


def soup(site, rel: str) -> BeautifulSoup:
    return BeautifulSoup((site / rel).read_text(encoding="utf-8"), "html.parser")


def edit_links(page: BeautifulSoup) -> list[str]:
    return [a["href"] for a in page.select("a.md-content__button") if "edit" in (a.get("title") or "").lower()]


def test_edit_link_opens_the_terms_file_on_the_repository(built_site, real_project):
    config = mkdocs_config()
    base = config["repo_url"].rstrip("/") + "/"
    assert config["edit_uri"] == "edit/main/glossary/"
    for term in real_project.glossary.ordered_terms():
        buttons = built_site.page(built_site.term_page(term)).xpath(f"//a[{has_class('md-content__button')}]")
        links = [a.get("href") for a in buttons if "edit" in (a.get("title") or "").lower()]
        assert links == [f"{base}edit/main/glossary/{term.section}/{term.slug}.md"], term.slug


def test_generated_pages_have_no_edit_link(real_site):
    for rel in ("a-z/index.html", "whats-new/index.html"):
        if (real_site / rel).exists():
            assert edit_links(soup(real_site, rel)) == [], rel


def test_footer_names_both_licenses(real_site):
    footer = soup(real_site, "device-software/warp/index.html").select_one(".md-copyright")
    text = " ".join(footer.get_text().split())
    assert "MIT" in text and "CC BY 4.0" in text


def test_license_files():
    mit = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert mit.startswith("MIT License") and "Permission is hereby granted, free of charge" in mit and 'THE SOFTWARE IS PROVIDED "AS IS"' in mit
    content = (REPO / "LICENSE-CONTENT").read_text(encoding="utf-8")
    assert "Creative Commons Attribution 4.0 International" in content
    assert "https://creativecommons.org/licenses/by/4.0/legalcode" in content
    for folder in ("glossary/", "snippets/", "diagrams/"):
        assert folder in content


@pytest.fixture(scope="module")
def contributing() -> str:
    return (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_contributing_documents_every_front_matter_field(contributing):
    for field in TERM_FIELDS:
        assert re.search(rf"^\s*{field}:", contributing, re.M), field


def test_contributing_documents_every_snippet_option_and_language(contributing):
    for option in SNIPPET_OPTIONS:
        assert f"`{option}`" in contributing, option
    for language in LANGUAGES:
        assert f"`{language}`" in contributing, language


def test_contributing_documents_sections_and_cross_reference_forms(contributing):
    for section in SECTIONS:
        assert f"`{section}`" in contributing, section
    for form in ("[[slug]]", "[[slug|text]]", "[[slug]]s", "[[slug#anchor|text]]", "\\[["):
        assert form in contributing, form


def test_contributing_and_security_point_at_each_other():
    contributing = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    security = (REPO / "SECURITY.md").read_text(encoding="utf-8")
    assert "SECURITY.md" in contributing and "verify-gpu" in contributing
    assert "CONTRIBUTING.md" in security and "verify-gpu" in security


def test_the_glossary_new_examples_create_terms_that_do_not_exist_yet(contributing, real_project):
    """A newcomer copies the example: it must not be refused as a clash."""
    from glossary_tool.text import kebab, normalize_name

    glossary = real_project.glossary
    names = {normalize_name(n) for t in glossary.terms.values() for n in t.names}
    examples = re.findall(r'glossary new "([^"]+)" --section (\S+)', contributing)
    assert examples
    for title, section in examples:
        assert section in SECTIONS
        assert normalize_name(title) not in names and kebab(title) not in glossary.terms, f"{title!r} already exists: pick another example"
