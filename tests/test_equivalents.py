"""Vendor equivalents that link a page: ``equivalents: {amd: "[[wavefront]] (64 lanes)"}``.

Markdown in, diagnostics or parsed HTML out: a reference in an ``equivalents`` value is
resolved like a body reference, reported at its line and column when it names no term, and
turns the name into a link in the Equivalents table and on the Rosetta page.
"""

from __future__ import annotations

from bs4 import BeautifulSoup
from markdown_it import MarkdownIt

from glossary_tool.emit.equivalents import equivalent_cell_html
from glossary_tool.emit.links import RelativeLinker, term_src
from glossary_tool.emit.markdown import display_text, term_markdown
from glossary_tool.emit.pages import ROSETTA_SRC, rosetta_markdown
from glossary_tool.link.equivalents import equivalent_target
from glossary_tool.model import VENDORS
from glossary_tool.pipeline import load_project
from tests.conftest import term_text, trio

RENDER = MarkdownIt("commonmark").enable("table")


def amd_pair(warp_equivalents: str) -> dict[str, str]:
    """The trio, a CUDA warp with ``warp_equivalents`` and an AMD wavefront page naming it back."""
    files = trio()
    files["device-software/warp.md"] = term_text("Warp", "A [[thread]] group that runs on an [[streaming-multiprocessor|SM]].\n", extra=warp_equivalents)
    files["amd/wavefront.md"] = term_text(
        "Wavefront",
        "Sixty-four lanes; a [[warp]] has 32, each a [[thread]] on an [[streaming-multiprocessor|SM]].\n",
        extra='equivalents:\n  nvidia: "[[warp]] (32 lanes)"',
        aliases=["wave64"],
    )
    return files


def diagnostics(root) -> list[tuple[str, int, int, str, str]]:
    return [(d.path, d.line, d.col, d.code, d.message) for d in load_project(root).diagnostics if d.severity.name == "ERROR"]


def line_of(root, path: str, start: str) -> int:
    """1-based line of the first line of ``path`` starting with ``start``."""
    lines = (root / path).read_text(encoding="utf-8").split("\n")
    return next(i for i, text in enumerate(lines, 1) if text.startswith(start))


def href(root, source: str, target: str) -> str:
    """Where the page of ``source`` links ``target`` (relative Markdown links, as the site gets them)."""
    glossary = load_project(root).glossary
    return RelativeLinker(term_src(glossary.terms[source])).to_term(glossary.terms[target])


def rendered(root, slug: str) -> BeautifulSoup:
    glossary = load_project(root).glossary
    term = glossary.terms[slug]
    text = term_markdown(term, glossary, RelativeLinker(term_src(term)), None)
    return BeautifulSoup(RENDER.render(text), "html.parser")


def equivalents_cells(soup: BeautifulSoup) -> dict[str, object]:
    heading = soup.find("h2", string="Equivalents")
    rows = heading.find_next("table").find("tbody").find_all("tr")
    return {row.find_all("td")[0].get_text(): row.find_all("td")[1] for row in rows}


def test_linked_equivalent_becomes_a_link_to_the_vendor_page(make_glossary):
    root = make_glossary(amd_pair('equivalents:\n  amd: "[[wavefront]] (64 lanes on CDNA)"\n  apple: SIMD-group'))
    assert diagnostics(root) == []
    cells = equivalents_cells(rendered(root, "warp"))
    link = cells[VENDORS["amd"]].find("a")
    assert link is not None and link["href"] == href(root, "warp", "wavefront")
    assert cells[VENDORS["amd"]].get_text() == "wavefront (64 lanes on CDNA)"
    assert cells[VENDORS["apple"]].find("a") is None and cells[VENDORS["apple"]].get_text() == "SIMD-group"
    # and back: the AMD page's own table links its CUDA counterpart
    back = equivalents_cells(rendered(root, "wavefront"))["NVIDIA CUDA"]
    assert back.find("a")["href"] == href(root, "wavefront", "warp") and back.get_text() == "warp (32 lanes)"


def test_reference_text_and_anchor_are_kept(make_glossary):
    files = amd_pair('equivalents:\n  amd: "a [[wavefront|wave64 wavefront]]s group"')
    root = make_glossary(files)
    cell = equivalents_cells(rendered(root, "warp"))[VENDORS["amd"]]
    assert cell.get_text() == "a wave64 wavefronts group"
    assert cell.find("a")["href"] == href(root, "warp", "wavefront")


def test_slug_reference_reads_as_the_page_title(make_glossary):
    """As in a body: a hyphenated slug shows the title, so cells never show 'streaming-multiprocessor'."""
    files = amd_pair("")
    files["amd/compute-unit.md"] = term_text(
        "Compute Unit", "Runs a [[wavefront]]; holds many a [[thread]].\n", abbreviation="CU", extra='equivalents:\n  nvidia: "[[streaming-multiprocessor]] (its counterpart)"'
    )
    root = make_glossary(files)
    cell = equivalents_cells(rendered(root, "compute-unit"))["NVIDIA CUDA"]
    assert cell.get_text() == "Streaming Multiprocessor (its counterpart)"
    assert cell.find("a")["href"] == href(root, "compute-unit", "streaming-multiprocessor")


