"""``## Heading {#id .class}``: attribute lists on headings, as Python-Markdown's ``attr_list``
reads them (the site configuration lists that extension, and authors of Python-Markdown sites
give headings stable anchors this way).

A core rule between the block and inline passes takes a trailing ``{...}`` off a heading's
inline content (so it is never shown) and keeps what it says on the ``heading_open`` token:
``attrs["id"]`` and ``attrs["class"]``, and the list as written in ``meta["attrs"]`` for the
checks. `check`, the page, the book and llms.txt read the same tokens, so the anchor that
``[[term#id]]`` is checked against is the one every output writes.

Only ``#id`` and ``.class`` are applied. Python-Markdown also sets ``key=value`` and valueless
attributes; those are taken off the text too but not written (load/body.py warns about
them), so a heading cannot carry an event handler or a URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

#: The list at the end of a heading: at least one space, ``{`` or ``{:``, items, ``}``
#: (Python-Markdown's ``HEADER_RE``, which takes any braces there: ``## Title {like this}``
#: loses them to two valueless attributes).
_TRAILING = re.compile(r"[ ]+\{:?[ ]*([^}\n ][^\n]*)\}[ ]*$")
#: One item, as Python-Markdown's scanner reads them, in its order: ``key="value"``,
#: ``key='value'``, ``key=value``, a word (``#id``, ``.class`` or a valueless attribute), a space.
_ITEM = re.compile(r"""[^ =}]+=".*?"|[^ =}]+='.*?'|[^ =}]+=[^ =}]+|[^ =}]+| """)


@dataclass(frozen=True)
class AttrList:
    """What a heading's attribute list says: its id, its classes, and the items not applied."""

    ident: str | None
    classes: tuple[str, ...]
    ignored: tuple[str, ...]


def read_list(written: str) -> AttrList:
    """The items of an attribute list (the text between the braces), read as Python-Markdown
    reads them up to where its scanner stops."""
    ident, classes, ignored = None, [], []
    at = 0
    while at < len(written):
        item = _ITEM.match(written, at)
        if item is None:
            break
        at = item.end()
        text = item.group(0)
        if text == " ":
            continue
        if text.startswith("#") and "=" not in text:
            ident = text[1:] or None  # the last one wins, as in Python-Markdown
        elif text.startswith(".") and "=" not in text:
            classes.append(text[1:])
        else:
            ignored.append(text)
    return AttrList(ident, tuple(classes), tuple(ignored))


def heading_attrs(state: StateCore) -> None:
    """Move a heading's trailing attribute list from its text to its ``heading_open`` token."""
    if "{" not in state.src:  # no list anywhere: the walk over every token is skipped
        return
    tokens = state.tokens
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or index + 1 >= len(tokens):
            continue
        inline = tokens[index + 1]
        if "{" not in inline.content:
            continue
        found = _TRAILING.search(inline.content)
        if found is None:
            continue
        inline.content = inline.content[: found.start()]
        token.meta = {**(token.meta or {}), "attrs": found.group(1)}
        read = read_list(found.group(1))
        if read.ident:
            token.attrs["id"] = read.ident
        if read.classes:
            token.attrs["class"] = " ".join(read.classes)


def heading_attrs_plugin(md: MarkdownIt) -> None:
    md.core.ruler.before("inline", "heading_attrs", heading_attrs)
