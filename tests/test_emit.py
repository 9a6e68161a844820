"""How references read on the page."""

from __future__ import annotations

import pytest

from glossary_tool.emit.markdown import display_text
from glossary_tool.model import Term, XRef


def term(title: str, slug: str, abbreviation: str | None = None) -> Term:
    return Term(slug, "device-software", f"glossary/device-software/{slug}.md", title, "S.", "", 0, abbreviation=abbreviation)


@pytest.mark.parametrize(
    ("written", "text", "suffix", "target", "shown"),
    [
        ("warp", None, "s", term("Warp", "warp"), "warps"),
        ("nvlink", None, "", term("NVLink", "nvlink"), "NVLink"),
        ("hbm", None, "", term("High-Bandwidth Memory", "hbm", "HBM"), "HBM"),
        ("hopper-architecture", None, "", term("Hopper Architecture (H100, H200)", "hopper-architecture"), "Hopper Architecture"),
        ("multiprocessor", None, "s", term("Streaming Multiprocessor", "streaming-multiprocessor", "SM"), "multiprocessors"),
        ("warp", "a group of 32 threads", "", term("Warp", "warp"), "a group of 32 threads"),
    ],
)
def test_display_text(written, text, suffix, target, shown):
    assert display_text(XRef(written, None, text, suffix, 1, 1, f"[[{written}]]"), target) == shown
