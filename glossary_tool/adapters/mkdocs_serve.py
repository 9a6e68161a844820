"""`glossary serve`: MkDocs' live-reload server driving incremental rebuilds.

This is ``mkdocs serve`` with one difference: every rebuild after the first is a ``dirty``
MkDocs build in which the glossary plugin picks the pages to render
(adapters/mkdocs_incremental.py), so editing one term of 500 rebuilds its page and the
pages that show it (about 20), not all 500 (BENCHMARKS.md, Scale).
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.livereload import LiveReloadServer

from glossary_tool.adapters.mkdocs_incremental import Incremental
from glossary_tool.adapters.mkdocs_plugin import GlossaryPlugin


class _NoDirtyWarning(logging.Filter):
    """MkDocs warns on every dirty build that navigation may be stale; here the plugin sees to it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "'dirty' build" not in record.getMessage()


class Preview:
    """The site `glossary serve` shows, in its own scratch directory."""

    def __init__(self, mkdocs_yml: Path, dev_addr: str | None = None, site_dir: str | None = None) -> None:
        self.mkdocs_yml = mkdocs_yml
        self.dev_addr = dev_addr
        self.site_dir = site_dir or tempfile.mkdtemp(prefix="glossary-serve-")
        self.first: MkDocsConfig | None = self.load()
        # dirty=False: Material's search keeps no index of its own between builds; the
        # glossary plugin merges it page by page
        self.first.plugins.on_startup(command="serve", dirty=False)
        self.incremental = Incremental(self.site_dir)
        host, port = self.first.dev_addr
        mount = urlsplit(self.first.site_url or "/").path or "/"
        self.host, self.port, self.mount = host, port, mount
        shown = f"[{host}]" if ":" in host else host
        self.url = f"http://{shown}:{port}{mount}"

    def load(self) -> MkDocsConfig:
        extra = {"dev_addr": self.dev_addr} if self.dev_addr else {}
        return load_config(config_file=str(self.mkdocs_yml), site_dir=self.site_dir, **extra)

    def build(self) -> None:
        """The first call builds everything; later ones only what changed."""
        config, self.first = (self.first, None) if self.first is not None else (self.load(), None)
        config.site_url = self.url
        plugin = config.plugins.get("glossary")
        if not isinstance(plugin, GlossaryPlugin):
            raise SystemExit(f"{self.mkdocs_yml}: error: the glossary plugin is not enabled under plugins:")
        plugin.incremental = self.incremental  # MkDocs keeps one plugin object per process
        quiet = _NoDirtyWarning()
        logging.getLogger("mkdocs.commands.build").addFilter(quiet)
        try:
            build(config, serve_url=self.url, dirty=True)
        finally:
            logging.getLogger("mkdocs.commands.build").removeFilter(quiet)

    def close(self) -> None:
        shutil.rmtree(self.site_dir, ignore_errors=True)


def serve(mkdocs_yml: Path, dev_addr: str, watch: list[str]) -> None:
    preview = Preview(mkdocs_yml, dev_addr)
    config = preview.load()
    server = LiveReloadServer(builder=preview.build, host=preview.host, port=preview.port, root=preview.site_dir, mount_path=preview.mount)

    def error_page(code: int) -> bytes | None:
        page = Path(preview.site_dir) / f"{code}.html"
        return page.read_bytes() if code in (404, 500) and page.is_file() else None

    server.error_handler = error_page
    try:
        preview.build()
        server.watch(config.docs_dir)
        if config.config_file_path:
            server.watch(config.config_file_path)
        server = config.plugins.on_serve(server, config=config, builder=preview.build)
        for item in [*config.watch, *watch]:
            server.watch(item)
        try:
            server.serve()
        finally:
            server.shutdown()
    finally:
        config.plugins.on_shutdown()
        preview.close()
