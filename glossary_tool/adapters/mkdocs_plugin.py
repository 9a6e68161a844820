"""The MkDocs plugin ``glossary``: a thin mapping of MkDocs events onto the core.

on_config loads and links the glossary and sets the navigation from the reading order;
on_files adds the generated pages; on_page_markdown swaps each page's Markdown for the
rendered one. Nothing else in the package imports MkDocs, so a successor that reads the
same mkdocs.yml (Zensical) needs only a new adapter.
"""

from __future__ import annotations

import html
import logging
import os
from collections.abc import Callable
from pathlib import Path

import jinja2
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.livereload import LiveReloadServer
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from glossary_tool.diagnostics import Severity
from glossary_tool.draw.graph import MAP_SRC, term_graph
from glossary_tool.draw.html import MAP_TITLE, diagrams_markdown, map_markdown, term_extras_markdown
from glossary_tool.emit import pages
from glossary_tool.emit.links import RelativeLinker, term_src
from glossary_tool.emit.markdown import term_markdown
from glossary_tool.emit.snippets import SiteSnippets
from glossary_tool.model import Glossary
from glossary_tool.pipeline import Loaded, load_project

log = logging.getLogger("mkdocs.plugins.glossary")
#: Set by `glossary build --book`: also render the PDF into the site and dist/.
BOOK_ENV = "GLOSSARY_BOOK"

#: Small edits to two of Material's partials, applied to the theme's own template (so they
#: follow Material upgrades): the repository link loses ``data-md-component="source"``, whose
#: script calls api.github.com for stars and forks on a first visit (the site must send no
#: request off its own host), and the search dialog gets the accessible name axe-core asks for.
#: tests/test_browser.py checks both.
THEME_PREFIX = "theme-original"
OVERRIDES = {
    "partials/source.html": "{% filter replace(' data-md-component=\"source\"', '') %}{% include 'theme-original/partials/source.html' %}{% endfilter %}",
    "partials/search.html": "{% filter replace('role=\"dialog\"', 'role=\"dialog\" aria-label=\"' ~ lang.t('search') ~ '\"', 1) %}{% include 'theme-original/partials/search.html' %}{% endfilter %}",
}


_handed_over: Loaded | None = None


def hand_over(loaded: Loaded | None) -> None:
    """``glossary build`` has just loaded the project to check it: the next on_config of the
    same root (in this process) takes that result instead of loading every file again."""
    global _handed_over
    _handed_over = loaded


class GlossaryConfig(Config):
    root = config_options.Type(str, default="")
    fail_on_errors = config_options.Type(bool, default=False)


