"""Scale benchmark: `glossary check`, `glossary build`, bare MkDocs-Material, and a serve rebuild.

Run: .venv/bin/python -m benchmarks.bench_build [--sizes 500 5000] [--repeat 3] [--repeat-large 1] [--json FILE]
     .venv/bin/python -m benchmarks.bench_build --corpus third-party:CHECKOUT [--repeat 3]

``--corpus third-party:CHECKOUT`` measures a glossary we did not write instead of generated
sizes: a checkout of Modal's GPU Glossary converted to our format by benchmarks/third_party.py
(their text is read from CHECKOUT at run time, never committed). Each line ends with the load
average before and after, since a shared machine's load moves wall times (and ratios) a lot.

For each size N a synthetic glossary is generated (benchmarks/generate.py) with the real
mkdocs.yml and stylesheet, and each command runs in a fresh child process, timed by wall
clock; peak memory is that child's own ru_maxrss (os.wait4). `check` is the best of
--repeat runs; our build and the bare build run alternately, --repeat pairs, and `ours /
bare` is the median of the pairs' ratios (a shared machine's speed drifts between minutes).

The bare-MkDocs twin is what an author would have without the tool: the same term files
and section pages, cross-references written as plain Markdown links, the same theme,
nav, extensions and stylesheet, no glossary plugin (see child_twin). `ours / bare` is
therefore everything the glossary adds: loading, checking and linking, drawings, snippet
tabs, backlinks, the generated pages, llms.txt, the Markdown copies and the EPUB.

The serve rebuild runs `glossary serve` (MkDocs' own serve command, as ``mkdocs serve
--dirty``) with benchmarks/serve_driver.py standing in for the network server: when a term
file changes MkDocs' LiveReloadServer calls its builder, which loads the config again (our
plugin reloads and relinks the glossary) and makes a dirty build in which the plugin has
only the changed pages rendered. The child builds once (the initial serve build), then
edits one term and times the builder call, wall and in-process CPU (``--serve-only`` runs
just this part).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from benchmarks.generate import generate

REPO = Path(__file__).resolve().parent.parent


def prepare(root: Path, n: int, source: Path | None = None) -> Path:
    """A generated glossary of ``n`` terms; 0: a copy of the real one (a corpus not generated);
    ``source``: a checkout of Modal's GPU Glossary converted to our format (third_party.py)."""
    if source is not None:
        from benchmarks.third_party import prepare as convert

        conversion = convert(source, root)
        print(f"  third-party corpus: {conversion.terms} terms, {conversion.links} term links; " + "; ".join(conversion.notes), file=sys.stderr, flush=True)
        return root
    if n == 0:
        for folder in ("glossary", "diagrams", "snippets"):
            shutil.copytree(REPO / folder, root / folder)
        shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
        return root
    generate(root, n)
    return add_site_config(root)


def add_site_config(root: Path) -> Path:
    """The real mkdocs.yml and the glossary's assets (stylesheet, scripts) beside a corpus
    the benchmark made (generated or converted), so it builds like the real glossary."""
    shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    shutil.copytree(REPO / "glossary" / "assets", root / "glossary" / "assets")
    return root


def run_child(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, int, float]:
    """(wall seconds, peak RSS in MiB, exit status, CPU seconds) of one child process.

    CPU is user + system time of the child and of the processes it waited for (the build's
    background EPUB process); peak RSS is the largest single process of that tree.
    """
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}):\n{err.decode(errors='replace')[-3000:]}")
    return seconds, usage.ru_maxrss / 1024, proc.returncode, usage.ru_utime + usage.ru_stime


def summary(runs: list[tuple[float, float, int, float]]) -> dict:
    """What the JSON keeps of repeated runs (:func:`run_child` results): the best wall and CPU
    time, every run's, the largest peak and the last exit status."""
    return {"seconds": min(r[0] for r in runs), "all_seconds": [round(r[0], 2) for r in runs], "peak_mib": max(r[1] for r in runs), "exit": runs[-1][2], "cpu_seconds": min(r[3] for r in runs), "all_cpu_seconds": [round(r[3], 2) for r in runs]}


def best(argv: list[str], repeat: int, env: dict[str, str] | None = None, label: str = "", before: Callable[[], object] | None = None) -> dict[str, float]:
    """Best of ``repeat`` runs; ``before`` runs ahead of each (to empty the cache for a cold run)."""
    runs = []
    for _ in range(repeat):
        if before is not None:
            before()
        runs.append(run_child(argv, env))
    out = summary(runs)
    if label:
        print(f"  {label}: {out['seconds']:.2f} s wall, {out['cpu_seconds']:.2f} s CPU, {out['peak_mib']:.0f} MiB", file=sys.stderr, flush=True)
    return out


