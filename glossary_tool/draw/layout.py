"""Geometry: measure every box bottom-up, then place it top-down, with no font files at hand.

Text width is estimated from Helvetica/Arial advance widths (Liberation Sans has the same
metrics), plus a safety margin for wider system fonts, so a box is always big enough for
its label. Everything is plain arithmetic on the model, so the same source always gives the
same numbers and the same bytes of SVG.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from glossary_tool.draw.model import Box, Diagram
from glossary_tool.draw.style import SIZE_CAPTION, SIZE_LABEL, SIZE_SMALL, SIZE_TITLE

# Advance widths in 1/1000 em (Helvetica AFM), for the characters diagrams use.
_WIDTHS: dict[str, int] = {
    " ": 278, "!": 278, '"': 355, "#": 556, "$": 556, "%": 889, "&": 667, "'": 191, "(": 333, ")": 333,
    "*": 389, "+": 584, ",": 278, "-": 333, ".": 278, "/": 278, ":": 278, ";": 278, "<": 584, "=": 584,
    ">": 584, "?": 556, "@": 1015, "[": 278, "\\": 278, "]": 278, "^": 469, "_": 556, "`": 333, "{": 334,
    "|": 260, "}": 334, "~": 584, "×": 584, "→": 1000, "←": 1000, "↔": 1000, "…": 1000, "−": 584, "–": 556,
    "—": 1000, "·": 278, "≈": 584, "≤": 584, "≥": 584, "µ": 556, "²": 333, "³": 333, "°": 400,
}  # fmt: skip
_WIDTHS.update(dict.fromkeys("0123456789", 556))
_WIDTHS.update(zip("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611), strict=True))
_WIDTHS.update(zip("abcdefghijklmnopqrstuvwxyz", (556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500), strict=True))
#: Wider fonts (Segoe UI, San Francisco, DejaVu Sans) than Helvetica still fit.
_SAFETY = 1.07
_BOLD = 1.08

PAD = 10.0
LEAF_PAD_X = 10.0
LEAF_PAD_Y = 6.0
GAP = 10.0
HEADER_GAP = 6.0
MARGIN = 12.0
EMPTY = 16.0


def line_height(size: float) -> float:
    return round(size * 1.25, 2)


def text_width(text: str, size: float = SIZE_LABEL, bold: bool = False) -> float:
    """Estimated rendered width of one line of ``text`` in px."""
    units = sum(_WIDTHS.get(ch, 600) for ch in text)
    return units / 1000 * size * _SAFETY * (_BOLD if bold else 1.0)


def wrap(text: str, width: float, size: float, bold: bool = False) -> tuple[str, ...]:
    """Greedy word wrap; explicit newlines are kept. A word longer than ``width`` gets its own line."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        current = ""
        for word in paragraph.split(" "):
            trial = f"{current} {word}" if current else word
            if current and text_width(trial, size, bold) > width:
                lines.append(current)
                current = word
            else:
                current = trial
        lines.append(current)
    return tuple(lines)


@dataclass(frozen=True)
class Placed:
    """A box with its final rectangle and resolved text, tone and shade."""

    box: Box
    x: float
    y: float
    w: float
    h: float
    tone: str
    shade: str
    label_lines: tuple[str, ...]
    caption_lines: tuple[str, ...]
    #: Container headers put the caption on the label's line when it fits.
    inline_caption: bool
    children: tuple[Placed, ...]
    name: str | None = None
    #: The "+N more" stand-in for copies a ``show`` leaves out.
    is_more: bool = False
    is_root: bool = False
    #: Height of the label/caption header of a container (or plot), gap included.
    header_h: float = 0.0
    #: Padding between the rectangle and its children (0 for an unlabelled root).
    pad: float = 0.0
    #: 0 for the first (or only) copy of a box whose ancestors are first copies too.
    copy: int = 0

    @property
    def is_container(self) -> bool:
        return bool(self.children) or self.box.plot is not None

    @property
    def cx(self) -> float:
        return self.x + self.w / 2

    @property
    def cy(self) -> float:
        return self.y + self.h / 2

    def walk(self) -> Iterator[Placed]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass
class _Node:
    """Mutable scratch node used while measuring; becomes a :class:`Placed`."""

    box: Box
    tone: str
    shade: str
    label: tuple[str, ...]
    caption: tuple[str, ...]
    name: str | None
    is_more: bool = False
    is_root: bool = False
    caption_text: str | None = None
    copy: int = 0
    children: list[_Node] = field(default_factory=list)
    w: float = 0.0
    h: float = 0.0
    header_h: float = 0.0
    header_w: float = 0.0
    inline_caption: bool = False


_INDEX = re.compile(r"\{i(?:([+-])(\d+))?\}")


