"""HTML building blocks shaped the way the Material theme styles and scripts them.

Pages are rendered by markdown-it-py and generated parts (snippet tabs, badges, tables) are
inserted as HTML, so the markup Material's CSS and JavaScript expect (highlighted code with a
copy button, content tabs, admonitions) is written here once instead of being produced by
Python-Markdown's extensions. Every function returns one self-contained element.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Pygments is imported on first highlight: `glossary check` never needs it
    from pygments.formatters import HtmlFormatter
    from pygments.lexer import Lexer

#: Languages written in fences that Pygments knows under another name (or not at all).
LEXER_ALIASES = {"ptx": "text", "sass": "text", "output": "text", "shell": "console", "sh": "bash"}


@lru_cache(maxsize=64)
def _lexer(lang: str) -> Lexer:
    from pygments.lexers import TextLexer, get_lexer_by_name
    from pygments.util import ClassNotFound

    name = LEXER_ALIASES.get(lang, lang) or "text"
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True)
    except ClassNotFound:
        return TextLexer(stripnl=False, ensurenl=True)


@lru_cache(maxsize=1)
def _formatter() -> HtmlFormatter:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


#: The characters Pygments' HTML formatter escapes, the way it escapes them.
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


@lru_cache(maxsize=8192)  # a pure function: serve re-renders every page on each rebuild to fingerprint it
def highlight(code: str, lang: str = "", *, searchable: bool = True) -> str:
    """A code block as pymdownx.highlight writes it: Material adds the copy button to it.

    ``lang`` is the fence's language; unknown languages are shown as plain text.
    ``searchable`` False keeps it out of Material's search index (``data-search-exclude``):
    compiler output (PTX, SASS) would flood search with mnemonics and register names.
    """
    from pygments import highlight as pygments_highlight
    from pygments.lexers import TextLexer

    lexer = _lexer(lang.strip().lower())
    if not code:
        body = ""
    elif type(lexer) is TextLexer:  # no tokens to colour: Pygments' own escaping, minus its per-line work
        body = (code if code.endswith("\n") else code + "\n").translate(_ESCAPES)
    else:
        body = pygments_highlight(code, lexer, _formatter())
    lang_class = f"language-{html.escape(lang)} " if lang else ""
    exclude = "" if searchable else " data-search-exclude"
    return f'<div class="{lang_class}highlight"{exclude}><pre><span></span><code>{body}</code></pre></div>'


def tabbed_set(group: str, tabs: Sequence[tuple[str, str]], *, selected: int = 0, classes: str = "") -> str:
    """Material content tabs (pymdownx.tabbed, alternate style) from ``(label, content_html)``.

    ``group`` must be unique on the page (it names the radio group and the input ids).
    Labels are plain text. ``content.tabs.link`` in the site config links tabs with equal labels.
    """
    name = f"__tabbed_{group}"
    inputs = "".join(f'<input{" checked" if i == selected else ""} id="{name}_{i + 1}" name="{name}" type="radio">' for i in range(len(tabs)))
    labels = "".join(f'<label for="{name}_{i + 1}">{html.escape(label)}</label>' for i, (label, _) in enumerate(tabs))
    blocks = "".join(f'<div class="tabbed-block">{content}</div>' for _, content in tabs)
    extra = f" {classes}" if classes else ""
    return f'<div class="tabbed-set tabbed-alternate{extra}" data-tabs="{group}:{len(tabs)}">{inputs}<div class="tabbed-labels">{labels}</div><div class="tabbed-content">{blocks}</div></div>'


def admonition(kind: str, title: str, body_html: str) -> str:
    """A Material admonition (``note``, ``warning``, ``info`` ...) with a plain-text title."""
    return f'<div class="admonition {html.escape(kind)}"><p class="admonition-title">{html.escape(title)}</p>{body_html}</div>'


def link(text: str, href: str, title: str | None = None) -> str:
    """An ``<a>`` with plain-text content; ``title`` feeds Material's tooltips."""
    tip = f' title="{html.escape(title)}"' if title else ""
    return f'<a href="{html.escape(href)}"{tip}>{html.escape(text)}</a>'
