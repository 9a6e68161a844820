"""The glossary as a book: an EPUB 3 (epubcheck-clean) and a PDF (WeasyPrint).

Both are rendered from the same loaded glossary and the same per-term XHTML, in reading
order: one chapter per section, each term a heading target, cross-references and
backlinks as internal links, sources as external links, code highlighted with Pygments
and followed by the output the GPU printed. Outputs are byte-identical for the same
sources (fixed zip timestamps, sorted entries, ids derived from slugs) and written
atomically.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import html
import io
import os
import re
import subprocess
import uuid
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

from glossary_tool.atomic import write_bytes
from glossary_tool.emit.book_pdf import Chapter, render_book
from glossary_tool.emit.gpu_compare import COMPARE_SRC, comparison_title, comparison_xhtml
from glossary_tool.emit.page_html import term_article
from glossary_tool.emit.pages import az_entries, rosetta_rows, section_src
from glossary_tool.emit.render import MarkdownBlock, PageState, RenderOptions, render_body
from glossary_tool.emit.snippets import PlainSnippets
from glossary_tool.link.equivalents import equivalent_target
from glossary_tool.model import VENDORS, Glossary, Section, Term
from glossary_tool.verify.reference import ReferenceGpu

LICENSE = "Content CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/); code MIT."
CSS = """
body { font-family: serif; line-height: 1.45; margin: 0 0.4em; }
h1 { font-size: 1.6em; margin: 0.6em 0 0.4em; }
h2 { font-size: 1.3em; margin: 1.4em 0 0.3em; border-top: 1px solid #888; padding-top: 0.4em; }
h3, h4 { font-size: 1.05em; margin: 1em 0 0.3em; }
p.summary { font-style: italic; }
pre { font-family: monospace; font-size: 0.72em; white-space: pre-wrap; word-wrap: break-word;
      border-left: 3px solid #666; padding: 0.3em 0.5em; background: #f4f4f4; }
code { font-family: monospace; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #888; padding: 0.15em 0.35em; vertical-align: top; text-align: left; }
a { color: inherit; text-decoration: underline; }
.badge { font-size: 0.8em; }
nav ol { list-style: none; padding-left: 1em; }
.cover { text-align: center; margin-top: 20%; }
figure svg { max-width: 100%; height: auto; }
""" + HtmlFormatter(style="bw").get_style_defs(".hl")


def book_anchor(slug: str, heading: str | None = None) -> str:
    """The id of a term (or of one of its headings) in the book: every chapter holds many
    terms, so ids carry the term's slug."""
    return f"term-{slug}" + (f"-{heading}" if heading else "")


def chapter_file(section: Section | str) -> str:
    slug = section if isinstance(section, str) else section.slug
    return f"{slug}.xhtml"


@dataclass(frozen=True)
class BookLinker:
    """Links between chapter files of the book: ``device-software.xhtml#term-warp``."""

    glossary: Glossary

    def to_term(self, target: Term, anchor: str | None = None) -> str:
        frag = book_anchor(target.slug, anchor)
        return f"{chapter_file(target.section)}#{frag}"

    def to_page(self, src: str) -> str:
        return {"a-z.md": "a-z.xhtml", "rosetta.md": "rosetta.xhtml", COMPARE_SRC: "gpu-comparison.xhtml"}.get(src, "nav.xhtml")


_PRINT_FORMATTER = HtmlFormatter(style="bw", nowrap=True, classprefix="")
#: token classes the print palette styles (bold or italic); every other token's span has no rule
_STYLED = frozenset(cls for cls, (style, _ttype, _level) in _PRINT_FORMATTER.class2style.items() if style)
_TOKEN_SPAN = re.compile(r'<span class="([\w-]+)">([^<]*)</span>')
_SAME_CLASS_JOIN = re.compile(r'<span class="([\w-]+)">([^<]*)</span><span class="\1">')


def _highlight(code: str, lang: str, _attrs: str) -> str:
    """Pygments' HTML with only the spans the print palette styles.

    WeasyPrint lays out every span as its own inline box, and about 94% of Pygments' spans
    (names, punctuation, whitespace, numbers) carry no rule in the black-and-white palette:
    dropping them leaves the same printed page and cut the PDF's layout time by half.
    """
    try:
        lexer = get_lexer_by_name(lang) if lang else TextLexer()
    except ClassNotFound:
        lexer = TextLexer()
    body = highlight(code, lexer, _PRINT_FORMATTER)
    body = _TOKEN_SPAN.sub(lambda m: m.group(0) if m.group(1) in _STYLED else m.group(2), body)
    while True:  # adjacent spans of one class (a keyword run such as "unsigned int") become one
        joined = _SAME_CLASS_JOIN.sub(r'<span class="\1">\2', body)
        if joined == body:
            break
        body = joined
    return f'<pre class="hl"><code>{body}</code></pre>'


_CODE_BLOCK = re.compile(r'<pre><code(?: class="language-([\w+-]*)")?>(.*?)</code></pre>', re.S)


def _highlight_code(code: str, lang: str) -> str:
    return _highlight(code, lang, "")


def _highlight_blocks(fragment: str, highlight: Callable[[str, str], str] = _highlight_code) -> str:
    """Code blocks highlighted with the book's print palette (``.hl``), not the site's;
    ``highlight(code, language)`` does one block."""
    return _CODE_BLOCK.sub(lambda m: highlight(html.unescape(m.group(2)), m.group(1) or ""), fragment)


def highlight_through(store) -> Callable[[str, str], str]:
    """``_highlight_code`` through ``store`` (a load/cache.py ``Cache``), keyed by the code,
    its language and Pygments' version: Pygments' lexing was about 2.5 s of the 3.7 s that
    the real glossary's chapters take to write, before the PDF's parts can start."""
    from importlib.metadata import version

    from glossary_tool.load.cache import key

    pygments = version("pygments")
    return lambda code, lang: store.get_or_make(key("book code", pygments, lang, code), lambda: _highlight_code(code, lang))


def _xhtml(fragment_html: str) -> str:
    """Well-formed XHTML from markdown-it's HTML (void tags closed, entities numeric)."""
    from lxml import etree
    from lxml import html as lhtml

    wrapper = lhtml.fragment_fromstring(fragment_html or "<p></p>", create_parent="div")
    for element in wrapper.iter():
        if isinstance(element.tag, str) and element.tag not in ("a", "span", "code", "pre", "em", "strong", "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "table", "thead", "tbody", "tr", "th", "td", "blockquote", "br", "hr", "del", "img", "figure", "figcaption"):
            element.tag = "span"
    text = etree.tostring(wrapper, method="xml", encoding="unicode")
    return text[len("<div>") : -len("</div>")] if text.startswith("<div>") else text


@dataclass(frozen=True)
class Book:
    glossary: Glossary
    records_root: Path
    #: The reference GPUs (read from the site config by the caller: make_book).
    reference: tuple[ReferenceGpu, ...]
    title: str
    identifier: str
    modified: str
    site_url: str
    #: name -> Diagram (glossary_tool.draw); drawn inline as SVG after the term's body
    diagrams: Mapping[str, Any] = field(default_factory=dict)
    #: (term, make) -> make() or what an earlier build made for the same inputs: a build
    #: passes its page cache (the site adapter's plugin), so an unchanged term's XHTML is
    #: not rendered again. Diagrams stay outside it (each is drawn once per book).
    memo: Callable[[Term, Callable[[], str]], str] = field(default=lambda term, make: make())
    #: (code, language) -> the highlighted block: the exports pass one through the project's
    #: cache (``highlight_through``)
    highlight: Callable[[str, str], str] = _highlight_code
    #: The glossary folder, against which links written in bodies are resolved (None: left as written).
    glossary_dir: Path | None = None

    def figures(self, term: Term, drawn: dict[str, str]) -> str:
        """Each diagram is drawn once in the book (SVG ids must be unique in a document);
        later terms that show it link back to that figure. ``drawn``: name -> chapter file."""
        from glossary_tool.draw import render_diagram_svg

        linker = BookLinker(self.glossary)

        def href(slug: str) -> str | None:
            target = self.glossary.terms.get(slug)
            return linker.to_term(target) if target is not None else None

        out = []
        for name in term.diagrams:
            diagram = self.diagrams.get(name)
            if diagram is None:
                continue
            if name in drawn:
                link = f"{drawn[name]}#diagram-{name}"
                out.append(f'<p class="badge">Diagram: <a href="{link}">{html.escape(diagram.title)}</a>, drawn with an earlier term.</p>')
                continue
            drawn[name] = chapter_file(term.section)
            svg = render_diagram_svg(diagram, self.glossary, href)
            out.append(f'<figure id="diagram-{name}">{svg}<figcaption>{html.escape(diagram.description)}</figcaption></figure>')
        return "".join(out)

    def _options(self, term: Term) -> RenderOptions:
        """The book renders with the site's engine: in-book links, ids prefixed with the term,
        body headings one level below the term's h2 title, code highlighted for print."""
        plain = PlainSnippets(self.records_root, self.reference)
        return RenderOptions(
            self.glossary,
            BookLinker(self.glossary),
            lambda t, s: MarkdownBlock(plain(t, s)),
            href=lambda url: self._written(term, url),
            href_xrefs=False,  # BookLinker's links are in-book already
            anchor_prefix=book_anchor(term.slug) + "-",
            heading_shift=1,
            permalinks=False,
            highlight_code=False,
            image_links=True,
        )

    @functools.cached_property
    def _written(self) -> Callable[[Term, str], str]:
        """A link or image written in a body (emit/written_links.py), for the book: a term or
        section page becomes an in-book link, another file its URL on the site (the book
        embeds no files of its own). One rewriter for the whole book: it builds the table of
        what links can reach once (one per term made the book quadratic in the terms)."""
        from glossary_tool.emit.written_links import rewriter  # here: it imports pages and drawings the book does not

        linker = BookLinker(self.glossary)
        chapters = {section_src(s): chapter_file(s) for s in self.glossary.sections}
        return rewriter(self.glossary, linker, self.site_url, to_page=lambda src, _: chapters.get(src) or linker.to_page(src), glossary_dir=self.glossary_dir)

    def term_xhtml(self, term: Term, drawn: dict[str, str] | None = None) -> str:
        return f"<section>{self.memo(term, lambda: self._term_text(term))}{self.figures(term, {} if drawn is None else drawn)}</section>"

    def _term_text(self, term: Term) -> str:
        """The term's title, summary and body as book XHTML (everything but its diagrams)."""
        options = self._options(term)
        article = term_article(term, self.glossary, options, PageState(), sub_level=3)
        title = f'<h2 id="{book_anchor(term.slug)}">{html.escape(term.display_title)}</h2>'
        summary = f'<p class="summary">{html.escape(term.summary)}</p>'
        return f"{title}{summary}{_xhtml(_highlight_blocks(article, self.highlight))}"

    def section_xhtml(self, section: Section, drawn: dict[str, str] | None = None) -> str:
        intro = render_body(section.page, self._options(section.page)).html if section.page is not None else f"<p>{html.escape(section.summary)}</p>"
        parts = [f'<h1 id="section-{section.slug}">{html.escape(section.title)}</h1>', _xhtml(intro)]
        drawn = {} if drawn is None else drawn
        parts += [self.term_xhtml(self.glossary.terms[s], drawn) for s in section.terms]
        return "".join(parts)

    def az_xhtml(self) -> str:
        linker = BookLinker(self.glossary)
        items = []
        for name, slug, canonical in az_entries(self.glossary):
            term = self.glossary.terms[slug]
            tail = f" (see {html.escape(canonical)})" if canonical else ""
            items.append(f'<li><a href="{linker.to_term(term)}">{html.escape(name)}</a>{tail}</li>')
        return '<h1 id="a-z">A-Z index</h1><ul>' + "".join(items) + "</ul>"

    def rosetta_xhtml(self) -> str:
        linker = BookLinker(self.glossary)
        head = "<tr><th>CUDA term</th>" + "".join(f"<th>{html.escape(v)}</th>" for v in VENDORS.values()) + "</tr>"
        rows = []
        for term, names in rosetta_rows(self.glossary):
            link = linker.to_term(term)
            cells = [f'<td><a href="{link}">{html.escape(term.display_title)}</a></td>']
            pages = {k: equivalent_target(self.glossary, term, k) for k in names}
            cells += [f'<td><a href="{linker.to_term(*page) if (page := pages[k]) else link}">{html.escape(names[k])}</a></td>' if k in names else "<td></td>" for k in VENDORS]
            rows.append("<tr>" + "".join(cells) + "</tr>")
        intro = "<p>CUDA terms against their names on other platforms; a cell links to the platform's own page where the glossary has one, else to the CUDA term.</p>"
        return f'<h1 id="rosetta">Rosetta: CUDA terms on other platforms</h1>{intro}<table><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'

    def chapters(self) -> list[tuple[str, str, str]]:
        """(file, title, xhtml body) in reading order."""
        drawn: dict[str, str] = {}
        out = [(chapter_file(s), s.title, self.section_xhtml(s, drawn)) for s in self.glossary.sections]
        out.append(("rosetta.xhtml", "Rosetta", self.rosetta_xhtml()))
        gpus = comparison_xhtml(self.glossary, self.records_root, BookLinker(self.glossary), self.reference)
        out.append(("gpu-comparison.xhtml", comparison_title(self.reference).split(":")[0], gpus))
        out.append(("a-z.xhtml", "A-Z index", self.az_xhtml()))
        return out


def _page(title: str, body: str, lang: str = "en", epub_ns: bool = False) -> str:
    ns = ' xmlns:epub="http://www.idpf.org/2007/ops"' if epub_ns else ""
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n'
        f'<html xmlns="http://www.w3.org/1999/xhtml"{ns} xml:lang="{lang}" lang="{lang}">'
        f'<head><meta charset="utf-8"/><title>{html.escape(title)}</title><link rel="stylesheet" type="text/css" href="style.css"/></head>'
        f"<body>{body}</body></html>\n"
    )


def source_date(root: Path) -> dt.datetime:
    """The modification date of the sources: SOURCE_DATE_EPOCH, else the last commit of glossary/."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), dt.UTC)
    try:
        out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct", "--", "glossary", "snippets"], capture_output=True, text=True, timeout=30)
        if out.returncode == 0 and out.stdout.strip().isdigit():
            return dt.datetime.fromtimestamp(int(out.stdout.strip()), dt.UTC)
    except (OSError, subprocess.SubprocessError):
        pass
    newest = max((p.stat().st_mtime for p in (root / "glossary").rglob("*.md")), default=0)
    return dt.datetime.fromtimestamp(int(newest), dt.UTC)


def make_book(loaded, site_url: str | None = None) -> Book:
    """The book of ``loaded``; links out of it go to ``site_url`` (default: the config's)."""
    site_url = site_url or loaded.project.site_url
    glossary = loaded.glossary
    title = glossary.home.title if glossary.home else "GPU Glossary"
    identifier = f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, site_url)}"
    modified = source_date(loaded.project.root).strftime("%Y-%m-%dT%H:%M:%SZ")
    project = loaded.project
    return Book(glossary, project.records_dir, project.reference_gpus, title, identifier, modified, site_url, dict(getattr(loaded, "diagrams", {}) or {}), glossary_dir=project.glossary_dir)


def epub_with_leftovers(book: Book) -> tuple[bytes, list]:
    """The EPUB, and any raw ``[[`` in its chapters (emit/leftovers.py): one rendering for both."""
    from glossary_tool.emit.leftovers import html_leftovers

    chapters = book.chapters()
    return epub_bytes(book, chapters), [leftover for _, _, body in chapters for leftover in html_leftovers(f"<div>{body}</div>")]


def epub_bytes(book: Book, chapters: list[tuple[str, str, str]] | None = None) -> bytes:
    chapters = chapters if chapters is not None else book.chapters()
    files: dict[str, str] = {}
    cover = f'<section class="cover" epub:type="cover"><h1>{html.escape(book.title)}</h1><p>An interlinked dictionary of the GPU stack, with CUDA examples run on a real GPU.</p><p>{html.escape(LICENSE)}</p><p>{html.escape(book.site_url)}</p></section>'
    files["OEBPS/cover.xhtml"] = _page(book.title, cover, epub_ns=True)
    for name, title, body in chapters:
        files[f"OEBPS/{name}"] = _page(title, body)
    nav_items = []
    for name, title, _ in chapters:
        section = next((s for s in book.glossary.sections if chapter_file(s) == name), None)
        sub = ""
        if section is not None:
            sub = "<ol>" + "".join(f'<li><a href="{name}#{book_anchor(s)}">{html.escape(book.glossary.terms[s].display_title)}</a></li>' for s in section.terms) + "</ol>"
        nav_items.append(f'<li><a href="{name}">{html.escape(title)}</a>{sub}</li>')
    nav = f'<nav epub:type="toc" id="toc"><h1>Contents</h1><ol>{"".join(nav_items)}</ol></nav>'
    nav += '<nav epub:type="landmarks" hidden="hidden"><h2>Landmarks</h2><ol><li><a epub:type="cover" href="cover.xhtml">Cover</a></li>'
    nav += f'<li><a epub:type="bodymatter" href="{chapters[0][0]}">Start</a></li></ol></nav>'
    files["OEBPS/nav.xhtml"] = _page("Contents", nav, epub_ns=True)
    files["OEBPS/style.css"] = CSS
    files["OEBPS/toc.ncx"] = _ncx(book, chapters)
    files["OEBPS/content.opf"] = _opf(book, chapters)
    files["META-INF/container.xml"] = (
        '<?xml version="1.0" encoding="utf-8"?>\n<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
        '<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>\n'
    )
    buffer = io.BytesIO()
    stamp = (1980, 1, 1, 0, 0, 0)
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo("mimetype", stamp)
        info.compress_type = zipfile.ZIP_STORED
        archive.writestr(info, "application/epub+zip")
        for name in sorted(files):
            info = zipfile.ZipInfo(name, stamp)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, files[name].encode("utf-8"))
    return buffer.getvalue()


def _ncx(book: Book, chapters: list[tuple[str, str, str]]) -> str:
    points = []
    order = 1
    for name, title, _ in chapters:
        section = next((s for s in book.glossary.sections if chapter_file(s) == name), None)
        inner = ""
        chapter_order = order
        order += 1
        if section is not None:
            for slug in section.terms:
                term = book.glossary.terms[slug]
                inner += f'<navPoint id="np-{slug}" playOrder="{order}"><navLabel><text>{html.escape(term.display_title)}</text></navLabel><content src="{name}#{book_anchor(slug)}"/></navPoint>'
                order += 1
        points.append(f'<navPoint id="np-{name[:-6]}" playOrder="{chapter_order}"><navLabel><text>{html.escape(title)}</text></navLabel><content src="{name}"/>{inner}</navPoint>')
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">'
        f'<head><meta name="dtb:uid" content="{book.identifier}"/><meta name="dtb:depth" content="2"/>'
        '<meta name="dtb:totalPageCount" content="0"/><meta name="dtb:maxPageNumber" content="0"/></head>'
        f"<docTitle><text>{html.escape(book.title)}</text></docTitle><navMap>{''.join(points)}</navMap></ncx>\n"
    )


