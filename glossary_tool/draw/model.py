"""The diagram model: what a ``diagrams/<name>.yml`` file says, as frozen values.

The loader builds these from YAML (keeping a line number on everything a diagnostic may
point at); layout and SVG rendering read them and never see YAML. Emitters other than the
site (EPUB, llms-full.txt) only need :attr:`Diagram.title`, :attr:`Diagram.description`
and :func:`glossary_tool.draw.render_diagram_svg`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: How a container arranges its children.
LAYOUTS: tuple[str, ...] = ("row", "column", "grid")
ALIGNS: tuple[str, ...] = ("start", "center", "end")


@dataclass(frozen=True)
class Axis:
    """One axis of a plot; ``log`` axes need ``min > 0``."""

    label: str
    min: float
    max: float
    log: bool = False
    ticks: tuple[float, ...] = ()
    #: Tick labels in the same order as ``ticks``; empty means "format the number".
    tick_labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Series:
    """A polyline in data coordinates, labelled at ``label_at`` (default: its last point)."""

    label: str
    points: tuple[tuple[float, float], ...]
    tone: str | None = None
    dashed: bool = False
    label_at: tuple[float, float] | None = None
    line: int = 0


@dataclass(frozen=True)
class Mark:
    """A labelled dot in data coordinates (a ridge point, a measured kernel)."""

    label: str
    at: tuple[float, float]
    line: int = 0


@dataclass(frozen=True)
class Plot:
    """A small x/y chart inside a box: enough for a roofline, nothing more general."""

    x: Axis
    y: Axis
    series: tuple[Series, ...]
    marks: tuple[Mark, ...] = ()
    width: float = 560.0
    height: float = 320.0


@dataclass(frozen=True)
class Box:
    """A rectangle: a leaf with a label, a container of ``boxes``, or a ``plot``.

    ``repeat`` draws the box that many times in its parent's layout (``show`` of them, then
    one "more" box), ``term`` makes it a link to that term and gives it the section colour.
    """

    line: int
    label: str | None = None
    caption: str | None = None
    term: str | None = None
    term_line: int = 0
    id: str | None = None
    layout: str = "column"
    #: Where children that do not fill a row or column sit: start, center or end.
    align: str = "center"
    columns: int | None = None
    gap: float | None = None
    pad: float | None = None
    boxes: tuple[Box, ...] = ()
    repeat: int = 1
    show: int | None = None
    more: str | None = None
    width: float | None = None
    height: float | None = None
    tone: str | None = None
    dashed: bool = False
    plot: Plot | None = None

    @property
    def is_container(self) -> bool:
        return bool(self.boxes)


@dataclass(frozen=True)
class Arrow:
    """A line from the box named ``source`` to the box named ``target`` (ids)."""

    source: str
    target: str
    line: int
    label: str | None = None
    dashed: bool = False
    both: bool = False


@dataclass(frozen=True)
class Diagram:
    """One diagram file. ``name`` is the file stem that front matter ``diagrams:`` uses."""

    name: str
    path: str
    title: str
    #: Plain-text description of what the picture shows: its alt text, <desc> and caption.
    description: str
    root: Box
    arrows: tuple[Arrow, ...] = ()
    notes: tuple[str, ...] = ()
    legend: bool = False

    def terms(self) -> tuple[tuple[str, int], ...]:
        """Every ``term`` slug the diagram names, with the line that names it, in file order."""
        found: list[tuple[str, int]] = []

        def walk(box: Box) -> None:
            if box.term:
                found.append((box.term, box.term_line))
            for child in box.boxes:
                walk(child)

        walk(self.root)
        return tuple(found)
