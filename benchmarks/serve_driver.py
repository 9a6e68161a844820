"""Drive MkDocs' own ``serve`` command without a network server, for tests and benchmarks.

``mkdocs.commands.serve.serve`` (what `glossary serve` and ``mkdocs serve`` run) loads the
config, makes the first build, hands a ``builder`` to its ``LiveReloadServer`` and lets the
plugins' ``on_serve`` add what to watch; the server calls ``builder()`` on each change. Here a
stand-in server takes its place (only while :func:`session` runs), so a script can call the
very builder MkDocs made, once per edit, and read the site directory between rebuilds. The
glossary plugin says which pages each rebuild rendered in its log record (``glossary_rebuilt``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock


class _Plans(logging.Handler):
    """Catches the glossary plugin's "rebuilding N of M pages" record of each build."""

    LOGGER = "mkdocs.plugins.glossary"

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if hasattr(record, "glossary_rebuilt"):
            self.records.append(record)

    def last(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        if not self.records:
            return (), ()
        record = self.records[-1]
        return tuple(record.glossary_pages), tuple(record.glossary_rebuilt)  # type: ignore[attr-defined]


_plans = _Plans()
_scripts: list[Callable[[Session], None]] = []


@dataclass
class Session:
    """One running serve: its site directory, what it watches, and the pages each build rendered."""

    builder: Callable[[], None]
    site_dir: Path
    url_path: str
    watched: list[str] = field(default_factory=list)
    #: src of every page the last build planned, and those it rendered
    planned: tuple[str, ...] = ()
    rebuilt: tuple[str, ...] = ()

    def rebuild(self) -> None:
        """What the live-reload server does when a watched file changes."""
        self.builder()
        self.planned, self.rebuilt = _plans.last()


class _StandInServer:
    """Takes LiveReloadServer's arguments and calls; ``serve`` runs the script instead of listening."""

    def __init__(self, builder: Callable[[], None], host: str, port: int, root: str, mount_path: str = "/", **_: object) -> None:
        self.script = _scripts.pop()
        self.session = Session(builder, Path(root), mount_path)
        self.error_handler: Callable[[int], bytes | None] = lambda code: None

    def watch(self, path: str, func: object = None, recursive: bool = True) -> None:
        self.session.watched.append(str(path))

    def serve(self, *, open_in_browser: bool = False) -> None:
        self.session.planned, self.session.rebuilt = _plans.last()  # the first build's
        self.script(self.session)

    def shutdown(self) -> None:
        pass


def session(start: Callable[[], None], script: Callable[[Session], None]) -> None:
    """Run ``start`` (a call of MkDocs' serve, directly or through `glossary serve`) with the
    stand-in server; ``script`` gets the session after the first build. Sessions may nest (a
    clean build to compare with); MkDocs removes each one's site directory when it returns."""
    _scripts.append(script)
    logger = logging.getLogger(_Plans.LOGGER)
    outermost = _plans not in logger.handlers
    level = logger.level
    if outermost:
        logger.addHandler(_plans)
        logger.setLevel(logging.INFO)
    try:
        with mock.patch("mkdocs.commands.serve.LiveReloadServer", _StandInServer):
            start()
    finally:
        if outermost:
            logger.removeHandler(_plans)
            logger.setLevel(level)
            _plans.records.clear()


def glossary_serve(mkdocs_yml: Path, dev_addr: str, script: Callable[[Session], None]) -> None:
    """`glossary serve` (``glossary_tool.adapters.serve``, as commands/build.py calls it), driven by ``script``."""
    from glossary_tool import adapters

    session(lambda: adapters.serve(mkdocs_yml, dev_addr), script)


def mkdocs_serve(mkdocs_yml: Path, dev_addr: str, script: Callable[[Session], None], *, dirty: bool) -> None:
    """``mkdocs serve [--dirty]``: MkDocs' serve as its command line calls it."""
    from mkdocs.commands.serve import serve

    session(lambda: serve(config_file=str(mkdocs_yml), build_type="dirty" if dirty else None, dev_addr=dev_addr), script)