def _opf(book: Book, chapters: list[tuple[str, str, str]]) -> str:
    items = [
        '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
        '<item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>',
        '<item id="css" href="style.css" media-type="text/css"/>',
        '<item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>',
    ]
    spine = ['<itemref idref="cover"/>', '<itemref idref="nav"/>']
    for name, _, body in chapters:
        ident = "ch-" + name[:-6]
        props = ' properties="svg"' if "<svg" in body else ""
        items.append(f'<item id="{ident}" href="{name}" media-type="application/xhtml+xml"{props}/>')
        spine.append(f'<itemref idref="{ident}"/>')
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="bookid" xml:lang="en">'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
        f'<dc:identifier id="bookid">{book.identifier}</dc:identifier>'
        f"<dc:title>{html.escape(book.title)}</dc:title><dc:language>en</dc:language>"
        "<dc:creator>GPU Glossary contributors</dc:creator><dc:publisher>GPU Glossary</dc:publisher>"
        f"<dc:rights>{html.escape(LICENSE)}</dc:rights><dc:source>{html.escape(book.site_url)}</dc:source>"
        f'<meta property="dcterms:modified">{book.modified}</meta>'
        "</metadata>"
        f'<manifest>{"".join(items)}</manifest><spine toc="ncx">{"".join(spine)}</spine></package>\n'
    )


