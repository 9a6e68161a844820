"""The verified runs of one snippet, one per GPU model: what the interactive pages are drawn from."""

from __future__ import annotations

from pathlib import Path

from glossary_tool.model import Snippet, Term
from glossary_tool.verify.freshness import Freshness, freshness
from glossary_tool.verify.records import PASSED, Record


def gpu_records(records_root: Path, term: Term, snippet: Snippet) -> list[Record]:
    """Every GPU's passed, fresh record of ``snippet``: the one place that reads them.

    With per-GPU records (``verify.records.records_for``) one per GPU model; with the
    single-record layout, that record.
    """
    from glossary_tool.verify import records

    found = records.records_for(records_root, term, snippet).values() if hasattr(records, "records_for") else [records.read_record(records_root, term, snippet)]
    return [r for r in found if r is not None and r.status == PASSED and r.machine is not None and freshness(snippet, r) is Freshness.FRESH]
