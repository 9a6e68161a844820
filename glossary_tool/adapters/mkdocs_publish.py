"""The publishing parts (glossary_tool/publish/) wired to one MkDocs build.

The plugin makes one :class:`Publisher` per build in on_config; it knows the site's URL,
the git history and, from on_files, where each page lands. The plugin calls it to append
the term pages' fragments, render the What's new page and write feed.xml, terms.json and
the feed's sitemap entry after the build.
"""

from __future__ import annotations

import gzip
import logging
from collections.abc import Callable
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.utils import get_relative_url

from glossary_tool import __version__
from glossary_tool.atomic import write_bytes
from glossary_tool.emit.links import term_src
from glossary_tool.model import Term
from glossary_tool.pipeline import Loaded
from glossary_tool.publish.feed import FEED_XML, WHATS_NEW_SRC, Change, atom_feed, recent_changes, sitemap_with, whats_new_markdown
from glossary_tool.publish.history import FileDates, read_history, snippets_verified
from glossary_tool.publish.machine import TERMS_JSON, defined_term, jsonld_html, terms_document, terms_json
from glossary_tool.publish.parts import build_note_html, cite_html, dates_html

#: Its own logger: `glossary build` shows its INFO lines (the dates' fallback) and hides the plugin's.
log = logging.getLogger("mkdocs.plugins.glossary.publish")
SITEMAP = "sitemap.xml"


class Publisher:
    def __init__(self, loaded: Loaded, config: MkDocsConfig) -> None:
        self.loaded = loaded
        self.root = loaded.project.root
        self.site_url = config.site_url or ""
        self.site_name = config.site_name
        self.history = read_history(self.root)
        if self.history.fallback:
            log.info(f"glossary: page dates: {self.history.fallback}")
        self.note = build_note_html(__version__, self.history, config.repo_url)
        self.files: Files | None = None

    def dates(self, term: Term) -> FileDates:
        return self.history.dates(self._path(term))

    def _path(self, term: Term) -> str:
        """The term file relative to the repository root, as git names it."""
        path = Path(term.path)
        if not path.is_absolute():
            return path.as_posix()
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return term.path

    def page_url(self, src: str) -> str:
        """A page's URL relative to the site root ("device-software/warp/")."""
        file = self.files.get_file_from_path(src) if self.files is not None else None
        return file.url if file is not None else src

    def absolute(self, url: str) -> str:
        return (self.site_url.rstrip("/") + "/" + url) if self.site_url else url

    def term_html(self, term: Term) -> str:
        """Dates, "Cite this term" and the JSON-LD, appended to the term's page."""
        dates = self.dates(term)
        url = self.absolute(self.page_url(term_src(term)))
        verified = snippets_verified(self.loaded.project.records_dir, term) if term.snippets else None
        return (
            dates_html(dates, verified, len(term.snippets))
            + cite_html(term, url, self.site_name, dates)
            + jsonld_html(defined_term(term, url, self.site_name, self.site_url, dates))
        )

    def _changes(self) -> list[Change]:
        return recent_changes(self.loaded.glossary, self.history, self._path)

    def whats_new(self, page_url: str) -> str:
        return whats_new_markdown(
            self._changes(),
            lambda t: get_relative_url(self.page_url(term_src(t)), page_url),
            get_relative_url(FEED_XML, page_url),
            self.history.fallback,
        )

    def write(self, site_dir: Path, memo: Callable[[str, Callable[[], bytes]], bytes] | None = None) -> set[str]:
        """feed.xml, terms.json and the feed in the sitemap; returns what it wrote, site-relative.

        ``memo(name, compute)`` may answer feed.xml and terms.json from an earlier build whose
        inputs were the same (`glossary serve`)."""
        glossary = self.loaded.glossary

        def feed() -> bytes:
            return atom_feed(
                self._changes(),
                site_url=self.site_url,
                site_name=self.site_name,
                url_of=lambda t: self.absolute(self.page_url(term_src(t))),
                page_url=self.absolute(self.page_url(WHATS_NEW_SRC)),
                feed_url=self.absolute(FEED_XML),
            )

        def terms() -> bytes:
            return terms_json(terms_document(glossary, lambda t: self.absolute(self.page_url(term_src(t))), self.site_name, self.site_url, self.dates))

        for name, compute in ((FEED_XML, feed), (TERMS_JSON, terms)):
            write_bytes(site_dir / name, compute() if memo is None else memo(name, compute), durable=False)
        sitemap = site_dir / SITEMAP
        if sitemap.is_file():
            data = sitemap_with(sitemap.read_bytes(), [self.absolute(FEED_XML)])
            write_bytes(sitemap, data, durable=False)
            packed = site_dir / f"{SITEMAP}.gz"
            if packed.is_file():
                mtime = int.from_bytes(packed.read_bytes()[4:8], "little")  # MkDocs' timestamp, kept
                write_bytes(packed, gzip.compress(data, mtime=mtime), durable=False)
        return {FEED_XML, TERMS_JSON}
