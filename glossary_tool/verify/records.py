"""Snippet records: one JSON file per snippet and GPU model, the PTX and SASS once per snippet.

Layout under ``snippets/`` (the records root)::

    <section>/<term>/<snippet>/<gpu-key>.json   what that GPU model did with the snippet
    <section>/<term>/<snippet>/snippet.ptx      PTX: depends on the source and flags only
    <section>/<term>/<snippet>/<arch>.sass      SASS for the snippet's ``arch`` (e.g. sm_90.sass)

``<gpu-key>`` is the CUDA device name in kebab case (``nvidia-h200``,
``nvidia-h100-80gb-hbm3``); a compile-only run on a machine without a GPU is ``no-gpu``.
A verify run on a machine writes only its own GPU's file, so records from other GPUs are
kept. Records are committed, so they are written with sorted keys and a trailing newline
(stable diffs) and atomically (an interrupted verify leaves every record whole).

Readers outside verify (the site, the MCP server, "last verified" dates, prose checks) use
:func:`records_for`; nothing else needs to know the layout.

Schema 1 kept one record per snippet at ``<section>/<term>/<snippet>.json`` with
``<snippet>.ptx``/``.sass`` beside it. Those files are still read (as their machine's
record) and :func:`migrate_legacy` moves them into this layout.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from glossary_tool.atomic import write_text
from glossary_tool.model import DEFAULT_ARCH, Snippet, Term

PASSED = "passed"
FAILED = "failed"
COMPILE_ONLY = "compile-only"
SKIPPED = "skipped"
SCHEMA = 2
NO_GPU = "no-gpu"
PTX_FILE = "snippet.ptx"


@lru_cache(maxsize=256)
def gpu_key(gpu_name: str) -> str:
    """The file-name key of a GPU model: its CUDA device name in kebab case (remembered: a
    check asks it for the same few names 11,000 times at 5,000 terms)."""
    return re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-") or "unknown-gpu"


@dataclass(frozen=True)
class Machine:
    gpu_name: str
    compute_capability: str
    sm_count: int
    driver_version: str
    cuda_runtime_version: str
    nvcc_version: str
    gpu_count: int = 1

    @property
    def key(self) -> str:
        return gpu_key(self.gpu_name)

    def badge(self, arch: str) -> str:
        cuda = self.cuda_runtime_version
        return f"Ran on {self.gpu_name} ({arch}), CUDA {cuda}, driver {self.driver_version}"


@dataclass(frozen=True)
class Record:
    section: str
    term: str
    name: str
    lang: str
    options: dict[str, str]
    source_sha256: str
    status: str
    reason: str
    stdout: str
    stderr: str
    exit_status: int | None
    duration_s: float
    date: str
    nvcc_version: str
    machine: Machine | None
    expected_sha256: str | None = None
    has_ptx: bool = False
    has_sass: bool = False
    schema: int = field(default=SCHEMA)

    @property
    def gpu_key(self) -> str:
        """The key this record is filed under: its GPU model, or ``no-gpu``."""
        return self.machine.key if self.machine is not None else NO_GPU

    def to_json(self) -> str:
        data = asdict(self)
        data["schema"] = SCHEMA
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Record:
        data: dict[str, Any] = json.loads(text)
        machine = data.pop("machine", None)
        known = {f for f in cls.__dataclass_fields__}
        data = {k: v for k, v in data.items() if k in known}
        return cls(machine=Machine(**machine) if machine else None, **data)


@lru_cache(maxsize=8192)
def sha256(text: str) -> str:
    """Remembered: a check compares each snippet's source with each of its records'."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def options_of(snippet: Snippet) -> dict[str, str]:
    return dict(snippet.options)


def record_dir(records_root: Path, term: Term) -> Path:
    """The term's folder: one sub-folder per snippet."""
    return records_root / term.section / term.slug


def snippet_dir(records_root: Path, term: Term, snippet: Snippet) -> Path:
    return record_dir(records_root, term) / snippet.name


def record_path(records_root: Path, term: Term, snippet: Snippet, key: str) -> Path:
    return snippet_dir(records_root, term, snippet) / f"{key}.json"


