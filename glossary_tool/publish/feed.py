"""What's new: the most recently added and changed terms, as a page and as an Atom feed.

Each term appears once, at its last commit (git history, publish/history.py), newest first.
An entry's id names the term and that commit, so a later change is a new entry for feed
readers. Terms whose date is unknown or only a bound (no git, shallow clone) are left out:
a feed must not claim a change happened when it may not have.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from lxml import etree
from lxml.builder import ElementMaker

from glossary_tool.model import Glossary, Term
from glossary_tool.publish.history import History, source_date_epoch
from glossary_tool.publish.parts import AUTHOR, iso_date

FEED_XML = "feed.xml"
WHATS_NEW_SRC = "whats-new.md"
WHATS_NEW_TITLE = "What’s new"
#: Entries in the feed and on the page.
FEED_SIZE = 50
ATOM = "http://www.w3.org/2005/Atom"
SITEMAP = "http://www.sitemaps.org/schemas/sitemap/0.9"
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Change:
    term: Term
    date: dt.datetime
    #: "added" or "changed"
    kind: str
    commit: str


def recent_changes(glossary: Glossary, history: History, path_of: Callable[[Term], str], limit: int = FEED_SIZE) -> list[Change]:
    """Terms by their last commit, newest first (ties in reading order); exact dates only."""
    changes = []
    for term in glossary.ordered_terms():
        dates = history.dates(path_of(term))
        if dates.exact and dates.updated is not None and dates.commit is not None:
            changes.append(Change(term, dates.updated, "added" if dates.is_new else "changed", dates.commit))
    position = glossary.position
    changes.sort(key=lambda c: (-c.date.timestamp(), position.get(c.term.slug, 0)))
    return changes[:limit]


def _rfc3339(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def entry_id(change: Change, site_url: str) -> str:
    """A tag URI (RFC 4151) naming the term and the commit: stable across rebuilds and hosts' paths."""
    host = urlsplit(site_url).hostname or "gpu-glossary"
    return f"tag:{host},{iso_date(change.date)}:{change.term.section}/{change.term.slug}/{change.commit[:12]}"


def atom_feed(changes: Iterable[Change], *, site_url: str, site_name: str, url_of: Callable[[Term], str], page_url: str, feed_url: str) -> bytes:
    """The Atom 1.0 document (RFC 4287) for ``changes``; ``updated`` is the newest entry's date."""
    changes = list(changes)
    newest = changes[0].date if changes else (source_date_epoch() or EPOCH)
    E = ElementMaker(namespace=ATOM, nsmap={None: ATOM})
    feed = E.feed(
        E.id(site_url or feed_url),
        E.title(f"{site_name}: {WHATS_NEW_TITLE.lower()}"),
        E.subtitle("Terms added and changed, newest first."),
        E.updated(_rfc3339(newest)),
        E.link(rel="self", type="application/atom+xml", href=feed_url),
        E.link(rel="alternate", type="text/html", href=page_url),
        E.author(E.name(AUTHOR)),
        E.generator("gpu-glossary"),
    )
    for change in changes:
        feed.append(
            E.entry(
                E.id(entry_id(change, site_url)),
                E.title(change.term.display_title),
                E.link(rel="alternate", type="text/html", href=url_of(change.term)),
                E.updated(_rfc3339(change.date)),
                E.category(term=change.kind, label=change.kind.capitalize()),
                E.summary(change.term.summary, type="text"),
            )
        )
    return etree.tostring(feed, xml_declaration=True, encoding="utf-8", pretty_print=True)


def whats_new_html(changes: Iterable[Change], href: Callable[[Term], str], feed_href: str, fallback: str = "") -> str:
    """The page body: where the feed is, then a table of the changes."""
    rows = "".join(
        f'<tr><td><time datetime="{iso_date(c.date)}">{iso_date(c.date)}</time></td><td>{c.kind}</td>'
        f'<td><a href="{html.escape(href(c.term))}">{html.escape(c.term.display_title)}</a></td><td>{html.escape(c.term.summary)}</td></tr>'
        for c in changes
    )
    lead = f'<p>The terms added or changed most recently, newest first, from the glossary’s git history. Follow them in a feed reader: <a href="{html.escape(feed_href)}" type="application/atom+xml">Atom feed</a>.</p>'
    if not rows:
        why = f" ({html.escape(fallback)})" if fallback else ""
        return f'<div class="glossary-whats-new">{lead}<p>No dated changes in this build{why}.</p></div>'
    table = f"<table><thead><tr><th>Date</th><th>Change</th><th>Term</th><th>Summary</th></tr></thead><tbody>{rows}</tbody></table>"
    return f'<div class="glossary-whats-new">{lead}{table}</div>'


def whats_new_markdown(changes: Iterable[Change], href: Callable[[Term], str], feed_href: str, fallback: str = "") -> str:
    """The page as the site generator reads it: a title and one raw HTML block (no blank line inside)."""
    return f"# {WHATS_NEW_TITLE}\n\n{whats_new_html(changes, href, feed_href, fallback)}\n"


def sitemap_with(xml: bytes, urls: Iterable[str]) -> bytes:
    """``sitemap.xml`` with ``urls`` added (each once), for files that are not pages (the feed)."""
    root = etree.fromstring(xml)
    present = {loc.text for loc in root.iter(f"{{{SITEMAP}}}loc")}
    for url in urls:
        if url not in present:
            entry = etree.SubElement(root, f"{{{SITEMAP}}}url")
            etree.SubElement(entry, f"{{{SITEMAP}}}loc").text = url
            entry.tail = "\n"
            present.add(url)
    return etree.tostring(root, xml_declaration=True, encoding="utf-8")
