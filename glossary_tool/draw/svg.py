"""Write a laid-out diagram as one self-contained SVG string.

No JavaScript and no external references: colours come from the embedded ``<style>``
(:mod:`glossary_tool.draw.style`), links are plain ``<a href>`` elements whose target the
caller chooses (``href_for_slug``), so the same drawing serves the site, the EPUB and a
standalone file. Output depends only on its inputs: same source, same bytes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from xml.sax.saxutils import escape, quoteattr

from glossary_tool.draw.layout import (
    LEAF_PAD_Y,
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
SVG_NS = "http://www.w3.org/2000/svg"
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
        f'<svg xmlns="{SVG_NS}" class="{cls}" viewBox="0 0 {num(width)} {num(height)}" width="{num(width)}" height="{num(height)}" role="group" aria-label={attr(label)} aria-describedby="{uid}-d">',
        f"<title>{escape(label)}</title>",
        f'<desc id="{uid}-d">{escape(desc)}</desc>',
        f"<style>{css()}</style>",
        f'<rect class="gg-bg" x="0" y="0" width="{num(width)}" height="{num(height)}"/>',
    ]


def link_open(href: str | None, name: str, tooltip: str, *, primary: bool = True) -> str:
    """An SVG link (keyboard-focusable) or, without a target, a group; both carry a tooltip.

    Copies of a repeated box (``primary=False``) stay clickable but leave the tab order and
    the accessibility tree: 144 identical "SM" links would bury the one that matters.
    """
    title = f"<title>{escape(tooltip)}</title>"
    if href is None:
        return f"<g>{title}"
    if not primary:
        return f'<a href={attr(href)} tabindex="-1" aria-hidden="true">{title}'
    return f'<a href={attr(href)} tabindex="0" aria-label={attr(name)}>{title}'


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
    out.append("</svg>")
    return "\n".join(out) + "\n"


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
    tooltip = f"{term.display_title}: {term.summary}" if term else ""
    container = p.is_container
    if not p.is_root and not (is_frame(p.box) and not p.is_more):
        if term and not container:
            out.append(link_open(href, name, tooltip, primary=p.copy == 0))
            out.append(_rect(p))
            out += _leaf_text(p)
            out.append(link_close(href))
        else:
            out.append(_rect(p))
            if container:
                header = _header_text(p)
                if term and header:
                    out.append(link_open(href, name, tooltip, primary=p.copy == 0))
                    hit_w = min(p.w - 2, max(text_width(t, SIZE_LABEL, True) for t in p.label_lines) + 2 * p.pad) if p.label_lines else p.w - 2
                    out.append(f'<rect class="gg-hit" x="{num(p.x + 1)}" y="{num(p.y + 1)}" width="{num(hit_w)}" height="{num(p.header_h + p.pad - 2)}" rx="3"/>')
                    out += header
                    out.append(link_close(href))
                else:
                    out += header
            else:
                out += _leaf_text(p)
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
            mx, my = (seg.x1 + seg.x2) / 2, (seg.y1 + seg.y2) / 2
            w = text_width(arrow.label, SIZE_CAPTION) + 8
            h = line_height(SIZE_CAPTION) + 2
            labels.append(f'<rect class="gg-lbg" x="{num(mx - w / 2)}" y="{num(my - h / 2)}" width="{num(w)}" height="{num(h)}" rx="3"/>')
            labels.append(text_el(mx, my + SIZE_CAPTION * 0.35, arrow.label, "gg-c gg-s gg-m"))
    out += labels  # labels above every line, so no arrow crosses a label


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


def stack_lines(lines: Iterable[str], x: float, y: float, cls: str, size: float) -> list[str]:
    """Consecutive text lines starting at baseline ``y``."""
    out = []
    for line in lines:
        out.append(text_el(x, y, line, cls))
        y += line_height(size)
    return out


__all__ = ["HrefForSlug", "LEAF_PAD_Y", "arrow_head", "attr", "link_close", "link_open", "num", "open_svg", "render_diagram_svg", "stack_lines", "term_info", "text_el"]
