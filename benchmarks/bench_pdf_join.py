"""Time the PDF's join alone (emit/book_pdf.py ``join``) on the real book's laid-out parts.

Laying out the parts takes most of a minute, so the first run exports the book once and
keeps what the join was given (the parts, the front matter, the stamps' sheet) in a pickle;
later runs read it back and time only the join, with the cycle collector paused as the
export runs it.

Run: .venv/bin/python -m benchmarks.bench_pdf_join [--root .] [--parts FILE] [--runs 3]
Prints each run's wall and CPU seconds and a digest of the joined file (the same on every run).
"""

from __future__ import annotations

import argparse
import hashlib
import pickle
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def capture(root: Path, parts: Path) -> None:
    """Export ``root``'s book once, keeping the join's arguments in ``parts``."""
    from glossary_tool.emit import book_pdf
    from glossary_tool.emit.book import export_pdf
    from glossary_tool.pipeline import load_project

    real_join = book_pdf.join

    def keep(title: str, front_result: Callable[[], Any], docs: Sequence[Any], order: Sequence[tuple[int, int]], sheet: Any, heads: Sequence[str]) -> bytes:
        front = front_result()
        parts.write_bytes(pickle.dumps((title, front, list(docs), list(order), sheet, list(heads))))
        return real_join(title, lambda: front, docs, order, sheet, heads)

    book_pdf.join = keep
    try:
        with tempfile.TemporaryDirectory() as tmp:
            export_pdf(load_project(root), Path(tmp) / "book.pdf")
    finally:
        book_pdf.join = real_join


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, default=Path("."))
    parser.add_argument("--parts", type=Path, default=Path(tempfile.gettempdir()) / "glossary-pdf-join-parts.pickle")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if not args.parts.exists():
        print(f"laying out the book once; its parts go to {args.parts}")
        capture(args.root.resolve(), args.parts)
    from glossary_tool.emit.book_pdf import join
    from glossary_tool.load.cache import paused_gc

    title, front, docs, order, sheet, heads = pickle.loads(args.parts.read_bytes())
    with paused_gc():
        for _ in range(args.runs):
            wall, cpu = time.perf_counter(), time.process_time()
            joined = join(title, lambda: front, docs, order, sheet, heads)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            print(f"join: {wall:.2f} s wall, {cpu:.2f} s CPU, {len(joined):,} bytes, md5 {hashlib.md5(joined, usedforsecurity=False).hexdigest()}")


if __name__ == "__main__":
    main()
