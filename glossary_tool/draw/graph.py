"""The term graph as pictures: the whole-glossary map and each term's neighbourhood.

The map clusters terms by section (a force-directed layout per section, then the sections
arranged to keep cross-section links short), sizes each node by its inbound links and labels
the most-linked terms; every node is a link with the term's summary as its tooltip.

Layout is pure Python on :class:`TermGraph` (the few directed-graph operations the drawings
need; importing networkx cost a build about 0.15 s of CPU, a twentieth of an 80-term build's
critical path): networkx's own layouts need numpy, which the site build does not otherwise
depend on, and pure-Python float arithmetic (+, -, *, /, sqrt,
all correctly rounded) with a seeded ``random.Random`` gives the same picture, to the byte,
for the same content on every machine.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from glossary_tool.draw.layout import line_height, text_width
from glossary_tool.draw.style import SIZE_CAPTION, dot_class, text_class, tone_class
from glossary_tool.draw.svg import HrefForSlug, arrow_head, close_svg, link_close, link_open, num, open_svg, text_el
from glossary_tool.model import SECTION_TITLES, Glossary, Term

MAP_SRC = "map.md"
SEED = 20240607
ITERATIONS = 160
#: Sections with more terms than this get the grid variants of the layout steps (forces and
#: overlap removal only between nearby nodes): linear instead of quadratic in the section's
#: size, so a 5,000-term map takes seconds, not two minutes. Smaller sections (all of the
#: real glossary's) keep the exact all-pairs computation and so their layout.
EXACT_LIMIT = 80
#: Target share of terms that get a printed label on the map; the rest show it on hover.
LABEL_SHARE = 0.22
#: Map labels are a little larger than captions: the map is wide and shown scaled down.
MAP_LABEL = 13.0
#: This many most-linked terms are always labelled, even over a neighbour's circle.
FORCED_LABELS = 24
_PAD = 28.0
#: Grid cell (px) of the label placer's spatial index.
_CELL = 64.0


class TermGraph:
    """A directed graph of term slugs with a ``section`` attribute per node: the part of
    networkx's ``DiGraph`` the drawings and serve's memo keys read, with its iteration
    orders (nodes as added; each node's successors, predecessors and so ``edges`` in the
    order their edges were added), so what is drawn from it is the same to the byte."""

    def __init__(self) -> None:
        self.nodes: dict[str, dict[str, str]] = {}
        self._succ: dict[str, dict[str, None]] = {}
        self._pred: dict[str, dict[str, None]] = {}

    def add_node(self, slug: str, *, section: str) -> None:
        self.nodes[slug] = {"section": section}
        self._succ.setdefault(slug, {})
        self._pred.setdefault(slug, {})

    def add_edge(self, source: str, target: str) -> None:
        """An edge between two nodes already added (a repeated edge is kept once)."""
        self._succ[source][target] = None
        self._pred[target][source] = None

    def __contains__(self, slug: object) -> bool:
        return slug in self.nodes

    def __iter__(self) -> Iterator[str]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    @property
    def edges(self) -> list[tuple[str, str]]:
        return [(source, target) for source, targets in self._succ.items() for target in targets]

    def in_degree(self, slug: str) -> int:
        return len(self._pred[slug])

    def predecessors(self, slug: str) -> Iterator[str]:
        return iter(self._pred[slug])

    def successors(self, slug: str) -> Iterator[str]:
        return iter(self._succ[slug])


def term_graph(glossary: Glossary) -> TermGraph:
    """Terms as nodes (in reading order), resolved cross-references as edges (each pair once)."""
    graph = TermGraph()
    for term in glossary.ordered_terms():
        graph.add_node(term.slug, section=term.section)
    for term in glossary.ordered_terms():
        for link in glossary.links.get(term.slug, ()):
            if link.target in glossary.terms and link.target != term.slug:
                graph.add_edge(term.slug, link.target)
    return graph


def node_radius(inbound: int) -> float:
    return round(3.0 + 1.6 * math.sqrt(inbound), 2)


@dataclass(frozen=True)
class MapNode:
    slug: str
    section: str
    x: float
    y: float
    r: float
    inbound: int


@dataclass(frozen=True)
class MapLabel:
    slug: str
    text: str
    x: float
    y: float
    anchor: str


@dataclass(frozen=True)
class MapLayout:
    width: float
    height: float
    nodes: tuple[MapNode, ...]
    edges: tuple[tuple[str, str], ...]
    labels: tuple[MapLabel, ...]
    #: (section, x, y) of each cluster's heading.
    headings: tuple[tuple[str, float, float], ...]


def _fruchterman_reingold(nodes: list[str], edges: list[tuple[str, str]], rank: dict[str, int], rng: random.Random) -> dict[str, tuple[float, float]]:
    """Classic force-directed layout in the unit disk, most-linked nodes seeded near the centre."""
    n = len(nodes)
    if n == 1:
        return {nodes[0]: (0.0, 0.0)}
    pos: dict[str, list[float]] = {}
    for slug in nodes:
        while True:  # a uniform direction without trigonometry
            dx, dy = rng.uniform(-1, 1), rng.uniform(-1, 1)
            d = math.sqrt(dx * dx + dy * dy)
            if 0.05 < d <= 1.0:
                break
        radius = math.sqrt((rank[slug] + 0.5) / n)
        pos[slug] = [dx / d * radius, dy / d * radius]
    k = math.sqrt(1.0 / n)
    temperature = 0.1
    # a big section gets fewer (and cheaper) iterations: 160 up to EXACT_LIMIT nodes, 128 at 100, 40 from 320 on
    iterations = ITERATIONS if n <= EXACT_LIMIT else max(40, ITERATIONS * EXACT_LIMIT // n)
    cool = temperature / (iterations + 1)
    for _ in range(iterations):
        disp = {slug: [0.0, 0.0] for slug in nodes}
        # above EXACT_LIMIT, only pairs closer than 2k: Fruchterman and Reingold's grid variant
        for a, b in _near_pairs(nodes, pos, 2 * k) if n > EXACT_LIMIT else itertools.combinations(nodes, 2):
            dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
            d2 = dx * dx + dy * dy or 1e-9
            f = k * k / d2
            disp[a][0] += dx * f
            disp[a][1] += dy * f
            disp[b][0] -= dx * f
            disp[b][1] -= dy * f
        for a, b in edges:
            dx, dy = pos[a][0] - pos[b][0], pos[a][1] - pos[b][1]
            d = math.sqrt(dx * dx + dy * dy) or 1e-9
            f = d / k
            disp[a][0] -= dx * f
            disp[a][1] -= dy * f
            disp[b][0] += dx * f
            disp[b][1] += dy * f
        for slug in nodes:
            x, y = pos[slug]
            gx, gy = disp[slug][0] - 1.0 * x, disp[slug][1] - 1.0 * y  # gravity keeps clusters round
            d = math.sqrt(gx * gx + gy * gy) or 1e-9
            step = min(d, temperature)
            pos[slug] = [x + gx / d * step, y + gy / d * step]
        temperature -= cool
    return {slug: (p[0], p[1]) for slug, p in pos.items()}


def _near_pairs(order: list[str], pos: dict[str, list[float]], reach: float) -> list[tuple[str, str]]:
    """Every pair of points at most ``reach`` apart (each pair once, in no particular but a
    fixed order), found through a grid of ``reach``-sized cells: linear, not quadratic."""
    cells: dict[tuple[int, int], list[tuple[str, float, float]]] = {}
    for slug in order:
        x, y = pos[slug]
        cells.setdefault((math.floor(x / reach), math.floor(y / reach)), []).append((slug, x, y))
    limit = reach * reach
    pairs: list[tuple[str, str]] = []
    for (cx, cy), members in cells.items():
        for index, (a, ax, ay) in enumerate(members):
            for b, bx, by in members[index + 1 :]:
                if (ax - bx) ** 2 + (ay - by) ** 2 <= limit:
                    pairs.append((a, b))
        for dx, dy in ((1, -1), (1, 0), (1, 1), (0, 1)):  # each neighbouring cell once
            other = cells.get((cx + dx, cy + dy))
            if other:
                for a, ax, ay in members:
                    for b, bx, by in other:
                        if (ax - bx) ** 2 + (ay - by) ** 2 <= limit:
                            pairs.append((a, b))
    return pairs


def _spread(unit: dict[str, tuple[float, float]], size: float) -> dict[str, list[float]]:
    """Even out a force layout's density: pull stray nodes in, open up the crowded core.

    Radii are normalised by the 80th percentile and raised to the power 0.6 (a fisheye), then
    capped, so a cluster reads as one round group with room for labels near its centre.
    """
    cx = sum(x for x, _ in unit.values()) / len(unit)
    cy = sum(y for _, y in unit.values()) / len(unit)
    radii = sorted(math.sqrt((x - cx) ** 2 + (y - cy) ** 2) for x, y in unit.values())
    ref = radii[int(0.8 * (len(radii) - 1))] or 1.0
    out: dict[str, list[float]] = {}
    for slug, (x, y) in unit.items():
        dx, dy = x - cx, y - cy
        r = math.sqrt(dx * dx + dy * dy)
        if r == 0:
            out[slug] = [0.0, 0.0]
            continue
        target = min((r / ref) ** 0.6, 1.12) * size
        out[slug] = [dx / r * target, dy / r * target]
    return out


def _separate(points: dict[str, list[float]], radius: dict[str, float], order: list[str], passes: int = 40) -> None:
    """Push overlapping circles apart (in place) so every node stays visible and clickable."""
    reach = 2 * max(radius[s] for s in order) + 3.0 if order else 0.0
    for _ in range(passes):
        moved = False
        # above EXACT_LIMIT, only pairs near enough to overlap (positions as the pass starts)
        for a, b in (_near_pairs(order, points, reach) if len(order) > EXACT_LIMIT else itertools.combinations(order, 2)):
            dx, dy = points[b][0] - points[a][0], points[b][1] - points[a][1]
            want = radius[a] + radius[b] + 3.0
            d2 = dx * dx + dy * dy
            if d2 >= want * want:
                continue
            d = math.sqrt(d2) or 1e-6
            if d2 == 0:
                dx, dy, d = 1.0, 0.0, 1.0
            push = (want - d) / 2
            points[a][0] -= dx / d * push
            points[a][1] -= dy / d * push
            points[b][0] += dx / d * push
            points[b][1] += dy / d * push
            moved = True
        if not moved:
            break


#: cos and sin of multiples of 30 degrees, exact to the last bit on every platform.
_R3 = math.sqrt(3) / 2
_ROTATIONS = ((1.0, 0.0), (_R3, 0.5), (0.5, _R3), (0.0, 1.0), (-0.5, _R3), (-_R3, 0.5), (-1.0, 0.0), (-_R3, -0.5), (-0.5, -_R3), (0.0, -1.0), (0.5, -_R3), (_R3, -0.5))


def layout_map(glossary: Glossary) -> MapLayout:
    graph = term_graph(glossary)
    inbound = {slug: graph.in_degree(slug) for slug in graph.nodes}
    radius = {slug: node_radius(inbound[slug]) for slug in graph.nodes}
    undirected = sorted({tuple(sorted(e)) for e in graph.edges})
    sections = [s.slug for s in glossary.sections if any(t in graph for t in s.terms)]
    local: dict[str, dict[str, list[float]]] = {}
    extent: dict[str, float] = {}
    for section in sections:
        members = [t for t in next(s for s in glossary.sections if s.slug == section).terms if t in graph]
        by_weight = sorted(members, key=lambda s: (-inbound[s], s))
        rank = {slug: i for i, slug in enumerate(by_weight)}
        inside = [(a, b) for a, b in undirected if a in rank and b in rank]
        unit = _fruchterman_reingold(sorted(members), inside, rank, random.Random(f"{SEED}:{section}"))
        points = _spread(unit, 22.0 * math.sqrt(len(members)) + 10)
        _separate(points, radius, by_weight)
        cx = sum(p[0] for p in points.values()) / len(points)
        cy = sum(p[1] for p in points.values()) / len(points)
        for p in points.values():
            p[0] -= cx
            p[1] -= cy
        local[section] = points
        extent[section] = max(math.sqrt(p[0] ** 2 + p[1] ** 2) + radius[s] for s, p in points.items())
    if not sections:  # an empty glossary: an empty (but valid) map
        return MapLayout(2 * _PAD, 2 * _PAD, (), (), (), ())
    centres = _arrange(sections, extent, undirected, graph)
    _orient(sections, local, centres, undirected, graph)
    placed: dict[str, tuple[float, float]] = {}
    for section in sections:
        cx, cy = centres[section]
        for slug, (x, y) in local[section].items():
            placed[slug] = (cx + x, cy + y)
    min_x = min(placed[s][0] - radius[s] for s in placed) - _PAD
    min_y = min(placed[s][1] - radius[s] for s in placed) - 30 - _PAD
    max_x = max(placed[s][0] + radius[s] for s in placed) + _PAD
    max_y = max(placed[s][1] + radius[s] for s in placed) + _PAD
    nodes = tuple(MapNode(s, graph.nodes[s]["section"], round(placed[s][0] - min_x, 1), round(placed[s][1] - min_y, 1), radius[s], inbound[s]) for s in graph.nodes)
    tops = {s: min(placed[t][1] - radius[t] for t in local[s]) for s in sections}
    headings = tuple((s, round(centres[s][0] - min_x, 1), round(tops[s] - 12 - min_y, 1)) for s in sections)
    labels = _labels(glossary, nodes, headings, max_x - min_x)
    return MapLayout(round(max_x - min_x, 1), round(max_y - min_y, 1), nodes, tuple(undirected), labels, headings)


def _cross_weights(sections: list[str], undirected: Iterable[tuple[str, str]], graph: TermGraph) -> dict[tuple[str, str], int]:
    weights: dict[tuple[str, str], int] = {}
    for a, b in undirected:
        sa, sb = graph.nodes[a]["section"], graph.nodes[b]["section"]
        if sa != sb:
            key = (min(sa, sb), max(sa, sb))
            weights[key] = weights.get(key, 0) + 1
    return weights


def _arrange(sections: list[str], extent: dict[str, float], undirected: list[tuple[str, str]], graph: TermGraph) -> dict[str, tuple[float, float]]:
    """Clusters in two rows (3 over 2 for five sections); the order minimises cross-links' length."""
    weights = _cross_weights(sections, undirected, graph)
    top = (len(sections) + 1) // 2
    best: tuple[float, tuple[str, ...]] | None = None
    for order in itertools.permutations(sections):
        centres = _slots(order, extent, top)
        cost = 0.0
        for (a, b), w in weights.items():
            (ax, ay), (bx, by) = centres[a], centres[b]
            cost += w * math.sqrt((ax - bx) ** 2 + (ay - by) ** 2)
        if best is None or (round(cost, 6), order) < (round(best[0], 6), best[1]):
            best = (cost, order)
    assert best is not None
    return _slots(best[1], extent, top)


