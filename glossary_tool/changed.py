"""``glossary check --changed REV``: only what a branch touched, and the terms it affects.

Reported are the files changed since the merge base of ``REV`` and ``HEAD`` (committed,
staged, unstaged or untracked) and, for each changed term, the terms its change can
break or fix:

* terms whose cross-references name it, by a current name or by a name it had at the
  base (so links broken by a rename, a deletion or a removed heading are reported);
* terms sharing a name with it (slug, title, abbreviation or alias clashes);
* terms it linked to at the base and no longer does, or the other way round (they may
  have become, or stopped being, orphans), and terms sharing its slug (one of the two
  drops out of the glossary with ``duplicate-slug``);
* when ``glossary/toc.yml`` changed, terms missing from the reading order (and
  ``toc.yml`` itself whenever a term file came, went or broke);
* diagrams that name it or that it shows (now or at the base), and terms showing a
  diagram whose file changed.

A changed record under ``snippets/<section>/<term>/`` counts as a change to its term.

Speed. A full check parses every body with markdown-it-py, which is most of its time
(about 5 s for 5,000 terms). Here every file's front matter is read (names decide how
every cross-reference resolves), but a body is parsed only where it can change what is
reported: the reported terms themselves, the targets of their ``#anchor`` links (whose
headings decide ``xref-anchor``), and enough of the terms that may link to them to
settle each one's ``orphan`` warning (one linker is enough; a term still orphaned gets
all its candidates parsed and is linked again). Which terms *may* link to a term is
decided from the raw text: every cross-reference the parser finds starts at a literal
``[[`` and its target is the raw text up to the next ``[``, ``]``, ``|``, ``#`` or
newline (in a table cell, ``\\|`` loses its backslash), so a file none of whose raw
targets is a name of the term cannot link to it. Diagnostics of the reported files are
therefore exactly those of a full ``glossary check``, and every file whose diagnostics
the change can alter is reported; tests/test_changed.py checks both on randomly broken
glossaries. Without git history to compare with, the whole glossary is checked.

This mirrors :func:`glossary_tool.pipeline.load_project` (load, link, record checks,
diagrams): a stage added there must be added to :func:`check_paths` too, with the rule
for which files its diagnostics can reach.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import yaml

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.draw import check_diagrams, load_diagrams
from glossary_tool.draw.load import SUFFIXES as DIAGRAM_SUFFIXES
from glossary_tool.link import link
from glossary_tool.load import LoadResult, frontmatter
from glossary_tool.load.files import load_term, read_text, sections_in_order, term_from, walk_tree
from glossary_tool.load.toc import TOC_NAME, ReadingOrder, read_toc
from glossary_tool.model import Section, Term
from glossary_tool.pipeline import Loaded, Project, load_project
from glossary_tool.text import normalize_name
from glossary_tool.verify.freshness import snippet_diagnostics
from glossary_tool.verify.reference import load_reference_gpus

GIT_TIMEOUT = 60
#: Every position where ``[[`` starts (overlapping: ``[[[x]]`` holds one at 0 and one at 1).
_RAW_TARGET = re.compile(r"\[(?=\[([^\[\]\n|#]*))")


@dataclass(frozen=True)
class Changes:
    """What changed since ``base``: paths relative to the root, and their text at ``base``."""

    base: str
    paths: frozenset[str]
    #: Text at ``base`` of changed files under glossary/ that existed there.
    old: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ChangedCheck:
    loaded: Loaded
    #: Diagnostics of the reported files only.
    diagnostics: list[Diagnostic]
    #: Repository-relative paths whose diagnostics are reported.
    reported: frozenset[str]
    #: Term files among them (what the summary line counts).
    reported_terms: frozenset[str]
    #: True when git could not say what changed and every term was checked.
    everything: bool = False


# --------------------------------------------------------------------------- git


def _git(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(root), *args], input=stdin, capture_output=True, timeout=GIT_TIMEOUT)


def _zsplit(data: bytes) -> list[str]:
    return [p.decode("utf-8", "surrogateescape") for p in data.split(b"\0") if p]


def git_changes(root: Path, rev: str) -> Changes | str:
    """The changes since the merge base of ``rev`` and HEAD, or why git could not say."""
    try:
        if _git(root, "rev-parse", "--is-inside-work-tree").returncode != 0:
            return f"{root} is not in a git working tree"
        if _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").returncode != 0:
            return f"'{rev}' is not a commit here (fetch it, or pass another: --changed HEAD)"
        merge_base = _git(root, "merge-base", rev, "HEAD")
        base = merge_base.stdout.decode().strip() if merge_base.returncode == 0 and merge_base.stdout.strip() else rev
        # --relative: paths relative to the root even when it is a subfolder of the repository.
        diff = _git(root, "diff", "--name-only", "-z", "--no-renames", "--relative", base, "--")
        untracked = _git(root, "ls-files", "-z", "--others", "--exclude-standard")
    except (OSError, subprocess.SubprocessError) as exc:
        return f"git failed ({exc})"
    if diff.returncode != 0:
        return f"git diff failed: {(diff.stderr.decode(errors='replace').strip().splitlines() or ['no message'])[0]}"
    paths = frozenset(_zsplit(diff.stdout) + (_zsplit(untracked.stdout) if untracked.returncode == 0 else []))
    wanted = sorted(p for p in paths if p.startswith("glossary/") and p.endswith(".md"))
    return Changes(base, paths, _old_texts(root, base, wanted))


def _old_texts(root: Path, base: str, paths: list[str]) -> dict[str, str]:
    """Each path's text at ``base`` (one ``git cat-file --batch`` for all of them)."""
    if not paths:
        return {}
    try:
        proc = _git(root, "cat-file", "--batch", stdin="".join(f"{base}:./{p}\n" for p in paths).encode())
    except (OSError, subprocess.SubprocessError):
        return {}
    data, pos, out = proc.stdout, 0, {}
    for path in paths:
        end = data.find(b"\n", pos)
        if end < 0:
            break
        header = data[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            out[path] = data[pos : pos + size].decode("utf-8", "replace")
            pos += size + 1
    return out


# --------------------------------------------------------------------------- light loading


def raw_targets(body: str) -> frozenset[str]:
    """Normalized names that the body's cross-references may target (a superset)."""
    out = set()
    for match in _RAW_TARGET.finditer(body):
        target = match.group(1)
        out.add(normalize_name(target))
        if target.endswith("\\"):  # "[[a\|b]]" in a table cell is the cross-reference [[a|b]]
            out.add(normalize_name(target[:-1]))
    return frozenset(out)


def front_matter(shown: str, text: str) -> frontmatter.FrontMatter:
    """The data and field lines :func:`frontmatter.parse` gives, without its diagnostics.

    Same loop, same first-wins rule for repeated keys, same skipping of unknown keys and
    of values that fail to construct; a value is constructed from its node directly rather
    than serialized and loaded again, which yields the same object several times faster.
    """
    yaml_text, offset, body, _ = frontmatter.split(shown, text)
    data: dict[str, object] = {}
    lines: dict[str, int] = {}
    if yaml_text is None:
        return frontmatter.FrontMatter(data, lines, offset, body)
    try:
        node = yaml.compose(yaml_text, Loader=frontmatter.loader_for(yaml_text))
    except (yaml.YAMLError, RecursionError):
        return frontmatter.FrontMatter(data, lines, offset, body)
    if not isinstance(node, yaml.MappingNode):
        return frontmatter.FrontMatter(data, lines, offset, body)
    for key_node, value_node in node.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if not isinstance(key, str) or key in data or key not in frontmatter.TERM_FIELDS:
            continue
        try:
            data[key] = yaml.constructor.SafeConstructor().construct_document(value_node)
        except yaml.YAMLError:
            continue
        lines[key] = key_node.start_mark.line + 2
    return frontmatter.FrontMatter(data, lines, offset, body, (), yaml_text=yaml_text)


@dataclass
class _Entry:
    section: str
    path: Path
    shown: str
    #: The term as the loader would make it but with no body fields (None: it would not load).
    term: Term | None = None
    targets: frozenset[str] = frozenset()
    #: The front matter is unusual: only the real loader may say what the file holds.
    needs_full: bool = False
    #: Loaded by the real loader (body parsed, diagnostics collected).
    parsed: bool = False

    @property
    def names(self) -> set[str]:
        return {normalize_name(n) for n in self.term.names} if self.term is not None else set()


def _light(root: Path, entry: _Entry) -> None:
    """Front matter only; anything unexpected falls back to the full loader."""
    scratch: list[Diagnostic] = []
    text = read_text(root, entry.path, scratch)
    if text is None:
        return
    try:
        fm = front_matter(entry.shown, text)
        clean, _ = frontmatter.validate_term(entry.shown, fm)
    except Exception:  # noqa: BLE001 - let the real loader decide (and report) what this is
        entry.needs_full = True
        entry.targets = raw_targets(text)
        return
    entry.targets = raw_targets(fm.body)
    entry.term = term_from(entry.path.stem, entry.section, entry.shown, clean, fm)


def _walk(root: Path, out: list[Diagnostic]) -> tuple[list[_Entry], dict[str, Section], Section | None]:
    """The files :func:`glossary_tool.load.files.load_tree` visits, in its order."""
    if not root.is_dir():
        out.append(error(root.as_posix(), 0, 0, "glossary-missing", "glossary folder not found"))
        return [], {}, None
    tree = walk_tree(root, out)
    return [_Entry(section, path, shown) for section, path, shown in tree.term_files], dict(tree.pages), tree.home


def _old_names(path: str, text: str) -> tuple[set[str], frozenset[str], set[str]]:
    """A term file's names, raw link targets and diagrams at the base (best effort: it may be broken)."""
    names = {normalize_name(PurePosixPath(path).stem)}
    diagrams: set[str] = set()
    yaml_text, _, body, _ = frontmatter.split(path, text)
    try:
        data = yaml.load(yaml_text or "", Loader=frontmatter.loader_for(yaml_text or ""))
    except (yaml.YAMLError, RecursionError):
        data = None
    if isinstance(data, dict):
        aliases = data.get("aliases")
        for value in [data.get("title"), data.get("abbreviation"), *(aliases if isinstance(aliases, list) else [])]:
            if isinstance(value, str) and value.strip():
                names.add(normalize_name(value))
        if isinstance(data.get("diagrams"), list):
            diagrams = {d for d in data["diagrams"] if isinstance(d, str)}
    return names, raw_targets(body), diagrams


# --------------------------------------------------------------------------- the check


def check_paths(root: Path, changed: Iterable[str], old: Mapping[str, str] | None = None, *, check_records: bool = True) -> ChangedCheck:
    """Check what ``changed`` (repository-relative paths) affects; ``old``: texts at the base."""
    project = Project(Path(root))
    gdir = project.glossary_dir
    changed = frozenset(changed)
    old = old or {}
    out: list[Diagnostic] = []
    entries, pages, home = _walk(gdir, out)
    for entry in entries:
        _light(gdir, entry)
    by_path = {e.shown: e for e in entries}
    order = read_toc(gdir, out)

    def load_fully(paths: Iterable[str]) -> None:
        for path in paths:
            entry = by_path[path]
            if not entry.parsed:
                entry.term = load_term(gdir, entry.path, entry.section, out)
                entry.parsed = True

    # Changed terms: their files, or their records under snippets/.
    changed_terms = {p for p in changed if p in by_path}
    for path in changed:
        parts = PurePosixPath(path).parts
        if len(parts) >= 4 and parts[0] == project.records_dir.name:
            term_path = f"{gdir.name}/{parts[1]}/{parts[2]}.md"
            if term_path in by_path:
                changed_terms.add(term_path)
    load_fully(changed_terms | {e.shown for e in entries if e.needs_full})

    # Name -> terms that have it; name -> terms whose raw text may link to it.
    name_index: dict[str, set[str]] = defaultdict(set)
    target_index: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        for name in entry.names:
            name_index[name].add(entry.shown)
        for name in entry.targets:
            target_index[name].add(entry.shown)

    def holders(names: Iterable[str]) -> set[str]:
        return {p for name in names for p in name_index.get(name, ())}

    def may_link(names: Iterable[str]) -> set[str]:
        return {p for name in names for p in target_index.get(name, ())}

    # What the changed term files were called and linked to, at the base and now.
    current = {name for p in changed_terms for name in by_path[p].names}
    before: set[str] = set()
    old_diagrams: set[str] = set()
    moved_targets: set[str] = set()  # targets linked at the base xor now: their backlinks change
    for path in sorted({p for p in changed if p in by_path or p in old}):
        names, targets, diagrams = _old_names(path, old[path]) if path in old else (set(), frozenset(), set())
        before |= names
        old_diagrams |= diagrams
        entry = by_path.get(path)
        now = raw_targets(entry.term.body) if entry is not None and entry.term is not None else frozenset()
        moved_targets |= targets ^ now  # a deleted or now unloadable term drops all its links
    named = current | before
    # A term sharing a slug with a changed one may enter or leave the graph (duplicate-slug):
    # then its names resolve or stop resolving and its targets gain or lose a backlink, as
    # if it had changed too.
    slugs = {PurePosixPath(p).stem for p in changed if p in by_path or p in old}
    as_changed = set(changed_terms)
    while True:
        clashing = holders(named)
        twins = {p for p in clashing - as_changed if by_path[p].path.stem in slugs}
        if not twins:
            break
        as_changed |= twins
        for path in twins:
            named |= by_path[path].names
            moved_targets |= by_path[path].targets

    # Terms and pages whose cross-references name a changed term (now or at the base).
    load_fully(may_link(named))
    referrers = {e.shown for e in entries if e.term is not None and any(normalize_name(x.target) in named for x in (*e.term.xrefs, *(x for _, x in e.term.equivalent_xrefs)))}
    page_list = [p.page for p in [*pages.values(), home] if p is not None and p.page is not None]
    page_referrers = {p.path for p in page_list if any(normalize_name(x.target) in named for x in p.xrefs)}

    reported_terms = as_changed | referrers | clashing | holders(moved_targets)
    if f"{gdir.name}/{TOC_NAME}" in changed:
        listed = {slug for listed_slugs in order.terms.values() for slug in listed_slugs}
        reported_terms |= {e.shown for e in entries if e.term is not None and e.term.slug not in listed}
    # Terms showing a diagram whose file changed (it may now be missing or broken).
    changed_diagrams = {PurePosixPath(p).stem for p in changed if PurePosixPath(p).parent.as_posix() == project.diagrams_dir.name and PurePosixPath(p).suffix in DIAGRAM_SUFFIXES}
    reported_terms |= {e.shown for e in entries if e.term is not None and set(e.term.diagrams) & changed_diagrams}
    load_fully(reported_terms)
    if check_records:
        # figure-drift also reads the records of the terms a reported term links to.
        linked = holders({normalize_name(x.target) for p in reported_terms if by_path[p].term for x in by_path[p].term.xrefs})
        load_fully(p for p in linked if (project.records_dir / by_path[p].section / by_path[p].path.stem).is_dir())

    # What else decides the reported terms' diagnostics: the headings their #anchors point
    # at, and whether anything links to them (the orphan warning).
    anchored = {normalize_name(x.target) for p in reported_terms if by_path[p].term for x in by_path[p].term.xrefs if x.anchor is not None}
    anchored |= {normalize_name(x.target) for page in page_list for x in page.xrefs if x.anchor is not None}
    load_fully(holders(anchored))
    linkers = {p: may_link(by_path[p].names) - {p} for p in reported_terms}
    # One parsed candidate per term usually settles it; only terms still orphaned after
    # linking get all their candidates parsed, and are linked again.
    load_fully({min(c) for c in linkers.values() if c and not any(by_path[x].parsed for x in c)})
    glossary, graph, problems = _link(gdir, entries, pages, home, order, out)
    orphaned = {d.path for d in problems if d.code == "orphan" and d.path in reported_terms}
    unparsed = {x for p in orphaned for x in linkers[p] if not by_path[x].parsed}
    if unparsed:
        load_fully(unparsed)
        glossary, graph, problems = _link(gdir, entries, pages, home, order, out)
    diagnostics = list(out) + problems
    if check_records:
        diagnostics += snippet_diagnostics([t for t in glossary.ordered_terms() if t.path in reported_terms], project.records_dir, load_reference_gpus(project.mkdocs_yml).gpus)
    drawn = load_diagrams(project.diagrams_dir, project.root)
    diagnostics += drawn.diagnostics
    diagnostics += check_diagrams(drawn.diagrams, glossary, drawn.broken)
    if check_records:
        from glossary_tool.verify.figure_check import figure_diagnostics

        diagnostics += figure_diagnostics(glossary, [t for t in glossary.ordered_terms() if t.path in reported_terms], project.records_dir)
    # Diagrams naming a changed term (it may be gone), or shown by one now or at the base
    # (they may now be unused).
    shown_by = old_diagrams | {name for p in as_changed if by_path[p].term for name in by_path[p].term.diagrams}
    diagram_paths = {d.path for d in drawn.diagrams.values() if d.name in shown_by or any(slug in slugs for slug, _ in d.terms())}

    loaded_terms = {e.shown for e in entries if e.term is not None}
    reported = reported_terms | page_referrers | diagram_paths | {p for p in changed if p not in loaded_terms}
    if any(p in by_path or p in old for p in changed):  # a term file came, went or broke: the reading order may now be wrong
        reported.add(f"{gdir.name}/{TOC_NAME}")
    reported = frozenset(reported)
    kept = [d for d in diagnostics if d.path in reported]
    loaded = Loaded(project, glossary, graph, tuple(kept), drawn.diagrams)
    return ChangedCheck(loaded, kept, reported, frozenset(reported_terms))


def _link(gdir: Path, entries: list[_Entry], pages: dict[str, Section], home: Section | None, order: ReadingOrder, out: list[Diagnostic]):
    """Assemble the load result as :func:`load_tree` does, and link it."""
    terms = tuple(e.term for e in entries if e.term is not None)
    return link(LoadResult(gdir, terms, sections_in_order(gdir, order, pages), home, order, tuple(out)))


def check_changed(root: Path, rev: str, *, check_records: bool = True) -> ChangedCheck:
    """``glossary check --changed REV``; without usable git history, a full check."""
    changes = git_changes(Path(root), rev)
    if isinstance(changes, str):
        print(f"glossary check --changed: {changes}; checking every term instead", file=sys.stderr)
        loaded = load_project(Path(root), check_records=check_records)
        every = frozenset(t.path for t in loaded.glossary.terms.values())
        return ChangedCheck(loaded, list(loaded.diagnostics), frozenset(d.path for d in loaded.diagnostics) | every, every, everything=True)
    return check_paths(Path(root), changes.paths, changes.old, check_records=check_records)
