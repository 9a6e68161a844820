"""Quantities measured by two snippets agree on the same GPU, in the committed records."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from glossary_tool.pipeline import load_project
from glossary_tool.verify.agreement import SHARED, Reading, SharedQuantity, disagreements, readings_by_gpu
from glossary_tool.verify.figure_check import record_outputs
from glossary_tool.verify.figures import RecordOutput
from tests.conftest import REPO

L2 = next(q for q in SHARED if q.name == "L2 hit latency")
ML = "L2 hit (512 KiB touched)        {} cycles   139.4 ns\n"
LL = "L2 hit  (4 MiB chain)  :    {} cycles per load (  139 ns)\n"


def fake(records: dict[tuple[str, str], list[RecordOutput]]):
    def outputs(term: str, snippet: str) -> Sequence[RecordOutput]:
        return records.get((term, snippet), [])

    return outputs


def test_readings_within_tolerance_agree():
    records = {("memory-latency", "pointer-chase"): [RecordOutput("H100", ML.format(276))],
               ("littles-law", "pointer-chase-littles-law"): [RecordOutput("H100", LL.format(283))]}
    assert disagreements([L2], fake(records)) == []


def test_a_broken_measurement_disagrees():
    # The memory-latency chase whose warm-up was deleted printed 416 cycles; Little's law 288.
    records = {("memory-latency", "pointer-chase"): [RecordOutput("H200", ML.format(416))],
               ("littles-law", "pointer-chase-littles-law"): [RecordOutput("H200", LL.format(288))]}
    (d,) = disagreements([L2], fake(records))
    assert d.gpu == "H200" and [v for _, v in d.values] == [416.0, 288.0]
    assert "L2 hit latency on H200 differs by more than 10%" in d.describe()


def test_different_gpus_are_not_compared():
    records = {("memory-latency", "pointer-chase"): [RecordOutput("H200", ML.format(416))],
               ("littles-law", "pointer-chase-littles-law"): [RecordOutput("H100", LL.format(276))]}
    assert disagreements([L2], fake(records)) == []


def test_scale_converts_units():
    quantity = SharedQuantity("peak", "GB/s", 0.01, (Reading("a", "x", r"peak = ([\d.]+) TB/s", 1000.0), Reading("b", "y", r"peak: (\d+) GB/s")))
    records = {("a", "x"): [RecordOutput("G", "peak = 4.81 TB/s\n")], ("b", "y"): [RecordOutput("G", "peak: 4814 GB/s\n")]}
    assert readings_by_gpu(quantity, fake(records))["G"][0][1] == pytest.approx(4810.0)
    assert disagreements([quantity], fake(records)) == []


def test_a_record_that_stops_printing_the_quantity_is_an_error():
    records = {("memory-latency", "pointer-chase"): [RecordOutput("H100", "L2: 276\n")]}
    with pytest.raises(ValueError, match="no longer prints L2 hit latency"):
        readings_by_gpu(L2, fake(records))


def _committed_outputs():
    glossary = load_project(REPO, check_records=False).glossary
    read = record_outputs(REPO / "snippets")

    def outputs(term: str, snippet: str) -> Sequence[RecordOutput]:
        found = glossary.terms.get(term)
        match = [s for s in found.snippets if s.name == snippet] if found else []
        assert match, f"the agreement table names {term}/{snippet}, which is not in the glossary"
        return read(found, match[0])

    return outputs


def test_committed_records_agree():
    """Every shared quantity with two fresh readings on one GPU agrees within its tolerance.

    Stale records (a snippet changed and not yet re-run) are not read, so right after such a
    change a quantity may have one reading; at least one quantity must still be compared.
    """
    outputs = _committed_outputs()
    compared = [q.name for q in SHARED if any(len(v) >= 2 for v in readings_by_gpu(q, outputs).values())]
    assert compared, "no shared quantity has two fresh readings on one GPU"
    assert [d.describe() for d in disagreements(SHARED, outputs)] == []
