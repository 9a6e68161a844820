"""An interactive roofline on the Roofline Model page, drawn from the GPUs' own measurements.

The ``roofline-sweep`` snippet prints, on each GPU, its FP32 roof (DRAM bandwidth slope,
FMA peak, ridge point) and five measured kernels of rising arithmetic intensity. The page
plots every GPU's roof and measured points on log-log axes, and a reader who types an
intensity (or FLOPs and bytes per element) reads off the attainable rate on each GPU and
which roof binds. Nothing is plotted that a GPU did not print.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path

from glossary_tool.emit.gpu_records import snippet_runs
from glossary_tool.emit.occupancy import json_for_script
from glossary_tool.model import Glossary
from glossary_tool.verify.records import Record

TERM = "roofline-model"
SNIPPET = "roofline-sweep"
_ROOF = re.compile(r"^FP32 roofline: (?P<bw>\d+(?:\.\d+)?) GB/s slope, (?P<peak>\d+(?:\.\d+)?) GFLOP/s flat roof, ridge at (?P<ridge>\d+(?:\.\d+)?) FLOP/B$")
_POINT = re.compile(r"^AI\s+(?P<ai>\d+(?:\.\d+)?) FLOP/B:\s+(?P<measured>\d+(?:\.\d+)?) GFLOP/s measured, roof\s+(?P<roof>\d+(?:\.\d+)?) GFLOP/s$")


@dataclass(frozen=True)
class Point:
    intensity: float  # FLOP per DRAM byte
    measured: float  # GFLOP/s
    roof: float  # GFLOP/s, as the GPU printed it


@dataclass(frozen=True)
class Roofline:
    gpu: str
    date: str
    bandwidth: float  # GB/s
    peak: float  # GFLOP/s
    ridge: float  # FLOP/B
    points: tuple[Point, ...]


def parse_run(record: Record) -> Roofline | None:
    """The roof and points a GPU printed; None without a roof line or any point."""
    assert record.machine is not None
    roof = None
    points = []
    for line in record.stdout.splitlines():
        head = _ROOF.match(line.strip())
        if head:
            roof = (float(head["bw"]), float(head["peak"]), float(head["ridge"]))
        point = _POINT.match(line.strip())
        if point:
            points.append(Point(float(point["ai"]), float(point["measured"]), float(point["roof"])))
    if roof is None or not points:
        return None
    return Roofline(record.machine.gpu_name, record.date, *roof, tuple(points))


def runs(glossary: Glossary, records_root: Path) -> list[Roofline]:
    """Every GPU's run of the roofline sweep, by GPU name."""
    return snippet_runs(glossary, records_root, TERM, SNIPPET, parse_run)


def roofline_html(rooflines: list[Roofline]) -> str:
    """The plot and the intensity form as one element (glossary/assets/roofline.js draws it)."""
    if not rooflines:
        return f'<div class="gg-roofline gg-roofline--empty"><p>The interactive roofline appears here once the <code>{SNIPPET}</code> snippet has a verified record.</p></div>'
    data = {
        "gpus": [
            {"name": r.gpu, "date": r.date, "bandwidth": r.bandwidth, "peak": r.peak, "ridge": r.ridge, "points": [[p.intensity, p.measured, p.roof] for p in r.points]}
            for r in rooflines
        ]
    }
    rows = "".join(
        f'<tr data-gpu="{i}"><th scope="row">{html.escape(r.gpu)}</th><td><output name="attainable-{i}"></output></td><td><output name="bound-{i}"></output></td></tr>'
        for i, r in enumerate(rooflines)
    )
    sources = "; ".join(f"{html.escape(r.gpu)}: verified {html.escape(r.date)}" for r in rooflines)
    return (
        '<div class="gg-roofline" data-gg-widget="roofline">'
        f'<script type="application/json" class="gg-roofline__data">{json_for_script(data)}</script>'
        '<form class="gg-roofline__form" aria-label="Roofline: attainable FP32 rate for an arithmetic intensity" onsubmit="return false">'
        '<label class="gg-occupancy__field"><span>FLOPs per element</span><input type="number" name="flops" value="2" min="0" step="any" inputmode="decimal"></label>'
        '<label class="gg-occupancy__field"><span>DRAM bytes per element</span><input type="number" name="bytes" value="12" min="0.001" step="any" inputmode="decimal"></label>'
        '<p class="gg-roofline__ai">Arithmetic intensity: <output name="intensity"></output> FLOP/B</p>'
        "</form>"
        f'<table class="gg-roofline__table"><thead><tr><th scope="col">GPU</th><th scope="col">Attainable FP32</th><th scope="col">Bound by</th></tr></thead><tbody>{rows}</tbody></table>'
        '<figure class="gg-roofline__chart"><div class="gg-roofline__svg" role="img" aria-label="Roofline plot: attainable GFLOP/s against FLOP per byte, measured points marked"></div>'
        "<figcaption>Each GPU's FP32 roof (lines) and the kernels it measured (dots), log-log; the vertical line is the intensity above.</figcaption></figure>"
        f'<p class="gg-occupancy__source">Roofs and points as printed by the <code>{SNIPPET}</code> snippet ({sources}).</p>'
        "<noscript><p>The plot needs JavaScript; the numbers are in the snippet's output.</p></noscript>"
        "</div>"
    )
