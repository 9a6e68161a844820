"""Whole pages as HTML: a term page, a section page, the home page, generated lists.

Each page is assembled from the rendered body (emit/render.py) and small generated parts
(aliases, equivalents, sources, backlinks), all sharing one :class:`PageState` so heading
ids stay unique and the table of contents covers the whole page.
"""

from __future__ import annotations

import html

from glossary_tool.emit.equivalents import equivalent_cell_html
from glossary_tool.emit.html_parts import link
from glossary_tool.emit.render import PageState, Rendered, RenderOptions, render_body, render_markdown
from glossary_tool.load.body import unique_anchor
from glossary_tool.model import PLATFORMS, Glossary, Section, Term
from glossary_tool.text import slugify


def heading(level: int, text: str, page: PageState, options: RenderOptions, *, ident: str | None = None) -> str:
    """A generated heading with an id (and permalink), entered in the page's contents."""
    anchor = ident or options.anchor_prefix + unique_anchor(slugify(text), page.anchors)
    page.headings.append((level, anchor, html.escape(text, quote=False)))
    permalink = f'<a class="headerlink" href="#{html.escape(anchor)}" title="Permanent link">&para;</a>' if options.permalinks else ""
    return f'<h{level} id="{html.escape(anchor)}">{html.escape(text, quote=False)}{permalink}</h{level}>\n'


def _href(options: RenderOptions, url: str) -> str:
    """A URL the linker gave a term, as the output writes it (``RenderOptions.href_xrefs``)."""
    return options.href(url) if options.href is not None and options.href_xrefs else url


def equivalents_html(term: Term, glossary: Glossary, options: RenderOptions) -> str:
    """The Equivalents table; a name with a page of its own (``amd: "[[wavefront]]"``) links to it."""
    if not term.equivalents:
        return ""
    from glossary_tool.emit.markdown import display_text

    def href(target: Term, anchor: str | None) -> str:
        return _href(options, options.linker.to_term(target, anchor))

    rows = "".join(
        f"<tr><td>{html.escape(PLATFORMS.get(key, key))}</td><td>{equivalent_cell_html(glossary, term, key, value, display_text, href)}</td></tr>" for key, value in term.equivalents
    )
    return f"<table>\n<thead><tr><th>Platform</th><th>Name</th></tr></thead>\n<tbody>{rows}</tbody>\n</table>\n"


def sources_html(term: Term) -> str:
    return "<ul>\n" + "".join(f"<li>{link(s.title, s.url)}</li>\n" for s in term.sources) + "</ul>\n"


def backlinks_html(term: Term, glossary: Glossary, options: RenderOptions) -> str:
    items = []
    for slug in glossary.backlinks.get(term.slug, ()):
        source = glossary.terms[slug]
        items.append(f"<li>{link(source.display_title, _href(options, options.linker.to_term(source)), source.summary)}</li>\n")
    return "<ul>\n" + "".join(items) + "</ul>\n" if items else ""


def term_article(term: Term, glossary: Glossary, options: RenderOptions, page: PageState, *, extras_html: str = "", sub_level: int = 2) -> str:
    """Everything of a term page below its title."""
    parts = []
    if term.aliases:
        parts.append("<p><em>Also called:</em> " + ", ".join(html.escape(a, quote=False) for a in term.aliases) + "</p>\n")
    parts.append(render_body(term, options, page).html)
    if extras_html:
        parts.append(extras_html + "\n")
    table = equivalents_html(term, glossary, options)
    if table:
        parts.append(heading(sub_level, "Equivalents", page, options) + table)
    parts.append(heading(sub_level, "Sources", page, options) + sources_html(term))
    back = backlinks_html(term, glossary, options)
    if back:
        # Out of the search index: the list names other terms, so searching for a term
        # would find every page that links to it (and the indexer would parse it for nothing).
        parts.append('<div class="gg-backlinks" data-search-exclude>\n' + heading(sub_level, "Linked from", page, options) + back + "</div>\n")
    return "".join(parts)


def term_page(term: Term, glossary: Glossary, options: RenderOptions, *, extras_html: str = "") -> Rendered:
    """A term's site page: its title as h1, then the article."""
    page = PageState()
    title = heading(1, term.display_title, page, options)
    return Rendered(title + term_article(term, glossary, options, page, extras_html=extras_html), page.toc())


def markdown_page(parts: list[str | Term], options: RenderOptions) -> Rendered:
    """A generated page from pieces of generated Markdown and intro bodies (whose xrefs resolve)."""
    page = PageState()
    out = []
    for part in parts:
        if isinstance(part, Term):
            out.append(render_body(part, options, page).html)
        elif part:
            out.append(render_markdown(part, options, page).html)
    return Rendered("".join(out), page.toc())


def section_page(section: Section, glossary: Glossary, options: RenderOptions, *, figures_html: str = "") -> Rendered:
    from glossary_tool.emit.markdown import md_escape_text, term_list

    terms = [glossary.terms[s] for s in section.terms]
    listing = f"## Terms in this section ({len(terms)})\n\n{term_list(terms, options.linker)}\n"
    rendered = markdown_page([f"# {md_escape_text(section.title)}\n", section.page if section.page is not None else "", listing], options)
    if not figures_html:
        return rendered
    return Rendered(rendered.html + figures_html + "\n", rendered.toc)
