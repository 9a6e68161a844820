"""``glossary check --changed``: what it reports, and that it reports what a full check would.

The git tests build a real repository in a temporary folder; the equivalence tests mutate
a glossary at random and compare :func:`check_paths` with a full ``load_project``.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from glossary_tool.cli import main
from glossary_tool.commands.changed import check_changed, check_paths, front_matter, raw_targets
from glossary_tool.diagnostics import Diagnostic
from glossary_tool.load import frontmatter
from glossary_tool.load.body import parse_body
from glossary_tool.pipeline import load_project
from glossary_tool.text import normalize_name
from tests.conftest import REPO, term_text, write_glossary

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}

# Who links whom (each body also starts a section with '#', so every file has one
# h1-in-body warning: a marker showing which files a check reports).
#   alpha -> beta, gamma#details     beta -> gamma, delta     gamma -> alpha, beta
#   delta -> alpha, gamma            epsilon -> Beta Unit (beta's title), alpha
# so delta is linked from beta only, and nothing links to epsilon.
BODIES = {
    "alpha": "A [[beta]] and the [[gamma#details|details of gamma]].\n",
    "beta": "Beta uses [[gamma]] and [[delta]].\n",
    "gamma": "Gamma follows [[alpha]] and [[beta]].\n\n## Details\n\nMore.\n",
    "delta": "Delta reads [[alpha]] and [[gamma]].\n",
    "epsilon": "Epsilon names [[Beta Unit]] and [[alpha]].\n",
}


def path_of(slug: str) -> str:
    return f"glossary/device-software/{slug}.md"


def five_terms(root: Path, toc: list[str] | None = None) -> Path:
    files = {f"device-software/{slug}.md": term_text(f"{slug.title()} Unit", "# Marker\n\n" + body) for slug, body in BODIES.items()}
    return write_glossary(root, files, {"device-software": toc if toc is not None else list(BODIES)})


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=GIT_ENV).stdout


def commit_all(root: Path, message: str = "commit") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = five_terms(tmp_path / "repo")
    git(root, "init", "-q", "-b", "main")
    commit_all(root, "glossary")
    return root


def run_check(root: Path, capsys, *args: str) -> tuple[int, list[tuple[str, str]], str]:
    """Exit status, (path, code) of every diagnostic printed, and the summary line."""
    status = main(["--root", str(root), "check", "--no-records", *args])
    captured = capsys.readouterr()
    found = []
    for line in captured.out.splitlines():
        path, _line, _col, _severity, rest = line.split(":", 4)
        found.append((path, rest.rsplit("[", 1)[1].rstrip("]")))
    return status, found, captured.err.strip().splitlines()[-1]


def reported(found: list[tuple[str, str]]) -> set[str]:
    return {path for path, _ in found}


def edit(root: Path, slug: str, old: str, new: str) -> None:
    path = root / path_of(slug)
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_full_check_reports_every_term(repo, capsys):
    _, found, summary = run_check(repo, capsys)
    assert reported(found) == {path_of(s) for s in BODIES}
    assert summary.startswith("check: 5 terms")


def test_changed_term_and_the_terms_linking_to_it(repo, capsys):
    edit(repo, "delta", "Delta reads", "Delta, rewritten, reads")
    status, found, summary = run_check(repo, capsys, "--changed", "HEAD")
    assert status == 0
    assert reported(found) == {path_of("delta"), path_of("beta")}
    assert summary.startswith("check: 2 changed or affected of 5 terms")


def test_nothing_changed_reports_nothing(repo, capsys):
    status, found, summary = run_check(repo, capsys, "--changed", "HEAD")
    assert (status, found) == (0, [])
    assert summary.startswith("check: 0 changed or affected of 5 terms")


def test_committed_changes_count_too(repo, capsys):
    git(repo, "switch", "-q", "-c", "feature")
    edit(repo, "delta", "Delta reads", "Delta now reads")
    commit_all(repo)
    _, found, _ = run_check(repo, capsys, "--changed", "main")
    assert reported(found) == {path_of("delta"), path_of("beta")}


def test_untracked_new_term_with_a_typo_is_reported(repo, capsys):
    (repo / path_of("zeta")).write_text(term_text("Zeta", "Zeta extends [[alpah]] and [[beta]].\n"), encoding="utf-8")
    (repo / "glossary/toc.yml").write_text("device-software:\n" + "".join(f"  - {s}\n" for s in [*BODIES, "zeta"]), encoding="utf-8")
    status, found, _ = run_check(repo, capsys, "--changed", "HEAD")
    assert status == 1
    assert (path_of("zeta"), "xref-unknown") in found
    # zeta's new links change who links to alpha and beta: those are checked too; delta is not.
    assert path_of("delta") not in reported(found)
    assert reported(found) <= {path_of(s) for s in ("zeta", "alpha", "beta", "gamma", "epsilon")}


def test_renamed_title_reports_the_links_it_breaks(repo, capsys):
    edit(repo, "beta", "title: Beta Unit", "title: Bravo Unit")
    status, found, _ = run_check(repo, capsys, "--changed", "HEAD")
    assert status == 1
    assert (path_of("epsilon"), "xref-unknown") in found, "epsilon linked to beta by its old title"


def test_deleted_term_reports_the_links_it_breaks(repo, capsys):
    (repo / path_of("beta")).unlink()
    status, found, _ = run_check(repo, capsys, "--changed", "HEAD")
    assert status == 1
    codes = set(found)
    assert {(path_of("alpha"), "xref-unknown"), (path_of("epsilon"), "xref-unknown"), (path_of("gamma"), "xref-unknown")} <= codes
    assert ("glossary/toc.yml", "toc-unknown") in codes, "the reading order still lists beta"
    assert (path_of("delta"), "orphan") in codes, "beta was delta's only backlink"


def test_renamed_title_reports_equivalents_that_named_it(repo, capsys):
    """An `equivalents` value's [[...]] counts as a link: renaming its target reports the term holding it."""
    edit(repo, "delta", "    url: https://docs.nvidia.com/cuda/cuda-c-programming-guide/\n", '    url: https://docs.nvidia.com/cuda/cuda-c-programming-guide/\nequivalents:\n  amd: "[[Epsilon Unit]] (64 lanes)"\n')
    commit_all(repo)
    edit(repo, "epsilon", "title: Epsilon Unit", "title: Echo Unit")
    status, found, _ = run_check(repo, capsys, "--changed", "HEAD")
    assert status == 1
    assert (path_of("delta"), "xref-unknown") in found, "delta's equivalents linked epsilon by its old title"


