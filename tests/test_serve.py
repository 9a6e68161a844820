"""`glossary serve` rebuilds incrementally: only the pages an edit changes, with the very
bytes a clean build of the edited sources writes.

Each step edits the sources of a synthetic glossary (20 terms with a diagram and snippet
records, benchmarks/generate.py), rebuilds the preview incrementally, builds a fresh
preview of the same sources from scratch, and compares the two site trees file by file.
Both run MkDocs' own ``serve`` (benchmarks/serve_driver.py stands in for its network
server and calls the builder MkDocs made): the preview through `glossary serve`, the
clean build through ``mkdocs serve --dirty`` in a new site directory.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from benchmarks.generate import generate
from benchmarks.serve_driver import Session, glossary_serve, mkdocs_serve
from glossary_tool.pipeline import load_project
from tests.conftest import with_site_config

N = 20


ADDR = "127.0.0.1:8765"  # never bound: the driver's server does not listen


def tree(site: Path) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def clean_build(root: Path) -> dict[str, bytes]:
    """The site a fresh ``mkdocs serve --dirty`` of ``root`` builds first (every page rendered)."""
    out: dict[str, bytes] = {}

    def first(session: Session) -> None:
        assert set(session.rebuilt) == set(session.planned), "a new session renders every page"
        out.update(tree(session.site_dir))

    mkdocs_serve(root / "mkdocs.yml", ADDR, first, dirty=True)
    return out


@pytest.fixture
def glossary(tmp_path: Path) -> Path:
    return with_site_config(generate(tmp_path / "repo", N))


def term_file(root: Path, slug: str) -> Path:
    return next((root / "glossary").glob(f"*/{slug}.md"))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def add_link(root: Path) -> None:
    """term-00003 gains a link to a term it did not link to: both neighbourhoods change."""
    glossary = load_project(root).glossary
    linked = {link.target for link in glossary.links.get("term-00003", ())}
    new = next(slug for slug in sorted(glossary.terms) if slug not in linked and slug != "term-00003")
    edit(term_file(root, "term-00003"), "\n## Part\n", f"\nNow also [[{new}]].\n\n## Part\n")


def rename(root: Path) -> None:
    edit(term_file(root, "term-00007"), "title: Term 00007", "title: Renamed Seven")


def delete(root: Path) -> None:
    last = f"term-{N - 1:05d}"
    term_file(root, last).unlink()
    for path in (root / "glossary").glob("*/*.md"):
        text = path.read_text(encoding="utf-8")
        if f"[[{last}]]" in text:
            path.write_text(text.replace(f"[[{last}]]", f"term {N - 1}"), encoding="utf-8")
    edit(root / "glossary" / "toc.yml", f"  - {last}\n", "")


def add(root: Path) -> None:
    section = term_file(root, "term-00000").parent
    text = term_file(root, "term-00000").read_text(encoding="utf-8").replace("Term 00000", "Added Term").replace("diagrams: [synthetic-00000]\n", "")
    (section / "added-term.md").write_text(text.replace("[[term-00001]]", "[[term-00002]]"), encoding="utf-8")
    edit(root / "glossary" / "toc.yml", f"{section.name}:\n", f"{section.name}:\n  - added-term\n")


def redraw(root: Path) -> None:
    edit(root / "diagrams" / "synthetic-00000.yml", "label: Group 0", "label: Renamed group")


def rerun(root: Path) -> None:
    record = next((root / "snippets").glob("*/term-00010/demo/*.json"))
    data = json.loads(record.read_text(encoding="utf-8"))
    data["date"] = "2026-12-01" if data["date"] != "2026-12-01" else "2026-12-02"  # the badge under the snippet shows it
    record.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


# (name, edit, pages rebuilt: these term slugs; "linkers": the pages that show what changed
# (in 20 terms of 15 links each, most), not all; None: all of them)
STEPS: list[tuple[str, Callable[[Path], None], set[str] | str | None]] = [
    ("nothing changed", lambda root: None, set()),
    ("a sentence added to one term", lambda root: edit(term_file(root, "term-00001"), "\n## Part\n", "\nOne more sentence.\n\n## Part\n"), {"term-00001"}),
    ("a summary edited", lambda root: edit(term_file(root, "term-00002"), "summary: Synthetic term number 2 ", "summary: Edited term number 2 "), "linkers"),
    ("a cross-reference added", add_link, "linkers"),
    ("a snippet record re-run", rerun, {"term-00010"}),
    ("a diagram redrawn", redraw, {"term-00000"}),  # the one term that shows it
    ("a title changed", rename, None),
    ("a term deleted", delete, None),
    ("a term added", add, None),
    # a save in the middle of an edit: the term stops loading (its page and the links to it go), then comes back
    ("front matter broken", lambda root: edit(term_file(root, "term-00011"), "title: Term 00011", "title: [Term 00011"), None),
    ("front matter mended", lambda root: edit(term_file(root, "term-00011"), "title: [Term 00011", "title: Term 00011"), None),
]


def test_incremental_rebuilds_write_the_bytes_of_a_clean_build(glossary: Path) -> None:
    ran: list[str] = []

    def steps(preview: Session) -> None:
        total = len(preview.rebuilt)
        assert total == N + 12, "the first build renders every page: home, 6 sections, A-Z, Rosetta, GPU comparison, map, what’s new and the terms"
        for step, change, expected in STEPS:
            change(glossary)
            preview.rebuild()
            rebuilt = set(preview.rebuilt)
            got, want = tree(preview.site_dir), clean_build(glossary)
            assert sorted(got) == sorted(want), f"{step}: the same files"
            differ = [name for name in want if got[name] != want[name]]
            assert not differ, f"{step}: files differ from a clean build: {differ[:10]}"
            if expected is None:
                assert rebuilt == set(preview.planned), f"{step}: the navigation changed, so every page is rebuilt"
            elif expected == "linkers":
                assert 1 < len(rebuilt) < len(preview.planned), f"{step}: the pages showing it, not all: {sorted(rebuilt)}"
            else:
                assert {Path(src).stem for src in rebuilt} == expected, step
            ran.append(step)

    glossary_serve(glossary / "mkdocs.yml", ADDR, steps)
    assert ran == [step for step, _, _ in STEPS]


def test_preview_has_a_working_search_index_after_partial_rebuilds(glossary: Path) -> None:
    checked: list[str] = []

    def search(preview: Session) -> None:
        edit(term_file(glossary, "term-00004"), "\n## Part\n", "\nA findable zanzibar sentence.\n\n## Part\n")
        preview.rebuild()
        (src,) = preview.rebuilt
        assert Path(src).stem == "term-00004"
        index = json.loads((preview.site_dir / "search" / "search_index.json").read_text(encoding="utf-8"))
        pages = {doc["location"].split("#")[0] for doc in index["docs"]}
        assert len(pages) == N + 11, "every page is still in the index, not only the rebuilt one (What's new is left out of search)"
        hits = [doc["location"] for doc in index["docs"] if "zanzibar" in doc["text"]]
        assert hits and all(h.startswith(src.removesuffix(".md") + "/") for h in hits)
        home = BeautifulSoup((preview.site_dir / "index.html").read_text(encoding="utf-8"), "html.parser")
        assert not [a for a in home.find_all("a", href=True) if a["href"].endswith(".epub")], "the preview builds no book"
        checked.append(src)

    glossary_serve(glossary / "mkdocs.yml", ADDR, search)
    assert checked


def test_mkdocs_serve_dirty_is_glossary_serve(glossary: Path) -> None:
    """`glossary serve` is ``mkdocs serve --dirty``: the same watched paths, the same pages
    rebuilt after an edit, the same bytes."""
    seen: dict[str, tuple[list[str], tuple[str, ...], dict[str, bytes]]] = {}
    term = term_file(glossary, "term-00005")
    original = term.read_text(encoding="utf-8")

    def one_edit(name: str) -> Callable[[Session], None]:
        def script(session: Session) -> None:
            term.write_text(original.replace("\n## Part\n", "\nOne edit.\n\n## Part\n", 1), encoding="utf-8")
            session.rebuild()
            seen[name] = (sorted(Path(p).resolve().relative_to(glossary.resolve()).as_posix() for p in session.watched), session.rebuilt, tree(session.site_dir))
            term.write_text(original, encoding="utf-8")

        return script

    glossary_serve(glossary / "mkdocs.yml", ADDR, one_edit("glossary serve"))
    mkdocs_serve(glossary / "mkdocs.yml", ADDR, one_edit("mkdocs serve --dirty"), dirty=True)
    ours, theirs = seen["glossary serve"], seen["mkdocs serve --dirty"]
    assert ours[0] == theirs[0] and {"glossary", "mkdocs.yml", "diagrams", "snippets"} <= set(ours[0]), ours[0]
    assert [Path(src).stem for src in ours[1]] == ["term-00005"] and ours[1] == theirs[1]
    assert sorted(ours[2]) == sorted(theirs[2]) and all(ours[2][name] == theirs[2][name] for name in ours[2])
