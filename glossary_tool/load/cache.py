"""A content-addressed cache of per-file results across runs: ``.cache/`` at the repository root.

Parsing term bodies with markdown-it-py is most of what `glossary check` costs; a repeated
check, build or ``check --changed`` should pay it only for the files that changed. Each
result is stored under the SHA-256 of everything it depends on: the tool's own source and
the versions of the libraries that decide the parse (:func:`tool_version`), what kind of
result it is, and the inputs (a term file's shown path and bytes; a body and the link texts
it renders with). A key therefore never needs invalidating: a changed input is another key.

What is stored are the frozen dataclasses the stages return (a :class:`Term` with its
xrefs, headings, snippets and word count, and its diagnostics), never markdown-it tokens:
renderers re-parse a body lazily through ``parse_tokens`` (cached per process).

The cache is an optimisation only. One pickle per tool version holds the entries the last
run used (so it never grows past the glossary), written atomically; a cache that is missing,
unreadable, corrupt or unwritable is simply empty, never an error. The folder holds a
``.gitignore`` of ``*`` so git (and ``check --changed``) never sees it.

Unpickling runs code, and a pull request could commit a crafted ``.cache/`` for CI to load.
So the pickle is signed with HMAC-SHA256 under a key kept outside the repository (in the
user's cache folder, created on first use, mode 0600), and a file that does not verify is
not unpickled: a cache only trusts what this user's own runs wrote.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import hmac
import importlib
import io
import os
import pickle
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from glossary_tool.atomic import open_atomic, write_bytes

T = TypeVar("T")

CACHE_DIR = ".cache"
#: Libraries whose behaviour is part of a cached result (import names: their ``__version__``
#: is read, since importing ``importlib.metadata`` alone cost a warm check 40 ms).
_LIBRARIES = ("markdown_it", "mdit_py_plugins", "yaml", "nh3", "lxml")
_PACKAGE = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Python's cycle collector off for a while (back as it was after).

    Unpickling a 5,000-term cache, or parsing 5,000 bodies, allocates millions of objects
    that stay alive, and every few thousand allocations the collector walks all of them
    again: half the time of unpickling, a fifth of a cold check. What these steps create
    holds no reference cycles worth collecting early; any there are go at the next collection.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            # What was made meanwhile is young to the collector: the first collection after
            # gc.enable() would walk all of it (0.34 s after a cold 5,000-term check, 0.09 s
            # warm). freeze + unfreeze moves it to the oldest generation unexamined (two list
            # splices), where a later full collection still finds any cycle in it.
            gc.freeze()
            gc.unfreeze()
            gc.enable()


@lru_cache(maxsize=1)
def tool_version() -> str:
    """A digest of the package's Python source and the parsing libraries' versions: any
    edit to the tool (or an upgrade) starts a new cache rather than trusting an old result."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for name in _LIBRARIES:
        try:
            version = str(getattr(importlib.import_module(name), "__version__", "-"))
        except ImportError:
            version = "-"
        digest.update(f"{name}={version}\0".encode())
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _signing_key() -> bytes:
    """This user's key for signing caches (a fresh one, that nothing will verify, when the
    user's cache folder cannot be written: the cache is then only in-process)."""
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "glossary-tool"
    path = home / "cache-key"
    with contextlib.suppress(OSError):
        data = path.read_bytes()
        if len(data) >= 32:
            return data
    data = os.urandom(32)
    with contextlib.suppress(OSError):
        home.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    with contextlib.suppress(OSError):  # another process may have won the race: use its key
        stored = path.read_bytes()
        if len(stored) >= 32:
            return stored
    return data


_SIGNATURE_SIZE = 32


def _sign(payload: bytes | memoryview) -> bytes:
    return hmac.new(_signing_key(), payload, hashlib.sha256).digest()


def _verified(data: bytes) -> memoryview | None:
    """A view of a cache file's ``data`` (slices of it are not copies: the site's pages are
    180 MB at 5,000 terms), or None when its signature is not this user's."""
    view = memoryview(data)
    return view if hmac.compare_digest(view[:_SIGNATURE_SIZE], _sign(view[_SIGNATURE_SIZE:])) else None


def entry_bytes(name: str, value: Any) -> bytes:
    """The pickle of one cache entry as :func:`_write_entries` writes it: a process that
    computed ``value`` may pickle it there (:meth:`Cache.put` takes the bytes)."""
    return pickle.dumps((name, value), protocol=pickle.HIGHEST_PROTOCOL)


def _write_entries(entries: dict[str, Any], handle: _Signed, pickled: Mapping[str, bytes | memoryview] | None = None) -> dict[str, tuple[int, int]]:
    """``entries`` as one pickle per (name, value), then None (``pickled``: entries already
    pickled by :func:`entry_bytes`, or as read from the file this one replaces); where each
    entry's bytes went in the file, by name. A pickler remembers every object it wrote
    until it is done, so one pickle of the whole dict kept all that its values' pickling
    made (a page's HTML encoded to UTF-8, say) until the end."""
    pickled = pickled or {}
    spans: dict[str, tuple[int, int]] = {}
    for entry in entries.items():
        start = handle.position
        data = pickled.get(entry[0])
        if data is not None:
            handle.write(data)
        else:
            pickle.dump(entry, handle, protocol=pickle.HIGHEST_PROTOCOL)
        spans[entry[0]] = (start, handle.position)
    pickle.dump(None, handle, protocol=pickle.HIGHEST_PROTOCOL)
    return spans


