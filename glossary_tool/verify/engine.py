"""Orchestrate a verify run: pick snippets, compile in parallel, run one at a time, record.

Compiling is CPU work and parallelises; running shares one GPU, so runs are sequential,
which also keeps timings in the records free of interference from other snippets.
"""

from __future__ import annotations

import datetime as dt
import os
import py_compile
import re
import shlex
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from glossary_tool.model import Snippet, Term
from glossary_tool.verify import process
from glossary_tool.verify.freshness import Freshness, freshness, is_cached, runnable_on
from glossary_tool.verify.matching import match_output
from glossary_tool.verify.records import (
    COMPILE_ONLY,
    FAILED,
    NO_GPU,
    PASSED,
    SKIPPED,
    Machine,
    Record,
    migrate_legacy,
    options_of,
    read_record,
    records_for,
    sha256,
    snippet_dir,
    write_record,
)
from glossary_tool.verify.reference import required_gpus
from glossary_tool.verify.toolchain import Toolchain, detect_machine, find_toolchain

DEFAULT_TIMEOUT = 30.0
COMPILE_TIMEOUT = 600.0
SANITIZER_EXIT = 86
#: Never let a snippet turn on NVLink multicast on a shared multi-GPU host.
SAFE_ENV = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}


@dataclass(frozen=True)
class VerifyOptions:
    term: str | None = None
    force: bool = False
    jobs: int = os.cpu_count() or 1
    timeout: float | None = None
    sanitize: bool = False
    compile_only: bool = False
    #: Only snippets that need two GPUs or more (the run on a multi-GPU node).
    multi_gpu: bool = False


@dataclass
class Job:
    term: Term
    snippet: Snippet
    workdir: Path
    previous: Record | None
    binary: list[str] | None = None
    compile_error: str | None = None
    compile_log: str = ""
    ptx: str | None = None
    sass: str | None = None
    missing: str | None = None


@dataclass
class Summary:
    counts: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    machine: Machine | None = None
    #: The record folder of every snippet this run covered (cached ones included): what --pack carries.
    folders: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.counts[FAILED] == 0

    def line(self) -> str:
        c = self.counts
        total = sum(c.values())
        return (
            f"verify: {c[PASSED]} passed, {c[FAILED]} failed, {c[COMPILE_ONLY]} compile-only, "
            f"{c['cached']} cached, {c[SKIPPED]} skipped ({total} snippets) in {self.seconds:.1f} s"
        )


def _relabel(text: str, workdir: Path) -> str:
    return text.replace(str(workdir) + "/", "").replace(str(workdir), ".")


_MISSING_HEADER = re.compile(r"fatal error: ([\w/.+-]+): No such file or directory")


