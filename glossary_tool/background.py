"""Compute slow, self-contained outputs in a second process while the site's pages render.

The site generator renders pages one at a time on one core. The map's force layout, the EPUB (Markdown
to XHTML for every term) and llms.txt need nothing from that rendering, so on a machine
with a spare core they run in a forked child and their result is collected when it is
needed: about 3 s of a 500-term build's 12 s of CPU leave the critical path
(BENCHMARKS.md, Scale).

A forked child shares the loaded glossary with its parent, so nothing is pickled on the way
in; only the result (bytes or a string) comes back through a pipe. Where forking is
unavailable or unsafe (another platform, one core, other threads running) a job runs in
process when its result is first asked for, with the same output.

A child never outlives its parent: if the build is killed (even with SIGKILL, which runs no
cleanup), the kernel kills the child too (PR_SET_PDEATHSIG on Linux), and the child holds
only its own end of the pipe, so it could not block on a reader that is gone.
"""

from __future__ import annotations

import os
import signal
import threading
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

# multiprocessing and ctypes (about 27 ms to import) are imported where a job starts, so that
# `cpus`, which every `glossary check` asks, costs a warm check nothing.
if TYPE_CHECKING:
    import multiprocessing.process
    from multiprocessing.connection import Connection


class BackgroundError(RuntimeError):
    """A background job raised. The message is the exception in one line (what a user
    reads); ``details`` holds the traceback (for --verbose logs and bug reports)."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


def cpus() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Fork only where it is cheap and safe: Linux-style fork, a spare core, one thread."""
    return not why_no_fork()


def why_no_fork() -> str:
    """Why this process forks no job ('' where it forks). The machine's own reasons start with
    "no "; the others are this process's (a switch, or threads that a fork would not copy)."""
    if os.environ.get("GLOSSARY_NO_FORK") == "1":
        return "GLOSSARY_NO_FORK=1 is set"
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        return "no fork start method on this platform"
    if cpus() < 2:
        return "no second core"
    if threading.active_count() != 1:
        return f"other threads run in this process ({', '.join(t.name for t in threading.enumerate())})"
    return ""


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent_pid: int) -> None:
    """Have the kernel kill this child when the process that forked it dies (Linux), even
    by SIGKILL, which runs no cleanup in the parent; elsewhere the closed pipe below ends it
    at its next write. A parent that died before this call is caught by the pid check."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl here: rely on the pipe
        pass
    if os.getppid() != parent_pid:
        os._exit(1)


def _child(job: Callable[[], Any], conn: Connection, theirs: Connection, parent_pid: int, nice: int) -> None:
    # The fork copied the parent's reading end too: holding it, this child's own write into
    # a full pipe would block forever once the parent is gone, instead of failing.
    theirs.close()
    _die_with_parent(parent_pid)
    if nice:
        os.nice(nice)
    try:
        result: tuple[str, Any, str] = ("ok", job(), "")
    except BaseException as exc:  # report everything to the parent, which raises it
        result = ("error", f"{type(exc).__name__}: {exc}", traceback.format_exc())
    conn.send(result)
    conn.close()


class Job:
    """One computation, started now in a child process when possible, else run on demand."""

    def __init__(self, job: Callable[[], Any], *, fork: bool | None = None, nice: int = 0) -> None:
        """``nice`` > 0 lowers the child's priority: a job whose result is wanted later yields
        the core to one whose result is wanted sooner."""
        self._job: Callable[[], Any] | None = job
        self._done = False
        self._value: Any = None
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        if can_fork() if fork is None else fork:
            import multiprocessing

            context = multiprocessing.get_context("fork")
            parent, child = context.Pipe(duplex=False)
            self._process = context.Process(target=_child, args=(job, child, parent, os.getpid(), nice), daemon=True)
            self._process.start()
            child.close()
            self._conn = parent

    @property
    def forked(self) -> bool:
        return self._process is not None

    def result(self) -> Any:
        """The job's value (waiting for the child if it runs in one); a failure raises BackgroundError."""
        if self._done:
            return self._value
        if self._process is None:
            assert self._job is not None
            try:
                value = self._job()
            except Exception as exc:  # the same error, forked or not
                raise BackgroundError(f"{type(exc).__name__}: {exc}", traceback.format_exc()) from exc
            self._value, self._done, self._job = value, True, None
            return value
        assert self._conn is not None
        details = ""
        try:
            status, value, details = self._conn.recv()
        except EOFError:
            status, value = "error", None
        finally:
            self._conn.close()
            self._process.join()
        if status != "ok":
            raise BackgroundError(value or f"the background process died (exit status {self._process.exitcode})", details)
        self._value, self._done, self._job = value, True, None
        return value

    def cancel(self) -> None:
        """Stop a child whose result is no longer wanted (the build failed)."""
        if self._process is not None and self._process.is_alive():
            self._process.terminate()
            self._process.join()
        if self._conn is not None:
            self._conn.close()
        self._done, self._job = True, None
