"""Announcing each page's Markdown copy: ``<head>`` links and the copy / view buttons.

llms.txt's convention serves a clean Markdown copy beside each HTML page (emit/llms.py
writes them). A page says so in its head, ``<link rel="alternate" type="text/markdown">``,
and points at llms.txt with ``rel="describedby"``; a term page also gets two buttons, "Copy
page as Markdown" (glossary/assets/copy-markdown.js fetches the same copy from the site and
puts it on the clipboard) and "View as Markdown" (a plain link, which works without script).

Pure functions of the glossary and page paths; the site adapter inserts the fragments.
"""

from __future__ import annotations

import html
import posixpath

from glossary_tool.emit.links import term_src
from glossary_tool.emit.llms import section_file
from glossary_tool.emit.pages import AZ_SRC, HOME_SRC, ROSETTA_SRC, section_src
from glossary_tool.model import Glossary

LLMS_TXT = "llms.txt"


def markdown_copy(glossary: Glossary, src: str) -> str | None:
    """Site path of the Markdown copy of the page built from ``src``; None where there is none.

    Term pages, the A-Z index and Rosetta have their own copy; a section page's copy is its
    section file, the home page's is llms.txt itself.
    """
    if src in (AZ_SRC, ROSETTA_SRC):
        return src
    if src == HOME_SRC:
        return LLMS_TXT
    for section in glossary.sections:
        if src == section_src(section):
            return section_file(section.slug)
    stem = posixpath.splitext(posixpath.basename(src))[0]
    term = glossary.terms.get(stem)
    if term is not None and term_src(term) == src:
        return term_src(term)
    return None


def relative_url(page_url: str, target: str) -> str:
    """``target`` (a site path) as seen from the page served at ``page_url`` ("a/b/" or "a/b.html")."""
    base = page_url if page_url.endswith("/") or not page_url else posixpath.dirname(page_url) + "/"
    return posixpath.relpath(target, base.rstrip("/") or ".")


def head_links(page_url: str, copy: str | None) -> str:
    """The ``<link>`` elements for ``<head>``: the page's Markdown copy, and llms.txt."""
    links = []
    if copy is not None:
        links.append(f'<link rel="alternate" type="text/markdown" title="Markdown" href="{html.escape(relative_url(page_url, copy))}">')
    links.append(f'<link rel="describedby" type="text/markdown" title="llms.txt" href="{html.escape(relative_url(page_url, LLMS_TXT))}">')
    return "\n".join(links)


def copy_buttons(page_url: str, copy: str) -> str:
    """The "Copy page as Markdown" button and "View as Markdown" link, one element.

    The button starts ``hidden``: copy-markdown.js reveals it, so a reader without script sees
    only the link, which works anyway. The status span is announced by screen readers.
    """
    href = html.escape(relative_url(page_url, copy))
    return (
        '<div class="gg-md-actions">'
        f'<button type="button" class="gg-md-copy" data-md-href="{href}" hidden>Copy page as Markdown</button>'
        f'<a class="gg-md-view" href="{href}" type="text/markdown">View as Markdown</a>'
        '<span class="gg-md-status" role="status" aria-live="polite"></span>'
        "</div>"
    )


def with_head_links(page_html: str, page_url: str, copy: str | None) -> str:
    """A whole HTML page with :func:`head_links` added at the end of its ``<head>``."""
    at = page_html.find("</head>")
    if at < 0:
        return page_html
    return page_html[:at] + head_links(page_url, copy) + "\n" + page_html[at:]


def with_copy_buttons(content_html: str, page_url: str, copy: str) -> str:
    """A page's content with :func:`copy_buttons` right after its title (before it if none)."""
    buttons = copy_buttons(page_url, copy)
    at = content_html.find("</h1>")
    if at < 0:
        return buttons + content_html
    at += len("</h1>")
    return content_html[:at] + "\n" + buttons + content_html[at:]


#: An empty sitemap (sitemaps.org schema) for the folders holding term copies; see sitemap_stubs.
EMPTY_SITEMAP = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>\n'


def sitemap_stubs(glossary: Glossary) -> dict[str, str]:
    """``<section>/sitemap.xml`` -> an empty sitemap, for each section folder holding term copies.

    Material's instant navigation reads every ``<link rel="alternate">`` as another language's
    site and fetches ``sitemap.xml`` beside its href; for a term page that is
    ``<section>/sitemap.xml``, which the site generator does not write, so every term page logged a 404.
    An empty sitemap there answers that fetch and lists nothing (the site's sitemap stays the
    one at the root).
    """
    return {f"{section.slug}/sitemap.xml": EMPTY_SITEMAP for section in glossary.sections if section.terms}
