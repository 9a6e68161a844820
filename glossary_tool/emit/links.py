"""Where a page lives and how one page links to another, per output format.

The site links relatively between ``.md`` sources (the site generator turns them into URLs),
llms.txt uses absolute URLs of the Markdown copies, and single-file outputs (the EPUB,
llms-full.txt) use in-document anchors. One protocol, three small implementations.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Protocol

from glossary_tool.model import Term


def term_src(term: Term) -> str:
    """The page's source path inside the docs tree: ``<section>/<slug>.md``."""
    return f"{term.section}/{term.slug}.md"


def term_anchor(slug: str) -> str:
    """The id of a term in llms-full.txt and the section files: its slug, the shortest unique
    id (thousands of links point at these; sections are ``section-<slug>``, and no term slug
    may start with ``section-``)."""
    return slug


class Linker(Protocol):
    def to_term(self, target: Term, anchor: str | None = None) -> str: ...

    def to_page(self, src: str) -> str: ...


@dataclass(frozen=True)
class RelativeLinker:
    """Relative links from the page at ``from_src`` (site pages; the site generator resolves them)."""

    from_src: str

    def to_page(self, src: str) -> str:
        here = posixpath.dirname(self.from_src)
        parts, base = src.split("/"), here.split("/") if here else []
        if any(p in ("", ".", "..") for p in (*parts, *base)):
            return posixpath.relpath(src, here or ".")
        # relpath without its two abspath calls (each asks the OS for the working directory):
        # a tenth of rendering a page full of links
        common = 0
        while common < len(base) and common < len(parts) - 1 and base[common] == parts[common]:
            common += 1
        return "/".join([".."] * (len(base) - common) + parts[common:])

    def to_term(self, target: Term, anchor: str | None = None) -> str:
        url = self.to_page(term_src(target))
        return f"{url}#{anchor}" if anchor else url


@dataclass(frozen=True)
class AbsoluteLinker:
    """Absolute URLs of the Markdown copies served beside the HTML (llms.txt convention)."""

    site_url: str

    def to_page(self, src: str) -> str:
        return self.site_url.rstrip("/") + "/" + src

    def to_term(self, target: Term, anchor: str | None = None) -> str:
        url = self.to_page(term_src(target))
        return f"{url}#{anchor}" if anchor else url


@dataclass(frozen=True)
class AnchorLinker:
    """In-document anchors for single-file outputs (llms-full.txt, one-file HTML)."""

    def to_page(self, src: str) -> str:
        return "#" + src.removesuffix(".md").replace("/", "-")

    def to_term(self, target: Term, anchor: str | None = None) -> str:
        """The term's anchor: the file marks each term (``<a id>`` before it), not the
        headings inside it, so a reference to a heading goes to its term."""
        return "#" + term_anchor(target.slug)
