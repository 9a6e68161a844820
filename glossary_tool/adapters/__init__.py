"""Adapters to outside tools. Only this package imports MkDocs.

The commands reach the site generator through :func:`build` and :func:`serve`, which import
its adapter only when called: importing this package (the pipeline does, for the site
config's name) loads no MkDocs, so ``glossary check`` and ``verify`` run without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from glossary_tool.adapters.site_config import SITE_CONFIG

if TYPE_CHECKING:
    from pathlib import Path

    from glossary_tool.pipeline import Loaded


class BuildError(Exception):
    """The site generator refused the configuration or the build; the message says why."""


def build(loaded: Loaded, site_dir: Path, *, strict: bool, book: bool) -> None:
    """Build the site of ``loaded`` into ``site_dir`` (the plugin reuses the loaded project);
    raises :class:`BuildError`."""
    from glossary_tool.adapters.mkdocs_build import build_with_mkdocs

    build_with_mkdocs(loaded, site_dir, strict=strict, book=book)


def serve(config: Path, dev_addr: str) -> None:
    """Serve the site of the site config ``config`` with live reload until interrupted."""
    from glossary_tool.adapters.mkdocs_serve import serve as serve_with_mkdocs

    serve_with_mkdocs(config, dev_addr)


__all__ = ["SITE_CONFIG", "BuildError", "build", "serve"]
