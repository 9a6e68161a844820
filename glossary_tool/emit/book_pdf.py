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
   with each entry's number written out, are laid out in a child while this process lays out
   the stamps' "sheet" (one page per distinct running head, and page numbers of each length,
   in the body's page style) and joins the parts.
3. qpdf (through pikepdf) joins the pages and draws each page's stamp over it as a form XObject: the sheet's
   page for its running head, and its number written with the sheet's font at the place the
   sheet's number of that length took (no per-page layout: laying out a page of margin boxes
   for each of the ~680 body pages took 10 s). It turns links into other parts (written
   ``x-glossary-anchor:NAME``, which WeasyPrint keeps as a URI) into the named destinations
   the other links use, and writes one outline, one destination name tree and page labels
   (i, ii, ..., 1, 2, ...).

Same input, same bytes (no dates; the file identifier is a digest of the parts), on any
number of cores: that only sets how many parts are laid out at once.
"""

from __future__ import annotations

import gc
import html
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import unquote

from glossary_tool.background import Job, can_fork, cpus

#: Runs of chapters laid out apart. Fixed, so the file is the same on any machine; two fills
#: the two cores of the machines the glossary is built on (BENCHMARKS.md, PDF).
PARTS = 2
#: Links into another part are written with this scheme; the join turns them into named
#: destinations.
XREF_SCHEME = "x-glossary-anchor:"
STAMP = "/GlossaryStamp"
DIGITS = "0123456789"

#: ``ul`` markers are laid out inside the item, hanging by their own width ("• " in DejaVu
#: Serif is 0.908 em), so the page looks as with the default outside markers: WeasyPrint
#: lays out each outside marker as an absolutely positioned block with a line box of its own,
#: and the book's 5,000 list items (sources, backlinks, the A-Z index) made that about 8% of
#: the layout's Python calls. The GPU comparison's table (its rows of program output side by
#: side) has fixed columns, about where the automatic layout put them: measuring every
#: cell's content for the automatic widths was a third of that chapter's 2.6-2.8 s.
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
table.gpu-compare { table-layout: fixed; width: 100%; }
table.gpu-compare th:first-child { width: 22.5%; }
"""


def margin_css(folio: str) -> str:
    """The running head and the page number (``folio``: what the number box shows), in the
    front matter and on the stamps."""
    return f"""
@page {{ @top-center {{ content: string(chapter); font-size: 8pt; color: #444; }}
        @bottom-center {{ content: {folio}; font-size: 8pt; }} }}
"""