def paired(ours: list[str], bare: list[str], repeat: int, env: dict[str, str], label: str, before_ours: Callable[[], object] | None = None, before_bare: Callable[[], object] | None = None) -> tuple[dict, dict, list[float], list[float]]:
    """``ours`` and ``bare`` run alternately, ``repeat`` pairs: each as :func:`best` gives it,
    and the wall and CPU ratio of each pair. A shared machine's speed drifts by a third
    within minutes (BENCHMARKS.md, ninth session); two runs back to back see the same
    machine, so the median of the pairs' ratios is the figure to trust, and a best of each
    taken minutes apart is not."""
    runs_ours, runs_bare = [], []
    for _ in range(repeat):
        if before_ours is not None:
            before_ours()
        runs_ours.append(run_child(ours, env))
        if before_bare is not None:
            before_bare()
        runs_bare.append(run_child(bare, env))

    walls = [o[0] / b[0] for o, b in zip(runs_ours, runs_bare, strict=True)]
    cpus = [o[3] / b[3] for o, b in zip(runs_ours, runs_bare, strict=True)]
    first, second = summary(runs_ours), summary(runs_bare)
    print(f"  {label}: ours {', '.join(f'{s:.2f}' for s in first['all_seconds'])} s, bare {', '.join(f'{s:.2f}' for s in second['all_seconds'])} s: pairs {', '.join(f'{r:.2f}x' for r in walls)} wall", file=sys.stderr, flush=True)
    return first, second, walls, cpus


# --- children ------------------------------------------------------------------------------


def plain_links(root: Path, glossary, term) -> str:
    """A term file (or section page) as its author wrote it, each cross-reference replaced by
    the plain Markdown link (or, unresolved, the text) an author without the tool would write."""
    from glossary_tool.emit.links import RelativeLinker
    from glossary_tool.emit.markdown import display_text

    lines = (root / term.path).read_text(encoding="utf-8").split("\n")
    src = term.path.split("/", 1)[1]
    linker = RelativeLinker(src)
    resolved = {(link.xref.line, link.xref.col): link for link in glossary.links.get(term.slug, ())}
    for xref in sorted(term.xrefs, key=lambda x: (x.line, x.col), reverse=True):
        link = resolved.get((xref.line, xref.col))
        if link is None:
            new = xref.shown
        else:
            target = glossary.terms[link.target]
            new = f"[{display_text(xref, target)}]({linker.to_term(target, xref.anchor)})"
        first, last = lines[xref.line - 1], lines[xref.end_line - 1]
        lines[xref.line - 1 : xref.end_line] = [first[: xref.col - 1] + new + last[xref.end_col - 1 :]]
    return "\n".join(lines)


def child_twin(root: Path, twin: Path) -> None:
    """Write ``twin``: the authors' own Markdown as a plain MkDocs-Material project.

    Every term file and section page under ``root/glossary`` keeps its front matter and body,
    its cross-references written as plain Markdown links (:func:`plain_links`); the nav is
    the one our plugin makes from toc.yml (long sections grouped alike); mkdocs.yml is ours
    without the glossary plugin (same theme, features, extensions, search settings and
    stylesheet). Nothing generated is there: no drawings, snippet tabs, backlinks, A-Z,
    Rosetta, map, llms.txt or books. So `ours / bare` is what the glossary costs an author
    over plain MkDocs.
    """
    import html

    from glossary_tool.adapters.mkdocs_plugin import _nav_groups
    from glossary_tool.emit.links import term_src
    from glossary_tool.pipeline import load_project

    glossary = load_project(root, check_records=False, cache=False).glossary
    docs = twin / "docs"
    pages = [*glossary.terms.values(), *(s.page for s in glossary.sections if s.page is not None)]
    if glossary.home is not None and glossary.home.page is not None:
        pages.append(glossary.home.page)
    for term in pages:
        target = docs / term.path.split("/", 1)[1]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(plain_links(root, glossary, term), encoding="utf-8")
    shutil.copytree(root / "glossary" / "assets", docs / "assets")
    nav: list = [{"Home": "index.md"}]
    for section in glossary.sections:
        entries = [{html.escape(glossary.terms[s].display_title, quote=False): term_src(glossary.terms[s])} for s in section.terms if s in glossary.terms]
        nav.append({html.escape(section.title, quote=False): [f"{section.slug}/index.md", *_nav_groups(entries)]})
    settings = yaml.safe_load((root / "mkdocs.yml").read_text(encoding="utf-8"))
    settings["plugins"] = [p for p in settings["plugins"] if p != "glossary" and not (isinstance(p, dict) and "glossary" in p)]
    settings.update(docs_dir="docs", nav=nav)
    (twin / "mkdocs.yml").write_text(yaml.safe_dump(settings, sort_keys=False, allow_unicode=True), encoding="utf-8")


