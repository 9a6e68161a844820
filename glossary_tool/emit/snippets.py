"""How a verify snippet appears in each output: badge, source, each GPU's output, PTX, SASS.

The badge says plainly which GPUs ran it: "Ran on H100 SXM (NVIDIA H100 80GB HBM3, sm_90):
CUDA 13.0, driver ..., date", one line per GPU with a fresh passing record; a snippet no GPU
passed says what happened instead. The output shown is always what a GPU printed, under
that GPU's name; only a snippet no GPU has run shows its expected output, labelled so.
"""

from __future__ import annotations

import html
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from glossary_tool.emit import compiler_explorer, sass_control
from glossary_tool.emit.html_parts import highlight, tabbed_set
from glossary_tool.emit.markdown import fence_for
from glossary_tool.model import Snippet, Term
from glossary_tool.verify.freshness import Freshness, freshness
from glossary_tool.verify.outputs import GpuRun, differing_lines, passing_runs
from glossary_tool.verify.records import COMPILE_ONLY, FAILED, PASSED, SKIPPED, Record, read_artifact, records_for
from glossary_tool.verify.reference import ReferenceGpu

LANG_LEXER = {"cuda": "cuda", "python": "python", "ptx": "text", "console": "console"}


@dataclass(frozen=True)
class SnippetView:
    """Everything an output needs to show one snippet."""

    snippet: Snippet
    #: Every GPU's passing run, in page order (outputs.passing_runs).
    runs: tuple[GpuRun, ...]
    #: The record that explains a snippet no GPU passed (the newest fresh one, else any).
    other: Record | None
    fresh: bool
    ptx: str | None
    sass: str | None

    @property
    def arch(self) -> str:
        return self.snippet.arch

    @property
    def verified(self) -> bool:
        return bool(self.runs)

    def badges(self) -> list[str]:
        """One line per GPU that passed, or one line saying why none did."""
        if self.runs:
            return [run.badge(self.arch) for run in self.runs]
        record = self.other
        if record is None:
            return ["Not yet verified: this snippet has no record from a GPU run."]
        if not self.fresh:
            return ["Not verified: the snippet changed after its last GPU run."]
        if record.status == COMPILE_ONLY:
            where = f" with nvcc {record.nvcc_version}" if record.nvcc_version else ""
            return [f"Compiled{where} but not run: {record.reason.removeprefix('compiled only: ')}."]
        if record.status == SKIPPED:
            return [f"Not run: {record.reason.removeprefix('skipped: ')}."]
        if record.status == FAILED:
            return [f"Failed when verified: {record.reason}."]
        return [f"Status: {record.status}."]

    def badge(self) -> str:
        return " · ".join(self.badges())

    def outputs(self) -> list[tuple[str, str]]:
        """(label, text) per GPU that ran it; else the expected output, labelled as such."""
        if self.runs:
            return [(run.label, run.stdout) for run in self.runs]
        if self.snippet.expected is not None:
            return [("Expected output", self.snippet.expected)]
        return []


def view(records_root: Path, term: Term, snippet: Snippet, reference: Sequence[ReferenceGpu]) -> SnippetView:
    runs = tuple(passing_runs(records_root, term, snippet, reference))
    records = list(records_for(records_root, term, snippet).values())
    fresh_records = [r for r in records if freshness(snippet, r) is Freshness.FRESH]
    pool = fresh_records or records
    other = max(pool, key=lambda r: (r.machine is not None, r.status != FAILED, r.date), default=None)
    fresh = bool(fresh_records)
    ptx = read_artifact(records_root, term, snippet, "ptx") if fresh else None
    sass = read_artifact(records_root, term, snippet, "sass") if fresh else None
    return SnippetView(snippet, runs, other, fresh, ptx, sass)


def _group(term: Term, snippet: Snippet) -> str:
    return re.sub(r"[^a-z0-9-]+", "-", f"{term.slug}-{snippet.name}".lower())


def output_block(text: str, marked: Collection[int] = ()) -> str:
    """Plain-text output as a Material code block, ``marked`` lines in ``<mark class="gpu-diff">``."""
    if not text:
        return highlight("(no output)\n", "text")
    lines = text.rstrip("\n").split("\n")
    body = "\n".join(f'<mark class="gpu-diff">{html.escape(line)}</mark>' if i in marked else html.escape(line) for i, line in enumerate(lines))
    return f'<div class="language-text highlight"><pre><span></span><code>{body}\n</code></pre></div>'


def output_tabs(group: str, outputs: Sequence[tuple[str, str]]) -> str:
    """Each GPU's output in its own tab, lines that differ between GPUs marked."""
    marks = differing_lines([text for _, text in outputs]) if len(outputs) > 1 else [set() for _ in outputs]
    blocks = [(label, output_block(text, marks[i])) for i, (label, text) in enumerate(outputs)]
    note = '<p class="gpu-diff-note">Highlighted lines differ between the GPUs.</p>' if any(marks) else ""
    return tabbed_set(f"{group}-out", blocks, classes="snippet-gpus") + note


