"""What a page's search indexer needs to read: its HTML without the parts excluded from search.

Material's search plugin feeds every page's HTML through an ``html.parser`` subclass and
skips elements marked ``data-search-exclude``, but it still has to parse them: inline SVG
drawings and highlighted PTX/SASS are most of a term page's markup, and that parsing was a
quarter of a build (BENCHMARKS.md). Cutting those elements out before the indexer runs,
and putting them back after, leaves the index exactly as it was (their text was skipped
anyway) and the page exactly as it was.

Only ``<div>`` elements are cut (what the tool generates with the attribute, and what the
sanitiser lets authors write); each is replaced by an HTML comment, which the indexer ignores.

Links lose their attributes for the indexer too: a term page holds hundreds of them, each
with a tooltip (the linked term's summary) and preview marks, and the indexer parses every
attribute only to look for two it acts on (``data-search-exclude``, and the ``headerlink``
class of heading permalinks, whose text it drops). Links carrying either are left whole;
every other ``<a ...>`` becomes ``<a>`` followed by a comment naming the original, so the
indexer reads the same text in the same elements and the page gets its links back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_EXCLUDED_DIV = re.compile(r"<div\b[^>]*\sdata-search-exclude(?:[\s=>/])[^>]*>", re.I)
_DIV_TAG = re.compile(r"<(/?)div\b[^>]*>", re.I)
_MARK = "<!--glossary-search-cut-{}-->"
_MARK_RE = re.compile(r"<!--glossary-search-cut-(\d+)-->")
#: An opening link tag with attributes (the ``(?=[\s/])`` keeps ``<abbr>`` and ``<area>`` out).
_LINK = re.compile(r"<a(?=[\s/])[^>]*>", re.I)
_LINK_MARK = "<a><!--glossary-search-link-{}-->"
_LINK_MARK_RE = re.compile(r"<a><!--glossary-search-link-(\d+)-->")


@dataclass(frozen=True)
class Cut:
    """A page's HTML with its search-excluded parts replaced by markers, and those parts."""

    html: str
    pieces: tuple[str, ...]
    links: tuple[str, ...] = ()

    def restore(self, html: str) -> str:
        """``html`` (this cut's text, possibly edited around the markers) with the parts back."""
        if self.links:
            html = _LINK_MARK_RE.sub(lambda m: self.links[int(m.group(1))], html)
        if not self.pieces:
            return html
        return _MARK_RE.sub(lambda m: self.pieces[int(m.group(1))], html)


def cut_excluded(html: str) -> Cut:
    """Cut every ``<div data-search-exclude>`` element (with its nested divs) out of ``html``,
    and the attributes off its links (see the module text).

    An element whose end cannot be found (unbalanced markup) is left in place: the indexer
    then reads it as it always did.
    """
    if _MARK_RE.search(html) or _LINK_MARK_RE.search(html):  # already cut (or written to look so): left as it is
        return Cut(html, ())
    cut = _cut_divs(html) if "data-search-exclude" in html else Cut(html, ())
    links: list[str] = []

    def slim(match: re.Match[str]) -> str:
        tag = match.group(0)
        if "data-search-exclude" in tag or "headerlink" in tag or "linenodiv" in tag:
            return tag
        links.append(tag)
        return _LINK_MARK.format(len(links) - 1)

    return Cut(_LINK.sub(slim, cut.html), cut.pieces, tuple(links))


def _cut_divs(html: str) -> Cut:
    out: list[str] = []
    pieces: list[str] = []
    pos = 0
    while True:
        start = _EXCLUDED_DIV.search(html, pos)
        if start is None:
            break
        depth, end = 0, None
        for tag in _DIV_TAG.finditer(html, start.start()):
            depth += -1 if tag.group(1) else 1
            if depth == 0:
                end = tag.end()
                break
        if end is None:
            break
        out.append(html[pos : start.start()])
        out.append(_MARK.format(len(pieces)))
        pieces.append(html[start.start() : end])
        pos = end
    out.append(html[pos:])
    return Cut("".join(out), tuple(pieces))