def _fill(text: str | None, index: int, total: int) -> str | None:
    """Number the copies of a repeated box: ``{i}`` is 0, 1, ...; ``{i+4}`` starts at 4; ``{n}`` the count."""
    if text is None:
        return None

    def number(m: re.Match[str]) -> str:
        shift = int(m.group(2)) if m.group(2) else 0
        return str(index - shift if m.group(1) == "-" else index + shift)

    return _INDEX.sub(number, text).replace("{n}", str(total))


@dataclass(frozen=True)
class TermInfo:
    """What layout needs to know about the glossary: each term's section and short name."""

    section_of: Mapping[str, str]
    name_of: Mapping[str, str]


def _expand(box: Box, parent_tone: str, parent_shade: str | None, terms: TermInfo, is_root: bool = False, in_copy: bool = False) -> list[_Node]:
    """The nodes a box stands for: ``repeat`` copies (or ``show`` of them and a "more" box)."""
    tone = box.tone or (terms.section_of.get(box.term) if box.term else None) or parent_tone
    container = box.is_container or box.plot is not None
    if not container:
        shade = "fill"
    elif is_frame(box):  # not drawn, so it does not count as a level of nesting
        shade = parent_shade or "tint"
    elif parent_shade == "wash" and tone == parent_tone:
        shade = "tint"
    else:
        shade = "wash"
    default_label = terms.name_of.get(box.term, box.term) if box.term and box.label is None else None
    copies = box.show or box.repeat
    nodes: list[_Node] = []
    for index in range(copies):
        label = _fill(box.label, index, box.repeat) if box.label is not None else default_label
        caption = _fill(box.caption, index, box.repeat)
        name = None
        if box.id:
            name = box.id if box.repeat == 1 else f"{box.id}.{index}"
        node = _Node(box, tone, shade, _lines(label, box, SIZE_LABEL, container), _lines(caption, box, SIZE_CAPTION, container), name, is_root=is_root, caption_text=caption, copy=max(index, 1) if in_copy else index)
        for child in box.boxes:
            node.children += _expand(child, tone, shade if not is_root else None, terms, in_copy=in_copy or index > 0)
        nodes.append(node)
    if box.show is not None:
        rest = box.repeat - box.show
        text = (box.more or "+{rest} more").replace("{rest}", str(rest)).replace("{n}", str(box.repeat))
        more = Box(line=box.line, label=text, height=box.height, tone=box.tone, dashed=True)
        nodes.append(_Node(more, tone, "fill", _lines(text, more, SIZE_LABEL, False), (), None, is_more=True))
    return nodes


def _lines(text: str | None, box: Box, size: float, container: bool) -> tuple[str, ...]:
    if not text:
        return ()
    limit = (box.width - (2 * PAD if container else 4.0)) if box.width else (9999.0 if size == SIZE_LABEL else 280.0)
    return wrap(text, max(limit, 40.0), size, bold=container and size == SIZE_LABEL)


def _text_block(node: _Node, container: bool) -> tuple[float, float]:
    widths = [text_width(t, SIZE_LABEL, container) for t in node.label] + [text_width(t, SIZE_CAPTION) for t in node.caption]
    height = len(node.label) * line_height(SIZE_LABEL) + len(node.caption) * line_height(SIZE_CAPTION)
    return (max(widths) if widths else 0.0), height


def is_frame(box: Box) -> bool:
    """A container with no label, term or tone only arranges its children: no frame, no padding."""
    return box.is_container and box.label is None and box.term is None and box.tone is None and not box.dashed


def _pad(node: _Node) -> float:
    if node.is_root or (is_frame(node.box) and node.box.pad is None):
        return 0.0
    return node.box.pad if node.box.pad is not None else PAD


def _gap(node: _Node) -> float:
    if node.box.gap is not None:
        return node.box.gap
    return 8.0 if node.box.layout == "grid" else GAP


def _columns(node: _Node) -> int:
    n = len(node.children)
    return min(node.box.columns or max(1, math.ceil(math.sqrt(n))), n)


