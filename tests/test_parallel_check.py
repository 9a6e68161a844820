"""A cold `check` that parses terms in forked workers reports what a one-process check does.

load/files.py deals the uncached terms out to worker processes and reassembles their
results; the workers also compute what the later checks read of each body's tokens (the
`[[` proof, the figure check's block spans), which this process then takes instead of
parsing the body. Any slip there (a result in the wrong slot, a precomputed answer for the
wrong body, a worker that dies) would change the diagnostics, so they are compared here,
byte for byte as printed, on a glossary full of errors.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from benchmarks.generate import generate
from glossary_tool import background
from glossary_tool.commands import build as build_module
from glossary_tool.diagnostics import render
from glossary_tool.load import body, files
from glossary_tool.load.cache import CACHE_DIR
from glossary_tool.pipeline import load_project
from tests.conftest import needs_fork, term_text, with_site_config

#: One term file each, in the generated sections: every kind of problem a body or its front
#: matter can have, spread so that each worker's share holds some.
BROKEN: dict[str, str | bytes] = {
    "device-software/zz-fence.md": term_text("Fence", "Text.\n\n```cuda\nint x;\n"),
    "device-hardware/zz-unparsed.md": term_text("Unparsed", "See [[term-00001 and more.\n\n| a | b |\n|---|---|\n| [[term-00002]] | [[nowhere]] |\n"),
    "host-software/zz-html.md": term_text("Html", "<script>alert(1)</script>\n\nA [link](javascript:alert(1)) and <img src=x onerror=f()>.\n"),
    "performance/zz-snippet.md": term_text("Snippet", '```cuda verify name="a" arch=sm_1 bogus=1\nint main() {}\n```\n\n```cuda verify name="a"\nint main() {}\n```\n'),
    "multi-gpu/zz-deep.md": term_text("Deep", "".join("  " * i + "- item\n" for i in range(120))),
    "amd/zz-yaml.md": "---\ntitle: Yaml\nsummary: [unclosed\n---\nBody.\n",
    "device-software/zz-fields.md": "---\ntitle: Fields\nsumary: typo.\nsummary: Two sentences. Here.\n---\n# Heading one\n\n[[]] and [[term-00003#no-such-anchor]].\n",
    "device-hardware/zz-bytes.md": b"---\ntitle: Bytes\nsummary: Bad \xff byte.\n---\nBody.\n",
    "host-software/zz-empty.md": "",
    "performance/zz-bracket.md": term_text("Bracket", "Raw \\[[ literal and an html block:\n\n<div>\n[[term-00004]]\n</div>\n\n> quoted [[term-00005|text]]s\n"),
}


@pytest.fixture(scope="module")
def broken_glossary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = generate(tmp_path_factory.mktemp("parallel"), 60)
    for rel, text in BROKEN.items():
        path = root / "glossary" / rel
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return root


def _check(root: Path, processes: int, *, cache: bool = False) -> tuple[str, tuple]:
    loaded = load_project(root, cache=cache, processes=processes)
    return render(list(loaded.diagnostics)), tuple(sorted(loaded.glossary.terms.items()))


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the workers forked, with the threshold low enough for a small glossary."""
    monkeypatch.setattr(files, "FORK_MIN_TERMS", 5)
    started: list[int] = []

    class Counted(background.Job):
        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            super().__init__(*args, **kwargs)
            started.append(int(self.forked))

    monkeypatch.setattr(background, "Job", Counted)
    return started


@needs_fork
@pytest.mark.parametrize("processes", [2, 3])
def test_parallel_cold_check_reports_what_one_process_does(broken_glossary: Path, forks: list[int], processes: int) -> None:
    one, terms_one = _check(broken_glossary, 1)
    assert forks == []
    many, terms_many = _check(broken_glossary, processes)
    assert forks == [1] * (processes - 1)
    assert many == one
    assert terms_many == terms_one
    codes = {line.rsplit("[", 1)[-1].rstrip("]") for line in one.splitlines()}
    # the glossary really is broken in every way BROKEN means it to be
    assert {"unterminated-fence", "xref-unparsed", "unsafe-html", "unsafe-url", "snippet-option", "markdown-too-deep", "yaml-syntax", "file-encoding", "file-empty", "xref-empty"} <= codes


@needs_fork
def test_workers_answer_for_the_bodies_they_parsed(broken_glossary: Path, forks: list[int]) -> None:
    body._PRECOMPUTED.clear()
    loaded = load_project(broken_glossary, cache=False, processes=2)
    assert forks == [1]
    # every answer a worker sent was taken by the check it was computed for: the [[ proof of
    # each term in the reading order, the block spans of each one with snippets
    left = {(name.rsplit(".", 1)[-1], text) for name, text in body._PRECOMPUTED}
    ordered = loaded.glossary.ordered_terms()
    assert not left & {("brackets_cannot_render", t.body) for t in ordered}
    assert not left & {("block_spans", t.body) for t in ordered if t.snippets}
    body._PRECOMPUTED.clear()


