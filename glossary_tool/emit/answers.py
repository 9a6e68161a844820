"""Markdown answers about the glossary for a language model: search results, a term, its
links, a path between two terms, one snippet with what each GPU printed.

Pure functions of the loaded glossary and the snippet records; the MCP server
(adapters/mcp_server.py) wraps them in tools. Every answer names the GPU behind each output
and is capped in size with a note saying what was cut.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from glossary_tool import lookup
from glossary_tool.emit import sass_control
from glossary_tool.emit.links import AbsoluteLinker, term_src
from glossary_tool.emit.llms import diagram_text
from glossary_tool.emit.markdown import fence_for, md_escape_text, term_markdown
from glossary_tool.emit.snippets import LANG_LEXER, PlainSnippets
from glossary_tool.model import SECTION_TITLES, Glossary, Snippet, Term
from glossary_tool.verify import records as _records
from glossary_tool.verify.freshness import Freshness, freshness
from glossary_tool.verify.records import PASSED, Record, read_artifact, read_record
from glossary_tool.verify.reference import ReferenceGpu

_records_for = getattr(_records, "records_for", None)

#: Characters per answer (about 10k tokens): past this an answer is cut with a note.
ANSWER_LIMIT = 40_000

SNIPPET_PARTS = ("source", "output", "ptx", "sass")


def cap(text: str, limit: int = ANSWER_LIMIT, hint: str = "") -> str:
    """``text`` cut to about ``limit`` characters at a line end, an open code fence closed,
    and a note saying how much was left out and how to get the rest."""
    if len(text) <= limit:
        return text
    head = text[:limit].rsplit("\n", 1)[0]
    fences = [m.group(1) for m in re.finditer(r"^\s*(`{3,})", head, flags=re.M)]
    if len(fences) % 2:
        head += "\n" + fences[-1]
    note = f"\n\n[Answer cut at {len(head):,} of {len(text):,} characters.{' ' + hint if hint else ''}]\n"
    return head + note


@dataclass(frozen=True)
class Site:
    """Where the published glossary lives: the HTML page and the Markdown copy of each term."""

    site_url: str

    def page(self, term: Term) -> str:
        return f"{self.site_url.rstrip('/')}/{term.section}/{term.slug}/"

    def markdown(self, term: Term) -> str:
        return AbsoluteLinker(self.site_url).to_page(term_src(term))

    @property
    def linker(self) -> AbsoluteLinker:
        return AbsoluteLinker(self.site_url)


def snippet_records(records_root: Path, term: Term, snippet: Snippet) -> tuple[Record, ...]:
    """Every record of a snippet, one per GPU that ran (or tried to run) it.

    The one place answers read records. Records are one file per GPU where
    ``verify.records.records_for`` exists (per-GPU records); before that there is one record
    per snippet, read with ``read_record``.
    """
    if _records_for is not None:
        return tuple(_records_for(records_root, term, snippet).values())
    record = read_record(records_root, term, snippet)
    return (record,) if record is not None else ()


def _verified(snippet: Snippet, record: Record) -> bool:
    return record.status == PASSED and record.machine is not None and freshness(snippet, record) is Freshness.FRESH


def _run_line(snippet: Snippet, record: Record) -> str:
    """What one record says: the GPU, toolchain and date of a passing run, else what happened."""
    if freshness(snippet, record) is not Freshness.FRESH:
        return f"{_gpu(record)}: not verified, the snippet changed after this run ({record.date})."
    if _verified(snippet, record) and record.machine is not None:
        return f"{record.machine.badge(snippet.arch)}, {record.date}"
    return f"{_gpu(record)} printed no output to show for this source (status below)."


def _gpu(record: Record) -> str:
    return record.machine.gpu_name if record.machine is not None else "no GPU"


def unknown(glossary: Glossary, name: str, what: str = "term") -> str:
    """The answer to a name no term has: the closest names, never an error trace."""
    shown = name if len(name) <= 80 else name[:77] + "..."
    guesses = lookup.suggest(glossary, name)
    if guesses:
        listed = ", ".join(f"{glossary.terms[s].display_title} (`{s}`)" for s in guesses)
        return f"No {what} is called '{shown}'. Did you mean: {listed}? search_glossary finds terms by any name or by words in their text."
    return f"No {what} is called '{shown}', and no name is close to it. search_glossary finds terms by any name or by words in their text; list_terms lists them all."


def search_answer(glossary: Glossary, query: str, hits: Sequence[lookup.Hit], site: Site) -> str:
    if not hits:
        return unknown(glossary, query)
    lines = [f"{len(hits)} term(s) for '{query}', best first:", ""]
    for n, hit in enumerate(hits, 1):
        term = glossary.terms[hit.slug]
        lines.append(f"{n}. **{md_escape_text(term.display_title)}** (`{term.slug}`, {SECTION_TITLES.get(term.section, term.section)}; matched: {hit.why})")
        lines.append(f"   {md_escape_text(term.summary)}")
        lines.append(f"   {site.page(term)}")
    lines += ["", "read_term gives a whole term; term_links its neighbours."]
    return "\n".join(lines) + "\n"


def term_answer(glossary: Glossary, term: Term, records_root: Path, site: Site, diagrams: Mapping[str, Any] | None = None, *, reference: Sequence[ReferenceGpu]) -> str:
    """The whole term as Markdown: title, summary, body with plain absolute links, each snippet
    with what each GPU printed (PlainSnippets, as in the Markdown copies; ``reference``: the
    reference GPUs), diagrams as text, equivalents and sources. No "Linked from" list and no
    link titles: neighbourhood_answer has those, and they doubled the size."""
    text = term_markdown(term, glossary, site.linker, PlainSnippets(records_root, tuple(reference)), extra_after_body=diagram_text(term, diagrams or {}), compact=True)
    title, _, rest = text.partition("\n")
    meta = f"*{SECTION_TITLES.get(term.section, term.section)} · `{term.slug}` · {site.page(term)}*\n\n**Summary:** {md_escape_text(term.summary)}"
    tail = ""
    if term.snippets:
        tail = "\n" + "Snippets (read_snippet gives PTX, SASS and the machine): " + ", ".join(f"`{s.name}`" for s in term.snippets) + "\n"
    return cap(f"{title}\n\n{meta}\n{rest}{tail}", hint="Snippets in full: read_snippet.")


def _term_lines(glossary: Glossary, slugs: Iterable[str], site: Site) -> list[str]:
    out = []
    for slug in slugs:
        term = glossary.terms[slug]
        out.append(f"- **{md_escape_text(term.display_title)}** (`{slug}`): {md_escape_text(term.summary)}")
    return out


def neighbourhood_answer(glossary: Glossary, term: Term, site: Site) -> str:
    to = lookup.links_to(glossary, term.slug)
    back = lookup.linked_from(glossary, term.slug)
    lines = [f"# Links of {md_escape_text(term.display_title)} (`{term.slug}`)", "", md_escape_text(term.summary), "", f"## Links to ({len(to)}, in body order)", ""]
    lines += _term_lines(glossary, to, site) or ["(none)"]
    lines += ["", f"## Linked from ({len(back)}, in reading order)", ""]
    lines += _term_lines(glossary, back, site) or ["(none)"]
    return cap("\n".join(lines) + "\n", hint="relate_terms walks the links between two terms.")


def path_answer(glossary: Glossary, start: Term, end: Term, hops: Sequence[lookup.Hop] | None) -> str:
    a, b = start.display_title, end.display_title
    if hops is None:
        return f"{a} and {b} are not connected by any chain of cross-references."
    if not hops:
        return f"{a} and {b} are the same term."
    lines = [f"{a} → {b}: {len(hops)} hop(s), one line each (the sentence that makes the link).", ""]
    for n, hop in enumerate(hops, 1):
        src, dst = glossary.terms[hop.source].display_title, glossary.terms[hop.target].display_title
        if hop.forward:
            lines.append(f"{n}. {src} → {dst}: {hop.context}")
        else:
            lines.append(f"{n}. {src} ← {dst} ({dst} links to {src}): {hop.context}")
    return "\n".join(lines) + "\n"


def snippet_choices(term: Term) -> str:
    if not term.snippets:
        return f"{term.display_title} (`{term.slug}`) has no verified snippets."
    names = ", ".join(f"`{s.name}` ({s.lang})" for s in term.snippets)
    return f"{term.display_title} (`{term.slug}`) has {len(term.snippets)} snippet(s): {names}. Name one with the snippet argument."


def snippet_answer(term: Term, snippet: Snippet, records: Sequence[Record], records_root: Path, parts: Sequence[str] = SNIPPET_PARTS) -> str:
    """One snippet: source; per GPU the record's machine, date and output; then PTX and SASS."""
    lines = [f"# Snippet `{snippet.name}` of {term.display_title} (`{term.slug}`)", ""]
    options = ", ".join(f"{k}={v}" for k, v in snippet.options if k != "name")
    lines.append(f"Language: {snippet.lang}" + (f"; options: {options}" if options else ""))
    if "source" in parts:
        lines += ["", "## Source", "", fence_for(snippet.source, LANG_LEXER.get(snippet.lang, ""))]
    if not records:
        lines += ["", "## Runs", "", "Not yet verified: no GPU has run this snippet."]
        if "output" in parts and snippet.expected is not None:
            lines += ["", "### Expected output (not printed by any GPU)", "", fence_for(snippet.expected, "text")]
    for record in records:
        lines += ["", f"## Run on {_gpu(record)}", "", f"*{_run_line(snippet, record)}*", "", f"- status: {record.status}" + (f" ({record.reason})" if record.reason else ""), f"- date: {record.date}"]
        machine = record.machine
        if machine is not None:
            lines += [
                f"- GPU: {machine.gpu_name}, compute capability {machine.compute_capability}, {machine.sm_count} SMs" + (f", {machine.gpu_count} GPUs" if machine.gpu_count > 1 else ""),
                f"- driver {machine.driver_version}, CUDA runtime {machine.cuda_runtime_version}, nvcc {machine.nvcc_version}",
            ]
        if record.exit_status is not None:
            lines.append(f"- exit status {record.exit_status}, {record.duration_s:.2f} s")
        if "output" in parts and _verified(snippet, record):
            lines += ["", f"### Output on {_gpu(record)}", "", fence_for(record.stdout or "(no output)", "text")]
            if record.stderr.strip():
                lines += ["", "### Standard error", "", fence_for(record.stderr, "text")]
    fresh = any(freshness(snippet, r) is Freshness.FRESH for r in records)
    for kind in ("ptx", "sass"):
        if kind in parts:
            text = read_artifact(records_root, term, snippet, kind) if fresh else None
            if text and kind == "sass":  # control codes decoded, encoding words dropped: a third of the bytes left
                sass = sass_control.shown(text, snippet.arch)
                if sass is None:
                    lines += ["", "## SASS", "", "(no kernels: the program's cubins hold no function)"]
                else:
                    lines += ["", "## SASS", *(["", sass.legend] if sass.legend else []), "", fence_for(sass.text, "text")]
                continue
            lines += ["", f"## {kind.upper()}", "", fence_for(text, "text") if text else f"(no {kind.upper()} recorded for the current source)"]
    return cap("\n".join(lines) + "\n", hint="Ask for fewer parts (e.g. parts=['source', 'output']) to see the rest.")


def term_list_answer(glossary: Glossary, section: str | None = None) -> str:
    lines = []
    for sec in glossary.sections:
        if section and sec.slug != section:
            continue
        lines += [f"## {sec.title} (`{sec.slug}`)", ""]
        for slug in sec.terms:
            term = glossary.terms.get(slug)
            if term is not None:
                lines.append(f"- {md_escape_text(term.display_title)} (`{slug}`)")
        lines.append("")
    return cap("\n".join(lines), hint="Name a section to list fewer terms.")
