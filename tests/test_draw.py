"""Diagrams, the term map and neighbourhood drawings: valid SVG, working links, contrast, determinism, diagnostics."""

from __future__ import annotations

import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from glossary_tool.diagnostics import Severity
from glossary_tool.draw import load_diagrams, parse_diagram, render_diagram_svg
from glossary_tool.draw.graph import MAP_SRC, layout_map, render_map_svg, render_neighbourhood_svg, term_graph
from glossary_tool.draw.style import DARK, LIGHT, PALETTES, contrast, css, text_surfaces
from glossary_tool.pipeline import load_project
from tests.built_site import has_class
from tests.conftest import REPO, term_text, trio

NS = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}href"
SLUG_HREF = "https://example.org/terms/"


@pytest.fixture(scope="module")
def real(real_project):
    return real_project


def href(slug: str) -> str:
    return f"{SLUG_HREF}{slug}/"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg"
    return root


# --- the diagrams in the repository ------------------------------------------------------


def test_at_least_twelve_diagrams_each_shown_by_a_term(real):
    assert len(real.diagrams) >= 12
    shown = {name for term in real.glossary.terms.values() for name in term.diagrams}
    assert set(real.diagrams) <= shown, "every diagram is listed in some term's front matter"
    assert not [d for d in real.diagnostics if d.code.startswith("diagram")], "the repository's diagrams check clean"


def test_every_diagram_renders_to_well_formed_svg(real):
    for name, diagram in real.diagrams.items():
        root = parse(render_diagram_svg(diagram, real.glossary, href))
        assert root.get("aria-label") == diagram.title, name
        title, desc = root.find(f"{NS}title"), root.find(f"{NS}desc")
        assert title is not None and title.text == diagram.title
        assert desc is not None and desc.text == diagram.description and len(diagram.description) > 80
        assert root.get("aria-describedby") == desc.get("id")
        assert root.find(f"{NS}style") is not None
        assert not root.findall(f".//{NS}script"), "no JavaScript"
        assert "http" not in ET.tostring(root, encoding="unicode").replace("http://www.w3.org/2000/svg", "").replace("http://www.w3.org/1999/xlink", "").replace(SLUG_HREF, ""), "no external references"
        assert float(root.get("width")) <= 900, f"{name} is too wide to read in the content column"


def test_term_boxes_are_focusable_links_with_the_summary_as_title(real):
    for name, diagram in real.diagrams.items():
        root = parse(render_diagram_svg(diagram, real.glossary, href))
        links = root.findall(f".//{NS}a")
        slugs = {slug for slug, _ in diagram.terms()}
        assert {a.get(XLINK) for a in links} == {href(s) for s in slugs}, name
        for a in links:
            slug = a.get(XLINK).removeprefix(SLUG_HREF).rstrip("/")
            tooltip = a.find(f"{NS}title")
            term = real.glossary.terms[slug]
            if a.get("aria-hidden") == "true":  # a copy of a repeated box: clickable, out of the tab order
                assert a.get("tabindex") == "-1"
                assert tooltip is not None and tooltip.text == term.display_title
            else:
                assert a.get("tabindex") == "0" and a.get("aria-label")
                assert tooltip is not None and tooltip.text == f"{term.display_title}: {term.summary}"
        focusable = [a for a in links if a.get("tabindex") == "0"]
        assert len({a.get(XLINK) for a in focusable}) == len(slugs), f"{name}: each term reachable by keyboard"


def test_without_targets_term_boxes_keep_their_tooltips(real):
    diagram = real.diagrams["hopper-sm"]
    root = parse(render_diagram_svg(diagram, real.glossary, lambda slug: None))
    assert not root.findall(f".//{NS}a")
    titles = [t.text for t in root.iter(f"{NS}title")]
    assert any(real.glossary.terms["tensor-core"].summary in t for t in titles)


