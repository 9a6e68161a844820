"""How a verify snippet appears in each output: badge line, source, output, PTX, SASS.

The badge says plainly whether the GPU ran it: "Ran on NVIDIA H200 (sm_90), CUDA 13.0,
driver ..., date" only for a passed record; anything else says what happened instead.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path

from glossary_tool.emit import compiler_explorer
from glossary_tool.emit.markdown import fence_for
from glossary_tool.model import Snippet, Term
from glossary_tool.verify.freshness import Freshness, freshness
from glossary_tool.verify.records import COMPILE_ONLY, FAILED, PASSED, SKIPPED, Record, read_artifact, read_record

LANG_LEXER = {"cuda": "cuda", "python": "python", "ptx": "text", "console": "console"}


@dataclass(frozen=True)
class SnippetView:
    """Everything an output needs to show one snippet."""

    snippet: Snippet
    record: Record | None
    fresh: bool
    ptx: str | None
    sass: str | None

    @property
    def arch(self) -> str:
        return self.snippet.option("arch", "sm_90") or "sm_90"

    @property
    def verified(self) -> bool:
        return self.fresh and self.record is not None and self.record.status == PASSED and self.record.machine is not None

    def badge(self) -> str:
        record = self.record
        if record is None:
            return "Not yet verified: this snippet has no record from a GPU run."
        if not self.fresh:
            return "Not verified: the snippet changed after its last GPU run."
        if record.status == PASSED and record.machine is not None:
            return f"{record.machine.badge(self.arch)}, {record.date}"
        if record.status == COMPILE_ONLY:
            where = f" with nvcc {record.nvcc_version}" if record.nvcc_version else ""
            return f"Compiled{where} but not run: {record.reason.removeprefix('compiled only: ')}."
        if record.status == SKIPPED:
            return f"Not run: {record.reason.removeprefix('skipped: ')}."
        if record.status == FAILED:
            return f"Failed when verified: {record.reason}."
        return f"Status: {record.status}."

    def output(self) -> tuple[str, str] | None:
        """(label, text) of the output to show: the GPU's if verified, else the expected."""
        if self.verified and self.record is not None:
            return "Output", self.record.stdout
        if self.snippet.expected is not None:
            return "Expected output", self.snippet.expected
        return None


def view(records_root: Path, term: Term, snippet: Snippet) -> SnippetView:
    record = read_record(records_root, term, snippet)
    fresh = freshness(snippet, record) is Freshness.FRESH
    ptx = read_artifact(records_root, term, snippet, "ptx") if fresh else None
    sass = read_artifact(records_root, term, snippet, "sass") if fresh else None
    return SnippetView(snippet, record, fresh, ptx, sass)


def _indent(text: str) -> str:
    return "\n".join(("    " + line) if line else "" for line in text.split("\n"))


@dataclass(frozen=True)
class SiteSnippets:
    """Material tabs (pymdownx.tabbed): Source | Output | PTX | SASS, under a badge line."""

    records_root: Path

    def __call__(self, term: Term, snippet: Snippet) -> str:
        v = view(self.records_root, term, snippet)
        state = "verified" if v.verified else "unverified"
        godbolt = compiler_explorer.link_html(snippet)
        badge = f'<p class="snippet-badge snippet-badge--{state}" markdown="0"><span class="snippet-name">{html.escape(snippet.name)}</span> {html.escape(v.badge())}{" " + godbolt if godbolt else ""}</p>'
        tabs = [("Source", fence_for(snippet.source, LANG_LEXER.get(snippet.lang, "text")))]
        output = v.output()
        if output is not None:
            tabs.append((output[0], fence_for(output[1] or "(no output)", "text")))
        if v.ptx:
            tabs.append(("PTX", fence_for(v.ptx, "{ .text .gg-asm-ptx }")))  # opcodes linked after rendering: emit/instructions.py
        if v.sass:
            tabs.append(("SASS", fence_for(v.sass, "{ .text .gg-asm-sass }")))
        parts = [badge, ""]
        for label, block in tabs:
            parts.append(f'=== "{label}"')
            parts.append("")
            parts.append(_indent(block))
            parts.append("")
        return "\n".join(parts).rstrip("\n") + "\n"


@dataclass(frozen=True)
class PlainSnippets:
    """Plain Markdown for LLM readers: source, then the verified (or expected) output."""

    records_root: Path
    include_sass: bool = False

    def __call__(self, term: Term, snippet: Snippet) -> str:
        v = view(self.records_root, term, snippet)
        parts = [fence_for(snippet.source, LANG_LEXER.get(snippet.lang, "")), "", f"*{v.badge()}*"]
        output = v.output()
        if output is not None:
            parts += ["", f"{output[0]}:", "", fence_for(output[1] or "(no output)", "text")]
        return "\n".join(parts) + "\n"
