"""Links and images written as Markdown in a body, checked against the site they will be in.

``[the SM](../device-hardware/streaming-multiprocessor.md#what-it-is)``, ``[see below](#tips)``
and ``![die](../assets/gh100.svg)`` are relative to the source file, as MkDocs reads them: the
site adapter turns a ``.md`` link into the page's URL and copies every other file of the
glossary folder. When Python-Markdown rendered the pages, MkDocs warned about a link to a page
that is not there; the one engine renders them now, so `check` says it, at the link's line,
for a missing page or file, a heading that page does not have, a folder, a link that leaves
the glossary folder, and a site-absolute path (which breaks under the site's own path, such as
``/gpu-glossary/``). External links are the link checker's (commands/linkcheck.py).
"""

from __future__ import annotations

import difflib
import posixpath
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.emit.links import Linker, term_src
from glossary_tool.emit.pages import AZ_SRC, HOME_SRC, ROSETTA_SRC, section_src
from glossary_tool.load import cache
from glossary_tool.load.body import parse_tokens, precomputed
from glossary_tool.load.cache import Cache
from glossary_tool.model import Glossary, Term
from glossary_tool.text import slugify


@dataclass(frozen=True)
class WrittenLink:
    """A link or image of a body: its URL as markdown-it read it, where it was written
    (0-based body line and column) and how long it is there, and whether it is an image."""

    url: str
    line: int
    col: int
    image: bool = False
    #: How long the URL is as written (0: not found in the source, so not to be rewritten).
    length: int = 0


def may_link(body: str) -> bool:
    """Whether ``body`` can hold a Markdown link or image: an inline one, ``](``, or a
    reference definition, ``]:``. Most bodies hold neither and are not looked at."""
    return "](" in body or "]:" in body


@precomputed(may_link)
def written_links(body: str) -> tuple[WrittenLink, ...]:
    """The links and images of ``body`` (autolinks left out: they are always external)."""
    if not may_link(body):
        return ()
    lines = body.split("\n")
    found: list[WrittenLink] = []
    used: set[tuple[int, int]] = set()
    for token in parse_tokens(body):
        if token.type != "inline" or not token.children:
            continue
        first, last = token.map if token.map is not None else (0, len(lines))
        for child in token.children:
            if child.type == "link_open" and child.markup not in ("autolink", "linkify"):
                url, image = str(child.attrs.get("href", "")), False
            elif child.type == "image":
                url, image = str(child.attrs.get("src", "")), True
            else:
                continue
            line, col, length = _written_at(lines, first, last, url, used)
            found.append(WrittenLink(url, line, col, image, length))
    return tuple(found)


def _written_at(lines: list[str], first: int, last: int, url: str, used: set[tuple[int, int]]) -> tuple[int, int, int]:
    """Where ``url`` stands in the body: in its paragraph's lines as a destination,
    ``(url)`` or ``(url "title")``, at a place no earlier link of the body took (``used``,
    updated), else (a reference link) at its definition, ``]: url``, which links with the
    same label share, else anywhere in the paragraph. markdown-it percent-encodes what it
    reads, so the decoded form is looked for too."""
    rows = range(first, min(last, len(lines)))
    for written in dict.fromkeys((url, unquote(url))):
        for places, forms, shared in ((rows, (f"({written})", f"({written} ", f"(<{written}>"), False), (range(len(lines)), (f"]: {written}", f"]:{written}"), True), (rows, (written,), False)):
            for number in places:
                for form in forms:
                    col = lines[number].find(form)
                    while col >= 0:
                        place = (number, col + form.index(written))
                        if shared or place not in used:
                            used.add(place)
                            return place[0], place[1], len(written)
                        col = lines[number].find(form, col + 1)
    return first, 0, 0


def term_page_ids(term: Term) -> frozenset[str]:
    """The ids a link can name on a term's page: its headings', and those of the parts every
    term page (or this one) has: the title, equivalents, each diagram, sources, linked-from."""
    generated = {slugify(term.display_title), "sources", "linked-from", *(f"diagram-{name}" for name in term.diagrams)}
    if term.equivalents:
        generated.add("equivalents")
    return frozenset({heading.anchor for heading in term.headings} | generated)


def page_src(term: Term) -> str:
    """The ``.md`` source a body belongs to: a term's, a section intro's or the home intro's
    (those two are pseudo-terms, ``_index:<section>`` and ``_index:home``)."""
    if term.slug == "_index:home":
        return HOME_SRC
    if term.slug.startswith("_index:"):
        return f"{term.section}/index.md"
    return term_src(term)


def rewriter(
    glossary: Glossary, linker: Linker, site_url: str, *, to_page: Callable[[str, str], str] | None = None, glossary_dir: Path | None = None
) -> Callable[[Term, str], str]:
    """For an output read away from the site's folders (the book, llms-full.txt, a section's
    llms file): a link written in a body to a term goes where ``linker`` puts terms (to the
    heading it names, where the term has it), one to another page where ``to_page(source,
    fragment)`` says (default: the page's URL on the site), one to another file to its URL on
    the site; what reaches nothing stays as written (`check` reports it)."""
    base = site_url.rstrip("/") + "/"

    def on_site(src: str, fragment: str) -> str:
        page = base + (src.removesuffix("index.md") if src.endswith("index.md") else src.removesuffix(".md") + "/")
        return page + (f"#{fragment}" if fragment else "")

    page_at = to_page or on_site
    targets: list[Targets] = []  # made when a body first has a link: most have none

    def rewrite(term: Term, url: str) -> str:
        if not targets:
            targets.append(Targets.of(glossary, glossary_dir))
        reached = targets[0].reach(url, page_src(term))
        if reached is None:
            return url
        if reached.term is not None:
            anchor = reached.fragment if reached.fragment in {h.anchor for h in reached.term.headings} else None
            return linker.to_term(reached.term, anchor)
        if reached.page is not None:
            return page_at(reached.page, reached.fragment)
        return base + str(reached.file)

    return rewrite


