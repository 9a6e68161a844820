"""load/cache.py: a warm run reuses exactly the unchanged files' parses, and gives what a cold run gives.

Also the two smaller levers of the build-cost work: relative links computed without
``posixpath.relpath`` and compiler output kept out of Material's search index.
"""

from __future__ import annotations

import itertools
import posixpath
import shutil
from pathlib import Path

import lxml.html
import pytest
from bs4 import BeautifulSoup

from glossary_tool.emit.html_parts import highlight
from glossary_tool.emit.links import RelativeLinker
from glossary_tool.emit.snippets import SiteSnippets
from glossary_tool.load import load_tree
from glossary_tool.load.cache import CACHE_DIR, Cache, key, project_cache
from glossary_tool.pipeline import load_project
from tests.built_site import has_class
from tests.conftest import REPO


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for folder in ("glossary", "diagrams", "snippets"):
        shutil.copytree(REPO / folder, root / folder)
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    return root


def _load(root: Path) -> tuple[Cache, object]:
    store = project_cache(root)
    result = load_tree(root / "glossary", store)
    store.save()
    return store, result


def test_warm_load_reuses_every_parse_and_equals_a_cold_one(copy):
    cold_store, cold = _load(copy)
    files = len(cold.terms) + len(cold.unloaded)
    assert (cold_store.hits, cold_store.misses) == (0, files)
    warm_store, warm = _load(copy)
    assert (warm_store.hits, warm_store.misses) == (files, 0)
    assert warm.terms == cold.terms and warm.diagnostics == cold.diagnostics
    uncached = load_tree(copy / "glossary")
    assert uncached.terms == warm.terms and uncached.diagnostics == warm.diagnostics


def test_an_edit_reparses_that_file_only(copy):
    _load(copy)
    path = sorted((copy / "glossary").glob("device-hardware/*.md"))[1]
    path.write_text(path.read_text(encoding="utf-8") + "\nAlso [[no-such-term]] and [[warp]].\n", encoding="utf-8")
    store, result = _load(copy)
    assert store.misses == 1
    edited = next(t for t in result.terms if t.path.endswith(path.name))
    assert [x.target for x in edited.xrefs][-2:] == ["no-such-term", "warp"]


def test_full_check_is_the_same_warm_and_cold(copy):
    cold = load_project(copy, cache=False)
    assert not (copy / CACHE_DIR).exists(), "cache=False writes nothing"
    first = load_project(copy)
    warm = load_project(copy)
    assert sorted(cold.diagnostics) == sorted(first.diagnostics) == sorted(warm.diagnostics)
    assert dict(cold.glossary.terms) == dict(warm.glossary.terms)
    assert (copy / CACHE_DIR / ".gitignore").read_text().splitlines()[-1] == "*", "git (and check --changed) never sees the cache"


def test_record_checks_are_kept_and_redone_when_a_record_the_config_or_a_term_changes(copy, monkeypatch):
    """The snippet and figure checks' result is kept (pipeline._record_diagnostics_kept): a
    warm check with nothing changed runs none of them, and a change to any record, to the
    reference GPUs or to a term is seen, as a check without the cache sees it."""
    import json

    import glossary_tool.pipeline as pipeline

    runs = []
    real = pipeline.record_diagnostics
    monkeypatch.setattr(pipeline, "record_diagnostics", lambda *a, **k: runs.append(1) or real(*a, **k))

    def check() -> list:
        return sorted(load_project(copy).diagnostics)

    first = check()
    runs.clear()
    assert check() == first and runs == [], "unchanged: the kept result, none of the checks run"

    record = sorted((copy / "snippets").rglob("*.json"))[0]
    data = json.loads(record.read_text(encoding="utf-8"))
    data.update(status="failed", reason="a fault written by the test")
    record.write_text(json.dumps(data), encoding="utf-8")
    failed = check()
    assert [d for d in failed if d.code == "snippet-failed" and "a fault written by the test" in d.message], "a changed record is read again"
    assert failed == sorted(load_project(copy, cache=False).diagnostics), "what a check without the cache finds"

    config = copy / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("reference_gpus:", "reference_gpus_off:"), encoding="utf-8")
    assert check() != failed, "changed reference GPUs are read again"

    term = next(p for p in sorted((copy / "glossary").rglob("*.md")) if "```cuda verify" in p.read_text(encoding="utf-8"))
    text = term.read_text(encoding="utf-8")
    fence = text.index("\n", text.index("```cuda verify")) + 1
    term.write_text(text[:fence] + "// a line the test adds: the snippet's records no longer match it\n" + text[fence:], encoding="utf-8")
    assert [d for d in check() if d.path.endswith(term.name) and d.code == "snippet-stale"], "a changed term is checked again"


