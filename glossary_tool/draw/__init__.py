"""Draw stage: diagrams from ``diagrams/*.yml`` and the term graph, as self-contained SVG.

load -> link -> verify -> **draw** -> emit. Nothing here runs JavaScript, touches the
network or calls a system binary: layout is arithmetic, output is SVG text. Emitters use
:func:`render_diagram_svg` (and :attr:`Diagram.description` for alt text), the site adds the
term map and each term's neighbourhood from :mod:`glossary_tool.draw.graph`.
"""

from glossary_tool.draw.load import LoadedDiagrams, check_diagrams, load_diagrams, parse_diagram
from glossary_tool.draw.model import Diagram
from glossary_tool.draw.svg import HrefForSlug, render_diagram_svg

__all__ = ["Diagram", "HrefForSlug", "LoadedDiagrams", "check_diagrams", "load_diagrams", "parse_diagram", "render_diagram_svg"]
