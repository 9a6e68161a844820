"""Write a laid-out diagram as one self-contained SVG string.

No JavaScript and no external references: colours come from the embedded ``<style>``
(:mod:`glossary_tool.draw.style`), links are plain ``<a href>`` elements whose target the
caller chooses (``href_for_slug``), so the same drawing serves the site, the EPUB and a
standalone file. Output depends only on its inputs: same source, same bytes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from xml.sax.saxutils import escape, quoteattr

from glossary_tool.draw.layout import (
    MARGIN,
    Layout,
    Placed,
    TermInfo,
    is_frame,
    layout_diagram,
    line_height,
    route,
    text_width,
)
from glossary_tool.draw.model import Axis, Diagram, Plot
from glossary_tool.draw.style import SIZE_CAPTION, SIZE_LABEL, SIZE_SMALL, SIZE_TITLE, css, dot_class, line_class, tone_class
from glossary_tool.model import SECTION_TITLES, Glossary

HrefForSlug = Callable[[str], str | None]
#: Replaced by :func:`close_svg` with the CSS for the classes the drawing actually uses.
STYLE_SLOT = "<style>\x00</style>"
_CLASSES = re.compile(r'class="([^"]*)"')
SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
ARROW_HEAD = 8.0


def num(value: float) -> str:
    """A coordinate as short, stable text: at most two decimals, no ``-0``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def attr(value: str) -> str:
    return quoteattr(value, {"\n": "&#10;"})


def text_el(x: float, y: float, content: str, cls: str, extra: str = "") -> str:
    return f'<text class="{cls}" x="{num(x)}" y="{num(y)}"{extra}>{escape(content)}</text>'


def open_svg(width: float, height: float, label: str, desc: str, uid: str, extra_class: str = "") -> list[str]:
    """The root element, accessible name and description, and the shared stylesheet."""
    cls = f"gg {extra_class}".strip()
    return [
        f'<svg xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}" class="{cls}" viewBox="0 0 {num(width)} {num(height)}" width="{num(width)}" height="{num(height)}" role="group" aria-label={attr(label)} aria-describedby="{uid}-d">',
        f"<title>{escape(label)}</title>",
        f'<desc id="{uid}-d">{escape(desc)}</desc>',
        STYLE_SLOT,
        f'<rect class="gg-bg" x="0" y="0" width="{num(width)}" height="{num(height)}"/>',
    ]


def close_svg(out: list[str]) -> str:
    """Finish a drawing started with :func:`open_svg`: fill in its stylesheet, join the lines."""
    out.append("</svg>")
    text = "\n".join(out) + "\n"
    used = {c for group in _CLASSES.findall(text) for c in group.split()}
    return text.replace(STYLE_SLOT, f"<style>{css(used)}</style>", 1)


def link_open(href: str | None, name: str, tooltip: str, *, primary: bool = True) -> str:
    """An SVG link (keyboard-focusable) or, without a target, a group; both carry a tooltip.

    Copies of a repeated box (``primary=False``) stay clickable but leave the tab order and
    the accessibility tree: 144 identical "SM" links would bury the one that matters.

    The target goes in ``xlink:href``, which every browser and EPUB reader follows: Material's
    instant navigation rewrites each ``[href]`` element by assigning ``el.href = el.href``, and
    an SVG link's ``href`` property is read-only, so a plain ``href`` throws on every page load.
    """
    title = f"<title>{escape(tooltip)}</title>"
    if href is None:
        return f"<g>{title}"
    if not primary:
        return f'<a xlink:href={attr(href)} tabindex="-1" aria-hidden="true">{title}'
    return f'<a xlink:href={attr(href)} tabindex="0" aria-label={attr(name)}>{title}'


def link_close(href: str | None) -> str:
    return "</g>" if href is None else "</a>"


def term_info(glossary: Glossary) -> TermInfo:
    return TermInfo(
        section_of={slug: t.section for slug, t in glossary.terms.items()},
        name_of={slug: (t.abbreviation or t.title) for slug, t in glossary.terms.items()},
    )


