"""benchmarks/third_party.py on a hand-written checkout in Modal's layout (no mirror needed).

The fixture's terms are invented; they are written the way that glossary writes its pages:
question titles, site-absolute links between terms (wrapped, in tables, bold, in image alt
text, to the term itself, to a section), and code that must not be touched. The converted
project is read back with the real loader and `glossary check`; the bare twin made by
bench_build is parsed with markdown-it and its links compared with ours.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from benchmarks.bench_build import child_twin
from benchmarks.third_party import prepare
from glossary_tool.cli import main
from glossary_tool.diagnostics import Severity
from glossary_tool.pipeline import load_project

CODE = "```cpp\n// [not a link](/gpu-glossary/perf/lag-bound)\nint x[[maybe_unused]] = 0;\n```"
FIXTURE = {
    "readme.md": "---\ntitle: README\n---\n\n<pre class=\"banner\">\nWIDGETS\n</pre>\n\nA made-up glossary of [widget cores](/gpu-glossary/device-hardware/widget-core)\nand [lag](/gpu-glossary/perf/lag-bound), made at [Example](/).\n",
    "contributors.md": "---\ntitle: Contributors\n---\n\nNobody, see [gizmos](/gpu-glossary/device-hardware/gizmo).\n",
    "device-hardware.md": "---\ntitle: Device Hardware\n---\n\nParts you can touch, such as the [Widget Core](/gpu-glossary/device-hardware/widget-core).\n",
    "perf.md": "---\ntitle: Performance\n---\n\nWhy things are slow: [lag](/gpu-glossary/perf/lag-bound).\n",
    "device-hardware/widget-core.md": (
        "---\ntitle: What is a Widget Core?\nabbreviation: WC\n---\n\n"
        "A widget core turns [gizmos](/gpu-glossary/device-hardware/gizmo) into output, e.g. frames. It\nis never\n"
        "[lag-bound](/gpu-glossary/perf/lag-bound).\n\n"
        "![A widget core feeding [gizmos](/gpu-glossary/device-hardware/gizmo).](themed-image://widget.svg)\n\n"
        "See the [**hardware section**](/gpu-glossary/device-hardware) and this\n[widget core](/gpu-glossary/device-hardware/widget-core) itself.\n\n"
        "| Part | Role |\n| --- | --- |\n| [Gizmo](/gpu-glossary/device-hardware/gizmo) | input |\n| **[lag](/gpu-glossary/perf/lag-bound)** | cost |\n\n"
        f"{CODE}\n\nThe `[x](/gpu-glossary/perf/lag-bound)` span stays, and [`gizmo_t`](/gpu-glossary/device-hardware/gizmo) loses its code marks.\n"
    ),
    "device-hardware/gizmo.md": (
        "---\ntitle: What are Gizmos?\n---\n\nGizmos are the input of a [Widget\nCore](/gpu-glossary/device-hardware/widget-core) (a [WC](/gpu-glossary/device-hardware/widget-core)).\n\n"
        "Too many make a widget [lag-bound](/gpu-glossary/perf/lag-bound).\n"
    ),
    "perf/lag-bound.md": (
        "---\ntitle: What does it mean to be lag-bound?\n---\n\nA kernel is lag-bound when its [widget cores](/gpu-glossary/device-hardware/widget-core)\n"
        "wait on [gizmos](/gpu-glossary/device-hardware/gizmo); see [perf](/gpu-glossary/perf) and\n[the home](/gpu-glossary).\n"
    ),
}
#: Per term, the pages its links reach in body order (the self link and section links are not terms).
EXPECTED = {
    "widget-core": ["gizmo", "lag-bound", "gizmo", "lag-bound", "gizmo"],
    "gizmo": ["widget-core", "widget-core", "lag-bound"],
    "lag-bound": ["widget-core", "gizmo"],
}
SECTION_OF = {"widget-core": "device-hardware", "gizmo": "device-hardware", "lag-bound": "performance"}


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, object]:
    src = tmp_path_factory.mktemp("checkout")
    for name, text in FIXTURE.items():
        path = src / "gpu-glossary" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    root = tmp_path_factory.mktemp("ours")
    conversion = prepare(src, root)  # our mkdocs.yml and assets too, as the benchmark has them
    twin = tmp_path_factory.mktemp("twin") / "twin"
    child_twin(root, twin)
    return root, twin, conversion


def test_check_passes_with_no_errors(converted) -> None:
    root, _, conversion = converted
    loaded = load_project(root, check_records=False, cache=False)
    assert [d for d in loaded.diagnostics if d.severity is Severity.ERROR] == []
    assert main(["--root", str(root), "check"]) == 0
    assert conversion.terms == 3
    assert sorted(loaded.glossary.terms) == sorted(EXPECTED)


def test_titles_summaries_and_sources(converted) -> None:
    root, _, _ = converted
    terms = load_project(root, check_records=False, cache=False).glossary.terms
    assert (terms["widget-core"].title, terms["widget-core"].abbreviation) == ("Widget Core", "WC")
    assert terms["gizmo"].title == "Gizmos"
    assert terms["lag-bound"].title == "lag-bound"
    assert terms["widget-core"].summary == "A widget core turns gizmos into output, e.g. frames."
    assert [s.url for s in terms["lag-bound"].sources] == ["https://modal.com/gpu-glossary/perf/lag-bound"]
    assert terms["lag-bound"].section == "performance"


def test_xrefs_resolve_to_the_linked_terms(converted) -> None:
    root, _, _ = converted
    glossary = load_project(root, check_records=False, cache=False).glossary
    for slug, targets in EXPECTED.items():
        assert [link.target for link in glossary.links[slug]] == targets, slug
    shown = {(link.xref.line, link.target): link.xref.shown for link in glossary.links["gizmo"]}
    assert sorted(shown.values()) == ["WC", "Widget Core", "lag-bound"]  # the wrapped title read as one line


def _body_tokens(path: Path) -> list:
    md = MarkdownIt("commonmark").enable("table")
    return md.parse(path.read_text(encoding="utf-8").split("\n---\n", 1)[1])


def test_code_is_left_alone(converted) -> None:
    root, _, _ = converted
    tokens = _body_tokens(root / "glossary" / "device-hardware" / "widget-core.md")
    fences = [t.content for t in tokens if t.type == "fence"]
    assert fences == [CODE.split("\n", 1)[1].rsplit("```", 1)[0]]
    spans = [c.content for t in tokens if t.type == "inline" for c in t.children or [] if c.type == "code_inline"]
    assert spans == ["[x](/gpu-glossary/perf/lag-bound)"]


def _twin_links(twin: Path, page: str) -> list[str]:
    """The pages (docs-relative .md paths) the twin's page links, in order, images' alt text aside."""
    hrefs = []
    for token in _body_tokens(twin / "docs" / page):
        for child in token.children or []:
            if child.type == "link_open":
                href = str(child.attrGet("href"))
                if "://" not in href:
                    hrefs.append(posixpath.normpath(posixpath.join(posixpath.dirname(page), href)))
    return hrefs


def test_bare_twin_links_the_same_pages(converted) -> None:
    root, twin, _ = converted
    glossary = load_project(root, check_records=False, cache=False).glossary
    for slug in EXPECTED:
        page = f"{SECTION_OF[slug]}/{slug}.md"
        ours = [f"{SECTION_OF[link.target]}/{link.target}.md" for link in glossary.links[slug]]
        sections = {"widget-core": ["device-hardware/index.md"], "lag-bound": ["performance/index.md", "index.md"]}.get(slug, [])
        assert sorted(_twin_links(twin, page)) == sorted(ours + sections), slug
    assert _twin_links(twin, "index.md") == ["device-hardware/widget-core.md", "performance/lag-bound.md"]
    for page in _twin_links(twin, "index.md") + ["device-hardware/index.md", "performance/index.md"]:
        assert (twin / "docs" / page).is_file()


def test_notes_name_what_changed(converted) -> None:
    _, _, conversion = converted
    counts = {note.split(" ", 1)[1]: int(note.split(" ", 1)[0]) for note in conversion.notes if note[0].isdigit()}
    assert counts["links of a term to itself reduced to their text"] == 1
    assert counts["links to section pages made relative Markdown links"] == 2
    assert counts["links to the home page made relative Markdown links"] == 1
    assert counts["images pointed at the light variant on modal-cdn.com (no image files in either build)"] == 1
    assert counts["term links whose text had code or emphasis marks inside (marks dropped)"] == 1
    assert any("contributors.md" in note for note in conversion.notes)
