"""A glossary we did not write, in our format, for the build benchmark (issue 16).

Run: .venv/bin/python -m benchmarks.third_party SRC OUT [--twin TWIN]

SRC is a checkout of Modal's GPU Glossary (https://github.com/modal-labs/gpu-glossary). Its
code is MIT licensed and the glossary text under ``gpu-glossary/`` is CC BY 4.0 (its own
LICENSE file, © Modal Labs and contributors); none of that text is in this repository: the
benchmark reads it from SRC when it runs, and the converted project lives in a temporary
folder. ``bench_build --corpus third-party:SRC`` times our build and the bare MkDocs twin
on it, so the ``ours / bare`` ratio is measured on prose, link density and layout that no
generator of ours shaped.

Their layout: ``gpu-glossary/<section>/<term>.md`` with front matter ``title: What is a
Warp?`` (and sometimes ``abbreviation``), section pages ``gpu-glossary/<section>.md``, a
home page ``gpu-glossary/readme.md``, and cross-references written as site-absolute
Markdown links, ``[warps](/gpu-glossary/device-software/warp)``. The conversion:

- title: the front matter's question without its "What is a ...?" frame; abbreviation kept;
- summary: the first sentence of the first paragraph, as plain text (Markdown taken out),
  cut at a clause boundary if longer than our 200 characters (counted in the notes);
- sources: the term's page on modal.com (they cite none per term);
- a link to a term becomes ``[[slug]]`` when the text is what ``[[slug]]`` shows, else
  ``[[slug|text]]`` (``\\|`` inside a table row); emphasis around the whole text moves
  outside the brackets, code marks inside it are dropped (an xref's text is plain);
- a link to a section page or the home becomes a relative Markdown link to our page; other
  site-absolute links point at modal.com;
- their ``themed-image://x.svg`` images point at the light variant on their CDN (as their
  own bundler does), with the links inside the alt text reduced to their text;
- the reading order is alphabetical by file name (their order lives in their site's code);
  ``perf`` is our ``performance`` section; ``contributors.md`` is not a term and is left out.

Everything the conversion had to change or leave out is listed in :class:`Conversion`'s
``notes``. The bare twin is :func:`benchmarks.bench_build.child_twin` of the result, the
same function that makes the twin of a generated corpus.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

from glossary_tool.load.toc import dump_toc

#: Their section folder -> ours.
SECTIONS = {"device-hardware": "device-hardware", "device-software": "device-software", "host-software": "host-software", "perf": "performance"}
SITE = "https://modal.com"
CDN = "https://modal-cdn.com/gpu-glossary/light-"
SUMMARY_MAX = 200

_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)
_QUESTION = re.compile(r"^\s*What (?:is|are|does it mean to be) (?:(?:a|an|the) )?(?P<name>.+?)\s*\??\s*$", re.I)
# [text](dest) with one level of nested brackets in the text (an image's alt holds links);
# the text may wrap across lines.
_LINK = re.compile(r"(?P<bang>!?)\[(?P<text>(?:[^\[\]]|\[[^\[\]]*\])*)\]\((?P<dest>[^)\s]*)\)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_EMPHASIS = re.compile(r"^(\*\*|__|\*|_)(?P<inner>.+)\1$", re.S)
# A sentence ends at . ! ? followed by white space and a capital, a quote or the end.
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)(?<!\betc)[.!?](?=\s+[\"'(A-Z0-9]|\s*$)")


@dataclass(frozen=True)
class Page:
    """One of their pages: where it came from and where it goes."""

    src: Path
    section: str | None  # our section; None for the home page
    slug: str  # "index" for a section page or the home
    title: str
    abbreviation: str | None
    body: str


@dataclass(frozen=True)
class Conversion:
    terms: int
    links: int  # term links turned into [[...]]
    notes: tuple[str, ...]  # what had to change or go, one line per kind with its count


def _front_matter(text: str) -> tuple[dict, str]:
    match = _FRONT.match(text)
    if match is None:
        return {}, text
    return yaml.safe_load(match.group(1)) or {}, text[match.end() :]


def _title(question: str) -> str:
    """``What is a Streaming Multiprocessor?`` -> ``Streaming Multiprocessor``."""
    match = _QUESTION.match(question)
    return match.group("name") if match else question.strip()


def _yaml_str(value: str) -> str:
    return yaml.safe_dump(value, allow_unicode=True, width=10_000, default_style='"').strip()


def read_pages(src: Path) -> tuple[list[Page], list[str]]:
    """Their term, section and home pages (``src`` is the checkout), and notes on what was skipped."""
    root = src / "gpu-glossary"
    if not root.is_dir():
        raise SystemExit(f"{src}: no gpu-glossary/ folder; give the path of a checkout of modal-labs/gpu-glossary")
    pages: list[Page] = []
    notes: list[str] = []
    for path in sorted(root.glob("*.md")):
        meta, body = _front_matter(path.read_text(encoding="utf-8"))
        if path.stem in SECTIONS:
            pages.append(Page(path, SECTIONS[path.stem], "index", str(meta.get("title") or path.stem), None, body))
        elif path.stem == "readme":
            pages.append(Page(path, None, "index", "GPU Glossary", None, body))
        else:
            notes.append(f"left out {path.relative_to(src)} (not a term, section or home page)")
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if folder.name not in SECTIONS:
            notes.append(f"left out {folder.relative_to(src)}/ (no section of ours)")
            continue
        for path in sorted(folder.glob("*.md")):
            meta, body = _front_matter(path.read_text(encoding="utf-8"))
            abbreviation = meta.get("abbreviation")
            pages.append(Page(path, SECTIONS[folder.name], path.stem, _title(str(meta.get("title") or path.stem)), str(abbreviation) if abbreviation else None, body))
    return pages, notes


class _Converter:
    """Rewrites the bodies' links, given every page (so a link knows its target's title)."""

    def __init__(self, pages: list[Page]) -> None:
        self.terms = {(p.src.parent.name, p.slug): p for p in pages if p.slug != "index"}
        self.notes: Counter[str] = Counter()
        self.links = 0

    def body(self, page: Page) -> str:
        """The body with its links rewritten; fenced code and code spans untouched."""
        out, prose, fence = [], [], None
        for line in page.body.split("\n"):
            opener = _FENCE.match(line)
            if fence is None and opener:
                out.append(self._prose("\n".join(prose), page))
                prose, fence = [], opener.group(1)
                out.append(line)
            elif fence is not None:
                out.append(line)
                if line.strip().startswith(fence[0] * len(fence)) and line.strip().strip(fence[0]) == "":
                    fence = None
            else:
                prose.append(line)
        out.append(self._prose("\n".join(prose), page))
        return "\n".join(part for part in out).strip("\n") + "\n"

    def _prose(self, text: str, page: Page) -> str:
        # Code spans are set aside so that no link inside one is rewritten.
        spans: list[str] = []

        def keep(match: re.Match[str]) -> str:
            spans.append(match.group(0))
            return f"\x00{len(spans) - 1}\x00"

        text = _CODE_SPAN.sub(keep, text)
        lines = text.split("\n")
        starts, pos = [], 0
        for line in lines:
            starts.append((pos, line.lstrip().startswith("|")))
            pos += len(line) + 1

        def in_table(at: int) -> bool:
            for start, table in reversed(starts):
                if start <= at:
                    return table
            return False

        text = _LINK.sub(lambda m: self._link(m, page, in_table(m.start()), spans), text)
        return re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], text)

    def _plain(self, text: str, spans: list[str]) -> str:
        """Link text as plain text: code marks, nested links and emphasis taken out."""
        text = re.sub(r"\x00(\d+)\x00", lambda m: _CODE_SPAN.sub(r"\2", spans[int(m.group(1))]), text)
        text = _LINK.sub(lambda m: m.group("text"), text)
        return re.sub(r"(\*\*|__|(?<!\w)[*_]|[*_](?!\w))", "", text)

    def _link(self, match: re.Match[str], page: Page, table: bool, spans: list[str]) -> str:
        text, dest = match.group("text"), match.group("dest")
        up = "" if page.section is None else "../"  # from the home, or from a page in a section
        if match.group("bang"):
            if dest.startswith("themed-image://"):
                self.notes["images pointed at the light variant on modal-cdn.com (no image files in either build)"] += 1
                dest = CDN + dest.removeprefix("themed-image://")
            alt = _LINK.sub(lambda m: m.group("text"), text)
            if alt != text:
                self.notes["links inside image alt text reduced to their text (alt text is plain)"] += 1
            return f"![{alt}]({dest})"
        if not dest.startswith("/"):
            return match.group(0)
        parts = dest.split("#", 1)[0].strip("/").split("/")
        if parts[0] != "gpu-glossary":
            self.notes["site links pointed at modal.com"] += 1
            return f"[{text}]({SITE}{dest})"
        if len(parts) == 1 or parts[1:] == ["readme"]:
            self.notes["links to the home page made relative Markdown links"] += 1
            return f"[{text}]({up}index.md)"
        if len(parts) == 2 and parts[1] in SECTIONS:
            self.notes["links to section pages made relative Markdown links"] += 1
            return f"[{text}]({up}{SECTIONS[parts[1]]}/index.md)"
        target = self.terms.get((parts[1], parts[2])) if len(parts) == 3 else None
        if target is None:
            self.notes["links to no page of theirs reduced to their text"] += 1
            return text
        if target is page:
            self.notes["links of a term to itself reduced to their text"] += 1
            return text
        self.links += 1
        outer = ""
        emphasis = _EMPHASIS.match(text)
        if emphasis:
            outer, text = emphasis.group(1), emphasis.group("inner")
        plain = self._plain(text, spans)
        if plain != text:
            self.notes["term links whose text had code or emphasis marks inside (marks dropped)"] += 1
        shown = target.title if "-" in target.slug else target.slug
        if plain == shown:
            return f"{outer}[[{target.slug}]]{outer}"
        bar = "\\|" if table else "|"
        return f"{outer}[[{target.slug}{bar}{plain}]]{outer}"


def _plain_text(markdown: str) -> str:
    """Markdown prose as a reader reads it, on one line: the summary's raw material."""
    text = _LINK.sub(lambda m: "" if m.group("bang") else m.group("text"), markdown)
    text = _CODE_SPAN.sub(r"\2", text)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"(\*\*|__|(?<!\w)[*_]|[*_](?!\w))", "", text)
    return re.sub(r"\s+", " ", text).strip()


