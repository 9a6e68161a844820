"""Snippet verification without a GPU: matching, freshness, caching, atomicity, the runner."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

from glossary_tool.atomic import write_text
from glossary_tool.load.body import parse_body
from glossary_tool.model import Snippet, Term
from glossary_tool.verify import process
from glossary_tool.verify.engine import VerifyOptions, arch_flags, run_verify
from glossary_tool.verify.freshness import Freshness, freshness, is_cached, runnable_on
from glossary_tool.verify.matching import match_output
from glossary_tool.verify.records import Machine, Record, read_record, sha256, write_record

H200 = Machine("NVIDIA H200", "9.0", 132, "580.159.04", "13.0", "13.0.88")


# ---- fence and option parsing -------------------------------------------------------

def test_fence_options_and_expected_output():
    body = '```cuda verify name="warp-size" arch=sm_90a requires="10.0" timeout="5" flags="-O3 -lcublas" gpus="2"\nint main(){}\n```\n\n```output\nwarpSize = 32\n```\n'
    (s,) = parse_body("t.md", body, 0).snippets
    assert (s.name, s.lang, s.expected) == ("warp-size", "cuda", "warpSize = 32\n")
    assert dict(s.options) == {"arch": "sm_90a", "requires": "10.0", "timeout": "5", "flags": "-O3 -lcublas", "gpus": "2"}
    assert (s.body_start, s.body_end) == (0, 7)


def test_default_name_from_position_and_plain_fences_ignored():
    body = "```cuda\nnot a snippet\n```\n\n```python verify\nprint(1)\n```\n\n```console verify\n$ true\n```\n"
    names = [s.name for s in parse_body("t.md", body, 0).snippets]
    assert names == ["snippet-1", "snippet-2"]


def test_bad_option_values_are_diagnostics():
    body = '```cuda verify name="a b" arch="x86" timeout="soon" flags="-O3; rm -rf /"\nint main(){}\n```\n'
    codes = [d.message for d in parse_body("t.md", body, 0).diagnostics]
    assert any("arch" in m for m in codes) and any("timeout" in m for m in codes) and any("flags" in m for m in codes)


def test_arch_flags_for_feature_targets():
    assert arch_flags("sm_90") == ["-arch=sm_90"]
    assert arch_flags("sm_100a") == ["-gencode", "arch=compute_100a,code=sm_100a"]


# ---- output matching ---------------------------------------------------------------

@pytest.mark.parametrize(
    ("expected", "actual", "ok"),
    [
        ("a\nb\n", "a\nb\n", True),
        ("a\nb\n", "a\nc\n", False),
        ("a\n...\nz\n", "a\nb\nc\nz\n", True),
        ("a\n...\nz\n", "a\nz\n", True),
        ("a\n...\n", "a\n", True),
        ("...\nlast\n", "x\ny\nlast\n", True),
        ("time = {...} ms\n", "time = 0.42 ms\n", True),
        ("time = {...} ms\n", "time = 0.42 s\n", False),
        ("{...} = {...}\n", "warpSize = 32\n", True),
        ("a  \n\n\n", "a\n", True),
        ("a\n", "a\nextra\n", False),
        ("a.b\n", "axb\n", False),
    ],
)
def test_match_output(expected, actual, ok):
    assert (match_output(expected, actual) is None) is ok


def test_mismatch_names_the_line():
    mismatch = match_output("first\nsecond = 2\n", "first\nsecond = 3\n")
    assert mismatch is not None and mismatch.expected_line == 2 and "second = 3" in mismatch.describe()


# ---- records: freshness, caching, atomic writes -------------------------------------

def _term_and_snippet(source: str = "int main() {}\n", options=()) -> tuple[Term, Snippet]:
    snippet = Snippet("x", "cuda", tuple(options), source, None, 10, 0, 3)
    term = Term("warp", "device-software", "glossary/device-software/warp.md", "Warp", "S.", "", 7, snippets=(snippet,))
    return term, snippet


def _record(snippet: Snippet, status: str = "passed", machine: Machine | None = H200, nvcc: str = "13.0.88") -> Record:
    return Record("device-software", "warp", "x", "cuda", dict(snippet.options), sha256(snippet.source), status, "", "out\n", "", 0, 0.1, "2026-11-22", nvcc, machine)


def test_freshness_states():
    _, snippet = _term_and_snippet()
    assert freshness(snippet, None) is Freshness.MISSING
    assert freshness(snippet, _record(snippet)) is Freshness.FRESH
    _, changed = _term_and_snippet("int main() { return 0; }\n")
    assert freshness(changed, _record(snippet)) is Freshness.STALE
    _, reopt = _term_and_snippet(options=(("arch", "sm_90a"),))
    assert freshness(reopt, _record(snippet)) is Freshness.STALE


def test_cache_decisions():
    _, snippet = _term_and_snippet()
    passed = _record(snippet)
    assert is_cached(snippet, passed, H200, "13.0.88")
    assert not is_cached(snippet, passed, H200, "13.1.0"), "a new nvcc recompiles"
    other_gpu = Machine("NVIDIA H100 80GB HBM3", "9.0", 132, "580", "13.0", "13.0.88")
    assert not is_cached(snippet, passed, other_gpu, "13.0.88"), "another GPU re-runs"
    assert not is_cached(snippet, _record(snippet, "failed"), H200, "13.0.88"), "failures re-run"
    _, blackwell = _term_and_snippet(options=(("requires", "10.0"),))
    assert is_cached(blackwell, _record(blackwell, "compile-only"), H200, "13.0.88"), "still cannot run here"
    assert not is_cached(snippet, _record(snippet, "compile-only", machine=None), H200, "13.0.88"), "now it can run"


def test_runnable_on():
    _, snippet = _term_and_snippet()
    assert runnable_on(snippet, None) == "no GPU on this machine"
    assert runnable_on(snippet, H200) is None
    _, two = _term_and_snippet(options=(("gpus", "2"),))
    assert "needs 2 GPUs" in runnable_on(two, H200)
    _, bw = _term_and_snippet(options=(("requires", "10.0"),))
    assert "compute capability 10.0" in runnable_on(bw, H200)


def test_record_is_deterministic_json(tmp_path):
    term, snippet = _term_and_snippet()
    record = _record(snippet)
    write_record(tmp_path, term, snippet, record, ptx="// ptx", sass=None)
    path = tmp_path / "device-software/warp/x/nvidia-h200.json"
    text = path.read_text()
    assert text.endswith("}\n")
    data = json.loads(text)
    assert list(data) == sorted(data) and data["schema"] == 2
    assert (tmp_path / "device-software/warp/x/snippet.ptx").read_text() == "// ptx\n"
    assert read_record(tmp_path, term, snippet) == record
    assert read_record(tmp_path, term, snippet, "nvidia-h200") == record
    write_record(tmp_path, term, snippet, record, ptx="// ptx", sass=None)
    assert path.read_text() == text


def test_atomic_write_keeps_old_file_when_interrupted(tmp_path, monkeypatch):
    target = tmp_path / "rec.json"
    write_text(target, "old\n")

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        write_text(target, "new\n")
    monkeypatch.undo()
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["rec.json"], "no temporary file left behind"


# ---- the runner on host programs (stand-ins for GPU programs) -----------------------

def _py(tmp_path: Path, code: str) -> list[str]:
    script = tmp_path / "prog.py"
    script.write_text(code)
    return [sys.executable, str(script)]


def test_runner_kills_a_hanging_program_and_its_children(tmp_path):
    argv = _py(tmp_path, "import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\nprint('started', flush=True)\ntime.sleep(60)\n")
    result = process.run(argv, cwd=str(tmp_path), timeout=1.5)
    assert result.timed_out and result.reason.startswith("timed out after")
    assert result.stdout == "started\n"
    assert result.duration_s < 10


def test_runner_reports_a_crash(tmp_path):
    argv = _py(tmp_path, "import os, signal\nprint('before', flush=True)\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    result = process.run(argv, cwd=str(tmp_path), timeout=10)
    assert result.exit_status == -signal.SIGSEGV
    assert result.reason == "killed by SIGSEGV"


def test_runner_caps_a_flood(tmp_path):
    argv = _py(tmp_path, "import sys\nline = 'x' * 1023 + '\\n'\nfor _ in range(100 * 1024):\n    sys.stdout.write(line)\n")
    result = process.run(argv, cwd=str(tmp_path), timeout=30)
    assert result.truncated and "exceeded 1 MiB" in result.reason
    assert len(result.stdout.encode()) == process.OUTPUT_CAP


def test_runner_nonzero_exit_and_stderr(tmp_path):
    result = process.run(_py(tmp_path, "import sys\nprint('oops', file=sys.stderr)\nsys.exit(3)\n"), cwd=str(tmp_path), timeout=10)
    assert (result.exit_status, result.reason, result.stderr) == (3, "exit status 3", "oops\n")


# ---- an end-to-end verify on the CPU: python and console snippets ---------------------

def test_verify_runs_python_snippets_without_gpu_as_compile_only(make_glossary, tmp_path):
    from tests.conftest import term_text, trio

    files = trio({"warp": '```python verify name="p"\nprint("hi")\n```\n\n```python verify name="bad"\nprint(\n```\n'})
    root = make_glossary(files)
    from glossary_tool.pipeline import load_project

    terms = load_project(root).glossary.ordered_terms()
    lines: list[str] = []
    summary = run_verify(terms, root / "snippets", VerifyOptions(compile_only=True, jobs=2), log=lines.append)
    assert summary.counts["compile-only"] == 1 and summary.counts["failed"] == 1
    assert "python syntax error" in summary.failures[0]
    record = json.loads((root / "snippets/device-software/warp/p/no-gpu.json").read_text())
    assert record["status"] == "compile-only" and record["machine"] is None
    assert any(line.startswith("[1/2]") for line in lines)
    # a second compile-only run keeps failing the broken one and does not crash
    again = run_verify(terms, root / "snippets", VerifyOptions(compile_only=True, jobs=2), log=lines.append)
    assert again.counts["failed"] == 1
    del term_text


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")
def test_verify_compiles_cuda_fixtures_and_reports_compile_errors(tmp_path):
    """CI has nvcc but no GPU: every fixture compiles except the broken one."""
    from glossary_tool.pipeline import load_project

    root = Path(__file__).parent / "gpu_fixtures"
    terms = load_project(root).glossary.ordered_terms()
    summary = run_verify(terms, tmp_path, VerifyOptions(compile_only=True, jobs=2), log=lambda _: None)
    assert summary.failures == ["device-software/fixture-bad:does-not-compile: nvcc failed (exit status 2): snippet.cu(1): error: identifier \"undeclared_identifier\" is undefined"]
    ptx = (tmp_path / "device-software/fixture-good/warp-size/snippet.ptx").read_text()
    assert ".target sm_90" in ptx
