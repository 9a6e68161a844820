"""glossary_tool/background.py: a job's value is the same forked or not; failures surface."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmarks.generate import generate
from glossary_tool.background import BackgroundError, Job, can_fork
from tests.conftest import REPO, needs_fork, with_site_config

FORKS = [False, pytest.param(True, marks=needs_fork)]


@pytest.mark.parametrize("fork", FORKS)
def test_value_comes_back_whole(fork):
    big = bytes(range(256)) * 20_000  # 5 MB: more than a pipe buffer
    job = Job(lambda: (os.getpid(), big, {"a": [1, 2]}), fork=fork)
    assert job.forked is fork
    pid, data, extra = job.result()
    assert data == big and extra == {"a": [1, 2]}
    assert (pid != os.getpid()) is fork, "forked jobs run in another process, the others here"
    assert job.result()[1] is data, "asked twice, computed once"


@pytest.mark.parametrize("fork", FORKS)
def test_a_failure_is_raised_with_its_reason(fork):
    def boom():
        raise ValueError("the layout diverged")

    job = Job(boom, fork=fork)
    with pytest.raises(BackgroundError, match="ValueError: the layout diverged"):
        job.result()


@needs_fork
def test_a_child_that_dies_is_an_error_not_a_hang():
    job = Job(lambda: os._exit(3), fork=True)
    with pytest.raises(BackgroundError, match="exit status 3"):
        job.result()


@needs_fork
def test_cancel_stops_the_child():
    import time

    job = Job(lambda: time.sleep(60), fork=True)
    started = time.monotonic()
    job.cancel()
    assert time.monotonic() - started < 10
    assert not job._process.is_alive()


def test_no_fork_when_asked_not_to(monkeypatch):
    monkeypatch.setenv("GLOSSARY_NO_FORK", "1")
    assert not can_fork()
    assert not Job(lambda: 1).forked


# --------------------------------------------------------------------------- killed parents

LINUX_PROC = Path("/proc/self/stat").exists()


def _gone(pid: int) -> bool:
    """Exited (a zombie waiting for a reaper counts: it runs nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        try:  # a process may exit while we look: it then has no children to list
            tasks = list(Path(f"/proc/{current}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError):
                for child in (task / "children").read_text().split():
                    if int(child) not in found:
                        found.add(int(child))
                        todo.append(int(child))
    return found


def _wait_until(condition, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


@pytest.mark.skipif(not (can_fork() and LINUX_PROC), reason="needs fork and /proc")
def test_a_child_dies_with_its_sigkilled_parent():
    # The child's result (5 MB) is larger than a pipe buffer: a child that still held the
    # pipe's reading end would block in its write forever once the parent is gone.
    script = "import os, sys, time\nfrom glossary_tool.background import Job\njob = Job(lambda: (time.sleep(1), b'x' * 5_000_000), fork=True)\nprint(job._process.pid, flush=True)\ntime.sleep(60)\n"
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    assert not _gone(child)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _wait_until(lambda: _gone(child)), "the forked child outlived its SIGKILLed parent"


@pytest.mark.skipif(not (can_fork() and LINUX_PROC), reason="needs fork and /proc")
def test_a_sigkilled_build_leaves_no_process_and_its_staging_is_swept(tmp_path):
    root = with_site_config(generate(tmp_path / "repo", 80))
    site = root / "site"
    argv = [sys.executable, "-m", "glossary_tool", "--root", str(root), "build", "--out", str(site)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    build = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    staged = lambda: list(root.glob(".site.build-*"))  # noqa: E731
    assert _wait_until(lambda: bool(staged() and _descendants(build.pid)) or build.poll() is not None, 120), "the build never forked"
    assert build.poll() is None, "the build ended before it could be killed"
    children = _descendants(build.pid)
    build.send_signal(signal.SIGKILL)
    build.wait()
    assert _wait_until(lambda: all(_gone(pid) for pid in children)), "a process of the killed build is still running"
    assert staged(), "the killed build's staging directory is there to sweep"
    # a concurrent live build's staging directory is left alone: here, one owned by this test
    live = root / f".site.build-{os.getpid()}-live"
    live.mkdir()
    again = subprocess.run(argv, capture_output=True, env=env, timeout=300)
    assert again.returncode == 0, again.stderr.decode()[-2000:]
    assert staged() == [live], "the dead build's staging directory was not swept"
    assert (site / "index.html").is_file()
