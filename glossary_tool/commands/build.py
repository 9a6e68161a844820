"""``glossary build`` and ``glossary serve``: drive the site generator through the adapter.

The site is built into a staging directory and swapped in only when the build succeeds,
so a failed or interrupted build leaves the previous ``site/`` untouched.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

from glossary_tool import adapters
from glossary_tool.atomic import replace_directory
from glossary_tool.diagnostics import errors, render
from glossary_tool.pipeline import Project, load_project, parse_processes


def build_site(root: Path, out: Path | None, *, strict: bool = False, book: bool = False) -> int:
    started = time.monotonic()
    # parsed on every core; this process keeps the token streams of the first run of term
    # pages, which the plugin renders here (the rest its page worker parses again)
    loaded = load_project(root, processes=parse_processes(), keep_tokens=True)
    found = errors(loaded.diagnostics)
    if found and strict:  # without --strict the plugin reports them once, as the generator's warnings
        print(render(found), file=sys.stderr)
        print(f"glossary build --strict: {len(found)} error(s); site not built", file=sys.stderr)
        return 1
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s - %(message)s")
    config = loaded.project.site_config
    if not config.exists():
        print(f"{config}: error: {config.name} not found", file=sys.stderr)
        return 1
    target = (out or root / "site").resolve()
    try:
        with replace_directory(target) as staging:
            adapters.build(loaded, staging, strict=strict, book=book)
            if book:
                from glossary_tool.emit.book import export_books

                for path in export_books(staging, root / "dist"):
                    print(f"glossary build: {path} ({path.stat().st_size:,} bytes)")
    except adapters.BuildError as exc:
        print(f"glossary build: {exc}; previous site left unchanged", file=sys.stderr)
        return 1
    print(f"glossary build: {len(loaded.glossary.terms)} terms -> {target} in {time.monotonic() - started:.1f} s; open {target / 'index.html'}")
    return 0


def serve_site(root: Path, dev_addr: str) -> int:
    """Serve a live preview; each edit rebuilds only the pages it changes."""
    from urllib.parse import urlsplit

    import yaml

    config = Project(root).site_config
    if not config.is_file():
        print(f"{config}: error: {config.name} not found", file=sys.stderr)
        return 1
    try:
        site_url = (yaml.safe_load(config.read_text(encoding="utf-8")) or {}).get("site_url") or "/"
    except (OSError, yaml.YAMLError):
        site_url = "/"
    path = urlsplit(site_url).path or "/"
    logging.basicConfig(level=logging.INFO, format="%(levelname)s - %(message)s")
    print(f"glossary serve: http://{dev_addr}{path} (edit a term: its page and the pages showing it rebuild)")
    try:
        adapters.serve(config, dev_addr)  # the plugin watches snippets/ and diagrams/ (on_serve)
    except KeyboardInterrupt:
        return 0
    except OSError as exc:  # e.g. the port is taken
        print(f"glossary serve: cannot serve on {dev_addr}: {exc.strerror or exc}; try --dev-addr 127.0.0.1:8001", file=sys.stderr)
        return 1
    return 0
