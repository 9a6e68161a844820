"""What a term page is made of, as a digest, without rendering it: the keys of the build's
caches (serve's incremental rebuilds, the page cache across builds, the books' term cache).

A term page shows its own file and, of other terms, only their names, summaries, sections
and URLs (links, tooltips, "Linked from"), the headings its anchors point at, its snippet
records and what its drawings show. :class:`PageInputs` hashes exactly that, so an edit to
one term changes the digest of the pages that show it and of no other. The site adapter
(adapters/) and the book exports (emit/book.py) read the same digests.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from glossary_tool.draw.graph import TermGraph
from glossary_tool.draw.model import Diagram
from glossary_tool.emit.links import term_src
from glossary_tool.emit.widgets import WIDGETS, widget_html
from glossary_tool.model import Glossary, Term
from glossary_tool.pipeline import Loaded
from glossary_tool.verify.records import record_dir

if TYPE_CHECKING:
    from glossary_tool.emit.written_links import Targets

T = TypeVar("T")


class Memo(Protocol):
    """A store of values from the last build, each kept under a key and a stamp of its
    inputs (serve's ``Incremental``)."""

    def memoized(self, name: str, key: str, compute: Callable[[], T]) -> T: ...


def digest(*parts: str | bytes) -> str:
    """SHA-256 of the parts, each :func:`framed` (so no two lists of parts collide).

    Hashed in one call on the joined bytes: serve computes thousands of these per rebuild,
    and one ``update`` per part cost more than the hashing itself.
    """
    return hashlib.sha256(b"".join([framed(part) for part in parts])).hexdigest()


def framed(part: str | bytes) -> bytes:
    """``part`` prefixed with its length (a str as UTF-8): a run of these joined is one
    unambiguous part of a digest. The facts of other terms a page shows (about 30 a page,
    each shown on a dozen pages) are framed once per build and joined."""
    data = part.encode("utf-8") if isinstance(part, str) else part
    return len(data).to_bytes(8, "little") + data


# --- what each drawing reads: memo keys for serve's redraws ---------------------------------


def _term_facts(glossary: Glossary, graph: TermGraph | None, slugs: list[str]) -> str:
    """What a drawing may show of each term: names, summary, section, place in the reading
    order and how many terms link to it (the neighbourhood keeps the most-linked)."""
    order = glossary.position
    degree = (lambda s: graph.in_degree(s) if s in graph else -1) if graph is not None else (lambda s: -1)
    return repr([(s, t.title, t.display_title, t.abbreviation, t.summary, t.section, order.get(s), degree(s)) for s in slugs if (t := glossary.terms.get(s)) is not None])


def map_key(glossary: Glossary, graph: TermGraph | None, url: str) -> str:
    """Everything the map drawing reads: its layout's inputs, and every term's names and summary (tooltips)."""
    return digest(url, layout_key(glossary, graph), _term_facts(glossary, graph, list(glossary.terms)))


def layout_key(glossary: Glossary, graph: TermGraph | None) -> str:
    """What the map's layout reads: the sections, the reading order, the titles (labels) and the edges."""
    edges = sorted(graph.edges) if graph is not None else []
    return digest(repr([(s.slug, s.title, s.terms) for s in glossary.sections]), repr([(t.slug, t.title, t.section) for t in glossary.ordered_terms()]), repr(edges))


def extras_key(term: Term, glossary: Glossary, graph: TermGraph | None, diagrams: Mapping[str, Diagram], url: str) -> str:
    """Everything a term's drawings read: its diagrams (and the terms they show) and its neighbours."""
    near = [term.slug]
    if graph is not None and term.slug in graph:
        near += sorted(graph.predecessors(term.slug)) + sorted(graph.successors(term.slug))
    shown = [repr(diagrams.get(name)) for name in term.diagrams]
    boxed = sorted({s for name in term.diagrams if name in diagrams for s, _ in diagrams[name].terms()})
    return digest(url, _term_facts(glossary, graph, near), *shown, _term_facts(glossary, graph, boxed), repr(sorted(s.slug for s in glossary.sections)))


# --- what a term page is made of: its fingerprint without rendering it ---------------------


class PageInputs:
    """Everything a term's page and Markdown copies read, per term, for one build.

    A term page shows its own file (body, names, summary, sources, equivalents), and of other
    terms only what ``_fact`` lists: the names, summary, section and URL of the terms it links
    to (link text and tooltips), that link to it ("Linked from") and that its equivalents name,
    and the headings of those it links to by ``#anchor``. Its snippets show their records;
    a widget shows what it computes (rendered here: a handful of terms); what the drawings read
    is ``extras_key``. The plugin adds the term's dates and its page URL.
    """

    def __init__(self, loaded: Loaded, term_url: Mapping[str, str], graph: TermGraph | None, incremental: Memo | None) -> None:
        self.loaded = loaded
        self.glossary = loaded.glossary
        self.term_url = term_url
        self.incremental = incremental
        self._facts: dict[str, bytes] = {}
        self._pages: dict[str, str] = {}
        self.graph = graph
        self.root = str(loaded.project.root)
        self._drawn: dict[str, bytes] = {}
        self._generated: str | None = None
        self._targets: Targets | None = None  # what written links reach: made for the first body with one
        config = loaded.project.site_config
        # every page's PTX and SASS opcodes link to the terms instructions.yml names: their URLs too
        opcode_terms = sorted(set(loaded.instructions.ptx.values()) | set(loaded.instructions.sass.values()))
        self.shared = digest(config.read_bytes() if config.is_file() else b"", repr(loaded.instructions), repr([(slug, term_url.get(slug)) for slug in opcode_terms]))
        self.sections = repr(sorted(s.slug for s in self.glossary.sections))

    def _fact(self, slug: str) -> bytes:
        """What a page shows of the term ``slug`` (names, summary, section, URL), framed."""
        fact = self._facts.get(slug)
        if fact is None:
            t = self.glossary.terms.get(slug)
            fact = self._facts[slug] = framed(repr((slug, t.title, t.display_title, t.abbreviation, t.summary, t.section, self.term_url.get(slug)) if t is not None else (slug,)))
        return fact

    def _records(self, term: Term) -> str:
        if not term.snippets:
            return ""
        folder = record_dir(self.loaded.project.records_dir, term)

        def compute() -> str:
            files = sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []
            return digest(*(part for p in files for part in (p.relative_to(folder).as_posix(), p.read_bytes())))

        if self.incremental is None:
            return compute()
        # serve: read again only when a file's size or time changed, or files came or went
        return self.incremental.memoized(f"records\0{term.slug}", tree_stamp(folder), compute)

    def page(self, term: Term) -> str:
        """The digest of what ``term``'s page and copies are made of (cached for this build)."""
        known = self._pages.get(term.slug)
        if known is not None:
            return known
        g = self.glossary
        links = g.links.get(term.slug, ())
        equivalents = g.equivalent_links.get(term.slug, {})
        backlinks = g.backlinks.get(term.slug, ())
        named = sorted({link.target for link in links} | {link.target for link in equivalents.values()} | set(backlinks))
        anchored = sorted({link.target for link in links if link.xref.anchor} | self._written_targets(term))
        try:
            with open(os.path.join(self.root, term.path), "rb") as f:
                source = f.read()
        except OSError:
            source = repr(term).encode("utf-8")
        widget = widget_html(term, g, self.loaded.project.records_dir) if term.slug in WIDGETS else ""
        value = self._pages[term.slug] = digest(
            self.shared,
            term.path,
            source,
            repr([(link.target, link.xref.anchor) for link in links]),
            repr(sorted((key, link.target, link.xref.anchor) for key, link in equivalents.items())),
            repr(backlinks),
            b"".join([self._fact(slug) for slug in named]),
            *(repr(g.terms[slug].headings) for slug in anchored if slug in g.terms),
            self._records(term),
            widget,
        )
        return value

    def _written_targets(self, term: Term) -> set[str]:
        """The terms a link written in ``term``'s body names a heading of (emit/written_links.py):
        the book links the heading only where the term has it, so their headings are inputs."""
        from glossary_tool.emit.written_links import Targets, may_link, written_links

        if not may_link(term.body):
            return set()
        if self._targets is None:
            self._targets = Targets.of(self.glossary, self.loaded.project.glossary_dir)
        found = set()
        for link in written_links(term.body):
            reached = self._targets.reach(link.url, term_src(term))
            if reached is not None and reached.term is not None and reached.fragment:
                found.add(reached.term.slug)
        return found

    def markdown(self, term: Term, variant: str, compute: Callable[[], str]) -> str:
        """A term's Markdown (one of render_llms's variants), from the last build when its inputs are the same."""
        return self.incremental.memoized(f"md\0{term.slug}\0{variant.split(chr(0), 2)[1]}", digest(self.page(term), variant), compute)

    def site_markdown(self, name: str, compute: Callable[[], str]) -> str:
        """A whole-glossary part of llms.txt (A-Z, Rosetta, the comparison, the common toolchain),
        from the last build when what the generated pages read (:meth:`generated`) is the same."""
        if self._generated is None:
            return compute()
        return self.incremental.memoized(f"site-md\0{name}", self._generated, compute)

    def opening(self, term: Term, compute: Callable[[], str]) -> str:
        """A term's preview-card opening (emit/previews.py), from the last build when its inputs are the same."""
        return self.incremental.memoized(f"opening\0{term.slug}", self.page(term), compute)

    def _drawn_fact(self, slug: str) -> bytes:
        """What a drawing shows of a term (``_term_facts``), per term, framed."""
        fact = self._drawn.get(slug)
        if fact is None:
            fact = self._drawn[slug] = framed(_term_facts(self.glossary, self.graph, [slug]))
        return fact

    def extras(self, term: Term, url: str) -> str:
        """What the term's drawings read: ``extras_key``'s inputs, with each term's facts computed once per build."""
        graph, diagrams = self.graph, self.loaded.diagrams
        near = [term.slug]
        if graph is not None and term.slug in graph:
            near += sorted(graph.predecessors(term.slug)) + sorted(graph.successors(term.slug))
        shown = [repr(diagrams.get(name)) for name in term.diagrams]
        boxed = sorted({s for name in term.diagrams if name in diagrams for s, _ in diagrams[name].terms()})
        # each list one part, its items framed in it
        return digest(url, b"".join([self._drawn_fact(s) for s in near]), b"".join([framed(text) for text in shown]), b"".join([self._drawn_fact(s) for s in boxed]), self.sections)

    def published(self, name: str, compute: Callable[[], bytes]) -> bytes:
        """feed.xml and terms.json (the site adapter publishes them) from the last build when what they
        read is the same: what the generated pages read, each term's links in order and its dates."""
        if self._generated is None:
            return compute()
        g = self.glossary
        links = repr([(slug, [link.target for link in g.links.get(slug, ())]) for slug in g.terms])
        return self.incremental.memoized(f"published\0{name}", digest(self._generated, links), compute)

    def generated(self, publisher: object, downloads: list[tuple[str, str]]) -> str:
        """What the home, section and generated pages are drawn from: every term's names,
        summary, section, sources, equivalents, diagrams and snippets (not its body), the
        sections and home page, the links between terms (the map), the records, diagrams and
        history (What's new). A body edit leaves it alone, so those pages are not rendered again."""
        g = self.glossary
        terms = [
            repr((t.slug, t.path, t.title, t.abbreviation, t.aliases, t.summary, t.section, t.sources, t.equivalents, t.diagrams, [(n.name, n.lang, n.options, n.source, n.expected) for n in t.snippets], self.term_url.get(t.slug)))
            for t in g.terms.values()
        ]
        equivalents = repr(sorted((slug, key, link.target) for slug, links in g.equivalent_links.items() for key, link in links.items()))
        self._generated = digest(
            self.shared,
            *terms,
            equivalents,
            repr(g.sections),
            repr(g.home),
            map_key(g, self.graph, ""),
            tree_stamp(self.loaded.project.records_dir),
            repr(sorted(self.loaded.diagrams.items())),
            repr(getattr(publisher, "history", None)),
            repr(downloads),
            getattr(publisher, "site_url", ""),
        )
        return self._generated


def tree_stamp(folder: Path) -> str:
    """Every file under ``folder`` by path, size and modification time (records: rewritten whole)."""
    stats = []
    for base, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            with contextlib.suppress(OSError):
                st = os.stat(path)
                stats.append(f"{path}\0{st.st_size}\0{st.st_mtime_ns}")
    return digest(*stats)


def record_inputs(loaded: Loaded) -> str:
    """What the record checks read (pipeline.record_diagnostics): the records, the site
    config's reference GPUs, and the terms with snippets (their prose quotes the outputs)."""
    config = loaded.project.site_config
    return digest(
        tree_stamp(loaded.project.records_dir),
        config.read_bytes() if config.is_file() else b"",
        *(repr(t) for t in loaded.glossary.ordered_terms() if t.snippets),
    )
