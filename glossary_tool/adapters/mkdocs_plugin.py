"""The MkDocs plugin ``glossary``: a thin mapping of MkDocs events onto the core.

on_config loads and links the glossary (or takes the project `glossary build` loaded) and
sets the navigation from the reading order; on_files adds the generated pages; each page is
rendered by the core (emit/render.py, markdown-it-py) and handed over as HTML and table of
contents: on_page_markdown gives Python-Markdown an empty page, on_page_content puts ours in
its place. Nothing else in the package imports MkDocs, so a successor that reads the same
mkdocs.yml (Zensical) needs only a new adapter.
"""

from __future__ import annotations

import dataclasses
import html
import logging
import posixpath
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import accumulate
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

import jinja2
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File, Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc
from mkdocs.utils import get_relative_url

from glossary_tool.adapters.mkdocs_incremental import DirtyWarningFilter, Incremental, plan_files, process_bytecode
from glossary_tool.adapters.mkdocs_publish import Publisher
from glossary_tool.atomic import write_bytes
from glossary_tool.background import BackgroundError, Job, can_fork
from glossary_tool.diagnostics import Diagnostic, Severity, errors
from glossary_tool.draw.graph import MAP_SRC, TermGraph, layout_map, term_graph
from glossary_tool.draw.html import MAP_TITLE, diagrams_markdown, map_markdown, term_extras_markdown
from glossary_tool.emit import pages
from glossary_tool.emit.gpu_compare import COMPARE_SRC, comparison_markdown, comparison_title
from glossary_tool.emit.instructions import link_rendered_blocks
from glossary_tool.emit.leftovers import Leftover, html_leftovers, leftover_diagnostics, markdown_leftovers, output_diagnostics
from glossary_tool.emit.links import RelativeLinker, term_src
from glossary_tool.emit.llms import OVERRIDES_DIR, LlmsFiles, render_llms, section_file
from glossary_tool.emit.markdown_copy import markdown_copy, sitemap_stubs, with_copy_buttons, with_head_links
from glossary_tool.emit.page_html import markdown_page, section_page, term_page
from glossary_tool.emit.page_inputs import PageInputs, digest, extras_key, layout_key, map_key, record_inputs
from glossary_tool.emit.previews import PREVIEWS_SRC, mark_previewable, opening, previews_json, resolver
from glossary_tool.emit.render import Rendered, RenderOptions, TocEntry
from glossary_tool.emit.search_names import SEARCH_NAMES_SRC, names_json
from glossary_tool.emit.search_text import Cut, cut_excluded
from glossary_tool.emit.snippets import SiteSnippets
from glossary_tool.emit.widgets import widget_html
from glossary_tool.load.body import forget_tokens, holds_tokens
from glossary_tool.load.cache import CACHE_DIR, Cache, key
from glossary_tool.model import Glossary, Term
from glossary_tool.pipeline import Loaded, load_project, record_diagnostics
from glossary_tool.publish.feed import WHATS_NEW_SRC, WHATS_NEW_TITLE

log = logging.getLogger("mkdocs.plugins.glossary")
T = TypeVar("T")

#: Small edits to two of Material's partials, applied to the theme's own template (so they
#: follow Material upgrades): the repository link loses ``data-md-component="source"``, whose
#: script calls api.github.com for stars and forks on a first visit (the site must send no
#: request off its own host), and the search dialog gets the accessible name axe-core asks for.
#: tests/test_browser.py checks both. ``main.html`` links the Atom feed from every page's head
#: and the footer names the tool version and content commit (adapters/mkdocs_publish.py).
THEME_PREFIX = "theme-original"
OVERRIDES = {
    # the Atom feed in every page's head; search by name: Material starts our worker
    # (glossary/assets/search-worker.js), which wraps its own
    "main.html": (
        "{% extends 'theme-original/main.html' %}"
        "{% block extrahead %}{{ super() }}<link rel=\"alternate\" type=\"application/atom+xml\" title=\"{{ config.site_name|e }}: what's new\" href=\"{{ 'feed.xml' | url }}\">{% endblock %}"
        "{% block config %}{% filter replace('assets/javascripts/workers/search.', 'assets/search-worker.js?material=search.', 1) %}{{ super() }}{% endfilter %}{% endblock %}"
    ),
    "partials/copyright.html": "{% filter replace('<div class=\"md-copyright\">', '<div class=\"md-copyright\">' ~ glossary_build_note, 1) %}{% include 'theme-original/partials/copyright.html' %}{% endfilter %}",
    "partials/source.html": "{% filter replace(' data-md-component=\"source\"', '') %}{% include 'theme-original/partials/source.html' %}{% endfilter %}",
    "partials/search.html": "{% filter replace('role=\"dialog\"', 'role=\"dialog\" aria-label=\"' ~ lang.t('search') ~ '\"', 1) %}{% include 'theme-original/partials/search.html' %}{% endfilter %}",
}


