"""Property test of the [[...]] contract (Hypothesis): bodies mixing every block and inline
context, rendered by the site's engine, parsed back with BeautifulSoup.

Each generated body is a list of blocks (paragraph, nested list, quote, table, admonition,
content tabs, footnote, inline HTML, code span, code fence), each holding generated
references in a generated form (plain, with text, with `\\|` in tables, with a link trail,
wrapped over a line break, inside emphasis, beside an ordinary link). The properties: every
reference becomes exactly one link, to the right page, showing the right text, in order;
code comes out as written; no `[[` survives outside code and deliberate literals.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from glossary_tool.emit.leftovers import html_leftovers
from glossary_tool.emit.links import RelativeLinker, term_src
from glossary_tool.emit.render import RenderOptions, render_body
from glossary_tool.pipeline import load_project
from tests.conftest import term_text, trio

SETTINGS = settings(max_examples=int(os.environ.get("GLOSSARY_HYPOTHESIS_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Targets the trio glossary has, by a name each, with the href from warp's page.
TARGETS = {"thread": "thread.md", "sm": "../device-hardware/streaming-multiprocessor.md", "Streaming Multiprocessor": "../device-hardware/streaming-multiprocessor.md"}
WORDS = st.sampled_from(["lanes", "the unit", "one warp", "registers", "SIMT", "x"])


@dataclass(frozen=True)
class Ref:
    target: str
    text: str | None
    trail: str
    wrap: bool

    def written(self, in_table: bool = False) -> str:
        sep = "\\|" if in_table and self.text is not None and len(self.text) % 2 else "|"
        body = self.target if self.text is None else f"{self.target}{sep}{self.text}"
        if self.wrap and not in_table and " " in body:
            head, tail = body.split(" ", 1)
            body = f"{head}\n{tail}"
        return f"[[{body}]]{self.trail}"

    def shown(self) -> str:
        if self.text is not None:
            return self.text + self.trail
        return {"thread": "thread", "sm": "SM", "Streaming Multiprocessor": "Streaming Multiprocessor"}[self.target] + self.trail


refs = st.builds(Ref, st.sampled_from(list(TARGETS)), st.one_of(st.none(), WORDS), st.sampled_from(["", "s"]), st.booleans())


@st.composite
def block(draw) -> tuple[str, list[Ref]]:
    """One block of Markdown and the references it holds, in reading order."""
    kind = draw(st.sampled_from(["para", "list", "quote", "table", "admonition", "tabs", "emphasis", "html", "beside-link", "code"]))
    r = draw(st.lists(refs, min_size=1, max_size=3))
    line = " and ".join(x.written() for x in r)
    if kind == "para":
        return f"Text {line} here.", r
    if kind == "list":
        nested = line.replace("\n", "\n    ")
        return f"- item\n  - nested {nested}\n- last", r
    if kind == "quote":
        return "> " + f"quoted {line}".replace("\n", "\n> "), r
    if kind == "table":
        cells = " | ".join(x.written(in_table=True) for x in r)
        return "| " + " | ".join(["h"] * len(r)) + " |\n|" + "---|" * len(r) + "\n| " + cells + " |", r
    if kind == "admonition":
        return '!!! note "Aside"\n    ' + f"note {line}".replace("\n", "\n    "), r
    if kind == "tabs":
        return '=== "One"\n\n    ' + f"tab {line}".replace("\n", "\n    ") + '\n\n=== "Two"\n\n    other', r
    if kind == "emphasis":
        return f"*{line}* and **bold {r[0].written()}**", [*r, r[0]]
    if kind == "html":
        return f"<small>aside {line}</small> <kbd>k</kbd>", r
    if kind == "beside-link":
        return f"[plain](https://example.org/) {line} [more](https://example.org/x)", r
    # code: nothing in it is a reference, and it must come out as written
    return "Inline `[[nodiscard]]` and a literal \\[[x]].\n\n```cpp\n[[likely]] if (y) {}\n```", []


def _render(body: str):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        files = trio()
        files["device-software/warp.md"] = term_text("Warp", body)
        for rel, text in files.items():
            path = root / "glossary" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        (root / "glossary" / "toc.yml").write_text("device-hardware:\n  - streaming-multiprocessor\ndevice-software:\n  - warp\n  - thread\n", encoding="utf-8")
        loaded = load_project(root, check_records=False, cache=False)
        warp = loaded.glossary.terms["warp"]
        html = render_body(warp, RenderOptions(loaded.glossary, RelativeLinker(term_src(warp)), None)).html
        return loaded, html


@SETTINGS
@given(st.lists(block(), min_size=1, max_size=6))
def test_every_reference_is_one_right_link_in_every_context(blocks):
    body = "\n\n".join(text for text, _ in blocks) + "\n"
    wanted = [ref for _, found in blocks for ref in found]
    loaded, html = _render(body)
    errors = [d for d in loaded.diagnostics if d.severity.value == "error" and d.path.endswith("warp.md")]
    assert errors == [], (body, errors)
    soup = BeautifulSoup(html, "html.parser")
    links = [(a.get_text(), a["href"]) for a in soup.find_all("a") if not a["href"].startswith(("#", "https://example.org"))]
    # tab sets and footnotes may move text, but here every context keeps reading order
    assert links == [(ref.shown(), TARGETS[ref.target]) for ref in wanted], body
    assert html_leftovers(html) == [], body
    for code in soup.find_all("code"):
        assert "href" not in str(code)
    if any(text.startswith("Inline `") for text, _ in blocks):
        assert "[[nodiscard]]" in [c.get_text() for c in soup.find_all("code")]
        assert any("[[likely]] if (y) {}" in c.get_text() for c in soup.find_all("code"))
