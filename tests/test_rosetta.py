"""The Rosetta page: CUDA terms against other vendors' names, each cell linking back."""

from __future__ import annotations

import json

from bs4 import BeautifulSoup

from glossary_tool.emit.pages import rosetta_rows
from glossary_tool.link.equivalents import equivalent_target
from glossary_tool.model import VENDORS


def test_rosetta_table_links_every_cell_to_its_term(real_site, real_project):
    """A cell links the vendor's own page where the glossary has one (the AMD section), else the CUDA term."""
    glossary = real_project.glossary
    soup = BeautifulSoup((real_site / "rosetta" / "index.html").read_text(encoding="utf-8"), "html.parser")
    rows = soup.find("article").find_all("tr")
    headers = [th.get_text(strip=True) for th in rows[0].find_all("th")]
    assert headers == ["CUDA term", *VENDORS.values()]
    expected = {term.display_title: (term, names) for term, names in rosetta_rows(glossary)}
    seen = set()
    linked_pages = 0
    for row in rows:
        cells = row.find_all("td")
        if not cells:
            continue
        title = cells[0].get_text(strip=True)
        term, names = expected[title]
        seen.add(title)
        href = cells[0].find("a")["href"]
        assert href == f"../{term.section}/{term.slug}/"
        for cell, key in zip(cells[1:], VENDORS, strict=True):
            link = cell.find("a")
            page = equivalent_target(glossary, term, key)
            if key in names:
                want = f"../{page[0].section}/{page[0].slug}/" if page else href
                assert link is not None and link["href"] == want and link.get_text() == names[key]
                linked_pages += page is not None
            else:
                assert link is None
    assert seen == set(expected) and len(seen) >= 100
    assert linked_pages >= 60  # the AMD column links the AMD section's pages


def test_search_index_finds_terms_by_other_vendor_names(real_site):
    """Material's search indexes the Equivalents table, so 'wavefront' finds warp and 'LDS' shared memory."""
    docs = json.loads((real_site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]

    def pages_with(word: str) -> set[str]:
        return {d["location"].split("#")[0] for d in docs if word.lower() in (d["title"] + " " + d["text"]).lower()}

    assert "device-software/warp/" in pages_with("wavefront")
    assert "device-software/shared-memory/" in pages_with("LDS")
    assert "device-software/shared-memory/" in pages_with("threadgroup memory")


def test_rosetta_in_llms_txt_and_epub(real_site):
    text = (real_site / "llms.txt").read_text(encoding="utf-8")
    assert "[Rosetta](https://gpu-glossary.github.io/gpu-glossary/rosetta.md)" in text
    assert (real_site / "rosetta.md").is_file()


def test_search_ranks_vendor_names_on_their_own_pages(real_site, real_project):
    """Material's search ranks title and tag matches above text, so an AMD name must be the
    title or a tag of its AMD page and of no CUDA page (which only mentions it in text), and
    the CUDA name the title or a tag of the CUDA page only: 'LDS' finds the LDS page first,
    'shared memory' the CUDA one."""
    glossary = real_project.glossary
    docs = json.loads((real_site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    strong: dict[str, set[str]] = {}
    for doc in docs:
        if "#" in doc["location"]:
            continue
        for name in [doc["title"], *doc.get("tags", [])]:
            strong.setdefault(name.lower(), set()).add(doc["location"])
    pairs = 0
    for term in glossary.ordered_terms():
        link = glossary.equivalent_links.get(term.slug, {}).get("nvidia")
        if term.section != "amd" or link is None:
            continue
        cuda = glossary.terms[link.target]
        amd_page, cuda_page = f"amd/{term.slug}/", f"{cuda.section}/{cuda.slug}/"
        for name in (term.abbreviation, *term.aliases):
            if name:
                assert amd_page in strong[name.lower()] and cuda_page not in strong[name.lower()], name
        assert cuda_page in strong[cuda.display_title.lower()] and amd_page not in strong[cuda.display_title.lower()]
        pairs += 1
    assert pairs >= 30


def test_search_index_leaves_out_linked_from_lists(real_site, real_project):
    """A "Linked from" list names other terms: indexed, a search for a term would find every
    page linking to it. The pages keep the list; the index has no such section, and a term
    is still found on its own page."""
    docs = json.loads((real_site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    assert not [d["location"] for d in docs if d["location"].endswith("#linked-from")]
    assert not [d["location"] for d in docs if d["title"] == "Linked from"]
    warp = {d["location"] for d in docs if d["location"].startswith("device-software/warp/")}
    assert "device-software/warp/" in warp and "device-software/warp/#sources" in warp
    backlinked = [t for t in real_project.glossary.ordered_terms() if real_project.glossary.backlinks.get(t.slug)]
    assert len(backlinked) > 100
