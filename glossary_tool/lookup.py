"""Look-ups over the loaded glossary: a term by any name, ranked search, the link graph.

Pure functions of a :class:`~glossary_tool.model.Glossary`; the MCP server (adapters/) and
anything else that answers questions about the glossary call them. Nothing here reads a
file: a name is looked up among the loaded terms, never joined into a path.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

import networkx as nx

from glossary_tool.emit.markdown import display_text
from glossary_tool.load.equivalents import plain_text
from glossary_tool.model import VENDORS, Glossary, Link, Term
from glossary_tool.text import normalize_name

#: How a name matched, best first; the score orders results across terms.
SCORES = {"slug": 100, "title": 100, "abbreviation": 100, "alias": 95, "vendor": 90, "vendor-part": 80, "name-prefix": 60, "name-word": 50}

_PARENS = re.compile(r"\([^)]*\)")
_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*")


@dataclass(frozen=True)
class Hit:
    """One search result: which term, how well, and why (e.g. "AMD name 'wavefront'")."""

    slug: str
    score: float
    why: str


@dataclass(frozen=True)
class Hop:
    """One step of a path: ``source`` links to ``target``; ``forward`` is False when the
    path walks the link backwards (``target`` links to ``source``)."""

    source: str
    target: str
    forward: bool
    context: str


def vendor_names(value: str) -> tuple[str, ...]:
    """The names inside an ``equivalents`` value.

    "wavefront (64 lanes on CDNA; wave32 or wave64 on RDNA)" names "wavefront";
    "work-item, wavefront, workgroup, grid" names four things; "Compute Unit (CU)" also
    names "CU" (a one-word parenthesis is an abbreviation, a longer one a remark).
    """
    names: list[str] = []
    for inner in re.findall(r"\(([^)]*)\)", value):
        if re.fullmatch(r"[A-Za-z0-9_-]+", inner.strip()):
            names.append(inner.strip())
    outer = _PARENS.sub("", value)
    parts = [p.strip() for p in re.split(r"[,;/]| or | and ", outer)]
    names = [p for p in parts if p] + names
    return tuple(dict.fromkeys(names))


def term_names(term: Term) -> list[tuple[str, str, str]]:
    """(name, kind, whose) for every name of a term: its own ("" whose) and other vendors'.

    A vendor name that is the whole value ("wavefront (64 lanes ...)") is kind "vendor"; one
    of a list ("work-item, wavefront, workgroup") is "vendor-part" and ranks lower, so
    "wavefront" finds Warp before Thread Hierarchy.
    """
    names = [(term.slug, "slug", ""), (term.title, "title", ""), (_PARENS.sub("", term.title).strip(), "title", "")]
    if term.abbreviation:
        names.append((term.abbreviation, "abbreviation", ""))
    names += [(alias, "alias", "") for alias in term.aliases]
    for vendor, written in term.equivalents:
        value = plain_text(written)  # "[[wavefront]] (64 lanes ...)" names "wavefront"
        whose = VENDORS.get(vendor, vendor).split()[0]
        single = not re.search(r"[,;/]| or | and ", _PARENS.sub("", value))
        for name in vendor_names(value):
            names.append((name, "vendor" if single else "vendor-part", whose))
    return names


@dataclass(frozen=True)
class _Index:
    #: normalized name -> [(slug, kind, name as written, whose)]
    names: dict[str, list[tuple[str, str, str, str]]]
    #: slug -> searchable text (title, names, summary, body), case-folded
    text: dict[str, str]


#: Indexes of the last few glossaries by identity (a Glossary holds dicts: it is not hashable).
_INDEXES: dict[int, tuple[Glossary, _Index, nx.DiGraph]] = {}


def _cached(glossary: Glossary) -> tuple[_Index, nx.DiGraph]:
    entry = _INDEXES.get(id(glossary))
    if entry is None or entry[0] is not glossary:
        if len(_INDEXES) >= 8:
            _INDEXES.pop(next(iter(_INDEXES)))
        entry = (glossary, _build_index(glossary), _build_graph(glossary))
        _INDEXES[id(glossary)] = entry
    return entry[1], entry[2]


def _index(glossary: Glossary) -> _Index:
    return _cached(glossary)[0]


def _graph(glossary: Glossary) -> nx.DiGraph:
    return _cached(glossary)[1]


def _build_index(glossary: Glossary) -> _Index:
    names: dict[str, list[tuple[str, str, str, str]]] = {}
    text: dict[str, str] = {}
    for term in glossary.ordered_terms():
        for name, kind, whose in term_names(term):
            key = normalize_name(name)
            held = names.setdefault(key, []) if key else []
            if key and not any(slug == term.slug for slug, *_ in held):
                held.append((term.slug, kind, name, whose))
        flat = plain_text(term.body)
        text[term.slug] = " ".join([term.title, term.abbreviation or "", *term.aliases, term.summary, flat]).casefold()
    return _Index(names, text)


def resolve(glossary: Glossary, name: str) -> Term | None:
    """The term a name means: slug, title, abbreviation or alias (any case), else another
    vendor's name when exactly one term has it as its whole equivalent; None otherwise."""
    key = normalize_name(name)
    if key in glossary.terms:
        return glossary.terms[key]
    owners = _index(glossary).names.get(key, [])
    own = [slug for slug, kind, *_ in owners if not kind.startswith("vendor")]
    if own:
        return glossary.terms[own[0]]
    whole = [slug for slug, kind, *_ in owners if kind == "vendor"]
    if len(whole) == 1:
        return glossary.terms[whole[0]]
    return None


