"""Walk ``glossary/``, read every file defensively, and build Terms, Sections and the TOC.

Whatever a file holds (nothing, binary, invalid UTF-8, 5 MB, a symlink out of the repo),
reading it yields diagnostics, never an exception.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.load import cache, frontmatter, schema
from glossary_tool.load.body import ParsedBody, forget_tokens, parse_body, remember
from glossary_tool.load.body import precompute as precompute_body
from glossary_tool.load.cache import Cache
from glossary_tool.load.equivalents import equivalent_xrefs
from glossary_tool.load.toc import TOC_NAME, ReadingOrder, read_toc
from glossary_tool.model import SECTION_TITLES, SECTIONS, Section, Source, Term
from glossary_tool.text import SLUG_RE

MAX_BYTES = 1_000_000
INDEX = "index.md"
#: Stylesheets and images the site serves as they are.
ASSETS = "assets"


@dataclass(frozen=True)
class LoadResult:
    root: Path
    terms: tuple[Term, ...]
    sections: tuple[Section, ...]
    home: Section | None
    order: ReadingOrder
    diagnostics: tuple[Diagnostic, ...]
    #: (section, slug) of term files that exist but could not be loaded: their own error is
    #: the one report (the reading order does not also call them missing).
    unloaded: frozenset[tuple[str, str]] = frozenset()
    #: A digest of the cache keys of ``terms``' parses, in order (each term is a function
    #: of its key), or None when loaded without a cache: what the linker keys its result by.
    digest: str | None = None

    @property
    def pages(self) -> list[Term]:
        """The section intros and the home intro as pseudo-terms (their xrefs resolve too)."""
        pages = [section.page for section in self.sections if section.page is not None]
        if self.home is not None and self.home.page is not None:
            pages.append(self.home.page)
        return pages


def rel(root: Path, path: Path) -> str:
    """Paths in diagnostics are relative to the repository (the glossary's parent)."""
    try:
        return path.relative_to(root.parent).as_posix()
    except ValueError:
        return path.as_posix()


def read_bytes(root: Path, path: Path, out: list[Diagnostic], *, size: int | None = None) -> bytes | None:
    """The file's bytes, or None with a diagnostic: a link out of the glossary, too large, unreadable.

    These depend on the file system, not the content, so they are never cached. ``size``:
    the caller's ``lstat`` just found a regular file of this many bytes, at most MAX_BYTES
    (its :data:`Signature`), so neither a link nor the size is checked again (two system
    calls of the three per file, a third of reading 5,000 files), and the file is read with
    bare system calls (:func:`_read_regular`).
    """
    name = os.fspath(path)  # os calls, not pathlib: 5,000 files are read per check
    try:
        if size is not None:
            return _read_regular(name, size)
        if os.path.islink(name):
            target = path.resolve()
            if not target.is_relative_to(root.resolve()):
                out.append(error(rel(root, path), 1, 1, "symlink-outside", f"symbolic link points outside the glossary ({os.readlink(path)}); copy the file in instead"))
                return None
        size = os.stat(name).st_size
        if size > MAX_BYTES:
            out.append(error(rel(root, path), 1, 1, "file-too-large", f"file is {size:,} bytes; a term file may hold at most {MAX_BYTES:,}"))
            return None
        with open(name, "rb") as handle:
            return handle.read()
    except OSError as exc:
        shown = rel(root, path)
        out.append(error(shown, 1, 1, "file-unreadable", f"cannot read file: {exc.strerror or exc}"))
        return None


def _read_regular(name: str, size: int) -> bytes:
    """The bytes of the regular file ``name``, which held ``size`` bytes a moment ago.

    ``open(name, "rb").read()`` costs nine system calls (it also asks whether the file is a
    terminal, and stats and seeks it twice to size its buffer) and two Python file objects;
    this is three. On a local file system a regular file's read returns fewer bytes than asked only
    at its end, so one read of ``size + 1`` bytes that brings exactly ``size`` is the whole
    file. Any other count (a file that grew or shrank since, or a file system that returns
    short reads) reads on to the end. Half the time of reading 5,000 term files.
    """
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        data = os.read(fd, size + 1)
        if len(data) == size:
            return data
        parts = [data]
        while chunk := os.read(fd, 1 << 16):
            parts.append(chunk)
        return b"".join(parts)
    finally:
        os.close(fd)


def decode(shown: str, data: bytes, out: list[Diagnostic]) -> str | None:
    """The text of a file's bytes, or None with a diagnostic: empty, binary, not UTF-8."""
    if not data.strip():
        out.append(error(shown, 1, 1, "file-empty", "file is empty; a term needs front matter and a body"))
        return None
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        out.append(error(shown, line, 1, "file-binary", "file contains NUL bytes: it is binary, not Markdown"))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        out.append(error(shown, line, col, "file-encoding", f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8"))
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def read_text(root: Path, path: Path, out: list[Diagnostic]) -> str | None:
    """The file's text, or None with a diagnostic saying why it cannot be used."""
    data = read_bytes(root, path, out)
    return None if data is None else decode(rel(root, path), data, out)


def load_term(root: Path, path: Path, section: str, out: list[Diagnostic]) -> Term | None:
    data = read_bytes(root, path, out)
    if data is None:
        return None
    term, diagnostics = parse_term(TermFile(section, path.stem, rel(root, path), data))
    out.extend(diagnostics)
    return term


@dataclass(frozen=True)
class TermFile:
    """A term file's bytes and where it sits: everything its parse depends on (the cache key)."""

    section: str
    slug: str
    shown: str
    data: bytes

    def cache_key(self) -> str:
        return cache.key("term", self.section, self.slug, self.shown, self.data)


@dataclass(frozen=True)
class UnreadTermFile:
    """A term file that whichever process claims it reads (:meth:`read`), then parses.

    With nothing cached every file is parsed, so a cold check need not read (and hash)
    5,000 files on one core before its workers start: they read their own claims. The
    file's :data:`Signature` was taken before (``size`` is its size, None without one), as
    a manifest needs: a write after it shows as a changed signature next time."""

    root: Path
    section: str
    path: Path
    shown: str
    size: int | None

    def read(self) -> tuple[TermFile | None, tuple[Diagnostic, ...]]:
        """The file's :class:`TermFile`, or None with the diagnostics of why it cannot be read."""
        problems: list[Diagnostic] = []
        data = read_bytes(self.root, self.path, problems, size=self.size)
        return (None if data is None else TermFile(self.section, self.path.stem, self.shown, data)), tuple(problems)


#: What a parse is given: a term file, or one to read first (see :class:`UnreadTermFile`).
AnyTermFile = TermFile | UnreadTermFile


def parse_term(file: TermFile) -> tuple[Term | None, tuple[Diagnostic, ...]]:
    """A term file's Term (None if it cannot be loaded) and its diagnostics: a pure function
    of ``file``, so it can run in a worker process and its result can be cached."""
    out: list[Diagnostic] = []
    text = decode(file.shown, file.data, out)
    if text is None:
        return None, tuple(out)
    fm = frontmatter.parse(file.shown, text)
    out.extend(fm.diagnostics)
    if not fm.data and fm.diagnostics:
        return None, tuple(out)
    clean, problems = frontmatter.validate(fm)
    out.extend(problems)
    body = parse_body(file.shown, fm.body, fm.body_offset)
    out.extend(body.diagnostics)
    if any(d.code == "markdown-unparsable" for d in body.diagnostics):
        return None, tuple(out)  # every later stage would parse the body again and fail the same way
    return term_from(file.slug, file.section, file.shown, clean, fm, body), tuple(out)


def parse_terms(
    files: list[TermFile],
    store: Cache | None = None,
    *,
    processes: int = 1,
    precompute: tuple[Callable[[str], Any], ...] = (),
    keep_tokens: bool = False,
) -> list[tuple[Term | None, tuple[Diagnostic, ...]]]:
    """:func:`parse_term` of each file, in order: cached results where ``store`` has them.

    ``processes`` > 1 parses the misses in that many processes (this one and forked workers)
    when there are at least :data:`FORK_MIN_TERMS` of them and forking is safe
    (background.can_fork: not with GLOSSARY_NO_FORK=1, one core or other threads); the
    results equal what a one-process parse gives, in the same order. A worker also
    runs each ``precompute`` function (see body.precomputed) on the bodies it parsed, so
    that this process, which never holds their tokens, does not parse them again: a check
    needs nothing else of the tokens. ``keep_tokens`` (a `glossary build`, which renders
    the bodies next): this process keeps the token streams of what it parsed itself, a run
    at the start of ``files`` (:func:`_claim`), and the build renders those pages here and
    leaves the rest to its page worker, which parses them again on the other core.
    """
    return _parse_keyed(files, store, processes, precompute, keep_tokens=keep_tokens)[0]


def _parse_keyed(
    files: list[AnyTermFile],
    store: Cache | None,
    processes: int,
    precompute: tuple[Callable[[str], Any], ...],
    known: list[str | None] | None = None,
    meanwhile: Callable[[], object] | None = None,
    keep_tokens: bool = False,
) -> tuple[list[ParseResult], list[str]]:
    """:func:`parse_terms` and the cache key of each file (all empty without ``store``, and
    empty for an unread file that could not be read); ``known``: keys already known
    (load_tree's manifest), None where the bytes must be hashed; ``meanwhile``: see
    :func:`_parse_all`; ``keep_tokens``: see :func:`parse_terms`."""
    if store is None:
        keys: list[str | None] = [""] * len(files)
    elif known is None:
        keys = [f.cache_key() if isinstance(f, TermFile) else None for f in files]
    else:
        keys = [k if k is not None else f.cache_key() if isinstance(f, TermFile) else None for f, k in zip(files, known, strict=True)]
    # an unread file's key is its bytes' (found where it is read): nothing stored to look up
    results: list[ParseResult | None] = [store.get(k) if store is not None and k is not None else None for k in keys]
    if store is not None:
        store.missed(keys.count(None))
    missing = [i for i, r in enumerate(results) if r is None]
    # With a cache to fill, forked parses come with their entries pickled (see _parse_all).
    parsed, pickled, found = _parse_all([files[i] for i in missing], processes, precompute, [keys[i] or "" for i in missing] if store is not None else None, meanwhile, keep_tokens)
    for i, result, entry, key in zip(missing, parsed, pickled, found, strict=True):
        results[i] = result
        if store is not None:
            keys[i] = key
            if key:  # "": a file that could not be read (that depends on the file system: never kept)
                store.put(key, result, entry)
    return results, keys  # type: ignore[return-value]  # every None was filled


#: Fewer misses than this per process are parsed in one process: a worker costs a fork and
#: the pickling of its results both ways. Chosen, not tuned: at 261 terms (the real glossary,
#: two processes) the fork still saved wall time (BENCHMARKS.md, "check on two cores").
FORK_MIN_TERMS = 150

ParseResult = tuple[Term | None, tuple[Diagnostic, ...]]


#: Terms a process claims at a time. Claiming costs a lock and each claim's results one
#: message (about 50 us together), and the processes finish at most one claim apart: at
#: about 2 ms a term (generated bodies, BENCHMARKS.md), 8 terms keep that tail near 15 ms
#: and the overhead under 1%.
CLAIM = 8


def _claim(ends: Any, from_back: bool = False) -> range:
    """The next :data:`CLAIM` indexes nobody has taken, empty once all are taken. ``ends``
    (a shared ``multiprocessing.Array`` of two) holds the first and the last-plus-one index
    not yet taken: this process claims from the front and workers from the back, so what
    this process parsed is a run at the start of the files (pages in MkDocs' order: a build
    renders that run here, with the token streams it kept; see pipeline.load_project)."""
    with ends.get_lock():
        front, back = ends[0], ends[1]
        if from_back:
            start, stop = max(front, back - CLAIM), back
            ends[1] = start
        else:
            start, stop = front, min(back, front + CLAIM)
            ends[0] = stop
    return range(start, stop) if start < stop else range(0)


def _precomputed_for(results: list[ParseResult], precompute: tuple[Callable[[str], Any], ...]) -> dict[tuple[str, str], Any]:
    facts: dict[tuple[str, str], Any] = {}
    for term, _ in results:
        if term is not None:
            facts.update(precompute_body(precompute, term.body))
    return facts


def _parse_one(file: AnyTermFile, key: str | None) -> tuple[ParseResult, str | None]:
    """:func:`parse_term` of ``file`` (read first if unread) and its cache key: ``key`` as
    given, or for an unread file the key of the bytes read ("" if it could not be read;
    None stays None: no cache to fill)."""
    if isinstance(file, UnreadTermFile):
        read, problems = file.read()
        if read is None:
            return (None, problems), None if key is None else ""
        return parse_term(read), None if key is None else read.cache_key()
    return parse_term(file), key


def _parse_claim(
    files: list[AnyTermFile], chunk: range, precompute: tuple[Callable[[str], Any], ...], keys: list[str] | None, keep_tokens: bool = False
) -> tuple[list[ParseResult], dict[tuple[str, str], Any], list[str] | None]:
    """The parses of ``chunk``, the precomputed facts of their bodies and their cache keys
    (None without ``keys``), with the bodies' token streams then dropped (a forked parse
    serves `check`, which reads nothing else of the tokens; a body rendered after all is
    parsed again).

    parse_tokens keeps every stream it makes, about 60 KB of objects a body: kept, the
    5,000 streams of a cold check grew each process by 150 MB of fresh pages, and the
    kernel's work of handing them out was most of the check's system time. Dropped, the
    next claim's tokens reuse the memory this claim's held. ``keep_tokens``: a build's own
    claims keep them, for the pages it renders next."""
    parsed = [_parse_one(files[i], None if keys is None else keys[i]) for i in chunk]
    results = [result for result, _ in parsed]
    facts = _precomputed_for(results, precompute)
    if not keep_tokens:
        forget_tokens(term.body for term, _ in results if term is not None)
    return results, facts, None if keys is None else [key or "" for _, key in parsed]


def _entries(results: list[ParseResult], keys: list[str] | None) -> list[bytes] | None:
    """Each result pickled as the cache entry (key, result) that Cache.save writes."""
    if keys is None:
        return None
    return [cache.entry_bytes(key, result) for key, result in zip(keys, results, strict=True)]


def _parse_share(files: list[AnyTermFile], precompute: tuple[Callable[[str], Any], ...], ends: Any, conn: Any, keys: list[str] | None = None) -> int:
    """A worker's part: claim terms until none are left, sending each claim's parses and the
    precomputed results for their bodies as (first index, results, facts); the number
    parsed. With ``keys`` the results go as their pickled cache entries (:func:`_entries`),
    which hold each result's key (an unread file's is found here): this process pickles
    them anyway to send them, and the parent then keeps the bytes for its cache instead of
    pickling the result again."""
    done = 0
    while chunk := _claim(ends, from_back=True):
        results, facts, claim_keys = _parse_claim(files, chunk, precompute, keys)
        entries = _entries(results, claim_keys)
        conn.send((chunk.start, results if entries is None else entries, facts))
        done += len(chunk)
    conn.close()
    return done


def _wide_pipe(context: Any) -> tuple[Any, Any]:
    """A one-way pipe whose buffer holds a few claims' results (1 MiB where Linux allows it,
    else its 64 KiB), so a worker seldom waits for this process to read."""
    import fcntl

    reader, writer = context.Pipe(duplex=False)
    with contextlib.suppress(OSError, AttributeError):
        fcntl.fcntl(writer.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
    return reader, writer


def _one_process(files: list[AnyTermFile], keys: list[str] | None, meanwhile: Callable[[], object] | None) -> tuple[list[ParseResult], list[str | None]]:
    if meanwhile is not None:
        meanwhile()
    parsed = [_parse_one(file, None if keys is None else keys[i]) for i, file in enumerate(files)]
    return [result for result, _ in parsed], [key for _, key in parsed]


def _parse_all(
    files: list[AnyTermFile],
    processes: int,
    precompute: tuple[Callable[[str], Any], ...],
    keys: list[str] | None = None,
    meanwhile: Callable[[], object] | None = None,
    keep_tokens: bool = False,
) -> tuple[list[ParseResult], list[bytes | None], list[str | None]]:
    """:func:`parse_term` of each file, in order, in up to ``processes`` processes, the
    cache entry of each result under ``keys`` already pickled (None where it is not), and
    each result's key: ``keys``' own, or for an :class:`UnreadTermFile` the key of the bytes
    its process read ("" where it could not be read); None throughout without ``keys``.

    Every process, this one included, claims :data:`CLAIM` terms at a time from a shared
    pair of ends until none are left (this one from the front, workers from the back:
    :func:`_claim`), so each parses as many as its speed allows: this one also
    reads the workers' results as they come (between its own claims) and, after the parse,
    does the check's serial work, and a core may be shared with other programs; a fixed
    split left one side waiting (BENCHMARKS.md). Any term without a result at the end (its
    worker failed) is parsed here: the same result, or the same error.

    With ``keys`` (a cache to fill), each result is pickled as its cache entry where it was
    parsed, inside this balanced phase, rather than by the cache's save, which runs after it
    on one core: the worker's entries are the bytes it sends anyway.

    ``meanwhile()``, the caller's work that needs no parse (a check's diagrams and snippet
    records), runs here once, right after the workers start: while it runs they claim more
    terms, so it costs its share of both cores instead of a serial step after the parse.
    """
    no_entries: list[bytes | None] = [None] * len(files)
    count = min(processes, len(files) // FORK_MIN_TERMS + 1)
    if count <= 1:
        results, found = _one_process(files, keys, meanwhile)
        return results, no_entries, found
    import multiprocessing
    from multiprocessing.connection import wait

    from glossary_tool.background import BackgroundError, Job, can_fork  # multiprocessing: not on a warm check's path

    if not can_fork():
        results, found = _one_process(files, keys, meanwhile)
        return results, no_entries, found
    context = multiprocessing.get_context("fork")
    ends = context.Array("q", [0, len(files)])
    out: list[ParseResult | None] = [None] * len(files)
    pickled: list[bytes | None] = [None] * len(files)
    found: list[str | None] = [None] * len(files)
    jobs: list[Job] = []
    readers: list[Any] = []
    for _ in range(count - 1):
        reader, writer = _wide_pipe(context)
        jobs.append(Job(functools.partial(_parse_share, files, precompute, ends, writer, keys), fork=True))
        writer.close()  # the worker holds the only writing end: its exit is this reader's end of file
        readers.append(reader)

    def take(ready: list[Any]) -> None:
        for reader in ready:
            try:
                start, part, facts = reader.recv()
            except (EOFError, OSError):
                readers.remove(reader)
                reader.close()
                continue
            if keys is not None:
                pickled[start : start + len(part)] = part
                pairs = [pickle.loads(entry) for entry in part]
                found[start : start + len(part)] = [key for key, _ in pairs]
                part = [result for _, result in pairs]
            out[start : start + len(part)] = part
            remember(facts)

    if meanwhile is not None:
        try:
            meanwhile()
        except BaseException:  # the caller's error, raised as it was: no worker left behind
            for job in jobs:
                job.cancel()
            raise
    while chunk := _claim(ends):
        take(wait(readers, timeout=0) if readers else [])
        results, facts, claim_keys = _parse_claim(files, chunk, precompute, keys, keep_tokens)
        remember(facts)
        out[chunk.start : chunk.stop] = results
        entries = _entries(results, claim_keys)
        if entries is not None:
            pickled[chunk.start : chunk.stop] = entries
            found[chunk.start : chunk.stop] = claim_keys
    while readers:
        take(wait(readers))
    for job in jobs:
        with contextlib.suppress(BackgroundError):
            job.result()
    for i, result in enumerate(out):
        if result is None:
            out[i], found[i] = _parse_one(files[i], None if keys is None else keys[i])
    return out, pickled, found  # type: ignore[return-value]  # every None in out was filled


def term_from(slug: str, section: str, shown: str, clean: dict, fm: frontmatter.FrontMatter, body: ParsedBody | None = None) -> Term | None:
    """The Term for validated front matter ``clean``; ``body`` (a parsed body) adds the body
    fields, which `glossary check --changed` leaves empty for the terms it does not parse."""
    if "title" not in clean or "summary" not in clean:
        return None
    parsed = {"xrefs": body.xrefs, "snippets": body.snippets, "headings": body.headings, "words": body.words} if body is not None else {}
    return Term(
        slug=slug,
        section=section,
        path=shown,
        title=clean["title"],
        summary=clean["summary"],
        body=fm.body,
        body_offset=fm.body_offset,
        abbreviation=clean.get("abbreviation"),
        aliases=clean.get("aliases", ()),
        sources=tuple(Source(t, u) for t, u in clean.get("sources", ())),
        equivalents=clean.get("equivalents", ()),
        equivalent_xrefs=equivalent_xrefs(fm.yaml_text, fm.lines.get("equivalents", 1), clean.get("equivalents", ())),
        diagrams=clean.get("diagrams", ()),
        field_lines=tuple(sorted(fm.lines.items())),
        **parsed,
    )


def load_section_page(root: Path, path: Path, slug: str, out: list[Diagnostic]) -> Section | None:
    shown = rel(root, path)
    text = read_text(root, path, out)
    if text is None:
        return None
    fm = frontmatter.parse(shown, text)
    clean, problems = frontmatter.validate(fm, schema.SECTION)
    out.extend(fm.diagnostics)
    out.extend(problems)
    title = clean.get("title") or SECTION_TITLES.get(slug, slug)
    summary_text = clean.get("summary", "")
    body = parse_body(shown, fm.body, fm.body_offset, is_term=False)
    out.extend(body.diagnostics)
    page = Term(
        slug=f"_index:{slug}",
        section=slug,
        path=shown,
        title=title,
        summary=summary_text,
        body=fm.body,
        body_offset=fm.body_offset,
        diagrams=clean.get("diagrams", ()),
        xrefs=body.xrefs,
        snippets=body.snippets,
        headings=body.headings,
        words=body.words,
        field_lines=tuple(sorted(fm.lines.items())),
    )
    return Section(slug, title, summary_text, fm.body, shown, (), page)


@dataclass(frozen=True)
class Tree:
    """What is under ``glossary/``: the term files to load (section, path, shown path) in
    load order, the section pages and the home page; misplaced files are diagnostics."""

    term_files: tuple[tuple[str, Path, str], ...]
    pages: dict[str, Section]
    home: Section | None


def _split_name(name: str) -> tuple[str, str]:
    """(stem, suffix) of a file name, as ``PurePath.stem`` and ``.suffix`` give them."""
    dot = name.rfind(".")
    return (name[:dot], name[dot:]) if 0 < dot < len(name) - 1 else (name, "")


def _sorted_entries(folder: Path) -> list[os.DirEntry[str]]:
    """The entries of ``folder`` in the order ``sorted(folder.iterdir())`` gives (by name),
    with the file types the directory listing already holds (no stat per file)."""
    with os.scandir(folder) as entries:
        return sorted(entries, key=lambda entry: entry.name)


def walk_tree(root: Path, out: list[Diagnostic]) -> Tree:
    """Visit ``root`` the way every loader does."""
    files: list[tuple[str, Path, str]] = []
    pages: dict[str, Section] = {}
    home = None
    # Shown paths are "<root name>/<section>/<file>" (what :func:`rel` gives, without a
    # pathlib computation per file); an unusual root falls back to rel.
    base = rel(root, root)
    simple = base == root.name and base not in ("", ".", "..")

    def shown_of(path: Path, *names: str) -> str:
        return "/".join((base, *names)) if simple else rel(root, path)

    for entry in _sorted_entries(root):
        path = root / entry.name
        shown = shown_of(path, entry.name)
        if entry.name.startswith(".") or (entry.name == ASSETS and entry.is_dir()):
            continue
        if entry.is_dir() and not entry.is_symlink():
            if entry.name not in SECTIONS:
                out.append(error(shown, 0, 0, "section-unknown", f"unknown section folder '{entry.name}'; sections are {', '.join(SECTIONS)}"))
                continue
            for item in _sorted_entries(path):
                name = item.name
                if name.startswith(".") or item.is_dir():
                    continue
                file = path / name
                stem, suffix = _split_name(name)
                if suffix != ".md":
                    out.append(error(shown_of(file, entry.name, name), 0, 0, "file-unexpected", "only Markdown term files (.md) belong in a section folder"))
                    continue
                if name == INDEX:
                    page = load_section_page(root, file, entry.name, out)
                    if page is not None:
                        pages[entry.name] = page
                    continue
                if stem.startswith("section-"):  # section anchors in single-file outputs (emit/links.py term_anchor)
                    out.append(error(shown_of(file, entry.name, name), 1, 1, "slug-invalid", f"file name '{name}' starts with 'section-', which is reserved for sections; rename the file"))
                    continue
                if not SLUG_RE.match(stem):
                    out.append(error(shown_of(file, entry.name, name), 1, 1, "slug-invalid", f"file name '{name}' must be a kebab-case slug such as 'thread-block-cluster.md'"))
                    continue
                files.append((entry.name, file, shown_of(file, entry.name, name)))
        elif entry.name == INDEX:
            home = load_section_page(root, path, "home", out)
        elif entry.name in (TOC_NAME, "instructions.yml"):  # instructions.yml: read by emit/instructions.py
            continue
        else:
            out.append(error(shown, 0, 0, "file-unexpected", "terms live in a section folder: glossary/<section>/<slug>.md"))
    return Tree(tuple(files), pages, home)


#: (device, inode, size, modification time, status-change time) of a term file (ns).
Signature = tuple[int, int, int, int, int]
#: shown path -> (the file's signature when it was read, the cache key of its bytes).
Manifest = dict[str, tuple[Signature, str]]
#: A file modified this recently (before the load started) is read and hashed even when its
#: signature matches: a second write within the file system's timestamp granularity would
#: leave the signature as it was (git's "racy" entries). Writing a file moves its
#: modification time, so only that time is compared; the change time is in the signature,
#: so even an edit whose modification time is set back (``touch -d``) is seen.
RACY_NS = 2_000_000_000


def _signature(path: Path) -> Signature | None:
    """``path``'s :data:`Signature`, or None where the manifest must not vouch for it: a
    symbolic link, not a regular file, too large, gone (read_bytes then says why)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def load_tree(
    root: Path,
    store: Cache | None = None,
    *,
    processes: int = 1,
    precompute: tuple[Callable[[str], Any], ...] = (),
    meanwhile: Callable[[], object] | None = None,
    keep_tokens: bool = False,
) -> LoadResult:
    """Load every term and section page under ``root`` (the ``glossary/`` folder); ``store``
    holds term parses of earlier runs (see load/cache.py); ``processes``, ``precompute`` and
    ``keep_tokens``: see :func:`parse_terms`; ``meanwhile``: work of the caller that needs no term, run during
    the parse (see :func:`_parse_all`; not run where there is no glossary folder).

    With ``store``, a manifest there maps each term file's :data:`Signature` to the cache key
    of its bytes: a file whose signature is unchanged is neither read nor hashed again (a
    tenth of a warm check at 5,000 terms)."""
    root = Path(root)
    out: list[Diagnostic] = []
    if not root.is_dir():
        out.append(error(root.as_posix(), 0, 0, "glossary-missing", "glossary folder not found"))
        return LoadResult(root, (), (), None, ReadingOrder((), {}), tuple(out))
    tree = walk_tree(root, out)
    terms: list[Term] = []
    unloaded: set[tuple[str, str]] = set()
    files: list[AnyTermFile | None] = []
    known: list[str | None] = []
    signatures: list[Signature | None] = []
    read_problems: list[list[Diagnostic]] = []
    manifest_name = cache.key("manifest", root.as_posix())
    manifest: Manifest = (store.peek(manifest_name) or {}) if store is not None else {}
    settled = time.time_ns() - RACY_NS
    # Nothing stored (a first check, a new tool version, --no-cache): every file will be
    # parsed, so each is read by the process that claims it (UnreadTermFile).
    unread = store is None or store.empty
    for section, path, shown in tree.term_files:
        problems: list[Diagnostic] = []
        signature = _signature(path) if store is not None else None
        entry = manifest.get(shown) if signature is not None else None
        if unread:
            files.append(UnreadTermFile(root, section, path, shown, None if signature is None else signature[2]))
            known.append(None)
        elif entry is not None and entry[0] == signature and store is not None and store.peek(entry[1]) is not None:
            files.append(TermFile(section, path.stem, shown, b""))  # never parsed: its result is stored under entry[1]
            known.append(entry[1])
        else:
            data = read_bytes(root, path, problems, size=None if signature is None else signature[2])
            files.append(None if data is None else TermFile(section, path.stem, shown, data))
            known.append(None)
        signatures.append(signature)
        read_problems.append(problems)
    present = [i for i, f in enumerate(files) if f is not None]
    toc_problems: list[Diagnostic] = []
    orders: list[ReadingOrder] = []

    def ahead() -> None:
        """The reading order needs no term: read while the workers parse (a step after the
        parse before), then the caller's own work."""
        orders.append(read_toc(root, toc_problems, store))
        if meanwhile is not None:
            meanwhile()

    results, keys = _parse_keyed([files[i] for i in present], store, processes, precompute, [known[i] for i in present], ahead, keep_tokens)  # type: ignore[misc]
    parsed = iter(zip(results, keys, strict=True))
    digest = hashlib.sha256()
    fresh: Manifest = {}
    for (section, path, shown), file, problems, signature in zip(tree.term_files, files, read_problems, signatures, strict=True):
        out.extend(problems)
        (term, diagnostics), term_key = next(parsed) if file is not None else ((None, ()), "")
        out.extend(diagnostics)
        if term is None:
            unloaded.add((section, path.stem))
        else:
            terms.append(term)
            digest.update(term_key.encode() + b"\0")
        if file is not None and term_key and signature is not None and signature[3] < settled:
            fresh[shown] = (signature, term_key)
    if store is not None:
        store.replace(manifest_name, manifest if fresh == manifest else fresh)
    pages, home = tree.pages, tree.home
    (order,) = orders
    out.extend(toc_problems)
    return LoadResult(root, tuple(terms), sections_in_order(root, order, pages), home, order, tuple(out), frozenset(unloaded), digest.hexdigest() if store is not None else None)


def sections_in_order(root: Path, order: ReadingOrder, pages: dict[str, Section]) -> tuple[Section, ...]:
    """The sections in reading order, each with its terms; a section without an index.md
    gets its standard title."""
    sections = []
    for slug in order.sections:
        page = pages.get(slug)
        if page is None:
            page = Section(slug, SECTION_TITLES.get(slug, slug), "", "", f"{root.name}/{slug}/{INDEX}", ())
        sections.append(Section(page.slug, page.title, page.summary, page.body, page.path, order.terms.get(slug, ()), page.page))
    return tuple(sections)
