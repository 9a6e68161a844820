"""Publishing: page dates from git, the What's new page and Atom feed, terms.json, JSON-LD,
"Cite this term", the footer's build line, and CITATION.cff / CHANGELOG.md.

A small glossary is committed to a fresh git repository at fixed dates, built once, and its
outputs are read back with parsers (feedparser, BeautifulSoup, lxml, jsonschema).
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import logging
import os
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup
from lxml import etree

from benchmarks.generate import generate
from glossary_tool import __version__
from glossary_tool.cli import main
from glossary_tool.model import Term
from glossary_tool.pipeline import load_project
from glossary_tool.publish.feed import recent_changes
from glossary_tool.publish.history import NO_GIT, NOT_COMMITTED, SHALLOW, FileDates, parse_log, read_history, snippets_verified
from glossary_tool.publish.parts import bibtex, citation_text
from tests.conftest import REPO, TRIO_TOC, term_text, trio, with_site_config, write_glossary
from tests.test_workflows import load as load_yaml
from tests.test_workflows import validate

DAY = 86400
T0 = 1_790_000_000  # 2026-09-21 14:13:20 UTC
SCHEMA = Path(__file__).parent / "schemas" / "terms.schema.json"


def git(root: Path, *args: str, when: int | None = None) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env).stdout


def commit(root: Path, message: str, when: int) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message, when=when)
    return git(root, "rev-parse", "HEAD").strip()


def day(n: int) -> str:
    return dt.datetime.fromtimestamp(T0 + n * DAY, dt.UTC).strftime("%Y-%m-%d")


@pytest.fixture(autouse=True)
def _no_parent_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git must not find a repository above the test's folder."""
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)


# --- history -------------------------------------------------------------------------------


def test_one_log_pass_dates_added_changed_renamed_and_recreated_files(make_glossary, tmp_path):
    root = make_glossary(trio())
    git(root, "init", "-q", "-b", "main")
    commit(root, "three terms", T0)
    thread = root / "glossary/device-software/thread.md"
    thread.write_text(thread.read_text() + "\nOne more sentence.\n")
    second = commit(root, "thread edited", T0 + DAY)
    git(root, "mv", "glossary/device-hardware/streaming-multiprocessor.md", "glossary/device-hardware/sm.md")
    commit(root, "renamed", T0 + 2 * DAY)
    warp = root / "glossary/device-software/warp.md"
    text = warp.read_text()
    warp.unlink()
    commit(root, "warp deleted", T0 + 3 * DAY)
    warp.write_text(text.replace("Warp", "Warp Again"))
    fifth = commit(root, "warp written anew", T0 + 4 * DAY)
    (root / "glossary/device-software/lane.md").write_text(term_text("Lane", "A [[thread]].\n"))

    history = read_history(root)
    assert history.fallback == "" and history.head == fifth and history.dirty
    t = history.dates("glossary/device-software/thread.md")
    assert (t.updated.timestamp(), t.added.timestamp(), t.commit, t.exact, t.is_new) == (T0 + DAY, T0, second, True, False)
    sm = history.dates("glossary/device-hardware/sm.md")
    assert (sm.updated.timestamp(), sm.added.timestamp(), sm.is_new) == (T0 + 2 * DAY, T0, False), "a rename keeps the first-added date"
    assert "glossary/device-hardware/streaming-multiprocessor.md" not in history.files
    w = history.dates("glossary/device-software/warp.md")
    assert (w.updated.timestamp(), w.added.timestamp(), w.is_new) == (T0 + 4 * DAY, T0 + 4 * DAY, True), "a file re-created after a deletion is new"
    lane = history.dates("glossary/device-software/lane.md")
    assert (lane.updated, lane.exact, lane.note) == (None, False, NOT_COMMITTED)
    with pytest.raises(TypeError):
        history.files["x"] = t  # a read-only mapping


def test_shallow_clone_dates_what_it_cannot_see_as_on_or_before(make_glossary, tmp_path):
    root = make_glossary(trio())
    git(root, "init", "-q", "-b", "main")
    commit(root, "three terms", T0)
    warp = root / "glossary/device-software/warp.md"
    warp.write_text(warp.read_text() + "\nEdited.\n")
    commit(root, "warp", T0 + DAY)
    thread = root / "glossary/device-software/thread.md"
    thread.write_text(thread.read_text() + "\nEdited.\n")
    commit(root, "thread", T0 + 2 * DAY)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{root}", str(clone))
    history = read_history(clone)
    assert "shallow clone" in history.fallback and "fetch-depth: 0" in history.fallback
    thread_dates = history.dates("glossary/device-software/thread.md")
    assert thread_dates.exact and thread_dates.updated.timestamp() == T0 + 2 * DAY and not thread_dates.is_new
    for path in ("glossary/device-software/warp.md", "glossary/device-hardware/streaming-multiprocessor.md"):
        dates = history.dates(path)  # the boundary commit lists every file: existed then, changed when unknown
        assert (dates.exact, dates.updated.timestamp(), dates.note) == (False, T0 + DAY, SHALLOW), path