def _summary(body: str, notes: Counter[str]) -> str:
    """The first sentence of the first prose paragraph, at most SUMMARY_MAX characters."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", body)]
    first = next((p for p in paragraphs if p and not p.startswith(("!", "<", "#", "```", "|", "-", "*", ">"))), "")
    text = _plain_text(first)
    end = _SENTENCE_END.search(text)
    sentence = text[: end.end()] if end else text.rstrip(":;,") + "."
    if sentence.endswith(":"):
        sentence = sentence[:-1] + "."
    if len(sentence) > SUMMARY_MAX:
        notes[f"summaries cut at a clause boundary to fit {SUMMARY_MAX} characters"] += 1
        cut = sentence[: SUMMARY_MAX - 1]
        at = max(cut.rfind(", "), cut.rfind("; "), cut.rfind(" — "), cut.rfind(" -- "), cut.rfind(" ("))
        sentence = (cut[:at] if at > SUMMARY_MAX // 2 else cut[: cut.rfind(" ")]).rstrip(" ,;:") + "."
    return sentence


def convert(src: Path, root: Path) -> Conversion:
    """Write the glossary project of the checkout ``src`` under ``root`` (glossary/, toc.yml,
    diagrams/, snippets/; not mkdocs.yml: see :func:`prepare`)."""
    pages, skipped = read_pages(src)
    converter = _Converter(pages)
    glossary = root / "glossary"
    order: dict[str, list[str]] = {}
    for page in pages:
        body = converter.body(page)
        summary = _summary(page.body, converter.notes)  # their text: links read as their text
        if page.section is None:
            path = glossary / "index.md"
        else:
            path = glossary / page.section / f"{page.slug}.md"
        lines = ["---", f"title: {_yaml_str(page.title)}"]
        if page.abbreviation:
            lines.append(f"abbreviation: {_yaml_str(page.abbreviation)}")
        lines.append(f"summary: {_yaml_str(summary)}")
        if page.slug != "index":
            their_section = page.src.parent.name
            lines += ["sources:", f"  - title: {_yaml_str('Modal GPU Glossary, ' + page.title)}", f"    url: {SITE}/gpu-glossary/{their_section}/{page.slug}"]
            order.setdefault(page.section or "", []).append(page.slug)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join([*lines, "---", body]), encoding="utf-8")
    (glossary / "toc.yml").write_text(dump_toc({s: order[s] for s in SECTIONS.values() if s in order}), encoding="utf-8")
    for folder in ("diagrams", "snippets"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    notes = [*skipped, *(f"{count} {what}" for what, count in sorted(converter.notes.items()))]
    return Conversion(terms=sum(len(v) for v in order.values()), links=converter.links, notes=tuple(notes))


def prepare(src: Path, root: Path) -> Conversion:
    """:func:`convert`, plus the site configuration bench_build gives a generated corpus: our
    mkdocs.yml and the glossary's assets (stylesheet and scripts)."""
    from benchmarks.bench_build import add_site_config  # bench_build imports this module lazily too

    conversion = convert(src, root)
    add_site_config(root)
    return conversion


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("src", type=Path, help="a checkout of modal-labs/gpu-glossary")
    parser.add_argument("out", type=Path, help="where to write the converted project (a new folder)")
    parser.add_argument("--twin", type=Path, help="also write the bare MkDocs twin here")
    args = parser.parse_args()
    conversion = prepare(args.src, args.out)
    print(f"{conversion.terms} terms, {conversion.links} term links as [[...]]")
    for note in conversion.notes:
        print(f"  {note}")
    if args.twin:
        from benchmarks.bench_build import child_twin

        child_twin(args.out, args.twin)


if __name__ == "__main__":
    main()
