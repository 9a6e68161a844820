"""``glossary links``: list the external links of the glossary and, with ``--online``, check them.

Links come from each term's ``sources`` and from its body (Markdown links, autolinks and
``href``/``src`` in inline HTML), with the file position they were written at. Listing
needs no network. ``--online`` fetches each distinct URL once (HEAD, then GET where HEAD
is refused), in parallel, each with a timeout, and remembers good answers in a JSON cache
so a re-run only asks again about links that failed or whose answer is older than
``--max-age`` days. It is meant for a person or a scheduled job, never for CI: the web is
not reproducible.
"""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urldefrag

from glossary_tool.atomic import write_text
from glossary_tool.diagnostics import Diagnostic, error, render
from glossary_tool.model import Glossary, Term

USER_AGENT = "gpu-glossary-links/1 (+https://github.com/gpu-glossary/gpu-glossary)"
CACHE_VERSION = 1
_HTML_URL = re.compile(r"""\b(?:href|src)\s*=\s*["']?(https?://[^"'\s>]+)""", re.I)
#: Statuses that mean "HEAD not welcome here", answered by trying GET.
_RETRY_WITH_GET = {400, 403, 404, 405, 406, 429, 500, 501, 502, 503}


@dataclass(frozen=True)
class ExternalLink:
    url: str
    path: str
    line: int
    col: int
    #: "source" (front matter) or "body"
    kind: str

    def format(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.kind}: {self.url}"


@dataclass(frozen=True)
class Result:
    url: str
    ok: bool
    status: int | None
    error: str | None
    checked: float

    def reason(self) -> str:
        return f"HTTP {self.status}" if self.status is not None else (self.error or "no answer")


def _position(lines: list[str], url: str, start: int) -> tuple[int, int]:
    """1-based (line, col) of ``url`` at or after 0-based line ``start``; else ``start``."""
    for number in range(max(start, 0), len(lines)):
        col = lines[number].find(url)
        if col >= 0:
            return number + 1, col + 1
    return start + 1, 1


def _body_urls(term: Term) -> Iterable[tuple[str, int]]:
    """(url, 0-based body line where its block starts) for every external URL in the body."""
    from glossary_tool.load.body import parser

    for token in parser().parse(term.body):
        start = (token.map or (0, 0))[0]
        if token.type == "html_block":
            for match in _HTML_URL.finditer(token.content):
                yield match.group(1), start
        if token.type != "inline":
            continue
        for child in token.children or []:
            if child.type == "link_open":
                href = str(child.attrs.get("href", ""))
                if href.startswith(("http://", "https://")):
                    yield href, start
            elif child.type == "html_inline":
                for match in _HTML_URL.finditer(child.content):
                    yield match.group(1), start


def collect(glossary: Glossary, root: Path) -> list[ExternalLink]:
    """Every external link of every term and section page, in reading order."""
    pages: list[Term] = []
    if glossary.home is not None and glossary.home.page is not None:
        pages.append(glossary.home.page)
    for section in glossary.sections:
        if section.page is not None:
            pages.append(section.page)
        pages.extend(glossary.terms[slug] for slug in section.terms if slug in glossary.terms)
    found: list[ExternalLink] = []
    for page in pages:
        try:
            lines = (root / page.path).read_text(encoding="utf-8-sig").replace("\r\n", "\n").split("\n")
        except (OSError, UnicodeDecodeError):
            lines = []
        fm_start = page.line_of("sources") - 1
        for source in page.sources:
            line, col = _position(lines, source.url, fm_start)
            found.append(ExternalLink(source.url, page.path, line, col, "source"))
        for url, start in _body_urls(page):
            line, col = _position(lines, url, page.body_offset + start)
            found.append(ExternalLink(url, page.path, line, col, "body"))
    return found


