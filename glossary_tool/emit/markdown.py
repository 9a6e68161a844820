"""Render a term as Markdown: cross-references resolved, snippets expanded, extras appended.

The body is rewritten by position (the loader recorded each xref's line and column, each
snippet's line range), never by regex, so code and HTML come out byte-for-byte as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from glossary_tool.emit.equivalents import equivalent_cell
from glossary_tool.emit.links import Linker
from glossary_tool.link.equivalents import plain_text
from glossary_tool.model import PLATFORMS, Glossary, Snippet, Term, XRef
from glossary_tool.text import normalize_name

SnippetRenderer = Callable[[Term, Snippet], str]


def md_escape_text(text: str) -> str:
    """Plain text as Markdown text. '<' becomes '&lt;': Python-Markdown, which renders the site,
    has no backslash escape for it, so ``var\\<uniform>`` reached pages as a raw tag."""
    return re.sub(r"([\\\[\]*_`])", r"\\\1", text).replace("<", "&lt;")


def md_title(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', "&quot;")


def md_link(text: str, url: str, title: str | None = None) -> str:
    shown = md_escape_text(text)
    if title:
        return f'[{shown}](<{url}> "{md_title(title)}")'
    return f"[{shown}](<{url}>)"


def plain_link(text: str, url: str) -> str:
    """The shortest link: no title, no angle brackets unless the URL needs them (llms-full.txt)."""
    if re.fullmatch(r"[^\s()<>\\]+", url):
        return f"[{md_escape_text(text)}]({url})"
    return md_link(text, url)


def fence_for(code: str, lang: str = "") -> str:
    """A fence longer than any backtick run inside ``code``."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = code if code.endswith("\n") or not code else code + "\n"
    return f"{ticks}{lang}\n{body}{ticks}"


_PARENTHETICAL = re.compile(r"\s*\([^)]*\)\s*$")


def display_text(xref: XRef, target: Term) -> str:
    """What a reader sees for a resolved reference.

    Explicit text wins. A bare reference written as the target's slug (``[[hopper-architecture]]``)
    shows the target's title without its parenthetical ("Hopper Architecture"), and one written
    as the abbreviation in any case (``[[hbm]]``) shows the abbreviation as defined ("HBM"):
    slugs are identifiers, not prose.
    """
    if xref.text is not None:
        return xref.text + xref.suffix
    written = xref.target
    key = normalize_name(written)
    if target.abbreviation and key == normalize_name(target.abbreviation):
        return target.abbreviation + xref.suffix
    bare_title = _PARENTHETICAL.sub("", target.title)
    if key in (normalize_name(target.title), normalize_name(bare_title)):
        # keep the writer's case ("warp"), unless the name has inner capitals ("NVLink")
        proper = any(ch.isupper() for ch in bare_title[1:])
        return (bare_title if proper and written.islower() else written) + xref.suffix
    if written == target.slug and "-" in written:
        return bare_title + xref.suffix
    return written + xref.suffix


def _bang_before(text: str, col: int) -> bool:
    """True where an unescaped '!' right before ``col`` would turn the link there into an image."""
    if col == 0 or text[col - 1] != "!":
        return False
    head = text[: col - 1]
    return (len(head) - len(head.rstrip("\\"))) % 2 == 0


@dataclass(frozen=True)
class BodyRewriter:
    glossary: Glossary
    linker: Linker
    snippet_renderer: SnippetRenderer | None = None
    #: False: links without the target's summary as title (llms-full.txt, where the target is a scroll away)
    link_titles: bool = True
    #: (body's term, a link written in it) -> the URL to write instead (emit/written_links.py
    #: ``rewriter``): for outputs read away from the site's folders.
    written: Callable[[Term, str], str] | None = None
    #: Levels added to the body's headings, so that they sit under the term's own title where
    #: that is not a page's ``#`` (llms-full.txt: ``###`` titles, so ``##`` becomes ``####``).
    heading_shift: int = 0

    def body(self, term: Term) -> str:
        """The body with each xref's written text (which may wrap) replaced by a Markdown link,
        at the exact source span the parser recorded for its token, and each snippet's
        fences replaced by the snippet renderer's block."""
        text = term.body
        starts = [0]
        for line in text.split("\n"):
            starts.append(starts[-1] + len(line) + 1)

        def offset(line: int, col: int) -> int:
            index = min(max(line - term.body_offset - 1, 0), len(starts) - 1)
            return starts[index] + col - 1

        edits: list[tuple[int, int, str]] = []
        for xref in term.xrefs:
            link = self.glossary.link_for(term.slug, xref)
            if link is None:  # unresolved: show the text plainly (check reports it)
                replacement = md_escape_text(xref.shown)
            else:
                target = self.glossary.terms[link.target]
                url = self.linker.to_term(target, xref.anchor)
                shown = display_text(xref, target)
                replacement = md_link(shown, url, target.summary) if self.link_titles else plain_link(shown, url)
            start = offset(xref.line, xref.col)
            end = offset(xref.end_line, xref.end_col) if xref.end_line else start + len(xref.raw)
            if replacement.startswith("[") and _bang_before(text, start):  # "Wow![[x]]": a link, not an image
                start, replacement = start - 1, "\\!" + replacement
            edits.append((start, end, replacement))
        if self.heading_shift:
            lines = text.split("\n")
            for heading in term.headings:  # where the loader found them: no second parse
                number = heading.line - term.body_offset - 1
                marks = "#" * heading.level
                at = lines[number].find(marks + " ") if 0 <= number < len(lines) else -1
                if at < 0 and 0 <= number < len(lines) and lines[number].rstrip().endswith(marks):
                    at = lines[number].rfind(marks)  # an empty heading, "##"
                if at >= 0:  # an ATX heading (a setext one keeps its underline)
                    edits.append((starts[number] + at, starts[number] + at + heading.level, "#" * min(heading.level + self.heading_shift, 6)))
        if self.written is not None:
            from glossary_tool.emit.written_links import may_link, written_links

            if may_link(text):
                for written in dict.fromkeys(written_links(text)):  # a shared reference definition once
                    url = self.written(term, written.url)
                    if written.length and url != written.url:
                        start = starts[written.line] + written.col
                        edits.append((start, start + written.length, url))
        if self.snippet_renderer is not None:
            for snippet in term.snippets:
                block = self.snippet_renderer(term, snippet).rstrip("\n")
                edits.append((starts[snippet.body_start], starts[min(snippet.body_end, len(starts) - 1)] - 1, block))
        for start, end, replacement in sorted(edits, reverse=True):
            text = text[:start] + replacement + text[end:]
        return text.strip("\n")

    def text(self, text: str, owner: Term) -> str:
        """Rewrite a free-standing text (section intro) whose xrefs belong to ``owner``."""
        return self.body(owner)


