"""`glossary serve`: MkDocs' own ``serve`` command, as ``mkdocs serve --dirty`` runs it.

Nothing of MkDocs' server loop is copied here. A ``dirty`` serve build renders only the pages
whose file says it was modified; the glossary plugin decides which those are from the
glossary itself (adapters/mkdocs_incremental.py), so editing one term of 1,000 rebuilds its
page and the pages that show it, and the site holds the bytes a clean build would write
(``tests/test_serve.py``). ``mkdocs serve --dirty`` in the repository does the same; a plain
``mkdocs serve`` (MkDocs empties the site before each build) renders every page.
"""

from __future__ import annotations

from pathlib import Path


def serve(mkdocs_yml: Path, dev_addr: str, watch: list[str] | None = None) -> None:
    """Serve with live reload until interrupted; the plugin's on_serve adds what to watch
    beyond the docs folder and mkdocs.yml (snippet records, diagrams)."""
    from mkdocs.commands.serve import serve as mkdocs_serve

    mkdocs_serve(config_file=str(mkdocs_yml), build_type="dirty", watch=list(watch or []), dev_addr=dev_addr)
