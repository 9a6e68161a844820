"""PTX and SASS opcodes link to their terms, from glossary/instructions.yml."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from glossary_tool.cli import main
from glossary_tool.emit.instructions import InstructionTable, asm_block, link_instructions, link_rendered_blocks
from glossary_tool.pipeline import load_project
from tests.conftest import term_text, trio

SASS = """\
        code for sm_90
                Function : _Z1kPf
        .headerflags    @"EF_CUDA_TEXMODE_UNIFIED EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                          /* 0x00000a00ff017b82 */
        /*0010*/                   S2R R0, SR_TID.X ;                              /* 0x0000000000007919 */
        /*0020*/              @!P0 BAR.SYNC.DEFER_BLOCKING 0x0 ;                   /* 0x0000000000008b1d */
        /*0030*/                   SHFL.BFLY PT, R3, R2, 0x10, 0x1f ;              /* 0x0e201f0002037f89 */
        /*0040*/                   FADD R4, R3, R2 ;                               /* 0x0000000203047221 */
        /*0050*/                   EXIT ;                                          /* 0x000000000000794d */
"""

PTX = """\
.visible .entry _Z1kPf(
\t.param .u64 _Z1kPf_param_0
)
{
\tcp.async.ca.shared.global [%r1], [%rd2], 16;
\tcp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd3, {%r3, %r4}], [%r5];
\t@%p1 bar.sync \t0;
\tshfl.sync.bfly.b32\t%r6|%p2, %r7, 16, 31, -1;
$L__BB0_2:
\tret;
}
"""


def glossary_with(make_glossary, table: str | None, extra: dict[str, str] | None = None) -> Path:
    files = trio()
    files.update(extra or {})
    if table is not None:
        files["instructions.yml"] = table
    return make_glossary(files, toc={"device-software": ["warp", "thread"], "device-hardware": ["streaming-multiprocessor"], **({"performance": ["shuffle"]} if extra else {})})


def codes(root: Path) -> list[tuple[str, int, int, str]]:
    return [(d.code, d.line, d.col, d.message) for d in load_project(root).diagnostics]


def test_table_resolves_any_name_of_a_term(make_glossary):
    root = glossary_with(make_glossary, "SM:\n  sass: [S2R]\nwarp:\n  ptx: [shfl, bar.sync]\n  sass: [SHFL, BAR]\n")
    loaded = load_project(root)
    assert loaded.diagnostics == ()
    table = loaded.instructions
    assert dict(table.sass) == {"S2R": "streaming-multiprocessor", "SHFL": "warp", "BAR": "warp"}
    assert table.term_for("BAR.SYNC.DEFER_BLOCKING", "sass") == "warp"
    assert table.term_for("BARX", "sass") is None  # whole dot-separated parts only
    assert table.term_for("bar.sync", "ptx") == "warp" and table.term_for("bar.arrive", "ptx") is None


@pytest.mark.parametrize(
    ("table", "code", "line", "col", "words"),
    [
        ("warp:\n  sass: [SHFL]\nwarpp:\n  sass: [BAR]\n", "instructions-unknown-term", 3, 1, "did you mean warp"),
        ("warp:\n  sass: [SHFL]\nthread:\n  sass: [SHFL]\n", "instructions-duplicate", 4, 10, "already links to 'warp'"),
        ("warp:\n  sass: [shfl]\n", "instructions-invalid", 2, 10, "not a SASS opcode"),
        ("warp:\n  ptx: [SHFL]\n", "instructions-invalid", 2, 9, "not a PTX opcode"),
        ("warp:\n  cuda: [x]\n", "instructions-invalid", 2, 3, "unknown key 'cuda'"),
        ("warp: [SHFL]\n", "instructions-invalid", 1, 1, "must map"),
        ("warp:\n  sass: SHFL\n", "instructions-invalid", 2, 3, "list of opcode names"),
        ("warp:\n  sass: [SHFL\n", "yaml-syntax", 3, 1, "invalid instruction table"),
        ("- warp\n", "instructions-invalid", 1, 1, "must map each term"),
    ],
)
def test_bad_tables_are_diagnostics_with_positions(make_glossary, table, code, line, col, words):
    found = [c for c in codes(glossary_with(make_glossary, table)) if c[0] == code]
    assert [(c[1], c[2]) for c in found] == [(line, col)], codes(glossary_with(make_glossary, table))
    assert words in found[0][3]


def test_check_reports_an_unknown_term_and_exits_1(make_glossary, capsys):
    root = glossary_with(make_glossary, "# opcodes\nno-such-term:\n  sass: [SHFL]\n")
    assert main(["--root", str(root), "check"]) == 1
    err = capsys.readouterr()
    assert "glossary/instructions.yml:2:1: error: 'no-such-term' is not a term [instructions-unknown-term]" in err.out + err.err
    assert "Traceback" not in err.out + err.err


def test_no_table_is_no_links_and_no_diagnostic(make_glossary):
    loaded = load_project(glossary_with(make_glossary, None))
    assert loaded.diagnostics == () and not loaded.instructions.ptx and not loaded.instructions.sass


def _linked(fragment: str) -> dict[str, tuple[str, str]]:
    soup = BeautifulSoup(f"<pre><code>{fragment}</code></pre>", "html.parser")
    return {a.get_text(): (a["href"], a["title"]) for a in soup.select("a.gg-insn")}


def test_sass_opcodes_link_and_the_text_is_unchanged(make_glossary):
    loaded = load_project(glossary_with(make_glossary, "warp:\n  sass: [SHFL, BAR]\nSM:\n  sass: [S2R]\n"))
    href = {"warp": "../warp/", "streaming-multiprocessor": "../../device-hardware/streaming-multiprocessor/"}.get
    out = link_instructions(SASS, "sass", loaded.instructions, loaded.glossary, href)
    soup = BeautifulSoup(f"<pre><code>{out}</code></pre>", "html.parser")
    assert soup.get_text() == SASS  # links add markup, never change the listing
    links = _linked(out)
    assert set(links) == {"S2R", "BAR.SYNC.DEFER_BLOCKING", "SHFL.BFLY"}
    assert links["SHFL.BFLY"][0] == "../warp/"
    assert links["S2R"][1].startswith("Streaming Multiprocessor (SM): ")
    assert "EF_CUDA_SM90" not in links and "FADD" not in links  # header lines and unmapped opcodes stay plain
    twice = link_instructions(SASS + SASS.splitlines()[-3] + "\n", "sass", loaded.instructions, loaded.glossary, href)
    assert BeautifulSoup(f"<pre><code>{twice}</code></pre>", "html.parser").get_text().count("SHFL.BFLY") == 2
    assert len(BeautifulSoup(twice, "html.parser").select("a.gg-insn")) == 3  # a repeated opcode links once per listing


def test_ptx_longest_prefix_wins(make_glossary):
    shuffle = term_text("Shuffle", "Lanes swap values within a [[warp]].\n")
    loaded = load_project(glossary_with(make_glossary, "warp:\n  ptx: [cp.async, bar.sync]\nshuffle:\n  ptx: [shfl, cp.async.bulk]\n", {"performance/shuffle.md": shuffle}))
    assert not [d for d in loaded.diagnostics if d.path.endswith("instructions.yml")]
    out = link_instructions(PTX, "ptx", loaded.instructions, loaded.glossary, lambda slug: f"/{slug}/")
    links = _linked(out)
    assert links["cp.async.ca.shared.global"][0] == "/warp/"
    assert links["cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"][0] == "/shuffle/"
    assert links["bar.sync"][0] == "/warp/" and links["shfl.sync.bfly.b32"][0] == "/shuffle/"
    assert ".param" not in links and "ret" not in links and "$L__BB0_2" not in links
    assert BeautifulSoup(out, "html.parser").get_text() == PTX


def test_unresolvable_href_leaves_the_opcode_plain(real_project):
    table = InstructionTable({}, {"SHFL": "warp"})
    glossary = real_project.glossary
    assert _linked(link_instructions(SASS, "sass", table, glossary, lambda slug: None)) == {}


def test_asm_block_and_rendered_blocks_are_material_code_blocks(real_project):
    glossary = real_project.glossary
    table = InstructionTable({"bar.sync": "syncthreads"}, {"BAR": "syncthreads", "SHFL": "warp-shuffle"})
    block = BeautifulSoup(asm_block(SASS, "sass", table, glossary, lambda s: f"../{s}/"), "html.parser")
    root = block.find("div")
    assert root["class"] == ["language-sass", "highlight"] and root.pre.code.get_text() == SASS
    # what Python-Markdown writes for a { .text .gg-asm-sass } fence (spans as a colouring lexer would add)
    rendered = '<p>x</p><div class="gg-asm-sass highlight"><pre><span></span><code><span class="nt">        /*0030*/</span>                   SHFL.BFLY PT, R3 &amp; ;\n</code></pre></div>'
    page = BeautifulSoup(link_rendered_blocks(rendered, table, glossary, lambda s: f"../{s}/"), "html.parser")
    (a,) = page.select("a.gg-insn")
    assert (a.get_text(), a["href"]) == ("SHFL.BFLY", "../warp-shuffle/")
    assert page.code.get_text() == "        /*0030*/                   SHFL.BFLY PT, R3 & ;\n"


def test_the_real_table_is_clean_and_names_real_opcodes(real_project):
    loaded = real_project
    assert not [d for d in loaded.diagnostics if d.path.endswith("instructions.yml")]
    table = loaded.instructions
    for slug, opcode, kind in [
        ("wgmma", "HGMMA.64x128x16.F32", "sass"),
        ("async-copy", "LDGSTS.E.BYPASS.LTC128B.128", "sass"),
        ("syncthreads", "BAR.SYNC.DEFER_BLOCKING", "sass"),
        ("warp-shuffle", "SHFL.IDX", "sass"),
        ("special-function-unit", "MUFU.EX2", "sass"),
        ("independent-thread-scheduling", "BSSY", "sass"),
        ("independent-thread-scheduling", "BSYNC", "sass"),
        ("wgmma", "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", "ptx"),
        ("async-copy", "cp.async.cg.shared.global", "ptx"),
        ("syncthreads", "bar.sync", "ptx"),
    ]:
        assert table.term_for(opcode, kind) == slug, opcode