def equivalents_table(term: Term, glossary: Glossary | None = None, linker: Linker | None = None, *, link_titles: bool = True, compact: bool = False) -> str:
    """The table of other platforms' names; ``compact`` (llms-full.txt) writes a list: no header rows."""
    if not term.equivalents:
        return ""
    rows = [] if compact else ["| Platform | Name |", "| --- | --- |"]
    for key, value in term.equivalents:
        label = PLATFORMS.get(key, key)
        text, page, anchor = equivalent_cell(glossary, term, key, value, display_text) if glossary is not None else (plain_text(value), None, None)
        if page is not None and linker is not None:
            url = linker.to_term(page, anchor)
            cell = md_link(text, url, page.summary) if link_titles else plain_link(text, url)
        else:
            cell = md_escape_text(text)
        rows.append(f"- {label}: {cell}" if compact else f"| {label} | {cell.replace('|', '&#124;')} |")
    return "\n".join(rows)


def sources_list(term: Term, *, compact: bool = False) -> str:
    return "\n".join(f"- {plain_link(s.title, s.url) if compact else md_link(s.title, s.url)}" for s in term.sources)


def backlinks_list(term: Term, glossary: Glossary, linker: Linker) -> str:
    items = []
    for slug in glossary.backlinks.get(term.slug, ()):
        source = glossary.terms[slug]
        items.append(f"- {md_link(source.display_title, linker.to_term(source), source.summary)}")
    return "\n".join(items)


def term_markdown(
    term: Term,
    glossary: Glossary,
    linker: Linker,
    snippet_renderer: SnippetRenderer | None,
    *,
    title_level: int = 1,
    extra_after_body: str = "",
    compact: bool = False,
    sources: bool = True,
    written: Callable[[Term, str], str] | None = None,
) -> str:
    """A whole term page; the site, llms.txt copies and llms-full.txt all use it.

    ``compact`` (llms-full.txt and its section files): links without titles and no "Linked from"
    list, both of which repeat what the linked term itself says. ``sources`` False leaves the
    sources out (llms-full.txt, which must stay under 1 MB; its header says where they are).
    ``written``: how links written in the body are rewritten (:class:`BodyRewriter`)."""
    h = "#" * title_level
    sub = "#" * (title_level + 1)
    parts = [f"{h} {md_escape_text(term.display_title)}"]
    if term.aliases:
        parts.append("*Also called:* " + ", ".join(md_escape_text(a) for a in term.aliases))
    body = BodyRewriter(glossary, linker, snippet_renderer, link_titles=not compact, written=written, heading_shift=title_level - 1)
    parts.append(body.body(term))
    if extra_after_body:
        parts.append(extra_after_body)
    table = equivalents_table(term, glossary, linker, link_titles=not compact, compact=compact)
    if compact:  # one line each: in a file read by models every heading and bullet costs context
        if table:
            parts.append("*Equivalents:* " + "; ".join(line.removeprefix("- ") for line in table.split("\n")) + ".")
        if sources:
            parts.append("*Sources:* " + "; ".join(line.removeprefix("- ") for line in sources_list(term, compact=True).split("\n")) + ".")
    else:
        if table:
            parts.append(f"{sub} Equivalents\n\n{table}")
        parts.append(f"{sub} Sources\n\n{sources_list(term)}")
    back = "" if compact else backlinks_list(term, glossary, linker)
    if back:
        parts.append(f"{sub} Linked from\n\n{back}")
    return "\n\n".join(p for p in parts if p) + "\n"


def term_list(terms: list[Term], linker: Linker) -> str:
    return "\n".join(f"- {md_link(t.display_title, linker.to_term(t), t.summary)}: {md_escape_text(t.summary)}" for t in terms)
