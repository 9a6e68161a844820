"""Load + link + record checks in one call: what ``check``, ``build`` and every emitter use.

Emitters receive the resulting :class:`Glossary`; none of them re-reads term files.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from glossary_tool.adapters.site_config import SITE_CONFIG
from glossary_tool.background import cpus
from glossary_tool.diagnostics import Diagnostic
from glossary_tool.draw import Diagram, check_diagrams, load_diagrams
from glossary_tool.emit.instructions import EMPTY as EMPTY_INSTRUCTIONS
from glossary_tool.emit.instructions import InstructionTable, load_instructions
from glossary_tool.emit.leftovers import check_rendered
from glossary_tool.emit.written_links import check_written_links, written_links
from glossary_tool.link import link_glossary, term_link_graph
from glossary_tool.link.linker import link_key
from glossary_tool.load import LoadResult, cache, load_tree
from glossary_tool.load.cache import Cache, project_cache
from glossary_tool.model import Glossary, Snippet, Term
from glossary_tool.verify.freshness import snippet_diagnostics
from glossary_tool.verify.records import Record, records_for, records_in
from glossary_tool.verify.reference import ReferenceConfig, ReferenceGpu, load_reference_gpus, reference_gpus_of

if TYPE_CHECKING:
    import networkx as nx

#: Where links point when a glossary's config names no site_url.
DEFAULT_SITE_URL = "https://gpu-glossary.github.io/gpu-glossary/"


@dataclass(frozen=True)
class Project:
    """Where things live, relative to the repository root."""

    root: Path

    @property
    def glossary_dir(self) -> Path:
        return self.root / "glossary"

    @property
    def records_dir(self) -> Path:
        return self.root / "snippets"

    @property
    def diagrams_dir(self) -> Path:
        return self.root / "diagrams"

    @property
    def site_config(self) -> Path:
        """The site generator's config (its name is the adapter's: adapters/site_config.py)."""
        return self.root / SITE_CONFIG

    @property
    def reference_gpus(self) -> tuple[ReferenceGpu, ...]:
        """The reference GPUs listed in the site config, read again only when it changes
        (`glossary serve`); what the core's outputs are handed to order and label runs."""
        return reference_gpus_of(self.site_config)

    @property
    def site_url(self) -> str:
        """``site_url`` of the site config (read by a line match: the core never imports the
        site generator, and the file may hold tags a safe YAML loader refuses); the book and
        the MCP server use it for absolute links."""
        try:
            text = self.site_config.read_text(encoding="utf-8")
        except OSError:
            return DEFAULT_SITE_URL
        match = re.search(r"^site_url:\s*['\"]?([^'\"\s#]+)", text, flags=re.M)
        return match.group(1) if match else DEFAULT_SITE_URL


@dataclass(frozen=True)
class Loaded:
    project: Project
    glossary: Glossary
    diagnostics: tuple[Diagnostic, ...]
    #: Diagrams from ``diagrams/*.yml`` by name; render with glossary_tool.draw.render_diagram_svg.
    diagrams: Mapping[str, Diagram] = field(default_factory=dict)
    #: glossary/instructions.yml: PTX/SASS opcodes -> terms (glossary_tool/emit/instructions.py).
    instructions: InstructionTable = EMPTY_INSTRUCTIONS
    #: What the loader read: every term file that loaded (those a duplicate slug keeps out of
    #: the glossary too), the ones that did not, the reading order (``check --changed``).
    load: LoadResult | None = None

    @cached_property
    def graph(self) -> nx.DiGraph:
        """The term graph (link/linker.py ``term_link_graph``), built on first use: `check`
        never needs it."""
        return term_link_graph(self.glossary)


def parse_processes() -> int:
    """Processes for a cold load to parse terms in (`check`, `build`): every core, up to four
    (each worker's results are pickled back, which a fifth core would not repay at 5,000 terms)."""
    return max(1, min(cpus(), 4))


