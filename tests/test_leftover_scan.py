"""The leftover scan of generated Markdown parses inline only where brackets can come out
(emit/leftovers.py, ``_selective_inline``); it must find exactly what a full parse finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from glossary_tool.emit.leftovers import Leftover, markdown_leftovers
from glossary_tool.load.xref_rule import make_parser

FULL = make_parser()


def full_parse_leftovers(markdown: str) -> list[Leftover]:
    """The scan as it was: every inline token parsed."""
    found: list[Leftover] = []
    if "[[" not in markdown:
        return found
    for token in FULL.parse(markdown):
        if token.type == "html_block" and "[[" in token.content:
            found.append(Leftover(token.content[token.content.index("[[") :][:40]))
        for child in token.children or []:
            if child.type == "xref" or (child.type == "text" and "[[" in child.content):
                start = child.content.index("[[")
                found.append(Leftover(child.content[start : start + 40]))
    return found


# Pieces that change what brackets become: escapes, entities, code, links, HTML, fences,
# tables, footnotes, admonitions, tabs, line breaks and the xref forms themselves.
PIECES = [
    "[", "]", "[[", "]]", "\\[", "\\]", "&#91;", "&#x5B;", "&lbrack;", "&amp;", "&", "\\",
    "`", "``", "*", "_", "~~", "!", "(", ")", "(x)", "<", ">", "<b>", "</b>", "<div>", "</div>",
    "<!-- c -->", "x", "word ", " ", "\n", "\n\n", "    ", "```\n", "~~~\n", "```cuda\n", "> ", "- ", "1. ",
    "| a | b |\n|---|---|\n| ", " |", "[^1]", "[^1]: note\n", "^[inline note]", "!!! note\n    ",
    '=== "Tab"\n    ', "[[term]]", "[[term|shown]]", "[[likely]]", "[t](http://e.com)", "[ref]\n\n[ref]: /u\n",
    "# ", "## H\n", "---\n",
]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_selective_scan_finds_what_a_full_parse_finds(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert markdown_leftovers(text) == full_parse_leftovers(text)


def test_brackets_built_from_escapes_and_entities_are_found() -> None:
    """No ``[[`` in the source, yet a reader sees one: the cases the shortcut must not skip."""
    for text in ("a &#91;&#91;b]] c\n", "a [\\[b]] c\n", "a &lbrack;[b]] c\n", "| x |\n|---|\n| &#91;&#91;y |\n"):
        got = markdown_leftovers(text + "[[likely]] needs [[ somewhere\n")
        assert len(got) == len(full_parse_leftovers(text + "[[likely]] needs [[ somewhere\n")) >= 2, text


def test_brackets_in_code_are_not_leftovers() -> None:
    text = "Prose.\n\n```cpp\nif (x) [[likely]] { }\n```\n\n    [[indented]]\n\nand `[[span]]`.\n"
    assert markdown_leftovers(text) == [] == full_parse_leftovers(text)
