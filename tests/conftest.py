"""Shared fixtures and the one way to write a fixture glossary.

Fixture glossaries (tmp folders holding glossary/ and its toc.yml):
- ``write_glossary(root, files, toc=None)``: write ``{"section/slug.md": text}`` and a toc.yml
  (the order of ``files`` unless ``toc`` is given); usable from fixtures of any scope.
- ``make_glossary`` (fixture): the same under the test's tmp_path.
- ``term_text(...)`` writes one term file; ``trio()`` three well-linked terms (``TRIO_TOC``
  lists them hardware first); ``with_site_config(root)`` adds the real mkdocs.yml and assets.

The real glossary, once per test run:
- ``real_project`` (session): ``load_project(REPO)``, records checked. Read it, never change it.
- ``real_site`` (session): the real site built once per run, shared by every xdist worker
  (the first to ask builds it under a file lock; GLOSSARY_SITE names a prebuilt one instead).
- ``built_site`` (session): ``real_site`` read back with a parser (tests/built_site.py):
  pages as lxml trees, the ids of each file, and the one resolver of internal links.
- ``browser``, ``base_url``, ``page_pool`` (session): one Chromium, one server of the real site and
  one pool of shared pages per worker for the browser tests (tests/test_browser.py); ``pages``
  hands a test the pool and closes what it took if it fails.
- ``shared_once(tmp_path_factory, name, make)``: the same once-per-run sharing for any other
  expensive output (``make(folder)`` fills the folder).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.built_site import BuiltSite

REPO = Path(__file__).resolve().parent.parent


def term_text(title: str, body: str, *, summary: str | None = None, extra: str = "", abbreviation: str | None = None, aliases: list[str] | None = None) -> str:
    lines = ["---", f"title: {title}"]
    if abbreviation:
        lines.append(f"abbreviation: {abbreviation}")
    if aliases:
        lines.append(f"aliases: [{', '.join(aliases)}]")
    lines.append(f"summary: {summary or f'The {title} term, used by the tests.'}")
    lines += ["sources:", "  - title: CUDA C++ Programming Guide", "    url: https://docs.nvidia.com/cuda/cuda-c-programming-guide/"]
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("---")
    return "\n".join(lines) + "\n" + textwrap.dedent(body).lstrip("\n")


MakeGlossary = Callable[..., Path]


def write_glossary(root: Path, files: dict[str, str | bytes], toc: dict[str, list[str]] | None = None) -> Path:
    """Write ``{"section/slug.md": text}`` under root/glossary with a toc.yml; returns ``root``.

    Without ``toc`` the reading order is the order of ``files`` (index pages left out).
    Text is written byte for byte: no newline translation, lone surrogates kept.
    """
    glossary = root / "glossary"
    for rel, text in files.items():
        path = glossary / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    if toc is None:
        toc = {}
        for rel in files:
            section, name = rel.split("/", 1) if "/" in rel else ("", rel)
            if section and name != "index.md" and name.endswith(".md"):
                toc.setdefault(section, []).append(name[:-3])
    lines = []
    for section, slugs in toc.items():
        lines.append(f"{section}:")
        lines += [f"  - {slug}" for slug in slugs]
    glossary.mkdir(parents=True, exist_ok=True)
    (glossary / "toc.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.fixture
def make_glossary(tmp_path: Path) -> MakeGlossary:
    """``write_glossary`` under tmp_path/repo (or ``root``). Returns the repository root."""

    def make(files: dict[str, str], toc: dict[str, list[str]] | None = None, root: Path | None = None) -> Path:
        return write_glossary(root or tmp_path / "repo", files, toc)

    return make


def with_site_config(root: Path) -> Path:
    """The real mkdocs.yml and stylesheet beside a test glossary, so it builds like the real one."""
    if not (root / "mkdocs.yml").exists():
        shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    assets = root / "glossary" / "assets"
    if not assets.exists():
        shutil.copytree(REPO / "glossary" / "assets", assets)
    return root


def trio(extra_body: dict[str, str] | None = None) -> dict[str, str]:
    """Three well-linked terms; tests mutate one of them to trigger one diagnostic."""
    extra_body = extra_body or {}
    return {
        "device-software/warp.md": term_text("Warp", "A [[thread]] group that runs on an [[streaming-multiprocessor|SM]].\n" + extra_body.get("warp", ""), abbreviation=None),
        "device-software/thread.md": term_text("Thread", "One lane of a [[warp]], scheduled by its [[streaming-multiprocessor]].\n" + extra_body.get("thread", "")),
        "device-hardware/streaming-multiprocessor.md": term_text(
            "Streaming Multiprocessor", "Runs every [[warp]] of its [[thread]]s.\n" + extra_body.get("sm", ""), abbreviation="SM", aliases=["multiprocessor"]
        ),
    }


#: The trio's reading order with hardware first, as most built fixture sites have it.
TRIO_TOC = {"device-hardware": ["streaming-multiprocessor"], "device-software": ["warp", "thread"]}


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def shared_once(tmp_path_factory, name: str, make: Callable[[Path], None]) -> Path:
    """``make(folder)`` once per test run, whichever xdist worker asks first; the others wait
    for it under a file lock and share the folder (the parent of the workers' basetemps is
    one per run). A ``make`` that fails leaves nothing behind, so the next asker tries again."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    done = shared.parent / f"{name}.done"
    with _locked(shared.parent / f"{name}.lock"):
        if not done.exists():
            shutil.rmtree(shared, ignore_errors=True)
            shared.mkdir()
            try:
                make(shared)
            except BaseException:
                shutil.rmtree(shared, ignore_errors=True)
                raise
            done.touch()
    return shared


