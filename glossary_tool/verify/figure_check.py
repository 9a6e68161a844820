"""``glossary check``: figures quoted after a snippet must be figures its records printed.

The prose a snippet's figures are quoted in is the paragraphs after its output fence, up to the
next verify snippet or heading. Each sentence there is matched (``figures.figure_problems``)
against the fresh, passing records of that snippet, plus the records of every term the sentence
links to with ``[[...]]``, so "the [[peak-rate]] program recorded 1838 MHz" is checked against
the peak-rate page's records. Stale or failed records are skipped: ``snippet-stale`` already says
those must be re-run, and a figure cannot drift from a record that does not count.

Where records come from is one function, :func:`record_outputs`; with one record per snippet
today it returns one output, with one record per GPU it returns one per GPU, and nothing else
here changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.token import Token

from glossary_tool.diagnostics import Diagnostic, error, warning
from glossary_tool.load.xref_rule import make_parser
from glossary_tool.model import Glossary, Snippet, Term
from glossary_tool.verify import records as records_module
from glossary_tool.verify.figures import RecordOutput, figure_problems, gpus_named, quoted_figures
from glossary_tool.verify.freshness import Freshness, freshness
from glossary_tool.verify.records import PASSED, Record, read_record

CODE = "figure-drift"
#: A paragraph quoting a snippet's figures without naming the GPU that printed them.
GPU_CODE = "figure-gpu"

#: Reads what the records of one snippet printed; swapped in tests and for other record layouts.
OutputsReader = Callable[[Term, Snippet], Sequence[RecordOutput]]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[`(*])")
_MASKS = (
    re.compile(r"`[^`\n]*`"),  # code spans
    re.compile(r"\]\([^)\s]*\)"),  # link targets
    re.compile(r"\[\[[^\]|]*\|"),  # the target half of [[target|text]]
    re.compile(r"<!--.*?-->", re.S),  # comments
)


def _records(records_root: Path, term: Term, snippet: Snippet) -> list[Record]:
    """Every record of ``snippet``: one per GPU model where the records module keeps them that way
    (``records_for``), else the single record of the one-record layout."""
    per_gpu = getattr(records_module, "records_for", None)
    if per_gpu is not None:
        return list(per_gpu(records_root, term, snippet).values())
    record = read_record(records_root, term, snippet)
    return [record] if record is not None else []


def record_outputs(records_root: Path) -> OutputsReader:
    """What the fresh, passing records of a snippet printed, one entry per record (per GPU)."""

    seen: dict[tuple[str, str], tuple[RecordOutput, ...]] = {}

    def read(term: Term, snippet: Snippet) -> Sequence[RecordOutput]:
        key = (term.slug, snippet.name)
        if key not in seen:  # linked terms are read once per sentence that links them
            seen[key] = tuple(
                RecordOutput(record.machine.gpu_name if record.machine else "", record.stdout)
                for record in _records(records_root, term, snippet)
                if record.status == PASSED and freshness(snippet, record) is Freshness.FRESH
            )
        return seen[key]

    return read


_BLOCKS: MarkdownIt | None = None


def _block_tokens(body: str) -> list[Token]:
    """Block tokens only (paragraph and heading line ranges): the inline pass is not needed here."""
    global _BLOCKS
    if _BLOCKS is None:
        _BLOCKS = make_parser().disable("inline")
    return _BLOCKS.parse(body)


def _mask(text: str) -> str:
    """Blank out code, link targets and comments, keeping every offset where it was."""
    for pattern in _MASKS:
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


def _prose_ranges(term: Term, tokens: list[Token]) -> list[tuple[Snippet, int, int]]:
    """(snippet, first body line, end body line) of the paragraphs quoting each snippet."""
    stops = sorted({t.map[0] for t in tokens if t.type == "heading_open" and t.map} | {s.body_start for s in term.snippets})
    total = len(term.body.splitlines())
    out = []
    for snippet in term.snippets:
        end = next((line for line in stops if line >= snippet.body_end), total)
        out.append((snippet, snippet.body_end, end))
    return out


def _paragraphs(tokens: list[Token], start: int, end: int) -> list[tuple[int, int]]:
    return [(t.map[0], t.map[1]) for t in tokens if t.type == "paragraph_open" and t.map and start <= t.map[0] < end]


def _sentences(text: str) -> list[tuple[int, int]]:
    spans, begin = [], 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((begin, m.start()))
        begin = m.end()
    spans.append((begin, len(text)))
    return spans


def _position(lines: list[str], offset: int) -> tuple[int, int]:
    """0-based line within ``lines`` and 1-based column of a character offset into '\\n'.join(lines)."""
    for i, line in enumerate(lines):
        if offset <= len(line):
            return i, offset + 1
        offset -= len(line) + 1
    return len(lines) - 1, 1


def _linked_outputs(glossary: Glossary, term: Term, read: OutputsReader, first_line: int, last_line: int) -> list[RecordOutput]:
    """Outputs of the terms linked from file lines ``first_line``..``last_line`` (1-based, inclusive)."""
    out: list[RecordOutput] = []
    for xref in term.xrefs:
        if not first_line <= xref.line <= last_line:
            continue
        link = glossary.link_for(term.slug, xref)
        target = glossary.terms.get(link.target) if link else None
        if target is None or target.slug == term.slug:
            continue
        for snippet in target.snippets:
            out.extend(read(target, snippet))
    return out


def term_figure_diagnostics(glossary: Glossary, term: Term, read: OutputsReader) -> list[Diagnostic]:
    body_lines = term.body.splitlines()
    tokens = _block_tokens(term.body)
    out: list[Diagnostic] = []
    for snippet, start, end in _prose_ranges(term, tokens):
        own = list(read(term, snippet))
        written = snippet.source + "\n" + (snippet.expected or "")
        for first, last in _paragraphs(tokens, start, end):
            lines = body_lines[first:last]
            text = _mask("\n".join(lines))
            if own and not gpus_named(text):
                for figure in quoted_figures(text, own, written)[:1]:
                    line, col = _position(lines, figure.offset)
                    out.append(warning(term.path, term.body_offset + first + line + 1, col, GPU_CODE,
                                       f"'{figure.text}' quotes snippet '{snippet.name}' but the paragraph names no GPU; say which GPU printed it (\"On the H200 we ran this on, ...\")"))
            for s_begin, s_end in _sentences(text):
                line_a, _ = _position(lines, s_begin)
                line_b, _ = _position(lines, s_end)
                file_a = term.body_offset + first + line_a + 1
                file_b = term.body_offset + first + line_b + 1
                pool = own + _linked_outputs(glossary, term, read, file_a, file_b)
                if not pool:
                    continue
                for problem in figure_problems(text[s_begin:s_end], pool, written):
                    line, col = _position(lines, s_begin + problem.figure.offset)
                    out.append(error(term.path, term.body_offset + first + line + 1, col, CODE,
                                     f"{problem.describe()}; quote the record of snippet '{snippet.name}' or re-run it"))
    return out


def figure_diagnostics(glossary: Glossary, terms: Iterable[Term], records_root: Path, read: OutputsReader | None = None) -> list[Diagnostic]:
    """``figure-drift`` diagnostics for every term with verify snippets."""
    reader = read or record_outputs(records_root)
    out: list[Diagnostic] = []
    for term in terms:
        if term.snippets:
            out += term_figure_diagnostics(glossary, term, reader)
    return out
