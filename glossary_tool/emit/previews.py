"""Link previews: hovering, focusing or tapping a link to a term shows a card of its opening.

Material 9.8's ``navigation.instant.preview`` fetches the target page, but it finds pages
through sitemap.xml with the production host's port, so it shows nothing under
``glossary serve`` or any server on a port, and it does not cover links inside drawings
(SVG) or taps. The site's own card (glossary/assets/preview.js) is fed by one small JSON
written here: each term's title, summary and the plain text of its opening paragraph.
Links to terms gain ``data-gg-preview``; they keep their ``title`` (the summary, shown
without JavaScript), which the script removes so that Material's tooltip does not cover the card.
"""

from __future__ import annotations

import html
import json
import posixpath
import re
from collections.abc import Callable, Collection

from glossary_tool.emit.markdown import display_text
from glossary_tool.load.body import parse_tokens, precomputed
from glossary_tool.model import Glossary, Term, XRef
from glossary_tool.text import without_code_marks

PREVIEWS_SRC = "assets/previews.json"
#: The opening is cut at a sentence end near this many characters.
OPENING_CHARS = 420


#: A paragraph of an opening as the body gives it: ("text", text) or ("xref", target,
#: anchor, text, suffix, source), shown text for the reference to be found with the glossary.
Piece = tuple[str, ...]


@precomputed()
def opening_paragraphs(body: str) -> tuple[tuple[Piece, ...], ...]:
    """The body's top-level paragraphs, as pieces, as far as an opening can reach: their
    text without the references is already OPENING_CHARS long (the shown text of a
    reference only adds to it). A pure function of the body, so the process that parsed it
    computes it (`glossary build` parses on every core; body.precomputed)."""
    tokens = parse_tokens(body)  # the stream `check` validated: no second parser, no regex over the source
    paragraphs: list[tuple[Piece, ...]] = []
    plain = 0
    for i, token in enumerate(tokens):
        if token.type == "inline" and i > 0 and tokens[i - 1].type == "paragraph_open" and token.level == 1:
            pieces: list[Piece] = []
            for child in token.children or ():
                if child.type in ("text", "code_inline"):
                    pieces.append(("text", child.content))
                elif child.type == "xref_literal":
                    pieces.append(("text", "[["))
                elif child.type == "xref":
                    meta = child.meta
                    pieces.append(("xref", meta["target"], meta["anchor"], meta["text"], meta["suffix"], child.content))
                elif child.type in ("softbreak", "hardbreak"):
                    pieces.append(("text", " "))
            paragraphs.append(tuple(pieces))
            plain += len(" ".join("".join(piece[1] for piece in pieces if piece[0] == "text").split()))
            if plain >= OPENING_CHARS:
                break
    return tuple(paragraphs)


def _plain(pieces: tuple[Piece, ...], resolve: Callable[[str], Term | None]) -> str:
    """A paragraph's text as a reader sees it, references by their shown text."""
    parts = []
    for piece in pieces:
        if piece[0] == "text":
            parts.append(piece[1])
        else:
            _, target_name, anchor, text, suffix, source = piece
            xref = XRef(target_name, anchor, text, suffix, 0, 0, source)
            target = resolve(target_name)
            parts.append(without_code_marks(display_text(xref, target) if target is not None else xref.shown))
    return " ".join("".join(parts).split())


def opening(term: Term, glossary: Glossary, resolve: Callable[[str], Term | None]) -> str:
    """Plain text of the body's first paragraphs, about OPENING_CHARS long, cut at a sentence end."""
    paragraphs: list[str] = []
    for pieces in opening_paragraphs(term.body):
        text = _plain(pieces, resolve)
        if text:
            paragraphs.append(text)
        if sum(len(p) for p in paragraphs) >= OPENING_CHARS:
            break
    text = " ".join(paragraphs)
    if len(text) <= OPENING_CHARS:
        return text
    cut = max(text.rfind(". ", 0, OPENING_CHARS + 1), text.rfind("; ", 0, OPENING_CHARS + 1))
    if cut >= OPENING_CHARS // 3:
        return text[: cut + 1]
    return text[:OPENING_CHARS].rsplit(" ", 1)[0] + " …"


def resolver(glossary: Glossary) -> Callable[[str], Term | None]:
    """A name as [[...]] writes it -> its term (None when unknown or ambiguous)."""
    from glossary_tool.link.names import build_index

    index, _ = build_index(list(glossary.terms.values()))

    def resolve(name: str) -> Term | None:
        slugs = index.resolve(name)
        return glossary.terms.get(slugs[0]) if len(slugs) == 1 else None

    return resolve


def previews_index(
    glossary: Glossary, location: Callable[[Term], str], resolve: Callable[[str], Term | None], opening_of: Callable[[Term], str] | None = None
) -> dict[str, dict[str, str]]:
    """Term page address (``device-software/warp/``) -> title, section, summary and opening.

    ``opening_of`` replaces :func:`opening` (a build takes unchanged ones from its cache)."""
    sections = {s.slug: s.title for s in glossary.sections}
    opening_of = opening_of or (lambda term: opening(term, glossary, resolve))
    return {location(term): {"title": term.display_title, "section": sections.get(term.section, term.section), "summary": term.summary, "opening": opening_of(term)} for term in glossary.ordered_terms()}


def previews_json(glossary: Glossary, location: Callable[[Term], str], resolve: Callable[[str], Term | None], opening_of: Callable[[Term], str] | None = None) -> str:
    return json.dumps(previews_index(glossary, location, resolve, opening_of), ensure_ascii=False, separators=(",", ":"), sort_keys=True)


_ANCHOR = re.compile(r"<a\b([^>]*)>")
_HREF = re.compile(r'\bhref="([^"]*)"')


def mark_previewable(page_html: str, page_url: str, term_urls: Collection[str]) -> str:
    """Give every link to a term page ``data-gg-preview``.

    ``page_url`` and ``term_urls`` are site-relative page addresses (``performance/occupancy/``);
    hrefs are resolved against the page, fragments and queries ignored.
    """
    base = posixpath.dirname(page_url.rstrip("/")) + "/" if page_url else ""
    page_dir = page_url if page_url.endswith("/") or not page_url else base

    def target(href: str) -> str | None:
        href = html.unescape(href).split("#", 1)[0].split("?", 1)[0]
        if not href or "://" in href or href.startswith(("/", "mailto:", "data:")):
            return None
        path = posixpath.normpath(posixpath.join(page_dir, href))
        path = "" if path == "." else path
        key = path + "/" if path and not path.endswith(".html") else path
        return key if key in term_urls else None

    def mark(match: re.Match[str]) -> str:
        attrs = match.group(1)
        href = _HREF.search(attrs)
        if href is None or "data-gg-preview" in attrs or target(href.group(1)) is None:
            return match.group(0)
        return f"<a{attrs} data-gg-preview>"

    return _ANCHOR.sub(mark, page_html)