def test_removed_heading_reports_anchor_links(repo, capsys):
    edit(repo, "gamma", "## Details\n\nMore.\n", "")
    _, found, _ = run_check(repo, capsys, "--changed", "HEAD")
    assert (path_of("alpha"), "xref-anchor") in found


def test_dropped_link_reports_the_new_orphan(repo, capsys):
    edit(repo, "beta", " and [[delta]]", "")
    _, found, _ = run_check(repo, capsys, "--changed", "HEAD")
    assert (path_of("delta"), "orphan") in found


def test_name_clash_with_an_unlinked_term_is_reported(repo, capsys):
    edit(repo, "delta", "title: Delta Unit", "title: Delta Unit\naliases: [Epsilon Unit]")
    status, found, _ = run_check(repo, capsys, "--changed", "HEAD")
    assert status == 1
    assert {(path_of("delta"), "name-ambiguous"), (path_of("epsilon"), "name-ambiguous")} <= set(found)


def test_reading_order_change_reports_terms_left_out(repo, capsys):
    (repo / "glossary/toc.yml").write_text("device-software:\n" + "".join(f"  - {s}\n" for s in BODIES if s != "epsilon"), encoding="utf-8")
    _, found, _ = run_check(repo, capsys, "--changed", "HEAD")
    assert (path_of("epsilon"), "toc-missing") in found


def test_changed_record_counts_as_a_change_to_its_term(repo, capsys):
    record = repo / "snippets/device-software/delta/demo.json"
    record.parent.mkdir(parents=True)
    record.write_text("{}")
    _, found, _ = run_check(repo, capsys, "--changed", "HEAD")
    assert reported(found) == {path_of("delta"), path_of("beta")}


def test_compares_with_the_merge_base_not_the_tip(repo, capsys):
    git(repo, "switch", "-q", "-c", "feature")
    edit(repo, "delta", "Delta reads", "Delta now reads")
    commit_all(repo)
    git(repo, "switch", "-q", "main")
    edit(repo, "epsilon", "Epsilon names", "Epsilon, changed on main, names")
    commit_all(repo)
    git(repo, "switch", "-q", "feature")
    _, found, _ = run_check(repo, capsys, "--changed", "main")
    assert reported(found) == {path_of("delta"), path_of("beta")}, "epsilon changed on main, not on this branch"