def test_a_broken_or_unwritable_cache_is_only_slower(copy):
    _load(copy)
    (pickle_file,) = (copy / CACHE_DIR).glob("load-*.pickle")
    pickle_file.write_bytes(b"\x80\x05 not a pickle")
    store, result = _load(copy)
    assert store.hits == 0 and result.terms
    shutil.rmtree(copy / CACHE_DIR)
    (copy / CACHE_DIR).write_text("a file where the folder should be")
    store, again = _load(copy)
    assert again.terms == result.terms


def test_keys_separate_kinds_and_parts():
    assert key("term", "a", "bc") != key("term", "ab", "c"), "parts are length-prefixed"
    assert key("term", "x") != key("leftovers", "x")
    assert key("term", b"x") == key("term", "x")


# --------------------------------------------------------------------------- links and search

PATHS = ["index.md", "a.md", "device-hardware/index.md", "device-hardware/warp.md", "performance/roofline.md", "x/y/z.md", "x/y/index.md", "./a.md", "x/../a.md"]


@pytest.mark.parametrize(("here", "there"), list(itertools.product(PATHS, PATHS)))
def test_relative_links_match_relpath(here, there):
    assert RelativeLinker(here).to_page(there) == posixpath.relpath(there, posixpath.dirname(here) or ".")


def test_compiler_output_is_kept_out_of_search():
    shown = BeautifulSoup(highlight("mov.u32 %r1, %tid.x;", "text", searchable=False), "html.parser").div
    assert shown.has_attr("data-search-exclude")
    assert not BeautifulSoup(highlight("int x;", "cuda"), "html.parser").div.has_attr("data-search-exclude")


def test_snippet_tabs_index_source_and_output_but_not_ptx_or_sass(real_project):
    loaded = real_project
    site = SiteSnippets(REPO / "snippets", loaded.project.reference_gpus)
    checked = 0
    tabs = f"//*[{has_class('snippet')}]/*[{has_class('tabbed-set')}]"  # .snippet > .tabbed-set
    for term in loaded.glossary.ordered_terms():
        for snippet in term.snippets:
            tree = lxml.html.fragment_fromstring(site.html(term, snippet), create_parent="div")  # lxml: the PTX and SASS are long
            labels = ["".join(label.itertext()) for label in tree.xpath(f"{tabs}/*[{has_class('tabbed-labels')}]/label")]
            blocks = tree.xpath(f"{tabs}/*[{has_class('tabbed-content')}]/*[{has_class('tabbed-block')}]")
            if "PTX" not in labels:
                continue
            for label, block in zip(labels, blocks, strict=True):
                excluded = bool(block.xpath(".//*[@data-search-exclude]"))
                assert excluded is (label in ("PTX", "SASS")), (term.slug, snippet.name, label)
            checked += 1
    assert checked, "the real glossary has snippets with PTX"


def _indexed(markup: str) -> list[tuple[str, str, str]]:
    """What Material's search plugin takes from a page: (id, title, text) of each section."""
    from material.plugins.search.plugin import Parser

    parser = Parser()
    parser.feed(markup)
    parser.close()
    return [(s.id, "".join(s.title), "".join(s.text)) for s in parser.data if not s.is_excluded()]


