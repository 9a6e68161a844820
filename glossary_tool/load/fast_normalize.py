"""markdown-it's ``normalize`` core rule, skipping the substitutions that would change nothing.

Before it parses anything, markdown-it-py (4.3) replaces every line ending (``\\r\\n``,
``\\r``, ``\\n``) with ``\\n`` and every NUL with U+FFFD by two regex substitutions over the
whole source. The first pattern opens with alternatives, so the regex engine tests every
character through a call, and it rewrites each ``\\n`` as itself: 5% of a term's parse
(instructions, ckq terms). A term body has no ``\\r`` (files.decode turns line endings into
``\\n``) and no NUL (such a file is rejected as binary); :func:`normalize` runs each
substitution only where its character occurs, which leaves the same text.
"""

from __future__ import annotations

from markdown_it.rules_core.normalize import NEWLINES_RE, NULL_RE
from markdown_it.rules_core.state_core import StateCore


def normalize(state: StateCore) -> None:
    """``rules_core.normalize``: the same ``state.src`` (an equal string, the very one where
    nothing is replaced)."""
    string = state.src
    if "\r" in string:  # else NEWLINES_RE only replaces each "\n" by itself
        string = NEWLINES_RE.sub("\n", string)
    if "\0" in string:  # else NULL_RE finds nothing
        string = NULL_RE.sub("\ufffd", string)
    state.src = string