def test_root_in_a_subfolder_of_the_repository(tmp_path, capsys):
    outer = tmp_path / "outer"
    root = five_terms(outer / "sub")
    git(outer, "init", "-q", "-b", "main")
    commit_all(outer)
    edit(root, "delta", "Delta reads", "Delta now reads")
    _, found, _ = run_check(root, capsys, "--changed", "HEAD")
    assert reported(found) == {path_of("delta"), path_of("beta")}


def test_unknown_revision_checks_everything_and_says_so(repo, capsys):
    status = main(["--root", str(repo), "check", "--no-records", "--changed", "origin/main"])
    captured = capsys.readouterr()
    assert status == 0
    assert "'origin/main' is not a commit here" in captured.err and "checking every term" in captured.err
    assert {line.split(":", 1)[0] for line in captured.out.splitlines()} == {path_of(s) for s in BODIES}
    assert captured.err.strip().splitlines()[-1].startswith("check: 5 terms")


def test_outside_git_checks_everything(tmp_path, capsys):
    root = five_terms(tmp_path / "plain")
    status = main(["--root", str(root), "check", "--no-records", "--changed", "HEAD"])
    captured = capsys.readouterr()
    assert status == 0 and "is not in a git working tree; checking every term" in captured.err
    assert {line.split(":", 1)[0] for line in captured.out.splitlines()} == {path_of(s) for s in BODIES}


def test_github_format_with_changed(repo, capsys):
    edit(repo, "delta", "Delta reads [[alpha]]", "Delta reads [[alpah]]")
    status = main(["--root", str(repo), "check", "--no-records", "--format", "github", "--changed", "HEAD"])
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert any(line.startswith(f"::error file={path_of('delta')},line=") and "title=xref-unknown" in line for line in out)


# --------------------------------------------------------------------------- equivalence

SECTIONS = ("device-hardware", "device-software", "performance")


def rich_glossary(root: Path, rng: random.Random, n: int = 14) -> Path:
    """Terms with aliases, abbreviations, headings, anchors, tables, quotes and code."""
    slugs = [f"t{i}" for i in range(n)]
    toc: dict[str, list[str]] = {s: [] for s in SECTIONS}
    files: dict[str, str | bytes] = {}
    for i, slug in enumerate(slugs):
        section = SECTIONS[i % len(SECTIONS)]
        toc[section].append(slug)
        others = [s for s in slugs if s != slug]
        a, b, c, d = rng.sample(others, 4)
        parts = [
            f"Links [[{a}]] and [[Title {b[1:]}|shown]]s.",
            f"> quoted [[ alias {c[1:]} ]] here",
            f"| x | y |\n|---|---|\n| [[{d}\\|cell]] | `[[{a}]]` |",
            f"```cuda\n[[nodiscard]] int f(); // [[{b}]]\n```",
            f"## Part {i}\n\nAnchored [[{a}#part-{a[1:]}|part]].",
        ]
        rng.shuffle(parts)
        extra = f"aliases: [alias {i}]" + (f"\nabbreviation: AB{i}" if i % 4 == 0 else "")
        files[f"{section}/{slug}.md"] = term_text(f"Title {i}", "\n\n".join(parts) + "\n", extra=extra)
    files["device-hardware/index.md"] = f"---\ntitle: Device Hardware\nsummary: Intro.\n---\nStart at [[{slugs[0]}#part-0|part zero]] or [[alias 3]].\n"
    write_glossary(root, files, toc)
    (root / "diagrams").mkdir()
    for k in range(3):
        shown = rng.sample(slugs, 2)
        boxes = "".join(f"  - term: {slug}\n" for slug in shown)
        (root / "diagrams" / f"d{k}.yml").write_text(f"title: Diagram {k}\ndescription: Two boxes for the tests.\nboxes:\n{boxes}")
        for slug in rng.sample(slugs, 2 - k % 2):  # d1 is shown by one term
            path = next((root / "glossary").rglob(f"{slug}.md"))
            text = path.read_text()
            if "diagrams:" in text:
                path.write_text(text.replace("diagrams: [", f"diagrams: [d{k}, ", 1))
            else:
                path.write_text(text.replace("---\n", f"---\ndiagrams: [d{k}]\n", 1))
    return root


def _term_files(root: Path) -> list[Path]:
    return sorted(p for p in (root / "glossary").rglob("*.md") if p.name != "index.md")