def _slots(order: Iterable[str], extent: dict[str, float], top: int) -> dict[str, tuple[float, float]]:
    order = list(order)
    rows = [order[:top], order[top:]]
    gap = 70.0
    widths = [sum(2 * extent[s] for s in row) + gap * (len(row) - 1) for row in rows]
    width = max(widths)
    centres: dict[str, tuple[float, float]] = {}
    y = 0.0
    for row, row_w in zip(rows, widths, strict=True):
        if not row:
            continue
        height = max(extent[s] for s in row)
        x = (width - row_w) / 2
        for s in row:
            centres[s] = (x + extent[s], y + height)
            x += 2 * extent[s] + gap
        y += 2 * height + gap
    return centres


def _orient(sections: list[str], local: dict[str, dict[str, list[float]]], centres: dict[str, tuple[float, float]], undirected: list[tuple[str, str]], graph: TermGraph) -> None:
    """Turn each cluster (in 30-degree steps) so its cross-section links point the short way."""
    cross = [(a, b) for a, b in undirected if graph.nodes[a]["section"] != graph.nodes[b]["section"]]
    for _ in range(2):
        for section in sections:

            def absolute(slug: str) -> tuple[float, float]:
                s = graph.nodes[slug]["section"]
                return centres[s][0] + local[s][slug][0], centres[s][1] + local[s][slug][1]

            mine = [(a, b) if graph.nodes[a]["section"] == section else (b, a) for a, b in cross if section in (graph.nodes[a]["section"], graph.nodes[b]["section"])]
            others = [absolute(b) for _, b in mine]
            cx, cy = centres[section]
            best = None
            for index, (c, s) in enumerate(_ROTATIONS):
                cost = 0.0
                for (a, _), (ox, oy) in zip(mine, others, strict=True):
                    x, y = local[section][a]
                    rx, ry = cx + x * c - y * s, cy + x * s + y * c
                    cost += math.sqrt((rx - ox) ** 2 + (ry - oy) ** 2)
                if best is None or round(cost, 6) < round(best[0], 6):
                    best = (cost, index)
            assert best is not None
            c, s = _ROTATIONS[best[1]]
            for p in local[section].values():
                p[0], p[1] = p[0] * c - p[1] * s, p[0] * s + p[1] * c


