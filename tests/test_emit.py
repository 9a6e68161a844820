"""How references read on the page."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from glossary_tool.emit.links import RelativeLinker, term_src
from glossary_tool.emit.markdown import display_text, term_markdown
from glossary_tool.model import Term, XRef
from glossary_tool.pipeline import load_project
from tests.conftest import trio


def term(title: str, slug: str, abbreviation: str | None = None) -> Term:
    return Term(slug, "device-software", f"glossary/device-software/{slug}.md", title, "S.", "", 0, abbreviation=abbreviation)


@pytest.mark.parametrize(
    ("written", "text", "suffix", "target", "shown"),
    [
        ("warp", None, "s", term("Warp", "warp"), "warps"),
        ("nvlink", None, "", term("NVLink", "nvlink"), "NVLink"),
        ("hbm", None, "", term("High-Bandwidth Memory", "hbm", "HBM"), "HBM"),
        ("hopper-architecture", None, "", term("Hopper Architecture (H100, H200)", "hopper-architecture"), "Hopper Architecture"),
        ("multiprocessor", None, "s", term("Streaming Multiprocessor", "streaming-multiprocessor", "SM"), "multiprocessors"),
        ("warp", "a group of 32 threads", "", term("Warp", "warp"), "a group of 32 threads"),
    ],
)
def test_display_text(written, text, suffix, target, shown):
    assert display_text(XRef(written, None, text, suffix, 1, 1, f"[[{written}]]"), target) == shown


def test_escaped_pipe_reference_renders_as_a_link_inside_its_table_cell(make_glossary):
    root = make_glossary(trio({"warp": "\n| unit | lanes |\n|---|---|\n| a [[thread\\|lane]] | 1 |\n"}))
    loaded = load_project(root)
    assert not [d for d in loaded.diagnostics if d.severity.name == "ERROR"]
    warp = loaded.glossary.terms["warp"]
    html = MarkdownIt("commonmark").enable("table").render(term_markdown(warp, loaded.glossary, RelativeLinker(term_src(warp)), None))
    (row,) = BeautifulSoup(html, "html.parser").find("tbody").find_all("tr")
    cells = row.find_all("td")
    assert [c.get_text() for c in cells] == ["a lane", "1"]
    assert cells[0].find("a")["href"] == RelativeLinker(term_src(warp)).to_term(loaded.glossary.terms["thread"])
