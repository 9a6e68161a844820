"""The built site in a real browser: Debian's Chromium (its headless shell where installed)
driven by Playwright, offline.

The real glossary is built once per test run (``real_site``) and served from 127.0.0.1 under
the same path as production (``/gpu-glossary/``, 404.html for a missing page). Every
request the browser makes is recorded, and any that would leave 127.0.0.1 is aborted and
fails the test, as does any console error. Tests that do not search are served an empty search
index (``SEARCH_INDEX`` below: indexing the real one is a third of a page load). Tests that read
the same page share one load of it (``PagePool``). axe-core (vendored under tests/vendor/) checks
accessibility; screenshots of a term page in both palettes go to test-artifacts/.

Skipped, with the reason, only where Chromium or Playwright is missing.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.conftest import REPO

try:
    from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
except ImportError:  # pragma: no cover - CI installs it
    sync_playwright = None


def _find_chromium() -> str:
    """The browser the tests drive: ``GLOSSARY_CHROMIUM`` if set, else Debian's
    chromium-headless-shell (the headless-only build, which Playwright itself runs for
    headless tests: no browser window, address bar or WebUI to start, about 15% less CPU per
    page load than ``chromium --headless``; its binary, not /usr/bin's shell wrapper, so the
    browser's command line is its own), else the full Chromium."""
    for candidate in (
        os.environ.get("GLOSSARY_CHROMIUM"),
        "/usr/lib/chromium/chromium-headless-shell",
        shutil.which("chromium-headless-shell"),
        shutil.which("chromium"),
    ):
        if candidate and Path(candidate).exists():
            return candidate
    return "/usr/bin/chromium"


CHROMIUM = _find_chromium()
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"]
#: Chromium features turned off on top of Playwright's own list. Every browser context opens a
#: window whose address bar preloads its WebUI popup (chrome://omnibox-popup.top-chrome, some
#: 60 JS modules) in a renderer of its own, which no test ever shows: traced, that renderer
#: and the browser process's share of it were half the CPU of a page load (1.1 of 2.0 s).
EXTRA_DISABLED_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")
AXE = REPO / "tests/vendor/axe-core/axe.min.js"
ARTIFACTS = REPO / "test-artifacts"
PREFIX = "/gpu-glossary/"

pytestmark = [
    pytest.mark.skipif(sync_playwright is None, reason="Playwright for Python is not installed (pip install playwright; never `playwright install`)"),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"Chromium not found at {CHROMIUM} (apt-get install -y chromium, or set GLOSSARY_CHROMIUM)"),
]


# --- launching Chromium -----------------------------------------------------------------


def _playwright_disabled_features() -> list[str] | None:
    """Playwright's own ``--disable-features`` list, read from its driver's source (None if not
    found there). Chromium keeps only the last ``--disable-features`` switch, so adding ours
    would silently drop Playwright's (PaintHolding, HttpsUpgrades, ...): ours must repeat its
    list and replace its switch."""
    import playwright

    package = Path(playwright.__file__).parent / "driver" / "package" / "lib"
    for source in (package / "coreBundle.js", package / "server" / "chromium" / "chromiumSwitches.js"):
        if not source.is_file():
            continue
        found = re.search(r"\bdisabledFeatures\s*=\s*\[(.*?)\]", source.read_text(encoding="utf-8"), re.S)
        if found:
            code = re.sub(r"//[^\n]*", "", found.group(1))
            return [name for pair in re.findall(r'"([^"]*)"|\'([^\']*)\'', code) for name in pair if name]
    return None


def launch_options() -> dict:
    """``chromium.launch`` keyword arguments: CHROMIUM with CHROMIUM_ARGS, and Playwright's
    ``--disable-features`` replaced by one switch that also names EXTRA_DISABLED_FEATURES
    (``test_chromium_runs_with_one_merged_disable_features_switch`` checks the result). Where
    Playwright's list cannot be read, its defaults are kept and ours left out: slower, not wrong."""
    playwright_list = _playwright_disabled_features()
    if playwright_list is None:
        return {"executable_path": CHROMIUM, "args": CHROMIUM_ARGS}
    ours = [*playwright_list, *(name for name in EXTRA_DISABLED_FEATURES if name not in playwright_list)]
    return {
        "executable_path": CHROMIUM,
        "args": [*CHROMIUM_ARGS, "--disable-features=" + ",".join(ours)],
        "ignore_default_args": ["--disable-features=" + ",".join(playwright_list)],
    }