def render_diagram_svg(diagram: Diagram, glossary: Glossary, href_for_slug: HrefForSlug | None = None, *, uid: str | None = None) -> str:
    """The diagram as an SVG document string.

    ``href_for_slug`` turns a term slug into the link target for this output (a relative
    URL in the site, an anchor in a single-file book); None or a None result means no link,
    only the tooltip. ``uid`` prefixes element ids so several drawings can share one page.
    """
    href_for_slug = href_for_slug or (lambda slug: None)
    uid = uid or f"gg-{diagram.name}"
    lay = layout_diagram(diagram, term_info(glossary))
    out = open_svg(lay.width, lay.height, diagram.title, diagram.description, uid, "gg-diagram")
    y = MARGIN + SIZE_TITLE
    for line in lay.title_lines:
        out.append(text_el(MARGIN, y, line, "gg-t gg-h"))
        y += line_height(SIZE_TITLE)
    _boxes(out, lay.root, glossary, href_for_slug)
    _arrows(out, diagram, lay)
    _legend(out, lay)
    y = lay.notes_y + SIZE_SMALL
    for note in lay.notes:
        for line in note:
            out.append(text_el(MARGIN, y, line, "gg-c gg-xs"))
            y += line_height(SIZE_SMALL)
    return close_svg(out)


def _rect(p: Placed) -> str:
    cls = f"gg-r {tone_class(p.tone, p.shade)}"
    if p.box.dashed or p.tone == "muted":
        cls += " gg-dash"
    return f'<rect class="{cls}" x="{num(p.x)}" y="{num(p.y)}" width="{num(p.w)}" height="{num(p.h)}" rx="4"/>'


def _leaf_text(p: Placed) -> list[str]:
    total = len(p.label_lines) * line_height(SIZE_LABEL) + len(p.caption_lines) * line_height(SIZE_CAPTION)
    y = p.y + (p.h - total) / 2
    out = []
    for line in p.label_lines:
        out.append(text_el(p.cx, y + SIZE_LABEL * 0.95, line, "gg-t gg-m"))
        y += line_height(SIZE_LABEL)
    for line in p.caption_lines:
        out.append(text_el(p.cx, y + SIZE_CAPTION * 0.95, line, "gg-c gg-s gg-m"))
        y += line_height(SIZE_CAPTION)
    return out


def _header_text(p: Placed) -> list[str]:
    x = p.x + p.pad
    y = p.y + p.pad
    if p.inline_caption:
        return [f'<text class="gg-t" x="{num(x)}" y="{num(y + SIZE_LABEL * 0.95)}"><tspan class="gg-b">{escape(p.label_lines[0])}</tspan><tspan class="gg-c gg-s" dx="8">{escape(p.caption_lines[0])}</tspan></text>']
    out = []
    for line in p.label_lines:
        out.append(text_el(x, y + SIZE_LABEL * 0.95, line, "gg-t gg-b"))
        y += line_height(SIZE_LABEL)
    for line in p.caption_lines:
        out.append(text_el(x, y + SIZE_CAPTION * 0.95, line, "gg-c gg-s"))
        y += line_height(SIZE_CAPTION)
    return out


def _boxes(out: list[str], p: Placed, glossary: Glossary, href_for_slug: HrefForSlug) -> None:
    term = glossary.terms.get(p.box.term) if p.box.term and not p.is_more else None
    href = href_for_slug(term.slug) if term else None
    visible = " ".join([*p.label_lines]) or (term.title if term else "")
    name = visible if not term or visible.casefold() == term.display_title.casefold() else f"{visible}: {term.display_title}"
    # Copies of a repeated box (144 SMs) get the name only: the summary is on the first one.
    tooltip = (f"{term.display_title}: {term.summary}" if p.copy == 0 else term.display_title) if term else ""
    container = p.is_container
    if not p.is_root and not (is_frame(p.box) and not p.is_more):
        # A term box is one link: its rectangle and its own text. A container's children are
        # drawn after (on top), so links never nest and each child keeps its own target.
        if term:
            out.append(link_open(href, name, tooltip, primary=p.copy == 0))
        out.append(_rect(p))
        out += _header_text(p) if container else _leaf_text(p)
        if term:
            out.append(link_close(href))
    if p.box.plot is not None:
        _plot(out, p, p.box.plot)
    for child in p.children:
        _boxes(out, child, glossary, href_for_slug)


