"""SASS control codes (emit/sass_control.py): decoded as the bits are, checked against what
ptxas wrote in every committed listing, and shown on the page without the encoding words."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from glossary_tool.emit import sass_control
from glossary_tool.emit.sass_control import ControlCode, instructions, readable

REPO = Path(__file__).resolve().parent.parent
LISTINGS = sorted(p for p in REPO.glob("snippets/*/*/*/*.sass") if p.stem in sass_control.DECODED)
_REGISTER = re.compile(r"(?<![\w.])R(\d+)\b")
_PREDICATE = re.compile(r"^@!?U?P\w+\s+")
_FLOW = ("BRA", "BRX", "JMP", "JMX", "CALL", "RET", "EXIT", "BSSY", "BSYNC", "WARPSYNC", "BREAK")
_STORES = ("ST", "STG", "STS", "STL", "RED", "REDG", "REDUX")


# Words taken from the committed listings, decoded by hand from bits 41-61 of the second word.
@pytest.mark.parametrize(
    ("word", "notation", "reuse"),
    [
        # S2UR UR5, SR_CgaCtaId: 0x000e22 >> 1 = 0x711: stall 1, yield bit set, write scoreboard 0
        ("000e220000000800", "[B------:R-:W0:-:S01]", 0),
        # STS.128 [UR4], R4: 0xf4: stall 4, read scoreboard 0 (its sources may be overwritten once read)
        ("0001e80008000c04", "[B------:R0:W-:-:S04]", 0),
        # IMAD.WIDE.U32 after two loads: 0x10fe6: stall 6, yield bit clear, waits on 0 and 5
        ("021fcc00078e0006", "[B0----5:R-:W-:Y:S06]", 0),
        # LEA.HI.X R3, R7.reuse, ...: 0x207f2: stall 2, reuse flag of the first source operand
        ("040fe400080f1406", "[B------:R-:W-:-:S02]", 1),
    ],
)
def test_words_decode_as_their_bits_say(word: str, notation: str, reuse: int) -> None:
    code = ControlCode.from_word(int(word, 16))
    assert code.notation() == notation
    assert code.reuse == reuse


def _dependences(listing: str, shift: int = 41) -> tuple[int, int, Counter[int]]:
    """(covered, uncovered, FP32 issue gaps) of a listing read with the control word at ``shift``.

    covered/uncovered: reads of a register whose last writer set a write scoreboard, with or
    without a wait on that scoreboard since (straight-line code only: the walk starts afresh at
    each branch or function). Gaps: cycles (the stall counts in between) from an FFMA, FADD or
    FMUL to the first instruction that reads its result."""
    covered = uncovered = 0
    gaps: Counter[int] = Counter()
    pending: dict[int, int] = {}  # register -> scoreboard its writer set, not yet waited on
    waited: set[int] = set()
    fixed: dict[int, int] = {}  # register -> cycles since an FP32 instruction wrote it
    for ins in instructions(listing, shift=shift):
        if ins is None:
            pending, waited, fixed = {}, set(), {}
            continue
        text = _PREDICATE.sub("", ins.text.rstrip(" ;"))
        op, _, rest = text.partition(" ")
        operands = [o.strip() for o in rest.split(",")] if rest else []
        for barrier in range(6):
            if ins.control.waits_on(barrier):
                for register in [r for r, b in pending.items() if b == barrier]:
                    del pending[register]
                    waited.add(register)
        if op.split(".")[0] in _FLOW:
            pending, waited, fixed = {}, set(), {}
            continue
        store = op.split(".")[0] in _STORES
        sources = operands if store else operands[1:]
        for register in {int(r) for source in sources for r in _REGISTER.findall(source)}:
            if register in pending:
                uncovered += 1
                del pending[register]
            elif register in waited:
                covered += 1
                waited.discard(register)
            if register in fixed:
                gaps[fixed.pop(register)] += 1
        written = [int(r) for r in _REGISTER.findall(operands[0])[:1]] if operands and not store else []
        for register in written:
            pending.pop(register, None)
            waited.discard(register)
            fixed.pop(register, None)
            if ins.control.write_barrier is not None:
                pending[register] = ins.control.write_barrier
        fixed = {r: cycles + ins.control.stall for r, cycles in fixed.items()}
        if op.split(".")[0] in ("FFMA", "FADD", "FMUL") and ins.control.write_barrier is None:
            for register in written:
                fixed[register] = ins.control.stall
    return covered, uncovered, gaps


def _all(shift: int = 41) -> tuple[int, int, Counter[int]]:
    covered = uncovered = 0
    gaps: Counter[int] = Counter()
    for path in LISTINGS:
        c, u, g = _dependences(path.read_text(encoding="utf-8"), shift)
        covered, uncovered, gaps = covered + c, uncovered + u, gaps + g
    return covered, uncovered, gaps


def test_every_scoreboarded_result_is_waited_for_and_fp32_results_four_cycles_later() -> None:
    """What ptxas wrote must make sense under the decoding: a register written by a
    variable-latency instruction (which sets a write scoreboard) is read only after a wait on
    that scoreboard, and a fixed-latency FP32 result is read no sooner than 4 cycles after its
    instruction issued (the FP32 latency of Volta and later), most often exactly then."""
    assert len(LISTINGS) >= 100
    covered, uncovered, gaps = _all()
    assert covered >= 1000 and uncovered == 0, (covered, uncovered)
    assert sum(gaps.values()) >= 1000 and min(gaps) == 4, sorted(gaps.items())
    assert gaps.most_common(1)[0][0] == 4


@pytest.mark.parametrize("shift", [40, 42])
def test_a_decoding_one_bit_off_breaks_both_checks(shift: int) -> None:
    """The checks above can fail: read one bit off, the scoreboards no longer match the reads."""
    covered, uncovered, gaps = _all(shift)
    assert uncovered > 1000
    assert min(gaps) < 4 or gaps.most_common(1)[0][0] != 4


def test_a_listing_keeps_every_instruction_and_line_and_drops_only_the_encoding() -> None:
    for path in LISTINGS:
        listing = path.read_text(encoding="utf-8")
        shown = readable(listing, path.stem)
        if sass_control.without_code(listing):  # shown as it is, and not on the page (below)
            assert shown == listing
            continue
        assert "/* 0x" not in shown
        before = [(i.address, i.text) for i in instructions(listing) if i is not None]
        after = re.findall(r"^\s*(/\*[0-9a-f]+\*/)  \[B[0-5-]{6}:R[0-5-]:W[0-5-]:[Y-]:S\d\d\]  (.*;)$", shown, re.M)
        assert after == before
        # every other line kept, except the sections of cubins without a function
        head, *sections = listing.split("\nFatbin ")
        kept = head + "".join("\nFatbin " + part for part in sections if not part.startswith("elf code") or "Function :" in part)
        other = [line for line in kept.split("\n") if "/* 0x" not in line]
        assert [line for line in shown.split("\n") if not re.match(r"^\s*/\*[0-9a-f]+\*/  \[", line)] == other


@pytest.mark.parametrize(
    ("listing", "arch"),
    [
        # an architecture whose listings were not checked
        ("        /*0000*/                   LDC R1, c[0x0][0x28] ;  /* 0x00000a00ff017b82 */\n                        /* 0x000ff00000000800 */\n", "sm_120"),
        # Maxwell's layout: a control word for every three instructions, one word per instruction
        ("        /* 0x001c7c00e22007f6 */\n        /*0008*/                   MOV R1, c[0x0][0x20] ;  /* 0x4c98078000870001 */\n", "sm_52"),
        # a second word missing: not the layout the decoding reads
        ("        /*0000*/                   LDC R1, c[0x0][0x28] ;  /* 0x00000a00ff017b82 */\n        /*0010*/                   EXIT ;  /* 0x000000000000794d */\n", "sm_90"),
        ("", "sm_90"),
        ("Fatbin ptx code:\n================\narch = sm_80\n", "sm_90"),
    ],
)
def test_what_cannot_be_decoded_is_shown_as_cuobjdump_printed_it(listing: str, arch: str) -> None:
    assert readable(listing, arch) == listing
    assert sass_control.shown(listing, arch) == sass_control.Shown(listing, None)


def test_the_sass_tab_shows_control_codes_with_a_legend_and_linked_opcodes(built_site) -> None:
    """On the built site: no encoding words in any SASS tab, a control code on every
    instruction line, the legend above it, and opcodes still linked to their terms."""
    tabs = decoded = linked = 0
    for path in built_site.html_files():
        if "language-sass" not in path.read_text(encoding="utf-8"):
            continue
        for block in built_site.page(path).xpath('//div[contains(concat(" ", normalize-space(@class), " "), " language-sass ")]'):
            tabs += 1
            code = block.xpath(".//code")[0]
            text = code.text_content()
            assert "/* 0x" not in text
            lines = [line for line in text.split("\n") if re.match(r"^\s*/\*[0-9a-f]+\*/", line)]
            legend = block.getprevious()
            assert "Fatbin elf code" not in text or "Function :" in text, f"{path}: a SASS tab of empty cubins"
            if not lines:  # a fatbin with PTX only (compute_80): nothing decoded, no legend
                assert legend is None or "sass-legend" not in legend.get("class", "")
                continue
            assert all(re.match(r"^\s*/\*[0-9a-f]+\*/  \[B[0-5-]{6}:R[0-5-]:W[0-5-]:[Y-]:S\d\d\]  \S", line) for line in lines)
            assert legend is not None and legend.tag == "p" and "sass-legend" in legend.get("class", "")
            assert "stall cycles" in legend.text_content()
            decoded += 1
            linked += len(code.xpath('.//a[contains(@class, "gg-insn")]'))
    assert decoded >= 100 and tabs - decoded <= 3 and linked >= 100, (tabs, decoded, linked)


def test_a_listing_of_empty_cubins_gets_no_sass_tab_and_says_so_to_mcp(real_project, built_site) -> None:
    """A program with no kernel still carries nvcc's empty cubins: no tab for their headers."""
    from glossary_tool.emit.answers import snippet_answer
    from glossary_tool.verify.records import read_artifact, records_for

    records_root = real_project.project.records_dir
    empty = [
        (term, snippet)
        for term in real_project.glossary.terms.values()
        for snippet in term.snippets
        if (text := read_artifact(records_root, term, snippet, "sass")) and sass_control.without_code(text)
    ]
    assert len(empty) >= 10
    for term, snippet in empty[:5]:
        page = built_site.page(built_site.term_page(term))
        (block,) = page.xpath(f'//div[@class="snippet"][.//span[@class="snippet-name"]="{snippet.name}"]')
        labels = [label.text_content().strip() for label in block.xpath('./div[contains(@class, "tabbed-set")]/div[@class="tabbed-labels"]/label')]
        assert "Source" in labels and "SASS" not in labels, (term.slug, labels)
        answer = snippet_answer(term, snippet, list(records_for(records_root, term, snippet).values()), records_root, ["sass"])
        assert "no kernels" in answer.split("## SASS", 1)[1] and "Fatbin" not in answer


def test_the_mcp_snippet_answer_shows_the_decoded_sass(real_project) -> None:
    from glossary_tool.emit.answers import snippet_answer
    from glossary_tool.verify.records import records_for

    records_root = real_project.project.records_dir
    term = real_project.glossary.terms["memory-latency"]
    snippet = next(s for s in term.snippets if s.name == "pointer-chase")
    records = list(records_for(records_root, term, snippet).values())
    answer = snippet_answer(term, snippet, records, records_root, ["sass"])
    assert "/* 0x" not in answer and "stall cycles" in answer
    fence = answer.split("## SASS", 1)[1]
    assert re.search(r"/\*0010\*/  \[B------:R-:W0:-:S01\]  S2UR UR5, SR_CgaCtaId ;", fence)
