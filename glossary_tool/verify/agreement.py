"""Quantities that two snippets both measure must agree on the same GPU.

The L2 hit latency appears on the memory-latency page and again on the Little's-law page; the
pinned host-to-device bandwidth on the pinned-memory page and on the PCIe page. When one of the
two measures the wrong thing (a warm-up deleted as dead code, a cache state the kernel did not
set up), the two disagree, which is how the memory-latency chase was caught printing 414 cycles
for an L2 hit that the Little's-law chase timed at 288. The table below names each shared
quantity, where each snippet prints it, and how far apart the readings may be.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from glossary_tool.verify.figures import RecordOutput


@dataclass(frozen=True)
class Reading:
    """Where one snippet prints a quantity: ``pattern`` has one group holding the number."""

    term: str
    snippet: str
    pattern: str
    #: Multiplies the printed number into the quantity's unit (TB/s printed, GB/s compared).
    scale: float = 1.0

    def value_in(self, stdout: str) -> float | None:
        m = re.search(self.pattern, stdout, re.M)
        return float(m.group(1)) * self.scale if m else None


@dataclass(frozen=True)
class SharedQuantity:
    name: str
    unit: str
    #: Largest allowed (max - min) / min between readings on one GPU.
    tolerance: float
    readings: tuple[Reading, ...]


def _chase(level_ml: str, level_ll: str) -> tuple[Reading, Reading]:
    return (
        Reading("memory-latency", "pointer-chase", rf"^{level_ml}\b.*?\b(\d+) cycles"),
        Reading("littles-law", "pointer-chase-littles-law", rf"^{level_ll}\b.*?\b(\d+) cycles per load"),
    )


SHARED: tuple[SharedQuantity, ...] = (
    SharedQuantity("L1 hit latency", "cycles", 0.10, _chase("L1 hit", "L1 hit")),
    SharedQuantity(
        "L2 hit latency", "cycles", 0.10,
        (*_chase("L2 hit", "L2 hit"), Reading("scoreboard-stall", "dependent-vs-independent-loads", r"^dependent loads\s*:\s*([\d.]+) cycles per load")),
    ),
    SharedQuantity("DRAM latency, idle, one chain", "cycles", 0.10, _chase("HBM", "DRAM")),
    SharedQuantity(
        "pinned host-to-device bandwidth", "GB/s", 0.10,
        (
            Reading("pinned-memory", "pinned-vs-pageable", r"^host to device, pinned:\s+([\d.]+) GB/s"),
            Reading("pcie", "pcie-pinned-bandwidth", r"^host->device\s+([\d.]+) GB/s"),
        ),
    ),
    SharedQuantity(
        "pinned device-to-host bandwidth", "GB/s", 0.10,
        (
            Reading("pinned-memory", "pinned-vs-pageable", r"^device to host, pinned:\s+([\d.]+) GB/s"),
            Reading("pcie", "pcie-pinned-bandwidth", r"^device->host\s+([\d.]+) GB/s"),
        ),
    ),
    SharedQuantity(
        "theoretical HBM bandwidth", "GB/s", 0.01,
        (
            Reading("hbm", "hbm-bus-width", r"^theoretical peak\s*=\s*([\d.]+) TB/s", 1000.0),
            Reading("memory-bandwidth", "copy-bandwidth", r"^theoretical:.*=\s*(\d+) GB/s"),
            Reading("littles-law", "pointer-chase-littles-law", r"^Little's law: (\d+) GB/s"),
        ),
    ),
)

#: What the fresh, passing records of a (term, snippet) printed; empty when there are none.
Outputs = Callable[[str, str], Sequence[RecordOutput]]


@dataclass(frozen=True)
class Disagreement:
    quantity: SharedQuantity
    gpu: str
    values: tuple[tuple[Reading, float], ...]

    def describe(self) -> str:
        shown = ", ".join(f"{r.term}/{r.snippet} {v:g}" for r, v in self.values)
        return f"{self.quantity.name} on {self.gpu} differs by more than {self.quantity.tolerance:.0%}: {shown} {self.quantity.unit}"


def readings_by_gpu(quantity: SharedQuantity, outputs: Outputs) -> dict[str, list[tuple[Reading, float]]]:
    """Every reading of ``quantity`` in the records, grouped by GPU.

    Raises ValueError when a record exists but no longer prints the quantity where the table
    says it does: the table must follow the snippet, not silently stop comparing.
    """
    found: dict[str, list[tuple[Reading, float]]] = defaultdict(list)
    for reading in quantity.readings:
        for output in outputs(reading.term, reading.snippet):
            value = reading.value_in(output.stdout)
            if value is None:
                raise ValueError(f"{reading.term}/{reading.snippet} on {output.gpu_name} no longer prints {quantity.name} (pattern {reading.pattern!r})")
            found[output.gpu_name].append((reading, value))
    return dict(found)


def disagreements(quantities: Sequence[SharedQuantity], outputs: Outputs) -> list[Disagreement]:
    """Quantities whose readings on one GPU spread wider than their tolerance."""
    out: list[Disagreement] = []
    for quantity in quantities:
        for gpu, values in sorted(readings_by_gpu(quantity, outputs).items()):
            numbers = [v for _, v in values]
            if len(numbers) >= 2 and min(numbers) > 0 and (max(numbers) - min(numbers)) / min(numbers) > quantity.tolerance:
                out.append(Disagreement(quantity, gpu, tuple(values)))
    return out