MUTATIONS = (
    "retitle", "alias-clash", "delete", "drop-heading", "broken-link", "unlink", "bad-yaml", "duplicate-key",
    "new-term", "new-duplicate-slug", "toc-drop", "anchor-link", "move-section", "abbr-clash", "empty-file", "page-link",
    "unshow-diagram", "show-missing-diagram", "delete-diagram", "break-diagram",
)


def mutate(root: Path, rng: random.Random, kind: str) -> None:
    files = _term_files(root)
    path = rng.choice(files)
    text = path.read_text(encoding="utf-8")
    other = rng.choice([f for f in files if f != path])
    if kind == "retitle":
        path.write_text(text.replace("title: Title", "title: Renamed", 1))
    elif kind == "alias-clash":
        path.write_text(text.replace("aliases: [", f"aliases: [Title {other.stem[1:]}, ", 1))
    elif kind == "delete":
        path.unlink()
    elif kind == "drop-heading":
        path.write_text(text.replace("## Part", "Part", 1))
    elif kind == "broken-link":
        path.write_text(text + "\nSee [[no-such-term]] and [[t1#nowhere]].\n")
    elif kind == "unlink":
        path.write_text(text.replace("[[", "[ ["))
    elif kind == "bad-yaml":
        path.write_text(text.replace("title:", "title: [unclosed", 1))
    elif kind == "duplicate-key":
        path.write_text(text.replace("---\n", f"---\ntitle: Title {other.stem[1:]}\n", 1))
    elif kind == "new-term":
        (root / "glossary/performance/zz-new.md").write_text(term_text("Fresh", f"Links [[{path.stem}]] and [[alias 2]].\n"))
    elif kind == "new-duplicate-slug":
        (root / "glossary/device-hardware" / f"{other.stem}.md").write_text(term_text("Twin", f"Links [[{path.stem}]] and [[t0]].\n"))
    elif kind == "toc-drop":
        toc = root / "glossary/toc.yml"
        toc.write_text(toc.read_text().replace(f"  - {path.stem}\n", "", 1))
    elif kind == "anchor-link":
        path.write_text(text + f"\nSee [[{other.stem}#part-{other.stem[1:]}|there]].\n")
    elif kind == "move-section":
        target = root / "glossary/multi-gpu" / path.name
        target.parent.mkdir(exist_ok=True)
        path.rename(target)
    elif kind == "abbr-clash":
        path.write_text(text.replace("aliases:", f"abbreviation: {other.stem}\naliases:", 1))
    elif kind == "empty-file":
        path.write_text("")
    elif kind == "unshow-diagram":
        path.write_text(re.sub(r"^diagrams: .*\n", "", text, flags=re.M))
    elif kind == "show-missing-diagram":
        path.write_text(text.replace("---\n", "---\ndiagrams: [nowhere]\n", 1) if "diagrams:" not in text else text.replace("diagrams: [", "diagrams: [nowhere, ", 1))
    elif kind == "delete-diagram":
        (root / "diagrams" / f"d{rng.randrange(3)}.yml").unlink(missing_ok=True)
    elif kind == "break-diagram":
        (root / "diagrams" / f"d{rng.randrange(3)}.yml").write_text("title: [broken\n")
    elif kind == "page-link":
        page = root / "glossary/device-hardware/index.md"
        page.write_text(page.read_text() + f"\nAlso [[{path.stem}#part-{path.stem[1:]}|a part]] and [[Title {other.stem[1:]}]] and [[gone]].\n")


def snapshot(root: Path) -> dict[str, str]:
    files = [p for folder in ("glossary", "diagrams") for p in (root / folder).rglob("*") if p.is_file()]
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in files}


def as_text(diagnostics: list[Diagnostic]) -> list[str]:
    return sorted({d.format() for d in diagnostics})


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), kinds=st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3))
def test_matches_a_full_check_on_the_reported_files(tmp_path_factory, seed, kinds):
    rng = random.Random(seed)
    root = rich_glossary(tmp_path_factory.mktemp("eq"), rng)
    before = snapshot(root)
    full_before = load_project(root, check_records=False).diagnostics
    for kind in kinds:
        mutate(root, rng, kind)
    after = snapshot(root)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    old = {p: t for p, t in before.items() if p in changed and p.endswith(".md")}

    fast = check_paths(root, changed, old, check_records=False)
    full_after = load_project(root, check_records=False).diagnostics
    # 1. The reported files get exactly the diagnostics a full check gives them.
    assert as_text(fast.diagnostics) == as_text([d for d in full_after if d.path in fast.reported])
    # 2. Every file whose diagnostics the change altered is reported.
    altered = {d.path for d in set(full_before) ^ set(full_after)}
    assert altered <= fast.reported, f"{kinds}: not reported: {sorted(altered - fast.reported)}"


