"""Build sites with MkDocs and read the HTML back with a parser."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from glossary_tool.cli import main
from glossary_tool.pipeline import load_project
from tests.built_site import BuiltSite, text
from tests.conftest import TRIO_TOC, trio, with_site_config, write_glossary


def build(root: Path, out: Path, *extra: str) -> int:
    if not (root / "mkdocs.yml").exists():
        with_site_config(root)
    return main(["--root", str(root), "build", "--out", str(out), *extra])


def page(site: Path, src: str) -> BeautifulSoup:
    path = site / src.removesuffix(".md") / "index.html" if not src.endswith("index.md") else site / src.replace("index.md", "index.html")
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@pytest.fixture(scope="module")
def trio_site(tmp_path_factory, request):
    files = trio({"warp": "Has [[thread]]s and a [[streaming-multiprocessor#details|section link]].\n\n```cuda\n[[nodiscard]] int f();\n```\n", "sm": "\n## Details\n\nMore.\n"})
    files["index.md"] = "---\ntitle: Test Glossary\nsummary: A test glossary.\n---\nStart at the [[warp]].\n"
    root = write_glossary(tmp_path_factory.mktemp("trio") / "repo", files, TRIO_TOC)
    site = root / "site"
    assert build(root, site) == 0
    return root, site


def test_xrefs_become_relative_links_with_summary_tooltips(trio_site):
    root, site = trio_site
    soup = page(site, "device-software/warp.md")
    article = soup.find("article")
    links = {a.get_text(): a for a in article.find_all("a") if a.get("title")}
    assert set(links) >= {"thread", "threads", "SM", "section link"}
    glossary = load_project(root).glossary
    assert links["threads"]["href"] == "../thread/"
    assert links["threads"]["title"] == glossary.terms["thread"].summary
    assert links["SM"]["href"] == "../../device-hardware/streaming-multiprocessor/"
    assert links["section link"]["href"] == "../../device-hardware/streaming-multiprocessor/#details"
    code = article.find("code", string=lambda s: s and "nodiscard" in s) or article.find(lambda tag: tag.name == "code" and "[[nodiscard]]" in tag.get_text())
    assert code is not None, "[[nodiscard]] in a code fence is kept as written"


def test_every_internal_link_resolves(trio_site):
    site = BuiltSite(trio_site[1])
    for html in site.html_files():
        for tag in site.page(html).iter("a", "link", "script", "img"):
            href = tag.get("href") or tag.get("src")
            if not href:
                continue
            problem = site.problem(html, href)
            assert problem is None, f"{html.relative_to(site.root)} -> {href} ({problem})"


def test_backlinks_equivalents_and_sources(trio_site):
    _, site = trio_site
    soup = page(site, "device-software/thread.md")
    heading = soup.find(id="linked-from")
    assert heading is not None
    items = [a.get_text() for a in heading.find_next("ul").find_all("a")]
    assert items == ["Streaming Multiprocessor (SM)", "Warp"], "backlinks in reading order"
    sources = soup.find(id="sources").find_next("ul").find_all("a")
    assert sources[0]["href"].startswith("https://docs.nvidia.com/")


def test_az_index_lists_every_term_abbreviation_and_alias(trio_site):
    root, site = trio_site
    soup = page(site, "a-z.md")
    names = [a.get_text() for a in soup.find("article").find_all("a", title=True) if "headerlink" not in a.get("class", [])]
    for term in load_project(root).glossary.terms.values():
        assert term.title in names
    assert "SM" in names and "multiprocessor" in names


def test_home_and_section_pages(trio_site):
    _, site = trio_site
    home = page(site, "index.md")
    headings = [h.get_text(strip=True).rstrip("¶") for h in home.find("article").find_all("h2")]
    assert headings == ["Device Hardware", "Device Software"]
    section = page(site, "device-software/index.md")
    assert [a.get_text() for a in section.find("article").find_all("a", title=True) if "headerlink" not in a.get("class", [])] == ["Warp", "Thread"]


def test_site_is_offline(trio_site):
    _, site = trio_site
    for html in site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text
        soup = BeautifulSoup(text, "html.parser")
        for tag in soup.find_all(["script", "link", "img"]):
            url = tag.get("src") or tag.get("href") or ""
            assert not url.startswith(("http://", "https://", "//")) or tag.name == "link" and tag.get("rel") == ["canonical"], url


def tree_digest(path: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(path)).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def test_failed_strict_build_leaves_previous_site(trio_site, capsys):
    root, site = trio_site
    before = tree_digest(site)
    warp = root / "glossary/device-software/warp.md"
    original = warp.read_text()
    warp.write_text(original + "\nBroken [[no-such-term]].\n")
    try:
        assert build(root, site, "--strict") == 1
    finally:
        warp.write_text(original)
    err = capsys.readouterr().err
    assert "glossary/device-software/warp.md:" in err and "[xref-unknown]" in err and "Traceback" not in err
    assert tree_digest(site) == before


def test_real_glossary_builds_and_links_resolve(built_site, real_project):
    glossary = real_project.glossary
    for term in glossary.ordered_terms():
        page_path = built_site.term_page(term)
        article = built_site.page(page_path).find(".//article")
        assert text(article.find(".//h1")).rstrip("¶") == term.display_title
        titles = {a.get("title") for a in article.iter("a")}
        for link in glossary.links[term.slug]:
            target = glossary.terms[link.target]
            assert target.summary in titles, f"{term.slug}: no link to {target.slug}"
        for a in article.iter("a"):
            if a.get("href") is not None:
                problem = built_site.problem(page_path, a.get("href"))
                assert problem is None, f"{term.slug}: {a.get('href')} ({problem})"


def test_long_sections_are_listed_in_groups_in_reading_order():
    from glossary_tool.adapters.mkdocs_plugin import NAV_GROUP_LIMIT, NAV_GROUP_SIZE, _nav_groups

    short = [{f"Term {i}": f"s/t{i}.md"} for i in range(NAV_GROUP_LIMIT)]
    assert _nav_groups(short) == short, "the real glossary's sections (at most 57 terms) stay flat"
    long = [{f"Term {i:03d}": f"s/t{i}.md"} for i in range(2 * NAV_GROUP_SIZE + 7)]
    groups = _nav_groups(long)
    assert [next(iter(g)) for g in groups] == ["Term 000 \u2013 Term 049", "Term 050 \u2013 Term 099", "Term 100 \u2013 Term 106"]
    assert [entry for g in groups for entry in next(iter(g.values()))] == long, "same entries, same order: previous/next unchanged"


@pytest.mark.parametrize("fork", ["0", "1"])
def test_a_failing_side_job_fails_the_build_cleanly(trio_site, monkeypatch, capsys, caplog, fork):
    """The map, EPUB and llms.txt are made beside the pages (glossary_tool/background.py):
    if that fails, the build says so in one line, and the previous site stays."""
    import glossary_tool.emit.book as book

    root, site = trio_site
    before = hashlib.sha256((site / "index.html").read_bytes()).hexdigest()
    monkeypatch.setenv("GLOSSARY_NO_FORK", "1" if fork == "0" else "0")

    def broken(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(book, "epub_bytes", broken)
    assert build(root, site) == 1
    err = capsys.readouterr().err
    assert "previous site left unchanged" in err and "Traceback" not in err
    logged = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert "glossary: building the map, EPUB and llms.txt failed: OSError: No space left on device" in logged, "one line, no traceback"
    assert hashlib.sha256((site / "index.html").read_bytes()).hexdigest() == before


#: Markdown that the engine renders, found in a page's prose instead: a code span, a link, a
#: footnote reference, an attribute list, strong emphasis. (Our own pages showed the first
#: for two references with code in their text.)
_UNRENDERED = {
    "code span": re.compile(r"(?<![`\w])`[^`\n]+`(?![`\w])"),
    "link": re.compile(r"\]\((?:https?:|/|\.\.?/|#)"),
    "footnote": re.compile(r"\[\^[^\]\s]+\]"),
    "attribute list": re.compile(r"\{[#.:][^}\n]*\}"),
    "strong": re.compile(r"\*\*\S[^*\n]*\*\*"),
}
_VERBATIM = {"code", "pre", "kbd", "samp", "script", "style", "textarea"}


def test_no_markdown_is_left_in_the_prose_of_the_real_site(built_site):
    found = []
    for path in built_site.html_files():
        for article in built_site.page(path).iter("article"):
            for element in article.iter():
                if not isinstance(element.tag, str) or element.tag in _VERBATIM or any(a.tag in _VERBATIM for a in element.iterancestors()):
                    continue
                for piece, owner in ((element.text, element), (element.tail, element.getparent())):
                    if piece and owner is not None and owner.tag not in _VERBATIM:
                        found += [f"{path.relative_to(built_site.root)}: {kind}: {piece.strip()[:80]!r}" for kind, pattern in _UNRENDERED.items() if pattern.search(piece)]
    assert found == []
