"""The verified runs of one snippet, one per GPU model: what the interactive pages are drawn from."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TypeVar

from glossary_tool.model import Glossary, Snippet, Term
from glossary_tool.verify.freshness import Freshness, freshness
from glossary_tool.verify.records import PASSED, Record, records_for


def gpu_records(records_root: Path, term: Term, snippet: Snippet) -> list[Record]:
    """Every GPU's passed, fresh record of ``snippet``: the one place that reads them.

    One per GPU model (``verify.records.records_for``).
    """
    found = records_for(records_root, term, snippet).values()
    return [r for r in found if r.status == PASSED and r.machine is not None and freshness(snippet, r) is Freshness.FRESH]


class _Run(Protocol):
    gpu: str


R = TypeVar("R", bound=_Run)


def snippet_runs(glossary: Glossary, records_root: Path, term_slug: str, snippet_name: str, parse: Callable[[Record], R | None]) -> list[R]:
    """Each GPU's run of one named snippet, parsed by ``parse`` (None: unreadable), by GPU name."""
    term = glossary.terms.get(term_slug)
    snippet = next((s for s in term.snippets if s.name == snippet_name), None) if term else None
    if term is None or snippet is None:
        return []
    parsed = [parse(r) for r in gpu_records(records_root, term, snippet)]
    return sorted((r for r in parsed if r is not None), key=lambda r: r.gpu)
