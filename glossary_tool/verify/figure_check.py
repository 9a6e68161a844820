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
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from glossary_tool.diagnostics import Diagnostic, error, warning
from glossary_tool.load import cache
from glossary_tool.load.body import parse_tokens, precomputed
from glossary_tool.load.cache import Cache
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
#: Every record of one snippet by GPU key (``records.records_for`` bound to a records folder).
RecordsReader = Callable[[Term, Snippet], Mapping[str, Record]]
#: A body's block structure as this check reads it: the (first, end) body lines of each
#: paragraph and the first body line of each heading.
Blocks = tuple[tuple[tuple[int, int], ...], tuple[int, ...]]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\[`(*])")
_MASKS = (
    re.compile(r"`[^`\n]*`"),  # code spans
    re.compile(r"\]\([^)\s]*\)"),  # link targets
    re.compile(r"\[\[[^\]|]*\|"),  # the target half of [[target|text]]
    re.compile(r"<!--.*?-->", re.S),  # comments
)


def _records(records_root: Path, term: Term, snippet: Snippet, records: RecordsReader | None = None) -> list[Record]:
    """Every record of ``snippet``: one per GPU model where the records module keeps them that way
    (``records_for``, or ``records`` when the caller already reads them), else the single record
    of the one-record layout."""
    if records is not None:
        return list(records(term, snippet).values())
    per_gpu = getattr(records_module, "records_for", None)
    if per_gpu is not None:
        return list(per_gpu(records_root, term, snippet).values())
    record = read_record(records_root, term, snippet)
    return [record] if record is not None else []


def record_outputs(records_root: Path, records: RecordsReader | None = None) -> OutputsReader:
    """What the fresh, passing records of a snippet printed, one entry per record (per GPU);
    ``records`` reads them (default: from ``records_root``)."""

    seen: dict[tuple[str, str], tuple[RecordOutput, ...]] = {}

    def read(term: Term, snippet: Snippet) -> Sequence[RecordOutput]:
        key = (term.slug, snippet.name)
        if key not in seen:  # linked terms are read once per sentence that links them
            seen[key] = tuple(
                RecordOutput(record.machine.gpu_name if record.machine else "", record.stdout)
                for record in _records(records_root, term, snippet, records)
                if record.status == PASSED and freshness(snippet, record) is Freshness.FRESH
            )
        return seen[key]

    return read


@precomputed(wanted=lambda body: "verify" in body)  # only a body with snippets is asked (figure_diagnostics)
def block_spans(body: str) -> Blocks:
    """The paragraphs and headings of ``body``, from the token stream the loader parsed (shared
    per process, so a check parses a body once). Footnotes the parser moved to the end of the
    stream are left out: they are not prose that follows a snippet."""
    paragraphs: list[tuple[int, int]] = []
    headings: list[int] = []
    for token in parse_tokens(body):
        if token.type == "footnote_block_open":
            break
        if token.map and token.type == "paragraph_open":
            paragraphs.append((token.map[0], token.map[1]))
        elif token.map and token.type == "heading_open":
            headings.append(token.map[0])
    return tuple(paragraphs), tuple(headings)


def cached_block_spans(body: str, store: Cache | None) -> Blocks:
    """:func:`block_spans` through the content cache: a warm check does not parse the body."""
    if store is None:
        return block_spans(body)
    name = cache.key("blocks", body)
    found = store.get(name)
    if found is None:
        found = block_spans(body)
        store.put(name, found)
    return found


def _mask(text: str) -> str:
    """Blank out code, link targets and comments, keeping every offset where it was."""
    for pattern in _MASKS:
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


def _prose_ranges(term: Term, headings: tuple[int, ...]) -> list[tuple[Snippet, int, int]]:
    """(snippet, first body line, end body line) of the paragraphs quoting each snippet."""
    stops = sorted(set(headings) | {s.body_start for s in term.snippets})
    total = len(term.body.splitlines())
    out = []
    for snippet in term.snippets:
        end = next((line for line in stops if line >= snippet.body_end), total)
        out.append((snippet, snippet.body_end, end))
    return out


def _paragraphs(paragraphs: tuple[tuple[int, int], ...], start: int, end: int) -> list[tuple[int, int]]:
    return [(first, last) for first, last in paragraphs if start <= first < end]


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


def term_figure_diagnostics(glossary: Glossary, term: Term, read: OutputsReader, store: Cache | None = None) -> list[Diagnostic]:
    body_lines = term.body.splitlines()
    paragraphs, headings = cached_block_spans(term.body, store)
    out: list[Diagnostic] = []
    for snippet, start, end in _prose_ranges(term, headings):
        own = list(read(term, snippet))
        written = snippet.source + "\n" + (snippet.expected or "")
        for first, last in _paragraphs(paragraphs, start, end):
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


def figure_diagnostics(glossary: Glossary, terms: Iterable[Term], records_root: Path, read: OutputsReader | None = None, *, records: RecordsReader | None = None, store: Cache | None = None) -> list[Diagnostic]:
    """``figure-drift`` diagnostics for every term with verify snippets. ``records``: how the
    records are read (`check` shares one reader with the snippet checks); ``store``: the
    content cache, which keeps each body's block structure."""
    reader = read or record_outputs(records_root, records)
    out: list[Diagnostic] = []
    for term in terms:
        if term.snippets:
            out += term_figure_diagnostics(glossary, term, reader, store)
    return out