def _read_entries(data: bytes) -> tuple[dict[str, Any], dict[str, tuple[int, int]]]:
    """What :func:`_write_entries` wrote, after the signature (a BytesIO shares ``data``, it
    does not copy it), and where each entry's pickle lies in ``data``."""
    stream = io.BytesIO(data)
    stream.seek(_SIGNATURE_SIZE)
    out: dict[str, Any] = {}
    spans: dict[str, tuple[int, int]] = {}
    start = _SIGNATURE_SIZE
    with paused_gc():
        while (entry := pickle.load(stream)) is not None:
            name, value = entry
            out[name] = value
            end = stream.tell()
            spans[name] = (start, end)
            start = end
    return out, spans


#: Bytes :class:`_Signed` gathers before it signs and writes them.
_BLOCK = 1 << 20


class _Signed:
    """A file that signs what is written through it (``mac``: HMAC-SHA256 under this user's key).

    Writes are gathered into blocks of about :data:`_BLOCK` bytes, each signed and written
    at once: a cold 5,000-term check saves some 10,000 entries of a few hundred bytes, and
    signing and writing each on its own was most of the save, a step after the parse on one
    core. A block bounds what is held, so the build's pages are still never whole in memory.
    """

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle
        self.mac = hmac.new(_signing_key(), digestmod=hashlib.sha256)
        self._parts: list[bytes] = []
        self._held = 0
        #: Where the next byte goes, counted from the file's start (after the signature).
        self.position = _SIGNATURE_SIZE

    def write(self, data: bytes | bytearray | memoryview) -> int:
        size = len(data) if isinstance(data, bytes) else memoryview(data).nbytes
        self._parts.append(data if isinstance(data, bytes) else bytes(data))  # a buffer the pickler may reuse is copied
        self._held += size
        self.position += size
        if self._held >= _BLOCK:
            self.flush()
        return size

    def flush(self) -> None:
        """Sign and write what was gathered (call before reading :attr:`mac`)."""
        if self._parts:
            block = b"".join(self._parts)
            self._parts.clear()
            self._held = 0
            self.mac.update(block)
            self.handle.write(block)


def key(kind: str, *parts: str | bytes) -> str:
    """The cache key of a ``kind`` of result computed from ``parts`` (and the tool version)."""
    digest = hashlib.sha256(f"{tool_version()}\0{kind}\0".encode())
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