def arrow_head(x1: float, y1: float, x2: float, y2: float, size: float = ARROW_HEAD) -> str:
    """A filled triangle with its tip at (x2, y2), pointing away from (x1, y1)."""
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    bx, by = x2 - ux * size, y2 - uy * size
    half = size * 0.45
    points = [(x2, y2), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)]
    return '<path class="gg-ah" d="M' + " L".join(f"{num(px)} {num(py)}" for px, py in points) + ' Z"/>'


def _arrows(out: list[str], diagram: Diagram, lay: Layout) -> None:
    named = lay.named()
    labels: list[str] = []
    for arrow in diagram.arrows:
        a, b = named.get(arrow.source), named.get(arrow.target)
        if a is None or b is None:
            continue
        seg = route(a, b)
        length = math.hypot(seg.x2 - seg.x1, seg.y2 - seg.y1)
        if length < 1:
            continue
        ux, uy = (seg.x2 - seg.x1) / length, (seg.y2 - seg.y1) / length
        trim = min(ARROW_HEAD * 0.8, length / 3)
        x1, y1 = (seg.x1 + ux * trim, seg.y1 + uy * trim) if arrow.both else (seg.x1, seg.y1)
        x2, y2 = seg.x2 - ux * trim, seg.y2 - uy * trim
        cls = "gg-a gg-dash" if arrow.dashed else "gg-a"
        out.append(f'<path class="{cls}" d="M{num(x1)} {num(y1)} L{num(x2)} {num(y2)}"/>')
        out.append(arrow_head(seg.x1, seg.y1, seg.x2, seg.y2))
        if arrow.both:
            out.append(arrow_head(seg.x2, seg.y2, seg.x1, seg.y1))
        if arrow.label:
            labels += _arrow_label(seg.x1, seg.y1, seg.x2, seg.y2, arrow.label, lay.width - MARGIN)
    out += labels  # labels above every line, so no arrow crosses a label


def _arrow_label(x1: float, y1: float, x2: float, y2: float, label: str, right: float) -> list[str]:
    """Beside a vertical arrow, above a horizontal one, on a backing plate across a diagonal."""
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    if abs(x2 - x1) < 0.5:
        if mx + 6 + text_width(label, SIZE_CAPTION) > right:  # no room on the right: go left
            return [text_el(mx - 6, my + SIZE_CAPTION * 0.35, label, "gg-c gg-s gg-end gg-halo")]
        return [text_el(mx + 6, my + SIZE_CAPTION * 0.35, label, "gg-c gg-s gg-halo")]
    if abs(y2 - y1) < 0.5:
        return [text_el(mx, my - 5, label, "gg-c gg-s gg-m gg-halo")]
    w = text_width(label, SIZE_CAPTION) + 8
    h = line_height(SIZE_CAPTION) + 2
    return [
        f'<rect class="gg-lbg" x="{num(mx - w / 2)}" y="{num(my - h / 2)}" width="{num(w)}" height="{num(h)}" rx="3"/>',
        text_el(mx, my + SIZE_CAPTION * 0.35, label, "gg-c gg-s gg-m"),
    ]


def _legend(out: list[str], lay: Layout) -> None:
    x = MARGIN
    y = lay.legend_y
    for section in lay.legend:
        label = SECTION_TITLES.get(section, section)
        out.append(f'<rect class="gg-r {tone_class(section, "fill")}" x="{num(x)}" y="{num(y + 3)}" width="14" height="14" rx="3"/>')
        out.append(text_el(x + 20, y + 3 + SIZE_CAPTION - 1, label, "gg-c gg-s"))
        x += 20 + text_width(label, SIZE_CAPTION) + 18


