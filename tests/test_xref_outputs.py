"""No raw `[[` in anything a reader gets, for content we did not write.

Two glossaries are built through MkDocs: one written in a common third-party CommonMark
style (prose hard-wrapped at 80 columns so references break across lines, `<small>` asides,
tables of `[[x|text]]`), and a generated corpus with a table of references on every page
(benchmarks/generate.py). Every output is parsed: each page's HTML, each Markdown copy,
llms-full.txt and every EPUB chapter.
"""

from __future__ import annotations

import textwrap
import zipfile
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from benchmarks.generate import generate
from glossary_tool.cli import main
from glossary_tool.emit.leftovers import html_leftovers, markdown_leftovers
from tests.conftest import term_text, with_site_config


def _wrapped(text: str) -> str:
    """Hard-wrapped at 80 columns, as many editors and third-party glossaries write."""
    return "\n\n".join(textwrap.fill(paragraph, 80, break_long_words=False, break_on_hyphens=False) for paragraph in text.split("\n\n"))


THIRD_PARTY = {
    "device-software/warp.md": term_text(
        "Warp",
        _wrapped(
            "A warp is the group of [[thread|threads that share one instruction stream]] on a "
            "[[streaming-multiprocessor|streaming multiprocessor]]; each of its lanes is a [[thread]] with registers "
            "of its own, and the scheduler issues for all of them at once, as the [[streaming multiprocessor]] page explains."
        )
        + "\n\n<small>Aside: on AMD hardware the [[streaming-multiprocessor|compute unit]] runs 64-wide wavefronts.</small>\n\n"
        + "| Term | Meaning |\n| --- | --- |\n| [[thread|Thread]] | one lane |\n| [[sm\\|SM]]s | where warps run |\n",
    ),
    "device-software/thread.md": term_text("Thread", _wrapped("One lane of a [[warp]] executing on a [[streaming-multiprocessor|streaming multiprocessor]], with its own program counter in the [[warp]]'s view since Volta.")),
    "device-hardware/streaming-multiprocessor.md": term_text(
        "Streaming Multiprocessor", _wrapped("The unit that runs every [[warp]] of its [[thread]]s: <sub>[[warp|warps]]</sub> are scheduled four at a time."), abbreviation="SM"
    ),
}


def _scan_site(site: Path) -> dict[str, list]:
    found: dict[str, list] = {}
    for page in site.rglob("*.html"):
        article = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser").find("article")
        if article is not None and (left := html_leftovers(str(article))):
            found[str(page.relative_to(site))] = left
    for copy in [*site.rglob("*.md"), site / "llms-full.txt", *site.glob("llms-*.txt")]:
        if left := markdown_leftovers(copy.read_text(encoding="utf-8")):
            found[str(copy.relative_to(site))] = left
    with zipfile.ZipFile(site / "downloads" / "gpu-glossary.epub") as epub:
        for name in epub.namelist():
            if name.endswith(".xhtml") and (left := html_leftovers(epub.read(name).decode("utf-8"))):
                found[name] = left
    return found


@pytest.mark.parametrize("kind", ["third-party", "generated"])
def test_no_raw_brackets_in_any_output(make_glossary, tmp_path: Path, kind: str) -> None:
    root = with_site_config(make_glossary(THIRD_PARTY) if kind == "third-party" else generate(tmp_path / "corpus", 24))
    site = tmp_path / "site"
    assert main(["--root", str(root), "build", "--strict", "--out", str(site)]) == 0
    assert _scan_site(site) == {}
    pages = list(site.rglob("index.html"))
    assert len(pages) > 5
    if kind == "third-party":
        warp = BeautifulSoup((site / "device-software" / "warp" / "index.html").read_text(encoding="utf-8"), "html.parser").find("article")
        links = {a.get_text(): a["href"] for a in warp.find_all("a", href=True) if a["href"].startswith("../")}
        assert links["threads that share one instruction stream"] == "../thread/"  # wrapped over a line break
        assert links["compute unit"] == "../../device-hardware/streaming-multiprocessor/"  # inside <small>
        assert links["SMs"] == "../../device-hardware/streaming-multiprocessor/"  # table cell, \| and a trail
