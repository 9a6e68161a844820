"""One diagnostic type and one printer for every stage.

Every failure a contributor can cause (bad YAML, unknown cross-reference, stale snippet
record...) becomes a :class:`Diagnostic` with a file position, so the CLI, the site
adapter and the tests all report problems the same way and nothing raises a traceback.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Diagnostic:
    """A problem at ``path:line:col`` (1-based; 0 means "the whole file")."""

    path: str
    line: int
    col: int
    severity: Severity
    code: str
    message: str

    def format(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.severity.value}: {self.message} [{self.code}]"

    def format_github(self) -> str:
        """A GitHub Actions workflow command, shown inline on the pull request's diff."""
        kind = "error" if self.severity is Severity.ERROR else "warning"
        message = _github_escape(f"{self.message} [{self.code}]")
        line = max(self.line, 1)
        return f"::{kind} file={self.path},line={line},col={max(self.col, 1)},title={self.code}::{message}"


def _github_escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def error(path: str, line: int, col: int, code: str, message: str) -> Diagnostic:
    return Diagnostic(path, line, col, Severity.ERROR, code, message)


def warning(path: str, line: int, col: int, code: str, message: str) -> Diagnostic:
    return Diagnostic(path, line, col, Severity.WARNING, code, message)


def errors(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The errors among ``diagnostics`` (warnings never fail a command)."""
    return [d for d in diagnostics if d.severity is Severity.ERROR]


def sort_key(d: Diagnostic) -> tuple[str, int, int, str, str]:
    """Position, then code, then message: two diagnostics at one place and of one code (from
    a set, whose order varies between runs) always print in the same order."""
    return (d.path, d.line, d.col, d.code, d.message)


def render(diagnostics: Iterable[Diagnostic], fmt: str = "text") -> str:
    """All diagnostics, sorted by position, one per line."""
    items = sorted(set(diagnostics), key=sort_key)
    if fmt == "github":
        return "\n".join(d.format_github() for d in items)
    return "\n".join(d.format() for d in items)


class GlossaryError(Exception):
    """Raised to stop a command; carries the diagnostics that explain why."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__(render(diagnostics))
        self.diagnostics = diagnostics