def test_same_source_gives_the_same_bytes(real):
    for name, diagram in real.diagrams.items():
        text = (REPO / diagram.path).read_text(encoding="utf-8")
        again, problems = parse_diagram(name, diagram.path, text)
        assert again is not None and not problems
        assert render_diagram_svg(diagram, real.glossary, href) == render_diagram_svg(again, real.glossary, href)
    fresh = load_project(REPO, check_records=False)
    assert render_map_svg(real.glossary, href) == render_map_svg(fresh.glossary, href)
    warp = real.glossary.terms["warp"]
    assert render_neighbourhood_svg(warp, real.glossary, href) == render_neighbourhood_svg(fresh.glossary.terms["warp"], fresh.glossary, href)


QUANTITY = re.compile(r"(\d[\d,.]*)\s?(TB/s|GB/s|Gb/s|MiB|MB|GiB|GB|KB|TFLOP/s)\b")


def test_quantities_in_diagrams_appear_in_the_term_pages():
    """A number with a unit drawn in a diagram must be stated (and sourced) in some term page."""
    pages = " ".join(p.read_text(encoding="utf-8") for p in (REPO / "glossary").rglob("*.md")).replace("\u00a0", " ")
    missing = []
    for path in sorted((REPO / "diagrams").glob("*.yml")):
        for number, unit in sorted(set(QUANTITY.findall(path.read_text(encoding="utf-8")))):
            if f"{number} {unit}" not in pages and f"{number}{unit}" not in pages:
                missing.append(f"{path.name}: {number} {unit}")
    assert not missing


# --- colours -----------------------------------------------------------------------------


@pytest.mark.parametrize("palette", PALETTES, ids=lambda p: p.name)
def test_text_meets_wcag_aa_on_every_fill(palette):
    failures = [(what, round(contrast(fg, bg), 2)) for what, fg, bg in text_surfaces(palette) if contrast(fg, bg) < 4.5]
    assert not failures


def test_palettes_cover_the_same_tones_and_the_css_has_both_schemes():
    assert set(LIGHT.tones) == set(DARK.tones)
    style = css()
    assert '[data-md-color-scheme="slate"] .gg .gg-t{fill:' + DARK.text + "}" in style
    assert "@media (prefers-color-scheme: dark){:root.gg .gg-bg{fill:" + DARK.background + "}" in style
    assert ".gg .gg-t{fill:" + LIGHT.text + "}" in style
    assert "focus-visible" in style and "a:hover" in style


def test_each_svg_carries_only_the_tone_rules_it_uses(real):
    svg = render_diagram_svg(real.diagrams["cuda-software-stack"], real.glossary, href)
    style = parse(svg).find(f"{NS}style").text
    assert ".gg-host-software-fill{" in style and ".gg-performance-fill{" not in style
    assert '[data-md-color-scheme="slate"] .gg .gg-host-software-fill{' in style


def test_contrast_formula_matches_wcag_reference_values():
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


# --- the map and neighbourhoods ------------------------------------------------------------


def test_map_has_every_term_once_as_a_link(real):
    root = parse(render_map_svg(real.glossary, href))
    circles = root.findall(f".//{NS}circle")
    assert len(circles) == len(real.glossary.terms)
    focusable = {a.get(XLINK) for a in root.findall(f".//{NS}a") if a.get("tabindex") == "0"}
    assert focusable == {href(s) for s in real.glossary.terms}
    labels = [t for t in root.iter(f"{NS}text") if "gg-ml" in (t.get("class") or "")]
    assert 20 <= len(labels) < len(real.glossary.terms), "the most-linked terms are labelled, the rest on hover"


def test_map_layout_keeps_circles_apart_and_sizes_by_inbound_links(real):
    lay = layout_map(real.glossary)
    graph = term_graph(real.glossary)
    by_section: dict[str, list] = {}
    for node in lay.nodes:
        assert node.inbound == graph.in_degree(node.slug)
        by_section.setdefault(node.section, []).append(node)
    for nodes in by_section.values():
        for i, a in enumerate(nodes):
            for b in nodes[i + 1 :]:
                assert (a.x - b.x) ** 2 + (a.y - b.y) ** 2 >= (a.r + b.r) ** 2 * 0.99, (a.slug, b.slug)
    biggest = max(lay.nodes, key=lambda n: n.r)
    assert biggest.inbound == max(n.inbound for n in lay.nodes)