def child_serve(root: Path, repeat: int) -> None:
    """What `glossary serve` does on a change: MkDocs' serve calls its builder, and the
    glossary plugin has it render only the pages that changed.

    Runs `glossary serve` (MkDocs' own serve command) with benchmarks/serve_driver.py standing
    in for its network server. Three edits to term-00001, each timed from the file write to
    the end of the rebuild (best of ``repeat``; wall and this process's CPU): a sentence added
    to its body (its page alone changes), its summary edited (the tooltips of every page
    linking to it, the home, A-Z and section pages, the map), and a cross-reference to a term
    it did not link to (both neighbourhood drawings). For comparison, the full rebuild a
    plain ``mkdocs serve`` makes on each change.
    """
    from benchmarks.serve_driver import Session, glossary_serve, mkdocs_serve

    term = sorted((root / "glossary").glob("*/term-00001.md"))[0]
    original = term.read_text(encoding="utf-8")
    far = f"term-{len(list((root / 'glossary').glob('*/term-*.md'))) // 2:05d}"
    edits = {
        "body": lambda i: original.replace("\n## Part\n", f"\nEdit number {i} adds this sentence.\n\n## Part\n", 1),
        "summary": lambda i: original.replace("summary: Synthetic term number 1 ", f"summary: Edit {i} of synthetic term number 1 ", 1),
        "link": lambda i: original.replace("\n## Part\n", f"\nEdit {i} links [[{far}]].\n\n## Part\n", 1),
    }
    times: dict[str, list[float]] = {kind: [] for kind in edits}
    cpu: dict[str, list[float]] = {kind: [] for kind in edits}
    pages: dict[str, int] = {}
    result: dict[str, object] = {}

    def rebuilds(preview: Session) -> None:
        result["initial"] = time.perf_counter() - session_start  # the first build (and loading MkDocs)
        result["pages"] = len(preview.planned)
        for i in range(repeat):
            for kind, edited in edits.items():
                for text in (edited(i), original):  # edit, then put it back: both are rebuilds
                    start, start_cpu = time.perf_counter(), time.process_time()
                    term.write_text(text, encoding="utf-8")
                    preview.rebuild()
                    times[kind].append(time.perf_counter() - start)
                    cpu[kind].append(time.process_time() - start_cpu)
                    pages[kind] = len(preview.rebuilt)

    session_start = time.perf_counter()
    glossary_serve(root / "mkdocs.yml", "127.0.0.1:8000", rebuilds)

    def full(session: Session) -> None:
        began = time.perf_counter()
        session.rebuild()
        result["full_rebuild"] = time.perf_counter() - began

    mkdocs_serve(root / "mkdocs.yml", "127.0.0.1:8000", full, dirty=False)
    print(json.dumps({**result, "rebuilt": pages, **times, "cpu": {kind: min(v) for kind, v in cpu.items()}}))


# --- driver --------------------------------------------------------------------------------