def load_project(root: Path, *, check_records: bool = True, cache: bool = True, processes: int = 1, keep_tokens: bool = False) -> Loaded:
    """Load, link and check the project at ``root``. ``cache``: reuse (and refresh) the term
    parses and rendering checks of earlier runs in ``.cache/`` (load/cache.py); off, every
    file is parsed again and nothing is written. ``processes`` > 1: parse uncached terms in
    that many processes (load/files.py parse_terms): this process then holds no tokens of
    the bodies parsed elsewhere, and with ``keep_tokens`` (`glossary build`) it keeps those of
    the bodies it parsed, the first run of term pages, which the build then renders here."""
    project = Project(Path(root))
    store = project_cache(project.root, cache)
    precompute: tuple[Callable[[str], object], ...] = ()
    if processes > 1:  # what the checks below read of a body's tokens, computed where it was parsed
        from glossary_tool.emit.leftovers import brackets_cannot_render
        from glossary_tool.verify.figure_check import block_spans

        precompute = (brackets_cannot_render, written_links, block_spans) if check_records else (brackets_cannot_render, written_links)
        if keep_tokens:  # a build: the preview cards' openings of the bodies parsed elsewhere
            from glossary_tool.emit.previews import opening_paragraphs

            precompute += (opening_paragraphs,)
    ahead: dict[str, Any] = {}

    def meanwhile() -> None:
        """What needs no parsed term (the diagrams, the reference GPUs, every snippet record),
        read while forked workers parse: here it cost a serial step after the parse."""
        ahead["drawn"] = load_diagrams(project.diagrams_dir, project.root, store)
        if check_records:
            ahead["reference"] = load_reference_gpus(project.site_config, store)
            ahead["records"] = records_in(project.records_dir)

    loaded = load_tree(project.glossary_dir, store, processes=processes, precompute=precompute, meanwhile=meanwhile, keep_tokens=keep_tokens)
    glossary, problems = link_glossary(loaded, store)
    diagnostics = list(loaded.diagnostics) + problems
    reported = {(d.path, d.line) for d in diagnostics if d.code in ("xref-unparsed", "xref-in-html")}
    diagnostics += check_rendered(glossary, reported, store)
    diagnostics += check_written_links(glossary, project.glossary_dir, store)
    drawn = ahead["drawn"] if "drawn" in ahead else load_diagrams(project.diagrams_dir, project.root, store)  # not read ahead: no glossary folder
    diagnostics += drawn.diagnostics
    diagnostics += check_diagrams(drawn.diagrams, glossary, drawn.broken)
    if check_records:
        diagnostics += _record_diagnostics_kept(project, loaded, glossary, store, ahead.get("reference"), ahead.get("records"))
    store.save()
    instructions, problems = load_instructions(project.glossary_dir, glossary)
    diagnostics += problems
    return Loaded(project, glossary, tuple(diagnostics), drawn.diagrams, instructions=instructions, load=loaded)


def _record_diagnostics_kept(
    project: Project,
    loaded: LoadResult,
    glossary: Glossary,
    store: Cache | None,
    reference: ReferenceConfig | None,
    records: Mapping[tuple[str, str, str], Mapping[str, Record]] | None,
) -> list[Diagnostic]:
    """:func:`record_diagnostics`, kept in ``store`` under a key of everything it reads: the
    terms and how they link (``link_key``: each term's parse key, the reading order, the
    section pages), the reference GPUs and every record as read (``records``, read while the
    terms were parsed). Matching outputs and reading figures out of prose cost the real
    glossary's warm check 0.35-0.43 s of its 0.66 s, the same on every run with nothing
    changed. Where the records were not read ahead or nothing identifies the terms (no parse
    keys), they are checked again."""
    if store is None or records is None or reference is None or loaded.digest is None:
        return record_diagnostics(project, glossary, store, reference, records)
    name = cache.key("record-checks", link_key(loaded), repr(reference), repr(sorted(records.items())))
    return list(store.get_or_make(name, lambda: tuple(record_diagnostics(project, glossary, store, reference, records)), counted=False))


def record_diagnostics(
    project: Project,
    glossary: Glossary,
    store: Cache | None = None,
    reference: ReferenceConfig | None = None,
    ahead: Mapping[tuple[str, str, str], Mapping[str, Record]] | None = None,
) -> list[Diagnostic]:
    """The snippet records' checks: the reference GPUs, each snippet's records, and prose
    quoting a snippet's output against what its records hold (figure-drift; ``store``, the
    content cache, keeps each body's block structure). Separate so that `glossary serve`
    can skip them when neither the records nor the terms with snippets changed.
    ``reference`` and ``ahead`` (records.records_in): the site config's GPUs and the records,
    where already read."""
    from glossary_tool.verify.figure_check import figure_diagnostics

    records = _records_reader(project.records_dir, ahead)
    if reference is None:
        reference = load_reference_gpus(project.site_config, store)
    terms = glossary.ordered_terms()
    return [
        *reference.diagnostics,
        *snippet_diagnostics(terms, project.records_dir, reference.gpus, records),
        *figure_diagnostics(glossary, terms, project.records_dir, records=records, store=store),
    ]


def _records_reader(records_root: Path, ahead: Mapping[tuple[str, str, str], Mapping[str, Record]] | None = None) -> Callable[[Term, Snippet], Mapping[str, Record]]:
    """``records_for`` in ``records_root``, each snippet's records read once per load (the
    snippet checks and the figure check both read them); ``ahead``: the records already read
    (records.records_in), where a snippet missing has none."""
    if ahead is not None:
        return lambda term, snippet: ahead.get((term.section, term.slug, snippet.name), {})
    seen: dict[tuple[str, str, str], Mapping[str, Record]] = {}

    def read(term: Term, snippet: Snippet) -> Mapping[str, Record]:
        key = (term.section, term.slug, snippet.name)
        if key not in seen:
            seen[key] = records_for(records_root, term, snippet)
        return seen[key]

    return read
