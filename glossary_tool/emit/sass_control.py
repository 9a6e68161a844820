"""SASS that a reader can read: each instruction's control code decoded, its encoding dropped.

Since Volta, ``cuobjdump -sass`` prints every 16-byte instruction as two 64-bit words in
comments, the second on a line of its own. Those 32 hex digits are most of a listing's bytes
(the CUB snippet's SASS tab was 1.0 MB of HTML), and the one part of them a performance
reader wants is in the top bits of the second word: the *control code* that ptxas writes for
the warp scheduler. Its layout is not documented by NVIDIA; it was worked out for Volta and
Turing by Jia et al. (arXiv 1804.06826, 1903.07486) and is what CuAssembler reads for
Turing and Ampere. Bits 41-61 of the second word, low to high:

====  =====================================================================
bits  field
====  =====================================================================
4     stall: cycles the scheduler waits before this warp's next instruction
1     yield: clear (CuAssembler's ``Y``) where the scheduler may switch warps
3     write scoreboard (0-5, 7 = none) released when the result is written
3     read scoreboard (0-5, 7 = none) released once the operands have been read
6     wait mask: the scoreboards this instruction waits on before it issues
4     operand reuse flags (cuobjdump already prints them as ``.reuse``)
====  =====================================================================

It is shown in CuAssembler's notation, ``[B0-----:R-:W1:Y:S04]``, between the address and
the instruction. The decoding is checked against the listings it is applied to
(tests/test_sass_control.py): in every committed listing each read of a register that a
scoreboarded instruction writes waits on that scoreboard first, and dependent FP32
instructions issue at least 4 cycles apart, the FP32 latency measured on Volta and later.
Only architectures whose listings were checked that way are decoded (``DECODED``); any other
listing, or one whose lines do not have the expected shape, is shown as cuobjdump printed it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

#: Architectures whose control codes are decoded: Volta to Hopper (Jia et al., CuAssembler,
#: and this glossary's sm_90/sm_90a listings) and the sm_100 listings checked here. Others
#: (Maxwell and Pascal group control words by three or four instructions; newer ones are not
#: checked) keep cuobjdump's text.
DECODED = frozenset({"sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a"})

#: An instruction and its second word, the two lines cuobjdump prints for it:
#: ``/*0070*/   @!P0 LDG.E R2, desc[UR4][R2.64] ;   /* 0x000000040202a981 */``
#: ``                                                 /* 0x000ea8000c1e1900 */``
_PAIR = re.compile(
    r"^(?P<address>[ \t]*/\*[0-9a-fA-F]+\*/)[ \t]+(?P<text>\S[^\n]*?;)[ \t]*/\* 0x[0-9a-fA-F]{16} \*/[ \t]*\n"
    r"[ \t]*/\* 0x(?P<word>[0-9a-fA-F]{16}) \*/[ \t]*$",
    re.M,
)
_FUNCTION = re.compile(r"^\s*Function : ", re.M)
_SECTION = re.compile(r"^Fatbin (?:elf|ptx) code:$", re.M)
_NO_BARRIER = 7
_LEGEND = "Control codes [B wait mask : R read scoreboard : W write scoreboard : Y yield : S stall cycles], decoded from each instruction's second encoding word."


@dataclass(frozen=True)
class ControlCode:
    """The scheduling fields of one instruction (see the module docstring for the bits)."""

    stall: int
    yields: bool
    write_barrier: int | None
    read_barrier: int | None
    wait_mask: int
    reuse: int

    @classmethod
    def from_word(cls, second_word: int, *, shift: int = 41) -> ControlCode:
        """Decode the second 64-bit word of an instruction (``shift`` exists for the test that
        shows a misplaced decoding fails the dependence checks)."""
        code = second_word >> shift
        write, read = (code >> 5) & 7, (code >> 8) & 7
        return cls(
            stall=code & 15,
            yields=not (code >> 4) & 1,
            write_barrier=None if write == _NO_BARRIER else write,
            read_barrier=None if read == _NO_BARRIER else read,
            wait_mask=(code >> 11) & 63,
            reuse=(code >> 17) & 15,
        )

    def waits_on(self, barrier: int) -> bool:
        return bool(self.wait_mask >> barrier & 1)

    def notation(self) -> str:
        """CuAssembler's ``[B------:R-:W-:Y:S04]``: wait mask by scoreboard, read and write
        scoreboards, ``Y`` or ``-``, stall cycles."""
        waits = "".join(str(n) if self.waits_on(n) else "-" for n in range(6))
        read = "-" if self.read_barrier is None else str(self.read_barrier)
        write = "-" if self.write_barrier is None else str(self.write_barrier)
        return f"[B{waits}:R{read}:W{write}:{'Y' if self.yields else '-'}:S{self.stall:02d}]"


@dataclass(frozen=True)
class Instruction:
    """One instruction of a listing: its address comment, its text and its control code."""

    address: str
    text: str
    control: ControlCode


def instructions(listing: str, *, shift: int = 41) -> Iterator[Instruction | None]:
    """Each instruction of a cuobjdump listing with its control code, and None where a
    function starts (a reader of dependences starts afresh there). Instructions whose second
    word is missing are skipped."""
    functions = [match.start() for match in _FUNCTION.finditer(listing)]
    at = 0
    for pair in _PAIR.finditer(listing):
        while at < len(functions) and functions[at] < pair.start():
            at += 1
            yield None
        yield Instruction(pair.group("address").strip(), pair.group("text"), ControlCode.from_word(int(pair.group("word"), 16), shift=shift))


@lru_cache(maxsize=4096)
def _notation(word: str) -> str:
    """The notation of a second word (a listing repeats a few hundred distinct ones)."""
    return ControlCode.from_word(int(word, 16)).notation()


@lru_cache(maxsize=64)  # a listing rendered again (serve's rebuilds) is not decoded again
def _decoded(listing: str, arch: str) -> str | None:
    """The decoded listing, or None where it is not decodable: an unchecked architecture, no
    instruction, or an encoding word left over once the pairs are replaced. One pass of one
    pattern: the glossary's 6.5 MB of listings take about 0.15 s."""
    if arch not in DECODED:
        return None
    decoded, pairs = _PAIR.subn(lambda m: f"{m.group('address')}  {_notation(m.group('word'))}  {m.group('text')}", listing)
    if not pairs or "/* 0x" in decoded:
        return None
    return _without_empty_cubins(decoded)