def test_matches_a_full_check_on_the_real_glossary(tmp_path):
    """Every tenth real term changed (with a broken link added): same diagnostics as a full check."""
    root = tmp_path / "real"
    shutil.copytree(REPO / "glossary", root / "glossary")
    for folder in ("snippets", "diagrams"):
        if (REPO / folder).is_dir():
            shutil.copytree(REPO / folder, root / folder)
    terms = sorted(load_project(root, check_records=False).glossary.terms.values(), key=lambda t: t.path)
    changed = set()
    for term in terms[::10]:
        path = root / term.path
        path.write_text(path.read_text(encoding="utf-8") + "\nAlso [[no-such-term]].\n", encoding="utf-8")
        changed.add(term.path)
    fast = check_paths(root, changed, {p: (REPO / p).read_text(encoding="utf-8") for p in changed})
    full = load_project(root).diagnostics
    assert as_text(fast.diagnostics) == as_text([d for d in full if d.path in fast.reported])
    assert {d.path for d in fast.diagnostics if d.code == "xref-unknown"} == changed


# --------------------------------------------------------------------------- the two shortcuts

TRICKY_FRONT_MATTER = [
    "title: A\ntitle: B\nsummary: S.\n",
    "title: !!binary aGVsbG8=\nsummary: S.\ntitle: Second\n",
    "title: !custom x\nsummary: S.\ntitle: Later\n",
    "<<: {title: Merged}\nsummary: S.\n",
    "base: &b Anchored\ntitle: *b\nsummary: S.\n",
    "title: &t Warp\naliases: [*t, wave]\nsummary: S.\n",
    "? [complex, key]\n: v\ntitle: T\nsummary: S.\n",
    "title: 2024-01-01\nsummary: 12\naliases: [1, null]\n",
    "- a list\n- not a mapping\n",
    "just a scalar\n",
    "",
    "title: [unclosed\n",
    "title: T\nsummary: S.\nsources:\n  - {title: X, url: 'https://example.org'}\nequivalents: {amd: CU}\n",
    "'title': Quoted key\n\"summary\": S.\n",
    "title: T\nsummary: S.\nunknown: 1\nabbreviation: ABC\n",
]


@pytest.mark.parametrize("yaml_text", TRICKY_FRONT_MATTER)
def test_front_matter_shortcut_equals_the_parser(yaml_text):
    text = f"---\n{yaml_text}---\nBody.\n"
    real, fast = frontmatter.parse("x.md", text), front_matter("x.md", text)
    assert (fast.data, fast.lines, fast.body, fast.body_offset) == (real.data, real.lines, real.body, real.body_offset)


def test_front_matter_shortcut_equals_the_parser_on_real_terms():
    for path in sorted((REPO / "glossary").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        real, fast = frontmatter.parse(path.name, text), front_matter(path.name, text)
        assert (fast.data, fast.lines) == (real.data, real.lines), path


FRAGMENTS = st.sampled_from(
    ["[[", "]]", "[", "]", "|", "\\|", "#", "\n", "\n\n", "> ", "- ", "`", "```\n", "    ", "warp", "Thread Block", " ", "\\", "<b>", "</b>", "s", "| a | b |\n|---|---|\n| "]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(FRAGMENTS, max_size=40))
def test_raw_targets_cover_every_parsed_cross_reference(parts):
    body = "".join(parts)
    parsed = {normalize_name(x.target) for x in parse_body("x.md", body, 0).xrefs}
    assert parsed <= raw_targets(body)


def test_raw_targets_cover_the_real_glossary():
    for path in sorted((REPO / "glossary").rglob("*.md")):
        fm = frontmatter.parse(path.name, path.read_text(encoding="utf-8"))
        parsed = {normalize_name(x.target) for x in parse_body(path.name, fm.body, fm.body_offset).xrefs}
        assert parsed <= raw_targets(fm.body), path


def test_check_changed_returns_reported_paths(repo):
    edit(repo, "delta", "Delta reads", "Delta now reads")
    result = check_changed(repo, "HEAD", check_records=False)
    assert result.reported_terms == {path_of("delta"), path_of("beta")}
