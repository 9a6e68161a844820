"""`check` skips rendering a page when its tokens prove no ``[[`` can reach its prose
(emit/leftovers.py ``brackets_cannot_render``). That shortcut must never change a diagnostic:
for every body here, the check with the proof gives exactly what rendering every page gives,
and every body whose rendering does show brackets is one the proof refuses to clear.
"""

from __future__ import annotations

import pytest

from glossary_tool.emit import leftovers
from glossary_tool.emit.leftovers import brackets_cannot_render, html_leftovers
from glossary_tool.emit.links import RelativeLinker, term_src
from glossary_tool.emit.render import RenderOptions, render_body
from glossary_tool.pipeline import load_project
from tests.conftest import term_text, trio

W = "device-software/warp.md"
LINKS = "A [[thread]] on an [[streaming-multiprocessor|SM]].\n\n"

# Each is appended to a body that links two terms (so the page has xref tokens).
BODIES = [
    "Plain prose and a [[thread|thread's]] lane.\n",
    "Wrapped [[streaming\nmultiprocessor]] name and [[thread#missing-anchor]].\n",
    "An escape: [\\[not a link]] and \\[\\[neither]].\n",
    "A literal \\[[kept]] pair.\n",
    "Entity brackets: &#91;&#91;thread]] and &lbrack;[x]] and &#x5B;[y]].\n",
    "Entity without semicolon &#91[z]].\n",
    "Unknown inline tag [<foo>[bar]] and a comment [<!-- c -->[baz]].\n",
    "<div>\n[[thread]] inside raw HTML\n</div>\n",
    "A code span `[[nodiscard]]` and [`[`[x]].\n",
    "```cpp\n[[likely]] int x;\n```\n",
    "    [[indented code]]\n",
    "- [ ] task [[thread]]\n- [[[thread]]]\n",
    "Nested [[[thread]]] brackets and [[[[thread]]]] more.\n",
    "| a | b |\n| --- | --- |\n| [[thread\\|T]] | [ [[sm]] ] |\n| [[ | ]] |\n",
    '!!! note "A [[thread]] title"\n    Body [[thread]].\n',
    '=== "Tab [[thread]]"\n\n    In a tab [[sm]].\n',
    "Footnote[^1] and an inline ^[note].\n\n[^1]: The [[sm]] note.\n",  # an xref in an inline footnote crashes the loader on main (reported)
    "![alt [[thread]]](img.png) and [text [[sm]]](https://x.org).\n",
    "Unclosed [[thread here.\n",
    "Empty [[]] and [[ ]].\n",
    "<https://x.org/[[a]]> autolink.\n",
    "Trailing [\n[[thread]] next line [\n",
    "Hard break [\\\n[ next.\n",
    "Emphasis [*[*x and **[**[y.\n",
    "> Quote with [[thread]] and [[\n> sm]] wrapped.\n",
    "1. [[thread]]\n\n   ```\n   [[code]]\n   ```\n",
    "Setext [[thread]]\n===\n\n## Heading [[sm]]\n",
    "Two on a line [[thread]][[sm]] and [[thread]]s.\n",
    "Link text ending in a bracket [a\\[](https://x.org)[thread]] and ~~[~~[x]].\n",
    "An autolink <https://x.org/a[>[y]] and inline HTML <span>&#91;&#91;thread]]</span>.\n",
    "Wrapped **[**\n[thread]] (a space between) and *[*\\[z]].\n",
]


def _root(make_glossary, body: str):
    files = trio({"sm": "\n## What it is\n\nA unit.\n"})
    files[W] = term_text("Warp", LINKS + body)
    return make_glossary(files)


def _diagnostics(root, monkeypatch, prove: bool):
    if not prove:
        monkeypatch.setattr(leftovers, "brackets_cannot_render", lambda body: False)
    try:
        found = load_project(root, check_records=False, cache=False).diagnostics
    finally:
        monkeypatch.undo()
    return sorted((d.path, d.line, d.col, d.code, d.message) for d in found)


@pytest.mark.parametrize("body", BODIES)
def test_the_proof_changes_no_diagnostic(make_glossary, monkeypatch, body):
    root = _root(make_glossary, body)
    assert _diagnostics(root, monkeypatch, prove=True) == _diagnostics(root, monkeypatch, prove=False)


@pytest.mark.parametrize("body", BODIES)
def test_a_body_it_clears_renders_without_brackets(make_glossary, body):
    loaded = load_project(_root(make_glossary, body), check_records=False, cache=False)
    warp = loaded.glossary.terms["warp"]
    html = render_body(warp, RenderOptions(loaded.glossary, RelativeLinker(term_src(warp)), None, permalinks=False, highlight_code=False)).html
    if html_leftovers(html):
        assert not brackets_cannot_render(warp.body)


