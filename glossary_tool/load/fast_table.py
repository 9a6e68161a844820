"""The GFM table rule's cell split without a walk over the row a character at a time.

markdown-it-py's table rule splits the header and every body row into cells with
``escapedSplit``, which visits each character through a function call (``charStrAt``) to
honour ``\\|``: on the generated corpus, where each body holds a table, that split cost
about as much as setting up the block state for the whole body. :func:`escaped_split` gives
the same cells with ``str.split`` (tests/test_plain_inline.py compares the two on random
rows); load/xref_rule.py builds the parser's table rule on it when shortcuts are on.
"""

from __future__ import annotations


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
