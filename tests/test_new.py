"""``glossary new``: the file it writes, the reading order it edits, the clashes it refuses.

Results are read back with a YAML parser and the glossary loader, never by substring.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from glossary_tool.cli import main
from glossary_tool.load import frontmatter
from glossary_tool.pipeline import load_project
from tests.conftest import trio

TOC_WITH_COMMENT = "# kept as written\ndevice-hardware:\n  - streaming-multiprocessor  # the SM\ndevice-software:\n  - warp\n  - thread\n"


@pytest.fixture
def repo(make_glossary) -> Path:
    root = make_glossary(trio())
    (root / "glossary/toc.yml").write_text(TOC_WITH_COMMENT, encoding="utf-8")
    assert load_project(root, check_records=False).diagnostics == ()
    return root


def new(root: Path, *args: str) -> int:
    return main(["--root", str(root), "new", *args])


def front(path: Path) -> dict:
    fm = frontmatter.parse(path.name, path.read_text(encoding="utf-8"))
    assert not fm.diagnostics
    return fm.data


def toc(root: Path) -> dict:
    return yaml.safe_load((root / "glossary/toc.yml").read_text(encoding="utf-8"))


def test_creates_the_file_and_the_toc_entry(repo, capsys):
    assert new(repo, "Thread Block Cluster", "--section", "device-software", "--abbr", "TBC", "--alias", "cluster") == 0
    path = repo / "glossary/device-software/thread-block-cluster.md"
    data = front(path)
    assert data["title"] == "Thread Block Cluster"
    assert data["abbreviation"] == "TBC"
    assert data["aliases"] == ["cluster"]
    assert set(data) >= {"summary", "sources", "equivalents"}
    assert toc(repo) == {"device-hardware": ["streaming-multiprocessor"], "device-software": ["warp", "thread", "thread-block-cluster"]}
    text = (repo / "glossary/toc.yml").read_text(encoding="utf-8")
    assert text.startswith("# kept as written\n") and "# the SM" in text, "the rest of toc.yml is left as written"
    out = capsys.readouterr().out
    assert "glossary/device-software/thread-block-cluster.md" in out and "TODO" in out
    loaded = load_project(repo, check_records=False)
    term = loaded.glossary.terms["thread-block-cluster"]
    assert term.section == "device-software" and term.abbreviation == "TBC"
    assert [t.slug for t in loaded.glossary.ordered_terms()][-1] == "thread-block-cluster"


def test_template_placeholders_fail_check_until_replaced(repo):
    assert new(repo, "Thread Block Cluster", "--section", "device-software") == 0
    path = "glossary/device-software/thread-block-cluster.md"
    codes = {d.code for d in load_project(repo, check_records=False).diagnostics if d.path == path and d.severity.value == "error"}
    assert codes == {"summary-not-sentence", "field-invalid"}, "an unfilled summary and source URL are errors"
    # Filled in, the template is a valid term: only the body is left to write.
    file = repo / path
    filled = {"summary:": "summary: A group of thread blocks scheduled together on one GPC.", "    url:": "    url: https://docs.nvidia.com/cuda/cuda-c-programming-guide/"}
    lines = [next((v for k, v in filled.items() if line.startswith(k)), line) for line in file.read_text(encoding="utf-8").split("\n")]
    file.write_text("\n".join(lines), encoding="utf-8")
    errors = [d for d in load_project(repo, check_records=False).diagnostics if d.path == path and d.severity.value == "error"]
    assert errors == []


@pytest.mark.parametrize("title", ['C++: "quoted" # not a comment', "yes", "2024", "Ünïcode — dash", "  spaced   out  "])
def test_titles_that_need_quoting_read_back_exactly(repo, title):
    assert new(repo, title, "--section", "performance", "--slug", "odd-title") == 0
    assert front(repo / "glossary/performance/odd-title.md")["title"] == " ".join(title.split())


@pytest.mark.parametrize(
    ("args", "clash"),
    [
        (["Something Else", "--slug", "warp"], "slug 'warp' is already the slug of glossary/device-software/warp.md"),
        (["warp"], "title 'warp' is already the slug of glossary/device-software/warp.md: if it is the same concept, edit that term"),
        (["Streaming Multiprocessor", "--slug", "sm2"], "title 'Streaming Multiprocessor' is already the title of glossary/device-hardware/streaming-multiprocessor.md"),
        (["MultiProcessor"], "title 'MultiProcessor' is already the alias of glossary/device-hardware/streaming-multiprocessor.md"),
        (["Tile", "--slug", "multiprocessor"], "slug 'multiprocessor' is already the alias of glossary/device-hardware/streaming-multiprocessor.md"),
        (["Multi Processor", "--slug", "mp", "--alias", "Multiprocessor"], "alias 'Multiprocessor' is already the alias of glossary/device-hardware/streaming-multiprocessor.md"),
        (["Scalar Multiplier", "--abbr", "sm"], "abbreviation 'sm' is already the abbreviation of glossary/device-hardware/streaming-multiprocessor.md"),
        (["Lane", "--alias", "Thread"], "alias 'Thread' is already the slug of glossary/device-software/thread.md"),
    ],
)
def test_refuses_a_name_that_exists_and_names_the_clash(repo, capsys, args, clash):
    before = {p: p.read_bytes() for p in (repo / "glossary").rglob("*")if p.is_file()}
    assert new(repo, *args, "--section", "performance") == 1
    err = capsys.readouterr().err
    assert err.startswith("glossary new: ") and clash in err
    after = {p: p.read_bytes() for p in (repo / "glossary").rglob("*") if p.is_file()}
    assert after == before, "nothing written"


def test_refuses_a_slug_whose_file_exists_but_does_not_load(repo, capsys):
    (repo / "glossary/multi-gpu").mkdir()
    (repo / "glossary/multi-gpu/broken.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    assert new(repo, "Broken", "--section", "performance") == 1
    assert "glossary/multi-gpu/broken.md already exists" in capsys.readouterr().err


def test_refuses_a_slug_already_in_the_reading_order(repo, capsys):
    (repo / "glossary/toc.yml").write_text(TOC_WITH_COMMENT + "performance:\n  - planned-term\n", encoding="utf-8")
    assert new(repo, "Planned Term", "--section", "performance") == 1
    assert "'planned-term' is already listed under 'performance'" in capsys.readouterr().err


@pytest.mark.parametrize(("section", "message"), [("hardware", "unknown section 'hardware'; choose one of device-hardware, "), ("", "unknown section ''")])
def test_refuses_an_unknown_section(repo, capsys, section, message):
    assert new(repo, "Thread Block Cluster", "--section", section) == 1
    assert message in capsys.readouterr().err
    assert not list((repo / "glossary").rglob("thread-block-cluster.md"))


@pytest.mark.parametrize(("args", "message"), [(["+++"], "cannot use '' as a slug"), (["Fine Title", "--slug", "Bad_Slug"], "cannot use 'Bad_Slug' as a slug"), (["   "], "the title is empty")])
def test_refuses_titles_and_slugs_it_cannot_use(repo, capsys, args, message):
    assert new(repo, *args, "--section", "performance") == 1
    assert message in capsys.readouterr().err


def test_new_section_in_the_reading_order(repo):
    assert new(repo, "Bus Bandwidth", "--section", "multi-gpu") == 0
    assert toc(repo)["multi-gpu"] == ["bus-bandwidth"]
    assert list(toc(repo)) == ["device-hardware", "device-software", "multi-gpu"]