@needs_fork
def test_a_cache_written_by_workers_gives_the_same_warm_check(broken_glossary: Path, forks: list[int], tmp_path: Path) -> None:
    import shutil

    root = tmp_path / "copy"
    shutil.copytree(broken_glossary, root)
    one, _ = _check(broken_glossary, 1)
    cold, _ = _check(root, 2, cache=True)
    assert forks == [1]
    warm, _ = _check(root, 2, cache=True)
    assert forks == [1]  # nothing left to parse: no worker
    assert cold == warm == one


def test_no_worker_when_forking_is_off(broken_glossary: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GLOSSARY_NO_FORK", "1")
    one, _ = _check(broken_glossary, 1)
    off, _ = _check(broken_glossary, 2)
    assert forks == []
    assert off == one


@needs_fork
def test_a_failed_worker_has_its_share_parsed_here(broken_glossary: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        raise RuntimeError("worker lost")

    one, _ = _check(broken_glossary, 1)
    monkeypatch.setattr(files, "_parse_share", crash)
    survived, _ = _check(broken_glossary, 2)
    assert forks == [1]
    assert survived == one


@needs_fork
def test_work_done_meanwhile_runs_once_beside_the_workers_and_its_error_stops_them(broken_glossary: Path, forks: list[int]) -> None:
    """load_tree's ``meanwhile`` (a check reads its diagrams and records there) runs once, in
    this process, after the worker started; an error in it reaches the caller as it was, and
    no worker is left running."""
    import multiprocessing

    calls: list[int] = []
    files.load_tree(broken_glossary / "glossary", processes=2, meanwhile=lambda: calls.append(len(multiprocessing.active_children())))
    assert forks == [1] and calls == [1], "once, with the worker running beside it"

    def boom() -> None:
        raise KeyError("meanwhile failed")

    with pytest.raises(KeyError, match="meanwhile failed"):
        files.load_tree(broken_glossary / "glossary", processes=2, meanwhile=boom)
    assert forks == [1, 1]
    assert multiprocessing.active_children() == []


def _term_files(root: Path) -> list[files.TermFile]:
    tree = files.walk_tree(root / "glossary", [])
    return [files.TermFile(section, path.stem, shown, path.read_bytes()) for section, path, shown in tree.term_files]


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> tuple[object, object, int]:
    """Count parse_term calls in this process and in the workers (shared counters), with
    small claims so that every process takes several."""
    import multiprocessing
    import os
    import time

    context = multiprocessing.get_context("fork")
    here, there = context.Value("q", 0), context.Value("q", 0)
    parent = os.getpid()
    real = files.parse_term

    def counted(file: files.TermFile) -> files.ParseResult:
        counter = here if os.getpid() == parent else there
        with counter.get_lock():
            counter.value += 1
        if counter is here:
            time.sleep(0.003)  # this process slower, so that a worker late to start still claims
        return real(file)

    monkeypatch.setattr(files, "parse_term", counted)
    monkeypatch.setattr(files, "FORK_MIN_TERMS", 5)
    monkeypatch.setattr(files, "CLAIM", 3)
    return here, there, parent


@needs_fork
@pytest.mark.parametrize("processes", [2, 3])
def test_claimed_terms_are_each_parsed_once_and_put_back_in_order(broken_glossary: Path, parses: tuple, processes: int) -> None:
    here, there, _ = parses
    term_files = _term_files(broken_glossary)
    expected = [files.parse_term(f) for f in term_files]
    here.value = 0
    got = files._parse_all(term_files, processes, ())[0]
    assert got == expected
    # every term parsed exactly once, the workers taking some: a claim lost (then parsed
    # again here as a failed worker's) or taken twice would change the total
    assert here.value + there.value == len(term_files)
    assert there.value > 0
    assert here.value > 0


@needs_fork
def test_a_worker_that_dies_mid_parse_loses_no_term(broken_glossary: Path, parses: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    here, there, parent = parses
    term_files = _term_files(broken_glossary)
    expected = [files.parse_term(f) for f in term_files]
    here.value = 0
    counting = files.parse_term

    def dies(file: files.TermFile) -> files.ParseResult:
        if os.getpid() != parent and there.value >= 7:  # two claims sent, the third cut short
            os._exit(1)
        return counting(file)

    monkeypatch.setattr(files, "parse_term", dies)
    assert files._parse_all(term_files, 2, ())[0] == expected
    assert there.value == 7
    assert here.value == len(term_files) - 6  # the worker's two whole claims came back


@needs_fork
def test_no_process_keeps_the_token_streams_of_the_bodies_it_parsed(broken_glossary: Path, parses: tuple, monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked parse serves `check`, which needs nothing of a body's tokens once its facts are
    precomputed: each process drops a claim's streams before its next claim (kept, 5,000 of
    them cost each process 150 MB). Seen from inside: at each parse, a process holds no more
    streams than one claim's."""
    import multiprocessing

    here, there, _ = parses
    peak = multiprocessing.get_context("fork").Value("q", 0)
    counting = files.parse_term

    def watched(file: files.TermFile) -> files.ParseResult:
        with peak.get_lock():
            peak.value = max(peak.value, len(body._TOKENS))
        return counting(file)

    term_files = _term_files(broken_glossary)
    expected = [files.parse_term(f) for f in term_files]
    body._TOKENS.clear()
    here.value = there.value = 0
    monkeypatch.setattr(files, "parse_term", watched)
    got = files._parse_all(term_files, 2, ())[0]
    assert got == expected
    assert there.value > 2 * files.CLAIM and here.value > 2 * files.CLAIM  # each process took several claims
    assert 0 < peak.value <= files.CLAIM
    assert not {t.body for t, _ in got if t is not None} & set(body._TOKENS), "this process kept none either"


@needs_fork
def test_files_read_where_they_are_parsed_load_as_files_read_first(broken_glossary: Path, forks: list[int], tmp_path: Path) -> None:
    """With nothing cached, each process reads the files it claims (load/files.py
    UnreadTermFile); with something cached, this process reads them all first. Both give
    the same terms, diagnostics and cache keys, unreadable files included."""
    import shutil

    from glossary_tool.load import load_tree
    from glossary_tool.load.cache import Cache

    root = tmp_path / "copy"
    shutil.copytree(broken_glossary, root)
    outside = tmp_path / "outside.md"
    outside.write_text(term_text("Outside", "Kept out.\n"), encoding="utf-8")
    glossary = root / "glossary"
    (glossary / "device-software" / "zz-outside.md").symlink_to(outside)
    (glossary / "device-hardware" / "zz-dangling.md").symlink_to(glossary / "device-hardware" / "nowhere.md")

    def stored() -> Cache:
        """A cache holding one unrelated entry: not empty, so every file is read first."""
        seed = Cache(tmp_path / "seed")
        seed.put("unrelated", 1)
        seed.save()
        return Cache(tmp_path / "seed")

    first = stored()
    assert not first.empty
    read_first = load_tree(glossary, first, processes=2)
    empty = Cache(tmp_path / "empty")
    assert empty.empty
    read_there = load_tree(glossary, empty, processes=2)
    assert forks == [1, 1]
    for got in (read_there, load_tree(glossary, Cache(None), processes=1)):
        assert render(list(got.diagnostics)) == render(list(read_first.diagnostics))
        assert got.terms == read_first.terms and got.unloaded == read_first.unloaded
    assert read_there.digest == read_first.digest  # the same keys, found in the workers
    assert (empty.hits, empty.misses) == (0, len(read_first.terms) + len(read_first.unloaded))
    codes = {d.code for d in read_there.diagnostics}
    assert {"symlink-outside", "file-unreadable"} <= codes
    assert {("device-software", "zz-outside"), ("device-hardware", "zz-dangling")} <= read_there.unloaded


@needs_fork
def test_a_build_keeps_the_streams_of_the_first_run_of_terms_it_parsed(broken_glossary: Path, parses: tuple) -> None:
    """`glossary build` parses on every core and renders here the pages whose bodies this
    process parsed: it claims from the front, so it keeps the streams of a first run of the
    files and of nothing after it (the workers claim from the back)."""
    here, there, _ = parses
    term_files = _term_files(broken_glossary)
    expected = [files.parse_term(f) for f in term_files]
    body._TOKENS.clear()
    here.value = there.value = 0
    got = files._parse_all(term_files, 2, (), keep_tokens=True)[0]
    assert got == expected
    kept = [body.holds_tokens(t.body) for t, _ in got if t is not None]  # (a file that did not load has no body)
    first = kept.index(False)
    assert 0 < first and not any(kept[first:]), kept
    assert here.value > 0 and there.value > 0


@needs_fork
def test_a_build_parsed_on_two_cores_writes_the_bytes_of_a_one_process_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`glossary build` with the terms parsed in two processes (the threshold lowered for 40
    terms) writes what a build in one process writes, and this process parses no body again
    to render its pages: those it renders are the ones it parsed."""
    root = with_site_config(generate(tmp_path / "repo", 40))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr(files, "FORK_MIN_TERMS", 5)
    bodies = {t.body for t in files.load_tree(root / "glossary").terms}
    parent = os.getpid()
    again: list[str] = []
    real_parse_once = body.parse_once

    def watched(text: str):  # noqa: ANN202
        if os.getpid() == parent and text in bodies and loaded_once:
            again.append(text)
        return real_parse_once(text)

    loaded_once: list[bool] = []
    real_load = build_module.load_project

    def load(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        result = real_load(*args, **kwargs)
        loaded_once.append(True)
        return result

    monkeypatch.setattr(body, "parse_once", watched)
    monkeypatch.setattr(build_module, "load_project", load)
    body._TOKENS.clear()
    assert build_module.build_site(root, tmp_path / "two") == 0
    assert again == [], f"{len(again)} bodies parsed again in the build process"
    shutil.rmtree(root / CACHE_DIR)
    monkeypatch.setenv("GLOSSARY_NO_FORK", "1")
    assert build_module.build_site(root, tmp_path / "one") == 0
    two, one = (sorted(p.relative_to(tmp_path / d) for p in (tmp_path / d).rglob("*") if p.is_file()) for d in ("two", "one"))
    assert two == one and all((tmp_path / "two" / p).read_bytes() == (tmp_path / "one" / p).read_bytes() for p in one)