def test_cutting_excluded_parts_leaves_the_search_index_and_the_page_unchanged():
    from glossary_tool.draw.html import figure_html
    from glossary_tool.emit.search_text import cut_excluded

    loaded = load_project(REPO, check_records=False)
    site = SiteSnippets(REPO / "snippets", loaded.project.reference_gpus)
    term, snippet = next((t, s) for t in loaded.glossary.ordered_terms() for s in t.snippets if "PTX" in site.html(t, s))
    svg = '<svg viewBox="0 0 10 10"><g><text>SM label</text></g><a href="x"><text>warp</text></a></svg>'
    page = (
        '<h2 id="intro">Intro<a class="headerlink" href="#intro" title="Permanent link">&para;</a></h2>'
        '<p>Prose about <a href="x" title="A summary &amp; more" data-gg-preview>warps</a>, <abbr title="t">SM</abbr>'
        ' and <a\nhref="y">a wrapped tag</a>; <code>&lt;a href="z"&gt;</code>.</p>'
        '<p><a href="w" data-search-exclude>hidden link</a> and <a href="v" class="linenodiv">1</a></p>'
        f"{site.html(term, snippet)}<div><div>nested, searchable</div></div>{figure_html(svg, 'A caption.')}"
        '<h2 id="more">More</h2><p>Tail text.</p><div data-search-exclude><div>inner</div>unclosed'
    )
    cut = cut_excluded(page)
    assert len(cut.pieces) == 2, "the snippet (with its PTX and SASS) and the drawing (not the unbalanced tail)"
    assert "SM label" not in cut.html and "data-search-exclude" in cut.html
    assert snippet.source.split("\n")[0] not in cut.html, "snippets are out of the index"
    assert 'title="A summary' not in cut.html and 'href="y"' not in cut.html, "links reach the indexer without attributes"
    assert 'class="headerlink"' in cut.html and 'href="w"' in cut.html and "linenodiv" in cut.html, "the attributes the indexer acts on stay"
    assert _indexed(cut.html) == _indexed(page.replace(site.html(term, snippet), ""))
    assert cut.restore(cut.html) == page
    assert cut_excluded("<p>no drawings</p>").pieces == ()
    assert cut_excluded(cut.html).html == cut.html, "cutting twice changes nothing"


def test_a_cache_this_user_did_not_write_is_never_unpickled(copy, monkeypatch):
    import pickle

    from glossary_tool.load import cache as cache_module

    _load(copy)
    (pickle_file,) = (copy / CACHE_DIR).glob("load-*.pickle")

    class Boom:
        def __reduce__(self):
            return (pytest.fail, ("a foreign pickle was loaded",))

    payload = pickle.dumps({"x": Boom()})
    pickle_file.write_bytes(b"\0" * 32 + payload)  # as a crafted file in a pull request would be: not signed with our key
    store, result = _load(copy)
    assert store.hits == 0 and result.terms
    # signed with someone else's key: ignored too
    _load(copy)
    monkeypatch.setattr(cache_module, "_signing_key", lambda: b"k" * 32)
    store, _ = _load(copy)
    assert store.hits == 0


def test_an_unchanged_load_cache_is_not_read_again_in_the_same_process(copy, monkeypatch):
    """`glossary serve` loads the project on every rebuild: the entries this process last
    read or wrote are reused while the file is the same, and read again once it changed."""
    from glossary_tool.load import cache as cache_module

    reads = []
    real_read = cache_module._read_entries
    monkeypatch.setattr(cache_module, "_read_entries", lambda data: reads.append(1) or real_read(data))
    monkeypatch.setattr(cache_module, "_REMEMBERED", {})
    first, _ = _load(copy)  # cold: nothing to read; the save is remembered
    assert reads == []
    again = project_cache(copy)
    assert reads == [] and again._stored == first._stored and again._stored is not first._stored
    (pickle_file,) = (copy / CACHE_DIR).glob("load-*.pickle")
    other = Cache(copy / CACHE_DIR)  # another process rewrote the file: read from disk
    other._used = dict(list(first._stored.items())[:3])
    monkeypatch.setattr(cache_module, "_REMEMBERED", {})
    other.save()
    monkeypatch.setattr(cache_module, "_REMEMBERED", {pickle_file: ((0, 0, 0), cache_module._signing_key(), first._stored)})
    assert project_cache(copy)._stored.keys() == other._used.keys() and reads == [1]


def _entries_of(path: Path) -> dict:
    """The entries of a cache file as a fresh process reads them (signature checked)."""
    from glossary_tool.load import cache as cache_module

    data = path.read_bytes()
    assert data[: cache_module._SIGNATURE_SIZE] == cache_module._sign(memoryview(data)[cache_module._SIGNATURE_SIZE :])
    return cache_module._read_entries(data)[0]