@dataclass(frozen=True)
class Reached:
    """What a relative link reaches: a term's page (``term``), another page (``page``, its
    source), or another file of the glossary folder (``file``); and the fragment it names."""

    term: Term | None = None
    page: str | None = None
    file: str | None = None
    fragment: str = ""


def _target(url: str, src: str) -> tuple[str, str] | str | None:
    """(the path under the glossary folder, the fragment) a URL written in ``src`` names (an
    empty path: ``src`` itself); None for an external URL; else why it names none."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        return None
    path, fragment = unquote(parts.path), unquote(parts.fragment)
    if not path:
        return src, fragment
    if path.startswith("/"):
        return "is site-absolute: it breaks where the site is served under a path of its own; link the page's .md file relatively (or write [[name]] for a term)"
    target = posixpath.normpath(posixpath.join(posixpath.dirname(src), path))
    if target == ".." or target.startswith("../"):
        return "points outside the glossary folder"
    return target, fragment


@dataclass(frozen=True)
class Targets:
    """What a written link can reach in one glossary: the ``.md`` sources of its terms and of
    its other pages (home, section intros and lists, the generated pages), and the glossary
    folder's files. Made once per glossary and asked for every link: making it is a pass
    over every term."""

    terms: Mapping[str, Term]
    pages: frozenset[str]
    #: None: a path to something other than a page is taken to be a file.
    glossary_dir: Path | None = None

    @classmethod
    def of(cls, glossary: Glossary, glossary_dir: Path | None) -> Targets:
        # here: the modules that name these pages cost a check 70 ms to import, and most
        # checks find no written link to resolve
        from glossary_tool.draw.graph import MAP_SRC
        from glossary_tool.emit.gpu_compare import COMPARE_SRC
        from glossary_tool.publish.feed import WHATS_NEW_SRC

        pages = frozenset({HOME_SRC, AZ_SRC, ROSETTA_SRC, COMPARE_SRC, MAP_SRC, WHATS_NEW_SRC, *(section_src(s) for s in glossary.sections)})
        return cls({term_src(term): term for term in glossary.terms.values()}, pages, glossary_dir)

    def reach(self, url: str, src: str) -> Reached | None:
        """What a URL written in the body of ``src`` reaches; None for an external URL or one
        that reaches nothing (`check` reports those: :func:`check_written_links`)."""
        found = _target(url, src)
        if not isinstance(found, tuple):
            return None
        target, fragment = found
        if target in self.terms:
            return Reached(term=self.terms[target], fragment=fragment)
        if target in self.pages:
            return Reached(page=target, fragment=fragment)
        if not target.endswith(".md") and (self.glossary_dir is None or (self.glossary_dir / target).is_file()):
            return Reached(file=target, fragment=fragment)
        return None


def check_written_links(glossary: Glossary, glossary_dir: Path, store: Cache | None = None) -> list[Diagnostic]:
    """An error for each relative link or image of a body (terms, section intros, the home
    intro) that does not reach a page, a heading of it, or a file of the glossary folder."""
    bodies = [*glossary.ordered_terms(), *(s.page for s in glossary.sections if s.page is not None)]
    if glossary.home is not None and glossary.home.page is not None:
        bodies.append(glossary.home.page)
    bodies = [term for term in bodies if may_link(term.body)]
    if not bodies:
        return []
    targets = Targets.of(glossary, glossary_dir)
    out: list[Diagnostic] = []
    for term in bodies:
        src = page_src(term)
        links = written_links(term.body) if store is None else store.get_or_make(cache.key("written-links", term.body), lambda body=term.body: written_links(body), counted=False)
        for link in dict.fromkeys(links):  # links that share a reference definition are reported there once
            problem = _problem(link, src, targets, glossary_dir)
            if problem is not None:
                out.append(error(term.path, term.body_offset + link.line + 1, link.col + 1, "link-unresolved", problem))
    return out


def _problem(link: WrittenLink, src: str, targets: Targets, glossary_dir: Path) -> str | None:
    kind = "image" if link.image else "link"
    terms, pages = targets.terms, targets.pages
    found = _target(link.url, src)
    if found is None:
        return None
    if isinstance(found, str):
        return f"{kind} {link.url} {found}"
    target, fragment = found
    if target.endswith(".md"):
        if target in terms:
            term = terms[target]
            if fragment and fragment not in term_page_ids(term):
                return _no_anchor(kind, link.url, "this page" if target == src else f"the page of '{term.title}'", term)
            return None
        if target in pages:
            return None
        return f"{kind} {link.url}: there is no page glossary/{target}{_closest(target, [*terms, *pages])}; for a term, [[name]] finds it by any of its names"
    found_path = glossary_dir / target
    if found_path.is_dir():
        index = f"{urlsplit(link.url).path.rstrip('/')}/index.md"
        return f"{kind} {link.url} names a folder: link a page's .md file ({index} if it is a section)"
    if not found_path.is_file():
        return f"{kind} {link.url}: there is no file glossary/{target}"
    return None


def _no_anchor(kind: str, url: str, where: str, term: Term) -> str:
    anchors = sorted(h.anchor for h in term.headings)
    listed = f"; its headings' anchors: {', '.join(anchors)}" if anchors else "; it has no headings of its own"
    return f"{kind} {url}: {where} has no anchor '{unquote(urlsplit(url).fragment)}'{listed}"


def _closest(target: str, candidates: Iterable[str]) -> str:
    close = difflib.get_close_matches(target, list(candidates), n=1)
    return f" (did you mean {close[0]}?)" if close else ""
