"""Links and images written as Markdown in a body are checked against the site they will be
in (emit/written_links.py): every one `check` accepts resolves in the built site, and every
one that would not is an error at the line and column where it was written."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

import lxml.etree
import lxml.html
import pytest

from glossary_tool.cli import main
from glossary_tool.pipeline import load_project
from tests.built_site import BuiltSite
from tests.conftest import term_text, trio, with_site_config

W = "device-software/warp.md"

GOOD = """Intro [[thread]] and [[sm]].

A [term](thread.md), [the same term](thread.md), [its heading](../device-hardware/streaming-multiprocessor.md#what-it-is),
[its sources](thread.md#sources), [this page's](#part), [the section](index.md),
[the other section](../device-hardware/index.md), [home](../index.md), [A-Z](../a-z.md),
[a file](../assets/glossary.css), ![an image](../assets/pic.svg "A title"), [a reference][ref],
[the same reference][ref], [the web](https://docs.nvidia.com/cuda/), [mail](mailto:a@b.org), <https://example.org/x.md>.

## Part

[ref]: ../device-hardware/streaming-multiprocessor.md
"""

#: (what is written on the body's third line, the column of its URL, what the error says)
BAD = [
    ("[a](nope.md)", 5, "there is no page glossary/device-software/nope.md"),
    ("[a](../device-hardware/gpu.md)", 5, "there is no page glossary/device-hardware/gpu.md"),
    ("[a](#nowhere)", 5, "this page has no anchor 'nowhere'; its headings' anchors: part"),
    ("[a](thread.md#nowhere)", 5, "the page of 'Thread' has no anchor 'nowhere'"),
    ("[a](/device-software/thread/)", 5, "is site-absolute"),
    ("[a](../device-hardware/)", 5, "names a folder"),
    ("![a](pic.png)", 6, "image pic.png: there is no file glossary/device-software/pic.png"),
    ("[a](../../README.md)", 5, "points outside the glossary folder"),
    ("Text [a][r] here.\n\n[r]: missing.md", 6, "there is no page glossary/device-software/missing.md"),
]


def _glossary(make_glossary, body: str) -> Path:
    files = trio({"sm": "\n## What it is\n\nA unit.\n"})
    files[W] = term_text("Warp", body)
    files["device-software/index.md"] = "---\ntitle: Device software\nsummary: What runs on the device.\n---\nThe [[warp]] and its [[thread]]s.\n"
    root = with_site_config(make_glossary(files))
    (root / "glossary" / "assets" / "pic.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>', encoding="utf-8")
    return root


def _errors(root: Path, **options) -> list[tuple[int, int, str]]:
    loaded = load_project(root, check_records=False, **options)
    warp = loaded.glossary.terms["warp"]
    return sorted((d.line - warp.body_offset, d.col, d.message) for d in loaded.diagnostics if d.code == "link-unresolved")


def test_links_that_reach_a_page_heading_or_file_pass_and_resolve_in_the_built_site(make_glossary, tmp_path: Path):
    root = _glossary(make_glossary, GOOD)
    assert _errors(root) == []
    site = tmp_path / "site"
    assert main(["--root", str(root), "build", "--out", str(site)]) == 0
    built = BuiltSite(site)
    page = Path("device-software/warp/index.html")
    article = built.page(page).find(".//article")
    written = [el.get("href") or el.get("src") for el in article.iter("a", "img") if "headerlink" not in (el.get("class") or "")]
    written = [url for url in written if url and not url.startswith(("https:", "mailto:"))]
    assert len(written) >= 12
    assert {url: built.problem(page, url) for url in written} == dict.fromkeys(written)
    # llms-full.txt: each link goes to an anchor of the file or a page or file of the site
    full = (site / "llms-full.txt").read_text(encoding="utf-8")
    part = full[full.index('<a id="warp"></a>') : full.index('<a id="thread"></a>')]
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', full))
    urls = re.findall(r"\]\(([^)\s]+)", part) + re.findall(r"^\[[^\]]+\]: (\S+)", part, re.M)
    assert len(urls) >= 12
    assert {u: (u[1:] in anchors) if u.startswith("#") else built.problem(Path("llms-full.txt"), u) is None for u in urls if not u.startswith(("mailto:", "https://docs", "https://example"))} == dict.fromkeys(
        [u for u in urls if not u.startswith(("mailto:", "https://docs", "https://example"))], True
    )
    # the EPUB: every link of the chapter resolves inside the book, or leaves it for the web
    with zipfile.ZipFile(site / "downloads" / "gpu-glossary.epub") as epub:
        chapters = {name.removeprefix("OEBPS/"): lxml.etree.fromstring(epub.read(name)) for name in epub.namelist() if name.endswith(".xhtml")}
    ids = {name: {el.get("id") for el in tree.iter() if el.get("id")} for name, tree in chapters.items()}
    links = [el.get("href") for el in chapters["device-software.xhtml"].iter("{http://www.w3.org/1999/xhtml}a") if el.get("href")]
    local = [h for h in links if ":" not in h.split("#")[0]]
    assert len(local) >= 9
    assert [h for h in local if h.split("#")[0] not in ids or ("#" in h and h.split("#")[1] not in ids[h.split("#")[0]])] == []
    assert not [el for el in chapters["device-software.xhtml"].iter("{http://www.w3.org/1999/xhtml}img")], "the book links images"


@pytest.mark.parametrize(("written", "col", "says"), BAD, ids=[case[0] for case in BAD])
def test_a_link_that_would_not_resolve_is_an_error_where_it_was_written(make_glossary, written, col, says):
    root = _glossary(make_glossary, "Intro [[thread]] and [[sm]].\n\n" + written + "\n\n## Part\n\nText.\n")
    (found,) = _errors(root)
    line = 5 if "[r]:" in written else 3
    assert found[:2] == (line, col) and says in found[2], found


def test_cold_warm_and_parallel_checks_report_the_same(make_glossary):
    body = GOOD + "\n" + "\n\n".join(case[0] for case in BAD if "[r]" not in case[0]) + "\n"
    root = _glossary(make_glossary, body)
    cold = _errors(root)
    assert len(cold) == len(BAD) - 1
    assert _errors(root) == cold, "warm (from .cache/)"
    assert _errors(root, cache=False, processes=2) == cold, "parsed in workers"


def test_the_page_writes_a_good_link_as_the_url_of_its_page(make_glossary, tmp_path: Path):
    """What the adapter's rewriting gives for a link `check` accepts: the target page's URL."""
    root = _glossary(make_glossary, GOOD)
    site = tmp_path / "site"
    assert main(["--root", str(root), "build", "--out", str(site)]) == 0
    tree = lxml.html.document_fromstring((site / "device-software/warp/index.html").read_bytes())
    hrefs = {a.text_content(): a.get("href") for a in tree.iter("a")}
    assert hrefs["its heading"] == "../../device-hardware/streaming-multiprocessor/#what-it-is"
    assert hrefs["a reference"] == "../../device-hardware/streaming-multiprocessor/"
    assert hrefs["the section"] == "../"


def test_section_and_home_intros_are_checked_from_their_own_folder(make_glossary):
    """A section intro is ``<section>/index.md`` and the home intro ``index.md``: their links
    are relative to those files."""
    root = _glossary(make_glossary, GOOD)
    (root / "glossary" / "device-software" / "index.md").write_text(
        "---\ntitle: Device software\nsummary: What runs on the device.\n---\nThe [[warp]] and [[thread]]: [warp](warp.md), [gone](gone.md).\n", encoding="utf-8"
    )
    (root / "glossary" / "index.md").write_text("---\ntitle: GPU Glossary\nsummary: Terms.\n---\nStart at [the warp](device-software/warp.md) or [nowhere](warp.md).\n", encoding="utf-8")
    loaded = load_project(root, check_records=False)
    found = sorted((d.path, d.line, d.col) for d in loaded.diagnostics if d.code == "link-unresolved")
    assert found == [("glossary/device-software/index.md", 5, 54), ("glossary/index.md", 5, 59)]


def test_a_page_whose_written_link_names_a_heading_is_rebuilt_when_that_terms_headings_change(make_glossary):
    """The book links such a heading only where the term has it, so the linking page's
    inputs (emit/page_inputs.py) hold the headings of the term it names."""
    from glossary_tool.emit.page_inputs import PageInputs

    root = _glossary(make_glossary, "Intro [[thread]] and [[sm]]: see [its part](thread.md#part).\n")
    thread = root / "glossary" / "device-software" / "thread.md"

    def digests() -> tuple[str, str]:
        loaded = load_project(root, check_records=False, cache=False)
        inputs = PageInputs(loaded, {}, None, None)
        return inputs.page(loaded.glossary.terms["warp"]), inputs.page(loaded.glossary.terms["streaming-multiprocessor"])

    before = digests()
    thread.write_text(thread.read_text(encoding="utf-8") + "\n## Part\n\nA part.\n", encoding="utf-8")
    after = digests()
    assert after[0] != before[0], "warp names a heading of thread"
    assert after[1] == before[1], "the SM page does not read thread's headings"


def test_the_book_resolves_written_links_with_one_table_and_leaves_its_term_links_alone(make_glossary, monkeypatch):
    """The book rewrites what bodies link with one table of link targets for all of it (one
    per term was quadratic in the terms: +1.3 s of CPU at 1,000 terms, about 25 times that
    at 5,000), and hands the rewriter only written links and images: the links it makes to
    terms (cross-references, "Linked from", equivalents) are in-book already."""
    from glossary_tool.emit import written_links
    from glossary_tool.emit.book import epub_bytes, make_book

    root = _glossary(make_glossary, GOOD)
    loaded = load_project(root, check_records=False)
    tables, seen = [], []
    made, reach = written_links.Targets.of, written_links.Targets.reach
    monkeypatch.setattr(written_links.Targets, "of", classmethod(lambda cls, *a, **k: tables.append(1) or made.__func__(cls, *a, **k)))
    monkeypatch.setattr(written_links.Targets, "reach", lambda self, url, src: seen.append(url) or reach(self, url, src))
    book = make_book(loaded, "https://example.org/gpu-glossary/")
    epub_bytes(book)
    written = set(re.findall(r"\]\(([^)\s]+)", GOOD)) | set(re.findall(r"<(https?://[^>]+)>", GOOD)) | {"../device-hardware/streaming-multiprocessor.md"}
    assert len(tables) == 1
    assert seen and set(seen) <= written, sorted(set(seen) - written)
    assert not [url for url in seen if ".xhtml" in url]
