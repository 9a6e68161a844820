"""Resolve every cross-reference, build the networkx term graph, and run the graph checks.

Resolution happens only after all terms are loaded (as Sphinx's glossary and the site
generator's autorefs plugin do), so a term may link to one defined later in the reading order.
Every step is linear in terms + links: a 5,000-term glossary checks in seconds.

The checks need only who links to whom, which plain dictionaries give; the networkx graph
(for ``glossary stats`` and what draws the graph) is built from the linked glossary by
:func:`term_link_graph` when asked for, so `glossary check` neither imports networkx nor
builds 80,000 edges at 5,000 terms.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

from glossary_tool.diagnostics import Diagnostic, error, warning
from glossary_tool.link.equivalents import link_equivalents
from glossary_tool.link.names import NameIndex, build_index
from glossary_tool.load import LoadResult, cache
from glossary_tool.load.cache import Cache
from glossary_tool.model import Glossary, Link, Section, Term, XRef

if TYPE_CHECKING:
    import networkx as nx

MIN_OUTBOUND = 2


def link(loaded: LoadResult) -> tuple[Glossary, nx.DiGraph, list[Diagnostic]]:
    """:func:`link_glossary` and the term graph of its result."""
    glossary, out = link_glossary(loaded)
    return glossary, term_link_graph(glossary), out


def link_glossary(loaded: LoadResult, store: Cache | None = None) -> tuple[Glossary, list[Diagnostic]]:
    """The linked glossary of ``loaded`` and the diagnostics of linking it.

    ``store`` (load/cache.py) keeps what linking computed (:class:`LinkFacts`) under a key of
    everything it reads (:func:`link_key`): a check with no term changed resolves nothing again.
    """
    by_slug: dict[str, Term] = {}
    for term in loaded.terms:
        by_slug.setdefault(term.slug, term)
    pages = loaded.pages
    name = link_key(loaded) if store is not None and loaded.digest is not None else None
    if store is not None and name is not None:
        facts = store.get_or_make(name, lambda: _link_facts(loaded, by_slug, pages))
    else:
        facts = _link_facts(loaded, by_slug, pages)
    owners = {**by_slug, **{page.slug: page for page in pages}}
    equivalent_links = {
        slug: {vendor: Link(slug, target, by_slug[slug].equivalent_xrefs[i][1]) for vendor, (i, target) in found.items()}
        for slug, found in facts.equivalents.items()
    }
    sections = tuple(Section(s.slug, s.title, s.summary, s.body, s.path, tuple(t for t in s.terms if t in by_slug), s.page) for s in loaded.sections)
    glossary = Glossary(
        root=str(loaded.root),
        sections=sections,
        terms=MappingProxyType(by_slug),
        links=LinkTable(owners, facts.targets),
        backlinks=MappingProxyType(facts.backlinks),
        home=loaded.home,
        equivalent_links=MappingProxyType(equivalent_links),
    )
    return glossary, list(facts.diagnostics)


@dataclass(frozen=True)
class LinkFacts:
    """What linking computes from the loaded terms, in a form that pickles small (slugs and
    positions, no :class:`Link` objects, which :class:`LinkTable` makes from these on use)."""

    #: slug (term or section page) -> for each of its xrefs, the slug it links, or None.
    targets: dict[str, tuple[str | None, ...]]
    #: term slug -> vendor -> (index in ``equivalent_xrefs``, target slug).
    equivalents: dict[str, dict[str, tuple[int, str]]]
    backlinks: dict[str, tuple[str, ...]]
    diagnostics: tuple[Diagnostic, ...]


def link_key(loaded: LoadResult) -> str:
    """The cache key of linking ``loaded``: the terms (their parse keys, ``loaded.digest``),
    the files that did not load, the reading order, and each section page's path and xrefs
    (pages are parsed on every run, not cached by key)."""
    page_facts = repr([(page.slug, page.path, page.xrefs) for page in loaded.pages])
    order = loaded.order
    return cache.key(
        "link",
        loaded.digest or "",
        loaded.root.name,
        repr(sorted(loaded.unloaded)),
        repr((order.sections, order.terms, order.lines)),
        repr([s.slug for s in loaded.sections]),
        page_facts,
    )


def _link_facts(loaded: LoadResult, by_slug: dict[str, Term], pages: list[Term]) -> LinkFacts:
    out: list[Diagnostic] = []
    for term in loaded.terms:
        other = by_slug[term.slug]
        if other is not term:
            out.append(error(term.path, 1, 1, "duplicate-slug", f"slug '{term.slug}' is already used by {other.path}; slugs are unique across sections"))
    terms = list(by_slug.values())
    index, problems = build_index(terms)
    out += problems
    out += _check_toc(loaded, by_slug)

    position = {slug: i for i, slug in enumerate(s for sec in loaded.sections for s in sec.terms)}
    # who links to whom (term to term: section pages are not in the graph)
    sources_of: dict[str, dict[str, None]] = defaultdict(dict)
    targets_of: dict[str, set[str]] = defaultdict(set)

    targets: dict[str, tuple[str | None, ...]] = {}
    # The one slug each name written so far resolves to, None where it resolves to none or
    # several (then resolve() reports it): most of 80,000 references at 5,000 terms take
    # this lookup and nothing else.
    single: dict[str, str | None] = {}
    for term in [*terms, *pages]:
        is_page = term.slug.startswith("_index:")
        found: list[str | None] = []
        slug = term.slug
        for xref in term.xrefs:
            name = xref.target
            target_slug = single.get(name, "")
            if target_slug == "":
                resolved = index.resolve(name)
                target_slug = single[name] = resolved[0] if len(resolved) == 1 else None
            if target_slug is None or target_slug == slug or xref.anchor is not None:
                target = resolve(term, xref, index, by_slug, out)  # reports what is wrong, or checks the anchor
                if target is None:
                    found.append(None)
                    continue
                target_slug = target.slug
            found.append(target_slug)
        targets[slug] = tuple(found)
        if not is_page:
            linked = {target for target in found if target is not None}
            targets_of[slug] = linked
            for target in linked:
                sources_of[target][slug] = None

    equivalents: dict[str, dict[str, tuple[int, str]]] = {}
    for term in terms:
        linked = link_equivalents(term, lambda t, x: resolve(t, x, index, by_slug, out), out)
        if linked:
            where = {id(xref): i for i, (_, xref) in enumerate(term.equivalent_xrefs)}
            equivalents[term.slug] = {vendor: (where[id(link.xref)], link.target) for vendor, link in linked.items()}

    backlinks: dict[str, tuple[str, ...]] = {}
    rank = {slug: (position.get(slug, len(position)), slug) for slug in by_slug}  # backlinks in reading order
    for term in terms:
        sources = list(sources_of.get(term.slug, ()))
        backlinks[term.slug] = tuple(sorted(sources, key=rank.__getitem__))
        outbound = targets_of.get(term.slug, set())
        if not sources:
            out.append(warning(term.path, 1, 1, "orphan", "no other term links here; link to it from a related term"))
        if len(outbound) < MIN_OUTBOUND:
            out.append(warning(term.path, 1, 1, "few-links", f"links to {len(outbound)} other term(s); weave at least {MIN_OUTBOUND} [[cross-references]] into the text"))
    return LinkFacts(targets, equivalents, backlinks, tuple(out))


class LinkTable(Mapping[str, tuple[Link, ...]]):
    """Outgoing resolved links per slug, in body order (``Glossary.links``), each slug's
    :class:`Link` tuple made the first time it is asked for: `glossary check` reads few of
    them, and making all (80,000 at 5,000 terms) cost a warm check a tenth of its time."""

    __slots__ = ("_built", "_owners", "_targets")

    def __init__(self, owners: Mapping[str, Term], targets: Mapping[str, tuple[str | None, ...]]) -> None:
        self._owners = owners
        self._targets = targets
        self._built: dict[str, tuple[Link, ...]] = {}

    def __getitem__(self, slug: str) -> tuple[Link, ...]:
        found = self._built.get(slug)
        if found is None:
            targets = self._targets[slug]  # KeyError for a slug that has no links entry
            xrefs = self._owners[slug].xrefs
            found = self._built[slug] = tuple(Link(slug, target, xref) for xref, target in zip(xrefs, targets, strict=True) if target is not None)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._targets)

    def __len__(self) -> int:
        return len(self._targets)

    def __contains__(self, slug: object) -> bool:
        return slug in self._targets

    def __repr__(self) -> str:
        return f"LinkTable({dict(self.items())!r})"


def term_link_graph(glossary: Glossary) -> nx.DiGraph:
    """The term graph of a linked glossary: a node per section and term, a ``contains`` edge
    from each section to its terms, and an ``xref`` edge (``weight``: how many references)
    from each term to each term it links to, in the order the references were written."""
    import networkx as nx

    graph = nx.DiGraph()
    for section in glossary.sections:
        graph.add_node(("section", section.slug), kind="section", title=section.title)
    for term in glossary.terms.values():
        graph.add_node(term.slug, kind="term", section=term.section, title=term.title)
        graph.add_edge(("section", term.section), term.slug, kind="contains")
    weights: dict[tuple[str, str], int] = {}
    for slug in glossary.terms:
        for found in glossary.links.get(slug, ()):
            edge = (slug, found.target)
            weights[edge] = weights.get(edge, 0) + 1
    graph.add_edges_from((source, target, {"kind": "xref", "weight": weight}) for (source, target), weight in weights.items())
    return graph


def resolve(term: Term, xref: XRef, index: NameIndex, by_slug: dict[str, Term], out: list[Diagnostic]) -> Term | None:
    """The term ``xref`` (written in ``term``) names, or None with a diagnostic at its position."""
    targets = index.resolve(xref.target)
    if not targets:
        hint = index.suggest(xref.target)
        tail = f"; did you mean {', '.join(repr(h) for h in hint)}?" if hint else ""
        out.append(error(term.path, xref.line, xref.col, "xref-unknown", f"unknown cross-reference '{xref.target}'{tail}"))
        return None
    if len(targets) > 1:
        out.append(error(term.path, xref.line, xref.col, "xref-ambiguous", f"cross-reference '{xref.target}' matches {len(targets)} terms: {', '.join(targets)}; use a slug"))
        return None
    target = by_slug[targets[0]]
    if target.slug == term.slug:
        out.append(error(term.path, xref.line, xref.col, "xref-self", f"'{xref.raw}' links the term to itself"))
        return None
    if xref.anchor is not None and xref.anchor not in {h.anchor for h in target.headings}:
        anchors = ", ".join(h.anchor for h in target.headings) or "none"
        out.append(error(term.path, xref.line, xref.col, "xref-anchor", f"term '{target.slug}' has no heading '#{xref.anchor}' (its anchors: {anchors})"))
        return None
    return target


def _check_toc(loaded: LoadResult, by_slug: dict[str, Term]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    toc_path = f"{loaded.root.name}/toc.yml"
    seen: dict[str, str] = {}
    counts: dict[str, int] = defaultdict(int)
    for section in loaded.order.sections:
        for position, slug in enumerate(loaded.order.terms.get(section, ())):
            line = loaded.order.lines.get((section, position), 0)
            counts[slug] += 1
            if slug in seen:
                out.append(error(toc_path, line, 1, "toc-duplicate", f"term '{slug}' appears more than once in the reading order"))
                continue
            seen[slug] = section
            term = by_slug.get(slug)
            if term is None:
                if (section, slug) not in loaded.unloaded:  # a file that failed to load has its own error
                    out.append(error(toc_path, line, 1, "toc-unknown", f"reading order lists '{slug}', but there is no glossary/{section}/{slug}.md"))
            elif term.section != section:
                out.append(error(toc_path, line, 1, "toc-section", f"'{slug}' is listed under '{section}' but its file is in '{term.section}'"))
    if loaded.order.sections:
        for slug, term in by_slug.items():
            if slug not in seen:
                out.append(error(term.path, 1, 1, "toc-missing", f"term '{slug}' is not in the reading order; add it under '{term.section}' in glossary/toc.yml"))
    return out
