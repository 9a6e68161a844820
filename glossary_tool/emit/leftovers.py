"""The last line of defence of the ``[[...]]`` contract: no ``[[`` reaches a reader.

The parser turns every well-formed reference into a link, and `check` reports the malformed
ones it can see on tokens. This module looks at what was actually produced — a page's HTML,
a Markdown copy, llms-full.txt, an EPUB chapter — so that a Markdown context nobody thought
of cannot show raw brackets silently: any ``[[`` in prose (outside code, and outside a
deliberate ``\\[[`` literal) becomes an error at the source file and line it came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.load import cache
from glossary_tool.load.body import parse_tokens, parser, precomputed
from glossary_tool.load.cache import Cache
from glossary_tool.load.xref_rule import LITERAL_CLASS, make_parser
from glossary_tool.model import Glossary, Term
from glossary_tool.text import find_shown, shown_skeleton

if TYPE_CHECKING:
    from lxml import etree
    from markdown_it.token import Token

_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")
_CODE_TAGS = {"code", "pre", "script", "style", "kbd", "samp", "textarea"}
_CONTEXT = 40
#: An entity that shows ``[``.
_ENTITY_BRACKET = re.compile(r"&(?:#0*91|#x0*5b|lbrack|lsqb)", re.I)


#: Elements a reader sees as a break between the text before and after them (blocks, line
#: breaks, replaced elements, code). Any other element (``<strong>``, ``<a>``, ``<span>``, an
#: unknown tag, which browsers show inline) is only tags to a reader: ``[<b>[</b>x]]`` reads
#: ``[[x]]``.
_BREAKS = frozenset(
    """address article aside audio blockquote body br button canvas caption col colgroup dd details dialog
    div dl dt embed fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 head header hgroup hr html
    iframe img input legend li main math menu meta nav noscript object ol option p picture pre script
    section select source style summary svg table tbody td template textarea tfoot th thead title tr ul
    video""".split()
) | _CODE_TAGS
#: Two brackets with nothing, or nothing but tags and comments, between them. One search of
#: a whole page, in C: 0.05 ms a page of the real site (a pattern that also offered the
#: entities as an alternative took 1.2 ms).
_PAIR = re.compile(r"\[(?:<!--.*?-->|<(?:[^>\"']|\"[^\"]*\"|'[^']*')*>)*\[", re.S)


def _may_hold(markup: str) -> bool:
    """Whether ``markup`` can show ``[[`` in its prose: it holds the pair, maybe with tags
    and comments between the two, or an entity of ``[``."""
    return _PAIR.search(markup) is not None or _ENTITY_BRACKET.search(markup) is not None


@lru_cache(maxsize=1)
def _bracket_query() -> Any:
    """The texts and tails under an element that hold ``[[`` or end with ``[`` (the second
    bracket may come after a tag), and the comments and processing instructions holding ``[[``."""
    from lxml import etree

    return etree.XPath(
        ".//text()[contains(., '[[') or substring(., string-length(.)) = '[']"
        " | .//comment()[contains(., '[[')] | .//processing-instruction()[contains(., '[[')]"
    )


def _breaks(element: etree._Element) -> bool:
    tag = element.tag.rsplit("}", 1)[-1].lower()
    return tag in _BREAKS or LITERAL_CLASS in (element.get("class") or "").split()


def _seen_after(element: etree._Element, after_tail: bool) -> Iterator[str]:
    """The texts a reader sees right after ``element``'s text (or, with ``after_tail``, its
    tail), in order: across the tags of inline elements and across comments, up to the
    first break (:data:`_BREAKS`, or a deliberate literal)."""
    current, state = element, "after" if after_tail else "inside"
    while True:
        if state == "inside":  # past current's text: its first child next, else its end tag
            if len(current):
                current, state = current[0], "start"
            else:
                state = "end"
        elif state == "start":  # at current's start tag
            if not isinstance(current.tag, str):  # a comment or processing instruction: unseen
                if current.tail:
                    yield current.tail
                state = "after"
            elif _breaks(current):
                return
            else:
                if current.text:
                    yield current.text
                state = "inside"
        elif state == "end":  # at current's end tag
            if not isinstance(current.tag, str) or _breaks(current):
                return
            if current.tail:
                yield current.tail
            state = "after"
        else:  # past current and its tail
            following = current.getnext()
            if following is not None:
                current, state = following, "start"
            else:
                current, state = current.getparent(), "end"
                if current is None:
                    return


def _with_context(text: str, more: Iterator[str]) -> str:
    """``text`` and what a reader sees after it, up to :data:`_CONTEXT` characters (enough
    for :func:`locate` to tell the place from a link to the same term elsewhere)."""
    parts, size = [text], len(text)
    for piece in more:
        if size >= _CONTEXT:
            break
        parts.append(piece)
        size += len(piece)
    return "".join(parts)[:_CONTEXT]


@dataclass(frozen=True)
class Leftover:
    """Raw brackets found in an output, with the text that follows them (to find the source)."""

    text: str


def _skipped(element: etree._Element) -> bool:
    from lxml import etree

    while element is not None:
        if isinstance(element.tag, str):
            tag = etree.QName(element).localname if "}" in element.tag else element.tag
            if tag.lower() in _CODE_TAGS or LITERAL_CLASS in (element.get("class") or "").split():
                return True
        element = element.getparent()
    return False


def html_leftovers(markup: str) -> list[Leftover]:
    """``[[`` in the prose of an HTML (or XHTML) document or fragment, as a reader sees it:
    each text, tail and comment that holds it, and each text ending with ``[`` whose next
    visible text starts with one (``[<strong>[</strong>x]]``, ``[<!-- -->[x]]``, see
    :func:`_seen_after`), outside code, in the order of a walk over the elements (an
    element's text, then its tail, then the next element). Entities are read as what they
    show: ``&#91;&#91;x]]`` is ``[[x]]``. Each leftover holds what a reader sees from its
    brackets on, across inline tags (:func:`_with_context`).

    Most pages are not parsed at all (:func:`_may_hold`: 2 of the real site's 274). In those
    that are, XPath finds the few strings that hold ``[[`` or end with ``[`` in C: walking
    every node of each page in Python took 0.9 ms a page."""
    if not _may_hold(markup):
        return []
    from lxml import html as lhtml  # here: `check` rarely needs it (see check_rendered)

    markup = _XML_DECLARATION.sub("", markup, count=1)  # EPUB chapters: lxml refuses a str that declares its encoding
    root = lhtml.fromstring(markup) if markup.strip() else None
    if root is None:
        return []
    hits: list[tuple[Any, int, str]] = []  # (node, 0 text / 1 tail, the leftover)
    for found in _bracket_query()(root):
        if isinstance(found, str):  # a text or tail (lxml's string result knows its element)
            node = found.getparent()
            if node is None:
                continue
            owner = node if found.is_text else node.getparent()
            if owner is None or _skipped(owner):
                continue
            text, after = str(found), _seen_after(node, after_tail=not found.is_text)
            if "[[" in text:
                text = _with_context(text[text.index("[[") :], after)
            else:  # it ends with "[": a leftover if the next text a reader sees opens another
                following = next(after, "")
                if following[:1] != "[":
                    continue
                text = _with_context("[" + following, after)
            hits.append((node, 0 if found.is_text else 1, text))
        elif not _skipped(found):  # a comment or processing instruction: its own text
            text = found.text or ""
            hits.append((found, 0, text[text.index("[[") :][:_CONTEXT]))
    if len(hits) > 1:
        order = {node: i for i, node in enumerate(root.iter())}
        hits.sort(key=lambda hit: (order.get(hit[0], -1), hit[1]))
    return [Leftover(text) for _, _, text in hits]


def _may_show_brackets(content: str) -> bool:
    """Whether an inline token's source can yield ``[[`` in a text child or an xref.

    Text children hold runs of the source, merged where only escapes or entities stood
    between them (``[\\[``, ``&#91;[``); nothing else inline turns bracket-free source into
    ``[[``. So content with no ``[[``, no ``&`` and not both a backslash and a ``[`` can
    be left unparsed: its children could not hold what we look for.
    """
    return "[[" in content or "&" in content or ("\\" in content and "[" in content)


def _selective_inline(state: StateCore) -> None:
    """The core ``inline`` rule, skipping inline tokens that cannot show brackets."""
    for token in state.tokens:
        if token.type == "inline":
            if token.children is None:
                token.children = []
            if _may_show_brackets(token.content):
                state.md.inline.parse(token.content, state.md, state.env, token.children)


@lru_cache(maxsize=1)
def _scanner() -> MarkdownIt:
    """The dialect's parser (the same block structure: code, HTML blocks, tables, tabs),
    with inline parsing only where brackets could come out. Generated Markdown (llms.txt,
    the Markdown copies) is large and mostly links and code: parsing it whole took most of
    the EPUB/llms side process of a 1,000-term build."""
    md = make_parser()
    md.core.ruler.at("inline", _selective_inline)
    return md


def markdown_leftovers(markdown: str) -> list[Leftover]:
    """``[[`` that a Markdown reader (or model) would see: any xref the copy still holds, or
    brackets the parser left as text. Parsed here, not through ``parse_tokens``: generated
    files are scanned once, and caching their tokens would hold megabytes for nothing.

    A whole-glossary file (llms-full.txt: 2.3 MB at 1,000 terms, 84 MiB of tokens parsed
    whole) is parsed one term at a time where that gives the same tokens (:func:`_parts`)."""
    if "[[" not in markdown:
        return []
    try:
        return [leftover for tokens in _parts(markdown) for leftover in _token_leftovers(tokens)]
    except _Inseparable:
        return _token_leftovers(parser().parse(markdown))  # all of it: footnotes need their references parsed


def _token_leftovers(tokens: Sequence[Token]) -> list[Leftover]:
    found: list[Leftover] = []
    for token in tokens:
        if token.type == "html_block" and "[[" in token.content:
            found.append(Leftover(token.content[token.content.index("[[") :][:_CONTEXT]))
        for child in token.children or []:
            if child.type == "xref" or (child.type == "text" and "[[" in child.content):
                start = child.content.index("[[")
                found.append(Leftover(child.content[start : start + _CONTEXT]))
    return found


#: Where llms-full.txt and the section files start a term: its anchor, alone on a line
#: between blank lines (emit/templates/llms-*.txt.j2).
_ANCHOR_LINE = re.compile(r'(?<=\n\n)<a id="[^"\n]*"></a>\n(?=\n)')


class _Inseparable(Exception):
    """The text cannot be parsed in pieces (see :func:`_parts`)."""


def _parts(markdown: str) -> Iterator[list[Token]]:
    """The token stream of ``markdown``, in pieces that together are the stream of the whole.

    The text is cut before each anchor line (:data:`_ANCHOR_LINE`). A piece is parsed with
    the anchor line that ends it, and holds only when that line starts a top-level block
    there: the block parser reads line by line, so nothing of the piece is open when the
    next one starts, and parsing the rest alone gives the tokens the whole text gives from
    that line on. Link reference definitions and footnotes reach across the text (footnotes
    are moved to its end), and so may what the parser normalises (CR, NUL): for those, or
    a piece that does not close, this raises _Inseparable and the caller parses the whole
    (fully: the selective scanner would drop a footnote whose reference it did not parse).
    """
    if "\r" in markdown or "\0" in markdown:
        raise _Inseparable
    start = 0
    for cut in [*(m.start() for m in _ANCHOR_LINE.finditer(markdown)), len(markdown)]:
        if cut == start:
            continue
        last = cut == len(markdown)
        env: dict = {}
        tokens = _scanner().parse(markdown[start:] if last else markdown[start : markdown.index("\n", cut) + 2], env)
        notes = env.get("footnotes") or {}  # the plugin leaves an empty record behind
        if env.get("references") or notes.get("refs") or notes.get("list"):
            raise _Inseparable
        if not last:
            line = markdown.count("\n", start, cut)
            head = next((i for i, token in enumerate(tokens) if token.level == 0 and token.map is not None and token.map[0] >= line), None)
            if head is None or tokens[head].map[0] != line:  # the anchor line is inside an open block
                raise _Inseparable
            del tokens[head:]
        yield tokens
        start = cut


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_WORD = re.compile(r"[^\W_]{2,}")


def _needles(leftover: Leftover) -> tuple[list[str], str | None]:
    """Skeletons of the leftover's text, longest first, and its first word (a cheap test of
    which source lines are worth a skeleton: the shortest needle holds it)."""
    skeleton = shown_skeleton(leftover.text)[0]
    needles = list(dict.fromkeys(skeleton[:n] for n in (len(skeleton), 16, 10, 6) if 3 <= n <= len(skeleton)))
    word = _WORD.search(leftover.text)
    return needles, word.group(0)[:4] if word and word.start() < 6 else None


def _found(term: Term, needle: str, word: str | None, xrefs: bool) -> tuple[int, int] | None:
    """The file line and column of the first prose line of ``term`` whose skeleton holds
    ``needle``, at a place that is not where a parsed reference opens unless ``xrefs``."""
    opened = {(xref.line, xref.col) for xref in term.xrefs}
    in_fence = False
    for number, line in enumerate(term.body.split("\n")):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence or (word is not None and word not in line) or ("[" not in line and "&" not in line):
            continue
        row = term.body_offset + number + 1
        col = find_shown(line, needle, () if xrefs else {column - 1 for at, column in opened if at == row})
        if col is not None:
            return row, col + 1
    return None


def locate(term: Term, leftover: Leftover) -> tuple[int, int]:
    """The file line and column in ``term`` where ``leftover`` was written (best effort).

    The output and the source are compared as a reader sees them (:func:`~glossary_tool.text.shown_skeleton`): the
    first prose line holding the leftover's text, else its first 16, 10 or 6 characters
    (a leftover may run over a line break). A place where the loader parsed a reference is
    taken last: its ``[[`` became a link, so brackets left in the output came from elsewhere
    unless the renderer missed it. Else the body's first line."""
    needles, word = _needles(leftover)
    for xrefs, hint in ((False, word), (True, word), (False, None)):
        for needle in needles:
            place = _found(term, needle, hint, xrefs)
            if place is not None:
                return place
    return term.body_offset + 1, 1


def _excerpt(text: str) -> str:
    """The leftover's first 30 characters with its line breaks and runs of spaces made one
    space: a diagnostic is one line."""
    return " ".join(text.split())[:30]


def leftover_diagnostics(term: Term, leftovers: list[Leftover], where: str) -> list[Diagnostic]:
    """One error per leftover, pointing at the term's source; ``where`` names the output."""
    out = []
    for leftover in leftovers:
        line, col = locate(term, leftover)
        out.append(
            error(
                term.path,
                line,
                col,
                "xref-raw-output",
                f"raw '[[' reaches readers in {where} ('{_excerpt(leftover.text)}...'): this Markdown context did not link it; "
                "write the reference in a paragraph, list, quote or table cell, or \\[[ for literal brackets",
            )
        )
    return out


#: Source that inline markup turns into tags or nothing, so that brackets on either side of it
#: meet in the prose: emphasis and strikethrough marks, autolink angles, a link's destination
#: or reference label (``**[**[x]]``, ``[a\\[](u)[x]]`` read ``[[x]]``, see html_leftovers).
_UNSEEN_MARKUP = r"\]\([^)\n]*\)|\]\[[^\]\n]*\]|[*_~<>]"
#: Two brackets with only such markup between them.
_MARKUP_PAIR = re.compile(rf"\[(?:{_UNSEEN_MARKUP})+\[")


@precomputed()
def brackets_cannot_render(body: str) -> bool:
    """True when no rendering of ``body`` can show ``[[`` in prose, as its tokens prove; False
    when it might (then :func:`check_rendered` renders it and looks).

    Rendered prose holds only what the source holds outside code, raw HTML and the xrefs
    themselves (an xref shows a title or its own text, neither with brackets), plus what
    entities and backslash escapes decode to; and brackets meet in prose across the tags
    that inline markup becomes. So a body is cleared when, after blanking its fenced and
    indented code and the opening ``[[`` of each xref token (each at the position the loader
    recorded for it, and each position used once), no ``[[`` is left, even with every
    backslash removed, nor an entity of ``[``, nor two brackets with only the markup of
    :data:`_UNSEEN_MARKUP` between them; and it holds no raw HTML, which the sanitiser may
    drop from between two brackets. Titles with brackets are the caller's concern (they
    change what an xref shows).
    """
    if "[[" not in body and "\\" not in body and "&" not in body and "<" not in body:
        return True
    try:
        tokens = parse_tokens(body)
    except RecursionError:
        return False
    masked = body.split("\n")
    opened: dict[int, set[int]] = {}  # line -> the columns of the xrefs' "[[" there, each used once
    for token in tokens:
        kind = token.type
        if kind == "html_block":
            return False
        if kind in ("fence", "code_block") and token.map:
            for number in range(*token.map):
                masked[number] = ""
        children = token.children
        # a child's text comes from its token's: no "<", no html_inline; no "[[", no xref
        if not children or (kind == "inline" and "<" not in token.content and "[[" not in token.content):
            continue
        for child in children:
            if child.type == "html_inline":
                return False
            if child.type == "xref":
                line, col = child.meta.get("line"), child.meta.get("col")
                if line is None:
                    return False
                used = opened.setdefault(line, set())
                if col in used or col + 1 in used or col - 1 in used or not masked[line].startswith("[[", col):
                    return False
                used.add(col)
    for line, columns in opened.items():
        text = masked[line]
        if text:  # else a code block blanked it after
            pieces, at = [], 0
            for col in sorted(columns):
                pieces += (text[at:col], "\0\0")
                at = col + 2
            pieces.append(text[at:])
            masked[line] = "".join(pieces)
    text = "\n".join(masked).replace("\\", "")
    if "[[" in text or _ENTITY_BRACKET.search(text) is not None:
        return False
    return _MARKUP_PAIR.search(text) is None


def check_rendered(glossary: Glossary, known: set[tuple[str, int]] | None = None, store: Cache | None = None) -> list[Diagnostic]:
    """Report any ``[[`` left in the prose of a term body or section intro rendered as the
    site renders it (code not highlighted: it is skipped anyway). Part of `glossary check`.

    ``known``: (path, line) already reported by the parser's own checks (one problem, one error).
    ``store``: leftovers of earlier runs, keyed by what the prose of a page depends on: its
    body and the texts its resolved links show (hrefs and tooltips are attributes, not prose).
    Unresolved references show their own text; resolved ones are ``<a>`` elements, whose text
    is a node of its own, so a title without brackets cannot complete a ``[[``.

    A body that :func:`brackets_cannot_render` clears is not rendered: that proof trusts the
    renderer to show an xref as a link or its text. So the first page it clears is rendered
    anyway, and if brackets show there, the proof is set aside for the rest of the run.
    """

    def rendered(term: Term) -> list[Leftover]:
        # imported here: a check whose pages are all cleared or cached renders nothing
        from glossary_tool.emit.links import RelativeLinker, term_src
        from glossary_tool.emit.render import RenderOptions, render_body

        options = RenderOptions(glossary, RelativeLinker(term_src(term)), None, permalinks=False, highlight_code=False)
        return html_leftovers(render_body(term, options).html)

    out: list[Diagnostic] = []
    pages = [section.page for section in glossary.sections if section.page is not None]
    if glossary.home is not None and glossary.home.page is not None:
        pages.append(glossary.home.page)
    # A link shows the body's text or its target's title or abbreviation; while no title or
    # abbreviation holds a bracket, a page's prose (and so its leftovers) is its body's alone.
    bracketed = any("[" in t.title or "[" in (t.abbreviation or "") for t in glossary.terms.values())
    if bracketed:
        from glossary_tool.emit.markdown import display_text
    trusted: bool | None = None  # the proof, once compared with a render of a page with links
    for term in [*glossary.ordered_terms(), *pages]:
        name = ""
        if store is not None:
            shown = [display_text(link.xref, glossary.terms[link.target]) for link in glossary.links.get(term.slug, ())] if bracketed else []
            name = cache.key("leftovers", term.body, *shown)
        leftovers = store.get(name) if store is not None else None
        if leftovers is None:
            cleared = not bracketed and brackets_cannot_render(term.body)
            if cleared and (trusted or not term.xrefs):
                leftovers = []
            else:
                leftovers = rendered(term)
                if cleared and trusted is None:
                    trusted = not leftovers
            if store is not None:
                store.put(name, leftovers)
        found = leftover_diagnostics(term, leftovers, "the page")
        out += [d for d in found if (d.path, d.line) not in (known or set())]
    return out


def source_of(glossary: Glossary, leftover: Leftover) -> Term | None:
    """The term whose body holds ``leftover`` (for whole-glossary outputs: llms-full.txt, the
    EPUB), compared as :func:`locate` compares: the longest match first, and a body where the
    text is a parsed reference only when no other body holds it."""
    needles, word = _needles(leftover)
    pages = [s.page for s in glossary.sections if s.page is not None]
    terms = [*glossary.ordered_terms(), *pages]
    if word is not None:
        terms = [term for term in terms if word in term.body]
    for xrefs in (False, True):
        for needle in needles:
            for term in terms:
                if _found(term, needle, word, xrefs) is not None:
                    return term
    return None


def output_diagnostics(glossary: Glossary, leftovers: list[Leftover], where: str) -> list[Diagnostic]:
    """Leftovers of a whole-glossary output, each reported at the term it came from."""
    out: list[Diagnostic] = []
    for leftover in leftovers:
        term = source_of(glossary, leftover)
        if term is not None:
            out += leftover_diagnostics(term, [leftover], where)
        else:
            out.append(error("glossary/toc.yml", 1, 1, "xref-raw-output", f"raw '[[' reaches readers in {where} ('{_excerpt(leftover.text)}...') from a generated part of it"))
    return out
