"""llms.txt, llms-full.txt and a Markdown copy of every term page (the llmstxt.org convention).

All three come from the same loaded glossary in reading order, rendered with jinja2
templates: the tool's own (``glossary_tool/emit/templates/``, shipped in the package), each
of which a glossary may override with a file of the same name in ``llms_txt/`` at its root.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import jinja2

from glossary_tool.atomic import write_text
from glossary_tool.emit.gpu_compare import COMPARE_SRC, comparison_markdown, comparison_title
from glossary_tool.emit.links import AbsoluteLinker, AnchorLinker, term_anchor, term_src
from glossary_tool.emit.markdown import BodyRewriter, fence_for, term_markdown
from glossary_tool.emit.pages import az_markdown, rosetta_markdown
from glossary_tool.emit.snippets import LANG_LEXER, PlainSnippets
from glossary_tool.emit.written_links import rewriter
from glossary_tool.model import Glossary, Snippet, Term
from glossary_tool.verify.reference import ReferenceGpu

ABOUT = (
    "An interlinked dictionary of the GPU stack (device hardware, device software, host software, "
    "performance and multi-GPU systems) for engineers who know C++ and a little CUDA. Its CUDA examples "
    "were compiled and run on a real NVIDIA GPU, and each shows what that GPU printed."
)


@dataclass(frozen=True)
class LlmsFiles:
    """Relative path -> text of every file this emitter writes into the site."""

    files: dict[str, str]

    def write(self, site_dir: Path) -> None:
        # site_dir is a build's staging directory (swapped in whole) or the serve preview's
        # scratch directory: no fsync per file
        for rel, text in sorted(self.files.items()):
            write_text(site_dir / rel, text, durable=False)


#: Snippet programs up to this many lines are inlined in llms-full.txt; longer ones are linked.
INLINE_SOURCE_LINES = 15


def common_toolchain(glossary: Glossary, records_root: Path) -> str:
    """"CUDA 13.0, driver 580.159.04": what most passing runs used (stated once in llms-full.txt)."""
    from collections import Counter

    from glossary_tool.verify.records import PASSED, records_for

    seen = Counter(
        f"CUDA {r.machine.cuda_runtime_version}, driver {r.machine.driver_version}"
        for term in glossary.ordered_terms()
        for snippet in term.snippets
        for r in records_for(records_root, term, snippet).values()
        if r.status == PASSED and r.machine is not None
    )
    return seen.most_common(1)[0][0] if seen else ""


@dataclass(frozen=True)
class CompactSnippets:
    """llms-full.txt's snippets: the verified output always, the source only when short.

    Snippet programs are a quarter of the glossary's bytes, mostly 30-60 lines of setup and
    error checks around a few lines the prose already explains; inlining them all put the
    file past 1 MB. A long one is named and linked to the term's Markdown copy, which has it whole.
    """

    records_root: Path
    reference: tuple[ReferenceGpu, ...]
    absolute: AbsoluteLinker
    #: The toolchain the file's introduction states (badges that match leave it out).
    toolchain: str = ""

    def __call__(self, term: Term, snippet: Snippet) -> str:
        block = PlainSnippets(self.records_root, self.reference, toolchain=self.toolchain)(term, snippet)
        lines = snippet.source.rstrip("\n").count("\n") + 1
        source = fence_for(snippet.source, LANG_LEXER.get(snippet.lang, ""))
        if lines <= INLINE_SOURCE_LINES or not block.startswith(source):
            return block
        where = self.absolute.to_term(term)
        return f"*Program `{snippet.name}` ({lines} lines of {snippet.lang}): [source]({where}).*" + block[len(source) :]


def section_file(section: str) -> str:
    """Where one section's terms are served as a single file (listed under llms.txt's Optional)."""
    return f"llms-{section}.txt"


@dataclass(frozen=True)
class SectionLinker:
    """Anchors inside a section file for its own terms, absolute URLs for the others'."""

    section: str
    absolute: AbsoluteLinker

    def to_page(self, src: str) -> str:
        return self.absolute.to_page(src)

    def to_term(self, target: Term, anchor: str | None = None) -> str:
        if target.section == self.section:
            return AnchorLinker().to_term(target, anchor)
        return self.absolute.to_term(target, anchor)


