"""adapters/mkdocs_search.py: index entries made from sections parsed where the page was
made are the entries Material's own ``add_entry_from_context`` makes from the page."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

import pytest
from material.plugins.search.plugin import SearchIndex
from mkdocs.structure.toc import get_toc

from glossary_tool.adapters.mkdocs_plugin import Content
from glossary_tool.adapters.mkdocs_search import Replay, parse_sections, supported

PAGES = [
    # a term page's shape: h1 with permalink, sections, a search-excluded heading, lists, code
    '<h1 id="warp">Warp<a class="headerlink" href="#warp" title="Permanent link">&para;</a></h1>'
    "<p>A <em>warp</em> is 32 threads &amp; more.</p><ul><li>one</li><li>  </li></ul>"
    '<h2 id="part">Part<a class="headerlink" href="#part">&para;</a></h2><pre><code>int  x;\n  y</code></pre>'
    '<h2 id="gone" data-search-exclude>Gone</h2><p>hidden section</p>'
    '<div><h3 id="nested">Nested</h3><p>inside</p></div><p>after the div</p>',
    # no heading at all; a heading without an id; an empty heading; a script
    "<p>Preface only, “curly” quotes, ünïcode.</p><h2>No id</h2><p>text</p><h3 id=\"empty\"></h3><script>var a = '<p>';</script>",
    "",
    '<h2 id="first">Not h1 first</h2><p>x</p><table><tr><td>cell</td></tr></table><sub>2</sub>',
]


def _entries(index_config: dict, page: SimpleNamespace, replay: bool) -> list[dict]:
    index = SearchIndex(**index_config)
    if replay:
        hook = Replay(index, index.add_entry_from_context)
        hook.expect(page, parse_sections(page.content))
        hook(page)
    else:
        index.add_entry_from_context(page)
    return index.entries


@pytest.mark.skipif(not supported(), reason="Material release not read for the replay")
@pytest.mark.parametrize("html", PAGES)
@pytest.mark.parametrize("meta", [{}, {"title": "Front matter title", "tags": ["SM", "VRAM"]}, {"search": {"boost": 2}}, {"search": {"exclude": True}}])
def test_replayed_entries_are_materials_own(html: str, meta: dict) -> None:
    toc = get_toc([{"level": 2, "id": "part", "name": "Part", "children": []}, {"level": 3, "id": "nested", "name": "Nested", "children": []}])
    page = SimpleNamespace(content=html, meta=meta, toc=toc, url="section/warp/", title="Page title")
    config = {"lang": ["en"], "separator": r"[\s\-]+", "pipeline": [], "fields": {}}
    assert _entries(config, page, replay=True) == _entries(config, page, replay=False)


def test_another_page_is_parsed_by_material() -> None:
    index = SearchIndex(lang=["en"], separator=" ", pipeline=[], fields={})
    hook = Replay(index, index.add_entry_from_context)
    expected = SimpleNamespace(content="<p>a</p>", meta={}, toc=get_toc([]), url="a/", title="A")
    other = SimpleNamespace(content="<p>b</p>", meta={}, toc=get_toc([]), url="b/", title="B")
    hook.expect(expected, (("never", (), "used"),))
    hook(other)
    assert [e["text"] for e in index.entries] == ["<p>b</p>"]
    hook(expected)  # the expectation was for one call only
    assert [e["text"] for e in index.entries] == ["<p>b</p>", "<p>a</p>"]


def test_content_pickles_its_sections() -> None:
    content = Content("<p>é</p>", None, (), parse_sections("<h2 id=\"x\">Tïtle</h2><p>é</p>"))
    again = pickle.loads(pickle.dumps(content))
    assert again == content and again.search == content.search
    assert pickle.loads(pickle.dumps(Content("<p>a</p>", None, ()))).search is None