def test_a_save_copies_the_entries_it_did_not_change_from_the_file_and_pickles_the_rest(tmp_path: Path, monkeypatch):
    """`glossary serve` saves the load cache after each edit: the entries it did not change
    are copied as the file holds them, not pickled again, whether this process read the
    file or wrote it (remembered); what a fresh process reads back is what was used."""
    import pickle

    from glossary_tool.load import cache as cache_module

    monkeypatch.setattr(cache_module, "_REMEMBERED", {})
    dumped: list[str] = []
    real_dump = pickle.dump
    monkeypatch.setattr(pickle, "dump", lambda obj, *a, **k: (dumped.append(obj[0] if obj else None), real_dump(obj, *a, **k))[1])
    values = {f"term-{i}": (f"parse {i}", [i] * (i % 7), {"n": i}) for i in range(300)}
    first = Cache(tmp_path, "load")
    for name, value in values.items():
        first.put(name, value)
    first.save()
    assert len(dumped) == 301  # every entry, then the end mark
    path = next(tmp_path.glob("load-*.pickle"))

    for reader in ("remembered", "read from disk"):
        if reader == "read from disk":
            monkeypatch.setattr(cache_module, "_REMEMBERED", {})
        store = Cache(tmp_path, "load")
        for name in [name for name in values if name != "term-7"]:  # term-7 is not used: it goes
            assert store.get(name) == values[name]
        del values["term-7"]
        added = f"added {reader}"
        values[added] = ("new", reader)
        store.put(added, values[added])
        values["term-5"] = ("changed", reader)
        store.put("term-5", values["term-5"])
        dumped.clear()
        store.save()
        assert sorted(name for name in dumped if name) == sorted([added, "term-5"]), f"{reader}: only the new and the changed entry are pickled"
        monkeypatch.setattr(cache_module, "_REMEMBERED", {})
        assert _entries_of(path) == values, reader
        values["term-7"] = ("back", reader)
        store.put("term-7", values["term-7"])
        store.save()


def test_a_save_copies_nothing_from_a_file_changed_under_it(tmp_path: Path, monkeypatch):
    """The bytes a save copies come from the file only while it still verifies: a file
    altered in place (same size and time) is not copied from, every entry is pickled."""
    import os

    from glossary_tool.load import cache as cache_module

    monkeypatch.setattr(cache_module, "_REMEMBERED", {})
    store = Cache(tmp_path, "load")
    values = {f"k{i}": ("value", i) for i in range(50)}
    for name, value in values.items():
        store.put(name, value)
    store.save()
    path = next(tmp_path.glob("load-*.pickle"))
    again = Cache(tmp_path, "load")
    for name in values:
        again.get(name)
    again.put("k-new", ("value", "new"))
    values["k-new"] = ("value", "new")
    stat = path.stat()
    data = bytearray(path.read_bytes())
    data[data.index(b"value")] = ord("V")  # an entry's bytes, not the signature
    path.write_bytes(bytes(data))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert cache_module._stamp(path) == again._spans_of, "the change kept inode, size and time"
    again.save()
    assert _entries_of(path) == values


def test_entries_pickled_elsewhere_are_saved_as_given_and_replaced_by_a_later_put(tmp_path: Path):
    from glossary_tool.load.cache import entry_bytes

    store = Cache(tmp_path, "entries")  # not the "load" kind, which this process would remember instead of reading
    store.put("a", ("parsed", 1), entry_bytes("a", ("parsed", 1)))
    store.put("b", ("made", 2))
    store.put("c", ("stale", 3), entry_bytes("c", ("stale", 3)))
    store.put("c", ("fresh", 4))  # a later value under the key: its old bytes must not be written
    store.save()
    again = Cache(tmp_path, "entries")
    assert [again.get(name) for name in "abc"] == [("parsed", 1), ("made", 2), ("fresh", 4)]


def test_a_save_of_many_blocks_reads_back_whole_and_signed(tmp_path: Path):
    """The save signs and writes entries a block at a time (load/cache.py _Signed): entries
    small and large, pickled here or elsewhere, a buffer the pickler hands over as it is,
    across several blocks, all read back; a byte changed anywhere fails the signature."""
    from glossary_tool.load import cache
    from glossary_tool.load.cache import entry_bytes

    values = {f"small-{i}": ("x" * (i % 300), i) for i in range(4000)}
    values["large"] = "y" * (3 * cache._BLOCK + 17)
    values["buffer"] = bytearray(b"z" * (cache._BLOCK // 2 + 5))
    store = Cache(tmp_path, "blocks")
    for i, (name, value) in enumerate(values.items()):
        store.put(name, value, entry_bytes(name, value) if i % 2 else None)
    store.save()
    path = next(tmp_path.glob("blocks-*.pickle"))
    assert path.stat().st_size > 4 * cache._BLOCK
    again = Cache(tmp_path, "blocks")
    assert {name: again.get(name) for name in values} == values
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))
    assert Cache(tmp_path, "blocks").get("small-1") is None
