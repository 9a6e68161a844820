"""``glossary build`` and ``glossary serve``: drive MkDocs with the glossary plugin.

The site is built into a staging directory and swapped in only when the build succeeds,
so a failed or interrupted build leaves the previous ``site/`` untouched.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

from glossary_tool.atomic import replace_directory
from glossary_tool.diagnostics import errors, render
from glossary_tool.pipeline import load_project


def build_site(root: Path, out: Path | None, *, strict: bool = False, book: bool = False) -> int:
    started = time.monotonic()
    loaded = load_project(root)
    found = errors(loaded.diagnostics)
    if found and strict:  # without --strict the plugin reports them once, as MkDocs warnings
        print(render(found), file=sys.stderr)
        print(f"glossary build --strict: {len(found)} error(s); site not built", file=sys.stderr)
        return 1
    from glossary_tool.adapters.mkdocs_build import BuildError, build_with_mkdocs

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s - %(message)s")
    if not loaded.project.mkdocs_yml.exists():
        print(f"{loaded.project.mkdocs_yml}: error: mkdocs.yml not found", file=sys.stderr)
        return 1
    target = (out or root / "site").resolve()
    try:
        with replace_directory(target) as staging:
            build_with_mkdocs(loaded, staging, strict=strict, book=book)
            if book:
                from glossary_tool.emit.book import export_books

                for path in export_books(staging, root / "dist"):
                    print(f"glossary build: {path} ({path.stat().st_size:,} bytes)")
    except BuildError as exc:
        print(f"glossary build: {exc}; previous site left unchanged", file=sys.stderr)
        return 1
    print(f"glossary build: {len(loaded.glossary.terms)} terms -> {target} in {time.monotonic() - started:.1f} s; open {target / 'index.html'}")
    return 0


def serve_site(root: Path, dev_addr: str) -> int:
    """Serve a live preview; each edit rebuilds only the pages it changes."""
    from urllib.parse import urlsplit

    import yaml

    from glossary_tool.adapters.mkdocs_serve import serve

    mkdocs_yml = root / "mkdocs.yml"
    if not mkdocs_yml.is_file():
        print(f"{mkdocs_yml}: error: mkdocs.yml not found", file=sys.stderr)
        return 1
    try:
        site_url = (yaml.safe_load(mkdocs_yml.read_text(encoding="utf-8")) or {}).get("site_url") or "/"
    except (OSError, yaml.YAMLError):
        site_url = "/"
    path = urlsplit(site_url).path or "/"
    logging.basicConfig(level=logging.INFO, format="%(levelname)s - %(message)s")
    print(f"glossary serve: http://{dev_addr}{path} (edit a term: its page and the pages showing it rebuild)")
    try:
        serve(mkdocs_yml, dev_addr)  # the plugin watches snippets/ and diagrams/ (on_serve)
    except KeyboardInterrupt:
        return 0
    except OSError as exc:  # e.g. the port is taken
        print(f"glossary serve: cannot serve on {dev_addr}: {exc.strerror or exc}; try --dev-addr 127.0.0.1:8001", file=sys.stderr)
        return 1
    return 0