def _measure(node: _Node) -> None:
    box = node.box
    for child in node.children:
        _measure(child)
    container = bool(node.children) or box.plot is not None
    if not container:
        tw, th = _text_block(node, False)
        has_text = bool(node.label or node.caption)
        # A box given an explicit size (a lane, a bank) keeps it if the text fits at all.
        pad_x = 2.0 if box.width else LEAF_PAD_X
        pad_y = 1.0 if box.height else LEAF_PAD_Y
        node.w = max(box.width or 0.0, tw + 2 * pad_x) if has_text else (box.width or EMPTY)
        node.h = max(box.height or 0.0, th + 2 * pad_y) if has_text else (box.height or EMPTY)
        return
    gap = _gap(node)
    ws = [c.w for c in node.children]
    hs = [c.h for c in node.children]
    if box.plot is not None:
        inner_w, inner_h = box.plot.width, box.plot.height
    elif box.layout == "row":
        inner_w, inner_h = sum(ws) + gap * (len(ws) - 1), max(hs)
    elif box.layout == "column":
        inner_w, inner_h = max(ws), sum(hs) + gap * (len(hs) - 1)
    else:
        cols = _columns(node)
        rows = math.ceil(len(ws) / cols)
        inner_w, inner_h = cols * max(ws) + gap * (cols - 1), rows * max(hs) + gap * (rows - 1)
    _header(node, max(inner_w, box.width or 0.0) if box.width is None else box.width - 2 * _pad(node))
    pad = _pad(node)
    node.w = max(box.width or 0.0, inner_w + 2 * pad, node.header_w + 2 * pad)
    node.h = max(box.height or 0.0, inner_h + 2 * pad + node.header_h)


def _header(node: _Node, width: float) -> None:
    """Set the caption lines, inline flag and header height of a container for ``width``."""
    label_w = max((text_width(t, SIZE_LABEL, True) for t in node.label), default=0.0)
    if node.caption_text:
        node.caption = wrap(node.caption_text, max(width, 240.0), SIZE_CAPTION)
    caption_w = max((text_width(t, SIZE_CAPTION) for t in node.caption), default=0.0)
    node.inline_caption = len(node.label) == 1 and len(node.caption) == 1 and label_w + 8 + caption_w <= width
    if node.inline_caption:
        header_w, header_h = label_w + 8 + caption_w, line_height(SIZE_LABEL)
    else:
        header_w, header_h = _text_block(node, True)
    node.header_w = header_w
    node.header_h = header_h + HEADER_GAP if header_h else 0.0


def _rewrap_header(node: _Node, width: float) -> None:
    """A container stretched wider than measured: fewer caption lines, more room for children."""
    before = node.header_h
    _header(node, width)
    if node.header_h > before:  # never grow: the box height is already fixed
        _header(node, 1e9)


def _place(node: _Node, x: float, y: float, w: float, h: float) -> Placed:
    box = node.box
    children: list[Placed] = []
    pad = _pad(node)
    if not node.children and node.caption_text and not box.width and box.plot is None:
        node.caption = wrap(node.caption_text, max(w - 2 * LEAF_PAD_X, 240.0), SIZE_CAPTION)  # stretched: use the room
    if node.children and node.caption_text and not box.width:
        _rewrap_header(node, w - 2 * pad)
    if node.children:
        ix, iy = x + pad, y + pad + node.header_h
        iw, ih = w - 2 * pad, h - 2 * pad - node.header_h
        gap = _gap(node)
        kids = node.children
        if box.layout in ("row", "column"):
            horizontal = box.layout == "row"
            main = [c.w if horizontal else c.h for c in kids]
            fixed = [(c.box.width if horizontal else c.box.height) is not None or c.is_more for c in kids]
            space = (iw if horizontal else ih) - sum(main) - gap * (len(kids) - 1)
            flexible = [i for i, f in enumerate(fixed) if not f]
            offset = 0.0
            if space > 0 and not horizontal and len(kids) > 1:
                gap += space / (len(kids) - 1)  # a stretched column spreads out: longer arrows, same boxes
            elif space > 0 and flexible:
                share = space / len(flexible)
                main = [m + share if not fixed[i] else m for i, m in enumerate(main)]
            elif space > 0:
                offset = {"start": 0.0, "center": space / 2, "end": space}[box.align]
            pos = (ix if horizontal else iy) + offset
            for child, size in zip(kids, main, strict=True):
                if horizontal:
                    ch = ih if child.box.height is None and not child.is_more else child.h
                    cy = iy + (ih - ch) / 2
                    children.append(_place(child, pos, cy, size, ch))
                else:
                    cw = iw if child.box.width is None and not child.is_more else child.w
                    cx = ix + (iw - cw) / 2
                    children.append(_place(child, cx, pos, cw, size))
                pos += size + gap
        else:
            cols = _columns(node)
            rows = math.ceil(len(kids) / cols)
            natural_w = max(c.w for c in kids)
            natural_h = max(c.h for c in kids)
            fixed_w = all(c.box.width is not None for c in kids)
            fixed_h = all(c.box.height is not None for c in kids)
            cell_w = natural_w if fixed_w else (iw - gap * (cols - 1)) / cols
            cell_h = natural_h if fixed_h else (ih - gap * (rows - 1)) / rows
            off_x = (iw - (cell_w * cols + gap * (cols - 1))) / 2
            off_y = (ih - (cell_h * rows + gap * (rows - 1))) / 2
            for index, child in enumerate(kids):
                r, c = divmod(index, cols)
                children.append(_place(child, ix + off_x + c * (cell_w + gap), iy + off_y + r * (cell_h + gap), cell_w, cell_h))
    return Placed(box, _r(x), _r(y), _r(w), _r(h), node.tone, node.shade, node.label, node.caption, node.inline_caption, tuple(children), node.name, node.is_more, node.is_root, _r(node.header_h), pad, node.copy)