@pytest.fixture(scope="session")
def real_project():
    """The real glossary loaded once (records checked): the ``Loaded`` of ``load_project(REPO)``."""
    from glossary_tool.pipeline import load_project

    return load_project(REPO)


@pytest.fixture(scope="session")
def real_site(tmp_path_factory) -> Path:
    """The real glossary built once per test run, whichever worker asks first.

    GLOSSARY_SITE names a site already built from this tree (the Pages workflow checks the
    very site it uploads) instead.
    """
    from glossary_tool.cli import main

    prebuilt = os.environ.get("GLOSSARY_SITE")
    if prebuilt:
        assert (Path(prebuilt) / "index.html").is_file(), f"GLOSSARY_SITE={prebuilt}: no index.html there"
        return Path(prebuilt).resolve()

    def build(folder: Path) -> None:
        assert main(["--root", str(REPO), "build", "--out", str(folder / "site")]) == 0

    return shared_once(tmp_path_factory, "real-site", build) / "site"


@pytest.fixture(scope="session")
def built_site(real_site: Path) -> BuiltSite:
    """``real_site`` read back with a parser: pages, ids and the link resolver (tests/built_site.py)."""
    return BuiltSite(real_site)


@pytest.fixture(scope="session")
def browser():
    """One Chromium per test worker for every browser test (tests/test_browser.py and
    tests/test_reading_browser.py, whose skip marks say when there is none): a launch costs
    about a second of CPU. A test opens a context of its own (``web``) or takes a page shared
    with the tests that read the same page (``pages``), settled between them."""
    from playwright.sync_api import sync_playwright

    from tests.test_browser import launch_options

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(**launch_options())
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def base_url(real_site: Path) -> Iterator[str]:
    """``real_site`` served from 127.0.0.1 under /gpu-glossary/ (tests/test_browser.py), one
    server per worker for both browser test files; yields the base URL."""
    from tests.test_browser import serve_site

    with serve_site(real_site) as url:
        yield url


@pytest.fixture(scope="session")
def page_pool(browser, base_url: str):
    """The pages shared by the browser tests that read the same page (tests/test_browser.py's
    PagePool), one pool per worker; tests take them through ``pages``."""
    from tests.test_browser import PagePool

    pool = PagePool(browser, base_url)
    try:
        yield pool
    finally:
        pool.close()


@pytest.fixture
def pages(request: pytest.FixtureRequest, page_pool):
    """``page_pool`` for one test: the pages it took are closed if it fails, so the next test
    loads them afresh instead of inheriting what the failure left."""
    page_pool.taken = []
    yield page_pool
    report = getattr(request.node, "rep_call", None)
    if report is None or report.failed:
        page_pool.discard(page_pool.taken)


#: The modules with the longest tests (pytest --durations), run first: xdist's
#: worksteal hands each worker a contiguous share of the run and steals from the ends of the
#: queues, so a long test left near the end would leave one worker running it alone. Those that
#: do not need the real site come first, so the worker that builds it meanwhile is not waited on.
SLOW_FIRST = (
    "test_serve",
    "test_page_cache",
    "test_verify",
    "test_packaging",
    "test_background",
    "test_browser",
    "test_reading_browser",
    "test_malformed",
    "test_properties",
    "test_book",
    "test_linkcheck",
    "test_determinism",
    "test_mcp",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slowest modules first (``SLOW_FIRST``), each module's tests kept together in their order."""
    rank = {name: index for index, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (GLOSSARY_REQUIRE_ALL=1) a test skipped because a tool is missing fails instead.

    Skips there can only mean an install step is missing from .ci/run, which must not pass
    as a green run. Skips that depend on the content (e.g. no diagram page yet) say "no ..."
    and stay skips.
    """
    import os

    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)  # ``pages`` reads how the test's call went
    if os.environ.get("GLOSSARY_REQUIRE_ALL") == "1" and report.skipped and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if not reason.startswith("Skipped: no "):
            report.outcome = "failed"
            report.longrepr = f"required in CI but skipped: {reason}"