#: the ``title`` of a link (the target's summary, a tooltip on screen): a PDF shows none, and
#: they were a fifth of the XHTML WeasyPrint parses. ``<a`` only starts a real tag (text has ``&lt;``).
_LINK_TITLE = re.compile(r'(<a [^>]*?) title="[^"]*"')


def pdf_chapters(book: Book) -> list[Chapter]:
    """The book's chapters for the PDF: one document, so every link is a fragment."""
    chapters = book.chapters()
    out = []
    for name, title, xhtml in chapters:
        for other, _, _ in chapters:
            xhtml = xhtml.replace(f'href="{other}#', 'href="#').replace(f'href="{other}"', f'href="#chap-{other[:-6]}"')
        xhtml = _LINK_TITLE.sub(r"\1", xhtml)
        section = next((s for s in book.glossary.sections if chapter_file(s) == name), None)
        entries = tuple((book_anchor(slug), book.glossary.terms[slug].display_title) for slug in section.terms) if section is not None else ()
        out.append(Chapter(f"chap-{name[:-6]}", title, xhtml, entries))
    return out


def export_epub(loaded, out: Path) -> Path:
    with _cached_book(loaded) as book:
        write_bytes(out, epub_bytes(book))
    return out


def terms_through(store, loaded) -> Callable[[Term, Callable[[], str]], str]:
    """``Book.memo`` through ``store`` (a load/cache.py ``Cache``): a term's XHTML is kept under
    what its page is made of (the digest the site build's book memo uses:
    emit/page_inputs.PageInputs) and Pygments' version. Rendering the real
    glossary's 261 terms took about 2.5-3.4 s of the export before WeasyPrint could start."""
    from importlib.metadata import version

    from glossary_tool.emit.page_inputs import PageInputs
    from glossary_tool.load.cache import key

    inputs = PageInputs(loaded, {}, None, None)
    pygments = version("pygments")
    return lambda term, make: store.get_or_make(key("book term", pygments, inputs.page(term)), make)


