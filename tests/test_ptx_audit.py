"""The committed PTX of every snippet still reads every parameter of the kernels it defines."""

from __future__ import annotations

from glossary_tool.verify.freshness import Freshness, freshness
from glossary_tool.verify.ptx_audit import kernels_in, unread_parameters
from glossary_tool.verify.records import read_artifact, read_record
from tests.conftest import REPO

SOURCE = """
__global__ void chase(const unsigned* a, int steps, int warm, unsigned* sink) { }
template <int N> __global__ void __launch_bounds__(256) chains(float* out) { }
"""

PTX = """
.visible .entry _Z5chasePKjiiPj(
	.param .u64 .ptr .align 1 _Z5chasePKjiiPj_param_0,
	.param .u32 _Z5chasePKjiiPj_param_1,
	.param .u32 _Z5chasePKjiiPj_param_2,
	.param .u64 .ptr .align 1 _Z5chasePKjiiPj_param_3
)
{
	ld.param.u64 	%rd1, [_Z5chasePKjiiPj_param_0];
	ld.param.u32 	%r1, [_Z5chasePKjiiPj_param_1];
	ld.param.u64 	%rd2, [_Z5chasePKjiiPj_param_3];
	ret;
}
.visible .entry _Z6chainsILi8EEvPf(
	.param .u64 .ptr .align 1 _Z6chainsILi8EEvPf_param_0
)
.maxntid 256, 1, 1
{
	ret;
}
.visible .entry _ZN3cub6ReduceEPi(
	.param .u64 _ZN3cub6ReduceEPi_param_0
)
{
	ret;
}
"""


def test_kernels_defined_in_the_source():
    assert kernels_in(SOURCE) == {"chase", "chains"}


def test_an_unread_parameter_is_reported_for_the_snippets_own_kernels_only():
    # chase never reads `warm` (param_2): the warm-up was deleted. chains<8> never reads `out`.
    # The CUB kernel is a library's and is not audited.
    assert unread_parameters(PTX, SOURCE) == {
        "_Z5chasePKjiiPj": ["_Z5chasePKjiiPj_param_2"],
        "_Z6chainsILi8EEvPf": ["_Z6chainsILi8EEvPf_param_0"],
    }
    fixed = PTX.replace("\tld.param.u64 \t%rd2", "\tld.param.u32 \t%r2, [_Z5chasePKjiiPj_param_2];\n\tld.param.u64 \t%rd2")
    assert "_Z5chasePKjiiPj" not in unread_parameters(fixed, SOURCE)


def test_committed_ptx_reads_every_kernel_parameter(real_project):
    """Fresh records only: a stale record's PTX describes a source that no longer exists."""
    glossary = real_project.glossary
    root = REPO / "snippets"
    audited, problems = 0, {}
    for term in glossary.ordered_terms():
        for snippet in term.snippets:
            ptx = read_artifact(root, term, snippet, "ptx")
            if ptx is None or freshness(snippet, read_record(root, term, snippet)) is not Freshness.FRESH:
                continue
            audited += 1
            found = unread_parameters(ptx, snippet.source)
            if found:
                problems[f"{term.slug}/{snippet.name}"] = found
    assert audited >= 100, f"only {audited} snippets had fresh PTX to audit"
    assert problems == {}
