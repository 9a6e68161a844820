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

One pipeline. The check itself is the full one, :func:`glossary_tool.pipeline.load_project`
(every stage, the rendering check included), and this module only decides which files'
diagnostics to show; the rules above are computed on the fully loaded glossary (exact
parsed cross-references, not a guess from the raw text), plus the base version of each
changed term file (its names, diagrams and cross-references, parsed here). What keeps it
fast is the content cache of load/cache.py: on a warm cache only the changed files are
parsed. So the diagnostics of the reported files are exactly those of a full check by
construction, and tests/test_changed.py checks on randomly broken glossaries that every
file whose diagnostics the change can alter is reported. Without git history to compare
with, every file is reported.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

import yaml

from glossary_tool.diagnostics import Diagnostic
from glossary_tool.draw.load import SUFFIXES as DIAGRAM_SUFFIXES
from glossary_tool.load import frontmatter
from glossary_tool.load.body import parse_body
from glossary_tool.load.toc import TOC_NAME
from glossary_tool.model import Term
from glossary_tool.pipeline import Loaded, load_project
from glossary_tool.text import normalize_name

GIT_TIMEOUT = 60
#: Every position where ``[[`` starts (overlapping: ``[[[x]]`` holds one at 0 and one at 1),
#: with the raw target after it (see raw_targets).
_RAW_TARGET = re.compile(r"\[(?=\[((?:[^\[\]|#\\]|\\(?!\|))*))")
#: What a quote or list puts before a wrapped line's text.
_LINE_PREFIX = re.compile(r"\n[ \t>]*")


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


# --------------------------------------------------------------------------- the base


def raw_targets(body: str) -> frozenset[str]:
    """Normalized names that the body's cross-references may target: a superset, read from
    the raw text without parsing it.

    Every cross-reference the parser finds starts at a literal ``[[``; its target is the raw
    text up to the next ``[``, ``]``, ``|``, ``\\|`` or ``#``. It may wrap: a quote's ``>``
    markers at the start of a continuation line are not part of it (both readings are kept).
    """
    out = set()
    for match in _RAW_TARGET.finditer(body):
        target = match.group(1)
        out.add(normalize_name(target))
        if "\n" in target:
            out.add(normalize_name(_LINE_PREFIX.sub("\n", target)))
    return frozenset(out)


def front_matter(shown: str, text: str) -> frontmatter.FrontMatter:
    """The data and field lines :func:`frontmatter.parse` gives, without its diagnostics
    (the base version of a file may be broken: only what it named matters here).

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
        except Exception:  # noqa: BLE001 - as frontmatter.parse: `!!int abc` raises ValueError
            continue
        lines[key] = key_node.start_mark.line + 2
    return frontmatter.FrontMatter(data, lines, offset, body)


def _base_state(path: str, text: str) -> tuple[set[str], set[str], set[str]]:
    """A term file's names, link targets and diagrams at the base (best effort: it may be broken)."""
    names = {normalize_name(PurePosixPath(path).stem)}
    fm = front_matter(path, text)
    aliases = fm.data.get("aliases")
    for value in [fm.data.get("title"), fm.data.get("abbreviation"), *(aliases if isinstance(aliases, list) else [])]:
        if isinstance(value, str) and value.strip():
            names.add(normalize_name(value))
    shown = fm.data.get("diagrams")
    diagrams = {d for d in shown if isinstance(d, str)} if isinstance(shown, list) else set()
    # only a body with a possible cross-reference is worth parsing
    targets = {normalize_name(x.target) for x in parse_body(path, fm.body, fm.body_offset).xrefs} if raw_targets(fm.body) else set()
    return names, targets, diagrams


# --------------------------------------------------------------------------- the check


def _targets(term: Term) -> set[str]:
    """Names a term links to: its body's xrefs and those in its ``equivalents`` values."""
    return {normalize_name(x.target) for x in (*term.xrefs, *(x for _, x in term.equivalent_xrefs))}