def _r(value: float) -> float:
    """Round geometry to 0.01 px: stable text in the SVG and no float noise between runs."""
    return round(value, 2)


@dataclass(frozen=True)
class Layout:
    """A whole diagram laid out: title lines, the box tree, notes, overall size."""

    width: float
    height: float
    title_lines: tuple[str, ...]
    root: Placed
    notes: tuple[tuple[str, ...], ...]
    notes_y: float
    legend_y: float
    legend: tuple[str, ...]

    def named(self) -> dict[str, Placed]:
        """Arrow endpoints: ``id``, ``id.N`` for copies, ``id`` for the first copy."""
        found: dict[str, Placed] = {}
        for placed in self.root.walk():
            if placed.name:
                found.setdefault(placed.name, placed)
                if "." in placed.name:
                    base, _, index = placed.name.rpartition(".")
                    if index == "0":
                        found.setdefault(base, placed)
        return found


LEGEND_ROW = 22.0


def layout_diagram(diagram: Diagram, terms: TermInfo) -> Layout:
    """Lay a diagram out: sizes bottom-up, then positions top-down."""
    section_of = terms.section_of
    root_nodes = _expand(diagram.root, diagram.root.tone or "neutral", None, terms, is_root=True)
    root = root_nodes[0]
    _measure(root)
    title_lines = wrap(diagram.title, max(root.w, 600.0), SIZE_TITLE, bold=True)
    width = max(root.w, max(text_width(t, SIZE_TITLE, True) for t in title_lines)) + 2 * MARGIN
    inner = width - 2 * MARGIN
    title_h = len(title_lines) * line_height(SIZE_TITLE) + 8
    top = MARGIN + title_h
    placed = _place(root, MARGIN, top, inner, root.h)
    y = top + root.h + 8
    legend: tuple[str, ...] = ()
    legend_y = y
    if diagram.legend:
        seen: list[str] = []
        for p in placed.walk():
            if p.box.term and p.tone in section_of.values() and p.tone not in seen and p.tone == section_of.get(p.box.term):
                seen.append(p.tone)
        legend = tuple(seen)
        if legend:
            y += LEGEND_ROW + 4
    notes = tuple(wrap(n, inner, SIZE_SMALL) for n in diagram.notes)
    notes_y = y
    y += sum(len(n) for n in notes) * line_height(SIZE_SMALL) + (4 if notes else 0)
    return Layout(_r(width), _r(y + MARGIN - 8), title_lines, placed, notes, _r(notes_y), _r(legend_y), legend)


@dataclass(frozen=True)
class Segment:
    """An arrow's drawn line, from (x1, y1) to (x2, y2)."""

    x1: float
    y1: float
    x2: float
    y2: float


def _clip(p: Placed, tx: float, ty: float) -> tuple[float, float]:
    """Where the ray from the centre of ``p`` towards (tx, ty) leaves its rectangle."""
    dx, dy = tx - p.cx, ty - p.cy
    if dx == 0 and dy == 0:
        return p.cx, p.cy
    sx = (p.w / 2) / abs(dx) if dx else math.inf
    sy = (p.h / 2) / abs(dy) if dy else math.inf
    s = min(sx, sy)
    return p.cx + dx * s, p.cy + dy * s


def route(a: Placed, b: Placed) -> Segment:
    """A straight arrow between two boxes: axis-aligned when they face each other."""
    overlap_x = min(a.x + a.w, b.x + b.w) - max(a.x, b.x)
    overlap_y = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    if overlap_x >= 12 and (b.y >= a.y + a.h or a.y >= b.y + b.h):
        x = (max(a.x, b.x) + min(a.x + a.w, b.x + b.w)) / 2
        if b.y >= a.y + a.h:
            return Segment(_r(x), a.y + a.h, _r(x), b.y)
        return Segment(_r(x), a.y, _r(x), b.y + b.h)
    if overlap_y >= 12 and (b.x >= a.x + a.w or a.x >= b.x + b.w):
        y = (max(a.y, b.y) + min(a.y + a.h, b.y + b.h)) / 2
        if b.x >= a.x + a.w:
            return Segment(a.x + a.w, _r(y), b.x, _r(y))
        return Segment(a.x, _r(y), b.x + b.w, _r(y))
    x1, y1 = _clip(a, b.cx, b.cy)
    x2, y2 = _clip(b, a.cx, a.cy)
    return Segment(_r(x1), _r(y1), _r(x2), _r(y2))