#: How rendering work is split with the worker of a build (:meth:`GlossaryPlugin._prerender`):
#: the share of term-page work this process keeps, and what one snippet (tabs, badge,
#: highlighted source) weighs against a character of body text. The worker's pages are
#: needed only when MkDocs builds them (after populating every page, _finish_deferred), and
#: this process also runs all of MkDocs' own page work, so it keeps less than half: at 0.3
#: the worker finished before its first page was built at 1,000 and 5,000 terms, and the
#: niced map and books still finished before this process (BENCHMARKS.md, ninth session).
PARENT_SHARE = 0.3
SNIPPET_WEIGHT = 6000


@dataclass
class Reused:
    """Page-cache entries a forked process used: names it found, and what it made."""

    taken: list[str] = field(default_factory=list)
    made: dict[str, Any] = field(default_factory=dict)

    def into(self, cache: Cache) -> None:
        """Mark them used in ``cache`` (of this process), so that its save keeps them."""
        for name in self.taken:
            cache.get(name)
        for name, value in self.made.items():
            cache.put(name, value)


@dataclass(frozen=True)
class Content:
    """A page's finished content: HTML, contents (None: MkDocs' own), and what was found wrong in it."""

    html: str
    toc: tuple[TocEntry, ...] | None
    diagnostics: tuple[Diagnostic, ...]

    def __reduce__(self) -> tuple[Callable[..., Content], tuple[bytes, tuple[TocEntry, ...] | None, tuple[Diagnostic, ...]]]:
        """Pickled (page cache, worker) with its HTML as UTF-8 bytes made for the occasion:
        pickle writes a str through the UTF-8 copy CPython then keeps inside the string for
        as long as it lives, a third more memory for each page until the build ends."""
        return _content, (self.html.encode("utf-8", "surrogatepass"), self.toc, self.diagnostics)


def _content(html: bytes, toc: tuple[TocEntry, ...] | None, diagnostics: tuple[Diagnostic, ...]) -> Content:
    return Content(html.decode("utf-8", "surrogatepass"), toc, diagnostics)


class GlossaryConfig(Config):
    root = config_options.Type(str, default="")
    fail_on_errors = config_options.Type(bool, default=False)
    #: Also render the PDF into the site (``glossary build --book`` sets it; so can mkdocs.yml).
    book = config_options.Type(bool, default=False)
    #: Read by `glossary check` straight from mkdocs.yml (glossary_tool/verify/reference.py).
    reference_gpus = config_options.Type(list, default=[])