def short_name(term: Term) -> str:
    """The title when it is short, else the abbreviation: "Shared Memory", not "SMEM"."""
    if len(term.title) <= 22 or not term.abbreviation:
        return term.title if len(term.title) <= 30 else term.title[:28].rstrip() + "…"
    return term.abbreviation


def _labels(glossary: Glossary, nodes: tuple[MapNode, ...], headings: tuple[tuple[str, float, float], ...], width: float) -> tuple[MapLabel, ...]:
    """Greedy labelling, most-linked first: a label goes where it hides no node and no label."""
    boxes: list[tuple[float, float, float, float]] = [(n.x - n.r, n.y - n.r, n.x + n.r, n.y + n.r) for n in nodes]
    for section, hx, hy in headings:
        w = text_width(SECTION_TITLES.get(section, section), 15.0, True)
        boxes.append((hx - w / 2, hy - 15, hx + w / 2, hy + 4))
    wanted = max(12, round(len(nodes) * LABEL_SHARE))
    out: list[MapLabel] = []
    h = line_height(MAP_LABEL)

    node_boxes = len(nodes)
    # boxes by grid cell, so a candidate is tested against its neighbours only, not against
    # every box (quadratic in the number of terms); same boxes, same order, same result
    cells: dict[tuple[int, int], list[int]] = {}

    def cells_of(box: tuple[float, float, float, float]) -> Iterable[tuple[int, int]]:
        return itertools.product(range(math.floor(box[0] / _CELL), math.floor(box[2] / _CELL) + 1), range(math.floor(box[1] / _CELL), math.floor(box[3] / _CELL) + 1))

    def add(box: tuple[float, float, float, float]) -> None:
        for cell in cells_of(box):
            cells.setdefault(cell, []).append(len(boxes))
        boxes.append(box)

    for index, box in enumerate(boxes):
        for cell in cells_of(box):
            cells.setdefault(cell, []).append(index)

    def cost(box: tuple[float, float, float, float], own: MapNode) -> float | None:
        """Area of nodes the label would cover; None where it would cover a label or heading."""
        x0, y0, x1, y1 = box
        if x0 < 2 or x1 > width - 2:
            return None
        covered = 0.0
        for index in sorted({i for cell in cells_of(box) for i in cells.get(cell, ())}):
            bx0, by0, bx1, by1 = boxes[index]
            if index < node_boxes and nodes[index] is own:
                continue
            if x0 < bx1 and bx0 < x1 and y0 < by1 and by0 < y1:
                if index >= node_boxes:
                    return None
                covered += (min(x1, bx1) - max(x0, bx0)) * (min(y1, by1) - max(y0, by0))
        return covered

    ranked = sorted(nodes, key=lambda n: (-n.inbound, n.slug))
    forced = {n.slug for n in ranked[:FORCED_LABELS]}
    for node in ranked:
        if len(out) >= wanted:
            break
        text = short_name(glossary.terms[node.slug])
        w = text_width(text, MAP_LABEL)
        candidates = [
            ("start", node.x + node.r + 3, node.y + MAP_LABEL * 0.35, (node.x + node.r + 2, node.y - h / 2, node.x + node.r + 4 + w, node.y + h / 2)),
            ("end", node.x - node.r - 3, node.y + MAP_LABEL * 0.35, (node.x - node.r - 4 - w, node.y - h / 2, node.x - node.r - 2, node.y + h / 2)),
            ("middle", node.x, node.y - node.r - 4, (node.x - w / 2, node.y - node.r - 3 - h, node.x + w / 2, node.y - node.r - 2)),
            ("middle", node.x, node.y + node.r + MAP_LABEL + 1, (node.x - w / 2, node.y + node.r + 2, node.x + w / 2, node.y + node.r + 3 + h)),
        ]
        best: tuple[float, int] | None = None
        for index, (_, _, _, box) in enumerate(candidates):
            c = cost(box, node)
            if c is None or (c > 0 and node.slug not in forced):
                continue  # the most-linked terms may cover small nodes; the rest may not
            if best is None or c < best[0]:
                best = (c, index)
        if best is not None:
            anchor, x, y, box = candidates[best[1]]
            out.append(MapLabel(node.slug, text, round(x, 1), round(y, 1), anchor))
            add(box)
    return tuple(out)


