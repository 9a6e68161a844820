"""Machine-readable terms: schema.org DefinedTerm JSON-LD per page, and the site's terms.json.

Search engines read the JSON-LD; terms.json lets other tools (editors, chat assistants,
other glossaries) use the terms without scraping HTML. tests/schemas/terms.schema.json is
the contract terms.json is tested against.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from glossary_tool.model import Glossary, Term
from glossary_tool.publish.history import FileDates
from glossary_tool.publish.parts import iso_date

TERMS_JSON = "terms.json"
TERMS_FORMAT = 1


def _names(term: Term) -> list[str]:
    return [name for name in (term.abbreviation, *term.aliases) if name]


def defined_term(term: Term, url: str, site_name: str, site_url: str, dates: FileDates) -> dict[str, Any]:
    """schema.org DefinedTerm for one term page."""
    data: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "DefinedTerm",
        "@id": url,
        "name": term.title,
    }
    if names := _names(term):
        data["alternateName"] = names
    data["description"] = term.summary
    data["url"] = url
    data["inDefinedTermSet"] = {"@type": "DefinedTermSet", "@id": site_url, "name": site_name, "url": site_url}
    if dates.exact and dates.updated is not None:
        data["dateModified"] = iso_date(dates.updated)
    return data


def jsonld_html(data: dict[str, Any]) -> str:
    """A <script type="application/ld+json">; every ``<`` escaped so no text can close it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/ld+json">{text}</script>'


def terms_document(glossary: Glossary, url_of: Callable[[Term], str], site_name: str, site_url: str, dates_of: Callable[[Term], FileDates]) -> dict[str, Any]:
    """Every term in reading order with its names, summary, equivalents, URL and outgoing links."""
    terms = []
    for term in glossary.ordered_terms():
        links: list[str] = []
        for link in glossary.links.get(term.slug, ()):
            if link.target not in links and link.target != term.slug:
                links.append(link.target)
        dates = dates_of(term)
        terms.append(
            {
                "slug": term.slug,
                "section": term.section,
                "title": term.title,
                "abbreviation": term.abbreviation,
                "aliases": list(term.aliases),
                "summary": term.summary,
                "equivalents": {vendor: name for vendor, name in term.equivalents if name},
                "url": url_of(term),
                "links": links,
                "updated": iso_date(dates.updated) if dates.exact and dates.updated is not None else None,
            }
        )
    return {"format": TERMS_FORMAT, "name": site_name, "url": site_url, "terms": terms}


def terms_json(document: dict[str, Any]) -> bytes:
    return (json.dumps(document, ensure_ascii=False, indent=1, sort_keys=False) + "\n").encode("utf-8")
