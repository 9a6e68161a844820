"""When each term file last changed and was first added, from one ``git log`` pass.

One ``git log --name-status`` over ``glossary/`` lists every commit with the files it
touched; walking it newest first gives each file its last commit and (following renames)
its first. One process for the whole glossary, not one per file: at 5,000 terms a
per-file ``git log -1`` was thousands of processes (BENCHMARKS.md, "Page dates").

Commit dates are facts of the repository, so the result is the same on every machine.
Where history is missing, nothing falls back to the clock:

- no git, or not a repository (a tarball): every date is "on or before"
  ``SOURCE_DATE_EPOCH`` when it is set, else unknown;
- a shallow clone: the oldest visible commits list every file as added, which says only
  that the file existed then. A file seen only there is dated "on or before" that commit;
- a file no commit touched yet (a new term in a working tree): not committed yet.

:class:`History.fallback` says which of these applied, for the build log; each page
states its own case (glossary_tool/publish/parts.py).
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from glossary_tool.model import Term
from glossary_tool.verify.records import PASSED, records_for

#: Why a date is missing or only a bound (FileDates.note); empty when it is a commit date.
NO_GIT = "built without git history"
SHALLOW = "shallow clone: history before this date not fetched"
NOT_COMMITTED = "not committed yet"
GIT_TIMEOUT_S = 120


@dataclass(frozen=True)
class FileDates:
    """What the history says about one file (a path relative to the repository root)."""

    #: When the file last changed; None when unknown.
    updated: dt.datetime | None
    #: False when ``updated`` is only an upper bound (shallow clone, no git).
    exact: bool = False
    #: When the commit that added the file was made, when the visible history has it.
    added: dt.datetime | None = None
    #: The commit of ``updated`` (full hash), when exact.
    commit: str | None = None
    added_commit: str | None = None
    note: str = ""

    @property
    def is_new(self) -> bool:
        """Its last change is the commit that added it."""
        return self.exact and self.commit is not None and self.added_commit == self.commit


@dataclass(frozen=True)
class History:
    #: path (relative to the root, ``glossary/<section>/<slug>.md``) -> dates; read-only.
    files: Mapping[str, FileDates]
    #: The commit the working tree is at; None without git.
    head: str | None = None
    #: The working tree differs from ``head`` under the paths read.
    dirty: bool = False
    #: Empty with full history, else one sentence for the build log.
    fallback: str = ""
    #: What a path missing from ``files`` gets (not committed yet, or the no-git fallback).
    missing: FileDates = field(default_factory=lambda: FileDates(None, note=NOT_COMMITTED))

    def dates(self, path: str) -> FileDates:
        return self.files.get(path, self.missing)


def source_date_epoch() -> dt.datetime | None:
    value = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    return dt.datetime.fromtimestamp(int(value), dt.UTC) if value.isdigit() else None


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes] | None:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    try:
        return subprocess.run(["git", "-C", str(root), "-c", "core.quotePath=false", *args], capture_output=True, timeout=GIT_TIMEOUT_S, env=env, check=False)
    except (OSError, subprocess.SubprocessError):
        return None


def _no_git(reason: str) -> History:
    epoch = source_date_epoch()
    missing = FileDates(epoch, note=NO_GIT)
    told = f"; page dates read 'on or before' SOURCE_DATE_EPOCH ({epoch:%Y-%m-%d})" if epoch else "; pages show no dates (set SOURCE_DATE_EPOCH for an 'on or before' date)"
    return History(MappingProxyType({}), fallback=f"{reason}{told}", missing=missing)


def read_history(root: Path, subdir: str = "glossary") -> History:
    """Every file under ``root/subdir`` with its dates, from one ``git log`` of that folder."""
    head = _git(root, "rev-parse", "--is-inside-work-tree", "--is-shallow-repository", "--git-path", "shallow", "HEAD")
    if head is None:
        return _no_git("git is not installed")
    lines = head.stdout.decode("utf-8", "replace").split("\n")
    if head.returncode != 0 or len(lines) < 4 or lines[0] != "true":
        return _no_git("not a git work tree with commits")  # no path: the message reaches the pages
    shallow, shallow_file, head_sha = lines[1] == "true", lines[2], lines[3]
    boundary: set[str] = set()
    if shallow:
        path = Path(shallow_file) if Path(shallow_file).is_absolute() else root / shallow_file
        try:
            boundary = set(path.read_text(encoding="ascii").split())
        except OSError:
            boundary = set()
    log = _git(root, "log", "-z", "--relative", "--find-renames", "--name-status", "--format=%x1e%H %ct", "--", f"{subdir}/")
    if log is None or log.returncode != 0:
        return _no_git("git log failed")
    files = parse_log(log.stdout.decode("utf-8", "replace"), boundary)
    status = _git(root, "status", "--porcelain", "-z", "--untracked-files=normal", "--", f"{subdir}/")
    dirty = bool(status is not None and status.returncode == 0 and status.stdout.strip(b"\0"))
    fallback = ""
    if shallow:
        bounded = sum(1 for d in files.values() if not d.exact)
        fallback = f"shallow clone: {bounded} file(s) of {subdir}/ are dated 'on or before' the oldest fetched commit (fetch full history, e.g. actions/checkout fetch-depth: 0)"
    return History(MappingProxyType(files), head=head_sha, dirty=dirty, fallback=fallback)


def parse_log(text: str, boundary: set[str] | frozenset[str] = frozenset()) -> dict[str, FileDates]:
    """Dates per path from ``git log -z --name-status --format=%x1e%H %ct`` output (newest first).

    A rename carries the older history to the new name; a deletion ends a path's history (a
    later file of the same name is a new file). Commits in ``boundary`` (a shallow clone's
    oldest) list what existed, not what changed: their files are dated "on or before".
    """
    last: dict[str, tuple[str, int]] = {}
    first: dict[str, tuple[str, int]] = {}
    bound: dict[str, int] = {}
    current: dict[str, str] = {}  # an older name -> the name it has now
    ended: set[str] = set()
    for chunk in text.split("\x1e"):
        if not chunk.strip("\0\n"):
            continue
        header, _, rest = chunk.partition("\0")
        sha, _, stamp = header.strip().partition(" ")
        if not stamp.isdigit():
            continue
        when = int(stamp)
        fields = [f for f in rest.lstrip("\n").split("\0")]
        i = 0
        while i < len(fields):
            status = fields[i].strip()
            if not status:
                i += 1
                continue
            kind = status[0]
            if kind in "RC" and i + 2 < len(fields):
                old, new = fields[i + 1], fields[i + 2]
                i += 3
            elif i + 1 < len(fields):
                old = new = fields[i + 1]
                i += 2
            else:
                break
            name = current.get(new, new)
            if name in ended:
                continue
            if sha in boundary:
                bound.setdefault(name, when)
                continue
            if kind == "D":
                if name in last:  # re-created after this deletion: older entries belong to another file
                    ended.add(name)
                continue
            last.setdefault(name, (sha, when))
            if kind == "R" and old != new:
                current[old] = name  # the file came from ``old``: its first commit is further back
            elif kind in "AC":  # added, or copied (a new file with an old one's text)
                first[name] = (sha, when)
                ended.add(name)  # anything older under this name is another file
    dates: dict[str, FileDates] = {}
    for name, (sha, when) in last.items():
        added = first.get(name)
        dates[name] = FileDates(_utc(when), exact=True, added=_utc(added[1]) if added else None, commit=sha, added_commit=added[0] if added else None)
    for name, when in bound.items():
        if name not in dates:
            dates[name] = FileDates(_utc(when), exact=False, note=SHALLOW)
    return dict(sorted(dates.items()))


def _utc(stamp: int) -> dt.datetime:
    return dt.datetime.fromtimestamp(stamp, dt.UTC)


@dataclass(frozen=True)
class Verified:
    """When a term's snippets last ran and passed on a GPU, from their records."""

    date: str
    #: The GPUs of the records of that date, e.g. ("NVIDIA H200",).
    gpus: tuple[str, ...]
    passed: int
    total: int


def snippets_verified(records_dir: Path, term: Term) -> Verified | None:
    """The newest passing run among ``term``'s snippet records; None when none passed.

    The one place page dates read records: if records gain a per-GPU layout, only this changes.
    """
    per_snippet = [[r for r in records_for(records_dir, term, snippet).values() if r.status == PASSED] for snippet in term.snippets]
    runs = [r for found in per_snippet for r in found]
    if not runs:
        return None
    newest = max(r.date for r in runs)
    gpus = tuple(sorted({r.machine.gpu_name for r in runs if r.date == newest and r.machine is not None}))
    return Verified(newest, gpus, sum(1 for found in per_snippet if found), len(term.snippets))