# --- plots ---------------------------------------------------------------------------------

PLOT_LEFT = 58.0
PLOT_BOTTOM = 42.0
PLOT_TOP = 10.0
PLOT_RIGHT = 14.0


def _scale(axis: Axis, value: float, start: float, length: float) -> float:
    if axis.log:
        t = (math.log10(value) - math.log10(axis.min)) / (math.log10(axis.max) - math.log10(axis.min))
    else:
        t = (value - axis.min) / (axis.max - axis.min)
    return start + t * length


def _tick_label(axis: Axis, index: int, value: float) -> str:
    if axis.tick_labels:
        return axis.tick_labels[index]
    return f"{value:,.0f}" if value >= 1 and float(value).is_integer() else f"{value:g}"


def _plot(out: list[str], p: Placed, plot: Plot) -> None:
    ox = p.x + p.pad + (p.w - 2 * p.pad - plot.width) / 2
    oy = p.y + p.pad + p.header_h
    left, top = ox + PLOT_LEFT, oy + PLOT_TOP
    width, height = plot.width - PLOT_LEFT - PLOT_RIGHT, plot.height - PLOT_TOP - PLOT_BOTTOM
    bottom = top + height

    def sx(v: float) -> float:
        return _scale(plot.x, v, left, width)

    def sy(v: float) -> float:
        return _scale(plot.y, v, bottom, -height)

    grid: list[str] = []
    for i, tick in enumerate(plot.x.ticks):
        x = sx(tick)
        grid.append(f"M{num(x)} {num(top)} V{num(bottom)}")
        out.append(text_el(x, bottom + 4 + SIZE_SMALL, _tick_label(plot.x, i, tick), "gg-c gg-xs gg-m"))
    for i, tick in enumerate(plot.y.ticks):
        y = sy(tick)
        grid.append(f"M{num(left)} {num(y)} H{num(left + width)}")
        out.append(text_el(left - 6, y + SIZE_SMALL * 0.35, _tick_label(plot.y, i, tick), "gg-c gg-xs gg-end"))
    if grid:
        out.append(f'<path class="gg-grid" d="{" ".join(grid)}"/>')
    out.append(f'<path class="gg-axis" d="M{num(left)} {num(top)} V{num(bottom)} H{num(left + width)}"/>')
    out.append(text_el(left + width / 2, bottom + 8 + SIZE_SMALL + line_height(SIZE_CAPTION), plot.x.label, "gg-c gg-s gg-m"))
    ly = top + height / 2
    lx = ox + SIZE_CAPTION
    out.append(text_el(lx, ly, plot.y.label, "gg-c gg-s gg-m", f' transform="rotate(-90 {num(lx)} {num(ly)})"'))
    labels: list[str] = []
    for series in plot.series:
        cls = f"gg-pl {line_class(series.tone or 'neutral')}" + (" gg-dash" if series.dashed else "")
        d = "M" + " L".join(f"{num(sx(x))} {num(sy(y))}" for x, y in series.points)
        out.append(f'<path class="{cls}" d="{d}"/>')
        lx_, ly_ = series.label_at or series.points[-1]
        anchor = " gg-end" if series.label_at is None else ""
        labels.append(text_el(sx(lx_), sy(ly_) - 6, series.label, f"gg-t gg-s gg-halo{anchor}"))
    for mark in plot.marks:
        mx, my = sx(mark.at[0]), sy(mark.at[1])
        out.append(f'<circle class="{dot_class("neutral")}" cx="{num(mx)}" cy="{num(my)}" r="4.5"/>')
        labels.append(text_el(mx + 8, my + 16, mark.label, "gg-t gg-xs gg-halo"))
    out += labels


__all__ = ["HrefForSlug", "arrow_head", "attr", "close_svg", "link_close", "link_open", "num", "open_svg", "render_diagram_svg", "term_info", "text_el"]
