"""Results a warm `glossary check` takes from the cache instead of computing them: the link
result (link/linker.py LinkFacts), the reading order and the reference GPUs. Each is reused
only while nothing it reads changed.

Each edit below changes one input of linking (a term's body, the reading order, a section
page, a file that stops loading) after a warm cache exists; the cached run must then give
exactly what linking without a cache gives. A cache key that left out that input would
hand back the stale result, and the comparison would fail.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from glossary_tool.link import link_glossary
from glossary_tool.link import linker as linker_module
from glossary_tool.load import load_tree
from glossary_tool.load.cache import Cache, project_cache
from glossary_tool.model import Glossary
from tests.conftest import REPO


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(REPO / "glossary", root / "glossary")
    return root


def _summary(glossary: Glossary, diagnostics: list) -> tuple:
    """Everything linking decides, in comparable form (diagnostics in their order)."""
    links = {slug: [(link.source, link.target, link.xref) for link in found] for slug, found in glossary.links.items()}
    equivalents = {slug: {vendor: (link.target, link.xref) for vendor, link in found.items()} for slug, found in glossary.equivalent_links.items()}
    return [d.format() for d in diagnostics], links, dict(glossary.backlinks), equivalents


def _link(root: Path, store: Cache | None) -> tuple:
    loaded = load_tree(root / "glossary", store)
    glossary, diagnostics = link_glossary(loaded, store)
    if store is not None:
        store.save()
    return _summary(glossary, diagnostics)


def _edit(path: Path, change: Callable[[str], str]) -> None:
    text = path.read_text(encoding="utf-8")
    changed = change(text)
    assert changed != text, f"the edit changes {path.name}"
    path.write_text(changed, encoding="utf-8")


EDITS: dict[str, Callable[[Path], None]] = {
    "a link's target": lambda g: _edit(g / "device-hardware" / "cuda-core.md", lambda t: t.replace("[[warp]]", "[[gpu]]", 1)),
    "the reading order": lambda g: _edit(g / "toc.yml", lambda t: t.replace("  - cuda-core\n", "", 1)),
    "a section page": lambda g: _edit(g / "device-hardware" / "index.md", lambda t: t + "\nSee [[no-such-term]].\n"),
    "a file that stops loading": lambda g: (g / "device-hardware" / "cuda-core.md").write_bytes(b""),
}


def test_a_warm_link_reuses_the_stored_result(copy, monkeypatch):
    cold = _link(copy, project_cache(copy))
    assert cold == _link(copy, None)

    def fail(*args: object) -> None:
        raise AssertionError("linking ran again although nothing changed")

    monkeypatch.setattr(linker_module, "_link_facts", fail)
    assert _link(copy, project_cache(copy)) == cold


@pytest.mark.parametrize("edit", EDITS, ids=list(EDITS))
def test_an_edit_to_any_input_of_linking_is_seen(copy, edit):
    before = _link(copy, project_cache(copy))
    EDITS[edit](copy / "glossary")
    uncached = _link(copy, None)
    assert uncached != before, "the edit changes what linking gives"
    assert _link(copy, project_cache(copy)) == uncached
    assert _link(copy, project_cache(copy)) == uncached, "and the result stored after the edit is the new one"


def test_links_are_made_on_use_and_keep_the_xref_objects(copy):
    loaded = load_tree(copy / "glossary")
    glossary, _ = link_glossary(loaded)
    term = glossary.terms["cuda-core"]
    links = glossary.links["cuda-core"]
    assert links is glossary.links["cuda-core"], "made once"
    assert [link.target for link in links] and all(any(link.xref is x for x in term.xrefs) for link in links)
    assert all(glossary.link_for("cuda-core", link.xref) is link for link in links)
    with pytest.raises(KeyError):
        glossary.links["no-such-term"]


def test_a_file_that_did_not_load_then_went_missing_is_seen(copy):
    """Neither version has the term, so only the set of files that failed to load tells them
    apart: a missing file listed in the reading order is an error, an unloadable one has its own."""
    path = copy / "glossary" / "device-hardware" / "cuda-core.md"
    path.write_bytes(b"")
    before = _link(copy, project_cache(copy))
    path.unlink()
    uncached = _link(copy, None)
    assert uncached != before
    assert _link(copy, project_cache(copy)) == uncached


def test_the_cached_reading_order_follows_toc_edits(copy):
    """load/toc.py keeps the parse of toc.yml by its text: after an edit (one that breaks the
    YAML, one that moves a term) a cached load reads what an uncached one reads."""
    toc = copy / "glossary" / "toc.yml"
    text = toc.read_text(encoding="utf-8")
    original = load_tree(copy / "glossary")
    moved = text.replace("  - cuda-core\n", "", 1).replace("  - gpu\n", "  - gpu\n  - cuda-core\n", 1)
    for edited in (text + "device-hardware: [\n", moved):
        toc.write_text(text, encoding="utf-8")
        store = project_cache(copy)
        load_tree(copy / "glossary", store)
        store.save()
        toc.write_text(edited, encoding="utf-8")
        cached = load_tree(copy / "glossary", project_cache(copy))
        uncached = load_tree(copy / "glossary")
        assert (cached.order, cached.diagnostics) == (uncached.order, uncached.diagnostics) != (original.order, original.diagnostics)


def test_the_cached_reference_gpus_follow_mkdocs_yml_edits(tmp_path):
    """verify/reference.py keeps the reference GPUs read from mkdocs.yml by its text."""
    from glossary_tool.verify.reference import load_reference_gpus

    path = tmp_path / "mkdocs.yml"
    before = "plugins:\n  - glossary:\n      reference_gpus:\n        - name: NVIDIA H100 80GB HBM3\n          compute_capability: '9.0'\n"
    for after in (before.replace("H100 80GB HBM3", "H200"), before.replace("name:", "label:")):
        path.write_text(before, encoding="utf-8")
        store = project_cache(tmp_path)
        first = load_reference_gpus(path, store)
        store.save()
        path.write_text(after, encoding="utf-8")
        cached = load_reference_gpus(path, project_cache(tmp_path))
        assert cached == load_reference_gpus(path) != first