@contextlib.contextmanager
def _cached_book(loaded) -> Iterator[Book]:
    """The book of ``loaded``, its terms' XHTML and code blocks through the project's cache
    (``.cache/book-code-*.pickle``: only the entries this export used are kept, so a term
    read whole leaves its code blocks out until it changes)."""
    from glossary_tool.load.cache import CACHE_DIR, Cache

    store = Cache(loaded.project.root / CACHE_DIR, kind="book-code")
    yield replace(make_book(loaded), highlight=highlight_through(store), memo=terms_through(store, loaded))
    store.save()


def pdf_bytes(book: Book, base: Path) -> bytes:
    try:
        import weasyprint  # noqa: F401  (used by emit/book_pdf.py; imported here to fail early)
    except (ImportError, OSError) as exc:  # OSError: pango/cairo system libraries missing
        raise BookError(
            f"PDF export needs WeasyPrint and its system libraries (Debian: apt-get install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz0b fonts-dejavu-core; then pip install weasyprint): {exc}"
        ) from exc
    try:
        import pikepdf  # noqa: F401  (joins the laid-out parts: emit/book_pdf.py join)
    except ImportError as exc:
        raise BookError(f"PDF export needs pikepdf to join the book's parts (pip install 'gpu-glossary[pdf]', or pip install pikepdf): {exc}") from exc
    return render_book(book.title, (LICENSE, book.site_url), pdf_chapters(book), CSS, str(base))


def export_pdf(loaded, out: Path) -> Path:
    with _cached_book(loaded) as book:
        write_bytes(out, pdf_bytes(book, loaded.project.root))
    return out


class BookError(Exception):
    """A book export cannot run here; the message says what to install."""


def export_books(site_dir: Path, dist: Path) -> list[Path]:
    """Copy the EPUB and PDF the site build rendered into ``dist/`` (atomically)."""
    outputs = []
    for name in ("gpu-glossary.epub", "gpu-glossary.pdf"):
        source = site_dir / "downloads" / name
        if source.exists():
            write_bytes(dist / name, source.read_bytes())
            outputs.append(dist / name)
    return outputs
