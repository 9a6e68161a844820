"""The book's PDF, laid out in parts on two cores and joined into one file.

WeasyPrint lays out a document on one core, and the glossary's book is about 700 pages. Every
chapter starts on a new page, so a run of whole chapters laid out as a document of its own
gives exactly the pages the single document gave; what spans the book is done apart:

1. The chapters are cut into ``PARTS`` runs of about equal size (a fixed count, so the file
   does not depend on the machine) and laid out at once, one in this process and the others
   in forked children (glossary_tool/background.py). Each sends back its PDF, page count,
   where its anchors and bookmarks fell and each page's running head.
2. The front matter (title page, contents) is numbered i, ii, ... as in printed books and
   the body from 1, so the body's numbers are known as soon as the parts are: the contents,
   with each entry's number written out, are laid out here while a child lays out the
   "stamps": one page per body page holding only the page-margin boxes (running head and
   number), in the same page style, so they print what the single document printed there.
3. pypdf joins the pages, draws each stamp over its page as a form XObject (no content stream
   is parsed), turns links into other parts (written ``x-glossary-anchor:NAME``, which
   WeasyPrint keeps as a URI) into the named destinations the other links use, and writes
   one outline, one destination name tree and page labels (i, ii, ..., 1, 2, ...).

Same input, same bytes (no dates; the file identifier is a digest of the parts), on any
number of cores: that only sets how many parts are laid out at once.
"""

from __future__ import annotations

import hashlib
import html
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from glossary_tool.background import Job, _cpus

#: Runs of chapters laid out apart. Fixed, so the file is the same on any machine; two fills
#: the two cores of the machines the glossary is built on (BENCHMARKS.md, PDF).
PARTS = 2
#: Links into another part are written with this scheme; the join turns them into named
#: destinations.
XREF_SCHEME = "x-glossary-anchor:"
STAMP = "/GlossaryStamp"

#: ``ul`` markers are laid out inside the item, hanging by their own width ("• " in DejaVu
#: Serif is 0.908 em), so the page looks as with the default outside markers: WeasyPrint
#: lays out each outside marker as an absolutely positioned block with a line box of its own,
#: and the book's 5,000 list items (sources, backlinks, the A-Z index) made that about 8% of
#: the layout's Python calls.
PAGE_CSS = """
@page { size: A4; margin: 20mm 16mm 18mm; }
.chapter { page-break-before: always; }
.chapter h1 { bookmark-level: 1; bookmark-label: content(text); }
.chapter h2 { bookmark-level: 2; }
.chapter h3, .chapter h4 { bookmark-level: none; }
pre { page-break-inside: auto; }
.chapter ul { padding-left: 0; }
.chapter ul > li { list-style-position: inside; padding-left: 40px; text-indent: -0.908em; }
li > p, li > div, li > pre, li > table, li > blockquote, li > figure { text-indent: 0; }
"""


def margin_css(folio: str) -> str:
    """The running head and the page number (``folio``: what the number box shows), in the
    front matter and on the stamps."""
    return f"""
@page {{ @top-center {{ content: string(chapter); font-size: 8pt; color: #444; }}
        @bottom-center {{ content: {folio}; font-size: 8pt; }} }}
"""


FRONT_CSS = """
@page :first { @top-center { content: none; } @bottom-center { content: none; } }
.titlepage { page-break-after: always; text-align: center; padding-top: 35%; }
.booktitle { bookmark-level: none; }
.toc-title { bookmark-level: none; }
.toc ul { list-style: none; padding: 0; }
.toc-chapter { font-weight: bold; margin-top: 0.6em; }
.toc-term { padding-left: 1.2em; font-size: 0.9em; }
.toc a { text-decoration: none; }
.toc a::after { content: leader('.') attr(data-page); }
"""
STAMP_CSS = """
.stamp { height: 1px; }
.stamp + .stamp { page-break-before: always; }
"""


