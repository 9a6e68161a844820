"""Drive MkDocs for `glossary build`: the one place a build talks to MkDocs' API.

Options reach the plugin through its config (``book``) and the project loaded by the
command is handed to the plugin object itself (``preloaded``), never through module
globals or environment variables.
"""

from __future__ import annotations

import logging
from pathlib import Path

from glossary_tool.adapters import BuildError
from glossary_tool.pipeline import Loaded


def build_with_mkdocs(loaded: Loaded, site_dir: Path, *, strict: bool, book: bool) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    logging.getLogger("mkdocs.plugins.glossary.publish").setLevel(logging.INFO)  # says why page dates are missing
    try:
        config = load_config(str(loaded.project.site_config), site_dir=str(site_dir), strict=strict)
        plugin = config.plugins.get("glossary")
        if plugin is not None:
            plugin.config["book"] = plugin.config["book"] or book
            plugin.preloaded = loaded  # type: ignore[attr-defined]
        try:
            build(config)
        finally:
            config.plugins.on_shutdown()
    except MkDocsException as exc:
        raise BuildError(str(exc)) from exc
