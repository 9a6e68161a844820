"""``glossary mcp``: the glossary as a Model Context Protocol server (official ``mcp`` SDK 2.x).

A language model in Claude, Cursor, VS Code or any MCP client looks up a term by any name,
reads it whole, walks the link graph and reads what each GPU printed for a snippet.

It serves the glossary loaded in memory by :func:`glossary_tool.pipeline.load_project`, with
no site build. Safe by construction: every tool is read-only; a name from a client is only
ever a key into the loaded glossary (never joined into a file path); an unknown name is
answered with did-you-mean suggestions; answers are capped in size (emit/answers.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources import FunctionResource
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from glossary_tool import __version__, lookup
from glossary_tool.emit import answers
from glossary_tool.emit.answers import Site
from glossary_tool.emit.llms import OVERRIDES_DIR, render_llms
from glossary_tool.model import SECTIONS
from glossary_tool.pipeline import DEFAULT_SITE_URL, Loaded

INSTRUCTIONS = (
    "An interlinked glossary of the GPU stack (NVIDIA hardware and CUDA software, host software, "
    "performance, multi-GPU) whose CUDA examples were run on a real GPU. Find a term with "
    "search_glossary (any name: title, abbreviation, alias, or AMD/Apple/Intel/Vulkan names such as "
    "'wavefront'; or words from its text), read it with read_term, see what it links to with term_links, "
    "explain how two terms relate with relate_terms, and read a snippet's source, output, PTX and SASS "
    "with read_snippet. Every output names the GPU that printed it; quote that GPU when you cite a number."
)

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

Name = Annotated[str, Field(min_length=1, max_length=200, description="A term's title, abbreviation, alias or slug, in any case (e.g. 'SM', 'warp', 'Tensor Memory Accelerator', 'wavefront').")]
Part = Literal["source", "output", "ptx", "sass"]


def _llms_templates(root: Path) -> Path:
    """The glossary's template overrides (emit/llms.py falls back to the packaged templates)."""
    return root / OVERRIDES_DIR


def _text(text: str, error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=error)


@dataclass
class GlossaryAnswers:
    """The loaded glossary and what the tools need beside it; llms files rendered on first use."""

    loaded: Loaded
    site: Site
    _llms: dict[str, str] = field(default_factory=dict)

    @property
    def glossary(self):
        return self.loaded.glossary

    def llms(self, name: str) -> str:
        if not self._llms:
            project = self.loaded.project
            files = render_llms(self.glossary, project.records_dir, _llms_templates(project.root), self.site.site_url, "GPU Glossary", self.loaded.diagrams, reference=project.reference_gpus).files
            self._llms.update({k: v for k, v in files.items() if k.endswith(".txt")})
        return self._llms[name]

    def term(self, slug: str) -> str:
        term = self.glossary.terms[slug]
        project = self.loaded.project
        return answers.term_answer(self.glossary, term, project.records_dir, self.site, self.loaded.diagrams, reference=project.reference_gpus)