def render_map_svg(glossary: Glossary, href_for_slug: HrefForSlug, layout: MapLayout | None = None) -> str:
    """The whole glossary as one SVG: clusters by section, node size by inbound links.

    ``layout`` is ``layout_map(glossary)``, passed in by a caller that kept it from an
    earlier build of the same graph (`glossary serve`): the layout is nearly all the cost.
    """
    lay = layout if layout is not None else layout_map(glossary)
    counts = {s.slug: len(s.terms) for s in glossary.sections}
    top = sorted(lay.nodes, key=lambda n: (-n.inbound, n.slug))[:8]
    desc = (
        f"A map of all {len(lay.nodes)} terms and {len(lay.edges)} cross-reference pairs, clustered by section: "
        + "; ".join(f"{SECTION_TITLES.get(s, s)} ({counts.get(s, 0)} terms)" for s, _, _ in lay.headings)
        + ". Larger circles have more terms linking to them; the most linked are "
        + ", ".join(f"{glossary.terms[n.slug].title} ({n.inbound})" for n in top)
        + ". Every circle links to its term."
    )
    out = open_svg(lay.width, lay.height, "Map of the glossary", desc, "gg-map", "gg-graph")
    position = {n.slug: n for n in lay.nodes}
    segments = " ".join(f"M{num(position[a].x)} {num(position[a].y)}L{num(position[b].x)} {num(position[b].y)}" for a, b in lay.edges)
    out.append(f'<path class="gg-e" d="{segments}"/>')
    for section, x, y in lay.headings:
        out.append(text_el(x, y, SECTION_TITLES.get(section, section), f"gg-hx gg-m {text_class(section)}"))
    tips: dict[str, str] = {}
    for node in sorted(lay.nodes, key=lambda n: (n.inbound, n.slug)):  # big nodes on top
        term = glossary.terms[node.slug]
        tips[node.slug] = f"{term.display_title}: {term.summary} ({node.inbound} term{'s' if node.inbound != 1 else ''} link here)"
        href = href_for_slug(node.slug)
        out.append(link_open(href, term.display_title, tips[node.slug]))
        out.append(f'<circle class="gg-dot {dot_class(node.section)}" cx="{num(node.x)}" cy="{num(node.y)}" r="{num(node.r)}"/>')
        out.append(link_close(href))
    for label in lay.labels:  # a layer of its own, above every circle; the circle's link is the accessible one
        href = href_for_slug(label.slug)
        cls = "gg-t gg-ml gg-halo" + {"start": "", "end": " gg-end", "middle": " gg-m"}[label.anchor]
        out.append(link_open(href, label.text, tips[label.slug], primary=False))
        out.append(text_el(label.x, label.y, label.text, cls))
        out.append(link_close(href))
    return close_svg(out)


