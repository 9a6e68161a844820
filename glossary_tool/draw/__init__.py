"""Draw stage: diagrams from ``diagrams/*.yml`` and the term graph, as self-contained SVG.

load -> link -> verify -> **draw** -> emit. Nothing here runs JavaScript, touches the
network or calls a system binary: layout is arithmetic, output is SVG text. Emitters use
:func:`render_diagram_svg` (and :attr:`Diagram.description` for alt text), the site adds the
term map and each term's neighbourhood from :mod:`glossary_tool.draw.graph`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from glossary_tool.draw.load import LoadedDiagrams, check_diagrams, load_diagrams, parse_diagram
from glossary_tool.draw.model import Diagram

if TYPE_CHECKING:
    from glossary_tool.draw.svg import HrefForSlug, render_diagram_svg

__all__ = ["Diagram", "HrefForSlug", "LoadedDiagrams", "check_diagrams", "load_diagrams", "parse_diagram", "render_diagram_svg"]


def __getattr__(name: str) -> Any:
    """The SVG renderer (and its layout) on first use: `glossary check` only loads diagrams."""
    if name in ("HrefForSlug", "render_diagram_svg"):
        from glossary_tool.draw import svg

        return getattr(svg, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
