"""The glossary's own content meets the bar the content issues set."""

from __future__ import annotations

import pytest

from glossary_tool.diagnostics import Severity
from glossary_tool.verify.records import PASSED, read_record

CORE = {
    # device hardware and software
    "streaming-multiprocessor", "tensor-core", "register-file", "l1-data-cache", "hopper-architecture", "blackwell-architecture",
    "tensor-memory-accelerator", "tensor-memory", "h100", "cuda-programming-model", "warp", "thread-block", "thread-block-cluster",
    "kernel", "compute-capability", "memory-hierarchy", "registers", "shared-memory", "distributed-shared-memory", "global-memory",
    "mbarrier", "wgmma", "tcgen05", "parallel-thread-execution", "streaming-assembler", "async-proxy", "floating-point-formats",
    # host software
    "cuda-software-platform", "cuda-c", "cuda-runtime-api", "cuda-driver-api", "cuda-stream", "cuda-graph", "unified-memory", "nvcc",
    "nsight-compute", "cublas", "cutlass", "triton", "nvidia-gpu-driver",
    # performance
    "roofline-model", "arithmetic-intensity", "memory-bandwidth", "latency-hiding", "occupancy", "warp-divergence", "register-spilling",
    "memory-coalescing", "bank-conflict", "tiling", "flash-attention", "gemm", "software-pipelining", "warp-specialization",
    # multi-gpu
    "nvlink", "nccl", "all-reduce", "collective-communication", "pcie", "mig",
}


@pytest.fixture(scope="module")
def loaded(real_project):
    return real_project


def test_check_is_clean(loaded):
    assert [d.format() for d in loaded.diagnostics] == []


def test_every_term_has_length_links_summary_and_sources(loaded):
    glossary = loaded.glossary
    for term in glossary.ordered_terms():
        minimum = 350 if term.slug in CORE else 150
        assert term.words >= minimum, f"{term.slug}: {term.words} words < {minimum}"
        targets = {link.target for link in glossary.links[term.slug]}
        assert len(targets) >= 3, f"{term.slug}: links to {len(targets)} terms"
        assert glossary.backlinks[term.slug], f"{term.slug} is an orphan"
        assert term.sources and term.summary


def test_core_terms_exist(loaded):
    assert CORE <= set(loaded.glossary.terms)


def test_section_introductions(loaded):
    for section in loaded.glossary.sections:
        assert section.page is not None
        assert 300 <= section.page.words <= 600, (section.slug, section.page.words)
        assert len(loaded.glossary.links[section.page.slug]) >= 5


def test_verified_snippets_per_section(loaded):
    passed: dict[str, int] = {}
    for term in loaded.glossary.ordered_terms():
        for snippet in term.snippets:
            record = read_record(loaded.project.records_dir, term, snippet)
            if record is not None and record.status == PASSED and record.machine is not None:
                passed[term.section] = passed.get(term.section, 0) + 1
    assert passed.get("device-hardware", 0) + passed.get("device-software", 0) >= 30
    assert passed.get("host-software", 0) + passed.get("performance", 0) >= 25
    assert sum(passed.values()) >= 15


def test_no_warnings(loaded):
    assert not [d for d in loaded.diagnostics if d.severity is Severity.WARNING]


def test_amd_section_links_both_ways(loaded):
    """Issue 19: >= 30 AMD terms, each with >= 3 links, its NVIDIA counterpart linked from
    `equivalents.nvidia` and a paragraph on where the analogy breaks; and from the CUDA side,
    every AMD page is the target of some CUDA term's `equivalents.amd` or body link."""
    glossary = loaded.glossary
    amd = [t for t in glossary.ordered_terms() if t.section == "amd"]
    assert len(amd) >= 30
    for term in amd:
        targets = {link.target for link in glossary.links[term.slug]}
        assert len(targets) >= 3, term.slug
        counterpart = glossary.equivalent_links.get(term.slug, {}).get("nvidia")
        assert counterpart is not None and glossary.terms[counterpart.target].section != "amd", term.slug
        assert "where-the-analogy-breaks" in {h.anchor for h in term.headings}, term.slug
        from_cuda = {s for s, found in glossary.equivalent_links.items() if any(link.target == term.slug for link in found.values())}
        from_cuda |= {s for s in glossary.backlinks[term.slug] if glossary.terms[s].section != "amd"}
        assert from_cuda, f"{term.slug}: no CUDA term links here"


def test_every_amd_equivalent_with_a_page_links_it(loaded):
    """A CUDA term's `equivalents.amd` that starts with an AMD page's title or abbreviation must link that page."""
    glossary = loaded.glossary
    names = {name.lower(): t.slug for t in glossary.ordered_terms() if t.section == "amd" for name in (t.title, t.abbreviation) if name}
    for term in glossary.ordered_terms():
        value = dict(term.equivalents).get("amd")
        if term.section == "amd" or value is None:
            continue
        first = value.split(" (")[0].strip().lower()
        if first in names:
            link = glossary.equivalent_links.get(term.slug, {}).get("amd")
            assert link is not None and link.target == names[first], (term.slug, value)
