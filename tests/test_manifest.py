"""load/files.py's manifest: a term file whose stat signature is unchanged is not read again,
and any change to a file (even one that keeps its size and modification time) is seen."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from glossary_tool.load import files as files_module
from glossary_tool.load import load_tree
from glossary_tool.load.cache import CACHE_DIR, project_cache
from tests.conftest import REPO

AN_HOUR = 3600 * 10**9


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The glossary, every file dated an hour back (older than the racy window)."""
    root = tmp_path / "repo"
    shutil.copytree(REPO / "glossary", root / "glossary")
    past = time.time_ns() - AN_HOUR
    for path in (root / "glossary").rglob("*.md"):
        os.utime(path, ns=(past, past))
    return root


def _load(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[object, list[str]]:
    """A cached load and the term files it read."""
    read: list[str] = []
    original = files_module.read_bytes

    def counting(root_: Path, path: Path, out: list, **how: bool) -> bytes | None:
        if path.name != files_module.INDEX:
            read.append(path.name)
        return original(root_, path, out, **how)

    monkeypatch.setattr(files_module, "read_bytes", counting)
    store = project_cache(root)
    result = load_tree(root / "glossary", store)
    store.save()
    return result, read


def test_unchanged_files_are_not_read_again(copy, monkeypatch):
    cold, read = _load(copy, monkeypatch)
    assert len(read) == len(cold.terms) > 100
    warm, read = _load(copy, monkeypatch)
    assert read == [] and warm.terms == cold.terms and warm.diagnostics == cold.diagnostics
    (written,) = (copy / CACHE_DIR).glob("load-*.pickle")
    before = written.stat()
    _load(copy, monkeypatch)
    after = written.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), "an unchanged manifest does not rewrite the cache"


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(copy, monkeypatch):
    _load(copy, monkeypatch)
    path = copy / "glossary" / "device-hardware" / "cuda-core.md"
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    assert "[[warp]]" in text
    path.write_text(text.replace("[[warp]]", "[[WARP]]", 1), encoding="utf-8")  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # same mtime; the change time moves on
    result, read = _load(copy, monkeypatch)
    assert read == ["cuda-core.md"]
    term = next(t for t in result.terms if t.slug == "cuda-core")
    assert "WARP" in [x.target for x in term.xrefs]
    assert load_tree(copy / "glossary").terms == result.terms


def test_a_file_changed_just_now_is_read_until_it_settles(copy, monkeypatch):
    path = copy / "glossary" / "device-hardware" / "cuda-core.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8")
    _load(copy, monkeypatch)
    _, read = _load(copy, monkeypatch)
    assert read == ["cuda-core.md"], "within the racy window the manifest does not vouch for it"
    monkeypatch.setattr(files_module, "RACY_NS", -AN_HOUR)  # as if the window had passed
    _load(copy, monkeypatch)
    _, read = _load(copy, monkeypatch)
    assert read == []


def test_a_replaced_or_removed_file_is_seen(copy, monkeypatch):
    _load(copy, monkeypatch)
    glossary = copy / "glossary" / "device-hardware"
    (glossary / "cuda-core.md").unlink()
    shutil.copy(glossary / "tensor-core.md", glossary / "cuda-core.md")  # another inode
    result, read = _load(copy, monkeypatch)
    assert read == ["cuda-core.md"]
    assert load_tree(copy / "glossary").terms == result.terms


@pytest.mark.parametrize("now", ["same", "grown", "shrunk", "empty"])
def test_a_file_read_by_its_stat_size_is_read_whole_whatever_its_size_is_now(tmp_path: Path, now: str) -> None:
    """read_bytes with the size the caller's lstat found reads with bare system calls; a file
    that changed size since is still read to its end, never cut at the old size."""
    path = tmp_path / "term.md"
    before = b"x" * 70_000 + b"\n"
    path.write_bytes(before)
    size = os.lstat(path).st_size
    after = {"same": before, "grown": before + b"y" * 200_000, "shrunk": b"short\n", "empty": b""}[now]
    path.write_bytes(after)
    problems: list = []
    assert files_module.read_bytes(tmp_path, path, problems, size=size) == after
    assert problems == []