#: Where a glossary keeps templates that replace the tool's (one file each, same name).
OVERRIDES_DIR = "llms_txt"
DEFAULT_TEMPLATES = Path(__file__).parent / "templates"


def _env(overrides: Path) -> jinja2.Environment:
    """The project's ``llms_txt/<name>`` where it exists, else the packaged template."""
    loaders = [jinja2.FileSystemLoader(str(overrides)), jinja2.FileSystemLoader(str(DEFAULT_TEMPLATES))]
    return jinja2.Environment(loader=jinja2.ChoiceLoader(loaders), autoescape=False, keep_trailing_newline=True, undefined=jinja2.StrictUndefined)


def diagram_text(term: Term, diagrams: Mapping[str, Any], heading: str = "Diagram", described: dict[str, str] | None = None) -> str:
    """Diagrams as their text descriptions: an LLM reads words, not SVG.

    ``described`` (single-file outputs): diagram name -> link to the term where it was already
    described; a diagram shown again is then named with that link instead of described twice.
    """
    parts = []
    for name in term.diagrams:
        diagram = diagrams.get(name)
        if diagram is None:
            continue
        if described is not None and name in described:
            parts.append(f"*{heading}: {diagram.title}* (described under {described[name]}).")
            continue
        parts.append(f"*{heading}: {diagram.title}.* {diagram.description}")
        if described is not None:
            described[name] = f"[{term.display_title}]({AnchorLinker().to_term(term)})"
    return "\n\n".join(parts)


#: ``memo(term, variant, compute)``: ``compute()``, or what it returned before for the same term
#: inputs and variant (`glossary serve` keeps the terms an edit did not touch).
TermMemo = Callable[[Term, str, Callable[[], str]], str]
#: ``site_memo(name, compute)``: the same for a whole-glossary part (A-Z, Rosetta, the GPU
#: comparison, the common toolchain), which a body edit does not change.
SiteMemo = Callable[[str, Callable[[], str]], str]