#: The load cache's entries as last read or written by this process, by file, with the
#: file's (inode, size, mtime), the signing key and where each entry lies in the file:
#: `glossary serve` loads the project on every rebuild, and unpickling (and signing) an
#: unchanged file again was a twentieth of a 1,000-term rebuild.
#: Only the ``load`` kind: its values are the terms the loaded glossary holds anyway.
_REMEMBERED: dict[Path, tuple[tuple[int, int, int], bytes, dict[str, Any], dict[str, tuple[int, int]]]] = {}
_REMEMBER_KINDS = ("load",)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class Cache:
    """Results by key, loaded from ``directory`` once and saved with :meth:`save`.

    ``directory`` None is a cache that remembers nothing across runs (``--no-cache``).
    ``kind`` names its file: the build's finished pages (``pages``) are kept apart from the
    parses every `check` reads (``load``), so a check never unpickles the site's HTML.
    """

    def __init__(self, directory: Path | None, kind: str = "load") -> None:
        self.directory = directory
        self.kind = kind
        self._stored: dict[str, Any] = {}
        self._used: dict[str, Any] = {}
        #: Entries of ``_used`` already pickled (:func:`entry_bytes`), by key.
        self._pickled: dict[str, bytes] = {}
        #: An entry was stored under a key already on file (a manifest that changed): save.
        self._replaced = False
        self.hits = 0
        self.misses = 0
        #: Where each stored entry lies in the file of that (inode, size, mtime) (remembered
        #: kinds only): a save copies the entries it did not change from there.
        self._spans: dict[str, tuple[int, int]] = {}
        self._spans_of: tuple[int, int, int] | None = None
        if directory is not None:
            file = self._file
            stamp = _stamp(file) if kind in _REMEMBER_KINDS else None
            remembered = _REMEMBERED.get(file)
            if stamp is not None and remembered is not None and remembered[:2] == (stamp, _signing_key()):  # the file this process last read or wrote
                self._stored = dict(remembered[2])
                self._spans, self._spans_of = remembered[3], stamp
                return
            with contextlib.suppress(Exception):  # missing, truncated, from another Python: start empty
                data = file.read_bytes()
                if _verified(data) is not None:  # only what this user's runs wrote
                    self._stored, spans = _read_entries(data)
                    if stamp is not None and _stamp(file) == stamp:
                        self._spans, self._spans_of = spans, stamp
                        _REMEMBERED[file] = (stamp, _signing_key(), dict(self._stored), spans)

    @property
    def empty(self) -> bool:
        """Whether nothing was read from earlier runs: every lookup will miss (load_tree then
        leaves reading the term files to the processes that parse them)."""
        return not self._stored

    @property
    def _file(self) -> Path:
        assert self.directory is not None
        return self.directory / f"{self.kind}-{tool_version()[:16]}.pickle"

    def get(self, name: str) -> Any | None:
        """The stored result for key ``name``, or None."""
        if name in self._used:
            self.hits += 1
            return self._used[name]
        value = self._stored.get(name)
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        self._used[name] = value
        return value

    def missed(self, count: int) -> None:
        """Count ``count`` misses of lookups not made because they could only miss (files
        left unread while nothing is stored: load_tree), so the counts still say what was parsed."""
        self.misses += count

    def peek(self, name: str) -> Any | None:
        """The stored result for key ``name``, or None, without counting a hit or a miss or
        keeping it: for a lookup that is not a result of its own (load/files.py's manifest)."""
        return self._used.get(name, self._stored.get(name))

    def put(self, name: str, value: Any, pickled: bytes | None = None) -> None:
        """Keep ``value`` under ``name``; ``pickled``: :func:`entry_bytes` of the two, made
        where ``value`` was computed (a worker), which :meth:`save` then writes as they are."""
        self._used[name] = value
        if pickled is not None:
            self._pickled[name] = pickled
        else:
            self._pickled.pop(name, None)

    def get_or_make(self, name: str, make: Callable[[], T], *, counted: bool = True) -> T:
        """The result kept under ``name``, made by ``make()`` and kept when there is none.
        ``counted=False`` leaves the hit and miss counts alone (they report term files; the
        reading order's or site config's parse is not one)."""
        found = self.get(name) if counted else self.peek(name)
        if found is None:
            found = make()
        self.put(name, found)
        return found

    def replace(self, name: str, value: Any) -> None:
        """:meth:`put` for an entry whose key stays while its value changes (load/files.py's
        manifest): a value other than the stored one makes :meth:`save` write the file even
        though the keys in use are the ones it read."""
        if self._stored.get(name) is not value:
            self._replaced = True
        self._used[name] = value
        self._pickled.pop(name, None)

    def save(self) -> None:
        """Write the entries this run used (when they differ from what was read); a failure
        to write only costs the next run its head start."""
        if self.directory is None or (self._used.keys() == self._stored.keys() and not self._replaced):
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                write_bytes(ignore, b"# written by glossary_tool: the whole folder is a disposable cache\n*\n", durable=False)
            with open_atomic(self._file, durable=False) as handle, paused_gc():
                # Streamed to the file, signed on the way: the pickle of the build's pages
                # is never whole in memory (twice, with the signature in front, before).
                handle.write(bytes(_SIGNATURE_SIZE))
                signed = _Signed(handle)
                spans = _write_entries(self._used, signed, {**self._unchanged(), **self._pickled})
                signed.flush()
                handle.seek(0)
                handle.write(signed.mac.digest())
            for old in self.directory.glob(f"{self.kind}-*.pickle"):
                if old != self._file:
                    with contextlib.suppress(OSError):
                        os.unlink(old)
        except (OSError, pickle.PicklingError):
            return
        self._stored = dict(self._used)
        self._pickled = {}
        self._replaced = False
        stamp = _stamp(self._file) if self.kind in _REMEMBER_KINDS else None
        self._spans, self._spans_of = (spans, stamp) if stamp is not None else ({}, None)
        if stamp is not None:
            _REMEMBERED[self._file] = (stamp, _signing_key(), dict(self._stored), spans)

    def _unchanged(self) -> dict[str, memoryview]:
        """The pickled bytes, as the file holds them, of the entries in use whose value is the
        one read from it (or written to it) by this process: an edit to one term of 1,000
        made `glossary serve` pickle the other 999 again on every rebuild (70 ms).

        Read from the file only while it is the one the spans describe (same inode, size and
        time) and its signature still verifies, so nothing unsigned is copied into the new file."""
        if not self._spans or self._spans_of is None or _stamp(self._file) != self._spans_of:
            return {}
        stored, spans = self._stored, self._spans
        names = [name for name, value in self._used.items() if name in spans and stored.get(name) is value]
        if not names:
            return {}
        try:
            view = _verified(self._file.read_bytes())
        except OSError:
            return {}
        if view is None:
            return {}
        return {name: view[spans[name][0] : spans[name][1]] for name in names}


def project_cache(root: Path, enabled: bool = True) -> Cache:
    """The cache of the project at ``root`` (its ``.cache/`` folder), or an empty one."""
    return Cache(Path(root) / CACHE_DIR if enabled else None)
