"""Small text helpers shared by the loader and the emitters."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container
from html import unescape

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
#: A whitespace-separated word without an ASCII letter or digit: ``(?<!\S)[^\sA-Za-z0-9]+(?!\S)``
#: with the look-behind moved after the first character, so the search skips ahead to a
#: character of the class (a regex that opens with a look-behind tries every position).
_NO_ALNUM_WORD = re.compile(r"[^\sA-Za-z0-9](?<!\S.)[^\sA-Za-z0-9]*(?!\S)")


def slugify(value: str, separator: str = "-") -> str:
    """Heading anchors exactly as Python-Markdown's ``toc`` extension makes them.

    The site's heading anchors follow that convention (the site generator's own), so
    ``[[term#anchor]]`` must use the anchors it makes; the EPUB and llms-full.txt reuse the same ids.
    """
    value = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(rf"[{separator}\s]+", separator, value)


def normalize_name(name: str) -> str:
    """Case- and whitespace-insensitive key for matching cross-reference names."""
    return " ".join(name.split()).casefold()


#: Each ASCII character as a word sees it: a letter or digit as ``a``, whitespace (as
#: ``str.isspace`` and the regex ``\s`` see it) as a space, anything else deleted.
_WORD_CLASSES = {c: ord("a") if chr(c).isalnum() else ord(" ") if chr(c).isspace() else None for c in range(128)}


def count_words(text: str) -> int:
    """Whitespace-separated words holding a letter or digit (a lone dash or bullet is no word).

    For ASCII text (every term body the parser counts, nearly), without a regex and without a
    string per word: deleting every character that is neither a letter, a digit nor
    whitespace leaves each word that holds a letter or digit a (shorter) run of letters and
    digits, and removes each other word whole, without joining or splitting any. With
    letters and digits made ``a`` and whitespace a space, a run starts at the beginning or
    right after a space (`` a``). ``str.translate`` (a table lookup per character) and
    ``str.count`` cost a fifth of :func:`_count_words_by_split` (tests/test_plain_inline.py
    compares the two)."""
    if not text.isascii():
        return _count_words_by_split(text)
    classes = text.translate(_WORD_CLASSES)
    return classes.count(" a") + classes.startswith("a")


def _count_words_by_split(text: str) -> int:
    """:func:`count_words` for any text: the words, less those without a letter or digit."""
    return len(text.split()) - len(_NO_ALNUM_WORD.findall(text))  # str.split() splits where \s does


def kebab(title: str) -> str:
    """A slug proposal for a new term title."""
    return slugify(title).replace("_", "-").strip("-")


#: A piece of Markdown source as a reader sees it: nothing for a tag, a comment, a link's
#: destination or reference label (``](url)``, ``][ref]``); what an entity shows; the character
#: a backslash escapes; else one character.
_SOURCE_PIECE = re.compile(
    r"(</?[A-Za-z][A-Za-z0-9-]*(?:\s[^>\n]*)?/?>|<!--.*?(?:-->|$)|<[?!][^>\n]*>|\]\([^)\n]*\)|\]\[[^\]\n]*\])"
    r"|(&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);?)|\\(.)|(.)",
    re.S | re.M,
)


def shown_skeleton(text: str) -> tuple[str, list[int]]:
    """The letters, digits and brackets ``text`` shows a reader, and the index in ``text``
    each came from: what rendered text and its Markdown source still share when tags,
    entities, escapes and Markdown's marks stood between them (``<b>&#91;</b>[x]]`` and
    ``**[**[x]]`` both show ``[[x]]``). Used to find where raw brackets were written."""
    chars: list[str] = []
    columns: list[int] = []
    for match in _SOURCE_PIECE.finditer(text):
        if match.group(1) is not None:
            continue
        piece = unescape(match.group(2)) if match.group(2) is not None else match.group(3) or match.group(4)
        for char in piece:
            if char.isalnum() or char in "[]":
                chars.append(char)
                columns.append(match.start())
    return "".join(chars), columns


def find_shown(line: str, needle: str, taken: Container[int] = ()) -> int | None:
    """The column of ``line`` where its :func:`shown_skeleton` first holds ``needle`` (itself a
    skeleton), other than the columns ``taken``; None if nowhere."""
    skeleton, columns = shown_skeleton(line)
    at = skeleton.find(needle)
    while at >= 0:
        if columns[at] not in taken:
            return columns[at]
        at = skeleton.find(needle, at + 1)
    return None


#: A code span as CommonMark reads one: a run of backticks, then the shortest text up to a run
#: of exactly as many.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)


def code_spans(text: str) -> list[tuple[bool, str]]:
    """``text`` cut into (is code, content) pieces at its code spans, each span's content as
    CommonMark gives it (line breaks as spaces, one space stripped from each end when both
    ends have one). For the text of a reference, ``[[syncthreads|`__syncthreads()`]]``: the
    only Markdown such a text may hold."""
    pieces: list[tuple[bool, str]] = []
    at = 0
    for span in _CODE_SPAN.finditer(text):
        if span.start() > at:
            pieces.append((False, text[at : span.start()]))
        code = span.group(2).replace("\n", " ")
        if len(code) > 2 and code[0] == " " and code[-1] == " " and code.strip():
            code = code[1:-1]
        pieces.append((True, code))
        at = span.end()
    if at < len(text):
        pieces.append((False, text[at:]))
    return pieces


def without_code_marks(text: str) -> str:
    """``text`` with its code spans' backticks taken off (for plain-text outputs)."""
    return "".join(piece for _, piece in code_spans(text)) if "`" in text else text