# --- serving the site -------------------------------------------------------------------


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serve ``directory`` under /gpu-glossary/ like GitHub Pages: 404.html for what is missing."""

    def log_message(self, *args) -> None:
        pass

    def _not_found(self, head: bool) -> None:
        body = (Path(self.directory) / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _route(self, head: bool) -> None:
        path = unquote(urlsplit(self.path).path)
        if not path.startswith(PREFIX) or ".." in path.split("/"):
            return self._not_found(head)
        local = Path(self.directory) / path[len(PREFIX) :]
        if local.is_dir() and not path.endswith("/"):
            self.send_response(301)
            self.send_header("Location", path + "/")
            self.end_headers()
            return None
        if not (local / "index.html" if local.is_dir() else local).is_file():
            return self._not_found(head)
        self.path = "/" + self.path[len(PREFIX) :]
        return super().do_HEAD() if head else super().do_GET()

    def do_GET(self) -> None:
        self._route(False)

    def do_HEAD(self) -> None:
        self._route(True)


@contextlib.contextmanager
def serve_site(real_site: Path) -> Iterator[str]:
    """``real_site`` served from 127.0.0.1 under PREFIX; yields the base URL. ``base_url``
    (tests/conftest.py): one server per test worker, shared by both browser test files."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_SiteHandler, directory=str(real_site)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{PREFIX}"
    finally:
        server.shutdown()
        server.server_close()


# ``browser`` and ``base_url``: one Chromium and one server per test worker, shared by this file
# and test_reading_browser.py (tests/conftest.py). A test opens its own context (cookies,
# storage, cache) with ``web``, or takes a page shared with the tests that read the same page
# from ``pages`` (PagePool below).


@dataclass
class Watched:
    """A page whose every request and console error is recorded."""

    page: Page
    context: BrowserContext
    base: str
    requests: list[str] = field(default_factory=list)
    offsite: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    #: Whether a test has had this page, and the URL it was left at (PagePool.take).
    used: bool = False
    url: str = ""

    def goto(self, path: str) -> None:
        self.page.goto(self.base + path)
        self.page.wait_for_load_state("networkidle")

    def assert_clean(self) -> None:
        assert not self.offsite, f"requests that would leave 127.0.0.1: {self.offsite}"
        assert not self.errors, f"console errors: {self.errors}"
        assert not self.failed, f"failed requests: {self.failed}"


#: Material fetches the search index on every page load and its worker indexes all of it (1.2 MB
#: of text): about a third of the CPU of a page load. Tests that do not search get the index
#: with its ``config`` and no documents; the searches (their shared page, ``HOME``) and the
#: test that every kind of page loads cleanly (``tour``) get the real one.
SEARCH_INDEX = "search/search_index.json"
_empty_indexes: dict[str, str] = {}


def _empty_index(route) -> str:
    """The site's search index with its config kept and no documents (read once per URL)."""
    url = route.request.url
    if url not in _empty_indexes:
        real = route.fetch().json()
        _empty_indexes[url] = json.dumps({**real, "docs": []})
    return _empty_indexes[url]


def _open(browser: Browser, base: str, scheme: str = "light", *, search_index: bool = False) -> Watched:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme, service_workers="block")
    page = context.new_page()
    watched = Watched(page, context, base)
    origin = base[: -len(PREFIX) + 1]

    def on_route(route) -> None:
        url = route.request.url
        if url == base + SEARCH_INDEX and not search_index:
            route.fulfill(status=200, content_type="application/json", body=_empty_index(route))
        elif url.startswith(origin) or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            watched.offsite.append(url)
            route.abort()

    context.route("**/*", on_route)
    context.on("request", lambda request: watched.requests.append(request.url))
    context.on("requestfailed", lambda request: watched.failed.append(f"{request.url} ({request.failure})") if request.url.startswith(origin) else None)
    page.on("console", lambda message: watched.errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda exc: watched.errors.append(f"uncaught: {exc}"))
    return watched