def _compile(job: Job, tools: Toolchain, link: bool) -> None:
    """Compile one snippet; without ``link`` (no GPU here) stop at an object file.

    A machine without a GPU often lacks the driver's libraries (libcuda, libnvidia-ml),
    so linking there proves nothing about the snippet; compiling to an object still
    catches every compile error and yields the PTX and SASS.
    """
    snippet, wd = job.snippet, job.workdir
    wd.mkdir(parents=True, exist_ok=True)
    arch = snippet.arch
    flags = shlex.split(snippet.option("flags", "") or "")
    if snippet.lang == "cuda":
        if not tools.nvcc:
            job.compile_error = "nvcc not found"
            return
        (wd / "snippet.cu").write_text(snippet.source, encoding="utf-8")
        keep = wd / "keep"
        keep.mkdir()
        output = wd / ("snippet" if link else "snippet.o")
        flags = _library_flags(flags)
        if not link:
            flags = [f for f in flags if not f.startswith(("-l", "-L"))] + ["-c"]
        argv = [tools.nvcc, *arch_flags(arch), "--keep", "--keep-dir", str(keep), "-o", str(output), str(wd / "snippet.cu"), *flags]
        result = process.run(argv, cwd=str(wd), timeout=COMPILE_TIMEOUT)
        job.compile_log = _relabel(result.stdout + result.stderr, wd)
        if result.reason:
            missing = _MISSING_HEADER.search(job.compile_log)
            if missing and not link:
                job.missing = missing.group(1)
                return
            job.compile_error = f"nvcc failed ({result.reason})"
            return
        ptx = sorted(keep.glob("*.ptx"))
        job.ptx = _relabel(ptx[0].read_text(encoding="utf-8", errors="replace"), wd) if ptx else None
        job.sass = _sass(tools, output, wd)
        job.binary = [str(output)] if link else None
    elif snippet.lang == "ptx":
        if not tools.ptxas:
            job.compile_error = "ptxas not found"
            return
        (wd / "snippet.ptx").write_text(snippet.source, encoding="utf-8")
        argv = [tools.ptxas, f"-arch={arch}", str(wd / "snippet.ptx"), "-o", str(wd / "snippet.cubin")]
        result = process.run(argv, cwd=str(wd), timeout=COMPILE_TIMEOUT)
        job.compile_log = _relabel(result.stdout + result.stderr, wd)
        if result.reason:
            job.compile_error = f"ptxas failed ({result.reason})"
            return
        job.sass = _sass(tools, wd / "snippet.cubin", wd)
    elif snippet.lang == "python":
        path = wd / "snippet.py"
        path.write_text(snippet.source, encoding="utf-8")
        try:
            py_compile.compile(str(path), cfile=str(wd / "snippet.pyc"), doraise=True)
        except py_compile.PyCompileError as exc:
            job.compile_error = "python syntax error"
            job.compile_log = _relabel(str(exc), wd)
            return
        job.binary = [tools.python, str(path)]
    elif snippet.lang == "console":
        commands = [line[2:] for line in snippet.source.splitlines() if line.startswith("$ ")]
        if not commands:
            job.compile_error = "console snippet has no '$ ' command lines"
            return
        (wd / "snippet.sh").write_text("set -e\n" + "\n".join(commands) + "\n", encoding="utf-8")
        job.binary = ["bash", str(wd / "snippet.sh")]


def _library_flags(flags: list[str]) -> list[str]:
    """Point ``-lX`` at a library that only a Python wheel provides (e.g. NCCL on the GPU image).

    Wheels such as nvidia-nccl-cu13 ship ``nvidia/nccl/{include,lib}`` with only the
    versioned ``libnccl.so.2``; nvcc then needs the include and library paths, an rpath,
    and ``-l:libnccl.so.2``. Libraries the CUDA toolkit has are left alone.
    """
    out: list[str] = []
    for flag in flags:
        if not flag.startswith("-l") or flag.startswith("-l:"):
            out.append(flag)
            continue
        name = flag[2:]
        found = _wheel_library(name)
        if found is None:
            out.append(flag)
            continue
        lib_dir, file_name = found
        include = lib_dir.parent / "include"
        if include.is_dir():
            out.append(f"-I{include}")
        out += [f"-L{lib_dir}", f"-Xlinker=-rpath={lib_dir}", f"-l:{file_name}"]
    return out