def _load(path: Path) -> Record | None:
    try:
        return Record.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _json_names(folder: Path) -> list[str]:
    """The names in ``folder`` matching ``*.json``, sorted: what ``sorted(folder.glob("*.json"))``
    lists, without pathlib's glob machinery (half of reading 1,000 records); none when
    ``folder`` is missing or not a folder."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entry.name for entry in entries if entry.name.endswith(".json"))
    except OSError:
        return []


def records_for(records_root: Path, term: Term, snippet: Snippet) -> Mapping[str, Record]:
    """Every GPU model's record of ``snippet``, by GPU key, keys sorted.

    This is the one way to read records. An unreadable file is left out (``glossary check``
    then reports the GPU as missing). A schema-1 record not yet migrated counts as its
    machine's record unless that machine also has a new one.
    """
    return _records_at(snippet_dir(records_root, term, snippet), record_dir(records_root, term) / f"{snippet.name}.json")


def _records_at(folder: Path, legacy_file: Path | None) -> dict[str, Record]:
    """The records in a snippet's ``folder``, and the schema-1 ``legacy_file`` beside it
    (None: the caller's listing already shows there is none)."""
    found: dict[str, Record] = {}
    for name in _json_names(folder):
        record = _load(folder / name)
        if record is not None:
            found[Path(name).stem] = record
    legacy = _load(legacy_file) if legacy_file is not None else None
    if legacy is not None:
        found.setdefault(legacy.gpu_key, legacy)
    return dict(sorted(found.items()))


def _folder_names(folder: Path) -> list[str]:
    """The names of the folders in ``folder``, sorted (none when it is missing)."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entry.name for entry in entries if entry.is_dir())
    except OSError:
        return []


def records_in(records_root: Path) -> dict[tuple[str, str, str], Mapping[str, Record]]:
    """:func:`records_for` of every snippet that has a folder or a legacy file under
    ``records_root``, by (section, term slug, snippet name), read without knowing the terms:
    `check` reads them while the terms are parsed (pipeline.load_project). A snippet missing
    here has no record (records_for would find none either)."""
    out: dict[tuple[str, str, str], Mapping[str, Record]] = {}
    for section in _folder_names(records_root):
        for slug in _folder_names(records_root / section):
            term_dir = records_root / section / slug
            legacy = {Path(n).stem for n in _json_names(term_dir)}
            for name in sorted({*_folder_names(term_dir), *legacy}):
                found = _records_at(term_dir / name, term_dir / f"{name}.json" if name in legacy else None)
                if found:
                    out[(section, slug, name)] = found
    return out


def read_record(records_root: Path, term: Term, snippet: Snippet, key: str | None = None) -> Record | None:
    """One record: GPU ``key``'s, or (no key) the first passing one, else the first one."""
    records = records_for(records_root, term, snippet)
    if key is not None:
        return records.get(key)
    passing = [r for r in records.values() if r.status == PASSED]
    return (passing or list(records.values()) or [None])[0]


def _sass_name(snippet: Snippet) -> str:
    return f"{snippet.arch}.sass"


def read_artifact(records_root: Path, term: Term, snippet: Snippet, kind: str) -> str | None:
    """The committed PTX (``kind='ptx'``) or SASS (``'sass'``) of a snippet, if any."""
    name = PTX_FILE if kind == "ptx" else _sass_name(snippet)
    for path in (snippet_dir(records_root, term, snippet) / name, record_dir(records_root, term) / f"{snippet.name}.{kind}"):
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            continue
    return None


def write_record(records_root: Path, term: Term, snippet: Snippet, record: Record, ptx: str | None, sass: str | None) -> None:
    """File ``record`` under its GPU key; PTX and SASS replace the snippet's (same source, same bytes).

    A missing PTX or SASS leaves the committed one alone: another GPU's run produced it and
    this one (a machine without cuobjdump, say) proved nothing against it.
    """
    migrate_snippet(records_root, term.section, term.slug, snippet.name)
    folder = snippet_dir(records_root, term, snippet)
    for name, text in ((PTX_FILE, ptx), (_sass_name(snippet), sass)):
        if text is not None:
            write_text(folder / name, text if text.endswith("\n") else text + "\n")
    write_text(folder / f"{record.gpu_key}.json", record.to_json())


def migrate_snippet(records_root: Path, section: str, term: str, name: str) -> bool:
    """Move one schema-1 record (``<term>/<name>.json`` and its PTX/SASS) into the new layout."""
    base = records_root / section / term
    legacy = base / f"{name}.json"
    record = _load(legacy)
    if record is None:
        return False
    folder = base / name
    target = folder / f"{record.gpu_key}.json"
    if not target.exists():
        write_text(target, record.to_json())
    arch = record.options.get("arch", DEFAULT_ARCH) or DEFAULT_ARCH
    for kind, new_name in (("ptx", PTX_FILE), ("sass", f"{arch}.sass")):
        old = base / f"{name}.{kind}"
        if old.exists():
            if not (folder / new_name).exists():
                write_text(folder / new_name, old.read_text(encoding="utf-8"))
            old.unlink()
    legacy.unlink()
    return True


def migrate_legacy(records_root: Path) -> int:
    """Move every schema-1 record under ``records_root`` into the per-GPU layout; how many moved."""
    moved = 0
    if not records_root.is_dir():
        return 0
    for legacy in sorted(records_root.glob("*/*/*.json")):
        section, term = legacy.parent.parent.name, legacy.parent.name
        moved += migrate_snippet(records_root, section, term, legacy.stem)
    return moved
