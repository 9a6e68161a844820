"""Incremental rebuilds for `glossary serve`: rebuild only the pages an edit changed.

MkDocs' ``dirty`` build skips every page whose source file is older than its output. That
is wrong for a glossary: editing one term changes the tooltips on every page linking to
it, its backlinks' pages and their neighbourhood drawings, none of whose files changed.
And a skipped page is left half-made (no Markdown, so no title; no search entries).

So the plugin decides instead. Before pages are read it computes every page's Markdown
(cheap next to MkDocs rendering it), fingerprints it with the page's source, and marks a
page modified exactly when its fingerprint changed; a change to the navigation (a title,
the reading order, mkdocs.yml) marks them all. Skipped pages get back the state the last
build gave them (Markdown, meta, HTML, table of contents), so navigation, previous/next
links and the sitemap come out as in a full build. The search index is merged per page
and the output of pages that no longer exist is removed. ``tests/test_serve.py`` checks
that an incremental rebuild writes the very bytes of a clean build of the edited sources.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import networkx as nx
from mkdocs.structure.pages import Page

from glossary_tool.atomic import write_text
from glossary_tool.draw.model import Diagram
from glossary_tool.model import Glossary, Term

SEARCH_INDEX = "search/search_index.json"
T = TypeVar("T")


def digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()


@dataclass(frozen=True)
class PageState:
    """What MkDocs made of one page in the last build, to restore when it is skipped."""

    fingerprint: str
    markdown: str
    meta: dict[str, Any]
    content: str
    toc: Any
    title_from_render: str | None
    dest: str


class Incremental:
    """State kept across the rebuilds of one `glossary serve` (one site directory)."""

    def __init__(self, site_dir: str) -> None:
        self.site_dir = site_dir
        self.signature: str | None = None
        self.pages: dict[str, PageState] = {}
        self.search: dict[str, list[dict[str, Any]]] = {}
        #: src -> fingerprint for this build, and the srcs being rebuilt
        self.planned: dict[str, str] = {}
        self.rebuilt: set[str] = set()
        self.memo: dict[str, tuple[str, Any]] = {}
        #: files on_post_build wrote outside MkDocs (llms.txt, Markdown copies), relative to the site
        self.written: set[str] = set()

    def replace_written(self, site_dir: Path, written: set[str]) -> None:
        """Remove what the last build wrote that this one no longer writes (a deleted term's Markdown copy)."""
        for rel in sorted(self.written - written):
            with contextlib.suppress(OSError):
                (site_dir / rel).unlink()
        self.written = set(written)

    def plan(self, signature: str, fingerprints: dict[str, str]) -> set[str]:
        """The pages to rebuild: all when the navigation changed, else those whose fingerprint did."""
        full = signature != self.signature
        self.signature = signature
        self.planned = fingerprints
        self.rebuilt = {
            src for src, fp in fingerprints.items() if full or src not in self.pages or self.pages[src].fingerprint != fp or not os.path.isfile(self.pages[src].dest)
        }
        return self.rebuilt

    def skip(self, page: Page) -> None:
        """Mark an unchanged page as not modified and give it back its last build's state."""
        state = self.pages[page.file.src_uri]
        page.file.is_modified = lambda: False  # type: ignore[method-assign]
        page.markdown, page.meta, page.content, page.toc = state.markdown, dict(state.meta), state.content, state.toc
        page._title_from_render = state.title_from_render

    def rebuild(self, page: Page) -> None:
        page.file.is_modified = lambda: True  # type: ignore[method-assign]

    def capture(self, page: Page) -> None:
        """After a page rendered: keep what a later skip restores."""
        src = page.file.src_uri
        if src in self.planned:
            self.pages[src] = PageState(
                self.planned[src], page.markdown or "", dict(page.meta), page.content or "", page.toc, page._title_from_render, page.file.abs_dest_path
            )

    def finish(self, site_dir: Path, urls: list[tuple[str, str]]) -> None:
        """Merge the search index page by page and remove the output of deleted pages.

        ``urls`` is (src, url) of every page of this build in build order: a full build lists
        search entries in that order, and so does the merged index.
        """
        live = {src for src, _ in urls}
        for src in [s for s in self.pages if s not in live]:
            dest = Path(self.pages.pop(src).dest)
            if dest.is_file():
                dest.unlink()
                with contextlib.suppress(OSError):  # its directory, once empty
                    dest.parent.rmdir()
        index_path = site_dir / SEARCH_INDEX
        if not index_path.is_file():
            return
        data = json.loads(index_path.read_text(encoding="utf-8"))
        fresh: dict[str, list[dict[str, Any]]] = {}
        for entry in data.get("docs", []):
            fresh.setdefault(str(entry.get("location", "")).split("#", 1)[0], []).append(entry)
        docs: list[dict[str, Any]] = []
        search: dict[str, list[dict[str, Any]]] = {}
        for src, url in urls:
            entries = fresh.get(url, []) if src in self.rebuilt else self.search.get(src, [])
            search[src] = entries
            docs.extend(entries)
        self.search = search
        data["docs"] = docs
        write_text(index_path, json.dumps(data, separators=(",", ":"), default=str), durable=False)

    def memoized(self, name: str, key: str, compute: Callable[[], T]) -> T:
        """``compute()`` unless ``name`` was computed for the same ``key`` before."""
        hit = self.memo.get(name)
        if hit is not None and hit[0] == key:
            return hit[1]
        value = compute()
        self.memo[name] = (key, value)
        return value


# --- what each drawing reads: memo keys for serve's redraws ---------------------------------


def _term_facts(glossary: Glossary, graph: nx.DiGraph | None, slugs: list[str]) -> str:
    """What a drawing may show of each term: names, summary, section, place in the reading
    order and how many terms link to it (the neighbourhood keeps the most-linked)."""
    order = glossary.position
    degree = (lambda s: graph.in_degree(s) if s in graph else -1) if graph is not None else (lambda s: -1)
    return repr([(s, t.title, t.display_title, t.abbreviation, t.summary, t.section, order.get(s), degree(s)) for s in slugs if (t := glossary.terms.get(s)) is not None])


def map_key(glossary: Glossary, graph: nx.DiGraph | None, url: str) -> str:
    """Everything the map drawing reads: its layout's inputs, and every term's names and summary (tooltips)."""
    return digest(url, layout_key(glossary, graph), _term_facts(glossary, graph, list(glossary.terms)))


def layout_key(glossary: Glossary, graph: nx.DiGraph | None) -> str:
    """What the map's layout reads: the sections, the reading order, the titles (labels) and the edges."""
    edges = sorted(graph.edges) if graph is not None else []
    return digest(repr([(s.slug, s.title, s.terms) for s in glossary.sections]), repr([(t.slug, t.title, t.section) for t in glossary.ordered_terms()]), repr(edges))


def extras_key(term: Term, glossary: Glossary, graph: nx.DiGraph | None, diagrams: Mapping[str, Diagram], url: str) -> str:
    """Everything a term's drawings read: its diagrams (and the terms they show) and its neighbours."""
    near = [term.slug]
    if graph is not None and term.slug in graph:
        near += sorted(graph.predecessors(term.slug)) + sorted(graph.successors(term.slug))
    shown = [repr(diagrams.get(name)) for name in term.diagrams]
    boxed = sorted({s for name in term.diagrams if name in diagrams for s, _ in diagrams[name].terms()})
    return digest(url, _term_facts(glossary, graph, near), *shown, _term_facts(glossary, graph, boxed), repr(sorted(s.slug for s in glossary.sections)))
