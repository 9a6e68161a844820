"""The occupancy calculator on the Occupancy page, fed by what the GPUs printed.

The ``occupancy-oracle`` snippet prints, on each GPU, one ``limits:`` line (the device
properties the calculation needs) and one line per configuration with the answer of
``cudaOccupancyMaxActiveBlocksPerMultiprocessor``. The page gets the limits of every GPU
whose record passed and is fresh (the calculator offers those GPUs and no other), and the
browser test replays every configuration through the calculator (glossary/assets/occupancy.js)
and requires the runtime's answer. No record yet: the page says so instead of guessing limits.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from glossary_tool.emit.gpu_records import snippet_runs
from glossary_tool.model import Glossary
from glossary_tool.verify.records import Record

TERM = "occupancy"
SNIPPET = "occupancy-oracle"
#: Device properties the calculation needs, as the snippet's ``limits:`` line names them.
LIMIT_KEYS = (
    "warpSize",
    "maxThreadsPerBlock",
    "maxThreadsPerMultiProcessor",
    "maxBlocksPerMultiProcessor",
    "regsPerMultiprocessor",
    "regsPerBlock",
    "sharedMemPerMultiprocessor",
    "sharedMemPerBlockOptin",
    "reservedSharedMemPerBlock",
)
_LIMITS = re.compile(r"^limits: cc (?P<major>\d+)\.(?P<minor>\d+), (?P<rest>.*)$")
_CASE = re.compile(
    r"^(?P<kernel>\S+)\s+regs\s+(?P<regs>\d+), static\s+(?P<static>\d+) B, block\s+(?P<block>\d+), dynamic\s+(?P<dynamic>\d+) B -> (?:\s*(?P<blocks>\d+) blocks/SM|(?P<error>\w+))$"
)


@dataclass(frozen=True)
class Case:
    """One configuration and the runtime's answer (``error`` names a failed call)."""

    kernel: str
    regs: int
    static: int
    block: int
    dynamic: int
    blocks: int | None
    error: str | None = None

    @property
    def shared(self) -> int:
        """Shared memory per block as the calculator takes it: static plus dynamic bytes."""
        return self.static + self.dynamic


@dataclass(frozen=True)
class GpuRun:
    """What one GPU printed: its limits and every configuration."""

    gpu: str
    date: str
    compute_capability: tuple[int, int]
    limits: Mapping[str, int]
    cases: tuple[Case, ...]


def parse_run(record: Record) -> GpuRun | None:
    """The limits and cases in a record's stdout; None when its limits line is missing or incomplete."""
    assert record.machine is not None
    limits: dict[str, int] = {}
    cc = (0, 0)
    cases: list[Case] = []
    for line in record.stdout.splitlines():
        head = _LIMITS.match(line)
        if head:
            cc = (int(head["major"]), int(head["minor"]))
            for item in head["rest"].split(", "):
                key, _, value = item.partition(" ")
                if key in LIMIT_KEYS and value.isdigit():
                    limits[key] = int(value)
            continue
        case = _CASE.match(line)
        if case:
            blocks = case["blocks"]
            cases.append(Case(case["kernel"], int(case["regs"]), int(case["static"]), int(case["block"]), int(case["dynamic"]), int(blocks) if blocks else None, case["error"]))
    if set(limits) != set(LIMIT_KEYS):
        return None
    return GpuRun(record.machine.gpu_name, record.date, cc, limits, tuple(cases))


def runs(glossary: Glossary, records_root: Path) -> list[GpuRun]:
    """Every GPU's run of the oracle snippet, by GPU name."""
    return snippet_runs(glossary, records_root, TERM, SNIPPET, parse_run)


def json_for_script(data: object) -> str:
    """JSON safe inside <script>: no '</' can close the element."""
    return json.dumps(data, sort_keys=True, separators=(",", ":")).replace("</", "<\\/")


def calculator_html(gpu_runs: list[GpuRun]) -> str:
    """The calculator: a form with labelled inputs, live outputs and a chart, as one element.

    The script fills outputs and the chart; the data block carries each GPU's limits.
    """
    if not gpu_runs:
        return (
            '<div class="gg-occupancy gg-occupancy--empty"><p>The occupancy calculator appears here once the '
            f"<code>{SNIPPET}</code> snippet below has a verified record: it takes every limit from what a GPU printed.</p></div>"
        )
    data = {"gpus": [{"name": r.gpu, "date": r.date, "cc": list(r.compute_capability), "limits": dict(r.limits)} for r in gpu_runs]}
    options = "".join(f'<option value="{i}">{html.escape(r.gpu)}</option>' for i, r in enumerate(gpu_runs))

    def number(name: str, label: str, value: int, low: int, high: int, step: int, unit: str) -> str:
        return (
            f'<label class="gg-occupancy__field"><span>{label}</span>'
            f'<input type="number" name="{name}" value="{value}" min="{low}" max="{high}" step="{step}" inputmode="numeric" required>'
            f'<span class="gg-occupancy__unit">{unit}</span></label>'
        )

    fields = "".join(
        [
            f'<label class="gg-occupancy__field"><span>GPU</span><select name="gpu">{options}</select></label>',
            number("threads", "Threads per block", 256, 1, 1024, 1, "threads"),
            number("regs", "Registers per thread", 32, 1, 255, 1, "registers"),
            number("smem", "Shared memory per block", 0, 0, 232448, 1, "bytes (static + dynamic)"),
        ]
    )
    outputs = "".join(
        f'<div><dt>{label}</dt><dd><output name="{name}" aria-live="polite"></output></dd></div>'
        for name, label in (("blocks", "Blocks per SM"), ("warps", "Resident warps per SM"), ("occupancy", "Occupancy"), ("limiter", "Limited by"))
    )
    sources = "; ".join(f"{html.escape(r.gpu)}: verified {html.escape(r.date)}" for r in gpu_runs)
    return (
        '<div class="gg-occupancy" data-gg-widget="occupancy">'
        f'<script type="application/json" class="gg-occupancy__data">{json_for_script(data)}</script>'
        f'<form class="gg-occupancy__form" aria-label="Occupancy calculator" onsubmit="return false">{fields}</form>'
        f'<dl class="gg-occupancy__out">{outputs}</dl>'
        '<figure class="gg-occupancy__chart"><div class="gg-occupancy__svg" role="img" aria-label="Occupancy against block size"></div>'
        "<figcaption>Occupancy for every block size from 32 to 1,024 threads, with these registers and this shared memory; the marked bar is the block size above.</figcaption></figure>"
        f'<p class="gg-occupancy__source">Limits from <code>cudaGetDeviceProperties</code> as printed by the <code>{SNIPPET}</code> snippet ({sources}).</p>'
        "<noscript><p>The calculator needs JavaScript; the table of configurations the GPU printed is in the snippet's output.</p></noscript>"
        "</div>"
    )