def suggest(glossary: Glossary, name: str, limit: int = 5) -> list[str]:
    """Slugs of the terms whose names are closest to ``name`` (difflib), best first."""
    key = normalize_name(name)
    index = _index(glossary).names
    out: list[str] = []
    for match in difflib.get_close_matches(key, list(index), n=limit * 4, cutoff=0.5):
        for slug, *_ in index[match]:
            if slug not in out:
                out.append(slug)
    if len(out) < limit:  # a word of a longer name ("scheduler" -> Warp Scheduler)
        for hit in search(glossary, name, limit=limit):
            if hit.slug not in out:
                out.append(hit.slug)
    return out[:limit]


def search(glossary: Glossary, query: str, limit: int = 10) -> list[Hit]:
    """Terms for a query, ranked: exact names (title, abbreviation, alias, slug), then other
    vendors' names, then names starting with or containing the query, then full text.

    Full-text score: every query word must occur; terms using the words more often, and in
    their title or summary, rank higher. Ties keep reading order.
    """
    key = normalize_name(query)
    if not key:
        return []
    index = _index(glossary)
    best: dict[str, Hit] = {}

    def offer(slug: str, score: float, why: str) -> None:
        if slug not in best or best[slug].score < score:
            best[slug] = Hit(slug, score, why)

    for slug, kind, written, whose in index.names.get(key, []):
        offer(slug, SCORES[kind], f"{whose} name '{written}'" if whose else f"{kind} '{written}'")
    for name, owners in index.names.items():
        if name == key or len(key) < 2:
            continue
        if name.startswith(key) or key in name.split():
            kind = "name-prefix" if name.startswith(key) else "name-word"
            for slug, _, written, whose in owners:
                score = SCORES[kind] - (5 if whose else 0)
                offer(slug, score, f"{whose} name '{written}'" if whose else f"name '{written}'")
    words = _WORD.findall(key)
    if words:
        for slug, text in index.text.items():
            counts = [text.count(w) for w in words]
            if all(counts):
                term = glossary.terms[slug]
                head = f"{term.title} {term.summary}".casefold()
                score = min(40.0, 10 + sum(min(c, 10) for c in counts) + 5 * sum(w in head for w in words))
                offer(slug, score, "text")
    position = glossary.position
    ranked = sorted(best.values(), key=lambda h: (-h.score, position.get(h.slug, 0)))
    return ranked[:limit]


def links_to(glossary: Glossary, slug: str) -> list[str]:
    """Terms ``slug`` links to, each once, in body order."""
    return list(dict.fromkeys(link.target for link in glossary.links.get(slug, ()) if link.target != slug))


def linked_from(glossary: Glossary, slug: str) -> list[str]:
    return [s for s in glossary.backlinks.get(slug, ()) if s != slug]


def _build_graph(glossary: Glossary) -> nx.DiGraph:
    graph = nx.DiGraph()
    graph.add_nodes_from(glossary.terms)
    for source, links in glossary.links.items():
        for link in links:
            if link.target != source and source in glossary.terms:
                graph.add_edge(source, link.target)
    return graph