def machine() -> dict[str, str]:
    def sh(cmd: str) -> str:
        try:
            return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return "?"

    return {"nproc": sh("nproc"), "free_h": sh("free -h | sed -n 2p"), "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip(), "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M %Z")}


EDIT = "\n\nOne sentence added by the benchmark.\n"


def toggle_sentence(root: Path, folder: str = "glossary") -> None:
    """Add a sentence to the end of the first term file's body, or take it away again
    (``folder``: "docs" for the same file in the bare twin)."""
    path = sorted(p for p in (root / folder).glob("*/*.md") if p.name != "index.md")[0]
    text = path.read_text(encoding="utf-8")
    path.write_text(text.removesuffix(EDIT) if text.endswith(EDIT) else text + EDIT, encoding="utf-8")


def measure(n: int, repeat: int, tmp: Path, serve: bool = True, source: Path | None = None) -> dict:
    """Time check, build (cold and after an edit) and the bare twin on one corpus: ``n``
    generated terms, the real glossary (0) or a third-party checkout (``source``)."""
    root = prepare(tmp / f"n{n}" / "repo", n, source)
    env = {**os.environ, "PYTHONPATH": str(REPO), "SOURCE_DATE_EPOCH": "1700000000"}
    py = sys.executable
    load_before = os.getloadavg()
    result: dict = {"n": n or len(list((root / "glossary").glob("*/*.md"))) - len(list((root / "glossary").glob("*/index.md"))), "corpus": "third-party" if source is not None else "real" if n == 0 else "generated"}
    n = result["n"]
    cold = lambda: shutil.rmtree(root / ".cache", ignore_errors=True)  # noqa: E731
    check = [py, "-m", "glossary_tool", "--root", str(root), "check"]
    result["check"] = best(check, repeat, env, f"N={n} check, cold cache", before=cold)
    result["check_warm"] = best(check, repeat, env, f"N={n} check, warm cache")
    twin = tmp / f"n{n}" / "twin"
    subprocess.run([py, "-m", "benchmarks.bench_build", "--child-twin", str(root), str(twin)], check=True, env=env, cwd=REPO, capture_output=True)
    build = [py, "-m", "glossary_tool", "--root", str(root), "build", "--out", str(tmp / f"n{n}" / "site")]
    bare = [py, "-m", "mkdocs", "build", "-q", "-f", str(twin / "mkdocs.yml"), "-d", str(tmp / f"n{n}" / "bare-site")]
    result["build"], result["bare"], walls, cpus = paired(build, bare, repeat, env, f"N={n} cold build and bare MkDocs", before_ours=cold)
    # An author's next build: one sentence added to (or taken from) one term's body, with the
    # .cache/ the previous build left. Bare MkDocs keeps nothing between builds; timed after
    # the same edit to its copy all the same.
    result["build_edit"], result["bare_edit"], edit_walls, edit_cpus = paired(
        build, bare, repeat, env, f"N={n} after a one-sentence edit", before_ours=lambda: toggle_sentence(root), before_bare=lambda: toggle_sentence(twin, "docs")
    )
    result["pair_ratios"], result["pair_cpu_ratios"] = [round(r, 3) for r in walls], [round(r, 3) for r in cpus]
    result["ratio"], result["cpu_ratio"] = statistics.median(walls), statistics.median(cpus)
    result["edit_ratio"], result["edit_cpu_ratio"] = statistics.median(edit_walls), statistics.median(edit_cpus)
    result["per_term_ms"] = 1000 * result["build"]["seconds"] / n
    result["load"] = {"before": load_before, "after": os.getloadavg()}  # a shared machine: 1, 5 and 15 minute load
    pages = sum(1 for _ in (tmp / f"n{n}" / "site").rglob("index.html"))
    bare_pages = sum(1 for _ in (tmp / f"n{n}" / "bare-site").rglob("index.html"))
    result["pages"] = {"ours": pages, "bare": bare_pages}
    if n <= 1000 and serve and result["corpus"] == "generated":  # the edits are to generated terms
        out = subprocess.run([py, "-m", "benchmarks.bench_build", "--child-serve", str(root), "--repeat", str(repeat)], check=True, env=env, cwd=REPO, capture_output=True, text=True)
        serve = json.loads(out.stdout.strip().splitlines()[-1])
        result["serve"] = {
            "initial": serve["initial"], "pages": serve["pages"], "rebuilt_pages": serve["rebuilt"], "full_rebuild": serve["full_rebuild"], "cpu": serve["cpu"],
            **{kind: min(serve[kind]) for kind in serve["rebuilt"]}, "all": {kind: [round(t, 2) for t in serve[kind]] for kind in serve["rebuilt"]},
        }
    shutil.rmtree(tmp / f"n{n}", ignore_errors=True)
    return result


def serve_only(sizes: list[int], repeat: int) -> None:
    """The serve part of :func:`measure` alone, in a child process per size."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        for n in sizes:
            root = prepare(Path(tmp) / f"n{n}" / "repo", n)
            out = subprocess.run([sys.executable, "-m", "benchmarks.bench_build", "--child-serve", str(root), "--repeat", str(repeat)], check=True, env=env, cwd=REPO, capture_output=True, text=True)
            sv = json.loads(out.stdout.strip().splitlines()[-1])
            kinds = ", ".join(f"{kind} {min(sv[kind]):.2f} s wall, {sv['cpu'][kind]:.2f} s CPU ({sv['rebuilt'][kind]} of {sv['pages']} pages)" for kind in sv["rebuilt"])
            print(f"N={n}: serve rebuild {kinds} | first build {sv['initial']:.2f} s | full rebuild (plain mkdocs serve) {sv['full_rebuild']:.2f} s")
            print(json.dumps({"n": n, **sv}))
    print(json.dumps(machine()))


def compile_tool() -> None:
    """Write glossary_tool's bytecode before anything is timed.

    An installed package has it (pip compiles on install), and so does MkDocs in the venv; a
    checkout run with PYTHONDONTWRITEBYTECODE=1 has none, and each timed child would compile
    glossary_tool's ~75 modules again: about 0.2 s of CPU that no user pays, charged to ours
    and not to bare (measured on the third-party corpus: 0.59 -> 0.37 s to import them)."""
    compileall.compile_dir(REPO / "glossary_tool", quiet=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[80, 1000, 5000], help="numbers of generated terms; 0 is the real glossary")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repeat-large", type=int, default=1, help="repeats for sizes above 1,000 (a 5,000-term build takes minutes)")
    parser.add_argument("--corpus", metavar="third-party:PATH", help="instead of --sizes, a checkout of modal-labs/gpu-glossary converted to our format (benchmarks/third_party.py)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--no-serve", action="store_true", help="skip the serve rebuild timings")
    parser.add_argument("--serve-only", action="store_true", help="only the serve rebuild timings (generated sizes): wall and in-process CPU per edit")
    parser.add_argument("--child-twin", nargs=2, type=Path, metavar=("ROOT", "TWIN"), help=argparse.SUPPRESS)
    parser.add_argument("--child-serve", type=Path, metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_twin:
        return child_twin(*args.child_twin)
    if args.child_serve:
        return child_serve(args.child_serve, args.repeat)
    compile_tool()
    if args.serve_only:
        return serve_only(args.sizes, args.repeat)
    results = {"machine": machine(), "command": " ".join([Path(sys.executable).name, "-m", "benchmarks.bench_build", *sys.argv[1:]]), "sizes": []}
    source = None
    if args.corpus is not None:
        kind, _, path = args.corpus.partition(":")
        if kind != "third-party" or not path:
            parser.error("--corpus takes third-party:PATH (a checkout of modal-labs/gpu-glossary)")
        source, args.sizes = Path(path).resolve(), [0]
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        for n in args.sizes:
            r = measure(n, args.repeat if n <= 1000 else args.repeat_large, Path(tmp), serve=not args.no_serve, source=source)
            results["sizes"].append(r)
            line = (
                f"N={r['n']} ({r['corpus']}): check cold {r['check']['seconds']:.2f} s / {r['check']['cpu_seconds']:.2f} s CPU, warm {r['check_warm']['seconds']:.2f} s / {r['check_warm']['cpu_seconds']:.2f} s CPU "
                f"| build {r['build']['seconds']:.2f} s, {r['build']['cpu_seconds']:.2f} s CPU ({r['build']['peak_mib']:.0f} MiB, {r['per_term_ms']:.1f} ms/term) "
                f"| bare MkDocs {r['bare']['seconds']:.2f} s, {r['bare']['cpu_seconds']:.2f} s CPU ({r['bare']['peak_mib']:.0f} MiB) | ours/bare {r['ratio']:.2f}x wall, {r['cpu_ratio']:.2f}x CPU (median of {len(r['pair_ratios'])} pairs: {', '.join(f'{x:.2f}' for x in r['pair_ratios'])})"
                f" | after a one-sentence edit {r['build_edit']['seconds']:.2f} s, {r['build_edit']['cpu_seconds']:.2f} s CPU, bare {r['bare_edit']['seconds']:.2f} s, {r['bare_edit']['cpu_seconds']:.2f} s CPU:"
                f" {r['edit_ratio']:.2f}x wall, {r['edit_cpu_ratio']:.2f}x CPU"
            )
            line += " | load (1/5/15 min) before {:.2f} {:.2f} {:.2f}, after {:.2f} {:.2f} {:.2f}".format(*r["load"]["before"], *r["load"]["after"])
            if "serve" in r:
                sv = r["serve"]
                line += " | serve rebuild " + ", ".join(f"{kind} {sv[kind]:.2f} s, {sv['cpu'][kind]:.2f} s CPU ({sv['rebuilt_pages'][kind]} of {sv['pages']} pages)" for kind in sv["rebuilt_pages"])
                line += f" (full rebuild {sv['full_rebuild']:.2f} s)"
            print(line, flush=True)
    if len(results["sizes"]) >= 2:
        small, large = results["sizes"][0], results["sizes"][-1]
        results["per_term_growth"] = large["per_term_ms"] / small["per_term_ms"]
        print(f"per-term time N={large['n']} / N={small['n']}: {results['per_term_growth']:.2f}x")
    print(json.dumps(results["machine"]))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
