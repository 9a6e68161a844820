"""Two builds of the same sources give byte-identical site trees.

Each build runs in its own process with its own hash seed, from a copy of the sources at a
different path, into a different output folder, at a different time; only
SOURCE_DATE_EPOCH is shared (the Makefile sets it from the last commit). Kept small (a
fixture glossary of a few terms) so it stays fast.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO, TRIO_TOC, shared_once, term_text, trio, with_site_config, write_glossary

EPOCH = "1700000000"


def _fixture_repo(root: Path) -> Path:
    files = trio({"warp": "\n## Lanes\n\nSee [[thread#lanes|lanes]] and `[[nodiscard]]`.\n\n| a | b |\n| --- | --- |\n| [[thread]] | x |\n", "thread": "\n## Lanes\n\nThirty-two of them.\n"})
    files["index.md"] = "---\ntitle: Test Glossary\nsummary: A test glossary.\n---\nStart at the [[warp]].\n"
    files["performance/occupancy.md"] = term_text("Occupancy", "Resident [[warp]]s per [[SM]] over the [[thread]] limit.\n", abbreviation="OCC", aliases=["residency"])
    files["performance/index.md"] = "---\ntitle: Performance\nsummary: How fast it goes.\n---\nStart with [[occupancy]].\n"
    return with_site_config(write_glossary(root, files, {**TRIO_TOC, "performance": ["occupancy"]}))


def _build(root: Path, out: Path, seed: str) -> None:
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "glossary_tool", "--root", str(root), "build", "--out", str(out)], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr


def _tree(path: Path) -> dict[str, str]:
    return {p.relative_to(path).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory) -> tuple[Path, Path]:
    """Built once per test run (this module's tests may run on two workers)."""

    def make(folder: Path) -> None:
        first = _fixture_repo(folder / "det-a" / "repo")
        second = _fixture_repo(folder / "det-b" / "elsewhere" / "repo")
        _build(first, first / "site", "1")
        time.sleep(1.1)  # a different wall-clock second: any timestamp leaking in shows up
        _build(second, second / "public", "4242")

    folder = shared_once(tmp_path_factory, "two-builds", make)
    return folder / "det-a" / "repo" / "site", folder / "det-b" / "elsewhere" / "repo" / "public"


def test_two_builds_are_byte_identical(two_builds):
    a, b = two_builds
    tree_a, tree_b = _tree(a), _tree(b)
    assert sorted(tree_a) == sorted(tree_b), set(tree_a) ^ set(tree_b)
    differ = [name for name in tree_a if tree_a[name] != tree_b[name]]
    assert not differ, f"files that differ between two builds: {differ}"


def test_the_compared_tree_is_the_whole_site(two_builds):
    a, _ = two_builds
    names = set(_tree(a))
    for expected in ("index.html", "device-software/warp/index.html", "a-z/index.html", "sitemap.xml", "sitemap.xml.gz", "search/search_index.json", "llms.txt", "llms-full.txt", "feed.xml", "terms.json", "whats-new/index.html"):
        assert expected in names, expected


def test_sitemap_dates_come_from_source_date_epoch(two_builds):
    import gzip

    a, _ = two_builds
    day = time.strftime("%Y-%m-%d", time.gmtime(int(EPOCH)))
    sitemap = (a / "sitemap.xml").read_text(encoding="utf-8")
    assert f"<lastmod>{day}</lastmod>" in sitemap
    raw = (a / "sitemap.xml.gz").read_bytes()
    assert int.from_bytes(raw[4:8], "little") == int(EPOCH) // 86400 * 86400, "gzip header mtime: midnight (UTC) of SOURCE_DATE_EPOCH"
    assert gzip.decompress(raw).decode("utf-8") == sitemap


def test_output_paths_and_checkout_paths_do_not_leak_into_the_site(two_builds):
    a, b = two_builds
    for site in (a, b):
        for path in site.rglob("*"):
            if path.is_file() and path.suffix in (".html", ".json", ".txt", ".md", ".xml"):
                text = path.read_text(encoding="utf-8")
                assert str(a.parent) not in text and str(b.parent) not in text, path