def test_no_git_uses_source_date_epoch_or_no_date(make_glossary, monkeypatch):
    root = make_glossary(trio())
    history = read_history(root)
    assert history.head is None and "not a git work tree" in history.fallback and "no dates" in history.fallback
    assert history.dates("glossary/device-software/warp.md").updated is None
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(T0))
    dates = read_history(root).dates("glossary/device-software/warp.md")
    assert (dates.updated.timestamp(), dates.exact, dates.note) == (T0, False, NO_GIT)
    monkeypatch.setenv("PATH", "/nonexistent")
    assert "git is not installed" in read_history(root).fallback


def test_parse_log_reads_nul_separated_output_with_odd_names():
    text = "\x1eaaa 200\0\nM\0glossary/a b.md\0R087\0glossary/old.md\0glossary/new.md\0\x1ebbb 100\0\nA\0glossary/a b.md\0A\0glossary/old.md\0"
    dates = parse_log(text)
    assert dates["glossary/a b.md"].updated.timestamp() == 200 and dates["glossary/a b.md"].added.timestamp() == 100
    assert dates["glossary/new.md"].added_commit == "bbb" and dates["glossary/new.md"].commit == "aaa"
    copied = parse_log("\x1eccc 300\0\nC100\0glossary/a b.md\0glossary/copy.md\0" + text)
    assert copied["glossary/copy.md"].is_new and copied["glossary/a b.md"].updated.timestamp() == 200


def test_real_history_gives_the_feed_at_least_twenty_entries():
    history = read_history(REPO)
    if history.head is None or history.fallback:
        pytest.skip("no full git history in this checkout")
    loaded = load_project(REPO, check_records=False)
    changes = recent_changes(loaded.glossary, history, lambda t: t.path)
    assert len(changes) >= 20
    assert [c.date for c in changes] == sorted((c.date for c in changes), reverse=True)


def test_snippets_verified_reads_the_newest_passing_record(tmp_path):
    root = generate(tmp_path / "gen", 12)
    loaded = load_project(root)
    term = next(t for t in loaded.glossary.ordered_terms() if t.snippets)
    verified = snippets_verified(loaded.project.records_dir, term)
    records = sorted((root / "snippets" / term.section / term.slug).rglob("*.json"))  # one per GPU
    data = [json.loads(record.read_text()) for record in records]
    assert verified is not None and verified.date == max(d["date"] for d in data)
    assert verified.gpus == tuple(sorted({d["machine"]["gpu_name"] for d in data}))
    for record, one in zip(records, data, strict=True):
        one["status"] = "failed"
        record.write_text(json.dumps(one))
    assert snippets_verified(loaded.project.records_dir, term) is None


def test_citations_escape_bibtex_and_carry_url_and_date():
    term = Term("c-plus-plus", "host-software", "x.md", "C++ & 50% of {braces}_x", "S.", "", 0)
    dates = FileDates(dt.datetime(2026, 11, 22, tzinfo=dt.UTC), exact=True)
    entry = bibtex(term, "https://example.org/c/", "GPU Glossary", dates)
    assert r"{{C++ \& 50\% of \{braces\}\_x}}" in entry and "url          = {https://example.org/c/}" in entry
    assert "month        = nov," in entry and "Last updated 2026-11-22" in entry
    assert entry.count("{") - entry.count(r"\{") == entry.count("}") - entry.count(r"\}"), "balanced braces"
    text = citation_text(term, "https://example.org/c/", "GPU Glossary", FileDates(None, note=NO_GIT))
    assert text.endswith("Last updated unknown (built without git history). https://example.org/c/")


# --- the built site ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """Three terms committed on day 0, thread edited on day 1, a fourth term added on day 2."""
    base = tmp_path_factory.mktemp("publish")
    old = os.environ.get("GIT_CEILING_DIRECTORIES")
    os.environ["GIT_CEILING_DIRECTORIES"] = str(base.parent)
    try:
        root = with_site_config(write_glossary(base / "repo", trio(), TRIO_TOC))
        git(root, "init", "-q", "-b", "main")
        shas = {"first": commit(root, "three terms", T0)}
        thread = root / "glossary/device-software/thread.md"
        thread.write_text(thread.read_text() + "\nThreads of a [[warp]] share its program counter on older GPUs.\n")
        shas["thread"] = commit(root, "thread edited", T0 + DAY)
        lane = term_text("Lane", "One [[thread]] of a [[warp]].\n", abbreviation="LN", aliases=["SIMT lane"])
        write_glossary(root, {"device-software/lane.md": lane}, {**TRIO_TOC, "device-software": [*TRIO_TOC["device-software"], "lane"]})
        shas["lane"] = commit(root, "lane added", T0 + 2 * DAY)
        site = base / "site"
        assert main(["--root", str(root), "build", "--out", str(site)]) == 0
        return root, site, shas
    finally:
        if old is None:
            os.environ.pop("GIT_CEILING_DIRECTORIES", None)
        else:
            os.environ["GIT_CEILING_DIRECTORIES"] = old