def check_paths(root: Path, changed: Iterable[str], old: Mapping[str, str] | None = None, *, check_records: bool = True) -> ChangedCheck:
    """The full check, reporting what ``changed`` (repository-relative paths) affects;
    ``old``: texts at the base of the changed files under glossary/."""
    loaded = load_project(Path(root), check_records=check_records)
    project, glossary, load = loaded.project, loaded.glossary, loaded.load
    assert load is not None  # load_project always says what it loaded
    gdir = project.glossary_dir
    changed = frozenset(changed)
    old = old or {}
    terms = {t.path: t for t in load.terms}  # every term file that loaded, duplicates included
    term_files = set(terms) | {f"{gdir.name}/{section}/{slug}.md" for section, slug in load.unloaded}

    def names_of(path: str) -> set[str]:
        term = terms.get(path)
        return {normalize_name(n) for n in term.names} if term is not None else set()

    name_index: dict[str, set[str]] = defaultdict(set)
    link_index: dict[str, set[str]] = defaultdict(set)
    for path, term in terms.items():
        for name in names_of(path):
            name_index[name].add(path)
        for name in _targets(term):
            link_index[name].add(path)

    def holders(names: Iterable[str]) -> set[str]:
        return {p for name in names for p in name_index.get(name, ())}

    # Changed terms: their files, or their records under snippets/.
    changed_terms = {p for p in changed if p in term_files}
    for path in changed:
        parts = PurePosixPath(path).parts
        if len(parts) >= 4 and parts[0] == project.records_dir.name:
            term_path = f"{gdir.name}/{parts[1]}/{parts[2]}.md"
            if term_path in term_files:
                changed_terms.add(term_path)

    # What the changed term files were called, showed and linked to, at the base and now.
    named = {name for p in changed_terms for name in names_of(p)}
    old_diagrams: set[str] = set()
    moved_targets: set[str] = set()  # targets linked at the base xor now: their backlinks change
    touched = sorted(p for p in changed if p in term_files or p in old)
    for path in touched:
        names, targets, diagrams = _base_state(path, old[path]) if path in old else (set(), set(), set())
        named |= names
        old_diagrams |= diagrams
        moved_targets |= targets ^ (_targets(terms[path]) if path in terms else set())  # gone or broken: all links dropped
    # A term sharing a slug with a changed one may enter or leave the graph (duplicate-slug):
    # then its names resolve or stop resolving and its targets gain or lose a backlink, as
    # if it had changed too.
    slugs = {PurePosixPath(p).stem for p in touched}
    as_changed = set(changed_terms)
    while True:
        clashing = holders(named)
        twins = {p for p in clashing - as_changed if PurePosixPath(p).stem in slugs}
        if not twins:
            break
        as_changed |= twins
        for path in twins:
            named |= names_of(path)
            moved_targets |= _targets(terms[path])

    referrers = {p for name in named for p in link_index.get(name, ())}
    pages = [s.page for s in glossary.sections if s.page is not None] + ([glossary.home.page] if glossary.home is not None and glossary.home.page is not None else [])
    page_referrers = {page.path for page in pages if _targets(page) & named}

    reported_terms = as_changed | referrers | clashing | holders(moved_targets)
    if f"{gdir.name}/{TOC_NAME}" in changed:
        listed = {slug for listed_slugs in load.order.terms.values() for slug in listed_slugs}
        reported_terms |= {p for p, t in terms.items() if t.slug not in listed}
    # Terms showing a diagram whose file changed (it may now be missing or broken).
    changed_diagrams = {PurePosixPath(p).stem for p in changed if PurePosixPath(p).parent.as_posix() == project.diagrams_dir.name and PurePosixPath(p).suffix in DIAGRAM_SUFFIXES}
    reported_terms |= {p for p, t in terms.items() if set(t.diagrams) & changed_diagrams}
    # Diagrams naming a changed term (it may be gone), or shown by one now or at the base
    # (they may now be unused).
    shown_by = old_diagrams | {name for p in as_changed if p in terms for name in terms[p].diagrams}
    diagram_paths = {d.path for d in loaded.diagrams.values() if d.name in shown_by or any(slug in slugs for slug, _ in d.terms())}

    reported = reported_terms | page_referrers | diagram_paths | {p for p in changed if p not in terms}
    if touched:  # a term file came, went or broke: the reading order may now be wrong
        reported.add(f"{gdir.name}/{TOC_NAME}")
    kept = [d for d in loaded.diagnostics if d.path in reported]
    return ChangedCheck(replace(loaded, diagnostics=tuple(kept)), kept, frozenset(reported), frozenset(reported_terms))


def check_changed(root: Path, rev: str, *, check_records: bool = True) -> ChangedCheck:
    """``glossary check --changed REV``; without usable git history, a full check."""
    changes = git_changes(Path(root), rev)
    if isinstance(changes, str):
        print(f"glossary check --changed: {changes}; checking every term instead", file=sys.stderr)
        loaded = load_project(Path(root), check_records=check_records)
        every = frozenset(t.path for t in loaded.glossary.terms.values())
        return ChangedCheck(loaded, list(loaded.diagnostics), frozenset(d.path for d in loaded.diagnostics) | every, every, everything=True)
    return check_paths(Path(root), changes.paths, changes.old, check_records=check_records)