def test_dangling_equivalent_is_reported_at_its_line_and_column(make_glossary):
    root = make_glossary(amd_pair("equivalents:\n  apple: SIMD-group\n  amd: wave, see [[wavefrnt]]"))
    path, line, col, code, message = diagnostics(root)[0]
    assert (path, code) == ("glossary/device-software/warp.md", "xref-unknown")
    written = (root / path).read_text(encoding="utf-8").split("\n")[line - 1]
    assert written[col - 1 :].startswith("[[wavefrnt]]")
    assert "'wavefront'" in message  # the suggestion


def test_unresolved_equivalent_renders_as_plain_text(make_glossary):
    root = make_glossary(amd_pair("equivalents:\n  amd: wave, see [[wavefrnt]]"))
    cell = equivalents_cells(rendered(root, "warp"))[VENDORS["amd"]]
    assert cell.find("a") is None and cell.get_text() == "wave, see wavefrnt"


def test_second_reference_in_one_value_is_an_error(make_glossary):
    root = make_glossary(amd_pair('equivalents:\n  amd: "[[wavefront]] or a [[thread]]"'))
    found = diagnostics(root)
    assert [(line, code) for _, line, _, code, _ in found] == [(line_of(root, found[0][0], "  amd:"), "equivalent-multiple")]
    written = (root / found[0][0]).read_text(encoding="utf-8").split("\n")[found[0][1] - 1]
    assert written[found[0][2] - 1 :].startswith("[[thread]]")


def test_unquoted_reference_gets_a_hint(make_glossary):
    root = make_glossary(amd_pair("equivalents:\n  amd: [[wavefront]]"))
    (path, line, _, code, message), *_ = diagnostics(root)
    assert (path, code) == ("glossary/device-software/warp.md", "field-invalid")
    assert line == line_of(root, path, "  amd: [[wavefront]]")  # the bad entry's own line
    assert "quote a value that starts with '[['" in message


def test_rosetta_cell_links_the_vendor_page_else_the_cuda_term(make_glossary):
    root = make_glossary(amd_pair('equivalents:\n  amd: "[[wavefront]] (64 lanes)"\n  vulkan: subgroup'))
    glossary = load_project(root).glossary
    soup = BeautifulSoup(RENDER.render(rosetta_markdown(glossary)), "html.parser")
    row = next(tr for tr in soup.find_all("tr") if tr.find("td") and tr.find("td").get_text() == "Warp")
    cells = dict(zip(VENDORS, row.find_all("td")[1:], strict=True))
    assert cells["amd"].find("a")["href"] == RelativeLinker(ROSETTA_SRC).to_term(glossary.terms["wavefront"])
    assert cells["amd"].get_text() == "wavefront (64 lanes)"
    assert cells["vulkan"].find("a")["href"] == RelativeLinker(ROSETTA_SRC).to_term(glossary.terms["warp"])
    # the AMD page's nvidia key is no Rosetta column: the Rosetta rows are CUDA terms
    assert all(tr.find("td").get_text() != "Wavefront" for tr in soup.find_all("tr") if tr.find("td"))


def test_equivalent_target_follows_renames(make_glossary):
    """A link names the page by any of its names; the target is the page, not the text."""
    root = make_glossary(amd_pair('equivalents:\n  amd: "[[wave64]]"'))
    glossary = load_project(root).glossary
    target = equivalent_target(glossary, glossary.terms["warp"], "amd")
    assert target is not None and (target[0].slug, target[1]) == ("wavefront", None)
    assert equivalent_target(glossary, glossary.terms["thread"], "amd") is None


def test_cell_as_html_fragment_for_html_renderers(make_glossary):
    """The HTML renderer's hook: one fragment per cell, a link where the value names a page."""
    root = make_glossary(amd_pair('equivalents:\n  amd: "[[wavefront]] <64 lanes>"\n  apple: SIMD & group'))
    glossary = load_project(root).glossary
    warp = glossary.terms["warp"]
    values = dict(warp.equivalents)

    def href(target, anchor):
        return f"/{target.section}/{target.slug}/" + (f"#{anchor}" if anchor else "")

    amd = BeautifulSoup(equivalent_cell_html(glossary, warp, "amd", values["amd"], display_text, href), "html.parser")
    (a,) = amd.find_all("a")
    assert (a["href"], a["title"], a.get_text()) == ("/amd/wavefront/", glossary.terms["wavefront"].summary, "wavefront <64 lanes>")
    apple = BeautifulSoup(equivalent_cell_html(glossary, warp, "apple", values["apple"], display_text, href), "html.parser")
    assert apple.find("a") is None and apple.get_text() == "SIMD & group"
