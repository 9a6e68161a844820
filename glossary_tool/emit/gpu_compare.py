"""The GPU comparison page: the same programs on each reference GPU, where their output differs.

Built from the records alone: every snippet with passing runs on two GPUs or more whose
outputs differ, the differing lines of each GPU side by side (the lines matched by the
diff of the outputs, as marked in each snippet's Output tab), each row linked to its term.
One data function, :func:`comparison`, feeds the site page (Markdown with an HTML table),
llms.txt (plain Markdown) and the book (XHTML).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from glossary_tool.emit.links import Linker, RelativeLinker
from glossary_tool.emit.markdown import fence_for, md_escape_text, md_link
from glossary_tool.model import Glossary, Snippet, Term
from glossary_tool.verify.outputs import differing_lines, passing_runs
from glossary_tool.verify.reference import ReferenceGpu, short_name

COMPARE_SRC = "gpu-comparison.md"
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five"}


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    gpu_name: str


@dataclass(frozen=True)
class Row:
    """One snippet whose output differs: per column key, (tab label, that GPU's differing lines)."""

    term: Term
    snippet: Snippet
    cells: tuple[tuple[str, str, tuple[str, ...]], ...]

    def cell(self, key: str) -> tuple[str, tuple[str, ...]] | None:
        return next(((label, lines) for k, label, lines in self.cells if k == key), None)


@dataclass(frozen=True)
class Comparison:
    title: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    #: Snippets that passed on two GPUs or more (the rows are those among them that differ).
    compared: int


def comparison_title(reference: Sequence[ReferenceGpu]) -> str:
    names = [gpu.label.split()[0] for gpu in reference]
    if len(names) < 2:
        return "GPU comparison: the same programs on different GPUs"
    return f"{' vs '.join(names)}: the same programs on {NUMBER_WORDS.get(len(names), str(len(names)))} GPUs"


def comparison(glossary: Glossary, records_root: Path, reference: Sequence[ReferenceGpu]) -> Comparison:
    """Every snippet whose passing outputs differ between GPUs, in reading order; the
    ``reference`` GPUs get the first columns."""
    gpus = tuple(reference)
    columns: dict[str, Column] = {gpu.key: Column(gpu.key, gpu.label, gpu.name) for gpu in gpus}
    rows: list[Row] = []
    compared = 0
    for term in glossary.ordered_terms():
        for snippet in term.snippets:
            runs = passing_runs(records_root, term, snippet, gpus)
            if len(runs) < 2:
                continue
            compared += 1
            runs.sort(key=lambda run: list(columns).index(run.key) if run.key in columns else len(columns))
            marks = differing_lines([run.stdout for run in runs])
            if not any(marks):
                continue
            cells = []
            for run, marked in zip(runs, marks, strict=True):
                columns.setdefault(run.key, Column(run.key, short_name(run.machine.gpu_name), run.machine.gpu_name))
                lines = run.stdout.rstrip("\n").split("\n")
                cells.append((run.key, run.label, tuple(lines[i] for i in sorted(marked))))
            rows.append(Row(term, snippet, tuple(cells)))
    return Comparison(comparison_title(gpus), tuple(columns.values()), tuple(rows), compared)


def _intro(comp: Comparison) -> str:
    gpus = ", ".join(f"{c.label} ({c.gpu_name})" for c in comp.columns) or "no reference GPU configured"
    if not comp.rows:
        state = f"No snippet's output differs between GPUs yet: {comp.compared} snippet(s) have passing runs on two GPUs or more." if comp.compared else "No snippet has passing runs on two GPUs yet, so there is nothing to compare."
    else:
        state = f"{len(comp.rows)} of the {comp.compared} snippets that passed on two GPUs or more print something different on each."
    return (
        f"Every verified snippet of this glossary is run on each reference GPU ({gpus}) and its output recorded. "
        "This page lists the lines that differ, side by side: device names, memory sizes, clocks, "
        "and the bandwidths and timings that follow from them. Lines the GPUs print alike are left out; "
        "each row links to its term, where the Output tab shows every GPU's full output. " + state
    )


def _pre(lines: Sequence[str]) -> str:
    return "<pre><code>" + html.escape("\n".join(lines)) + "</code></pre>"


def comparison_table(comp: Comparison, term_href: Callable[[Term], str]) -> str:
    """One HTML table (site and book): a row per snippet, a column per GPU.

    ``term_href`` gives each term's final URL: nothing rewrites links inside raw HTML.
    """
    head = "<tr><th>Snippet</th>" + "".join(f"<th>{html.escape(c.label)}</th>" for c in comp.columns) + "</tr>"
    body = []
    for row in comp.rows:
        link = f'<a href="{html.escape(term_href(row.term))}">{html.escape(row.term.display_title)}</a>'
        cells = [f"<td>{link}<br/><code>{html.escape(row.snippet.name)}</code></td>"]
        for column in comp.columns:
            found = row.cell(column.key)
            if found is None:
                cells.append("<td>not run</td>")
                continue
            label, lines = found
            note = f"<em>{html.escape(label)}</em>" if label != column.label else ""
            cells.append(f"<td>{note}{_pre(lines) if lines else '<em>(no differing line)</em>'}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="gpu-compare"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'


def comparison_markdown(
    glossary: Glossary,
    records_root: Path,
    linker: Linker | None = None,
    *,
    reference: Sequence[ReferenceGpu],
    tables: bool = True,
    term_href: Callable[[Term], str] | None = None,
) -> str:
    """The page as Markdown: with ``tables`` an HTML table (the site), else a list per snippet (llms.txt).

    ``term_href`` gives the table's links (the site's final URLs); by default the linker's.
    """
    linker = linker or RelativeLinker(COMPARE_SRC)
    comp = comparison(glossary, records_root, reference)
    parts = [f"# {md_escape_text(comp.title)}", md_escape_text(_intro(comp))]
    if comp.rows and tables:
        parts.append(f'<div class="gpu-compare-wrap">{comparison_table(comp, term_href or linker.to_term)}</div>')
    elif comp.rows:
        for row in comp.rows:
            items = [f"## {md_link(row.term.display_title, linker.to_term(row.term), row.term.summary)}: `{row.snippet.name}`"]
            for _, label, lines in row.cells:
                items += [f"{md_escape_text(label)}:", fence_for("\n".join(lines), "text")]
            parts.append("\n\n".join(items))
    return "\n\n".join(parts) + "\n"


def comparison_xhtml(glossary: Glossary, records_root: Path, linker: Linker, reference: Sequence[ReferenceGpu]) -> str:
    """The page as an XHTML chapter body for the book."""
    comp = comparison(glossary, records_root, reference)
    table = comparison_table(comp, linker.to_term) if comp.rows else ""
    return f'<h1 id="gpu-comparison">{html.escape(comp.title)}</h1><p>{html.escape(_intro(comp))}</p>{table}'