def render_llms(
    glossary: Glossary,
    records_root: Path,
    templates: Path,
    site_url: str,
    site_name: str,
    diagrams: Mapping[str, Any] | None = None,
    *,
    reference: Sequence[ReferenceGpu],
    memo: TermMemo | None = None,
    site_memo: SiteMemo | None = None,
) -> LlmsFiles:
    """Every file; ``reference``: the reference GPUs (the caller read them from the site
    config); ``memo`` may answer a term's Markdown (three variants per term) and
    ``site_memo`` a whole-glossary part from an earlier run."""

    def once(term: Term, variant: str, compute: Callable[[], str]) -> str:
        return compute() if memo is None else memo(term, f"{site_url}\0{variant}", compute)

    def whole(name: str, compute: Callable[[], str]) -> str:
        return compute() if site_memo is None else site_memo(f"{site_url}\0{name}", compute)

    absolute = AbsoluteLinker(site_url)
    anchors = AnchorLinker()
    in_full = rewriter(glossary, anchors, site_url)  # links written in bodies, for files read away from the site's folders
    reference = tuple(reference)
    snippets = PlainSnippets(records_root, reference)
    toolchain = whole("toolchain", partial(common_toolchain, glossary, records_root))
    compact = CompactSnippets(records_root, reference, absolute, toolchain)
    home = glossary.home
    title = home.title if home else site_name
    summary = home.summary if home and home.summary else "An interlinked GPU glossary."
    files: dict[str, str] = {}
    sections = []
    full_sections = []
    section_files = []
    described_full: dict[str, str] = {}
    for section in glossary.sections:
        described_here: dict[str, str] = {}
        local = SectionLinker(section.slug, absolute)
        in_section = rewriter(glossary, local, site_url)
        terms = [glossary.terms[s] for s in section.terms]
        sections.append({"title": section.title, "terms": [{"display_title": t.display_title, "url": absolute.to_term(t), "summary": t.summary} for t in terms]})
        full_terms = []
        section_terms = []
        for term in terms:
            figures = diagram_text(term, diagrams or {})
            files[term_src(term)] = once(term, f"copy\0{figures}", partial(term_markdown, term, glossary, absolute, snippets, extra_after_body=figures))
            once_full = diagram_text(term, diagrams or {}, described=described_full)
            text = once(
                term, f"full\0{toolchain}\0{once_full}", partial(term_markdown, term, glossary, anchors, compact, title_level=3, extra_after_body=once_full, compact=True, sources=False, written=in_full)
            ).strip()
            full_terms.append({"anchor": term_anchor(term.slug), "markdown": text})
            once_here = diagram_text(term, diagrams or {}, described=described_here)
            text = once(
                term, f"section\0{section.slug}\0{toolchain}\0{once_here}", partial(term_markdown, term, glossary, local, compact, title_level=3, extra_after_body=once_here, compact=True, written=in_section)
            ).strip()
            section_terms.append({"anchor": term_anchor(term.slug), "markdown": text})
        intro = BodyRewriter(glossary, anchors, link_titles=False, written=in_full, heading_shift=1).body(section.page) if section.page is not None else section.summary
        full_sections.append({"title": section.title, "anchor": f"section-{section.slug}", "summary": intro, "terms": full_terms})
        local_intro = BodyRewriter(glossary, local, link_titles=False, written=in_section, heading_shift=1).body(section.page) if section.page is not None else section.summary
        section_files.append((section, {"title": section.title, "anchor": f"section-{section.slug}", "summary": local_intro, "terms": section_terms}))
    files["a-z.md"] = whole("a-z.md", partial(az_markdown, glossary, absolute))
    files["rosetta.md"] = whole("rosetta.md", partial(rosetta_markdown, glossary, absolute))
    files[COMPARE_SRC] = whole(COMPARE_SRC, partial(comparison_markdown, glossary, records_root, absolute, reference=reference, tables=False))
    optional = [
        {"title": "A-Z index", "url": absolute.to_page("a-z.md"), "summary": "every term, abbreviation and alias with a link to its term"},
        {"title": "Rosetta", "url": absolute.to_page("rosetta.md"), "summary": "CUDA terms against AMD ROCm/HIP, Apple Metal, Intel SYCL/oneAPI and Vulkan/WebGPU names"},
        {"title": comparison_title(reference), "url": absolute.to_page(COMPARE_SRC), "summary": "every snippet whose output differs between the reference GPUs, the differing lines side by side"},
        {"title": "The whole glossary in one file", "url": absolute.to_page("llms-full.txt"), "summary": "all terms in reading order, linked within the file, with every verified output"},
    ]
    env = _env(templates)
    gpus = "; ".join(f"{gpu.label} is an {gpu.name}" for gpu in reference)
    if toolchain:
        gpus += f"; unless a badge says otherwise, each ran with {toolchain}"
    context = {"title": title, "summary": summary, "about": ABOUT, "site_url": site_url, "inline_lines": INLINE_SOURCE_LINES, "gpus": gpus or "named in each badge"}
    for section, data in section_files:
        rel = section_file(section.slug)
        files[rel] = env.get_template("llms-section.txt.j2").render(section=data, **context)
        optional.append({"title": f"{section.title}, whole section in one file", "url": absolute.to_page(rel), "summary": f"the {len(section.terms)} terms of {section.title} in reading order"})
    files["llms.txt"] = env.get_template("llms.txt.j2").render(sections=sections, optional=optional, **context)
    files["llms-full.txt"] = env.get_template("llms-full.txt.j2").render(sections=full_sections, **context)
    return LlmsFiles(files)
