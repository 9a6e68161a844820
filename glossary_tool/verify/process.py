"""Run one untrusted program: own process group, wall-clock timeout, capped output.

Snippets are contributed code. Each runs in a temporary directory, in a new session (so
a timeout kills its children too), with stdout and stderr read concurrently and cut at a
cap, so a program that hangs, forks or prints 100 MB cannot stall or flood the run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass

OUTPUT_CAP = 1 << 20  # 1 MiB
STDERR_CAP = 64 << 10


@dataclass(frozen=True)
class Completed:
    stdout: str
    stderr: str
    exit_status: int | None
    duration_s: float
    timed_out: bool
    truncated: bool

    @property
    def reason(self) -> str | None:
        """Why the run failed, in words, or None if it exited 0 within its limits."""
        if self.timed_out:
            return f"timed out after {self.duration_s:.1f} s"
        if self.truncated:
            return f"output exceeded {OUTPUT_CAP // (1 << 20)} MiB and was cut off"
        if self.exit_status is None:
            return "did not finish"
        if self.exit_status < 0:
            try:
                name = signal.Signals(-self.exit_status).name
            except ValueError:
                name = f"signal {-self.exit_status}"
            return f"killed by {name}"
        if self.exit_status != 0:
            return f"exit status {self.exit_status}"
        return None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run(argv: list[str], cwd: str, timeout: float, env: dict[str, str] | None = None, cap: int = OUTPUT_CAP) -> Completed:
    start = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    chunks: dict[str, list[bytes]] = {"out": [], "err": []}
    sizes = {"out": 0, "err": 0}
    overflow = threading.Event()

    def pump(name: str, stream, limit: int, fatal: bool) -> None:
        while True:
            data = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
            if not data:
                return
            room = limit - sizes[name]
            if room > 0:
                chunks[name].append(data[:room])
            sizes[name] += len(data)
            if sizes[name] > limit and fatal:
                overflow.set()
                _kill_group(proc)
                return

    threads = [
        threading.Thread(target=pump, args=("out", proc.stdout, cap, True), daemon=True),
        threading.Thread(target=pump, args=("err", proc.stderr, STDERR_CAP, False), daemon=True),
    ]
    for thread in threads:
        thread.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill_group(proc)
        proc.wait()
    except BaseException:  # Ctrl-C: never leave a snippet running on the GPU
        _kill_group(proc)
        proc.wait()
        raise
    _kill_group(proc)  # orphans left behind by the snippet
    for thread in threads:
        thread.join(timeout=5)
    duration = time.monotonic() - start
    return Completed(
        stdout=b"".join(chunks["out"]).decode("utf-8", "replace"),
        stderr=b"".join(chunks["err"]).decode("utf-8", "replace"),
        exit_status=proc.returncode,
        duration_s=duration,
        timed_out=timed_out,
        truncated=overflow.is_set(),
    )