class GlossaryPlugin(BasePlugin[GlossaryConfig]):
    loaded: Loaded | None = None
    #: Set by `glossary build` (adapters/mkdocs_build.py), which has just loaded the project to
    #: check it: on_config takes it instead of loading every file again.
    preloaded: Loaded | None = None

    def __init__(self) -> None:
        super().__init__()
        self.active: Incremental | None = None
        #: (command, dirty) of the last on_startup; a ``serve --dirty`` session's state, per site directory
        self.startup: tuple[str, bool] = ("build", False)
        self.sessions: dict[str, Incremental] = {}
        self.inputs: PageInputs | None = None
        self.downloads: list[tuple[str, str]] = []
        self._pending: dict[str, Rendered | None] = {}
        self._rendered: dict[str, Rendered | Content] = {}
        self._worker_srcs: frozenset[str] = frozenset()
        self._worker: Job | None = None
        #: Finished pages across builds (.cache/pages-*.pickle, see _open_page_cache), the
        #: digest of what generated pages are drawn from, the key of each term page of this
        #: build, and the pages found there.
        self._pages = Cache(None)
        self._site = ""
        self._page_keys: dict[str, str] = {}
        self._cached: dict[str, Content] = {}
        self._search_cuts: dict[str, tuple[str, Cut]] = {}
        #: Pages whose content another process makes, finished when MkDocs builds them (the
        #: page worker's share and the map: see _finish_deferred), and the build's files for
        #: rendering the map then.
        self._deferred: set[str] = set()
        self._files: Files | None = None
        self._built_pages: list[Page] = []
        self.link_graph: TermGraph | None = None

    def on_startup(self, *, command: str, dirty: bool) -> None:
        """MkDocs keeps a plugin that defines this one object per process, across `serve`
        rebuilds: a ``serve --dirty`` session's incremental state lives on it, keyed by the
        session's site directory (MkDocs makes a new one per ``serve``)."""
        self.startup = (command, dirty)
        self.sessions = {site: state for site, state in self.sessions.items() if Path(site).is_dir()}
        if command == "serve" and dirty:  # the plugin sees to what MkDocs' warning is about
            DirtyWarningFilter.install()

    def on_shutdown(self) -> None:
        """The serve (or build) is over: later builds in this process are plain ones."""
        self.startup = ("build", False)

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        self.active = self.sessions.get(config.site_dir)
        if self.active is None and self.startup == ("serve", True):
            self.active = self.sessions[config.site_dir] = Incremental(config.site_dir)
        self._pending = {}
        docs = Path(config.docs_dir)
        root = Path(self.config.root) if self.config.root else docs.parent
        preloaded, self.preloaded = self.preloaded, None
        if preloaded is not None and preloaded.project.root.resolve() == root.resolve():
            self.loaded = preloaded
        elif self.active is not None:  # serve: the record checks again only when what they read changed
            loaded = load_project(root, check_records=False)
            records = self.active.memoized("record checks", record_inputs(loaded), lambda: tuple(record_diagnostics(loaded.project, loaded.glossary)))
            self.loaded = dataclasses.replace(loaded, diagnostics=loaded.diagnostics + records)
        else:
            self.loaded = load_project(root)
        found = errors(self.loaded.diagnostics)
        for diagnostic in sorted(set(self.loaded.diagnostics)):
            # Errors are MkDocs warnings, so `mkdocs build --strict` fails on them too.
            (log.warning if diagnostic.severity is Severity.ERROR else log.info)(diagnostic.format())
        if found and self.config.fail_on_errors:
            raise PluginError(f"glossary has {len(found)} error(s); see `glossary check`")
        glossary = self.loaded.glossary
        self.publisher = Publisher(self.loaded, config)
        nav: list = [{"Home": pages.HOME_SRC}]
        for section in glossary.sections:
            # Material prints nav titles (and page titles taken from them) unescaped
            entries = [{html.escape(glossary.terms[s].display_title, quote=False): term_src(glossary.terms[s])} for s in section.terms]
            nav.append({html.escape(section.title, quote=False): [pages.section_src(section), *_nav_groups(entries)]})
        nav.append({"A-Z index": pages.AZ_SRC})
        nav.append({"Rosetta": pages.ROSETTA_SRC})
        nav.append({comparison_title(self.loaded.project.reference_gpus).split(":")[0]: COMPARE_SRC})
        nav.append({"Map": MAP_SRC})
        nav.append({WHATS_NEW_TITLE: WHATS_NEW_SRC})
        config.nav = nav
        self.link_graph = term_graph(glossary)
        return config

    def on_serve(self, server: LiveReloadServer, config: MkDocsConfig, builder: Callable[..., object]) -> LiveReloadServer:
        """Serving also rebuilds when a diagram or a snippet record changes (the docs folder,
        glossary/ with its toc.yml, and mkdocs.yml MkDocs watches itself)."""
        if self.loaded is not None:
            for folder in (self.loaded.project.diagrams_dir, self.loaded.project.records_dir):
                if folder.is_dir():
                    server.watch(str(folder))
        return server

    def on_env(self, env: jinja2.Environment, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        """Put our template overrides in front of the theme's (no custom_dir needed)."""
        assert env.loader is not None
        env.loader = jinja2.ChoiceLoader([jinja2.DictLoader(OVERRIDES), jinja2.PrefixLoader({THEME_PREFIX: env.loader}), env.loader])
        env.globals["glossary_build_note"] = self.publisher.note
        env.bytecode_cache = process_bytecode(env)  # MkDocs makes a new environment per build: keep the compiled templates
        return env

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        assert self.loaded is not None
        self._worker_srcs, self._worker = frozenset(), None
        self._pages, self._site, self._page_keys, self._cached = Cache(None), "", {}, {}
        self._deferred, self._files = set(), files
        self.map_job: Job | None = None
        glossary = self.loaded.glossary
        keep = {pages.HOME_SRC, *(pages.section_src(s) for s in glossary.sections), *(term_src(t) for t in glossary.terms.values())}
        for file in list(files):
            if file.src_uri.endswith(".md") and file.src_uri not in keep:
                files.remove(file)
            elif not file.src_uri.endswith(".md") and "/" not in file.src_uri and file.src_uri.endswith((".yml", ".yaml")):
                files.remove(file)
        self.publisher.files = files
        for src in (pages.AZ_SRC, pages.ROSETTA_SRC, COMPARE_SRC, MAP_SRC, WHATS_NEW_SRC, *(pages.section_src(s) for s in glossary.sections)):
            if files.get_file_from_path(src) is None:
                files.append(File.generated(config, src, content=""))
        if files.get_file_from_path(pages.HOME_SRC) is None:
            files.append(File.generated(config, pages.HOME_SRC, content=""))
        term_url = {t.slug: files.get_file_from_path(term_src(t)).url for t in glossary.terms.values() if files.get_file_from_path(term_src(t))}
        self.inputs = PageInputs(self.loaded, term_url, self.link_graph, self.active)
        files.append(File.generated(config, SEARCH_NAMES_SRC, content=names_json(glossary, lambda t: term_url.get(t.slug, ""))))
        self.term_urls = frozenset(term_url.values())  # links to these get preview cards (emit/previews.py)
        resolve = resolver(glossary)
        opening_of = None
        if self.active is None:  # a build: what the last one made from the same inputs is in .cache/
            self._open_page_cache()
            opening_of = self._through_cache("preview opening", lambda term: opening(term, glossary, resolve))
        else:  # serve: from the last rebuild when the term's inputs are the same
            inputs = self.inputs
            opening_of = lambda term: inputs.opening(term, lambda: opening(term, glossary, resolve))  # noqa: E731
        files.append(File.generated(config, PREVIEWS_SRC, content=previews_json(glossary, lambda t: term_url.get(t.slug, ""), resolve, opening_of)))
        if self.active is not None:  # the serve preview has no book: rebuilding it took seconds per edit
            self.downloads = []
            plan_files(files, self.active, config)
            return files
        # The book downloads linked from the home page: the EPUB always (about 2 s), the
        # PDF only for `glossary build --book` (it takes a minute).
        from glossary_tool.emit.book import BookError, epub_with_leftovers, make_book, pdf_bytes

        book = make_book(self.loaded, config.site_url or "/")
        self.downloads = [("EPUB", pages.EPUB_SRC)]
        # The EPUB, llms.txt and the map need nothing from page rendering: they are computed
        # beside it (glossary_tool/background.py), the map for its page (after the term
        # pages), the EPUB and llms.txt for on_post_build. Term pages need nothing from MkDocs
        # but their URL: the later part of them (in the order MkDocs populates pages) is
        # rendered by a worker while this process renders the first part (_prerender). The
        # map, EPUB and llms.txt, wanted last, yield the second core to the worker (nice).
        site_url, site_name = config.site_url or "/", config.site_name
        map_url = files.get_file_from_path(MAP_SRC).url

        site_dir = Path(config.site_dir)

        def books() -> tuple[bytes, list[Leftover], list[Diagnostic], Reused]:
            # In the child: what it takes from the page cache or adds to it goes back to
            # this process, which saves the cache. llms.txt and the Markdown copies are
            # written here (MkDocs writes no file of theirs): their text (12 MB at 1,000
            # terms) would otherwise be held twice in the build process at its peak.
            reused = Reused()
            memo = self._through_cache("book term", lambda term, make: make(), reused)
            epub, leftovers = epub_with_leftovers(replace(book, memo=memo))
            forget_tokens()  # the last rendering of bodies here: llms.txt rewrites their Markdown
            llms = self._llms(site_url, site_name)
            found = llms_leftovers(glossary, llms.files)
            llms.write(site_dir)
            return epub, leftovers, found, reused

        self._prerender(files)
        self._map_key = key("map page", map_url, self._site)
        self._map_text = self._pages.get(self._map_key)
        # Niced like the books: its page is the last MkDocs builds (its content waits until
        # then, _finish_deferred), so it need not take the second core from the page worker.
        self.map_job = None if self._map_text is not None else Job(lambda: map_markdown(glossary, _href_from(glossary, map_url, files)), nice=10)
        self.side_job = Job(books, nice=10)
        if self._worker is not None and self._worker.forked:  # those pages are the worker's (its own copy of their tokens)
            for src in self._worker_srcs:
                self._done_with(src)
        files.append(File.generated(config, pages.EPUB_SRC, content=b""))  # known to MkDocs' link validation; written in on_post_build
        if self.config.book:
            try:
                files.append(File.generated(config, pages.PDF_SRC, content=pdf_bytes(book, self.loaded.project.root)))
                self.downloads.append(("PDF", pages.PDF_SRC))
            except BookError as exc:
                log.warning(f"glossary: PDF not built: {exc}")
        return files

    def on_build_error(self, error: Exception) -> None:
        """A failed build collects nothing: stop the background jobs; the next serve rebuild is a full one."""
        if self.active is not None:
            self.active.failed()
        for job in (getattr(self, "side_job", None), getattr(self, "map_job", None), self._worker):
            if job is not None:
                job.cancel()

    def on_nav(self, nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
        """In `glossary serve`, settle which pages this rebuild renders (adapters/mkdocs_incremental.py)."""
        incremental = self.active
        if incremental is None:
            return nav
        assert self.loaded is not None
        doc_pages = [f.page for f in files.documentation_pages() if f.page is not None]
        fingerprints: dict[str, str] = {}
        frame = [Path(config.config_file_path).read_bytes() if config.config_file_path else b"", repr(config.nav), self.publisher.note]
        inputs = self.inputs
        assert inputs is not None
        generated = None
        for page in doc_pages:
            src = page.file.src_uri
            term = self._term_at(src)
            if term is not None:  # a term page by what it is made of, not by rendering it
                fingerprints[src] = digest(*self._term_inputs(term, page.url))
                continue
            # home, section and generated pages (a dozen, drawn from all terms): rendered when
            # what they show of the terms changed (not for a body edit), fingerprinted by their HTML
            source = page.file.content_bytes
            frame.append(digest(src, source))  # their titles are in every page's navigation
            generated = generated if generated is not None else inputs.generated(self.publisher, self.downloads)
            made_of = digest(generated, src, page.url, source)
            known = incremental.generated.get(src)
            if known is not None and known[0] == made_of:
                fingerprints[src] = known[1]
                continue
            self._pending[src] = rendered = self._page_html(src, page.url, files)
            fingerprints[src] = digest(source, rendered.html if rendered is not None else "", repr(rendered.toc) if rendered is not None else "")
            incremental.generated[src] = (made_of, fingerprints[src])
        self._built_pages = doc_pages
        rebuild = incremental.plan(digest(*frame), fingerprints)
        for page in doc_pages:
            if page.file.src_uri not in rebuild:
                incremental.skip(page)
                self._pending.pop(page.file.src_uri, None)
        log.info("glossary: rebuilding %d of %d pages", len(rebuild), len(doc_pages), extra={"glossary_rebuilt": tuple(sorted(rebuild)), "glossary_pages": tuple(fingerprints)})
        return nav

    @event_priority(-100)  # after Material's search has written its index
    def on_post_build(self, config: MkDocsConfig) -> None:
        """Write the EPUB, llms.txt, llms-full.txt and the Markdown copy of each term page (a
        build's side process wrote the last three: see on_files)."""
        site_dir = Path(config.site_dir)
        glossary = self.loaded.glossary
        memo = self.inputs.published if self.active is not None and self.inputs is not None else None
        published = self.publisher.write(site_dir, memo)  # feed.xml, terms.json, the feed in the sitemap
        if self.active is None:
            epub, epub_leftovers, llms_found, reused = self._side_results(self.side_job)  # it wrote llms.txt and the copies
            reused.into(self._pages)
            self._pages.save()
            write_bytes(site_dir / pages.EPUB_SRC, epub, durable=False)
            _report(output_diagnostics(glossary, epub_leftovers, "the EPUB"))
            _report(llms_found)
            LlmsFiles(sitemap_stubs(glossary)).write(site_dir)
            return
        llms = LlmsFiles({**self._llms(config.site_url or "/", config.site_name).files, **sitemap_stubs(glossary)})
        # The preview checks every page's Markdown copy (those whose text changed; the others
        # report what they reported before); llms-full.txt and the section files (all terms
        # again, in one document each) are left to `glossary build`: parsing them on each
        # rebuild cost 1-4 s of CPU at 1,000 terms.
        sections = {section_file(s.slug) for s in glossary.sections}
        checked = {name: text for name, text in llms.files.items() if name != "llms-full.txt" and name not in sections}
        _report(self.active.checked(checked, lambda changed: llms_leftovers(glossary, changed)))
        LlmsFiles(self.active.changed_outputs(site_dir, llms.files)).write(site_dir)
        self.active.replace_written(site_dir, set(llms.files) | published)
        self.active.finish(site_dir, [(p.file.src_uri, p.url) for p in self._built_pages])

    def _side_results(self, job: Job) -> Any:
        """What a side process computed (the map; the EPUB and llms.txt); its failure fails the build cleanly."""
        try:
            return job.result()
        except BackgroundError as exc:
            raise PluginError(f"glossary: building the map, EPUB and llms.txt failed: {exc}") from exc

    def _llms(self, site_url: str, site_name: str) -> LlmsFiles:
        assert self.loaded is not None
        project = self.loaded.project
        serving = self.active is not None and self.inputs is not None
        memo = self.inputs.markdown if serving else None
        site_memo = self.inputs.site_markdown if serving else None
        return render_llms(self.loaded.glossary, project.records_dir, project.root / OVERRIDES_DIR, site_url, site_name, self.loaded.diagrams, reference=project.reference_gpus, memo=memo, site_memo=site_memo)

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """Our pages are rendered by the core (markdown-it-py, the engine `check` validated);
        Python-Markdown gets an empty page and its HTML is replaced in on_page_content."""
        self._page_meta(page)
        src = page.file.src_uri
        if src in self._cached:
            self._rendered[src] = self._cached.pop(src)
            return ""
        if src in self._worker_srcs or (src == MAP_SRC and self.active is None and self._map_text is None):
            self._deferred.add(src)  # made in another process: finished when MkDocs builds the page
            return ""
        rendered = self._pending.pop(src) if src in self._pending else self._page_html(src, page.url, files)
        if rendered is None:
            return markdown
        self._rendered[src] = rendered
        return ""

    def on_page_content(self, html_text: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        src = page.file.src_uri
        if src in self._deferred:
            return ""
        found = self._rendered.pop(src, None)
        content = found if isinstance(found, Content) else self._content(src, page.url, files, found, html_text)
        self._done_with(src)
        html_text = self._settle(page, content)  # page.content too: for capture()
        incremental = self.active
        if incremental is not None:
            incremental.capture(page)
        return html_text

    def _content(self, src: str, url: str, files: Files, rendered: Rendered | None, html_text: str) -> Content:
        """A page's finished content from our rendering (None: MkDocs' ``html_text``): checked,
        with its additions, copy buttons, linked opcodes and preview marks. Needs the page's
        URL only, not MkDocs' Page, so a forked worker can make it (:meth:`_prerender`)."""
        assert self.loaded is not None
        glossary = self.loaded.glossary
        term = self._term_at(src)
        found: list[Diagnostic] = []
        toc = None
        if rendered is not None:
            html_text, toc = rendered.html, rendered.toc
            if term is not None:  # the contract, checked on what was produced (emit/leftovers.py)
                found = leftover_diagnostics(term, html_leftovers(html_text), "its page")
        html_text = html_text + self._page_additions(src)
        if term is not None:  # "Copy page as Markdown" / "View as Markdown"; PTX/SASS opcodes link to their terms
            html_text = with_copy_buttons(html_text, url, term_src(term))
            html_text = link_rendered_blocks(html_text, self.loaded.instructions, glossary, _href_from(glossary, url, files))
        return Content(mark_previewable(html_text, url, getattr(self, "term_urls", ())), toc, tuple(found))

    def _prerender(self, files: Files) -> None:
        """Take the term pages whose inputs are unchanged since the last build from ``.cache/``
        (see _open_page_cache) and start a worker on the later part of the rest (see on_files);
        single-core machines render all of the rest in order. The serve preview has its own
        memo (adapters/mkdocs_incremental.py)."""
        assert self.loaded is not None
        terms = []
        for f in files.documentation_pages():
            term = self._term_at(f.src_uri)
            if term is None:
                continue
            self._page_keys[f.src_uri] = name = key("term page", *self._term_inputs(term, f.url))
            content = self._pages.get(name)
            if content is not None:
                self._cached[f.src_uri] = content
            else:
                terms.append((f, term))
        log.info(f"glossary: {len(self._cached)} of {len(self._page_keys)} term pages unchanged since the last build (.cache/), {len(terms)} to render")
        if len(terms) < 2 or not can_fork():
            return
        # Balanced by what rendering costs: body text, and each snippet's tabs and badge.
        weights = list(accumulate(len(term.body) + SNIPPET_WEIGHT * len(term.snippets) for _, term in terms))
        cut = bisect_left(weights, weights[-1] * PARENT_SHARE) + 1
        # `glossary build` parsed the bodies on every core and kept here the streams of a
        # first run of them: render no more than that run here, the worker parses the rest
        held = next((i for i, (_, term) in enumerate(terms) if not holds_tokens(term.body)), len(terms))
        if 0 < held < cut:
            cut = held
        mine = [(f.src_uri, f.url) for f, _ in terms[cut:]]
        if not mine:
            return
        self._worker_srcs = frozenset(src for src, _ in mine)
        self._worker = Job(lambda: self._render_share(mine, files))

    def _render_share(self, mine: list[tuple[str, str]], files: Files) -> dict[str, Content]:
        """The worker's term pages (:meth:`_prerender`), each body's tokens dropped once its page is made."""
        out = {}
        for src, url in mine:
            out[src] = self._content(src, url, files, self._page_html(src, url, files), "")
            self._done_with(src)
        return out

    def _done_with(self, src: str) -> None:
        """A build renders a term's body once in each process: once the page at ``src`` is
        made, the body's token stream (kept since the loader parsed it) can go. At 5,000
        terms the streams were 300 MB of each process (BENCHMARKS.md, peak memory). The
        serve preview keeps them (an edit re-renders a few pages, their neighbours' not)."""
        term = self._term_at(src)
        if term is not None and self.active is None:
            forget_tokens([term.body])

    def _term_inputs(self, term: Term, url: str) -> tuple[str, ...]:
        """What a term's page at ``url`` is made of: the serve preview's fingerprint of it and
        the build's page-cache key are both taken from these."""
        assert self.inputs is not None
        return (self.inputs.page(term), self.inputs.extras(term, url), repr(self.publisher.dates(term)), url)

    def _open_page_cache(self) -> None:
        """The build's cache across builds (``.cache/pages-*.pickle``), keyed by the same input
        fingerprints the serve preview uses (emit/page_inputs.py, PageInputs): a
        term's page by what it is made of, the generated pages by what they are drawn from."""
        assert self.loaded is not None and self.inputs is not None
        self._pages = Cache(self.loaded.project.root / CACHE_DIR, kind="pages")
        self._site = self.inputs.generated(self.publisher, [])

    def _through_cache(self, kind: str, make: Callable[..., T], reused: Reused | None = None) -> Callable[..., T]:
        """``make`` through the page cache, keyed by ``kind`` and what the term's page is made
        of; ``reused`` collects what a forked process took or made, for this one to keep."""
        inputs = self.inputs
        assert inputs is not None

        def cached(term: Term, *args: Any) -> T:
            return self._get_or_make(key(kind, inputs.page(term)), lambda: make(term, *args), reused)

        return cached

    def _get_or_make(self, name: str, make: Callable[[], T], reused: Reused | None = None) -> T:
        """The page cache's entry ``name``, made and kept when it is missing; ``reused`` notes
        which of the two happened (a forked process's parent keeps both)."""
        found = self._pages.get(name)
        if found is None:
            found = make()
            self._pages.put(name, found)
            if reused is not None:
                reused.made[name] = found
        elif reused is not None:
            reused.taken.append(name)
        return found

    def _worker_results(self) -> dict[str, Content]:
        assert self._worker is not None
        try:
            return self._worker.result()
        except BackgroundError as exc:
            raise PluginError(f"glossary: rendering term pages in the second process failed: {exc}") from exc

    def _page_additions(self, src: str) -> str:
        """HTML appended to a page after rendering: a term's dates, citation and JSON-LD."""
        term = self._term_at(src)
        return self.publisher.term_html(term) if term is not None else ""

    def on_post_page(self, output: str, page: Page, config: MkDocsConfig) -> str:
        """Every page's head names its Markdown copy and llms.txt (emit/markdown_copy.py)."""
        assert self.loaded is not None
        return with_head_links(output, page.url, markdown_copy(self.loaded.glossary, page.file.src_uri))

    @event_priority(50)  # before Material's search plugin indexes the page
    def _cut_for_search(self, context: dict, *, page: Page, config: MkDocsConfig, nav: Navigation) -> dict:
        """Search reads the page without its search-excluded drawings and compiler output
        (emit/search_text.py): same index, a fraction of the parsing."""
        if page.file.src_uri in self._deferred:
            self._finish_deferred(page)
        original = page.content or ""
        cut = cut_excluded(original)
        if cut.pieces or cut.links:
            self._search_cuts[page.file.src_uri] = (original, cut)
            page.content = cut.html
        if self.active is not None:
            self.active.search_before(config, page)
        return context

    @event_priority(-50)  # after it
    def _restore_after_search(self, context: dict, *, page: Page, config: MkDocsConfig, nav: Navigation) -> dict:
        found = self._search_cuts.pop(page.file.src_uri, None)
        if found is not None:
            original, cut = found
            # Untouched by the indexer: the page's own string again, not an equal copy (the
            # page cache holds that one; a copy per page was a second site's worth of HTML).
            page.content = original if page.content is cut.html else cut.restore(page.content or "")
        if self.active is not None:
            self.active.search_after(config, page)
        return context

    on_page_context = CombinedEvent(_cut_for_search, _restore_after_search)

    def _finish_deferred(self, page: Page) -> None:
        """The content of a page made in another process: a term page of the page worker's
        share (_prerender), or the map, whose force layout a side process computes. MkDocs
        wants a page's HTML and contents only when it builds the page, after every page has
        been populated: waiting until then, this process populates the worker's pages at
        once instead of waiting for them, and the map's process runs niced instead of taking
        the second core from the page worker."""
        src = page.file.src_uri
        self._deferred.discard(src)
        assert self._files is not None
        if src in self._worker_srcs:
            content = self._worker_results()[src]
        else:
            content = self._content(src, page.url, self._files, self._page_html(src, page.url, self._files), "")
        self._settle(page, content)

    def _settle(self, page: Page, content: Content) -> str:
        """Give MkDocs' page its finished content and contents, report what checking it found,
        and keep a term page in the page cache; the page's HTML."""
        src = page.file.src_uri
        if src in self._page_keys:
            self._pages.put(self._page_keys[src], content)
        _report(list(content.diagnostics))
        if content.toc is not None:
            page.toc = get_toc([entry.as_dict() for entry in content.toc])
        page.content = content.html
        return content.html

    def _page_meta(self, page: Page) -> None:
        """What each page's front matter gains or loses before MkDocs renders it."""
        assert self.loaded is not None
        src = page.file.src_uri
        if isinstance(page.meta.get("title"), str):  # Material prints the front matter title unescaped (header, <title>)
            page.meta["title"] = html.escape(page.meta["title"], quote=False)
        if src in (pages.AZ_SRC, pages.ROSETTA_SRC, COMPARE_SRC, MAP_SRC, WHATS_NEW_SRC):
            page.edit_url = None
        if src == MAP_SRC:
            page.meta["hide"] = ["navigation", "toc"]  # the map wants the full width
        if src == WHATS_NEW_SRC:
            page.meta["search"] = {"exclude": True}  # its summaries would be a second hit for every recent term
        term = self._term_at(src)
        if term is not None:
            page.meta["description"] = html.escape(term.summary)  # Material puts it in content="..." as it is
            # Search ranks "tags" far above text (Material's search plugin; no tags plugin needed),
            # so a search for an abbreviation or alias ("SM", "VRAM") lists its term first.
            page.meta["tags"] = [html.escape(name) for name in (term.abbreviation, *term.aliases) if name]

    def _term_at(self, src: str) -> Term | None:
        assert self.loaded is not None
        term = self.loaded.glossary.terms.get(Path(src).stem)
        return term if term is not None and term_src(term) == src else None

    def _generated(self, src: str, url: str, options: RenderOptions, parts: list[str | Term]) -> Rendered:
        """A generated page (home, A-Z, Rosetta, ...) from its Markdown parts, through the page cache."""
        inputs = tuple(f"{part.path}\0{part.body}" if isinstance(part, Term) else part for part in parts)
        return self._memo(("generated page", src, url, *inputs), lambda: markdown_page(parts, options))

    def _memo(self, inputs: tuple[str, ...], make: Callable[[], T]) -> T:
        """``make()``, or in a build what an earlier build made from the same ``inputs`` and
        what the generated pages are drawn from (the serve preview keeps its own memo)."""
        if self.active is not None or not self._site:
            return make()
        return self._get_or_make(key(*inputs, self._site), make)

    def _page_html(self, src: str, url: str, files: Files) -> Rendered | None:
        """The HTML and contents of the page at ``src`` (``url``); None leaves the file to MkDocs."""
        assert self.loaded is not None
        glossary = self.loaded.glossary
        incremental = self.active
        project = self.loaded.project
        site_snippets = SiteSnippets(project.records_dir, project.reference_gpus)
        options = RenderOptions(glossary, RelativeLinker(src), site_snippets, href=_md_href(src, url, files))
        if src == pages.HOME_SRC:
            return self._generated(src, url, options, pages.home_parts(glossary, [(MAP_TITLE.lower(), MAP_SRC), *((f"the book as {label}", src) for label, src in self.downloads)]))
        if src == pages.AZ_SRC:
            return self._generated(src, url, options, [pages.az_markdown(glossary)])
        if src == pages.ROSETTA_SRC:
            return self._generated(src, url, options, [pages.rosetta_markdown(glossary)])
        if src == WHATS_NEW_SRC:
            return self._generated(src, url, options, [self.publisher.whats_new(url)])
        href = _href_from(glossary, url, files)
        if src == COMPARE_SRC:  # its table is raw HTML: links are the final URLs
            return self._generated(src, url, options, [comparison_markdown(glossary, project.records_dir, reference=project.reference_gpus, term_href=lambda term: href(term.slug) or "")])
        if src == MAP_SRC:
            if incremental is None:
                if self._map_text is None:  # drawn in a side process (its force layout takes a while)
                    self._map_text = self._side_results(self.map_job)
                    self._pages.put(self._map_key, self._map_text)
                return self._generated(src, url, options, [self._map_text])
            layout = incremental.memoized("map layout", layout_key(glossary, self.link_graph), lambda: layout_map(glossary))
            return self._generated(src, url, options, [incremental.memoized(src, map_key(glossary, self.link_graph, url), lambda: map_markdown(glossary, href, layout))])
        section = next((s for s in glossary.sections if src == pages.section_src(s)), None)
        if section is not None:

            def intro() -> Rendered:
                figures = diagrams_markdown(section.page, self.loaded.diagrams, glossary, href) if section.page is not None else ""
                return section_page(section, glossary, options, figures_html=figures)

            return self._memo(("section page", src, url, section.page.body if section.page is not None else ""), intro)
        term = self._term_at(src)
        if term is None:
            return None

        def extras() -> str:
            return term_extras_markdown(term, self.loaded.diagrams, glossary, href, self.link_graph)

        if incremental is not None:  # the drawings are most of the cost: redrawn only when what they show changed
            text = incremental.memoized(src, extras_key(term, glossary, self.link_graph, self.loaded.diagrams, url), extras)
        else:
            text = extras()
        widget = widget_html(term, glossary, self.loaded.project.records_dir)  # calculators and other pages to play with
        return term_page(term, glossary, options, extras_html=f"{widget}\n{text}" if widget else text)


def _report(diagnostics: list[Diagnostic]) -> None:
    """Errors found in outputs, as MkDocs warnings: `build --strict` fails on them."""
    for diagnostic in diagnostics:
        log.warning(diagnostic.format())


def llms_leftovers(glossary: Glossary, files: dict[str, str]) -> list[Diagnostic]:
    """Raw brackets in the Markdown copies (reported at their term) and llms-full.txt."""
    out: list[Diagnostic] = []
    for name, text in sorted(files.items()):
        found = markdown_leftovers(text)
        if not found:
            continue
        term = glossary.terms.get(Path(name).stem)
        if term is not None and term_src(term) == name:
            out += leftover_diagnostics(term, found, f"its Markdown copy {name}")
        else:
            out += output_diagnostics(glossary, found, name)
    return out


#: A section with more terms than this is listed in the sidebar in groups of NAV_GROUP_SIZE.
NAV_GROUP_LIMIT = 100
NAV_GROUP_SIZE = 50


def _nav_groups(entries: list[dict[str, str]]) -> list:
    """A long section's terms in consecutive groups, named by their first and last title.

    Every page's sidebar holds its own section's entries (navigation.prune drops the other
    sections'), so one flat list of 1,000 terms made each page O(terms) to render and a
    5,000-term build quadratic. Grouped, a page lists its group and the group names.
    The reading order, and so previous/next, stays the same.
    """
    if len(entries) <= NAV_GROUP_LIMIT:
        return entries
    groups = []
    for start in range(0, len(entries), NAV_GROUP_SIZE):
        chunk = entries[start : start + NAV_GROUP_SIZE]
        first, last = next(iter(chunk[0])), next(iter(chunk[-1]))
        groups.append({f"{first} – {last}": chunk})
    return groups


def _md_href(src: str, url: str, files: Files) -> Callable[[str], str]:
    """A link or image written relative to the source ``src`` (a ``.md`` page or any other
    file of the glossary folder) -> that page's or file's URL relative to the page ``url``.

    What Python-Markdown's link rewriting did for MkDocs: the page is one folder deeper
    than its source (``warp.md`` is ``warp/``), so ``../assets/x.svg`` as written would miss.
    Links with a scheme, site-absolute ones and those to no file are left as written
    (`check` reports the last two: emit/written_links.py).
    """
    base = posixpath.dirname(src)

    def href(link: str) -> str:
        path, hash_mark, fragment = link.partition("#")
        if not path or ":" in path.split("/", 1)[0] or path.startswith("/"):
            return link
        file = files.get_file_from_path(posixpath.normpath(posixpath.join(base, unquote(path))))
        if file is None:
            return link
        return get_relative_url(file.url, url) + (hash_mark + fragment if hash_mark else "")

    return href


def _href_from(glossary: Glossary, url: str, files: Files) -> Callable[[str], str | None]:
    def href(slug: str) -> str | None:
        term = glossary.terms.get(slug)
        file = files.get_file_from_path(term_src(term)) if term is not None else None
        return get_relative_url(file.url, url) if file is not None else None

    return href