@pytest.fixture
def web(browser: Browser, base_url: str) -> Iterator[Watched]:
    """A page of its own (a new context) for a test that reads no page another test reads."""
    watched = _open(browser, base_url)
    try:
        yield watched
    finally:
        watched.context.close()


class PagePool:
    """Pages loaded once per test worker and taken by every test that reads the same page: a
    load costs about 1.5 s of CPU (a new context 0.5 s more), most tests' own work a few tenths.

    A page is keyed by (path, palette preference, search index). Its records (requests, console
    errors) run from its load, so each test's ``assert_clean`` covers the load and every test on
    it so far. Before it is handed on, the pointer leaves, the focus goes, search and preview
    cards close and the light palette is back (``settle``): what the page looked like when
    loaded. A test that navigates away leaves it behind (the next taker loads it again), and
    ``pages`` (tests/conftest.py) closes whatever a failing test took, so no test sees the
    state a failure left. ``fresh=True``: a page no test has had, for what only a fresh load
    shows (the palette the preference picks, axe on the page as a reader gets it)."""

    def __init__(self, browser: Browser, base: str, size: int = 16) -> None:
        self._browser, self._base, self._size = browser, base, size
        self._pages: dict[tuple, Watched] = {}
        self.taken: list[tuple] = []

    def take(self, path: str, scheme: str = "light", *, search_index: bool = False, fresh: bool = False, then: Callable[[Watched], None] | None = None) -> Watched:
        """The page at ``path`` loaded with the ``scheme`` preference; ``then``: a step taken
        once after the load (e.g. a click that navigates), whose result the takers share."""
        key = (path, scheme, search_index, then.__name__ if then else "")
        watched = self._pages.pop(key, None)
        # (the URL's fragment aside: Material puts the heading scrolled to there)
        if watched is not None and ((fresh and watched.used) or watched.page.url.split("#")[0] != watched.url.split("#")[0]):
            watched.context.close()
            watched = None
        try:
            if watched is None:
                watched = _open(self._browser, self._base, scheme, search_index=search_index)
                watched.goto(path)
                if then is not None:
                    then(watched)
                watched.url = watched.page.url
            elif watched.used:
                _settle(watched.page, scheme)  # a page that will not settle fails the test taking it
        except BaseException:
            if watched is not None:
                watched.context.close()
            raise
        watched.used = True
        self._pages[key] = watched  # most recently taken last
        while len(self._pages) > self._size:
            self._pages.pop(next(iter(self._pages))).context.close()
        self.taken.append(key)
        return watched

    def discard(self, keys: list[tuple]) -> None:
        for key in keys:
            watched = self._pages.pop(key, None)
            if watched is not None:
                watched.context.close()

    def close(self) -> None:
        self.discard(list(self._pages))


def _settle(page: Page, scheme: str) -> None:
    """The page as loaded for the next test: pointer away, nothing focused, search closed, no
    preview card or tooltip showing, no search results (their articles have h1s of their own),
    the palette of the preference it was loaded with."""
    field = page.locator("input.md-search__input")
    if field.count() and field.input_value():
        field.fill("")
        field.press("End")  # Material searches on keyup: the emptied query empties the list
        expect(page.locator(".md-search-result__item")).to_have_count(0)
    if page.evaluate("!!document.querySelector('input[data-md-toggle=search]:checked')"):
        page.keyboard.press("Escape")
    expect(page.locator("input[data-md-toggle=search]")).not_to_be_checked()
    let_go(page, also="(() => { const card = document.getElementById('gg-preview'); return !card || card.hidden || getComputedStyle(card).display === 'none'; })()")
    switch_palette(page, scheme)


def let_go(page: Page, *, also: str = "true") -> None:
    """Move the pointer away, blur the focus and wait until no tooltip shows (and ``also``, a
    JS expression, holds): the page as a reader who moved on leaves it.

    Opacity 0 alone is not enough to wait for: it holds for a frame after Material makes a
    tooltip active, before its fade starts, and axe reading one mid-fade (opacity 0.58) sees
    a low contrast the settled tooltip does not have (CI caught both). Material inserts a
    title tooltip only while its host is hovered or focused and removes it 250 ms after,
    once faded out; with the pointer away and nothing focused, none can come back."""
    page.mouse.move(0, page.viewport_size["height"] - 1 if page.viewport_size else 0)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.wait_for_function(
        f"({also})"
        " && !document.querySelector('.md-tooltip--inline, .md-tooltip--active, .md-tooltip2--active')"
        " && [...document.querySelectorAll('.md-tooltip, .md-tooltip2')].every(t => getComputedStyle(t).opacity === '0')"
    )


