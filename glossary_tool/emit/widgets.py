"""Interactive parts of term pages ("pages to play with"), each fed by verified records.

One function per page, chosen by term slug; each returns one HTML element (or "" for
pages without one) that the site inserts after the term's body. Their scripts live in
glossary/assets/ and run offline; llms.txt and the book do not get them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from glossary_tool.emit import occupancy, roofline
from glossary_tool.model import Glossary, Term

Widget = Callable[[Glossary, Path], str]

WIDGETS: dict[str, Widget] = {
    occupancy.TERM: lambda glossary, records_root: occupancy.calculator_html(occupancy.runs(glossary, records_root)),
    roofline.TERM: lambda glossary, records_root: roofline.roofline_html(roofline.runs(glossary, records_root)),
}


def widget_html(term: Term, glossary: Glossary, records_root: Path) -> str:
    """The term's interactive element, or "" when it has none."""
    widget = WIDGETS.get(term.slug)
    return widget(glossary, records_root) if widget is not None else ""
