"""Material's content tabs (``=== "Label"``, pymdownx.tabbed syntax) as a markdown-it-py rule.

A tab is a marker line followed by content indented four spaces; consecutive tabs form one
set (``===+`` selects a tab, ``===!`` starts a new set). The block rule makes ``tab_open``/
``tab_close`` around the tab's blocks; a core rule then wraps each run of tabs in
``tabs_open``/``tabs_close`` carrying the labels, which the renderer needs before the content.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

_MARKER = re.compile(r'^===([+!]{0,2})[ \t]+"(?P<title>[^"\n]*)"[ \t]*$')
INDENT = 4


def tab_rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.is_code_block(start_line):
        return False
    start = state.bMarks[start_line] + state.tShift[start_line]
    line = state.src[start : state.eMarks[start_line]]
    if not line.startswith("==="):
        return False
    match = _MARKER.match(line)
    if match is None:
        return False
    if silent:
        return True
    flags = match.group(1)
    indent = state.sCount[start_line] + INDENT
    next_line = start_line + 1
    last_content = start_line
    while next_line < end_line:
        if state.isEmpty(next_line):
            next_line += 1
            continue
        if state.sCount[next_line] < indent:
            break
        last_content = next_line
        next_line += 1
    end = last_content + 1

    old_parent, old_indent, old_max = state.parentType, state.blkIndent, state.lineMax
    state.parentType = "tab"  # type: ignore[assignment]
    state.blkIndent = indent
    state.lineMax = end
    token = state.push("tab_open", "div", 1)
    token.block = True
    token.markup = "==="
    token.map = [start_line, end]
    token.meta = {"title": match.group("title"), "selected": "+" in flags, "new_set": "!" in flags}
    state.md.block.tokenize(state, start_line + 1, end)
    token = state.push("tab_close", "div", -1)
    token.block = True
    state.parentType, state.blkIndent, state.lineMax = old_parent, old_indent, old_max
    state.line = end
    return True


def group_tabs(state: StateCore) -> None:
    """Wrap each run of sibling ``tab_open..tab_close`` in ``tabs_open..tabs_close``."""
    if "===" not in state.src:  # tab_rule, the only maker of tab_open, needs a line starting so
        return
    tokens = state.tokens
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type != "tab_open":
            out.append(token)
            i += 1
            continue
        run: list[list[Token]] = []
        while i < len(tokens) and tokens[i].type == "tab_open" and tokens[i].level == token.level and not (run and tokens[i].meta.get("new_set")):
            depth, j = 0, i
            while True:  # the matching tab_close at the same nesting
                depth += tokens[j].nesting if tokens[j].type in ("tab_open", "tab_close") else 0
                if tokens[j].type == "tab_close" and depth == 0:
                    break
                j += 1
            run.append(tokens[i : j + 1])
            i = j + 1
        titles = [tab[0].meta["title"] for tab in run]
        selected = next((k for k, tab in enumerate(run) if tab[0].meta.get("selected")), 0)
        opening = Token("tabs_open", "div", 1, level=token.level, block=True, map=[run[0][0].map[0], run[-1][0].map[1]], meta={"titles": titles, "selected": selected})
        out.append(opening)
        for tab in run:
            out.extend(tab)
        out.append(Token("tabs_close", "div", -1, level=token.level, block=True))
    state.tokens = out


def tabs_plugin(md: MarkdownIt) -> None:
    md.block.ruler.before("fence", "tab", tab_rule, {"alt": ["paragraph", "reference", "blockquote", "list"]})
    md.core.ruler.after("block", "tab_groups", group_tabs)