@dataclass(frozen=True)
class Chapter:
    """One chapter of the book: ``name`` its anchor (``chap-<slug>``), ``title`` its entry in
    the contents, ``body`` its XHTML with links already written as in-document fragments."""

    name: str
    title: str
    body: str
    #: (anchor, title) of the terms listed under the chapter in the contents
    entries: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Rendered:
    """What a laid-out document sends back to the join."""

    pdf: bytes
    pages: int
    #: anchor -> (page index, x, y), in PDF points from the page's bottom left (WeasyPrint's own)
    anchors: dict[str, tuple[int, float, float]]
    #: WeasyPrint's bookmark tree: (label, (page index, x, y), children, state)
    outline: list[Any]
    #: the running head of each page (the chapter heading in force there)
    heads: tuple[str, ...]


def _document(title: str, css: str, body: str, lang: str = "en") -> str:
    return f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"/><title>{html.escape(title)}</title><style>{css}</style></head><body>{body}</body></html>'


def render(document: str, base_url: str) -> Rendered:
    """Lay out and write one document; runs in a forked child."""
    from weasyprint import HTML

    doc = HTML(string=document, base_url=base_url).render()
    anchors: dict[str, tuple[int, float, float]] = {}
    heads: list[str] = []
    head = ""
    for index, page in enumerate(doc.pages):
        for name, position in page.anchors.items():
            if name not in anchors:  # the first of duplicate ids wins, as in WeasyPrint
                anchors[name] = (index, position[0] * 0.75, (page.height - position[1]) * 0.75)
        # string-set's default policy: the first heading set on the page, else the last one before
        chapter_heads = [label for level, label, _target, _state in page.bookmarks if level == 1]
        heads.append(chapter_heads[0] if chapter_heads else head)
        head = chapter_heads[-1] if chapter_heads else head
    outline = doc.make_bookmark_tree(scale=0.75, transform_pages=True)
    return Rendered(doc.write_pdf() or b"", len(doc.pages), anchors, outline, tuple(heads))


def split(chapters: Sequence[Chapter], parts: int = PARTS) -> list[list[Chapter]]:
    """Consecutive runs of chapters whose largest is as small as can be (size: XHTML length,
    which tracks layout time well enough). At most ``parts`` runs, none empty."""
    sizes = [len(c.body) for c in chapters]
    n, k = len(sizes), max(1, min(parts, len(chapters)))
    prefix = [0]
    for size in sizes:
        prefix.append(prefix[-1] + size)
    # best[j][i]: the least possible largest run when the first i chapters make j runs
    best = [[float("inf")] * (n + 1) for _ in range(k + 1)]
    cut = [[0] * (n + 1) for _ in range(k + 1)]
    best[0][0] = 0
    for j in range(1, k + 1):
        for i in range(j, n + 1):
            for start in range(j - 1, i):
                cost = max(best[j - 1][start], prefix[i] - prefix[start])
                if cost < best[j][i]:
                    best[j][i], cut[j][i] = cost, start
    runs, i = [], n
    for j in range(k, 0, -1):
        runs.append(list(chapters[cut[j][i] : i]))
        i = cut[j][i]
    return runs[::-1]


def _ids(body: str) -> set[str]:
    return set(re.findall(r' id="([^"]+)"', body))


def _cross_links(body: str, local: set[str]) -> str:
    """Fragment links whose target is not in this document, written so WeasyPrint keeps them."""
    return re.sub(r'href="#([^"]+)"', lambda m: m.group(0) if m.group(1) in local else f'href="{XREF_SCHEME}{m.group(1)}"', body)


def part_document(run: Sequence[Chapter], title: str, css: str) -> str:
    body = "".join(f'<div class="chapter" id="{c.name}">{c.body}</div>' for c in run)
    return _document(title, css + PAGE_CSS, _cross_links(body, _ids(body)))


