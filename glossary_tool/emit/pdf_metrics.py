"""One Pango font-metrics computation per font while WeasyPrint lays out and draws a document.

WeasyPrint makes a fresh Pango context and layout for every piece of text it measures or
draws (``Layout.setup`` in ``weasyprint/text/line_break.py``), and where the text is
decorated (the book underlines its ~9,600 links) it asks that fresh context for the font's
metrics (``pango_context_get_metrics``) for the underline's position and thickness. A
fresh context has no metrics cached, so Pango loads the fontset and shapes its sample
sentence each time: 7.6% of the instructions of laying out and writing the Rosetta chapter
(BENCHMARKS.md, branch pdf41). The metrics depend only on the font map, the font
description, the language and the context's direction and language, so the first result for
those is handed out again; the PDF is byte for byte the one stock WeasyPrint writes
(tests/test_book.py).

The memo is switched in by replacing the ``pango`` library object that ``line_break`` calls
through with a proxy that forwards every other call, only for the WeasyPrint release and the
``Layout.setup`` source it was checked against (``SUPPORTED``); anything else runs stock.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import hashlib
import inspect
from collections.abc import Iterator
from functools import cache
from typing import Any

#: WeasyPrint version -> SHA-256 of ``Layout.setup``'s source: the call sequence the proxy
#: follows (create the context, set its direction and language, then ask for the metrics).
SUPPORTED = {"70.0": "fb227a55094f41d42fbd57f180d8b7a9a1e741969ec8ddb3fd5cd80920257442"}


def setup_digest() -> str:
    from weasyprint.text.line_break import Layout

    return hashlib.sha256(inspect.getsource(Layout.setup).encode()).hexdigest()


@cache
def _g_free() -> Any:
    """GLib's ``g_free`` (WeasyPrint's cffi declarations have none), for the description
    strings Pango allocates; ``None`` where GLib cannot be found."""
    name = ctypes.util.find_library("glib-2.0")
    if name is None:
        return None
    try:
        free = ctypes.CDLL(name).g_free
    except (OSError, AttributeError):
        return None
    free.argtypes, free.restype = [ctypes.c_void_p], None
    return free


def supported() -> bool:
    """Whether the installed WeasyPrint is the one the memo was checked against."""
    try:
        import weasyprint
        from weasyprint.text import line_break
    except (ImportError, OSError):
        return False
    return SUPPORTED.get(weasyprint.__version__) == setup_digest() and hasattr(line_break, "pango") and _g_free() is not None


class _MemoPango:
    """WeasyPrint's ``pango`` cffi library with ``pango_context_get_metrics`` memoized for
    the context ``Layout.setup`` has just made (it makes one, sets it up, then asks)."""

    def __init__(self, lib: Any, ffi: Any, g_free: Any) -> None:
        self._lib, self._ffi, self._g_free = lib, ffi, g_free
        self._memo: dict[tuple[Any, ...], Any] = {}
        self._kept: set[int] = set()  # addresses of the memoized metrics (never unreferenced by WeasyPrint)
        self._context: Any = None
        self._made: list[Any] = []  # the context just made: [context, font map, direction, language]
        self.asked = 0  # metrics asked for by Layout.setup

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._lib, name)
        setattr(self, name, value)  # later calls find it without __getattr__
        return value

    def _address(self, pointer: Any) -> int:
        return int(self._ffi.cast("uintptr_t", pointer))

    def pango_font_map_create_context(self, font_map: Any) -> Any:
        context = self._lib.pango_font_map_create_context(font_map)
        self._context, self._made = context, [self._address(context), self._address(font_map), None, None]
        return context

    def pango_context_set_base_dir(self, context: Any, direction: Any) -> None:
        self._lib.pango_context_set_base_dir(context, direction)
        if self._made and self._address(context) == self._made[0]:
            self._made[2] = int(direction)

    def pango_context_set_language(self, context: Any, language: Any) -> None:
        self._lib.pango_context_set_language(context, language)
        if self._made and self._address(context) == self._made[0]:
            self._made[3] = self._address(language)

    def pango_context_get_metrics(self, context: Any, description: Any, language: Any) -> Any:
        if not self._made or self._address(context) != self._made[0]:
            return self._lib.pango_context_get_metrics(context, description, language)
        self.asked += 1
        text = self._lib.pango_font_description_to_string(description)
        try:
            described = self._ffi.string(text)
        finally:
            self._g_free(self._address(text))
        key = (described, self._address(language), *self._made[1:])
        metrics = self._memo.get(key)
        if metrics is None:
            metrics = self._memo[key] = self._ffi.gc(self._lib.pango_context_get_metrics(context, description, language), self._lib.pango_font_metrics_unref)
            self._kept.add(self._address(metrics))
        return metrics

    @property
    def computed(self) -> int:
        """Metrics Pango computed (once per font, direction and language)."""
        return len(self._memo)

    def pango_font_metrics_unref(self, metrics: Any) -> None:
        # WeasyPrint unreferences the metrics it got when its layout goes; the memo's own
        # reference is dropped with the memo
        if self._address(metrics) not in self._kept:
            self._lib.pango_font_metrics_unref(metrics)


@contextlib.contextmanager
def metrics_memo() -> Iterator[_MemoPango | None]:
    """Within the block, WeasyPrint computes each font's metrics once (yields the memo),
    where the installed WeasyPrint is the supported one; otherwise it runs stock (yields
    None)."""
    if not supported():
        yield None
        return
    from weasyprint.text import line_break
    from weasyprint.text.ffi import ffi

    stock = line_break.pango
    memo = line_break.pango = _MemoPango(stock, ffi, _g_free())
    try:
        yield memo
    finally:
        line_break.pango = stock
