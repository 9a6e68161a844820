"""`python -m glossary_tool check` ends without the interpreter's teardown (cli.run): what it
prints must still all arrive, through a pipe (block-buffered), with the same exit status."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.generate import generate
from glossary_tool.diagnostics import render
from glossary_tool.pipeline import load_project
from tests.conftest import REPO, term_text


def test_check_output_arrives_whole_through_a_pipe(tmp_path: Path) -> None:
    root = generate(tmp_path, 40)
    # a few diagnostics (less than stdout's buffer holds, so only a flush sends them) and an
    # exit status of 1
    for k in range(3):
        (root / "glossary" / "performance" / f"zz-broken-{k:02d}.md").write_text(term_text(f"Broken {k}", "See [[nowhere]] and [[term-00001 here.\n"))
    expected = render(list(load_project(root, cache=False).diagnostics))
    assert 0 < len(expected) < 8192
    env = {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"} | {"PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "glossary_tool", "--root", str(root), "check"], capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert done.returncode == 1
    assert done.stdout == expected + "\n"
    summary = done.stderr.strip().splitlines()[-1]
    assert summary.startswith("check: 43 terms, ") and "error(s)" in summary
