"""Drawings wrapped for a Markdown page: <figure> blocks and the generated map page.

Raw HTML passes through Python-Markdown untouched (no blank lines inside, so the block is
never split), which is how the SVG stays inline: its links, tooltips and palette-aware CSS
then work in the page. The SVG sits in a ``data-search-exclude`` wrapper so Material's
search indexes the figure's caption, not every label of the drawing.
"""

from __future__ import annotations

from collections.abc import Mapping
from xml.sax.saxutils import escape

from glossary_tool.draw.graph import MapLayout, TermGraph, render_map_svg, render_neighbourhood_svg
from glossary_tool.draw.model import Diagram
from glossary_tool.draw.svg import HrefForSlug, attr, render_diagram_svg
from glossary_tool.model import Glossary, Term

MAP_TITLE = "Map of the glossary"


def figure_html(svg: str, caption: str, *, cls: str = "", ident: str | None = None) -> str:
    """One ``<figure>``: the inline SVG, then a plain-text caption."""
    id_attr = f" id={attr(ident)}" if ident else ""
    classes = f"gg-figure {cls}".strip()
    body = "\n".join(line for line in svg.strip().split("\n") if line.strip())  # a blank line would end the HTML block
    return f'<figure class="{classes}"{id_attr}>\n<div class="gg-svg" data-search-exclude>\n{body}\n</div>\n<figcaption>{escape(caption)}</figcaption>\n</figure>'


def diagram_figure(diagram: Diagram, glossary: Glossary, href_for_slug: HrefForSlug) -> str:
    svg = render_diagram_svg(diagram, glossary, href_for_slug)
    return figure_html(svg, diagram.description, cls="gg-figure--diagram", ident=f"diagram-{diagram.name}")


def diagrams_markdown(page: Term, diagrams: Mapping[str, Diagram], glossary: Glossary, href_for_slug: HrefForSlug) -> str:
    """The diagrams a term (or section page) lists in front matter, in that order; unknown names are skipped (check reports them)."""
    return "\n\n".join(diagram_figure(diagrams[name], glossary, href_for_slug) for name in page.diagrams if name in diagrams)


def neighbourhood_markdown(term: Term, glossary: Glossary, href_for_slug: HrefForSlug, graph: TermGraph | None = None) -> str:
    svg = render_neighbourhood_svg(term, glossary, href_for_slug, graph)
    if svg is None:
        return ""
    return figure_html(svg, f"Neighbourhood of {term.title}: the terms whose pages link here (left) and the terms this page links to (right).", cls="gg-figure--neighbourhood")


def term_extras_markdown(term: Term, diagrams: Mapping[str, Diagram], glossary: Glossary, href_for_slug: HrefForSlug, graph: TermGraph | None = None) -> str:
    """What a term page shows after its body: its diagrams, then its neighbourhood."""
    parts = [diagrams_markdown(term, diagrams, glossary, href_for_slug), neighbourhood_markdown(term, glossary, href_for_slug, graph)]
    return "\n\n".join(p for p in parts if p)


def map_markdown(glossary: Glossary, href_for_slug: HrefForSlug, layout: MapLayout | None = None) -> str:
    """The generated map page (``layout``: see render_map_svg)."""
    svg = render_map_svg(glossary, href_for_slug, layout)
    total = len(glossary.terms)
    intro = (
        f"All {total} terms of the glossary, one circle each, grouped by section and joined by their cross-references. "
        "A larger circle means more terms link to it. Only the most-linked terms are labelled; "
        "hover over (or tab to) any circle to see its name and summary, and click it to open the term."
    )
    caption = "Map of the glossary: circles are terms coloured by section and sized by the number of terms that link to them; lines are cross-references."
    return f"# {MAP_TITLE}\n\n{intro}\n\n{figure_html(svg, caption, cls='gg-figure--map')}\n"
