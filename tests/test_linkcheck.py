"""Every internal link of the built site resolves: pages, anchors, assets and Markdown copies.

The checker reads each HTML file once with a parser (ids and every href/src, through
tests/built_site.py, whose resolver every link test shares), the Markdown copies, llms.txt, llms-full.txt, sitemap.xml and the CSS ``url()`` references.
Absolute URLs under ``site_url`` (canonical links, sitemap, llms.txt) are checked against
the local tree too. A second test proves the checker catches each kind of break.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import re
import threading
import time
from pathlib import Path

import pytest

from glossary_tool.cli import main
from glossary_tool.commands.linkcheck import collect
from glossary_tool.pipeline import load_project
from tests.built_site import SITE_URL, BuiltSite, prose_lines, urls
from tests.conftest import REPO, term_text, trio

MD_LINK = re.compile(r"\]\(\s*<([^>\n]*)>|\]\(\s*([^)\s<>]+)(?:\s+\"[^\"]*\")?\s*\)|<(https?://[^>\s]+)>")
CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")]+)['\"]?\s*\)")
SITEMAP_LOC = re.compile(r"<loc>([^<]+)</loc>")


def check_site(site: BuiltSite) -> list[str]:
    """Every broken internal reference, as 'page:line: url (why)'."""
    problems: list[str] = []

    def check(page: Path, line: int, url: str) -> None:
        why = site.problem(page, url)
        if why is not None:
            problems.append(f"{page.relative_to(site.root)}:{line}: {url} ({why})")

    for html in site.html_files():
        for url, line in urls(site.page(html)):
            check(html, line, url)
    for text in sorted([*site.root.rglob("*.md"), *site.root.glob("llms*.txt")]):
        for number, line_text in prose_lines(text.read_text(encoding="utf-8")):
            for match in MD_LINK.finditer(line_text):
                check(text, number, next(g for g in match.groups() if g is not None))
    for css in sorted(site.root.rglob("*.css")):
        for number, line_text in enumerate(css.read_text(encoding="utf-8").split("\n"), 1):
            for url in CSS_URL.findall(line_text):
                check(css, number, url)
    sitemap = site.root / "sitemap.xml"
    if sitemap.exists():
        for url in SITEMAP_LOC.findall(sitemap.read_text(encoding="utf-8")):
            check(sitemap, 1, url)
    return problems


def test_every_internal_link_of_the_real_site_resolves(built_site):
    problems = check_site(built_site)
    assert not problems, f"{len(problems)} broken internal link(s):\n" + "\n".join(problems[:50])


def test_checker_counts_what_it_checks(built_site):
    """Guard against a checker that passes because it looked at nothing."""
    pages = built_site.html_files()
    assert len(pages) > 200
    warp = built_site / "device-software/warp/index.html"
    internal = [u for u, _ in urls(built_site.page(warp)) if built_site.target(warp, u) is not None]
    assert len(internal) > 30 and any("#" in u for u in internal)


def test_checker_finds_each_kind_of_break(tmp_path):
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "assets").mkdir()
    (site / "assets/x.css").write_text("body { background: url('../missing.png'); } p { background: url(data:image/png;base64,AA==); }\n")
    (site / "index.html").write_text(
        '<html><head><link rel="stylesheet" href="assets/x.css"><script src="assets/gone.js"></script></head><body>'
        '<a href="a/">ok</a> <a href="a/#here">ok anchor</a> <a href="a/#nowhere">bad anchor</a> <a href="#top">bad local</a>'
        f'<a href="b/">missing page</a> <a href="https://example.org/">external</a> <a href="{SITE_URL}a/">canonical ok</a>'
        f'<a href="{SITE_URL}zzz/">canonical missing</a> <img src="../../etc/passwd"> <a href="javascript:alert(1)">x</a></body></html>\n'
    )
    (site / "a/index.html").write_text('<html><body><h2 id="here">Here</h2><a href="../index.md">md</a></body></html>\n')
    (site / "llms.txt").write_text(f"- [A]({SITE_URL}a/index.html): fine\n- [B](<{SITE_URL}b.md>): missing\n")
    problems = "\n".join(check_site(BuiltSite(site)))
    for needle in ("a/#nowhere (no id 'nowhere'", "#top (no id 'top'", "b/ (no such file", "assets/gone.js", "zzz/ (no such file", "../../etc/passwd (outside the site)",
                   "missing.png", "javascript:alert(1) (script URL)", "a/index.html:1: ../index.md", "b.md (no such file"):
        assert needle in problems, f"{needle!r} not reported in:\n{problems}"
    for fine in ("a/#here", "https://example.org", "data:image", f"{SITE_URL}a/ "):
        assert fine not in problems


@pytest.mark.parametrize("url", ["../index.html", "./", "#", "?q=1"])
def test_site_path_relative_forms(tmp_path, url):
    site = tmp_path
    (site / "a").mkdir()
    (site / "index.html").write_text("")
    (site / "a/index.html").write_text("")
    found = BuiltSite(site).target(site / "a/index.html", url)
    assert found is not None and found[0].name == "index.html"


# --- glossary links: external links, listed offline and checked against a local server ---

class _Handler(http.server.BaseHTTPRequestHandler):
    hits: list[tuple[str, str]] = []

    def log_message(self, *args) -> None:
        pass

    def _answer(self, body: bool) -> None:
        self.hits.append((self.command, self.path))
        path = self.path
        if path == "/slow":
            time.sleep(6)  # well past the client timeout, even on a loaded machine
        if path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/ok")
            self.end_headers()
            return
        if path == "/nohead" and self.command == "HEAD":
            self.send_response(405)
            self.end_headers()
            return
        status = 200 if path in ("/ok", "/nohead", "/slow", "/page") else 404
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "2")
        self.end_headers()
        if body:
            self.wfile.write(b"ok")

    def do_HEAD(self) -> None:
        with contextlib.suppress(ConnectionError):  # the client gave up on /slow
            self._answer(False)

    def do_GET(self) -> None:
        with contextlib.suppress(ConnectionError):
            self._answer(True)


@pytest.fixture
def local_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Handler.hits = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _links_glossary(make_glossary, base: str) -> Path:
    files = {rel: text.replace("https://docs.nvidia.com/cuda/cuda-c-programming-guide/", f"{base}/page") for rel, text in trio().items()}
    sources = f"sources:\n  - title: Good\n    url: {base}/ok#part\n  - title: Gone\n    url: {base}/missing\n  - title: Moved\n    url: {base}/moved\n  - title: No HEAD\n    url: {base}/nohead\n  - title: Slow\n    url: {base}/slow\n"
    body = (
        "A [[thread]] group on an [[streaming-multiprocessor|SM]].\n\n"
        f"See [the page]({base}/page) and <{base}/ok> and <a href=\"{base}/html-missing\">this</a>.\n\n"
        f"```\nnot a link: {base}/in-code\n```\n\n`{base}/in-span`\n"
    )
    text = term_text("Warp", body)
    head, rest = text.split("sources:\n", 1)
    rest = rest.split("---\n", 1)[1]
    files["device-software/warp.md"] = head + sources + "---\n" + rest
    return make_glossary(files)


def test_links_offline_lists_sources_and_body_links_with_positions(make_glossary, capsys):
    base = "https://example.invalid"
    root = _links_glossary(make_glossary, base)
    links = [link for link in collect(load_project(root).glossary, root) if link.path.endswith("warp.md")]
    got = [(link.kind, link.url, link.line, link.col) for link in links]
    assert got == [
        ("source", f"{base}/ok#part", 6, 10),
        ("source", f"{base}/missing", 8, 10),
        ("source", f"{base}/moved", 10, 10),
        ("source", f"{base}/nohead", 12, 10),
        ("source", f"{base}/slow", 14, 10),
        ("body", f"{base}/page", 18, 16),
        ("body", f"{base}/ok", 18, 51),
        ("body", f"{base}/html-missing", 18, 92),
    ], "nothing from code blocks or code spans, in file order, 1-based columns"
    assert main(["--root", str(root), "links"]) == 0
    captured = capsys.readouterr()
    assert f"glossary/device-software/warp.md:8:10: source: {base}/missing" in captured.out.splitlines()
    assert "10 external link(s), 7 distinct URL(s); not checked" in captured.err


def test_links_offline_on_the_real_glossary_needs_no_network(capsys, monkeypatch):
    import socket

    def refuse(*args, **kwargs):
        raise AssertionError("glossary links without --online opened a socket")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    assert main(["--root", str(REPO), "links"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) > 100 and all(": source: http" in line or ": body: http" in line for line in out)


def test_links_online_against_a_local_server(make_glossary, local_server, tmp_path, capsys):
    root = _links_glossary(make_glossary, local_server)
    cache = tmp_path / "links-cache.json"
    assert main(["--root", str(root), "links", "--online", "--timeout", "2", "--cache", str(cache)]) == 1
    captured = capsys.readouterr()
    broken = sorted(line for line in captured.out.splitlines() if line)
    col = len(f'See [the page]({local_server}/page) and <{local_server}/ok> and <a href="') + 1
    assert broken == [
        f"glossary/device-software/warp.md:14:10: error: source link {local_server}/slow does not answer: timed out [link-broken]",
        f"glossary/device-software/warp.md:18:{col}: error: body link {local_server}/html-missing does not answer: HTTP 404 [link-broken]",
        f"glossary/device-software/warp.md:8:10: error: source link {local_server}/missing does not answer: HTTP 404 [link-broken]",
    ]
    assert "7 distinct URL(s), 0 from cache, 3 broken" in captured.err and "Traceback" not in captured.err
    assert ("GET", "/nohead") in _Handler.hits, "HEAD refused with 405: retried with GET"
    assert ("HEAD", "/slow") in _Handler.hits and ("GET", "/slow") not in _Handler.hits, "a HEAD that timed out is not waited on again with GET"
    data = json.loads(cache.read_text())
    assert data["version"] == 1 and data["urls"][f"{local_server}/ok"]["ok"] is True, "fragment dropped before checking"
    assert data["urls"][f"{local_server}/missing"] == {"ok": False, "status": 404, "error": None, "checked": data["urls"][f"{local_server}/missing"]["checked"]}

    _Handler.hits.clear()
    assert main(["--root", str(root), "links", "--online", "--timeout", "2", "--cache", str(cache)]) == 1
    err = capsys.readouterr().err
    assert "4 from cache, 3 broken" in err
    asked = {path for _, path in _Handler.hits}
    assert asked == {"/missing", "/slow", "/html-missing"}, "good answers come from the cache; failures are asked again"


def test_links_damaged_cache_is_ignored(make_glossary, local_server, tmp_path, capsys):
    files = trio()
    files["device-software/thread.md"] = files["device-software/thread.md"].replace("https://docs.nvidia.com/cuda/cuda-c-programming-guide/", f"{local_server}/ok")
    files["device-software/warp.md"] = files["device-software/warp.md"].replace("https://docs.nvidia.com/cuda/cuda-c-programming-guide/", f"{local_server}/ok")
    files["device-hardware/streaming-multiprocessor.md"] = files["device-hardware/streaming-multiprocessor.md"].replace("https://docs.nvidia.com/cuda/cuda-c-programming-guide/", f"{local_server}/page")
    root = make_glossary(files)
    cache = tmp_path / "cache.json"
    for junk in ("{not json", json.dumps({"version": 1, "urls": {"x": {"ok": "yes"}}}), json.dumps([1, 2])):
        cache.write_text(junk)
        assert main(["--root", str(root), "links", "--online", "--cache", str(cache)]) == 0
        assert "2 distinct URL(s), 0 from cache, 0 broken" in capsys.readouterr().err
    assert json.loads(cache.read_text())["urls"][f"{local_server}/ok"]["ok"] is True


def test_links_on_unreachable_port_is_a_diagnostic_not_a_traceback(make_glossary, capsys):
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    files = trio()
    files["device-software/warp.md"] = files["device-software/warp.md"].replace("https://docs.nvidia.com/cuda/cuda-c-programming-guide/", f"http://127.0.0.1:{port}/x")
    root = make_glossary(files)
    assert main(["--root", str(root), "links", "--online", "--timeout", "2"]) == 1
    out = capsys.readouterr().out
    assert f"warp.md:6:10: error: source link http://127.0.0.1:{port}/x does not answer:" in out and "[link-broken]" in out