def readable(listing: str, arch: str) -> str:
    """``listing`` with each instruction as ``/*0070*/  [B0-----:R-:W1:Y:S04]  LDG.E R2, ... ;``,
    its encoding words dropped, and without the sections of empty cubins; anything else
    (headers, labels) as it was. A listing the decoding does not read (an unchecked
    architecture, another layout, an unpaired word) comes back unchanged."""
    decoded = _decoded(listing, arch)
    return listing if decoded is None else decoded


def _without_empty_cubins(listing: str) -> str:
    """``listing`` less the sections of cubins with no function (nvcc's empty cubin comes
    first in most programs: twenty lines of headers before the code)."""
    starts = [match.start() for match in _SECTION.finditer(listing)]
    if not starts:
        return listing
    sections = [listing[a:b] for a, b in zip(starts, [*starts[1:], len(listing)], strict=True)]
    kept = [section for section in sections if not section.startswith("Fatbin elf code") or _FUNCTION.search(section)]
    return listing[: starts[0]] + "".join(kept)


def without_code(listing: str) -> bool:
    """Whether ``listing`` shows cubins with no function in them: nvcc embeds an empty cubin
    in a program that defines no kernel, and a tab of its empty headers shows nothing. (A
    fatbin with PTX only, no cubin, still says something: that the driver compiles it.)"""
    return "Fatbin elf code" in listing and _FUNCTION.search(listing) is None


@dataclass(frozen=True)
class Shown:
    """What a SASS tab or an MCP answer shows of a listing: its text, and the line that says
    what the decoded fields are (None where nothing was decoded)."""

    text: str
    legend: str | None


def shown(listing: str, arch: str) -> Shown | None:
    """What a reader is shown of ``listing``: None for one of empty cubins only (no tab),
    else :func:`readable`'s text and, where it decoded anything, the legend."""
    if without_code(listing):
        return None
    decoded = _decoded(listing, arch)
    return Shown(listing, None) if decoded is None else Shown(decoded, _LEGEND)


__all__ = ["DECODED", "ControlCode", "Instruction", "Shown", "instructions", "readable", "shown", "without_code"]