def front_document(title: str, lines: Sequence[str], chapters: Sequence[Chapter], pages: Callable[[str], str], css: str) -> str:
    """Title page and contents; ``pages(anchor)``: the page number printed for an entry."""
    toc = []
    for chapter in chapters:
        toc.append(f'<li class="toc-chapter"><a href="#{chapter.name}" data-page="{pages(chapter.name)}">{html.escape(chapter.title)}</a></li>')
        toc += [f'<li class="toc-term"><a href="#{anchor}" data-page="{pages(anchor)}">{html.escape(label)}</a></li>' for anchor, label in chapter.entries]
    intro = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    body = f'<div class="titlepage"><h1 class="booktitle">{html.escape(title)}</h1>{intro}</div><nav class="toc"><h1 class="toc-title">Contents</h1><ul>{"".join(toc)}</ul></nav>'
    return _document(title, css + PAGE_CSS + margin_css("counter(page, lower-roman)") + FRONT_CSS, _cross_links(body, set()))


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


def stamp_document(first: int, heads: Sequence[str], css: str) -> str:
    """One page per head: only the running head and the page number, from page ``first`` on."""
    pages = [f'<div class="stamp" style="{html.escape(f"string-set: chapter {_css_string(head)}, folio {_css_string(str(first + i))}")}"></div>' for i, head in enumerate(heads)]
    return _document("stamps", css + PAGE_CSS + margin_css("string(folio)") + STAMP_CSS, "".join(pages))


def _parallel(tasks: Sequence[Callable[[], Rendered]], here: Callable[[], Rendered]) -> tuple[Rendered, list[Rendered]]:
    """``here`` in this process while ``tasks`` run in forked children, no more children at
    once than there are other cores; where forking is off (background.can_fork) everything
    runs here, one after another, with the same results."""
    width = max(1, _cpus() - 1)
    results: list[Rendered] = []
    mine: Rendered | None = None
    for start in range(0, len(tasks), width):
        jobs = [Job(task) for task in tasks[start : start + width]]
        if mine is None:
            mine = here()
        results += [job.result() for job in jobs]
    return here() if mine is None else mine, results


def render_book(title: str, lines: Sequence[str], chapters: Sequence[Chapter], css: str, base_url: str) -> bytes:
    """The whole book's PDF: the parts at once, then the front matter beside the stamps, then the join.

    The front matter is numbered apart (i, ii, ...; the body from 1, as in printed books), so
    the body's page numbers do not wait for the contents' length and the contents, which
    print the body's numbers, are laid out once."""
    renders = [lambda d=d: render(d, base_url) for d in (part_document(run, title, css) for run in split(chapters))]
    first, rest = _parallel(renders[1:], renders[0])
    parts = [first, *rest]
    number: dict[str, str] = {}
    start = 0
    for part in parts:
        for name, (page, _x, _y) in part.anchors.items():
            number.setdefault(name, str(start + page + 1))
        start += part.pages
    heads = [head for part in parts for head in part.heads]
    front, stamps = _parallel(
        [lambda: render(stamp_document(1, heads, css), base_url)],
        lambda: render(front_document(title, lines, chapters, lambda anchor: number.get(anchor, ""), css), base_url),
    )
    return join(title, front, parts, stamps)