@pytest.fixture(scope="module")
def glossary(real_project):
    return real_project.glossary


def _link_to(page: Page, url: str):
    """The first HTML link in the article whose resolved URL is ``url`` (relative or not)."""
    index = page.evaluate("(url) => [...document.querySelectorAll('article a')].findIndex(a => a.href === url)", url)
    assert index >= 0, f"no link to {url} in the article of {page.url}"
    return page.locator("article a").nth(index)


#: Pages several tests read (PagePool): a term page, and the home page as the searches use it
#: (the real search index).
WARP = "device-software/warp/"
HOME = {"path": "", "search_index": True}


# --- accessibility --------------------------------------------------------------------------


AXE_PAGES = {"home": HOME["path"], "term": WARP, "a-z": "a-z/", "diagram": "map/", "code": None, "whats-new": "whats-new/"}


def _page_with_python_snippet(glossary) -> str | None:
    """Highlighted Python has the most syntax colours (keywords, operators such as 'in')."""
    term = next((t for t in glossary.ordered_terms() if any(s.lang == "python" for s in t.snippets)), None)
    return f"{term.section}/{term.slug}/" if term else None


#: The palettes a reader can pick, as Material names them on ``<body data-md-color-scheme>``.
SCHEMES = {"light": "default", "dark": "slate"}


def switch_palette(page: Page, scheme: str) -> None:
    """Click the header's palette toggle until the page shows ``scheme`` (what a reader does;
    a page loaded with the dark preference is checked by the screenshot test). Both palettes
    are tested on one page load: a load costs about 3 s of CPU, axe about as much again."""
    body = page.locator("body")
    if body.get_attribute("data-md-color-scheme") != SCHEMES[scheme]:
        page.locator("form[data-md-component=palette] label:visible").first.click()
        let_go(page)  # the toggle keeps the pointer and the focus, so its tooltip fades in
    expect(body).to_have_attribute("data-md-color-scheme", SCHEMES[scheme])


def axe_violations(page: Page, context: str = "document") -> list[dict]:
    """axe-core's serious and critical violations on ``page`` as it is now (injected once)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate(f"async () => await axe.run({context}, {{resultTypes: ['violations']}})")
    return [v for v in result["violations"] if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("name", list(AXE_PAGES))
def test_axe_finds_no_serious_or_critical_violations(pages: PagePool, real_site: Path, glossary, name: str):
    """On a fresh load (the first test to take the shared page, if these run first), then
    handed on to the tests that read the same page."""
    path = AXE_PAGES[name] if name != "code" else _page_with_python_snippet(glossary)
    if name == "diagram" and not (real_site / "map/index.html").exists():
        pytest.skip("no map/ page in this build (no diagrams yet)")
    if path is None:
        pytest.skip("no term with a Python snippet")
    watched = pages.take(**HOME, fresh=True) if path == HOME["path"] else pages.take(path, fresh=True)
    reports = []
    for scheme in SCHEMES:
        switch_palette(watched.page, scheme)
        reports += [
            f"{scheme}: {v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])} nodes)\n" + "\n".join(f"    {n['target']} {n['html'][:160]}" for n in v["nodes"][:5])
            for v in axe_violations(watched.page)
        ]
    assert not reports, f"axe-core on /{path}:\n" + "\n".join(reports)
    watched.assert_clean()


# --- behaviour ----------------------------------------------------------------------------


def _browser_command_lines() -> list[list[str]]:
    """The command lines of the Chromium browser processes this test process started (its
    descendants without ``--type=``, which marks renderers, GPU and utility processes)."""
    parents: dict[int, int] = {}
    lines: dict[int, list[str]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            lines[int(entry.name)] = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        parents[int(entry.name)] = int(stat[stat.rfind(")") + 2 :].split()[1])

    def ours(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == os.getpid():
                return True
        return False

    return [line for pid, line in lines.items() if ours(pid) and "--remote-debugging-pipe" in line and not any(a.startswith("--type=") for a in line)]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the browser's command line from /proc (Linux)")
def test_chromium_runs_with_one_merged_disable_features_switch(browser: Browser):
    """Chromium keeps only the last ``--disable-features``: the browser must get exactly one,
    naming Playwright's features and ours (launch_options), or one of the two lists is lost."""
    (line,) = _browser_command_lines()
    switches = [arg.split("=", 1)[1].split(",") for arg in line if arg.startswith("--disable-features=")]
    assert len(switches) == 1, f"{len(switches)} --disable-features switches: {switches}"
    playwright_list = _playwright_disabled_features()
    assert playwright_list, "Playwright's --disable-features list not found in its driver (see _playwright_disabled_features)"
    missing = [name for name in (*playwright_list, *EXTRA_DISABLED_FEATURES) if name not in switches[0]]
    assert not missing, f"not disabled: {missing}"


