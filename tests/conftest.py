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


#: For the tests of forked jobs: skipped where this process forks none when the test starts
#: (``pytest_runtest_setup``), with glossary_tool/background.py's ``why_no_fork``. Only the
#: machine's reasons start with "no ", which CI allows (``pytest_runtest_makereport``): other
#: threads or GLOSSARY_NO_FORK mean the test ran where it cannot see what it checks.
needs_fork = pytest.mark.needs_fork


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_fork: a test of forked jobs, skipped where this process forks none (tests/conftest.py)")


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


#: Set in a process once its browser harness (Playwright, the site server) has started.
BROWSER_STARTED = pytest.StashKey[bool]()


@pytest.fixture(scope="session")
def browser(request: pytest.FixtureRequest):
    """One Chromium per test worker for every browser test (tests/test_browser.py and
    tests/test_reading_browser.py, whose skip marks say when there is none): a launch costs
    about a second of CPU. A test opens a context of its own (``web``) or takes a page shared
    with the tests that read the same page (``pages``), settled between them."""
    from playwright.sync_api import sync_playwright

    from tests.test_browser import launch_options

    request.config.stash[BROWSER_STARTED] = True

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
def page_pool(base_url: str, browser):
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


#: The modules with the longest tests (pytest --durations), run first: each test goes to whichever
#: worker is free (``BrowserApart``), so the longest ones go out first and the last to finish are
#: short. Those that do not need the real site come first: the browser tests' worker builds it
#: meanwhile.
SLOW_FIRST = (
    "test_serve",
    "test_page_cache",
    "test_verify",
    "test_packaging",
    "test_background",
    "test_malformed",
    "test_properties",
    "test_book",
    "test_linkcheck",
    "test_determinism",
    "test_mcp",
)

#: The modules that drive Chromium (tests/test_browser.py and tests/test_reading_browser.py): in
#: one process, last. Their Playwright and server threads stop that process forking (glossary_tool/
#: background.py ``can_fork``), and the tests of forked jobs and builds must run before them.
BROWSER_MODULES = ("test_browser", "test_reading_browser")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Slowest modules first (``SLOW_FIRST``) and the browser's last, each module's tests kept
    together in their order."""
    rank = {name: index for index, name in enumerate(SLOW_FIRST)}
    rank |= {name: len(SLOW_FIRST) + 1 for name in BROWSER_MODULES}
    items.sort(key=lambda item: rank.get(item.path.stem, len(SLOW_FIRST)))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """No other test runs in a process after its browser tests: their Playwright and server
    threads have turned forking off there, and a test of a forked job or build would pass
    without forking (make test's ``--dist loadgroup`` keeps them apart: ``BrowserApart``).
    A ``needs_fork`` test is skipped where this process forks no job, and says why."""
    if item.config.stash.get(BROWSER_STARTED, False) and item.path.stem not in BROWSER_MODULES:
        pytest.fail(f"{item.nodeid} runs in the process of the browser tests, where forking is off: run the suite as make test does (-n auto --dist loadgroup) or with no xdist", pytrace=False)
    if item.get_closest_marker("needs_fork"):
        from glossary_tool.background import why_no_fork

        if why := why_no_fork():
            pytest.skip(why)


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


@pytest.hookimpl(optionalhook=True)  # xdist's hooks: known only where xdist is loaded
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` on two or more cores: a worker per core and one for the browser tests, whose
    worker waits on Chromium for about a fifth of their run (``BrowserApart``). One core: xdist's
    own count."""
    from glossary_tool.background import cpus

    return cpus() + 1 if cpus() > 1 else None


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``--dist loadgroup`` with two or more workers: ``BrowserApart``. (xdist's own loadgroup
    groups tests by an ``xdist_group`` mark that it writes into a node id pytest 9.2 no longer
    reads: with xdist 3.8 it groups nothing, pytest-dev/pytest-xdist#1386.)"""
    if config.getvalue("dist") != "loadgroup" or len(config.getvalue("tx") or ()) < 2:
        return None
    from xdist.scheduler import LoadScopeScheduling

    class BrowserApart(LoadScopeScheduling):
        """Every browser test on one worker that runs nothing else; every other test on its own,
        handed to whichever other worker is free (longest first, ``SLOW_FIRST``).

        One worker: one Chromium, one server and one pool of loaded pages (``pages``) for all
        the browser tests. Nothing else: its Playwright and server threads stop a process
        forking (glossary_tool/background.py ``can_fork``), and the tests of forked jobs and
        forked builds must never find forking off."""

        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")
            return "browser" if module in BROWSER_MODULES else nodeid

        def _assign_work_unit(self, node) -> None:
            super()._assign_work_unit(node)
            if "browser" in self.assigned_work[node]:
                node.shutdown()  # runs what it was given, then stops: it is given nothing more

    return BrowserApart(config, log)
