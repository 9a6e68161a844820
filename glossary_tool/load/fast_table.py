"""The GFM table rule's cell split without a walk over the row a character at a time.

markdown-it-py's table rule splits the header and every body row into cells with
``escapedSplit``, which visits each character through a function call (``charStrAt``) to
honour ``\\|``: on the generated corpus, where each body holds a table, that split cost
about as much as setting up the block state for the whole body. :func:`escaped_split` gives
the same cells with ``str.split`` (tests/test_plain_inline.py compares the two on random
rows); load/xref_rule.py builds the parser's table rule on it when shortcuts are on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from markdown_it.common.utils import MD_TRIM_CHARS
from markdown_it.rules_block import StateBlock
from markdown_it.rules_block.table import MAX_AUTOCOMPLETED_CELLS


def escaped_split(string: str) -> list[str]:
    """``escapedSplit`` of markdown-it-py 4.3: ``string`` cut at each ``|`` that does not
    follow a backslash; a pipe that does stays in its cell and the backslash before it goes
    (whatever stands before that backslash: ``\\\\|`` is an escaped pipe too)."""
    if "\\" not in string:
        return string.split("|")
    parts = string.split("|")
    cells: list[str] = []
    current = ""
    for part in parts[:-1]:
        if part.endswith("\\"):  # the character before this pipe: an escaped pipe
            current += part[:-1] + "|"
        else:
            cells.append(current + part)
            current = ""
    cells.append(current + parts[-1])
    return cells


#: A delimiter row as markdown-it-py 4.3's table rule accepts it, checked a character at a
#: time there: at least two characters of ``|``, ``-``, ``:``, space and tab, the first one
#: of ``|-:``, and a ``-`` first not followed by a space or tab (a list item).
_DELIMITER_ROW = re.compile(r"(?:[|:][-|: \t]|-[-|:])[-|: \t]*")
_HEADER_CELL = re.compile(r"^:?-+:?$")  # the stock rule's headerLineRe


def table_rule(split: Callable[[str], list[str]]) -> Callable[[StateBlock, int, int, bool], bool]:
    """markdown-it-py 4.3's GFM table rule (``rules_block/table.py``) splitting rows with
    ``split``, written out with its helpers inlined: the delimiter row checked by one regex
    instead of a loop over its characters, ``getLine``, ``mdTrim`` and ``is_code_block``
    as the expressions they return, ``charStrAt`` as indexing where the index is in range.
    The same checks in the same order and the same tokens (tests/test_plain_inline.py
    compares the two on real, generated and random tables); load/xref_rule.py makes it the
    parser's table rule only under the release it was read against."""

    def table(state: StateBlock, startLine: int, endLine: int, silent: bool) -> bool:
        if startLine + 2 > endLine:
            return False
        nextLine = startLine + 1
        s_count = state.sCount
        blk_indent = state.blkIndent
        if s_count[nextLine] < blk_indent:
            return False
        code_enabled = state._code_enabled
        if code_enabled and s_count[nextLine] - blk_indent >= 4:
            return False
        b_marks, e_marks, t_shift, src = state.bMarks, state.eMarks, state.tShift, state.src
        pos = b_marks[nextLine] + t_shift[nextLine]
        line_end = e_marks[nextLine]
        if _DELIMITER_ROW.fullmatch(src, pos, line_end) is None:
            return False
        columns = src[pos:line_end].split("|")
        aligns = []
        last = len(columns) - 1
        for i, column in enumerate(columns):
            t = column.strip(MD_TRIM_CHARS)
            if not t:
                # allow empty columns before and after table, but not in between columns
                if i == 0 or i == last:
                    continue
                return False
            if not _HEADER_CELL.search(t):
                return False
            if t[-1] == ":":
                aligns.append("center" if t[0] == ":" else "right")
            elif t[0] == ":":
                aligns.append("left")
            else:
                aligns.append("")

        lineText = src[b_marks[startLine] + t_shift[startLine] : e_marks[startLine]].strip(MD_TRIM_CHARS)
        if "|" not in lineText:
            return False
        if code_enabled and s_count[startLine] - blk_indent >= 4:
            return False
        columns = split(lineText)
        if columns and columns[0] == "":
            columns.pop(0)
        if columns and columns[-1] == "":
            columns.pop()
        columnCount = len(columns)
        if columnCount == 0 or columnCount != len(aligns):
            return False
        if silent:
            return True

        oldParentType = state.parentType
        state.parentType = "table"
        terminatorRules = state.md.block.ruler.getRules("blockquote")
        push = state.push
        styles = [{"style": "text-align:" + align} if align else None for align in aligns]

        token = push("table_open", "table", 1)
        token.map = tableLines = [startLine, 0]
        token = push("thead_open", "thead", 1)
        token.map = [startLine, startLine + 1]
        token = push("tr_open", "tr", 1)
        token.map = [startLine, startLine + 1]
        _push_cells(push, "th", styles, columns, startLine)
        push("tr_close", "tr", -1)
        push("thead_close", "thead", -1)

        tbodyLines = None
        autocompleted_cells = 0
        nextLine = startLine + 2
        while nextLine < endLine:
            if s_count[nextLine] < blk_indent:
                break
            terminate = False
            for rule in terminatorRules:
                if rule(state, nextLine, endLine, True):
                    terminate = True
                    break
            if terminate:
                break
            lineText = src[b_marks[nextLine] + t_shift[nextLine] : e_marks[nextLine]].strip(MD_TRIM_CHARS)
            if not lineText:
                break
            if code_enabled and s_count[nextLine] - blk_indent >= 4:
                break
            columns = split(lineText)
            if columns and columns[0] == "":
                columns.pop(0)
            if columns and columns[-1] == "":
                columns.pop()
            autocompleted_cells += columnCount - len(columns)
            if autocompleted_cells > MAX_AUTOCOMPLETED_CELLS:
                break
            if nextLine == startLine + 2:
                token = push("tbody_open", "tbody", 1)
                token.map = tbodyLines = [startLine + 2, 0]
            token = push("tr_open", "tr", 1)
            token.map = [nextLine, nextLine + 1]
            _push_cells(push, "td", styles, columns, nextLine)
            push("tr_close", "tr", -1)
            nextLine += 1

        if tbodyLines:
            push("tbody_close", "tbody", -1)
            tbodyLines[1] = nextLine
        push("table_close", "table", -1)
        tableLines[1] = nextLine
        state.parentType = oldParentType
        state.line = nextLine
        return True

    return table


def _push_cells(push: Callable[..., Any], tag: str, styles: list[dict[str, str] | None], columns: list[str], line: int) -> None:
    """A row's cells as the stock rule pushes them: ``tag`` (``th`` or ``td``) with its
    column's alignment, an inline token of the cell's trimmed text (empty for a column the
    row lacks) on ``line``, and the close; one cell per entry of ``styles``."""
    present = len(columns)
    for i, style in enumerate(styles):
        token = push(f"{tag}_open", tag, 1)
        if style is not None:
            token.attrs = dict(style)
        token = push("inline", "", 0)
        token.map = [line, line + 1]
        token.content = columns[i].strip(MD_TRIM_CHARS) if i < present else ""
        token.children = []
        push(f"{tag}_close", tag, -1)