def test_home_page_lists_the_sections(pages: PagePool, glossary):
    web = pages.take(**HOME)
    headings = [text.strip().rstrip("¶").strip() for text in web.page.locator("article h2").all_inner_texts()]
    assert headings[: len(glossary.sections)] == [section.title for section in glossary.sections]
    for section in glossary.sections:
        expect(web.page.locator("article a", has_text=section.title).first).to_be_visible()
    web.assert_clean()


def _after_clicking_warps_first_cross_reference(pages: PagePool, glossary) -> tuple[Watched, object]:
    """The warp page after a click on its first cross-reference, which Material's instant
    navigation swaps in without a load: (the page, the target term). Clicked once per worker
    and shared by the tests that read where it leads."""
    target = glossary.terms[glossary.links["warp"][0].target]
    path = f"{target.section}/{target.slug}/"

    def click_first_cross_reference(web: Watched) -> None:
        web.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=web.base[: -len(PREFIX)])
        _link_to(web.page, f"{web.base}{path}").click()
        web.page.wait_for_url(f"**{PREFIX}{path}")

    return pages.take(WARP, then=click_first_cross_reference), target


def test_clicking_a_cross_reference_opens_its_term(pages: PagePool, glossary):
    web, target = _after_clicking_warps_first_cross_reference(pages, glossary)
    expect(web.page.locator("article h1").first).to_contain_text(target.display_title)
    web.assert_clean()


def test_hovering_a_cross_reference_shows_the_target_summary(pages: PagePool, glossary):
    link = glossary.links["warp"][0]
    target = glossary.terms[link.target]
    web = pages.take(WARP)
    anchor = _link_to(web.page, f"{web.base}{target.section}/{target.slug}/")
    anchor.scroll_into_view_if_needed()
    anchor.hover()
    expect(anchor).to_have_attribute("aria-describedby", re.compile(r".+"))
    tooltip = web.page.locator(f"#{anchor.get_attribute('aria-describedby')}")
    expect(tooltip).to_be_visible()
    expect(tooltip.locator(".gg-preview__summary")).to_have_text(target.summary)  # the preview card (assets/preview.js)
    web.page.mouse.move(0, 0)
    expect(tooltip).to_be_hidden()
    web.assert_clean()


def _search(web: Watched, query: str, expected_href: str, within: int) -> list[str]:
    page = web.page
    page.keyboard.press("s")
    meta = page.locator(".md-search-result__meta")
    expect(page.locator("input.md-search__input")).to_be_focused()
    expect(meta).not_to_contain_text("Initializing", timeout=15_000)
    page.locator("input.md-search__input").fill("")
    page.keyboard.type(query, delay=30)
    expect(meta).to_contain_text("matching document", timeout=10_000)
    hrefs: list[str] = []

    def ranked() -> bool:
        hrefs[:] = [h.split("?")[0] for h in page.locator(".md-search-result__item > a").evaluate_all("els => els.map(e => e.href)")]
        return expected_href in hrefs[:within]

    for _ in range(50):  # results are rendered by a worker, a few ms after each key
        if ranked():
            break
        page.wait_for_timeout(100)
    return hrefs