@dataclass(frozen=True)
class SiteSnippets:
    """One HTML fragment per snippet: badge, then tabs Source | Output | PTX | SASS.

    The Output tab holds a tab per GPU. The fragment is one ``<div class="snippet">``, a raw
    HTML block that Python-Markdown passes through untouched (blank lines inside ``<pre>``
    included; a ``markdown="0"`` attribute would do the same but stay in the page as an
    invalid attribute), and that an HTML renderer inserts as it is. ``reference``: the
    reference GPUs, which the caller read from the site config (pipeline.Project.reference_gpus).
    """

    records_root: Path
    reference: tuple[ReferenceGpu, ...]

    def html(self, term: Term, snippet: Snippet) -> str:
        v = view(self.records_root, term, snippet, self.reference)
        state = "verified" if v.verified else "unverified"
        items = "".join(f"<li>{html.escape(line)}</li>" for line in v.badges())
        badge = f'<div class="snippet-badge snippet-badge--{state}"><span class="snippet-name">{html.escape(snippet.name)}</span><ul class="snippet-runs">{items}</ul>{compiler_explorer.link_html(snippet) or ""}</div>'
        group = _group(term, snippet)
        tabs = [("Source", highlight(snippet.source, LANG_LEXER.get(snippet.lang, "text")))]
        outputs = v.outputs()
        if v.runs:
            tabs.append(("Output", output_tabs(group, outputs)))
        elif outputs:  # no GPU has run it: the expected output, under that name
            tabs.append((outputs[0][0], output_block(outputs[0][1])))
        if v.ptx:
            tabs.append(("PTX", highlight(v.ptx, "ptx", searchable=False)))  # opcodes linked after rendering: emit/instructions.py
        sass = sass_control.shown(v.sass, v.arch) if v.sass else None  # control codes decoded (emit/sass_control.py)
        if sass is not None:
            legend = f'<p class="sass-legend">{html.escape(sass.legend)}</p>' if sass.legend else ""
            tabs.append(("SASS", legend + highlight(sass.text, "sass", searchable=False)))
        # Out of the search index as a whole: search is for prose and names; a snippet's
        # source, outputs and compiler listings would make every page that calls
        # cudaMalloc a hit for it (emit/search_text.py cuts it before the indexer reads it).
        return f'<div class="snippet" data-search-exclude>{badge}{tabbed_set(group, tabs)}</div>'

    def __call__(self, term: Term, snippet: Snippet) -> str:
        """The fragment with blank lines around it: a block of its own in the Markdown body."""
        return f"\n{self.html(term, snippet)}\n"


def _joined_badges(badges: list[str]) -> list[str]:
    """"Ran on A (...): CUDA 13.0, driver X, date" lines that share everything after the GPU
    become one line naming each GPU: the plain outputs are read by models, where every
    repeated line costs context."""
    groups: dict[str, list[str]] = {}
    order: list[str] = []
    for badge in badges:
        head, sep, tail = badge.partition("): ")
        if not badge.startswith("Ran on ") or not sep:
            groups[badge] = []
            order.append(badge)
            continue
        if tail not in groups:
            order.append(tail)
        groups.setdefault(tail, []).append(head.removeprefix("Ran on ") + ")")
    return [key if not groups[key] else f"Ran on {' and '.join(groups[key])}: {key}" for key in order]


def _short_badges(v: SnippetView, toolchain: str) -> list[str]:
    """One line per (toolchain, date) naming every GPU of it by its label."""
    groups: dict[tuple[str, str], list[str]] = {}
    for run in v.runs:
        tools = f"CUDA {run.machine.cuda_runtime_version}, driver {run.machine.driver_version}"
        groups.setdefault((tools, run.record.date), []).append(run.label)
    return [f"Ran on {' and '.join(labels)} ({v.arch}){'' if tools == toolchain else ', ' + tools}, {date}" for (tools, date), labels in groups.items()]


@dataclass(frozen=True)
class PlainSnippets:
    """Plain Markdown for LLM readers and the book: source, badge, each GPU's output by name."""

    records_root: Path
    #: The reference GPUs (as for :class:`SiteSnippets`).
    reference: tuple[ReferenceGpu, ...]
    include_sass: bool = False
    #: llms-full.txt states the toolchain most runs share (and each GPU's full name) once:
    #: badges then read "Ran on H100 SXM and H200 SXM (sm_90), 2026-11-23", naming a
    #: toolchain only where it differs. None: every badge in full.
    toolchain: str | None = None

    def __call__(self, term: Term, snippet: Snippet) -> str:
        v = view(self.records_root, term, snippet, self.reference)
        parts = [fence_for(snippet.source, LANG_LEXER.get(snippet.lang, "")), ""]
        badges = _short_badges(v, self.toolchain) if self.toolchain is not None and v.runs else _joined_badges(v.badges())
        parts += [f"- *{line}*" for line in badges]
        # GPUs that printed the same text share one block: the reader (or model) sees each
        # distinct output once, under the names of every GPU that printed it
        groups: dict[str, list[str]] = {}
        for label, text in v.outputs():
            groups.setdefault(text, []).append(label)
        for text, labels in groups.items():
            names = " and ".join(labels)
            heading = f"{names}:" if not v.runs else f"Output on {names}:"
            parts += ["", heading, "", fence_for(text or "(no output)", "text")]
        return "\n".join(parts) + "\n"


__all__ = ["LANG_LEXER", "PASSED", "PlainSnippets", "SiteSnippets", "SnippetView", "output_block", "output_tabs", "view"]