class GlossaryPlugin(BasePlugin[GlossaryConfig]):
    loaded: Loaded | None = None

    def on_config(self, config: MkDocsConfig) -> MkDocsConfig:
        docs = Path(config.docs_dir)
        root = Path(self.config.root) if self.config.root else docs.parent
        global _handed_over
        if _handed_over is not None and _handed_over.project.root.resolve() == root.resolve():
            self.loaded, _handed_over = _handed_over, None
        else:
            self.loaded = load_project(root)
        errors = [d for d in self.loaded.diagnostics if d.severity is Severity.ERROR]
        for diagnostic in sorted(set(self.loaded.diagnostics)):
            # Errors are MkDocs warnings, so `mkdocs build --strict` fails on them too.
            (log.warning if diagnostic.severity is Severity.ERROR else log.info)(diagnostic.format())
        if errors and self.config.fail_on_errors:
            raise PluginError(f"glossary has {len(errors)} error(s); see `glossary check`")
        glossary = self.loaded.glossary
        nav: list = [{"Home": pages.HOME_SRC}]
        for section in glossary.sections:
            # Material prints nav titles (and page titles taken from them) unescaped
            items = [pages.section_src(section)] + [{html.escape(glossary.terms[s].display_title, quote=False): term_src(glossary.terms[s])} for s in section.terms]
            nav.append({html.escape(section.title, quote=False): items})
        nav.append({"A-Z index": pages.AZ_SRC})
        nav.append({"Rosetta": pages.ROSETTA_SRC})
        nav.append({"Map": MAP_SRC})
        config.nav = nav
        self.link_graph = term_graph(glossary)
        return config

    def on_serve(self, server: LiveReloadServer, config: MkDocsConfig, builder: Callable[..., object]) -> LiveReloadServer:
        """`glossary serve` also rebuilds when a diagram file changes."""
        if self.loaded is not None and self.loaded.project.diagrams_dir.is_dir():
            server.watch(str(self.loaded.project.diagrams_dir))
        return server

    def on_env(self, env: jinja2.Environment, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        """Put our template overrides in front of the theme's (no custom_dir needed)."""
        assert env.loader is not None
        env.loader = jinja2.ChoiceLoader([jinja2.DictLoader(OVERRIDES), jinja2.PrefixLoader({THEME_PREFIX: env.loader}), env.loader])
        return env

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        assert self.loaded is not None
        glossary = self.loaded.glossary
        keep = {pages.HOME_SRC, *(pages.section_src(s) for s in glossary.sections), *(term_src(t) for t in glossary.terms.values())}
        for file in list(files):
            if file.src_uri.endswith(".md") and file.src_uri not in keep:
                files.remove(file)
            elif not file.src_uri.endswith(".md") and "/" not in file.src_uri and file.src_uri.endswith((".yml", ".yaml")):
                files.remove(file)
        for src in (pages.AZ_SRC, pages.ROSETTA_SRC, MAP_SRC, *(pages.section_src(s) for s in glossary.sections)):
            if files.get_file_from_path(src) is None:
                files.append(File.generated(config, src, content=""))
        if files.get_file_from_path(pages.HOME_SRC) is None:
            files.append(File.generated(config, pages.HOME_SRC, content=""))
        # The book downloads linked from the home page: the EPUB always (about 2 s), the
        # PDF only for `glossary build --book` (it takes a minute).
        from glossary_tool.emit.book import BookError, epub_bytes, make_book, pdf_bytes

        book = make_book(self.loaded, config.site_url or "/")
        self.downloads = [("EPUB", pages.EPUB_SRC)]
        files.append(File.generated(config, pages.EPUB_SRC, content=epub_bytes(book)))
        if os.environ.get(BOOK_ENV) == "1":
            try:
                files.append(File.generated(config, pages.PDF_SRC, content=pdf_bytes(book, self.loaded.project.root)))
                self.downloads.append(("PDF", pages.PDF_SRC))
            except BookError as exc:
                log.warning(f"glossary: PDF not built: {exc}")
        return files

    def on_post_build(self, config: MkDocsConfig) -> None:
        """Write llms.txt, llms-full.txt and the Markdown copy of each term page."""
        assert self.loaded is not None
        from glossary_tool.emit.llms import render_llms

        project = self.loaded.project
        site_url = config.site_url or "/"
        templates = project.root / "llms_txt"
        if not templates.is_dir():  # a glossary without its own templates uses the tool's
            templates = Path(__file__).resolve().parents[2] / "llms_txt"
        render_llms(self.loaded.glossary, project.records_dir, templates, site_url, config.site_name, self.loaded.diagrams).write(Path(config.site_dir))

    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        assert self.loaded is not None
        glossary = self.loaded.glossary
        src = page.file.src_uri
        if isinstance(page.meta.get("title"), str):  # Material prints the front matter title unescaped (header, <title>)
            page.meta["title"] = html.escape(page.meta["title"], quote=False)
        if src == pages.HOME_SRC:
            return pages.home_markdown(glossary, [(MAP_TITLE.lower(), MAP_SRC), *((f"the book as {label}", src) for label, src in getattr(self, "downloads", []))])
        if src == pages.AZ_SRC:
            page.edit_url = None
            return pages.az_markdown(glossary)
        if src == pages.ROSETTA_SRC:
            page.edit_url = None
            return pages.rosetta_markdown(glossary)
        href = _href_for(glossary, page, files)
        if src == MAP_SRC:
            page.edit_url = None
            page.meta["hide"] = ["navigation", "toc"]  # the map wants the full width
            return map_markdown(glossary, href)
        for section in glossary.sections:
            if src == pages.section_src(section):
                figures = diagrams_markdown(section.page, self.loaded.diagrams, glossary, href) if section.page is not None else ""
                return pages.section_markdown(section, glossary) + (f"\n{figures}\n" if figures else "")
        slug = Path(src).stem
        term = glossary.terms.get(slug)
        if term is None or term_src(term) != src:
            return markdown
        page.meta["description"] = html.escape(term.summary)  # Material puts it in content="..." as it is
        # Search ranks "tags" far above text (Material's search plugin; no tags plugin needed),
        # so a search for an abbreviation or alias ("SM", "VRAM") lists its term first.
        page.meta["tags"] = [html.escape(name) for name in (term.abbreviation, *term.aliases) if name]
        extras = term_extras_markdown(term, self.loaded.diagrams, glossary, href, getattr(self, "link_graph", None))
        return term_markdown(term, glossary, RelativeLinker(src), SiteSnippets(self.loaded.project.records_dir), extra_after_body=extras)


def _href_for(glossary: Glossary, page: Page, files: Files) -> Callable[[str], str | None]:
    """Term slug -> URL relative to ``page``: raw HTML (inline SVG) gets no link rewriting from MkDocs."""

    def href(slug: str) -> str | None:
        term = glossary.terms.get(slug)
        file = files.get_file_from_path(term_src(term)) if term is not None else None
        return get_relative_url(file.url, page.url) if file is not None else None

    return href
