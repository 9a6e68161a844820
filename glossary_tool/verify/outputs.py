"""What each GPU printed for a snippet, in the order a page shows them, and where they differ.

The snippet tabs, the plain-text outputs and the GPU comparison page all show the same
runs: every GPU with a fresh passing record, reference GPUs first in their configured
order, other GPUs after them by label; on a page about one GPU (its title or an alias is a
word of the device name, "NVIDIA H100" in "NVIDIA H100 80GB HBM3") that GPU comes first.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from glossary_tool.model import Snippet, Term
from glossary_tool.verify.freshness import Freshness, freshness
from glossary_tool.verify.records import PASSED, Machine, Record, records_for
from glossary_tool.verify.reference import ReferenceGpu, gpu_label


@dataclass(frozen=True)
class GpuRun:
    """One GPU model's passing run of a snippet."""

    key: str
    label: str
    record: Record

    @property
    def machine(self) -> Machine:
        assert self.record.machine is not None
        return self.record.machine

    @property
    def stdout(self) -> str:
        return self.record.stdout

    def badge(self, arch: str) -> str:
        m = self.machine
        return f"Ran on {self.label} ({m.gpu_name}, {arch}): CUDA {m.cuda_runtime_version}, driver {m.driver_version}, {self.record.date}"


_GENERIC = re.compile(r"^nvidia\s+", re.I)


def gpu_of_term(term: Term, machine: Machine) -> bool:
    """Whether ``term`` is the page about ``machine``'s GPU: one of its names, less "NVIDIA",
    with a digit in it, is a whole word (or words) of the device name."""
    for name in (term.title, term.abbreviation or "", *term.aliases):
        bare = _GENERIC.sub("", name).strip()
        if len(bare) < 2 or not any(ch.isdigit() for ch in bare):
            continue
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(bare)}(?![A-Za-z0-9])", machine.gpu_name, re.I):
            return True
    return False


def passing_runs(records_root: Path, term: Term, snippet: Snippet, reference: Sequence[ReferenceGpu]) -> list[GpuRun]:
    """Every GPU's fresh passing run of ``snippet``, in the order pages show them; ``reference``:
    the reference GPUs (the caller read them from the site config: pipeline.Project)."""
    gpus = tuple(reference)
    runs = [
        GpuRun(key, gpu_label(record.machine, gpus, snippet), record)
        for key, record in records_for(records_root, term, snippet).items()
        if record.status == PASSED and record.machine is not None and freshness(snippet, record) is Freshness.FRESH
    ]
    order = {gpu.key: i for i, gpu in enumerate(gpus)}
    runs.sort(key=lambda run: (not gpu_of_term(term, run.machine), order.get(run.key, len(order)), run.label))
    return runs


def differing_lines(outputs: Sequence[str]) -> list[set[int]]:
    """For each output, the 0-based numbers of its lines that some other output does not share.

    Lines are aligned with difflib, so an extra line in one output marks only that line, not
    every line after it. Trailing whitespace is ignored, as in output matching.
    """
    split = [[line.rstrip() for line in text.rstrip("\n").split("\n")] if text.strip() else [] for text in outputs]
    marked: list[set[int]] = [set() for _ in split]
    for i, mine in enumerate(split):
        for j, other in enumerate(split):
            if i == j:
                continue
            for tag, a0, a1, _, _ in difflib.SequenceMatcher(None, mine, other, autojunk=False).get_opcodes():
                if tag != "equal":
                    marked[i].update(range(a0, a1))
    return marked
