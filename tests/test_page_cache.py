"""A repeated `glossary build` takes unchanged pages from ``.cache/`` (keyed by the input
fingerprints of emit/page_inputs.py's PageInputs) and still writes, after any kind of edit, the very bytes a build without the cache writes.

Each step edits a synthetic glossary (the edits of tests/test_serve.py, plus a renamed
heading that another term's anchor points at), builds with the cache of the previous
build (as `glossary build` runs, with its forked worker where there is a second core), then
builds the same sources with no cache in one process (no fork: the reference, and half the
CPU of a forked build of 20 terms), and compares the two sites file by file.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.generate import generate
from glossary_tool.commands.build import build_site
from glossary_tool.load.cache import CACHE_DIR
from tests.conftest import with_site_config
from tests.test_serve import add_link, edit, redraw, rename, rerun, term_file, tree

N = 20
REPO = Path(__file__).resolve().parent.parent


def anchored(root: Path) -> None:
    """term-00005 links a heading of term-00006, and then that heading is renamed: the
    linking page's anchor changes although its own file did not."""
    edit(term_file(root, "term-00005"), "\n## Part\n", "\nSee [[term-00006#part]].\n\n## Part\n")


def rename_heading(root: Path) -> None:
    path = term_file(root, "term-00006")
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\n## Part\n", "\n## Renamed part {#part}\n", 1) if "{#" in text else text.replace("\n## Part\n", "\n## Portion\n", 1), encoding="utf-8")


# (step, edit, term pages rendered: a number; "some": more than the edited term, fewer than
# all; None: not counted)
STEPS = [
    ("nothing changed", lambda root: None, 0),
    ("a sentence added to one term", lambda root: edit(term_file(root, "term-00001"), "\n## Part\n", "\nOne more sentence.\n\n## Part\n"), 1),
    ("a summary edited", lambda root: edit(term_file(root, "term-00002"), "summary: Synthetic term number 2 ", "summary: Edited term number 2 "), "some"),
    ("a cross-reference added", add_link, None),  # in 20 densely linked terms, every drawing may show it
    ("a heading another term links to", anchored, None),
    ("that heading renamed", rename_heading, "some"),
    ("a snippet record re-run", rerun, 1),
    ("a diagram redrawn", redraw, 1),  # the one term that shows it
    ("a title changed", rename, None),
]

_COUNTS = re.compile(r"glossary: (\d+) of (\d+) term pages unchanged")


def _build(root: Path, out: Path, caplog: pytest.LogCaptureFixture) -> int:
    """Build ``root`` into ``out``; the number of term pages rendered (not from the cache)."""
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.glossary"):
        assert build_site(root, out) == 0
    (found,) = [m for m in (_COUNTS.search(r.getMessage()) for r in caplog.records) if m]
    return int(found.group(2)) - int(found.group(1))


def test_a_cached_build_writes_what_a_clean_build_writes(tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    root = with_site_config(generate(tmp_path / "repo", N))
    assert _build(root, tmp_path / "first", caplog) == N, "a first build renders every term page"
    assert list((root / CACHE_DIR).glob("pages-*.pickle")), "and keeps them"
    for step, change, rendered in STEPS:
        change(root)
        count = _build(root, tmp_path / "warm", caplog)
        if rendered is not None:
            assert (1 < count < N) if rendered == "some" else count == rendered, f"{step}: {count} pages rendered"
        kept = root / f"{CACHE_DIR}-kept"
        shutil.move(root / CACHE_DIR, kept)
        try:
            with monkeypatch.context() as inline:
                inline.setenv("GLOSSARY_NO_FORK", "1")
                assert _build(root, tmp_path / "clean", caplog) == N
        finally:
            shutil.rmtree(root / CACHE_DIR, ignore_errors=True)
            shutil.move(kept, root / CACHE_DIR)
        got, want = tree(tmp_path / "warm"), tree(tmp_path / "clean")
        assert sorted(got) == sorted(want), f"{step}: the same files"
        assert not [name for name in want if got[name] != want[name]], f"{step}: files differ from a build without the cache"


def test_the_forked_worker_and_the_cache_give_the_bytes_of_a_one_process_build(tmp_path: Path) -> None:
    """As `glossary build` runs (a worker renders part of the pages on the second core when
    there is one), cold and then warm, against one process with no cache and no fork."""
    root = with_site_config(generate(tmp_path / "repo", N))
    command = [sys.executable, "-m", "glossary_tool", "--root", str(root), "build", "--out"]
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "SOURCE_DATE_EPOCH": "1700000000"}
    for out in ("cold", "warm"):
        subprocess.run([*command, str(tmp_path / out)], check=True, env=env, capture_output=True)
    shutil.rmtree(root / CACHE_DIR)
    subprocess.run([*command, str(tmp_path / "inline")], check=True, env={**env, "GLOSSARY_NO_FORK": "1"}, capture_output=True)
    inline = tree(tmp_path / "inline")
    for out in ("cold", "warm"):
        got = tree(tmp_path / out)
        assert sorted(got) == sorted(inline) and not [name for name in inline if got[name] != inline[name]], out


#: Run in a child (a forked worker needs a process with one thread): records, in order, each
#: page MkDocs populates and builds and each time this process asks for the page worker's
#: or the map process's result, then prints the record as JSON.
_ORDER_PROBE = """
import json, sys
import mkdocs.commands.build as mb
from glossary_tool.adapters import mkdocs_plugin as mp
from glossary_tool import background
events = []
def wrap(owner, name, label):
    real = getattr(owner, name)
    def recorded(*args, **kwargs):
        events.append(label)
        return real(*args, **kwargs)
    setattr(owner, name, recorded)
wrap(mb, "_populate_page", "populate")
wrap(mb, "_build_page", "build")
wrap(background.Job, "result", "result")
from glossary_tool.commands.build import build_site
from pathlib import Path
assert build_site(Path(sys.argv[1]), Path(sys.argv[2])) == 0
print(json.dumps(events))
"""


def test_the_worker_pages_and_the_map_are_awaited_only_when_mkdocs_builds_them(tmp_path: Path) -> None:
    """A cold build populates every page without waiting for another process: the page
    worker's share and the map are finished when MkDocs builds their pages (after all pages
    are populated), so the second core renders while this one populates. The first result
    asked for comes after the last page populated; the pages are still those of a one-process
    build (the test above)."""
    import json

    root = with_site_config(generate(tmp_path / "repo", N))
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "SOURCE_DATE_EPOCH": "1700000000"}
    done = subprocess.run([sys.executable, "-c", _ORDER_PROBE, str(root), str(tmp_path / "site")], check=True, env=env, capture_output=True, text=True)
    events = json.loads(done.stdout.strip().splitlines()[-1])
    if "result" not in events:
        pytest.skip("no second core: the build forked no worker")
    populated = [i for i, e in enumerate(events) if e == "populate"]
    built = [i for i, e in enumerate(events) if e == "build"]
    assert len(populated) == len(built) > N
    results = [i for i, e in enumerate(events) if e == "result"]
    first = min(i for i in results if i > populated[0])  # the load's parse workers come before any page
    assert first > populated[-1] and first > built[0], events
