"""html_parts.highlight: plain-text listings skip Pygments but come out byte for byte the same."""

from __future__ import annotations

import random

from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import TextLexer

from glossary_tool.emit.html_parts import highlight
from tests.conftest import REPO


def _pygments(code: str) -> str:
    body = pygments_highlight(code, TextLexer(stripnl=False, ensurenl=True), HtmlFormatter(nowrap=True))
    return f'<div class="language-sass highlight"><pre><span></span><code>{body}</code></pre></div>'


def test_text_listings_match_pygments_exactly() -> None:
    listings = sorted(REPO.glob("snippets/*/*/*/*.sass")) + sorted(REPO.glob("snippets/*/*/*/*.ptx"))
    sample = random.Random(7).sample(listings, min(25, len(listings)))
    tricky = ["a<b && c>d 'q' \"dq\"", "no final newline", "\t\tFunction : f\n\n", "&amp; already"]
    for code in [p.read_text(encoding="utf-8") for p in sample] + tricky:
        assert highlight(code, "sass") == _pygments(code)