def path(glossary: Glossary, start: str, end: str) -> list[Hop] | None:
    """The shortest chain of cross-references between two terms, one hop per link.

    Links are followed forwards where that is as short as any route; otherwise a hop may
    walk a link backwards ("B links to A"), because "how does A relate to B" rarely cares
    which of the two pages wrote the link. None when the two are not connected at all.
    """
    graph = _graph(glossary)
    if start == end:
        return []
    undirected = graph.to_undirected(as_view=True)
    try:
        shortest = nx.shortest_path(undirected, start, end)
    except nx.NetworkXNoPath:
        return None
    try:
        forward = nx.shortest_path(graph, start, end)
        if len(forward) <= len(shortest):
            shortest = forward
    except nx.NetworkXNoPath:
        pass
    hops = []
    for a, b in zip(shortest, shortest[1:], strict=False):
        if graph.has_edge(a, b):
            hops.append(Hop(a, b, True, link_context(glossary, a, b)))
        else:
            hops.append(Hop(a, b, False, link_context(glossary, b, a)))
    return hops


def link_context(glossary: Glossary, source: str, target: str, limit: int = 300) -> str:
    """The sentence of ``source``'s body holding its first link to ``target``, as plain text."""
    link = next((lk for lk in glossary.links.get(source, ()) if lk.target == target), None)
    if link is None:
        return ""
    sentence = _sentence(glossary, glossary.terms[source], link)
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rsplit(" ", 1)[0] + " …"


_BLOCK_START = re.compile(r"^\s*(?:#|```|~~~|\||[-*+] |\d+[.)] |>)")


def _sentence(glossary: Glossary, term: Term, link: Link) -> str:
    """The sentence around one cross-reference, its references shown as a reader sees them.

    The paragraph is the run of non-blank lines around the link, cut at headings, fences,
    tables, list items and quotes; sentences end at '.', '!' or '?' before a capital.
    """
    lines = term.body.split("\n")
    index = link.xref.line - term.body_offset - 1
    start = index
    while start > 0 and lines[start - 1].strip() and not _BLOCK_START.match(lines[start]):
        start -= 1
    end = index
    while end + 1 < len(lines) and lines[end + 1].strip() and not _BLOCK_START.match(lines[end + 1]):
        end += 1
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    lo, hi = starts[start], starts[end + 1] - 1

    def at(line: int, col: int) -> int:
        return starts[min(max(line - term.body_offset - 1, 0), len(lines))] + col - 1

    # replace each reference inside the paragraph by what a reader sees, from the right,
    # by source span (a reference may wrap onto the next line where the loader records its end)
    edits = []
    for xref in term.xrefs:
        first = at(xref.line, xref.col)
        last_line = getattr(xref, "end_line", 0)
        stop = at(last_line, getattr(xref, "end_col", 0)) if last_line else first + len(xref.raw)
        if lo <= first and stop <= hi:
            resolved = glossary.link_for(term.slug, xref)
            edits.append((first, stop, display_text(xref, glossary.terms[resolved.target]) if resolved else xref.shown, xref is link.xref))
    paragraph = term.body[lo:hi]
    offset = at(link.xref.line, link.xref.col) - lo
    for first, stop, shown, mine in sorted(edits, reverse=True):
        paragraph = paragraph[: first - lo] + shown + paragraph[stop - lo :]
        if first - lo < offset and not mine:
            offset += len(shown) - (stop - first)
    marker = re.match(r"^\s*(?:[-*+]|\d+[.)])\s+", paragraph)
    if marker:
        paragraph, offset = paragraph[marker.end() :], offset - marker.end()
    bounds = [0] + [m.end() for m in re.finditer(r"(?<=[.!?])\s+(?=[A-Z`*(\[])", paragraph)] + [len(paragraph) + 1]
    for begin, finish in zip(bounds, bounds[1:], strict=False):
        if begin <= offset < finish:
            return " ".join(paragraph[begin:finish].split())
    return " ".join(paragraph.split())


def in_reading_order(glossary: Glossary, slugs: Iterable[str]) -> list[str]:
    position = glossary.position
    return sorted(set(slugs), key=lambda s: position.get(s, 0))
