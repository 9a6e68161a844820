"""Is a committed record still the truth about its snippet?

``glossary check`` (no GPU) and ``glossary verify`` (cache decisions) ask the same
questions, so they live here once.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from pathlib import Path

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.model import Snippet, Term
from glossary_tool.verify.matching import match_output
from glossary_tool.verify.records import COMPILE_ONLY, FAILED, PASSED, Machine, Record, options_of, read_record, sha256


class Freshness(enum.Enum):
    MISSING = "missing"
    STALE = "stale"
    FRESH = "fresh"


def freshness(snippet: Snippet, record: Record | None) -> Freshness:
    if record is None:
        return Freshness.MISSING
    if record.source_sha256 != sha256(snippet.source) or record.options != options_of(snippet) or record.lang != snippet.lang:
        return Freshness.STALE
    return Freshness.FRESH


def required_cc(snippet: Snippet) -> float:
    try:
        return float(snippet.option("requires", "0") or 0)
    except ValueError:
        return 0.0


def required_gpus(snippet: Snippet) -> int:
    try:
        return int(snippet.option("gpus", "1") or 1)
    except ValueError:
        return 1


def runnable_on(snippet: Snippet, machine: Machine | None) -> str | None:
    """None when ``machine`` may run the snippet, else the reason it may not."""
    if machine is None:
        return "no GPU on this machine"
    if required_cc(snippet) > float(machine.compute_capability):
        return f"needs compute capability {snippet.option('requires')}; {machine.gpu_name} is {machine.compute_capability}"
    if required_gpus(snippet) > machine.gpu_count:
        return f"needs {required_gpus(snippet)} GPUs; this machine has {machine.gpu_count}"
    return None


def is_cached(snippet: Snippet, record: Record | None, machine: Machine | None, nvcc_version: str) -> bool:
    """A record is reused when source, options, toolchain and GPU all match and it is final."""
    if freshness(snippet, record) is not Freshness.FRESH or record is None:
        return False
    if record.nvcc_version != nvcc_version:
        return False
    if record.status == PASSED:
        return machine is not None and record.machine is not None and record.machine.gpu_name == machine.gpu_name
    if record.status == COMPILE_ONLY:
        # Final where this machine could not run it either (Blackwell-only code, 2 GPUs),
        # or where there is nothing to launch (PTX without a harness).
        if machine is None or record.machine is None:
            return False
        return runnable_on(snippet, machine) is not None or snippet.lang == "ptx"
    return False


def snippet_diagnostics(terms: Iterable[Term], records_root: Path) -> list[Diagnostic]:
    """What ``glossary check`` says about each verify snippet's record."""
    out: list[Diagnostic] = []
    for term in terms:
        for snippet in term.snippets:
            record = read_record(records_root, term, snippet)
            state = freshness(snippet, record)
            where = f"glossary verify --term {term.slug}"
            if state is Freshness.MISSING:
                out.append(error(term.path, snippet.line, 1, "snippet-unverified", f"snippet '{snippet.name}' has no record; run `{where}` on a GPU machine and commit snippets/, or ask a maintainer to (CONTRIBUTING.md)"))
                continue
            if state is Freshness.STALE:
                out.append(error(term.path, snippet.line, 1, "snippet-stale", f"snippet '{snippet.name}' changed since it was verified; run `{where}` on a GPU machine"))
                continue
            assert record is not None
            if record.status == FAILED:
                out.append(error(term.path, snippet.line, 1, "snippet-failed", f"snippet '{snippet.name}' failed when verified: {record.reason}; fix it and run `{where}`"))
            elif record.status == COMPILE_ONLY and record.machine is None:
                out.append(error(term.path, snippet.line, 1, "snippet-unverified", f"snippet '{snippet.name}' was only compiled, never run on a GPU; run `{where}` on a GPU machine"))
            elif record.status == PASSED and snippet.expected is not None:
                mismatch = match_output(snippet.expected, record.stdout)
                if mismatch is not None:
                    out.append(error(term.path, snippet.line, 1, "snippet-output", f"snippet '{snippet.name}': recorded output no longer matches the output fence ({mismatch.describe()})"))
    return out
