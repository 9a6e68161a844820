"""Load + link + record checks in one call: what ``check``, ``build`` and every emitter use.

Emitters receive the resulting :class:`Glossary`; none of them re-reads term files.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

from glossary_tool.diagnostics import Diagnostic
from glossary_tool.draw import Diagram, check_diagrams, load_diagrams
from glossary_tool.emit.instructions import EMPTY as EMPTY_INSTRUCTIONS
from glossary_tool.emit.instructions import InstructionTable, load_instructions
from glossary_tool.emit.leftovers import check_rendered
from glossary_tool.link import link
from glossary_tool.load import LoadResult, load_tree
from glossary_tool.load.cache import project_cache
from glossary_tool.model import Glossary
from glossary_tool.verify.freshness import snippet_diagnostics
from glossary_tool.verify.reference import load_reference_gpus

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
    def mkdocs_yml(self) -> Path:
        return self.root / "mkdocs.yml"

    @property
    def site_url(self) -> str:
        """``site_url`` of the site config (read by a line match: the core never imports MkDocs,
        and the file may hold tags a safe YAML loader refuses); the book and the MCP server
        use it for absolute links."""
        try:
            text = self.mkdocs_yml.read_text(encoding="utf-8")
        except OSError:
            return DEFAULT_SITE_URL
        match = re.search(r"^site_url:\s*['\"]?([^'\"\s#]+)", text, flags=re.M)
        return match.group(1) if match else DEFAULT_SITE_URL


@dataclass(frozen=True)
class Loaded:
    project: Project
    glossary: Glossary
    graph: nx.DiGraph
    diagnostics: tuple[Diagnostic, ...]
    #: Diagrams from ``diagrams/*.yml`` by name; render with glossary_tool.draw.render_diagram_svg.
    diagrams: Mapping[str, Diagram] = field(default_factory=dict)
    #: glossary/instructions.yml: PTX/SASS opcodes -> terms (glossary_tool/emit/instructions.py).
    instructions: InstructionTable = EMPTY_INSTRUCTIONS
    #: What the loader read: every term file that loaded (those a duplicate slug keeps out of
    #: the glossary too), the ones that did not, the reading order (``check --changed``).
    load: LoadResult | None = None


def load_project(root: Path, *, check_records: bool = True, cache: bool = True) -> Loaded:
    """Load, link and check the project at ``root``. ``cache``: reuse (and refresh) the term
    parses and rendering checks of earlier runs in ``.cache/`` (load/cache.py); off, every
    file is parsed again and nothing is written."""
    project = Project(Path(root))
    store = project_cache(project.root, cache)
    loaded = load_tree(project.glossary_dir, store)
    glossary, graph, problems = link(loaded)
    diagnostics = list(loaded.diagnostics) + problems
    reported = {(d.path, d.line) for d in diagnostics if d.code in ("xref-unparsed", "xref-in-html")}
    diagnostics += check_rendered(glossary, reported, store)
    store.save()
    drawn = load_diagrams(project.diagrams_dir, project.root)
    diagnostics += drawn.diagnostics
    diagnostics += check_diagrams(drawn.diagrams, glossary, drawn.broken)
    instructions, problems = load_instructions(project.glossary_dir, glossary)
    diagnostics += problems
    if check_records:
        diagnostics += record_diagnostics(project, glossary)
    return Loaded(project, glossary, graph, tuple(diagnostics), drawn.diagrams, instructions=instructions, load=loaded)


def record_diagnostics(project: Project, glossary: Glossary) -> list[Diagnostic]:
    """The snippet records' checks: the reference GPUs, each snippet's records, and prose
    quoting a snippet's output against what its records hold (figure-drift). Separate so
    that `glossary serve` can skip them when neither records nor those terms changed."""
    from glossary_tool.verify.figure_check import figure_diagnostics

    reference = load_reference_gpus(project.mkdocs_yml)
    terms = glossary.ordered_terms()
    return [*reference.diagnostics, *snippet_diagnostics(terms, project.records_dir, reference.gpus), *figure_diagnostics(glossary, terms, project.records_dir)]