# --- neighbourhood -------------------------------------------------------------------------

NB_MAX = 10
NB_PILL_W = 190.0
NB_CENTRE_W = 200.0
NB_ROW = 28.0
NB_CURVE = 90.0


def _ellipsize(text: str, width: float, size: float, bold: bool = False) -> str:
    if text_width(text, size, bold) <= width:
        return text
    while text and text_width(text + "…", size, bold) > width:
        text = text[:-1]
    return text.rstrip() + "…"


def _pick(slugs: list[str], graph: TermGraph, limit: int) -> tuple[list[str], int]:
    """At most ``limit`` neighbours: the most-linked ones, shown in reading order."""
    if len(slugs) <= limit:
        return slugs, 0
    keep = set(sorted(slugs, key=lambda s: (-graph.in_degree(s), s))[:limit])
    return [s for s in slugs if s in keep], len(slugs) - limit


def render_neighbourhood_svg(term: Term, glossary: Glossary, href_for_slug: HrefForSlug, graph: TermGraph | None = None) -> str | None:
    """Terms linking to ``term`` on the left, terms it links to on the right; None if it has neither."""
    graph = graph if graph is not None else term_graph(glossary)
    if term.slug not in graph:
        return None
    order = glossary.position
    inbound = sorted(graph.predecessors(term.slug), key=lambda s: (order.get(s, 0), s))
    outbound = sorted(graph.successors(term.slug), key=lambda s: (order.get(s, 0), s))
    if not inbound and not outbound:
        return None
    left, left_more = _pick(inbound, graph, NB_MAX)
    right, right_more = _pick(outbound, graph, NB_MAX)
    rows = max(len(left) + (1 if left_more else 0), len(right) + (1 if right_more else 0), 1)
    header = 24.0
    height = header + rows * NB_ROW + 12
    width = NB_PILL_W * 2 + NB_CURVE * 2 + NB_CENTRE_W + 24
    x_left, x_centre = 12.0, 12.0 + NB_PILL_W + NB_CURVE
    x_right = x_centre + NB_CENTRE_W + NB_CURVE
    names = ", ".join
    desc = f"{term.display_title} is linked from {len(inbound)} term{'s' if len(inbound) != 1 else ''}" + (f" ({names(glossary.terms[s].title for s in inbound)})" if inbound else "")
    desc += f" and links to {len(outbound)} term{'s' if len(outbound) != 1 else ''}" + (f" ({names(glossary.terms[s].title for s in outbound)})." if outbound else ".")
    out = open_svg(width, height, f"Neighbourhood of {term.display_title}", desc, f"gg-nb-{term.slug}", "gg-graph")
    out.append(text_el(x_left, 16, "Linked from", "gg-c gg-s"))
    out.append(text_el(x_right, 16, "Links to", "gg-c gg-s"))
    body_top = header
    centre_h = 44.0
    cy = body_top + (rows * NB_ROW) / 2
    lines = _centre_lines(term.display_title)
    out.append(f'<rect class="gg-r {tone_class(term.section, "tint")}" x="{num(x_centre)}" y="{num(cy - centre_h / 2)}" width="{num(NB_CENTRE_W)}" height="{num(centre_h)}" rx="8" style="stroke-width:2px"/>')
    ty = cy - (len(lines) - 1) * line_height(13.0) / 2 + 4.5
    for line in lines:
        out.append(text_el(x_centre + NB_CENTRE_W / 2, ty, line, "gg-t gg-b gg-m"))
        ty += line_height(13.0)
    for side, slugs, more in (("left", left, left_more), ("right", right, right_more)):
        x = x_left if side == "left" else x_right
        total = len(slugs) + (1 if more else 0)
        top = body_top + (rows - total) * NB_ROW / 2
        for index, slug in enumerate(slugs):
            other = glossary.terms[slug]
            y = top + index * NB_ROW + NB_ROW / 2
            if side == "left":
                (sx, sy), (ex, ey) = (x + NB_PILL_W, y), (x_centre, cy)
            else:
                (sx, sy), (ex, ey) = (x_centre + NB_CENTRE_W, cy), (x, y)
            mid = (sx + ex) / 2
            out.append(f'<path class="gg-a" d="M{num(sx)} {num(sy)} C{num(mid)} {num(sy)} {num(mid)} {num(ey)} {num(ex - 6)} {num(ey)}"/>')
            out.append(arrow_head(ex - 10, ey, ex, ey, 7.0))
            href = href_for_slug(slug)
            out.append(link_open(href, other.display_title, f"{other.display_title}: {other.summary}"))
            out.append(f'<rect class="gg-r {tone_class(other.section, "fill")}" x="{num(x)}" y="{num(y - 11)}" width="{num(NB_PILL_W)}" height="22" rx="11"/>')
            out.append(text_el(x + NB_PILL_W / 2, y + 4.3, _ellipsize(other.title, NB_PILL_W - 16, SIZE_CAPTION), "gg-t gg-s gg-m"))
            out.append(link_close(href))
        if more:
            y = top + len(slugs) * NB_ROW + NB_ROW / 2
            out.append(text_el(x + NB_PILL_W / 2, y + 4.3, f"and {more} more", "gg-c gg-s gg-m"))
    return close_svg(out)


def _centre_lines(title: str) -> list[str]:
    from glossary_tool.draw.layout import wrap

    lines = list(wrap(title, NB_CENTRE_W - 16, 13.0, bold=True))
    if len(lines) > 2:
        lines = [lines[0], _ellipsize(" ".join(lines[1:]), NB_CENTRE_W - 16, 13.0, True)]
    return lines


__all__ = ["MAP_SRC", "MapLayout", "TermGraph", "layout_map", "render_map_svg", "render_neighbourhood_svg", "term_graph"]