def test_search_finds_a_term_by_its_abbreviation(pages: PagePool, glossary):
    sm = glossary.terms["streaming-multiprocessor"]
    assert sm.abbreviation == "SM"
    web = pages.take(**HOME)
    expected = f"{web.base}{sm.section}/{sm.slug}/"
    hrefs = _search(web, "SM", expected, within=10)
    assert expected in hrefs[:10], f"'SM' does not list {expected} in its first 10 results: {hrefs[:10]}"
    web.assert_clean()


def _distinct_alias(glossary) -> tuple[str, str]:
    """(alias, slug): the first alias in reading order that is one word found in no title."""
    titles = " ".join(t.display_title.lower() for t in glossary.terms.values())
    for term in glossary.ordered_terms():
        for alias in term.aliases:
            if alias.isalpha() and len(alias) >= 4 and alias.lower() not in titles:
                return alias, term.slug
    pytest.skip("no single-word alias that appears in no title")


def _luminance(rgb: str) -> float:
    values = [float(v) for v in re.findall(r"[\d.]+", rgb)[:3]]

    def channel(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in values)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)))
    return (lb + 0.05) / (la + 0.05)


def _page_with_diagram(real_site: Path, glossary) -> str | None:
    for term in glossary.ordered_terms():
        if term.diagrams:
            html = real_site / term.section / term.slug / "index.html"
            if html.exists() and "<svg" in html.read_text(encoding="utf-8"):
                return f"{term.section}/{term.slug}/"
    return None


def test_screenshots_of_a_term_page_in_both_palettes(pages: PagePool, glossary):
    """Each palette on a fresh load with that preference (the light page is then handed on)."""
    term = next((t for t in glossary.ordered_terms() if t.snippets and len(glossary.links[t.slug]) >= 5), glossary.ordered_terms()[0])
    ARTIFACTS.mkdir(exist_ok=True)
    for scheme in ("light", "dark"):
        watched = pages.take(f"{term.section}/{term.slug}/", scheme, fresh=True)
        page = watched.page
        expect(page.locator("body")).to_have_attribute("data-md-color-scheme", SCHEMES[scheme])  # the preference picks the palette
        page.screenshot(path=str(ARTIFACTS / f"term-{scheme}.png"))
        snippet = page.locator("article .tabbed-set").first
        if snippet.count():
            snippet.scroll_into_view_if_needed()
            snippet.screenshot(path=str(ARTIFACTS / f"term-{scheme}-snippet.png"))
        figure = page.locator("article figure").first
        if figure.count():
            figure.scroll_into_view_if_needed()
            figure.screenshot(path=str(ARTIFACTS / f"term-{scheme}-figure.png"))
        watched.assert_clean()
        assert (ARTIFACTS / f"term-{scheme}.png").stat().st_size > 10_000


def test_dark_palette_toggle_switches_scheme_and_keeps_diagrams_visible(pages: PagePool, glossary, real_site):
    path = _page_with_diagram(real_site, glossary) or WARP
    web = pages.take(path)
    page = web.page
    body = page.locator("body")
    expect(body).to_have_attribute("data-md-color-scheme", "default")
    light_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    switch_palette(page, "dark")  # the header toggle, as a reader clicks it
    dark_bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert _luminance(light_bg) > 0.8 and _luminance(dark_bg) < 0.05, (light_bg, dark_bg)
    text = page.evaluate("getComputedStyle(document.querySelector('article p')).color")
    assert _contrast(text, dark_bg) >= 4.5, f"body text {text} on {dark_bg}"
    figures = page.locator("article figure svg")
    for index in range(figures.count()):
        svg = figures.nth(index)
        svg.scroll_into_view_if_needed()
        box = svg.bounding_box()
        assert box is not None and box["width"] > 50 and box["height"] > 50, f"diagram {index} collapsed: {box}"
        expect(svg).to_be_visible()
        # Each label must stand out from what is behind it: the nearest filled shape, else the page.
        low = svg.evaluate(
            """(svg) => [...svg.querySelectorAll('text')].map(t => {
                 const fill = getComputedStyle(t).fill;
                 return [t.textContent.trim(), fill];
               }).filter(([s]) => s)"""
        )
        assert low, f"diagram {index} has no text labels"
        dark_text = [fill for _, fill in low if fill.startswith("rgb")]
        assert dark_text and max(_luminance(f) for f in dark_text) > 0.3, f"diagram {index}: labels stay dark in the dark scheme: {set(dark_text)}"
    page.reload()
    expect(body).to_have_attribute("data-md-color-scheme", "slate")  # the choice is remembered
    web.assert_clean()


