"""Term bodies to HTML from the token stream `check` validated: the one Markdown engine.

The loader parsed each body with markdown-it-py (load/body.py, ``parse_tokens``, cached per
process); this module renders those same tokens. Cross-references are resolved here, on
``xref`` tokens, against the links the linker resolved for exactly those tokens (keyed by
their source position), so a reference is linked in every context the parser gives inline
text to (paragraphs, lists, quotes, tables, admonitions, tabs, footnotes), and nowhere else.

Raw HTML written by an author is passed through nh3 (the Ammonia sanitiser), so what a
browser runs never depends on regexes guessing at HTML. Generated parts (snippet blocks)
are inserted after sanitising: they are ours.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import nh3
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token

from glossary_tool.emit.html_parts import highlight
from glossary_tool.emit.links import Linker
from glossary_tool.load.body import explicit_anchors, inline_text, parse_once, parse_tokens, parser, unique_anchor
from glossary_tool.model import Glossary, Link, Snippet, Term
from glossary_tool.text import code_spans, slugify


class MarkdownBlock(str):
    """Generated Markdown to be rendered in place by this engine (not inserted as HTML)."""


#: (term, snippet) -> the block that replaces the snippet's fences on the page: HTML,
#: inserted as it is, or a :class:`MarkdownBlock`.
SnippetHtml = Callable[[Term, Snippet], str]


@dataclass(frozen=True)
class TocEntry:
    level: int
    id: str
    name: str
    children: tuple[TocEntry, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The shape of Python-Markdown's ``toc_tokens`` (what the site generator's ``get_toc`` reads)."""
        return {"level": self.level, "id": self.id, "name": self.name, "children": [c.as_dict() for c in self.children]}


@dataclass(frozen=True)
class RenderOptions:
    """How one output wants its HTML: the site, the book and tests differ only here."""

    glossary: Glossary
    linker: Linker
    snippets: SnippetHtml | None = None
    #: Rewrites the href of a Markdown link (generated pages link ``.md`` sources).
    href: Callable[[str], str] | None = None
    #: Whether ``href`` also rewrites what ``linker`` gives a cross-reference: the site's
    #: linker gives ``.md`` sources, which it must; the book's gives final in-book links.
    href_xrefs: bool = True
    #: Prefix of heading ids (the book puts every term in one chapter: ``term-<slug>-``).
    anchor_prefix: str = ""
    #: Added to every body heading's level (the book's term titles are h2).
    heading_shift: int = 0
    permalinks: bool = True
    #: Pygments highlighting of code blocks; `check` renders without it.
    highlight_code: bool = True
    #: An image as a link to it, its alt text the link's (the book: it embeds no image files).
    image_links: bool = False


@dataclass
class PageState:
    """What spans the pieces of one page: heading ids in use, tab-set numbers, headings seen."""

    anchors: dict[str, int] = field(default_factory=dict)
    headings: list[tuple[int, str, str]] = field(default_factory=list)
    tab_sets: int = 0

    def toc(self) -> tuple[TocEntry, ...]:
        """Headings nested by level, as the toc extension nests them."""
        root: list[dict[str, Any]] = []
        stack: list[dict[str, Any]] = []
        for level, ident, name in self.headings:
            node = {"level": level, "id": ident, "name": name, "children": []}
            while stack and stack[-1]["level"] >= level:
                stack.pop()
            (stack[-1]["children"] if stack else root).append(node)
            stack.append(node)

        def freeze(node: dict[str, Any]) -> TocEntry:
            return TocEntry(node["level"], node["id"], node["name"], tuple(freeze(c) for c in node["children"]))

        return tuple(freeze(n) for n in root)


@dataclass(frozen=True)
class Rendered:
    html: str
    toc: tuple[TocEntry, ...]


# Tags and attributes an author may write as raw HTML. Everything else is removed by nh3.
ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn",
    "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins",
    "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "section", "small", "span", "strong", "sub", "summary",
    "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "u", "ul", "var", "wbr", "input", "label",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "*": {"class", "id", "title", "lang", "dir"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height", "loading"},
    "td": {"align", "colspan", "rowspan", "style"},
    "th": {"align", "colspan", "rowspan", "style", "scope"},
    "ol": {"start", "type"},
    "details": {"open"},
    "input": {"type", "name", "checked", "disabled"},
    "label": {"for"},
    "div": {"data-tabs", "data-search-exclude"},
}
_SANITIZE = {
    "tags": ALLOWED_TAGS,
    "attributes": ALLOWED_ATTRIBUTES,
    "url_schemes": {"http", "https", "mailto"},
    "link_rel": None,
    "filter_style_properties": {"text-align"},
    "strip_comments": True,
}
_SLOT = "@@glossary-snippet-{}@@"


def shown_html(text: str) -> str:
    """The text of a reference as HTML: its code spans as ``<code>``, the rest escaped."""
    if "`" not in text:
        return html.escape(text, quote=False)
    return "".join(f"<code>{html.escape(piece, quote=False)}</code>" if code else html.escape(piece, quote=False) for code, piece in code_spans(text))