def _wheel_library(name: str) -> tuple[Path, str] | None:
    import importlib.util

    toolkit = [Path(p) for p in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda") if p]
    if any(list((base / "lib64").glob(f"lib{name}.so*")) for base in toolkit if (base / "lib64").is_dir()):
        return None
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return None
    for root in (spec.submodule_search_locations or []) if spec else []:
        for candidate in sorted(Path(root).glob(f"*/lib/lib{name}.so*")):
            return candidate.parent, candidate.name
    return None


def arch_flags(arch: str) -> list[str]:
    """nvcc flags for ``arch``; feature-suffixed targets (sm_90a, sm_100a) need -gencode.

    With nvcc 13.0, ``-arch=sm_100a`` also emits plain compute_100 PTX, which ptxas then
    rejects for tcgen05; naming the architecture-specific virtual target avoids that.
    """
    if arch.startswith("sm_") and arch[-1] in "af":
        return ["-gencode", f"arch=compute_{arch[3:]},code=sm_{arch[3:]}"]
    return [f"-arch={arch}"]


def _sass(tools: Toolchain, binary: Path, wd: Path) -> str | None:
    if not tools.cuobjdump:
        return None
    result = process.run([tools.cuobjdump, "-sass", str(binary)], cwd=str(wd), timeout=120)
    if result.reason or not result.stdout.strip():
        return None
    return _relabel(result.stdout, wd)


def _compile_line(log: str) -> str:
    for line in log.splitlines():
        if "error" in line.lower():
            return line.strip()[:300]
    return (log.strip().splitlines() or ["no compiler output"])[-1][:300]


def select(terms: Iterable[Term], term: str | None, multi_gpu: bool = False) -> list[tuple[Term, Snippet]]:
    return [(t, s) for t in terms if term is None or t.slug == term for s in t.snippets if not multi_gpu or required_gpus(s) > 1]


def run_verify(
    terms: Iterable[Term],
    records_root: Path,
    options: VerifyOptions,
    log: Callable[[str], None] = lambda line: print(line, file=sys.stderr, flush=True),
) -> Summary:
    started = time.monotonic()
    summary = Summary()
    tools = find_toolchain()
    machine = None if options.compile_only else detect_machine(tools)
    summary.machine = machine
    if machine is None:
        log("verify: no GPU found (or --compile-only): compiling only; nothing is run or marked verified")
    else:
        log(f"verify: {machine.gpu_name} (cc {machine.compute_capability}, {machine.sm_count} SMs, {machine.gpu_count} GPU(s)), driver {machine.driver_version}, nvcc {tools.nvcc_version}")
    moved = migrate_legacy(records_root)
    if moved:
        log(f"verify: moved {moved} record(s) of the one-record-per-snippet layout into snippets/<section>/<term>/<snippet>/<gpu>.json")
    selected = select(terms, options.term, options.multi_gpu)
    key = machine.key if machine is not None else NO_GPU
    summary.folders = [snippet_dir(records_root, term, snippet) for term, snippet in selected]
    today = dt.datetime.now(dt.UTC).date().isoformat()
    with tempfile.TemporaryDirectory(prefix="glossary-verify-") as tmp:
        jobs: list[Job] = []
        for index, (term, snippet) in enumerate(selected):
            previous = read_record(records_root, term, snippet, key)
            cached = not options.force and is_cached(snippet, previous, machine, tools.nvcc_version)
            if cached and previous is not None and previous.status == PASSED and snippet.expected is not None:
                cached = match_output(snippet.expected, previous.stdout, previous.machine) is None
            if cached:
                summary.counts["cached"] += 1
                continue
            jobs.append(Job(term, snippet, Path(tmp, f"{index:05d}"), previous))
        if jobs:
            log(f"verify: compiling {len(jobs)} snippet(s) with {options.jobs} job(s)")
            with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
                list(pool.map(lambda job: _compile(job, tools, link=machine is not None), jobs))
        for number, job in enumerate(jobs, 1):
            record = _execute(job, tools, machine, options, today)
            if _keeps(records_root, job, record):
                write_record(records_root, job.term, job.snippet, record, job.ptx, job.sass)
                if machine is not None:  # this GPU's record supersedes a compile-only one from a machine without a GPU
                    (snippet_dir(records_root, job.term, job.snippet) / f"{NO_GPU}.json").unlink(missing_ok=True)
            # A GPU that cannot run the snippet (too old, too few) skips it; the record still
            # says it compiled, which is all a snippet no reference GPU can run can show.
            not_here = machine is not None and record.status == COMPILE_ONLY and runnable_on(job.snippet, machine) is not None
            status = SKIPPED if not_here else record.status
            summary.counts[status] += 1
            label = f"{job.term.section}/{job.term.slug}:{job.snippet.name}"
            detail = f" - {record.reason.removeprefix('compiled only: ')}" + (" (compiled only)" if not_here else "") if record.reason else ""
            log(f"[{number}/{len(jobs)}] {label} {status} ({record.duration_s:.2f} s){detail}")
            if record.status == FAILED:
                summary.failures.append(f"{label}: {record.reason}")
    summary.seconds = time.monotonic() - started
    return summary


def _keeps(records_root: Path, job: Job, record: Record) -> bool:
    """Whether ``record`` is written: a run that proves less never replaces one that proved more.

    A compile-only or skipped run keeps this GPU's fresh record from a run that did more (a
    one-GPU machine of the model that a two-GPU node verified), and a machine without a GPU
    writes nothing where some GPU's fresh record already stands.
    """
    if record.status not in (COMPILE_ONLY, SKIPPED):
        return True
    previous = job.previous
    if previous is not None and previous.machine is not None and freshness(job.snippet, previous) is Freshness.FRESH:
        return False
    if record.machine is None:
        others = records_for(records_root, job.term, job.snippet).values()
        return not any(r.machine is not None and freshness(job.snippet, r) is Freshness.FRESH for r in others)
    return True


def _execute(job: Job, tools: Toolchain, machine: Machine | None, options: VerifyOptions, today: str) -> Record:
    snippet = job.snippet

    def make(status: str, reason: str, stdout: str = "", stderr: str = "", exit_status: int | None = None, duration: float = 0.0) -> Record:
        return Record(
            section=job.term.section,
            term=job.term.slug,
            name=snippet.name,
            lang=snippet.lang,
            options=options_of(snippet),
            source_sha256=sha256(snippet.source),
            status=status,
            reason=reason,
            stdout=stdout,
            stderr=stderr,
            exit_status=exit_status,
            duration_s=round(duration, 3),
            date=today,
            nvcc_version=tools.nvcc_version,
            machine=machine,
            expected_sha256=sha256(snippet.expected) if snippet.expected is not None else None,
            has_ptx=job.ptx is not None,
            has_sass=job.sass is not None,
        )

    if job.missing:
        return make(SKIPPED, f"skipped: needs {job.missing}, which this machine's CUDA toolkit lacks")
    if job.compile_error:
        return make(FAILED, f"{job.compile_error}: {_compile_line(job.compile_log)}", stderr=job.compile_log[-65536:])
    if options.compile_only or machine is None:
        return make(COMPILE_ONLY, "compiled only: no GPU run (--compile-only or no GPU)" if machine is None else "compiled only (--compile-only)")
    why_not = runnable_on(snippet, machine)
    if why_not is not None:
        return make(COMPILE_ONLY, f"compiled only: {why_not}")
    if job.binary is None:  # PTX without a launch harness
        return make(COMPILE_ONLY, "compiled only: PTX is assembled, not launched")
    timeout = options.timeout or float(snippet.option("timeout", str(DEFAULT_TIMEOUT)) or DEFAULT_TIMEOUT)
    argv = list(job.binary)
    log_file = job.workdir / "sanitizer.log"
    if options.sanitize and snippet.lang in ("cuda", "python") and tools.sanitizer:
        argv = [tools.sanitizer, "--tool", "memcheck", "--error-exitcode", str(SANITIZER_EXIT), "--print-limit", "20", "--log-file", str(log_file), *argv]
        timeout *= 4
    env = {**os.environ, **SAFE_ENV}
    result = process.run(argv, cwd=str(job.workdir), timeout=timeout, env=env)
    if argv != job.binary and not result.timed_out and result.exit_status not in (0, SANITIZER_EXIT):
        # compute-sanitizer exits 255 for a program that crashed or never called CUDA;
        # its verdict is then empty, so report what the program itself does.
        result = process.run(list(job.binary), cwd=str(job.workdir), timeout=timeout / 4, env=env)
    reason = result.reason
    if reason and options.sanitize and result.exit_status == SANITIZER_EXIT and log_file.exists():
        errors = [line for line in log_file.read_text(errors="replace").splitlines() if "Invalid" in line or "Error" in line or "error" in line]
        reason = "compute-sanitizer memcheck: " + (errors[0].strip("= ").strip() if errors else "errors reported")
    if reason is None and snippet.expected is not None:
        mismatch = match_output(snippet.expected, result.stdout, machine)
        if mismatch is not None:
            reason = f"wrong output: {mismatch.describe()}"
    status = FAILED if reason else PASSED
    return make(status, reason or "", result.stdout, _relabel(result.stderr, job.workdir), result.exit_status, result.duration_s)