def build_server(loaded: Loaded, site_url: str = DEFAULT_SITE_URL) -> MCPServer:
    """An MCPServer answering from ``loaded``; run it over stdio or HTTP, or connect a test client."""
    ctx = GlossaryAnswers(loaded, Site(site_url))
    glossary = loaded.glossary
    server = MCPServer("gpu-glossary", title="GPU Glossary", instructions=INSTRUCTIONS, website_url=site_url, version=__version__, log_level="WARNING")

    def tool(fn: Callable[..., CallToolResult]) -> Callable[..., CallToolResult]:
        server.add_tool(fn, annotations=READ_ONLY, structured_output=False)
        return fn

    @tool
    def search_glossary(
        query: Annotated[str, Field(min_length=1, max_length=200, description="A name or a few words, e.g. 'wavefront', 'SM', 'bank conflict', 'async copy'.")],
        limit: Annotated[int, Field(ge=1, le=25, description="How many results (1-25).")] = 8,
    ) -> CallToolResult:
        """Find GPU glossary terms by any name or by words in their text. Exact names rank first
        (title, abbreviation such as 'SM' or 'TMA', alias, slug), then other vendors' names
        (AMD 'wavefront' and Vulkan 'subgroup' find Warp), then names containing the query, then
        full-text matches. Each result has the term's slug, summary and page URL. Use this first
        when you are not sure of a term's exact name."""
        hits = lookup.search(glossary, query, limit)
        if not hits:
            return _text(answers.unknown(glossary, query), error=True)
        return _text(answers.search_answer(glossary, query, hits, ctx.site))

    @tool
    def read_term(name: Name) -> CallToolResult:
        """Read one glossary term whole, as Markdown: definition and body (links as absolute
        URLs), every CUDA snippet with the output the named GPU printed, diagrams described in
        words, names on AMD/Apple/Intel/Vulkan, sources, and the terms linking to it. Use it to
        answer a question about one concept with the glossary's exact facts and figures."""
        term = lookup.resolve(glossary, name)
        if term is None:
            return _text(answers.unknown(glossary, name), error=True)
        return _text(ctx.term(term.slug))

    @tool
    def term_links(name: Name) -> CallToolResult:
        """A term's neighbourhood in the glossary's link graph: the terms it links to (in the
        order its text mentions them) and the terms whose pages link to it, each with a one-line
        summary. Use it to find prerequisites and related concepts."""
        term = lookup.resolve(glossary, name)
        if term is None:
            return _text(answers.unknown(glossary, name), error=True)
        return _text(answers.neighbourhood_answer(glossary, term, ctx.site))

    @tool
    def relate_terms(
        from_term: Annotated[str, Field(min_length=1, max_length=200, description="Where the path starts: any name of a term, e.g. 'TMA'.")],
        to_term: Annotated[str, Field(min_length=1, max_length=200, description="Where it ends: any name of a term, e.g. 'L2 cache'.")],
    ) -> CallToolResult:
        """How two terms relate: the shortest chain of cross-references between them, one line
        per hop quoting the sentence that makes each link. Answers questions like "how does the
        TMA relate to the L2 cache?" with the glossary's own words."""
        start, end = lookup.resolve(glossary, from_term), lookup.resolve(glossary, to_term)
        if start is None or end is None:
            missing = [answers.unknown(glossary, n) for n, t in ((from_term, start), (to_term, end)) if t is None]
            return _text("\n".join(missing), error=True)
        return _text(answers.path_answer(glossary, start, end, lookup.path(glossary, start.slug, end.slug)))

    @tool
    def read_snippet(
        term: Name,
        snippet: Annotated[str | None, Field(max_length=200, description="The snippet's name; leave it out to list the term's snippets.")] = None,
        parts: Annotated[list[Part] | None, Field(max_length=4, description="Which parts to show; default all of source, output, ptx, sass.")] = None,
    ) -> CallToolResult:
        """One verified code snippet of a term: its source, and for each GPU that ran it the
        machine (GPU, compute capability, SM count, driver, CUDA and nvcc versions), the date,
        what it printed, and the PTX and SASS the compiler produced. Leave out `snippet` to list
        the term's snippets. SASS can be long: ask for parts=['source', 'output'] when that is
        all you need."""
        owner = lookup.resolve(glossary, term)
        if owner is None:
            return _text(answers.unknown(glossary, term), error=True)
        if snippet is None:
            return _text(answers.snippet_choices(owner), error=not owner.snippets)
        found = next((s for s in owner.snippets if s.name == snippet.strip()), None)
        if found is None:
            return _text(f"No snippet '{snippet[:80]}' in {owner.display_title}. " + answers.snippet_choices(owner), error=True)
        records_root = loaded.project.records_dir
        records = answers.snippet_records(records_root, owner, found)
        return _text(answers.snippet_answer(owner, found, records, records_root, tuple(parts or answers.SNIPPET_PARTS)))

    @tool
    def list_terms(
        section: Annotated[Literal[SECTIONS] | None, Field(description="Only this section; leave out for all.")] = None,  # type: ignore[valid-type]
    ) -> CallToolResult:
        """Every term of the glossary (or of one section) in reading order, with its slug:
        device-hardware, device-software, host-software, performance, multi-gpu."""
        return _text(answers.term_list_answer(glossary, section))

    for term in glossary.ordered_terms():
        server.add_resource(
            FunctionResource(
                uri=f"glossary://term/{term.slug}",
                name=term.slug,
                title=term.display_title,
                description=term.summary,
                mime_type="text/markdown",
                fn=lambda slug=term.slug: ctx.term(slug),
            )
        )

    @server.resource("glossary://term/{name}", name="term-by-name", title="A term by any name", mime_type="text/markdown")
    def term_by_name(name: str) -> str:
        """A glossary term as Markdown, looked up by any of its names (e.g. glossary://term/SM)."""
        found = lookup.resolve(glossary, name)
        return ctx.term(found.slug) if found is not None else answers.unknown(glossary, name)

    @server.resource("glossary://llms.txt", name="llms.txt", title="llms.txt: every term with its summary", mime_type="text/markdown")
    def llms_txt() -> str:
        """The glossary's llms.txt: every term with its one-line summary and Markdown URL, by section."""
        return ctx.llms("llms.txt")

    @server.resource("glossary://llms-full.txt", name="llms-full.txt", title="The whole glossary in one file (under 1 MB)", mime_type="text/markdown")
    def llms_full_txt() -> str:
        """Every term in reading order in one Markdown file, links inside the file."""
        return ctx.llms("llms-full.txt")

    @server.prompt(name="explain_for_beginner", title="Explain a GPU term to a CUDA beginner")
    def explain_for_beginner(term: str) -> str:
        """Explain one glossary term to an engineer who knows C++ and a little CUDA, using the glossary's own terms."""
        found = lookup.resolve(glossary, term)
        if found is None:
            return answers.unknown(glossary, term)
        return (
            f"Explain {found.display_title} to an engineer who knows C++ and a little CUDA. Use the GPU glossary's "
            "terms and link each one you use to its page; build on terms the entry links to (term_links lists them) "
            "rather than introducing new jargon. Quote numbers only with the GPU they hold for. Keep it under 400 words, "
            "and end with one thing to try, such as its snippet.\n\nThe glossary entry:\n\n" + ctx.term(found.slug)
        )

    @server.prompt(name="relate", title="How do two GPU terms relate?")
    def relate(from_term: str, to_term: str) -> str:
        """Explain how two glossary terms relate, following the glossary's chain of cross-references."""
        start, end = lookup.resolve(glossary, from_term), lookup.resolve(glossary, to_term)
        if start is None or end is None:
            return "\n".join(answers.unknown(glossary, n) for n, t in ((from_term, start), (to_term, end)) if t is None)
        chain = answers.path_answer(glossary, start, end, lookup.path(glossary, start.slug, end.slug))
        return (
            f"Explain how {start.display_title} relates to {end.display_title} for a CUDA programmer, step by step along "
            "this chain of glossary cross-references. Read each term on the way with read_term when a step needs more "
            "than its one sentence.\n\n" + chain
        )

    return server


def parse_http(value: str) -> tuple[str, int]:
    """``[HOST:]PORT`` -> (host, port); the host defaults to 127.0.0.1 (this machine only)."""
    host, _, port = value.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"--http expects [HOST:]PORT with a port from 1 to 65535, got '{value}'")
    return host, int(port)


def serve(loaded: Loaded, site_url: str, http: tuple[str, int] | None = None) -> None:
    """Run until the client disconnects (stdio) or the process is stopped (HTTP)."""
    server = build_server(loaded, site_url)
    if http is None:
        server.run("stdio")
    else:
        server.run("streamable-http", host=http[0], port=http[1])