class _Renderer(RendererHTML):
    """markdown-it's HTML renderer with the glossary's tokens and Material's markup."""

    def __init__(self) -> None:
        super().__init__(parser())
        # the plugins' rules (footnotes, admonitions) as registered on the shared parser
        for name, rule in parser().renderer.rules.items():
            if name not in self.rules or not hasattr(type(self), name):
                self.rules[name] = rule

    # -- cross-references -------------------------------------------------------------
    # A reference's text may hold code spans (``[[syncthreads|`__syncthreads()`]]``), shown as
    # code; everything else in it is text.
    def xref(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        meta = tokens[idx].meta
        link: Link | None = env["links"].get((meta.get("line"), meta.get("col")))
        if link is None:  # unresolved: shown as text (check reports it)
            return shown_html((meta["text"] if meta["text"] is not None else meta["target"]) + meta["suffix"])
        from glossary_tool.emit.markdown import display_text

        opts: RenderOptions = env["options"]
        target = opts.glossary.terms[link.target]
        href = opts.linker.to_term(target, link.xref.anchor)
        href = opts.href(href) if opts.href is not None and opts.href_xrefs else href
        return f'<a href="{html.escape(href)}" title="{html.escape(target.summary)}">{shown_html(display_text(link.xref, target))}</a>'

    # -- code ---------------------------------------------------------------------------
    def fence(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        token = tokens[idx]
        start = (token.map or (0, 0))[0]
        if start in env["skip"]:
            return ""
        snippet: Snippet | None = env["snippets"].get(start)
        opts: RenderOptions = env["options"]
        if snippet is not None and opts.snippets is not None:
            env["skip"].update(line for line in range(snippet.body_start + 1, snippet.body_end))
            block = opts.snippets(env["term"], snippet)
            if isinstance(block, MarkdownBlock):  # rendered by this engine, in this page (tab ids stay unique)
                block = render_tokens(parse_once(block), opts, env["page"])
            env["slots"].append(block)
            return _SLOT.format(len(env["slots"]) - 1) + "\n"
        lang = token.info.split(None, 1)[0] if token.info.strip() else ""
        return self._code(token.content, lang, opts) + "\n"

    def code_block(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        return self._code(tokens[idx].content, "", env["options"]) + "\n"

    @staticmethod
    def _code(code: str, lang: str, opts: RenderOptions) -> str:
        if opts.highlight_code:
            return highlight(code, lang)
        lang_class = f' class="language-{html.escape(lang)}"' if lang else ""
        return f"<pre><code{lang_class}>{html.escape(code, quote=False)}</code></pre>"

    # -- headings -----------------------------------------------------------------------
    def heading_open(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        opts: RenderOptions = env["options"]
        state: PageState = env["page"]
        token = tokens[idx]
        name = inline_text(tokens[idx + 1]).strip()
        explicit = token.attrs.get("id")  # ``## Title {#id}`` (load/heading_attrs.py)
        anchor = str(explicit) if explicit else unique_anchor(slugify(name), state.anchors)
        ident = opts.anchor_prefix + anchor
        level = min(int(token.tag[1]) + opts.heading_shift, 6)
        state.headings.append((level, ident, html.escape(name, quote=False)))
        env["heading"] = ident
        classes = token.attrs.get("class")
        return f'<h{level} id="{html.escape(ident)}"' + (f' class="{html.escape(str(classes))}">' if classes else ">")

    def heading_close(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        opts: RenderOptions = env["options"]
        level = min(int(tokens[idx].tag[1]) + opts.heading_shift, 6)
        ident = env.pop("heading", "")
        link = f'<a class="headerlink" href="#{html.escape(ident)}" title="Permanent link">&para;</a>' if opts.permalinks else ""
        return f"{link}</h{level}>\n"

    # -- links of generated pages ------------------------------------------------------------
    def link_open(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        token = tokens[idx]
        rewrite = env["options"].href
        if rewrite is not None and token.attrs.get("href"):
            token = token.copy()
            token.attrs = {**token.attrs, "href": rewrite(str(token.attrs["href"]))}
            return self.renderToken([token], 0, options, env)
        return self.renderToken(tokens, idx, options, env)

    def image(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        token = tokens[idx]
        opts: RenderOptions = env["options"]
        src = str(token.attrs.get("src", ""))
        if opts.href is not None and src:
            src = opts.href(src)
        if opts.image_links:
            alt = self.renderInlineAsText(token.children or [], options, env) or src
            return f'<a href="{html.escape(src)}">{html.escape(alt, quote=False)}</a>'
        if src != token.attrs.get("src"):
            token = token.copy()
            token.attrs = {**token.attrs, "src": src}
            return super().image([token], 0, options, env)
        return super().image(tokens, idx, options, env)

    # -- content tabs (load/tabs_rule.py) -----------------------------------------------------
    def tabs_open(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        state: PageState = env["page"]
        state.tab_sets += 1
        titles: list[str] = tokens[idx].meta["titles"]
        selected: int = tokens[idx].meta["selected"]
        name = f"__tabbed_{state.tab_sets}"
        inputs = "".join(f'<input{" checked" if i == selected else ""} id="{name}_{i + 1}" name="{name}" type="radio">' for i in range(len(titles)))
        labels = "".join(f'<label for="{name}_{i + 1}">{html.escape(t)}</label>' for i, t in enumerate(titles))
        return f'<div class="tabbed-set tabbed-alternate" data-tabs="{state.tab_sets}:{len(titles)}">{inputs}<div class="tabbed-labels">{labels}</div>\n<div class="tabbed-content">\n'

    def tabs_close(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        return "</div>\n</div>\n"

    def tab_open(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        return '<div class="tabbed-block">\n'

    def tab_close(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        return "</div>\n"

    # -- footnotes as Material styles them (Python-Markdown's markup) ---------------------------
    # ``<sup id="fnref:1"><a class="footnote-ref" href="#fn:1">1</a></sup>``: Material's CSS
    # sizes ``a.footnote-ref`` and outlines ``[id^="fnref:"]:target``; ids follow the label
    # (``[^note]`` is ``fn:note``), a second reference to one note is ``fnref2:``.
    @staticmethod
    def _footnote_ids(token: Token, env: dict) -> tuple[str, str, int]:
        """(the note's id, the id of this reference to it, its number)."""
        number = int(token.meta["id"]) + 1
        label = re.sub(r"\s+", "-", str(token.meta.get("label") or number))
        prefix = env["options"].anchor_prefix
        sub = int(token.meta.get("subId", 0) or 0)
        return f"{prefix}fn:{label}", f"{prefix}fnref{sub + 1 if sub else ''}:{label}", number

    def footnote_ref(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        note, ref, number = self._footnote_ids(tokens[idx], env)
        return f'<sup id="{html.escape(ref)}"><a class="footnote-ref" href="#{html.escape(note)}">{number}</a></sup>'

    def footnote_open(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        note, _, _ = self._footnote_ids(tokens[idx], env)
        return f'<li id="{html.escape(note)}">'

    def footnote_anchor(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        _, ref, number = self._footnote_ids(tokens[idx], env)
        space = "" if tokens[idx].meta.get("subId") else "&#160;"  # one before the first only
        return f'{space}<a class="footnote-backref" href="#{html.escape(ref)}" title="Jump back to footnote {number} in the text">&#8617;</a>'

    def footnote_block_open(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        return '<div class="footnote">\n<hr>\n<ol>\n'

    def footnote_block_close(self, tokens: Sequence[Token], idx: int, options: Any, env: dict) -> str:
        return "</ol>\n</div>\n"


_RENDERER: _Renderer | None = None


def _renderer() -> _Renderer:
    global _RENDERER
    if _RENDERER is None:
        _RENDERER = _Renderer()
    return _RENDERER


def _links_by_position(glossary: Glossary, term: Term) -> Mapping[tuple[int, int], Link]:
    """Resolved links keyed by the 0-based body (line, col) of the xref token they came from."""
    return {(link.xref.line - term.body_offset - 1, link.xref.col - 1): link for link in glossary.links.get(term.slug, ())}


def render_tokens(tokens: Sequence[Token], options: RenderOptions, page: PageState, *, term: Term | None = None, links: Mapping[tuple[int, int], Link] | None = None, sanitize: bool = False) -> str:
    """HTML of ``tokens``; ``sanitize`` for what authors wrote (raw HTML then goes through nh3)."""
    env: dict[str, Any] = {
        "options": options,
        "page": page,
        "term": term,
        "links": links or {},
        "snippets": {s.body_start: s for s in term.snippets} if term is not None else {},
        "skip": set(),
        "slots": [],
    }
    for ident in explicit_anchors(tokens):  # generated ids avoid them wherever they stand, as in `check`
        page.anchors.setdefault(ident, 0)
    out = _renderer().render(list(tokens), parser().options, env)
    if sanitize and any(t.type == "html_block" or (t.children and any(c.type == "html_inline" for c in t.children)) for t in tokens):
        out = nh3.clean(out, **_SANITIZE)
    for number, block in enumerate(env["slots"]):
        out = out.replace(_SLOT.format(number), block, 1)
    return out


def render_body(term: Term, options: RenderOptions, page: PageState | None = None) -> Rendered:
    """A term's (or section intro's) body as HTML, with its table of contents."""
    page = page if page is not None else PageState()
    out = render_tokens(parse_tokens(term.body), options, page, term=term, links=_links_by_position(options.glossary, term), sanitize=True)
    return Rendered(out, page.toc())


def render_markdown(text: str, options: RenderOptions, page: PageState | None = None) -> Rendered:
    """Generated Markdown (home, section lists, A-Z, Rosetta, the map): same engine, no term
    context, not sanitised (it is ours: the map is an inline SVG)."""
    page = page if page is not None else PageState()
    return Rendered(render_tokens(parse_once(text), options, page), page.toc())
