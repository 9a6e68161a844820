"""glossary_tool/background.py: a job's value is the same forked or not; failures surface."""

from __future__ import annotations

import os

import pytest

from glossary_tool.background import BackgroundError, Job, can_fork

FORKS = [False, pytest.param(True, marks=pytest.mark.skipif(not can_fork(), reason="no fork here (one core or other threads)"))]


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


@pytest.mark.skipif(not can_fork(), reason="no fork here")
def test_a_child_that_dies_is_an_error_not_a_hang():
    job = Job(lambda: os._exit(3), fork=True)
    with pytest.raises(BackgroundError, match="exit status 3"):
        job.result()


@pytest.mark.skipif(not can_fork(), reason="no fork here")
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
