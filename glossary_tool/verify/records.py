"""Snippet records: one deterministic JSON file per snippet, next to its PTX and SASS.

Records are committed, so they are written with sorted keys and a trailing newline
(stable diffs) and atomically (an interrupted verify leaves every record whole).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from glossary_tool.atomic import write_text
from glossary_tool.model import Snippet, Term

PASSED = "passed"
FAILED = "failed"
COMPILE_ONLY = "compile-only"
SKIPPED = "skipped"
SCHEMA = 1


@dataclass(frozen=True)
class Machine:
    gpu_name: str
    compute_capability: str
    sm_count: int
    driver_version: str
    cuda_runtime_version: str
    nvcc_version: str
    gpu_count: int = 1

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

    def to_json(self) -> str:
        data = asdict(self)
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Record:
        data: dict[str, Any] = json.loads(text)
        machine = data.pop("machine", None)
        known = {f for f in cls.__dataclass_fields__}
        data = {k: v for k, v in data.items() if k in known}
        return cls(machine=Machine(**machine) if machine else None, **data)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def options_of(snippet: Snippet) -> dict[str, str]:
    return dict(snippet.options)


def record_dir(records_root: Path, term: Term) -> Path:
    return records_root / term.section / term.slug


def record_path(records_root: Path, term: Term, snippet: Snippet) -> Path:
    return record_dir(records_root, term) / f"{snippet.name}.json"


def read_record(records_root: Path, term: Term, snippet: Snippet) -> Record | None:
    path = record_path(records_root, term, snippet)
    try:
        return Record.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def read_artifact(records_root: Path, term: Term, snippet: Snippet, kind: str) -> str | None:
    """The committed PTX (``kind='ptx'``) or SASS (``'sass'``) of a snippet, if any."""
    path = record_dir(records_root, term) / f"{snippet.name}.{kind}"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def write_record(records_root: Path, term: Term, snippet: Snippet, record: Record, ptx: str | None, sass: str | None) -> None:
    base = record_dir(records_root, term)
    for kind, text in (("ptx", ptx), ("sass", sass)):
        path = base / f"{snippet.name}.{kind}"
        if text is not None:
            write_text(path, text if text.endswith("\n") else text + "\n")
        elif path.exists():
            path.unlink()
    write_text(record_path(records_root, term, snippet), record.to_json())