def page(site: Path, rel: str) -> BeautifulSoup:
    return BeautifulSoup((site / rel / "index.html").read_text(encoding="utf-8"), "html.parser")


def site_url(root: Path) -> str:
    return re.search(r"^site_url:\s*(\S+)", (root / "mkdocs.yml").read_text(), re.M).group(1)


def test_feed_is_atom_newest_first_with_added_and_changed_terms(built):
    feedparser = pytest.importorskip("feedparser")
    root, site, shas = built
    feed = feedparser.parse((site / "feed.xml").read_bytes())
    assert feed.bozo == 0 and feed.version == "atom10"
    assert [e.title for e in feed.entries] == ["Lane (LN)", "Thread", "Streaming Multiprocessor (SM)", "Warp"], "newest first; ties in reading order"
    assert [e.tags[0].term for e in feed.entries] == ["added", "changed", "added", "added"]
    assert [e.updated[:10] for e in feed.entries] == [day(2), day(1), day(0), day(0)]
    assert feed.feed.updated[:10] == day(2)
    base = site_url(root)
    for entry in feed.entries:
        assert entry.link.startswith(base) and (site / entry.link[len(base) :] / "index.html").is_file()
        assert entry.summary == f"The {entry.title.split(' (')[0]} term, used by the tests."
    assert len({e.id for e in feed.entries}) == 4 and shas["thread"][:12] in feed.entries[1].id
    assert any(link.rel == "self" and link.href == base + "feed.xml" for link in feed.feed.links)


def test_feed_is_linked_from_every_head_and_listed_in_the_sitemap(built):
    root, site, _ = built
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 8
    for html_file in pages:
        soup = BeautifulSoup(html_file.read_text(encoding="utf-8"), "html.parser")
        (link,) = soup.head.find_all("link", rel="alternate", type="application/atom+xml")
        if html_file.name == "404.html":  # served at any depth, so it links from the site's root path
            assert link["href"] == urlsplit(site_url(root)).path + "feed.xml"
        else:
            assert (html_file.parent / link["href"]).resolve() == (site / "feed.xml").resolve(), html_file
    sitemap = etree.parse(str(site / "sitemap.xml"))
    locs = sitemap.xpath("//s:loc/text()", namespaces={"s": "http://www.sitemaps.org/schemas/sitemap/0.9"})
    assert site_url(root) + "feed.xml" in locs and site_url(root) + "whats-new/" in locs
    assert gzip.decompress((site / "sitemap.xml.gz").read_bytes()) == (site / "sitemap.xml").read_bytes()


def test_whats_new_page_lists_the_changes_with_links(built):
    _, site, _ = built
    soup = page(site, "whats-new")
    rows = soup.select(".glossary-whats-new tbody tr")
    assert [r.find("a").get_text() for r in rows] == ["Lane (LN)", "Thread", "Streaming Multiprocessor (SM)", "Warp"]
    assert [r.find("time")["datetime"] for r in rows] == [day(2), day(1), day(0), day(0)]
    for row in rows:
        assert (site / "whats-new" / row.find("a")["href"] / "index.html").resolve().is_file()
    feed_link = soup.select_one('.glossary-whats-new a[type="application/atom+xml"]')
    assert (site / "whats-new" / feed_link["href"]).resolve() == (site / "feed.xml").resolve()
    nav = [a.get_text(strip=True) for a in page(site, "").select("nav.md-nav--primary a")]
    assert "What’s new" in nav
    index = json.loads((site / "search/search_index.json").read_text(encoding="utf-8"))
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert "whats-new/" not in locations and "device-software/warp/" in locations, "search finds terms, not their change list"