def _fetch(url: str, timeout: float) -> Result:
    """One URL: HEAD, then GET if HEAD is refused. Never raises.

    A HEAD that times out is not asked again with GET: a server that answers neither in the
    timeout would cost every dead link twice the wait (an online check of the real glossary
    waits on its dead hosts, not on the live ones)."""
    status: int | None = None
    problem: str | None = None
    for method in ("HEAD", "GET"):
        request = urllib.request.Request(url, method=method, headers={"User-Agent": USER_AGENT, "Accept": "*/*"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - http(s) only, checked by the caller
                if method == "GET":
                    response.read(1024)
                return Result(url, True, response.status, None, time.time())
        except urllib.error.HTTPError as exc:
            status, problem = exc.code, None
            if exc.code not in _RETRY_WITH_GET:
                break
        except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
            status = None
            reason = getattr(exc, "reason", exc)
            problem = "timed out" if isinstance(reason, TimeoutError) or "timed out" in str(reason) else str(reason)
            if problem == "timed out":
                break
        except Exception as exc:  # a malformed answer must not stop the other checks
            status, problem = None, f"{type(exc).__name__}: {exc}"
    return Result(url, False, status, problem, time.time())


def load_cache(path: Path | None) -> dict[str, Result]:
    if path is None or not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != CACHE_VERSION:
            return {}
        return {url: Result(url, bool(v["ok"]), v.get("status"), v.get("error"), float(v["checked"])) for url, v in data["urls"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}  # a damaged cache is only a slower run


def save_cache(path: Path, results: dict[str, Result]) -> None:
    data = {"version": CACHE_VERSION, "urls": {url: {"ok": r.ok, "status": r.status, "error": r.error, "checked": round(r.checked, 3)} for url, r in sorted(results.items())}}
    write_text(path, json.dumps(data, indent=1, sort_keys=True) + "\n")


def check_online(
    urls: Iterable[str],
    *,
    timeout: float,
    jobs: int = 8,
    cache: dict[str, Result] | None = None,
    max_age_s: float = 7 * 86400,
    fetch: Callable[[str, float], Result] = _fetch,
) -> tuple[dict[str, Result], int]:
    """Results for each distinct URL (fragment removed) and how many came from the cache."""
    cache = cache or {}
    now = time.time()
    distinct = sorted({urldefrag(url).url for url in urls})
    results: dict[str, Result] = {}
    todo = []
    for url in distinct:
        cached = cache.get(url)
        if cached is not None and cached.ok and now - cached.checked < max_age_s:
            results[url] = cached
        else:
            todo.append(url)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for result in pool.map(lambda u: fetch(u, timeout), todo):
            results[result.url] = result
    return results, len(distinct) - len(todo)


def broken_diagnostics(links: list[ExternalLink], results: dict[str, Result]) -> list[Diagnostic]:
    out = []
    for link in links:
        result = results.get(urldefrag(link.url).url)
        if result is not None and not result.ok:
            out.append(error(link.path, link.line, link.col, "link-broken", f"{link.kind} link {link.url} does not answer: {result.reason()}"))
    return out


def run_links(root: Path, *, online: bool, cache_path: Path | None, timeout: float, jobs: int, max_age_days: float) -> int:
    from glossary_tool.pipeline import load_project

    loaded = load_project(root, check_records=False)
    links = collect(loaded.glossary, root)
    distinct = {urldefrag(link.url).url for link in links}
    if not online:
        for link in links:
            print(link.format())
        print(f"links: {len(links)} external link(s), {len(distinct)} distinct URL(s); not checked (use --online)", file=sys.stderr)
        return 0
    cache = load_cache(cache_path)
    started = time.monotonic()
    results, cached = check_online((link.url for link in links), timeout=timeout, jobs=jobs, cache=cache, max_age_s=max_age_days * 86400)
    if cache_path is not None:
        save_cache(cache_path, {**cache, **results})
    problems = broken_diagnostics(links, results)
    if problems:
        print(render(problems))
    bad = sum(not r.ok for r in results.values())
    print(f"links: {len(distinct)} distinct URL(s), {cached} from cache, {bad} broken, in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 1 if bad else 0