def test_ordinary_bodies_are_cleared():
    """The shortcut pays only if ordinary prose with links, tables and code is cleared."""
    assert brackets_cannot_render(LINKS + "| [[thread\\|T]] | x |\n| --- | --- |\n| a | b |\n\n```cpp\n[[likely]] f();\n```\n")
    assert brackets_cannot_render("No brackets at all.\n")
    assert not brackets_cannot_render(LINKS + "An escape: [\\[not a link]].\n")


def _walked_leftovers(markup: str) -> list[str]:
    """The reference for html_leftovers, written another way: the document flattened in
    order into what a reader sees (every text and tail; a block, break, code or literal
    element is a break and its content left out; comments and processing instructions are
    unseen, and checked for ``[[`` on their own). A string holding ``[[`` is a leftover, and
    so is one ending with ``[`` whose next seen string, with no break between, starts with
    one; each with what a reader sees after it up to the next break. Reported in the order
    of a walk over the nodes, each one's text before its tail."""
    from lxml import html as lhtml

    root = lhtml.fromstring(leftovers._XML_DECLARATION.sub("", markup, count=1))
    order = {node: i for i, node in enumerate(root.iter())}
    flat: list[tuple[str, str, tuple[int, int]]] = []  # (kind, string, where it is reported)

    def flatten(node) -> None:
        if not isinstance(node.tag, str):
            flat.append(("unseen", node.text or "", (order[node], 0)))
        else:
            broken = leftovers._breaks(node)
            if broken:
                flat.append(("break", "", (0, 0)))
            if not (broken and leftovers._skipped(node)):
                if node.text:
                    flat.append(("seen", node.text, (order[node], 0)))
                for child in node:
                    flatten(child)
            if broken:
                flat.append(("break", "", (0, 0)))
        if node.tail:
            flat.append(("seen", node.tail, (order[node], 1)))

    flatten(root)
    def seen_from(i: int) -> str:
        """The strings a reader sees from flat[i] on, up to the next break."""
        run = []
        for kind, text, _ in flat[i:]:
            if kind == "break":
                break
            if kind == "seen":
                run.append(text)
        return "".join(run)

    found = []
    for i, (kind, text, where) in enumerate(flat):
        if kind == "unseen" and "[[" in text:
            found.append((where, text[text.index("[[") :][: leftovers._CONTEXT]))
        elif kind == "seen" and "[[" in text:
            found.append((where, (text[text.index("[[") :] + seen_from(i + 1))[: leftovers._CONTEXT]))
        elif kind == "seen" and text.endswith("[") and seen_from(i + 1).startswith("["):
            found.append((where, ("[" + seen_from(i + 1))[: leftovers._CONTEXT]))
    return [text for _, text in sorted(found, key=lambda hit: hit[0])]


_PIECES = [
    "[[a]]", " x [[b]] y ", "plain", "<code>[[c]]</code>", "<pre><span>[[d]]</span></pre>", "<kbd>k [[e]]</kbd>",
    "<!-- note [[f]] -->", "<?pi [[g]]?>", '<span class="xref-literal">[[h]]</span>', "<em>[[i]]</em> tail [[j]]",
    "<b><i>deep [[k]]</i> mid [[l]]</b> after [[m]]", "<br>[[n]]", "&#91;&#91;o]]", "<script>var a = '[[p]]';</script>",
    # a bracket at the end of a string, and what may come after it
    "[", "a [", "<b>[</b>", "<i>x[</i>", "[t]]", "<b>[u]]</b>", "<!-- c -->", "<span></span>", "<p>[v</p>",
    "<code>[</code>", "&lbrack;", '<span class="xref-literal">[[</span>', "<a href='#'>[w</a>", " [x",
]


def test_the_bracket_query_finds_what_a_walk_over_every_node_finds():
    """html_leftovers asks XPath for the strings holding ``[[`` or ending with ``[`` and
    follows the tags after those: the same leftovers, in the same order, as the flattened
    document (:func:`_walked_leftovers`), for fragments built from texts, tails, nested,
    block and code elements, comments, processing instructions, entities and lone brackets,
    and for XHTML."""
    import random

    rng = random.Random(7)
    cases = ['<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>x [[q]]</p><!-- [[r]] --><pre>[[s]]</pre></body></html>']
    for _ in range(400):
        pieces = rng.choices(_PIECES, k=rng.randint(1, 6))
        wrap = rng.choice(["<div>{}</div>", "<p>{}</p>", "{}", "<section><div>{}</div> t [[z]]</section>"])
        cases.append(wrap.format("".join(pieces)))
    for markup in cases:
        assert [leftover.text for leftover in html_leftovers(markup)] == _walked_leftovers(markup), markup
    assert sum(1 for markup in cases if len(_walked_leftovers(markup)) > 1) > 100, "orders of several leftovers are compared"
    split = [markup for markup in cases if any(text[:3] not in markup for text in _walked_leftovers(markup))]
    assert len(split) > 50, "brackets that meet across tags or come from entities are compared"
