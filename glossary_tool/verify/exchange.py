"""Carry one GPU's records from the machine that ran them into the repository.

A GPU machine (a device lease, a self-hosted CI runner) runs ``glossary verify --pack
FILE.tgz`` (``.tar`` for no compression): the tarball holds that GPU's record files and the snippets' PTX and SASS,
under ``snippets/``. Back at a checkout, ``glossary verify --merge FILE.tgz`` files them:
records of other GPUs are untouched, and a record that proves less (compile-only where a
fresh pass stands, an older pass) never replaces one that proves more, so tarballs can be
merged in any order.
"""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from glossary_tool.atomic import write_bytes
from glossary_tool.verify.records import PASSED, PTX_FILE, Record, migrate_legacy

PREFIX = "snippets"


class ExchangeError(Exception):
    """A tarball that cannot be packed or merged; the message says why, nothing was written."""


@dataclass
class MergeReport:
    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)

    def line(self) -> str:
        return f"merge: {len(self.written)} file(s) written, {len(self.kept)} record(s) kept (the repository's proved more)"


def pack(records_root: Path, key: str, dest: Path, folders: Iterable[Path] | None = None) -> int:
    """Write ``dest`` (a tar) with GPU ``key``'s records and their PTX/SASS; how many records.

    ``folders`` limits it to those snippets (the ones a run covered), so a run of a few
    snippets carries nothing older than itself for the others.
    """
    files = sorted(p for p in records_root.glob(f"*/*/*/{key}.json"))
    if folders is not None:
        wanted = {Path(f).resolve() for f in folders}
        files = [f for f in files if f.parent.resolve() in wanted]
    if not files:
        raise ExchangeError(f"no record of GPU '{key}' under {records_root}")
    artifacts = sorted({a for f in files for a in f.parent.iterdir() if a.name == PTX_FILE or a.suffix == ".sass"})
    buffer = io.BytesIO()
    mode = "w:gz" if dest.name.endswith((".tgz", ".tar.gz")) else "w"  # gzip: a tenth of the size
    with tarfile.open(fileobj=buffer, mode=mode) as tar:
        for path in [*files, *artifacts]:
            data = path.read_bytes()
            info = tarfile.TarInfo(str(PurePosixPath(PREFIX, *path.relative_to(records_root).parts)))
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    write_bytes(dest, buffer.getvalue())
    return len(files)


def _member_path(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    parts = path.parts
    if path.is_absolute() or ".." in parts or len(parts) != 5 or parts[0] != PREFIX:
        raise ExchangeError(f"unexpected member {name!r}: only snippets/<section>/<term>/<snippet>/<file> may be merged")
    if not (parts[-1].endswith((".json", ".sass")) or parts[-1] == PTX_FILE):
        raise ExchangeError(f"unexpected member {name!r}: only records (.json), {PTX_FILE} and .sass files may be merged")
    return PurePosixPath(*parts[1:])


def proves_more(current: Record, incoming: Record) -> bool:
    """Whether the repository's ``current`` record should stay instead of ``incoming``."""
    same_source = current.source_sha256 == incoming.source_sha256 and current.options == incoming.options
    if not same_source:
        return False
    if current.status == PASSED and incoming.status != PASSED:
        return True
    return current.status == incoming.status and current.date > incoming.date


def merge(archive: Path, records_root: Path) -> MergeReport:
    """File the records of ``archive`` under ``records_root``; reads everything before writing."""
    try:
        with tarfile.open(archive) as tar:
            members = [(m, _member_path(m.name)) for m in tar.getmembers() if m.isfile()]
            contents = {rel: tar.extractfile(m).read() for m, rel in members}  # type: ignore[union-attr]
    except (OSError, tarfile.TarError) as exc:
        raise ExchangeError(f"cannot read {archive}: {exc}") from exc
    records: dict[PurePosixPath, Record] = {}
    for rel, data in contents.items():
        if rel.suffix == ".json":
            try:
                records[rel] = Record.from_json(data.decode("utf-8"))
            except (ValueError, TypeError, KeyError) as exc:
                raise ExchangeError(f"{archive}: {rel} is not a snippet record: {exc}") from exc
    migrate_legacy(records_root)
    report = MergeReport()
    for rel, data in sorted(contents.items()):
        target = records_root.joinpath(*rel.parts)
        if rel in records and target.exists():
            try:
                current = Record.from_json(target.read_text(encoding="utf-8"))
            except (ValueError, TypeError, KeyError, OSError):
                current = None
            if current is not None and proves_more(current, records[rel]):
                report.kept.append(str(rel))
                continue
        if not target.exists() or target.read_bytes() != data:
            write_bytes(target, data)
            report.written.append(str(rel))
    return report
