"""The text and link of one ``equivalents`` cell, for every emitter that shows one.

The Equivalents table of a term, the Rosetta page and the book all show a vendor's name for a
term; where the value links a page (``amd: "[[wavefront]] (64 lanes)"``) the name reads as that
reference would in a body (a slug shows the page's title) and the cell links the page.
"""

from __future__ import annotations

import html
from collections.abc import Callable

from glossary_tool.link.equivalents import equivalent_target, plain_text
from glossary_tool.model import Glossary, Term, XRef

#: How a resolved reference reads (emit.markdown.display_text; passed in, which keeps this
#: module free of the Markdown renderer that imports it).
Shown = Callable[[XRef, Term], str]


def equivalent_cell(glossary: Glossary, term: Term, vendor: str, value: str, shown: Shown) -> tuple[str, Term | None, str | None]:
    """(text to show, page to link or None, heading anchor) for ``term``'s ``vendor`` value."""
    page = equivalent_target(glossary, term, vendor)
    if page is None:
        return plain_text(value), None, None
    target, anchor = page
    xref = glossary.equivalent_links[term.slug][vendor].xref
    text = value.replace(xref.raw, shown(xref, target), 1)
    return plain_text(text), target, anchor


def equivalent_cell_html(glossary: Glossary, term: Term, vendor: str, value: str, shown: Shown, href: Callable[[Term, str | None], str]) -> str:
    """The cell as an HTML fragment: a link to the vendor's page (its summary as the tooltip)
    where the value names one, else the escaped text. For HTML renderers, which call it with
    their own ``href`` (target, anchor) -> URL."""
    text, page, anchor = equivalent_cell(glossary, term, vendor, value, shown)
    if page is None:
        return html.escape(text, quote=False)
    return f'<a href="{html.escape(href(page, anchor))}" title="{html.escape(page.summary)}">{html.escape(text, quote=False)}</a>'