#: The contents' dot leaders are a background of one SVG dot per period width (0.318 em in
#: DejaVu Serif, the dot at the period's height above the last line's baseline) that each
#: entry's title and its number (placed at the right edge) cover with white. CSS
#: ``leader('.')`` gave the same look but WeasyPrint lays out and draws each dot as a text
#: box of its own (about 27,000 in the book's contents): 4.7-5.5 s of CPU, against 1.7 s.
FRONT_CSS = """
@page :first { @top-center { content: none; } @bottom-center { content: none; } }
.titlepage { page-break-after: always; text-align: center; padding-top: 35%; }
.booktitle { bookmark-level: none; }
.toc-title { bookmark-level: none; }
.toc ul { list-style: none; padding: 0; }
.toc-chapter { font-weight: bold; margin-top: 0.6em; }
.toc-term { padding-left: 1.2em; font-size: 0.9em; }
.toc a { text-decoration: none; display: block; position: relative; padding-right: 2.2em;
         background: url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 318 1450' preserveAspectRatio='none'%3E%3Ccircle cx='159' cy='1020' r='65'/%3E%3C/svg%3E") repeat-x 0 100% / 0.318em 1.45em; }
.toc a > span { background: #fff; padding-right: 0.2em; }
.toc a::after { content: attr(data-page); position: absolute; right: 0; background: #fff; padding-left: 0.2em; }
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


_XMLNS = "{http://www.w3.org/2000/xmlns/}"


def parse_xhtml(document: str) -> Any:
    """The document's tree as WeasyPrint's HTML parser (tinyhtml5) builds it, read with expat
    instead: the book's documents are XHTML (the EPUB's chapters, well-formed XML), and
    tinyhtml5 took about 2 s of a 1.2 M-character part where expat takes 0.05 s. Elements stay
    in no namespace (HTML's), SVG in its own, and each namespace declaration becomes the
    attribute tinyhtml5 gives it. ``None`` where the text is not well-formed XML (the caller
    then lets tinyhtml5 parse it)."""
    from xml.etree.ElementTree import ParseError, XMLPullParser

    parser = XMLPullParser(events=("start-ns", "start"))
    declared: list[tuple[str, str]] = []
    try:
        parser.feed(document)
        parser.close()
        root = None
        for event, item in parser.read_events():
            if event == "start-ns":
                declared.append(item)
                continue
            if root is None:
                root = item
            for prefix, uri in declared:
                item.set(f"{_XMLNS}{prefix or 'xmlns'}", uri)
            declared = []
    except ParseError:
        return None
    return root


@cache
def _html_class() -> Any:
    """WeasyPrint's ``HTML`` with its user-agent stylesheet less the footnote and note
    pseudo-element rules (``::footnote-call``, ``::note-marker``, ...), reading the document
    with ``parse_xhtml``. The pseudo-element selectors are tried on every element of the
    document: 2.7 s of the 3.9 s cascade of a 357-page part. They style only elements floated
    as footnotes or notes (``float: footnote``), which the book has none of (its footnotes are
    ordinary lists), so the pages are the same. Where this WeasyPrint lays out its stylesheet
    or keeps its tree otherwise, the plain class is used."""
    from weasyprint import CSS, HTML

    try:
        import cssselect2
        from weasyprint.css.counters import CounterStyle
        from weasyprint.html import UA

        HTML._ua_stylesheets  # noqa: B018  (present in the supported versions; checked, not assumed)
    except (ImportError, AttributeError):
        return HTML
    kept = [line for line in UA.splitlines() if not line.startswith(("::footnote-", "::note-"))]
    if len(kept) == len(UA.splitlines()):
        return HTML
    sheet = CSS(string="\n".join(kept), counter_style=CounterStyle())

    class BookHTML(HTML):
        def __init__(self, *, string: str, base_url: str) -> None:
            root = parse_xhtml(string)
            # WeasyPrint sets up everything else (URL fetcher, media type) from an empty
            # document, then takes expat's tree where tinyhtml5's would be
            super().__init__(string=string if root is None else "<html></html>", base_url=base_url)
            if root is not None and hasattr(self, "wrapper_element") and hasattr(self, "etree_element"):
                self.wrapper_element = cssselect2.ElementWrapper.from_html_root(root, content_language=None)
                self.etree_element = self.wrapper_element.etree_element
            elif root is not None:  # a WeasyPrint that keeps its tree elsewhere: parse it its way
                super().__init__(string=string, base_url=base_url)

        def _ua_stylesheets(self, forms: bool = False) -> list[Any]:
            return [sheet, *super()._ua_stylesheets(forms)[1:]]

    return BookHTML


def render(document: str, base_url: str) -> Rendered:
    """Lay out and write one document; runs in a forked child."""
    doc = _html_class()(string=document, base_url=base_url).render()
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
    """The chapters shared among at most ``parts`` documents so that the largest is as small
    as can be (size: XHTML length, which tracks layout time well enough), none empty, each in
    book order. A document's chapters need not be consecutive: every chapter starts on a new
    page of the same page style, so its pages do not depend on what precedes it, and the join
    puts the pages back in book order (``body_order``). Cut only between consecutive chapters,
    the glossary's two parts were 1.26 M and 1.05 M characters; shared freely, 1.15 M each.

    Exact (branch and bound over the chapters, largest first, from the greedy longest-first
    assignment) for the few chapters a book has; past ``_SEARCH`` steps the best found so far
    is kept. Deterministic: the same chapters give the same documents on any machine."""
    k = max(1, min(parts, len(chapters)))
    order = sorted(range(len(chapters)), key=lambda i: (-len(chapters[i].body), i))
    sizes = [len(chapters[i].body) for i in order]
    loads = [0] * k
    best_of = [0] * len(order)
    for n, size in enumerate(sizes):  # longest first, each to the least loaded
        target = min(range(k), key=lambda j: (loads[j], j))
        best_of[n], loads[target] = target, loads[target] + size
    best = max(loads)
    remaining = [sum(sizes[n:]) for n in range(len(sizes) + 1)]
    loads, chosen, steps = [0] * k, [0] * len(order), 0

    def search(n: int) -> None:
        nonlocal best, best_of, steps
        steps += 1
        if steps > _SEARCH:
            return
        if n == len(sizes):
            if max(loads) < best:
                best, best_of = max(loads), chosen[:]
            return
        # no assignment of the rest can beat ``best`` if even an even spread cannot
        if max(max(loads), -(-(sum(loads) + remaining[n]) // k)) >= best:
            return
        tried: set[int] = set()
        for j in range(k):
            if loads[j] in tried or loads[j] + sizes[n] >= best:
                continue  # documents of equal load are interchangeable
            tried.add(loads[j])
            loads[j] += sizes[n]
            chosen[n] = j
            search(n + 1)
            loads[j] -= sizes[n]

    search(0)
    runs: list[list[int]] = [[] for _ in range(k)]
    for n, j in enumerate(best_of):
        runs[j].append(order[n])
    return sorted(([chapters[i] for i in sorted(run)] for run in runs if run), key=lambda run: chapters.index(run[0]))


#: steps of ``split``'s search; a book of a dozen chapters needs a few hundred
_SEARCH = 100_000


def body_order(chapters: Sequence[Chapter], runs: Sequence[Sequence[Chapter]], docs: Sequence[Rendered]) -> list[tuple[int, int]]:
    """(document, page) of each body page in book order: each chapter's pages run from the
    page its anchor (the chapter's ``div``) fell on to the next chapter's of its document."""
    starts: dict[str, tuple[int, int, int]] = {}
    for d, (run, doc) in enumerate(zip(runs, docs, strict=True)):
        firsts = []
        for chapter in run:
            if chapter.name not in doc.anchors:
                raise ValueError(f"chapter {chapter.name} has no anchor in its laid-out document")
            firsts.append(doc.anchors[chapter.name][0])
        if firsts and firsts[0] != 0 or firsts != sorted(firsts):
            raise ValueError(f"the chapters of document {d} do not start its pages in order: {firsts}")
        for chapter, first, end in zip(run, firsts, [*firsts[1:], doc.pages], strict=True):
            starts[chapter.name] = (d, first, end)
    return [(d, page) for chapter in chapters for d, first, end in [starts[chapter.name]] for page in range(first, end)]


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
        toc.append(f'<li class="toc-chapter"><a href="#{chapter.name}" data-page="{pages(chapter.name)}"><span>{html.escape(chapter.title)}</span></a></li>')
        toc += [f'<li class="toc-term"><a href="#{anchor}" data-page="{pages(anchor)}"><span>{html.escape(label)}</span></a></li>' for anchor, label in chapter.entries]
    intro = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    body = f'<div class="titlepage"><h1 class="booktitle">{html.escape(title)}</h1>{intro}</div><nav class="toc"><h1 class="toc-title">Contents</h1><ul>{"".join(toc)}</ul></nav>'
    return _document(title, css + PAGE_CSS + margin_css("counter(page, lower-roman)") + FRONT_CSS, _cross_links(body, set()))


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ") + '"'


def sheet_document(heads: Sequence[str], last: int, css: str) -> str:
    """The stamps' sample sheet: one page per distinct running head (no number), then one
    whose number is every digit (so the font subset holds them all and the join learns their
    glyphs), then one per length of number up to ``last``'s, each in the page style of the
    body, so every piece sits where the single document put it."""
    folios = [DIGITS, *("0" * n for n in range(1, len(str(last)) + 1))]
    pages = [(head, "") for head in dict.fromkeys(heads)] + [("", folio) for folio in folios]
    body = "".join(f'<div class="stamp" style="{html.escape(f"string-set: chapter {_css_string(head)}, folio {_css_string(folio)}")}"></div>' for head, folio in pages)
    return _document("stamps", css + PAGE_CSS + margin_css("string(folio)") + STAMP_CSS, body)


def _parallel(tasks: Sequence[Callable[[], Rendered]]) -> list[Rendered]:
    """Each of ``tasks`` in a forked child, no more at once than there are cores, while this
    process only waits: what a laid-out document leaves in reference cycles (the collector is
    paused) goes with its child's exit, so this process, which joins the parts next, neither
    holds it nor collects it. Collecting a part laid out here cost 0.8 s after it, on the
    critical path whenever this process's part was the later one to finish. Where forking is
    off (background.can_fork) the tasks run here one after another, each followed by that
    collection, with the same results."""
    if not can_fork():
        return [_then_collect(task)() for task in tasks]
    width = max(1, cpus())
    results: list[Rendered] = []
    for start in range(0, len(tasks), width):
        jobs = [Job(task, fork=True) for task in tasks[start : start + width]]
        results += [job.result() for job in jobs]
    return results


def render_book(title: str, lines: Sequence[str], chapters: Sequence[Chapter], css: str, base_url: str) -> bytes:
    """The whole book's PDF: the parts at once, then the front matter beside the join.

    The front matter is numbered apart (i, ii, ...; the body from 1, as in printed books), so
    the body's page numbers do not wait for the contents' length and the contents, which
    print the body's numbers, are laid out once, in a child while this process lays out the
    stamps' sheet and joins the parts.

    Python's cycle collector is paused throughout (in the forked children too): WeasyPrint
    makes millions of boxes, styles and text layouts that stay alive until the document is
    written, and every few hundred allocations the collector walked them again: 2.9 s of a
    part's 35 s of CPU (the same bytes). The parts are laid out in children (``_parallel``),
    which take what their documents left in cycles (about half a million objects) with them
    when they exit: kept through the join, those raised the peak from 372 to 451 MB."""
    from glossary_tool.load.cache import paused_gc

    with paused_gc():
        runs = split(chapters)
        renders = [lambda d=d: render(d, base_url) for d in (part_document(run, title, css) for run in runs)]
        parts = _parallel(renders)
        order = body_order(chapters, runs, parts)
        where = {at: n for n, at in enumerate(order)}
        number = {name: str(n + 1) for name, n in _first_places(parts, where).items()}
        heads = [parts[d].heads[page] for d, page in order]
        front = Job(lambda: render(front_document(title, lines, chapters, lambda anchor: number.get(anchor, ""), css), base_url))
        sheet = render(sheet_document(heads, len(heads), css), base_url)
        return join(title, front.result, parts, order, sheet, heads)


def _then_collect(task: Callable[[], Rendered]) -> Callable[[], Rendered]:
    """``task``, then one collection of the reference cycles it left (its laid-out document),
    which the paused collector would otherwise keep."""

    def run() -> Rendered:
        done = task()
        gc.collect()
        return done

    return run


def _first_places(docs: Sequence[Rendered], where: dict[tuple[int, int], int]) -> dict[str, int]:
    """Each anchor's body page (index in book order); of duplicate ids the first page wins,
    as in one document."""
    place: dict[str, int] = {}
    for d, doc in enumerate(docs):
        for name, (page, _x, _y) in doc.anchors.items():
            n = where[(d, page)]
            if name not in place or n < place[name]:
                place[name] = n
    return place


@dataclass(frozen=True)
class _Folio:
    """How the sheet draws a page number: its content stream with the number's position and
    glyphs left as placeholders, and what fills them in."""

    template: bytes
    glyphs: dict[str, bytes]  # digit -> its glyph id, as hex
    widths: dict[str, float]  # digit -> its advance, in the units of the number's x
    x: dict[int, float]  # number of digits -> x of a number of zeros that long


_X, _GLYPHS = b"/GlossaryFolioX", b"/GlossaryFolioGlyphs"


def _folio(pages: Sequence[Any], lengths: int) -> _Folio:
    """Read from the sheet's number pages (pikepdf pages: every digit, then "0", "00", ...)
    what a page number needs: WeasyPrint draws a number as one text-showing operator, in a
    CID font whose widths the font dictionary lists."""
    from pikepdf import Array, ContentStreamInstruction, Name, Operator, String, parse_content_stream, unparse_content_stream

    def text(page: Any) -> tuple[list[Any], int, int, bytes, float, list[Any]]:
        ops = list(parse_content_stream(page))
        shown = [i for i, op in enumerate(ops) if op.operator == Operator("TJ")]
        if len(shown) != 1:
            raise ValueError(f"a page number of the stamps' sheet is drawn by {len(shown)} TJ operators, not 1")
        at = max(i for i in range(shown[0]) if ops[i].operator == Operator("Tm"))
        font = next(list(ops[i].operands) for i in range(shown[0], -1, -1) if ops[i].operator == Operator("Tf"))
        glyphs = b"".join(bytes(item) for item in ops[shown[0]].operands[0] if isinstance(item, String))
        return ops, shown[0], at, glyphs, float(ops[at].operands[4]), font

    ops, shown, at, glyphs, _x, font = text(pages[0])
    if len(glyphs) != 2 * len(DIGITS):
        raise ValueError(f"the stamps' sheet drew the ten digits as {len(glyphs)} bytes, not two a glyph")
    gids = {digit: glyphs[2 * i : 2 * i + 2] for i, digit in enumerate(DIGITS)}
    cid_font = pages[0].obj.Resources.Font[font[0]].DescendantFonts[0]
    advance: dict[int, float] = {}
    w = list(cid_font.get("/W", Array()))
    i = 0
    while i < len(w):
        if isinstance(w[i + 1], Array):
            advance.update((int(w[i]) + k, float(v)) for k, v in enumerate(w[i + 1]))
            i += 2
        else:
            advance.update((c, float(w[i + 2])) for c in range(int(w[i]), int(w[i + 1]) + 1))
            i += 3
    default = float(cid_font.get("/DW", 1000))
    size = float(font[1])
    widths = {digit: advance.get(int.from_bytes(gid, "big"), default) * size / 1000 for digit, gid in gids.items()}
    xs = {n: text(page)[4] for n, page in enumerate(pages[1 : lengths + 1], start=1)}
    ops[at] = ContentStreamInstruction([*list(ops[at].operands)[:4], Name(_X.decode()), ops[at].operands[5]], Operator("Tm"))
    ops[shown] = ContentStreamInstruction([Array([Name(_GLYPHS.decode())])], Operator("TJ"))
    return _Folio(unparse_content_stream(ops), {d: gid.hex().encode() for d, gid in gids.items()}, widths, xs)


def _stamp(folio: _Folio, head: bytes, number: str) -> bytes:
    """A page's running head (the sheet's page for it) and number, each from the default state."""
    x = folio.x[len(number)] + (len(number) * folio.widths["0"] - sum(folio.widths[d] for d in number)) / 2
    drawn = folio.template.replace(_X, f"{x:f}".encode()).replace(_GLYPHS, b"<" + b"".join(folio.glyphs[d] for d in number) + b">")
    return b"q\n" + head + b"\nQ\nq\n" + drawn + b"\nQ\n"


def _contents(page: Any) -> bytes:
    """A pikepdf page's content, decoded: its one stream, or its streams joined by newlines."""
    from pikepdf import Array

    contents = page.obj.Contents
    if isinstance(contents, Array):
        return b"\n".join(part.read_bytes() for part in contents)
    return contents.read_bytes()


def _outline(book: Any, parent: Any, entries: Sequence[tuple[str, Any, Sequence[Any], bool]]) -> tuple[list[Any], int]:
    """Outline items for ``entries`` (label, destination, children, closed) under ``parent``,
    linked as siblings, and how many items they show (themselves and, where open, what
    their children show): each /Count as the PDF reference (12.3.3) defines it."""
    from pikepdf import Dictionary, String

    items = [book.make_indirect(Dictionary(Title=String(label), Parent=parent, Dest=dest)) for label, dest, _children, _closed in entries]
    shown = len(items)
    for i, (item, (_label, _dest, children, closed)) in enumerate(zip(items, entries, strict=True)):
        if i > 0:
            item.Prev = items[i - 1]
        if i + 1 < len(items):
            item.Next = items[i + 1]
        if children:
            kids, below = _outline(book, item, children)
            item.First, item.Last = kids[0], kids[-1]
            item.Count = -below if closed else below
            shown += 0 if closed else below
    return items, shown


def join(title: str, front_result: Callable[[], Rendered], parts: Sequence[Rendered], order: Sequence[tuple[int, int]], sheet: Rendered, heads: Sequence[str]) -> bytes:
    """One PDF: the front matter (``front_result()``, wanted only once the parts are joined),
    then the parts' pages in book order (``order``: (part, page) of each, from ``body_order``)
    with their running head and number drawn over them.

    qpdf (through pikepdf) copies the pages and what they use between files in C++, and
    writes the file without decoding a stream: pypdf's join parsed every object of the parts
    into Python objects, cloned and serialised them again, 4-5 s of one core after the parts
    (BENCHMARKS.md, PDF); this one takes under 1 s."""
    from importlib.metadata import version

    from pikepdf import Array, Dictionary, Name, ObjectStreamMode, Pdf, Stream, StreamDecodeLevel, String

    book = Pdf.new()
    sources = [Pdf.open(io.BytesIO(doc.pdf)) for doc in parts]
    for d, page in order:
        book.pages.append(sources[d].pages[page])
    body = list(book.pages)

    def stream(data: bytes, **entries: Any) -> Any:
        return book.make_indirect(Stream(book, data, **entries))

    # Each page's stamp is a form XObject (its running head, a page of the sheet, and its
    # number, drawn with the sheet's font) named in the page's resources (one dictionary that
    # all a part's pages share) and drawn after the page's own content, which is wrapped in
    # q/Q so the stamp starts from the default state.
    sample = Pdf.open(io.BytesIO(sheet.pdf))
    distinct = list(dict.fromkeys(heads))
    head_of = {head: _contents(sample.pages[i]) for i, head in enumerate(distinct)}
    folio = _folio(list(sample.pages)[len(distinct) :], len(str(len(heads))))
    merged: dict[str, dict[str, Any]] = {}
    for page in sample.pages:
        for key, value in page.obj.Resources.items():
            if isinstance(value, Dictionary):
                merged.setdefault(key, {}).update(value.items())
    resources = book.copy_foreign(sample.make_indirect(Dictionary({key: Dictionary(entries) for key, entries in merged.items()})))
    box = Array([float(v) for v in sample.pages[0].mediabox])
    opening = stream(b"q\n")
    for number, (page, head) in enumerate(zip(body, heads, strict=True)):
        form = stream(_stamp(folio, head_of[head], str(number + 1)), Type=Name.XObject, Subtype=Name.Form, BBox=box, Resources=resources)
        page_resources = page.obj.Resources
        if "/XObject" not in page_resources:
            page_resources.XObject = Dictionary()
        name = f"{STAMP}{number}"
        page_resources.XObject[name] = form
        page.obj.Contents = Array([opening, page.obj.Contents, stream(f"Q\n{name} Do\n".encode())])

    front = front_result()
    front_pdf = Pdf.open(io.BytesIO(front.pdf))
    for index, page in enumerate(front_pdf.pages):
        book.pages.insert(index, page)
    pages = [page.obj for page in book.pages]

    # one name tree for every anchor; the first of a name wins (WeasyPrint's rule)
    where = {at: front.pages + n for n, at in enumerate(order)}

    def place(d: int, page: int) -> int:
        """A page of the front matter (``d`` -1) or of part ``d``: its index in the book."""
        return page if d < 0 else where[(d, page)]

    def destination(n: int, x: float, y: float) -> Any:
        return Array([pages[n], Name.XYZ, x, y, 0])

    destinations: dict[str, Any] = {}
    first_page: dict[str, int] = {}
    for d, doc in enumerate((front, *parts), start=-1):
        for name, (page, x, y) in doc.anchors.items():
            n = place(d, page)
            if name not in first_page or n < first_page[name]:
                first_page[name] = n
                destinations[name] = destination(n, x, y)
    for page in pages:
        annotations = page.get("/Annots")
        if annotations is None:
            continue
        kept = Array()
        for annotation in annotations:
            action = annotation.get("/A")
            uri = action.get("/URI") if isinstance(action, Dictionary) else None
            if isinstance(uri, String) and str(uri).startswith(XREF_SCHEME):
                name = unquote(str(uri)[len(XREF_SCHEME) :])
                if name not in destinations:
                    continue  # a link to no anchor: dropped, as WeasyPrint drops it
                del annotation.A
                annotation.Dest = String(name)
            kept.append(annotation)
        page.Annots = kept
    names = Array([item for name in sorted(destinations) for item in (String(name), destinations[name])])  # in one go: each Array.extend copies the array
    book.Root.Names = Dictionary(Dests=book.make_indirect(Dictionary(Names=names)))

    def entry(item: Any, d: int) -> tuple[str, Any, list[Any], bool]:
        label, (page, x, y), children, state = item
        return label, destination(place(d, page), x, y), [entry(child, d) for child in children], state == "closed"

    # each document's top-level entries (its chapters) in book order; within a page, in the
    # order of their document
    tops = sorted(((place(d, item[1][0]), d, item) for d, doc in enumerate((front, *parts), start=-1) for item in doc.outline), key=lambda top: top[0])
    if tops:
        root = book.make_indirect(Dictionary(Type=Name.Outlines))
        items, shown = _outline(book, root, [entry(item, d) for _n, d, item in tops])
        root.First, root.Last, root.Count = items[0], items[-1], shown
        book.Root.Outlines = root
    book.Root.PageLabels = Dictionary(Nums=Array([0, Dictionary(S=Name.r), front.pages, Dictionary(S=Name.D)]))
    book.Root.Lang = String("en")
    book.trailer.Info = book.make_indirect(Dictionary(Producer=String(f"WeasyPrint {version('weasyprint')}, pikepdf {version('pikepdf')}"), Title=String(title)))
    out = io.BytesIO()
    # streams are written as the parts wrote them (none decoded and compressed again); the
    # file identifier is a digest of the file, so the same input gives the same bytes
    book.save(out, deterministic_id=True, stream_decode_level=StreamDecodeLevel.none, object_stream_mode=ObjectStreamMode.generate, min_version=max(source.pdf_version for source in sources))
    return out.getvalue()