def test_keyboard_n_and_p_follow_the_reading_order(pages: PagePool, glossary):
    section = next(s for s in glossary.sections if len(s.terms) >= 3)
    first, second, third = (glossary.terms[slug] for slug in section.terms[:3])
    web = pages.take(f"{section.slug}/{first.slug}/")
    page = web.page
    for key, term in (("n", second), ("n", third), ("p", second), ("p", first)):
        page.locator("body").press(key)
        page.wait_for_url(f"**{PREFIX}{section.slug}/{term.slug}/")
        expect(page.locator("article h1").first).to_contain_text(term.title)
        # let the page finish its own requests (favicon, search index) before leaving it,
        # so navigation does not abort them mid-flight
        page.wait_for_load_state("networkidle")
    page.locator("body").press("p")
    page.wait_for_url(f"**{PREFIX}{section.slug}/")  # before the first term: its section page
    web.assert_clean()


@dataclass(frozen=True)
class Visit:
    """What one page of the tour showed once loaded."""

    path: str
    headings: int  # ``article h1`` elements
    alternate: str  # resolved href of ``<link rel=alternate type=text/markdown>``
    describedby: str  # resolved href of ``<link rel=describedby type=text/markdown>``


@dataclass(frozen=True)
class Tour:
    """One page of every kind loaded in turn in one context with the real search index: the
    pages the clean-load test and the head-link test both read (one load each instead of
    two; a load costs about 3 s of CPU)."""

    visits: tuple[Visit, ...]
    #: The page that visited all but the home page, and the home page (the searches' shared one).
    watched: Watched
    home: Watched
    #: (page, its Markdown copy) as the head links name them.
    copies: tuple[tuple[str, str], ...]


@pytest.fixture(scope="module")
def tour(browser: Browser, base_url: str, glossary, real_site: Path, page_pool: PagePool) -> Iterator[Tour]:
    section = glossary.sections[0]
    first = glossary.terms[section.terms[0]]
    snippet_term = next((t for t in glossary.ordered_terms() if t.snippets), None)
    copies = (("", "llms.txt"), (f"{section.slug}/", f"llms-{section.slug}.txt"), (f"{first.section}/{first.slug}/", f"{first.section}/{first.slug}.md"), ("a-z/", "a-z.md"), ("rosetta/", "rosetta.md"))
    paths = [path for path, _ in copies]
    if snippet_term is not None:
        paths.append(f"{snippet_term.section}/{snippet_term.slug}/")
    if (real_site / "map/index.html").exists():
        paths.append("map/")
    home = page_pool.take(**HOME)
    watched = _open(browser, base_url, search_index=True)
    try:
        visits = []
        for path in dict.fromkeys(paths):
            if path == HOME["path"]:
                page = home.page
            else:
                watched.goto(path)
                page = watched.page
            visits.append(Visit(path, page.locator("article h1").count(), _head_link(page, "alternate"), _head_link(page, "describedby")))
        yield Tour(tuple(visits), watched, home, copies)
    finally:
        watched.context.close()


def test_pages_load_without_console_errors_or_offsite_requests(tour: Tour):
    kinds = {visit.path for visit in tour.visits}
    assert {"", "a-z/", "rosetta/"} <= kinds and len(kinds) >= 5, kinds  # home, indexes, a section, terms (one with a snippet), the map
    for visit in tour.visits:
        assert visit.headings == 1, visit.path
    for web in (tour.watched, tour.home):
        assert len(web.requests) > 10
        assert all(url.startswith(web.base) for url in web.requests), [u for u in web.requests if not u.startswith(web.base)]
        web.assert_clean()


def test_missing_page_gets_the_styled_404(web: Watched):
    response = web.page.goto(web.base + "no/such/page/")
    assert response is not None and response.status == 404
    web.page.wait_for_load_state("networkidle")
    expect(web.page.locator("h1")).to_contain_text("404")
    stylesheet = web.page.evaluate("[...document.styleSheets].filter(s => s.href && s.href.includes('/assets/stylesheets/main')).length")
    assert stylesheet == 1, "404.html loads Material's stylesheet from the site path"
    web.errors = [e for e in web.errors if "404" not in e]  # the page's own status
    web.assert_clean()


