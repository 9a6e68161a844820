"""A page's search entries parsed where its HTML is made, handed to Material's index.

Material's search plugin parses every page's HTML with an ``html.parser`` subclass when
the page is about to be written (``on_page_context``): in the build process, on the
critical path, after the term worker (and the page cache) have already made the page. At
1,000 terms that parse was a fifth of the build process's CPU (BENCHMARKS.md).

So a build runs Material's own parser where the page is made (in the term worker for its
share, and once per page across builds through the page cache) and keeps only what the
index reads of each section: its anchor, its title and its text. When Material indexes
the page, the index entries are made from those, by Material's own
``create_entry_for_section``, instead of from a second parse: the same entries, in the same
order. A page whose HTML is not the one parsed (another plugin changed it) is parsed by
Material as before.

This relies on how ``SearchIndex.add_entry_from_context`` reads a page (parse, then one
entry per section that is not excluded), read for the releases in ``READ_FOR``; under any
other release Material parses every page itself: slower, never different.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

#: Material releases (major.minor) whose search index code this module was read against.
READ_FOR = ("9.8",)

#: A page's search sections: (anchor or None, title parts (empty or one string), text).
Sections = tuple[tuple[str | None, tuple[str, ...], str], ...]


def supported() -> bool:
    """Whether the installed Material is one this module was read for."""
    try:
        import material
    except ImportError:  # pragma: no cover - the theme is a dependency
        return False
    return ".".join(str(getattr(material, "__version__", "")).split(".")[:2]) in READ_FOR


def parse_sections(html: str) -> Sections:
    """What Material's parser makes of ``html`` (the HTML its indexer would be given),
    reduced to what ``create_entry_for_section`` reads: excluded sections left out, title
    and text parts joined (an empty title list stays empty: the page title replaces it)."""
    from material.plugins.search.plugin import Parser

    parser = Parser()
    parser.feed(html)
    parser.close()
    return tuple((s.id, ("".join(s.title),) if s.title else (), "".join(s.text)) for s in parser.data if not s.is_excluded())


def encode(sections: Sections) -> tuple[tuple[bytes | None, tuple[bytes, ...], bytes], ...]:
    """``sections`` as bytes for pickling (a pickled non-ASCII str keeps a UTF-8 copy of itself)."""
    return tuple((None if a is None else a.encode("utf-8", "surrogatepass"), tuple(t.encode("utf-8", "surrogatepass") for t in title), text.encode("utf-8", "surrogatepass")) for a, title, text in sections)


def decode(data: tuple[tuple[bytes | None, tuple[bytes, ...], bytes], ...]) -> Sections:
    return tuple((None if a is None else a.decode("utf-8", "surrogatepass"), tuple(t.decode("utf-8", "surrogatepass") for t in title), text.decode("utf-8", "surrogatepass")) for a, title, text in data)


class Replay:
    """Material's ``SearchIndex.add_entry_from_context`` for one build: the page handed to
    :meth:`expect` gets its entries from its parsed sections, any other page is parsed by
    Material (``original``)."""

    def __init__(self, index: Any, original: Callable[[Page], None]) -> None:
        self.index = index
        self.original = original
        self.page: Page | None = None
        self.sections: Sections = ()

    def expect(self, page: Page, sections: Sections) -> None:
        self.page, self.sections = page, sections

    def __call__(self, page: Page) -> None:
        ready, self.page = self.page is page, None
        if not ready:
            self.original(page)
            return
        search = page.meta.get("search") or {}
        if search.get("exclude"):
            return
        from material.plugins.search.plugin import Element, Section

        for anchor, title, text in self.sections:
            section = Section(Element("hx"))
            section.id, section.title, section.text = anchor, list(title), [text]
            self.index.create_entry_for_section(section, page.toc, page.url, page)


def replay_for(config: MkDocsConfig) -> Replay | None:
    """The :class:`Replay` installed on this build's Material search index (installed on
    first use); None without Material's search plugin, with it disabled, or under a release
    not in ``READ_FOR``."""
    if not supported():
        return None
    from material.plugins.search.plugin import SearchPlugin

    plugin = next((p for p in config.plugins.values() if isinstance(p, SearchPlugin)), None)
    index = getattr(plugin, "search_index", None) if plugin is not None and plugin.config.enabled else None
    if index is None:
        return None
    current = index.__dict__.get("add_entry_from_context")
    if isinstance(current, Replay):
        return current
    replay = Replay(index, index.add_entry_from_context)
    index.add_entry_from_context = replay
    return replay