def test_term_pages_show_dates_citation_and_json_ld(built):
    root, site, _ = built
    base = site_url(root)
    for rel, updated, names in (("device-software/thread", day(1), None), ("device-software/lane", day(2), ["LN", "SIMT lane"]), ("device-software/warp", day(0), None)):
        soup = page(site, rel)
        url = base + rel + "/"
        (dates,) = soup.select("article p.glossary-dates")
        assert dates.find("time")["datetime"] == updated and "Text last changed" in dates.get_text()
        details = soup.select_one("article details.glossary-cite")
        summary = details.find("summary")
        assert summary.get_text() == "Cite this term" and details.find("summary") is details.contents[0], "summary first: the keyboard opens it"
        plain = details.select_one(".glossary-cite-text").get_text()
        assert url in plain and f"Last updated {updated}" in plain
        bib = details.select_one(".highlight code").get_text()
        assert f"url          = {{{url}}}" in bib and f"Last updated {updated}" in bib and bib.startswith("@misc{gpu-glossary-")
        (script,) = soup.find_all("script", type="application/ld+json")
        data = json.loads(script.string)
        assert data["@type"] == "DefinedTerm" and data["url"] == url and data["dateModified"] == updated
        assert data["name"] == soup.find("h1").get_text(strip=True).split(" (")[0].rstrip("¶")
        assert data.get("alternateName") == names
        assert data["inDefinedTermSet"]["@type"] == "DefinedTermSet" and data["inDefinedTermSet"]["url"] == base
        assert data["description"].endswith("used by the tests.")


def test_footer_names_tool_version_and_content_commit(built):
    root, site, shas = built
    for rel in ("", "device-software/warp", "whats-new"):
        note = page(site, rel).select_one("footer .md-copyright .glossary-build")
        assert __version__ in note.get_text() and note.find("code").get_text() == shas["lane"][:12]
        assert note.find("a")["href"].endswith(f"/commit/{shas['lane']}")


def test_terms_json_matches_its_schema_and_the_glossary(built):
    jsonschema = pytest.importorskip("jsonschema")
    root, site, _ = built
    document = json.loads((site / "terms.json").read_text(encoding="utf-8"))
    jsonschema.validate(document, json.loads(SCHEMA.read_text()))
    by_slug = {t["slug"]: t for t in document["terms"]}
    assert list(by_slug) == ["streaming-multiprocessor", "warp", "thread", "lane"], "reading order"
    sm = by_slug["streaming-multiprocessor"]
    assert (sm["abbreviation"], sm["aliases"], sm["updated"]) == ("SM", ["multiprocessor"], day(0))
    assert by_slug["lane"]["links"] == ["thread", "warp"] and by_slug["thread"]["updated"] == day(1)
    base = site_url(root)
    for term in document["terms"]:
        assert (site / term["url"][len(base) :] / "index.html").is_file()
    broken = dict(document, terms=[dict(document["terms"][0], slug="Not A Slug")])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, json.loads(SCHEMA.read_text()))


def test_a_tarball_without_git_builds_and_says_so(built, tmp_path, caplog):
    root, _, _ = built
    copy = tmp_path / "tarball"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git"))
    site = tmp_path / "site"
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.glossary.publish"):
        assert main(["--root", str(copy), "build", "--strict", "--out", str(site)]) == 0, "--strict too: a missing history is no error"
    assert "page dates: not a git work tree with commits; pages show no dates" in caplog.text
    dates = page(site, "device-software/warp").select_one("p.glossary-dates").get_text()
    assert "unknown (built without git history)" in dates
    assert "content commit unknown" in page(site, "").select_one(".glossary-build").get_text()
    feedparser = pytest.importorskip("feedparser")
    feed = feedparser.parse((site / "feed.xml").read_bytes())
    assert feed.bozo == 0 and feed.entries == [] and feed.feed.updated.startswith("1970-01-01")
    assert "No dated changes" in page(site, "whats-new").select_one(".glossary-whats-new").get_text()


# --- CITATION.cff and CHANGELOG.md ---------------------------------------------------------


def test_citation_cff_is_valid_and_current():
    cff = load_yaml(REPO / "CITATION.cff")
    validate(cff, "citation-file-format")
    assert cff["cff-version"] == "1.2.0" and cff["version"] == __version__
    import tomllib

    assert tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"] == __version__
    assert cff["url"] == site_url(REPO) and cff["repository-code"] == re.search(r"^repo_url:\s*(\S+)", (REPO / "mkdocs.yml").read_text(), re.M).group(1)
    broken = dict(cff, authors=[])
    with pytest.raises(AssertionError):
        validate(broken, "citation-file-format")


def test_changelog_follows_keep_a_changelog_and_lists_this_version():
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.M)
    assert headings[0] == ("Unreleased", "")
    versions = [v for v, _ in headings[1:]]
    assert __version__ in versions and all(date for _, date in headings[1:])
    for kind in re.findall(r"^### (.+)$", text, re.M):
        assert kind in {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kind
    links = dict(re.findall(r"^\[([^\]]+)\]: (\S+)$", text, re.M))
    assert set(links) >= {"Unreleased", __version__}