def test_cite_this_term_opens_from_the_keyboard(pages: PagePool):
    """The citation box is a <details>: Tab reaches its summary, Enter opens it, the text is then
    visible; Enter again closes it (as the page was for the next test)."""
    web = pages.take(WARP)
    summary = web.page.locator("details.glossary-cite summary")
    citation = web.page.locator("details.glossary-cite .glossary-cite-text")
    expect(citation).to_be_hidden()
    web.page.locator("p.glossary-dates").click()  # start the Tab order right before the box
    for _ in range(10):
        web.page.keyboard.press("Tab")
        if summary.evaluate("el => el === document.activeElement"):
            break
    assert summary.evaluate("el => el === document.activeElement"), "Tab reaches the summary"
    web.page.keyboard.press("Enter")
    expect(citation).to_be_visible()
    expect(citation).to_contain_text("/gpu-glossary/device-software/warp/")
    web.page.keyboard.press("Enter")
    expect(citation).to_be_hidden()
    web.assert_clean()


# --- screenshots ------------------------------------------------------------------------------




def _head_link(page: Page, rel: str) -> str:
    """The resolved href of the page's ``<link rel=... type="text/markdown">``, '' if none."""
    return page.evaluate("(rel) => { const l = document.querySelector(`head link[rel='${rel}'][type='text/markdown']`); return l ? l.href : ''; }", rel)


def test_every_page_head_names_its_markdown_copy_and_llms_txt(tour: Tour, real_site: Path):
    visits = {visit.path: visit for visit in tour.visits}
    web = tour.watched
    for path, copy in tour.copies:
        assert visits[path].alternate == web.base + copy, path
        assert visits[path].describedby == web.base + "llms.txt", path
        assert (real_site / copy).is_file(), copy
        response = web.page.request.get(web.base + copy)
        assert response.ok and response.text() == (real_site / copy).read_text(encoding="utf-8")
    web.assert_clean()


def test_copy_page_as_markdown_by_keyboard_puts_the_markdown_copy_on_the_clipboard(pages: PagePool, glossary, real_site: Path):
    term = glossary.terms["warp"]
    copy = real_site / term.section / f"{term.slug}.md"
    web = pages.take(f"{term.section}/{term.slug}/")
    web.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=web.base[: -len(PREFIX)])
    page = web.page
    page.evaluate("navigator.clipboard.writeText('nothing yet')")
    button = page.get_by_role("button", name="Copy page as Markdown")
    view = page.get_by_role("link", name="View as Markdown")
    expect(button).to_be_visible()
    expect(view).to_have_attribute("href", re.compile(r"\.md$"))
    assert page.evaluate("(a) => a.href", view.element_handle()) == f"{web.base}{term.section}/{term.slug}.md"
    # keyboard only: Tab from the title's permalink reaches the button, Enter presses it
    page.locator("article h1 a.headerlink").first.focus()
    for _ in range(5):
        if page.evaluate("document.activeElement && document.activeElement.classList.contains('gg-md-copy')"):
            break
        page.keyboard.press("Tab")
    expect(button).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".gg-md-status")).to_have_text("Copied to the clipboard.")
    assert page.evaluate("navigator.clipboard.readText()") == copy.read_text(encoding="utf-8")
    expect(button).to_be_focused()
    web.assert_clean()


def test_copy_button_works_after_instant_navigation(pages: PagePool, glossary, real_site: Path):
    """Material swaps pages in without reloading: the button on the new page must still copy."""
    web, target = _after_clicking_warps_first_cross_reference(pages, glossary)
    web.page.evaluate("navigator.clipboard.writeText('nothing yet')")
    button = web.page.get_by_role("button", name="Copy page as Markdown")
    expect(button).to_be_visible()
    button.click()
    expect(web.page.locator(".gg-md-status")).to_have_text("Copied to the clipboard.")
    assert web.page.evaluate("navigator.clipboard.readText()") == (real_site / target.section / f"{target.slug}.md").read_text(encoding="utf-8")
    web.assert_clean()
