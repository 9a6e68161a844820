"""markdown-it's paragraph rule with its per-line helpers done in place.

Every paragraph of a term body, at the top and in each list item, goes through the
paragraph rule. The stock rule (markdown-it-py 4.3) logs its entry, asks the ruler for the
terminator chain, calls ``isEmpty`` for every further line, and at the end cuts the lines
out with ``getLines``, which walks each line's indentation a character at a time, and trims
them with ``mdTrim``. :func:`paragraph` is that rule with the line test read from the
line markers directly and, for a paragraph outside any indentation (``blkIndent`` 0, where
``getLines`` strips nothing), the lines cut out as plain slices: 0.8% of a term's parse
(instructions, ckq terms). It makes the same tokens and leaves the state as the stock
rule does, ``parentType`` included (tests/test_dispatch.py compares the two parsers'
tokens on real, generated and random bodies); only the debug log line is gone.
make_parser installs it where load/dispatch.READ_FOR names the installed release.
"""

from __future__ import annotations

from markdown_it.common.utils import MD_TRIM_CHARS
from markdown_it.rules_block import StateBlock


def _lines(state: StateBlock, begin: int, end: int) -> str:
    """``state.getLines(begin, end, 0, False)``: with no indentation to strip, each line
    from its start marker to its end, with the ``\\n`` after it but after the last."""
    src, b_marks, e_marks = state.src, state.bMarks, state.eMarks
    last = end - 1
    if begin == last:
        return src[b_marks[last] : e_marks[last]]
    return "".join([src[b_marks[line] : e_marks[line] + 1] for line in range(begin, last)]) + src[b_marks[last] : e_marks[last]]


def paragraph(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it-py 4.3's ``rules_block.paragraph``, step for step, without the log call."""
    next_line = start_line + 1
    terminators = state.md.block.ruler.getRules("paragraph")
    end_line = state.lineMax

    old_parent = state.parentType
    state.parentType = "paragraph"

    # jump line-by-line until empty one or EOF
    while next_line < end_line:
        if state.bMarks[next_line] + state.tShift[next_line] >= state.eMarks[next_line]:  # isEmpty
            break
        # a code-block indentation (a lazy continuation here), or the blockquote quirk
        count = state.sCount[next_line]
        if count - state.blkIndent > 3 or count < 0:
            next_line += 1
            continue
        # Some tags can terminate paragraph without empty line.
        for terminator in terminators:
            if terminator(state, next_line, end_line, True):
                break
        else:
            next_line += 1
            continue
        break

    indent = state.blkIndent
    lines = _lines(state, start_line, next_line) if indent == 0 else state.getLines(start_line, next_line, indent, False)
    content = lines.strip(MD_TRIM_CHARS)  # mdTrim

    state.line = next_line

    token = state.push("paragraph_open", "p", 1)
    token.map = [start_line, state.line]

    token = state.push("inline", "", 0)
    token.content = content
    token.map = [start_line, state.line]
    token.children = []

    token = state.push("paragraph_close", "p", -1)

    state.parentType = old_parent

    return True