def join(title: str, front: Rendered, parts: Sequence[Rendered], stamps: Sequence[Rendered]) -> bytes:
    """One PDF: the front matter, then each part's pages with their stamps drawn over them."""
    from importlib.metadata import version

    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import ArrayObject, ByteStringObject, DecodedStreamObject, DictionaryObject, Fit, FloatObject, NameObject, NumberObject, TextStringObject

    writer = PdfWriter()
    pages: list[Any] = []  # the writer's page objects, in order
    for doc in (front, *parts):
        for page in PdfReader(io.BytesIO(doc.pdf)).pages:
            pages.append(writer.add_page(page))

    def stream(data: bytes) -> Any:
        obj = DecodedStreamObject()
        obj.set_data(data)
        return writer._add_object(obj)

    # Each stamp becomes a form XObject named in its part's resources (one dictionary that
    # all the part's pages share, so it is not copied per page) and drawn after the page's
    # own content, which is wrapped in q/Q so the stamp starts from the default state.
    opening = stream(b"q\n")
    stamped = iter(pages[front.pages :])
    number = 0
    for doc in stamps:
        for stamp in PdfReader(io.BytesIO(doc.pdf)).pages:
            page = next(stamped)
            form = stamp.raw_get("/Contents").get_object().clone(writer)
            form.update(
                {
                    NameObject("/Type"): NameObject("/XObject"),
                    NameObject("/Subtype"): NameObject("/Form"),
                    NameObject("/BBox"): ArrayObject(FloatObject(v) for v in stamp.mediabox),
                    NameObject("/Resources"): stamp.raw_get("/Resources").clone(writer),
                }
            )
            resources = page["/Resources"]
            if "/XObject" not in resources:
                resources[NameObject("/XObject")] = DictionaryObject()
            name = f"{STAMP}{number}"
            resources["/XObject"][NameObject(name)] = writer._add_object(form)
            page[NameObject("/Contents")] = ArrayObject([opening, page.raw_get("/Contents"), stream(f"Q\n{name} Do\n".encode())])
            number += 1

    # one name tree for every anchor; the first of a name wins (WeasyPrint's rule)
    firsts: list[int] = []
    start = 0
    for doc in (front, *parts):
        firsts.append(start)
        start += doc.pages
    destinations: dict[str, ArrayObject] = {}
    for first, doc in zip(firsts, (front, *parts), strict=True):
        for name, (page, x, y) in doc.anchors.items():
            if name not in destinations:
                destinations[name] = ArrayObject([pages[first + page].indirect_reference, NameObject("/XYZ"), FloatObject(x), FloatObject(y), NumberObject(0)])
    for page in pages:
        annotations = page.get("/Annots")
        if annotations is None:
            continue
        kept = ArrayObject()
        for ref in annotations:
            annotation = ref.get_object()
            uri = annotation.get("/A", {}).get("/URI", "")
            if isinstance(uri, str) and uri.startswith(XREF_SCHEME):
                name = unquote(uri[len(XREF_SCHEME) :])
                if name not in destinations:
                    continue  # a link to no anchor: dropped, as WeasyPrint drops it
                del annotation[NameObject("/A")]
                annotation[NameObject("/Dest")] = TextStringObject(name)
            kept.append(ref)
        page[NameObject("/Annots")] = kept
    names = ArrayObject()
    for name in sorted(destinations):
        names += [TextStringObject(name), destinations[name]]
    writer.root_object[NameObject("/Names")] = DictionaryObject({NameObject("/Dests"): writer._add_object(DictionaryObject({NameObject("/Names"): names}))})

    def outline(items: Sequence[Any], first: int, parent: Any = None) -> None:
        for label, (page, x, y), children, state in items:
            item = writer.add_outline_item(label, pages[first + page], parent=parent, fit=Fit.xyz(left=x, top=y, zoom=0), is_open=state != "closed")
            outline(children, first, item)

    for first, doc in zip(firsts, (front, *parts), strict=True):
        outline(doc.outline, first)
    writer.set_page_label(0, front.pages - 1, "/r")
    writer.set_page_label(front.pages, len(pages) - 1, "/D")
    writer.root_object[NameObject("/Lang")] = TextStringObject("en")
    writer.add_metadata({"/Producer": f"WeasyPrint {version('weasyprint')}, pypdf {version('pypdf')}", "/Title": title})
    # The file identifier: a digest of the rendered documents (pypdf's own would write the
    # whole file once more to checksum it); same input, same bytes.
    digest = hashlib.md5(b"".join(doc.pdf for doc in (front, *parts, *stamps)), usedforsecurity=False).digest()
    writer._ID = ArrayObject([ByteStringObject(b"gpu-glossary"), ByteStringObject(digest)])
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
