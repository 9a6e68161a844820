"""Is a committed record still the truth about its snippet, on each GPU that must have run it?

``glossary check`` (no GPU) and ``glossary verify`` (cache decisions) ask the same
questions, so they live here once.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.model import Snippet, Term
from glossary_tool.verify.matching import match_output
from glossary_tool.verify.records import COMPILE_ONLY, FAILED, PASSED, Machine, Record, options_of, records_for, sha256
from glossary_tool.verify.reference import ReferenceGpu, cc_shortfall, gpu_label, required_cc, required_gpus

__all__ = ["Freshness", "freshness", "is_cached", "passes", "required_cc", "required_gpus", "runnable_on", "snippet_diagnostics"]


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


def runnable_on(snippet: Snippet, machine: Machine | None) -> str | None:
    """None when ``machine`` may run the snippet, else the reason it may not."""
    if machine is None:
        return "no GPU on this machine"
    shortfall = cc_shortfall(snippet, machine.compute_capability)
    if shortfall is not None:
        return f"needs {shortfall}; {machine.gpu_name} is {machine.compute_capability}"
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


def passes(snippet: Snippet, record: Record) -> bool:
    """A fresh record from a GPU that ran the snippet as far as it can be run, with the expected output.

    A PTX snippet has no launch harness: assembling it on the GPU's machine is its whole run.
    """
    if freshness(snippet, record) is not Freshness.FRESH or record.machine is None:
        return False
    if record.status == COMPILE_ONLY:
        return snippet.lang == "ptx"
    if record.status != PASSED:
        return False
    return snippet.expected is None or match_output(snippet.expected, record.stdout, record.machine) is None


def snippet_diagnostics(terms: Iterable[Term], records_root: Path, reference: Sequence[ReferenceGpu] = (), records: Callable[[Term, Snippet], Mapping[str, Record]] | None = None) -> list[Diagnostic]:
    """What ``glossary check`` says about each verify snippet's records.

    With reference GPUs configured, each one that meets the snippet's ``requires`` and
    ``gpus`` must have a fresh passing record; a snippet none of them can run needs a fresh
    compile-only record from a GPU machine. Without them, one fresh record is enough.
    Records of any GPU must not be failed or disagree with the output fence. ``records``
    reads a snippet's records (default: ``records_for`` in ``records_root``).
    """
    read = records if records is not None else (lambda term, snippet: records_for(records_root, term, snippet))
    out: list[Diagnostic] = []
    for term in terms:
        for snippet in term.snippets:
            out += _diagnose(term, snippet, read(term, snippet), reference)
    return out


def _diagnose(term: Term, snippet: Snippet, records: Mapping[str, Record], reference: Sequence[ReferenceGpu]) -> list[Diagnostic]:
    where = f"glossary verify --term {term.slug}"
    name = snippet.name

    def diag(code: str, message: str) -> Diagnostic:
        return error(term.path, snippet.line, 1, code, message)

    out: list[Diagnostic] = []
    fresh = {key: r for key, r in records.items() if freshness(snippet, r) is Freshness.FRESH}
    for record in fresh.values():
        label = gpu_label(record.machine, reference, snippet)
        if record.status == FAILED:
            out.append(diag("snippet-failed", f"snippet '{name}' failed when verified on {label}: {record.reason}; fix it and run `{where}`"))
        elif record.status == PASSED and snippet.expected is not None:
            mismatch = match_output(snippet.expected, record.stdout, record.machine)
            if mismatch is not None:
                out.append(diag("snippet-output", f"snippet '{name}': the output recorded on {label} no longer matches the output fence ({mismatch.describe()})"))
    if out:
        return out
    runners = [gpu for gpu in reference if gpu.can_run(snippet)]
    if runners:
        for gpu in runners:
            record = records.get(gpu.key)
            label = gpu_label(Machine(gpu.name, gpu.compute_capability, 0, "", "", "", gpu.gpus), reference, snippet)
            if record is None:
                out.append(diag("snippet-unverified", f"snippet '{name}' has no record from reference GPU {label} ({gpu.name}); run `{where}` on one and commit snippets/ (CONTRIBUTING.md)"))
            elif freshness(snippet, record) is Freshness.STALE:
                out.append(diag("snippet-stale", f"snippet '{name}' changed since it was verified on reference GPU {label} ({gpu.name}); run `{where}` on one"))
            elif not passes(snippet, record):
                why = record.reason.removeprefix("compiled only: ") or record.status
                out.append(diag("snippet-unverified", f"snippet '{name}' has not passed on reference GPU {label} ({gpu.name}): {why}; run `{where}` on one"))
        return out
    if not records:
        return [diag("snippet-unverified", f"snippet '{name}' has no record; run `{where}` on a GPU machine and commit snippets/, or ask a maintainer to (CONTRIBUTING.md)")]
    if not fresh:
        return [diag("snippet-stale", f"snippet '{name}' changed since it was verified; run `{where}` on a GPU machine")]
    if not any(r.machine is not None and r.status in (PASSED, COMPILE_ONLY) for r in fresh.values()):
        return [diag("snippet-unverified", f"snippet '{name}' was only compiled, never run on a GPU; run `{where}` on a GPU machine")]
    return []
