"""Vendor equivalents that have a page of their own: ``equivalents: {amd: "[[wavefront]] (wave64)"}``.

A term's ``equivalents`` name the same idea on other platforms. When the glossary has a page
for that name, the value says so with one ``[[...]]`` reference, and every place that shows
the name (the term's Equivalents table, the Rosetta page, the book) links to that page;
a name without one stays plain text. The references are resolved like body cross-references,
so `glossary check` reports a dangling one at its line and column in the front matter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.load.equivalents import plain_text
from glossary_tool.model import Glossary, Link, Term, XRef

Resolver = Callable[[Term, XRef], "Term | None"]


def link_equivalents(term: Term, resolve: Resolver, out: list[Diagnostic]) -> dict[str, Link]:
    """vendor -> link for each ``equivalents`` value of ``term`` whose reference resolves.

    ``resolve`` is the linker's (it reports unknown, ambiguous and self references). A value
    names one page: a second reference in it is an error, since a cell links one place.
    """
    found: dict[str, Link] = {}
    seen: set[str] = set()
    for vendor, xref in term.equivalent_xrefs:
        if vendor in seen:
            out.append(error(term.path, xref.line, xref.col, "equivalent-multiple", f"equivalents.{vendor} already links a page; a value names at most one [[...]]"))
            continue
        seen.add(vendor)
        target = resolve(term, xref)
        if target is not None:
            found[vendor] = Link(term.slug, target.slug, xref)
    return found


def equivalent_target(glossary: Glossary, term: Term, vendor: str) -> tuple[Term, str | None] | None:
    """The page (and heading anchor) that ``term``'s ``vendor`` equivalent links, if any.

    Emitters call this for each Equivalents cell: a result becomes a link, None plain text.
    """
    found: Mapping[str, Link] = glossary.equivalent_links.get(term.slug, {})
    link = found.get(vendor)
    if link is None or link.target not in glossary.terms:
        return None
    return glossary.terms[link.target], link.xref.anchor


__all__ = ["equivalent_target", "link_equivalents", "plain_text"]