def test_neighbourhood_shows_both_directions(real):
    glossary = real.glossary
    term = glossary.terms["tensor-memory-accelerator"]
    root = parse(render_neighbourhood_svg(term, glossary, href))
    shown = {a.get(XLINK) for a in root.findall(f".//{NS}a")}
    graph = term_graph(glossary)
    neighbours = set(graph.predecessors(term.slug)) | set(graph.successors(term.slug))
    assert shown <= {href(s) for s in neighbours}
    assert len(shown) >= min(len(neighbours), 10)
    assert "linked from" in root.find(f"{NS}desc").text


# --- the built site ----------------------------------------------------------------------


def _link_problem(site, page: Path, href: str | None) -> str | None:
    """Why a diagram's link is broken: none, empty, leaving the site, or not resolving."""
    if not href:
        return "no xlink:href"
    if site.target(page, href) is None:
        return "not a link into the site"
    return site.problem(page, href)


def test_built_pages_show_diagrams_whose_links_resolve(built_site, real_project):
    checked = 0
    for term in real_project.glossary.terms.values():
        page_path = built_site.term_page(term)
        tree = built_site.page(page_path)
        figures = tree.xpath(f"//figure[{has_class('gg-figure--diagram')}]")
        assert [f.get("id") for f in figures] == [f"diagram-{name}" for name in term.diagrams]
        for link in tree.xpath(f"//figure[{has_class('gg-figure')}]//svg//a"):
            href = link.get("xlink:href")
            problem = _link_problem(built_site, page_path, href)
            assert problem is None, f"{term.slug}: {href} ({problem})"
            checked += 1
    assert checked > 1000


def test_map_page_is_in_the_nav_and_its_links_resolve(built_site):
    page_path = built_site / MAP_SRC.removesuffix(".md") / "index.html"
    soup = built_site.soup(page_path)
    assert soup.select_one("figure.gg-figure--map svg") is not None
    nav = [a.get_text(strip=True) for a in built_site.soup("index.html").select("nav a")]
    assert "Map" in nav
    links = soup.select("figure svg a")
    assert links
    for link in links:
        href = link.get("xlink:href")
        problem = _link_problem(built_site, page_path, href)
        assert problem is None, f"{href} ({problem})"


# --- diagnostics -------------------------------------------------------------------------

GOOD = """\
title: A small diagram
description: Two boxes, one of them a term, joined by an arrow; used by the tests.
boxes:
  - id: a
    term: warp
  - id: b
    label: Something else
arrows:
  - {from: a, to: b}
"""


