"""``glossary check --changed REV``: only what a branch touched, plus the terms linking to it.

The whole glossary is still loaded and linked (a cross-reference can break because its
target changed), but diagnostics are kept only for changed files and their in-neighbours,
so a pre-commit hook shows the contributor what their change affects.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from glossary_tool.diagnostics import Diagnostic
from glossary_tool.pipeline import Loaded


def changed_files(root: Path, rev: str) -> set[str] | None:
    """Paths (relative to the repo) changed since ``rev``, plus untracked ones; None if git fails."""
    try:
        diff = subprocess.run(["git", "-C", str(root), "diff", "--name-only", rev, "--"], capture_output=True, text=True, timeout=60)
        untracked = subprocess.run(["git", "-C", str(root), "ls-files", "--others", "--exclude-standard"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if diff.returncode != 0:
        return None
    return {line.strip() for line in (diff.stdout + untracked.stdout).splitlines() if line.strip()}


def restrict_to_changed(loaded: Loaded, diagnostics: list[Diagnostic], rev: str) -> list[Diagnostic]:
    files = changed_files(loaded.project.root, rev)
    if files is None:
        return diagnostics  # no git history to compare with: check everything
    glossary = loaded.glossary
    by_path = {t.path: t.slug for t in glossary.terms.values()}
    changed = {by_path[p] for p in files if p in by_path}
    for path in files:  # a changed record makes its term "changed"
        parts = Path(path).parts
        if len(parts) >= 3 and parts[0] == "snippets" and parts[2] in glossary.terms:
            changed.add(parts[2])
    affected = set(changed)
    for slug in changed:
        affected.update(glossary.backlinks.get(slug, ()))
    keep_paths = {glossary.terms[s].path for s in affected} | {p for p in files if not p.endswith(".md") or p not in by_path}
    return [d for d in diagnostics if d.path in keep_paths]
