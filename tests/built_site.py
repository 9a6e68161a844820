"""A built site read back with a parser, and the one resolver of its internal links.

``BuiltSite(root)`` parses HTML with lxml: about 2 ms a page where BeautifulSoup's
html.parser takes 70, and the same ids, URLs and line numbers as a streaming
``html.parser`` pass over the real site (checked file by file when this was written). Every
test that walks all pages of a site uses it; BeautifulSoup stays for tests of one page
(``soup``), where its CSS selectors read better.

The resolver (:meth:`BuiltSite.target`, :meth:`BuiltSite.problem`) is the one every test
uses to follow an internal link: relative URLs, root-relative ones (404.html), absolute ones
under ``site_url`` (canonical links, the sitemap, llms.txt), fragments included.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import lxml.html
from bs4 import BeautifulSoup
from lxml.etree import ParserError

from glossary_tool.pipeline import Project
from glossary_tool.text import slugify

REPO = Path(__file__).resolve().parent.parent
SITE_URL = Project(REPO).site_url

#: Attributes holding one URL (``srcset`` holds several).
URL_ATTRS = {"href", "src", "poster", "data", "action", "xlink:href"}
MD_ANCHOR = re.compile(r"<a\s+id=\"([^\"]+)\"")
MD_HEADING = re.compile(r"^#{1,6}\s+(.*?)(?:\s+\{#([^}\s]+)\})?\s*$")
MD_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
MD_CODE_SPAN = re.compile(r"(`+).+?\1")


def has_class(name: str) -> str:
    """An XPath predicate body: the element's class list holds ``name`` (CSS ``.name``)."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def text(element) -> str:
    """The element's text as BeautifulSoup's ``get_text(strip=True)`` gives it: every string
    stripped, the empty ones dropped, the rest joined."""
    return "".join(part.strip() for part in element.itertext())


def elements(tree) -> Iterator:
    """Every element of the tree (no comments or processing instructions)."""
    return (el for el in tree.iter() if isinstance(el.tag, str))


def urls(tree) -> Iterator[tuple[str, int]]:
    """(url, line) for every URL attribute of the tree, ``srcset`` split into its URLs."""
    for el in elements(tree):
        for name, value in el.attrib.items():
            if name in URL_ATTRS:
                yield value, el.sourceline
            elif name == "srcset":
                yield from ((part.strip().split()[0], el.sourceline) for part in value.split(",") if part.strip())


def prose_lines(markdown: str) -> Iterator[tuple[int, str]]:
    """(line number, line without code spans) for every Markdown line outside code fences."""
    fence = None
    for number, line in enumerate(markdown.split("\n"), 1):
        opening = MD_FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
            continue
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence) and not line.strip()[len(opening.group(1)) :].strip():
                fence = None
            continue
        yield number, MD_CODE_SPAN.sub("", line)


class BuiltSite:
    """The site under ``root``: its pages parsed on demand (the last ``keep`` trees kept),
    the ids of every file it has looked at, and the link resolver."""

    def __init__(self, root: Path, site_url: str = SITE_URL, keep: int = 64) -> None:
        self.root = Path(root).resolve()
        self.site_url = site_url
        self._keep = keep
        self._trees: OrderedDict[Path, object] = OrderedDict()
        self._ids: dict[Path, frozenset[str]] = {}
        self._root = str(self.root)
        self._kinds: dict[str, str] = {}

    def __truediv__(self, rel: str) -> Path:
        return self.root / rel

    def html_files(self) -> list[Path]:
        return sorted(self.root.rglob("*.html"))

    def term_page(self, term) -> Path:
        return self.root / term.section / term.slug / "index.html"

    def page(self, path: Path | str):
        """The lxml tree of an HTML file (a path, or one relative to the site)."""
        path = self.root / path
        tree = self._trees.pop(path, None)
        if tree is None:
            try:
                tree = lxml.html.document_fromstring(path.read_bytes())
            except ParserError:  # an empty file
                tree = lxml.html.document_fromstring("<html></html>")
        self._trees[path] = tree
        while len(self._trees) > self._keep:
            self._trees.popitem(last=False)
        return tree

    def soup(self, path: Path | str) -> BeautifulSoup:
        """One page as BeautifulSoup (html.parser), for CSS selectors on a single page."""
        return BeautifulSoup((self.root / path).read_text(encoding="utf-8"), "html.parser")

    def ids(self, path: Path) -> frozenset[str]:
        """The fragment targets of a file: ids and ``<a name>`` of HTML, ``<a id>`` and
        heading anchors of Markdown and text outside code."""
        path = self.root / path
        if path not in self._ids:
            found: set[str] = set()
            if path.suffix == ".html":
                for el in elements(self.page(path)):
                    found.update(value for name, value in el.attrib.items() if name == "id" or (el.tag == "a" and name == "name"))
            elif path.suffix in (".md", ".txt"):
                for _, line in prose_lines(path.read_text(encoding="utf-8")):
                    found.update(MD_ANCHOR.findall(line))
                    heading = MD_HEADING.match(line)
                    if heading:
                        found.add(heading.group(2) or slugify(heading.group(1)))
            self._ids[path] = frozenset(found)
        return self._ids[path]

    def _kind(self, path: str) -> str:
        """'file', 'dir' or '' for a normalised path, each asked of the disk once."""
        kind = self._kinds.get(path)
        if kind is None:
            kind = self._kinds[path] = "file" if os.path.isfile(path) else "dir" if os.path.isdir(path) else ""
        return kind

    def target(self, page: Path, url: str) -> tuple[Path, str] | None:
        """(file, fragment) an internal URL of ``page`` points at; None for an external one.

        Paths are normalised as text (``..`` and ``.`` folded), not through the disk: a built
        site holds no symbolic links, and a walk of the whole site resolves 40,000 URLs."""
        base = None
        if url.startswith(self.site_url):
            url = "/" + url[len(self.site_url) :]
            base = self.root
        parts = urlsplit(url)
        if parts.scheme in ("mailto", "tel"):
            return None
        if (parts.scheme or parts.netloc) and base is None:
            return None
        if not parts.path:
            return self.root / page, unquote(parts.fragment)
        path = unquote(parts.path)
        if path.startswith("/"):
            site_prefix = urlsplit(self.site_url).path
            if base is None and path.startswith(site_prefix):  # 404.html uses absolute paths
                path = "/" + path[len(site_prefix) :]
            found = os.path.normpath(os.path.join(self._root, path.lstrip("/")))
        else:
            found = os.path.normpath(os.path.join(os.path.dirname(os.path.join(self._root, page)), path))
        if path.endswith("/") or self._kind(found) == "dir":
            found = os.path.join(found, "index.html")
        return Path(found), unquote(parts.fragment)

    def problem(self, page: Path, url: str) -> str | None:
        """Why an internal URL of ``page`` is broken; None when it resolves (or is external)."""
        if url.startswith(("data:", "javascript:", "blob:")):
            return "script URL" if url.startswith("javascript:") and url != "javascript:void(0)" else None
        found = self.target(page, url)
        if found is None:
            return None
        target, fragment = found
        if not target.is_relative_to(self.root):
            return "outside the site"
        if self._kind(str(target)) != "file":
            return f"no such file {target.relative_to(self.root)}"
        if fragment and target.suffix in (".html", ".md", ".txt") and fragment not in self.ids(target):
            return f"no id '{fragment}' in {target.relative_to(self.root)}"
        return None