def repo_with(make_glossary, diagrams: dict[str, str], term_extra: str | None = None) -> Path:
    files = trio()
    if term_extra is not None:
        files["device-software/warp.md"] = term_text("Warp", "A [[thread]] group that runs on an [[streaming-multiprocessor|SM]].\n", extra=term_extra)
    root = make_glossary(files)
    (root / "diagrams").mkdir(exist_ok=True)
    for name, text in diagrams.items():
        (root / "diagrams" / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def codes(root: Path, code: str):
    return [d for d in load_project(root).diagnostics if d.code == code]


def test_a_clean_diagram_has_no_diagnostics(make_glossary):
    root = repo_with(make_glossary, {"small.yml": GOOD}, term_extra="diagrams: [small]")
    loaded = load_project(root)
    assert loaded.diagnostics == ()
    assert set(loaded.diagrams) == {"small"}


def test_yaml_syntax_error_points_at_the_line(make_glossary):
    root = repo_with(make_glossary, {"broken.yml": "title: T\ndescription: D.\nboxes:\n  - label: [unclosed\n  - label: x\n"}, term_extra="diagrams: [broken]")
    found = codes(root, "diagram-syntax")
    assert found and found[0].path == "diagrams/broken.yml" and found[0].line == 5 and found[0].severity is Severity.ERROR
    assert not codes(root, "diagram-unknown"), "a broken diagram is not also reported as unknown"


def test_unknown_term_points_at_the_term_line(make_glossary):
    text = GOOD.replace("term: warp", "term: warpp")
    root = repo_with(make_glossary, {"small.yml": text}, term_extra="diagrams: [small]")
    found = codes(root, "diagram-unknown-term")
    assert len(found) == 1
    assert (found[0].path, found[0].line) == ("diagrams/small.yml", 5)
    assert "did you mean 'warp'" in found[0].message


def test_unknown_diagram_in_front_matter_points_at_the_diagrams_line(make_glossary):
    root = repo_with(make_glossary, {"small.yml": GOOD}, term_extra="diagrams: [small, smal]")
    found = codes(root, "diagram-unknown")
    assert len(found) == 1
    assert found[0].path == "glossary/device-software/warp.md"
    assert found[0].line == 7, "the line of 'diagrams:' in the front matter"
    assert "did you mean 'small'" in found[0].message


SCHEMA_CASES = [
    ("unknown key", GOOD.replace("    label: Something else", "    lable: Something else"), "diagram-invalid", 7, "did you mean 'label'"),
    ("bad layout", GOOD.replace("  - id: b\n", "  - id: b\n    layout: diagonal\n"), "diagram-invalid", 7, "not one of row, column, grid"),
    ("no description", GOOD.replace("description: Two boxes, one of them a term, joined by an arrow; used by the tests.\n", ""), "diagram-invalid", 1, "needs a 'description'"),
    ("dangling arrow", GOOD.replace("{from: a, to: b}", "{from: a, to: c}"), "diagram-id", 9, "names no box"),
    ("duplicate id", GOOD.replace("  - id: b", "  - id: a"), "diagram-id", 6, "already used"),
    ("bad repeat", GOOD.replace("    label: Something else", "    label: x\n    repeat: 0"), "diagram-invalid", 8, "whole number"),
    ("bad tone", GOOD.replace("    label: Something else", "    label: x\n    tone: devise-hardware"), "diagram-invalid", 8, "did you mean 'device-hardware'"),
    ("not a mapping", "- just\n- a list\n", "diagram-invalid", 1, "must be a mapping"),
]


@pytest.mark.parametrize(("case", "text", "code", "line", "hint"), SCHEMA_CASES, ids=[c[0] for c in SCHEMA_CASES])
def test_schema_errors_have_code_path_and_line(make_glossary, case, text, code, line, hint):
    root = repo_with(make_glossary, {"small.yml": text}, term_extra="diagrams: [small]")
    found = codes(root, code)
    assert found, case
    assert (found[0].path, found[0].line) == ("diagrams/small.yml", line)
    assert hint in found[0].message


def test_a_diagram_no_term_shows_is_a_warning(make_glossary):
    root = repo_with(make_glossary, {"small.yml": GOOD})
    found = codes(root, "diagram-unused")
    assert found and found[0].severity is Severity.WARNING


def test_repeat_numbers_copies_and_ids_reach_them(make_glossary, tmp_path):
    text = """\
    title: Copies
    description: A repeated box whose copies are numbered, with an arrow to the third copy.
    layout: row
    boxes:
      - {id: src, label: source}
      - {id: cell, label: "cell {i+1}", repeat: 4, show: 3, more: "+{rest}"}
    arrows:
      - {from: src, to: cell.2}
    """
    directory = tmp_path / "d"
    directory.mkdir()
    (directory / "copies.yml").write_text(textwrap.dedent(text), encoding="utf-8")
    drawn = load_diagrams(directory, tmp_path)
    assert not drawn.diagnostics
    glossary = load_project(make_glossary(trio())).glossary
    root = parse(render_diagram_svg(drawn.diagrams["copies"], glossary))
    texts = [t.text for t in root.iter(f"{NS}text")]
    assert {"cell 1", "cell 2", "cell 3", "+1"} <= set(texts) and "cell 4" not in texts
    assert len(root.findall(f".//{NS}path[@class='gg-a']")) == 1
