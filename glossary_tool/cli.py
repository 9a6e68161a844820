"""The ``glossary`` command line: check, build, serve, verify, new, stats, links, mcp.

Every command turns problems into diagnostics and an exit status; none lets a traceback
reach the user. The site generator is imported only by ``build`` and ``serve`` (through
``glossary_tool.adapters``), so ``check`` and ``verify`` run on machines without it (the GPU
machine has none).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

from glossary_tool import __version__
from glossary_tool.adapters.site_config import SITE_CONFIG
from glossary_tool.diagnostics import GlossaryError, Severity, errors, render
from glossary_tool.model import SECTIONS


def _root(args: argparse.Namespace) -> Path:
    return Path(args.root).resolve()


def cmd_check(args: argparse.Namespace) -> int:
    from glossary_tool.load.cache import paused_gc
    from glossary_tool.pipeline import load_project, parse_processes

    scope = ""
    with paused_gc():  # a fifth of a cold check was the cycle collector walking live tokens
        if args.changed is not None:
            from glossary_tool.commands.changed import check_changed

            result = check_changed(_root(args), args.changed, check_records=not args.no_records)
            loaded, diagnostics = result.loaded, result.diagnostics
            scope = "" if result.everything else f"{len(result.reported_terms)} changed or affected of "
        else:
            loaded = load_project(_root(args), check_records=not args.no_records, processes=parse_processes())
            diagnostics = list(loaded.diagnostics)
    if args.errors_only:
        diagnostics = errors(diagnostics)
    text = render(diagnostics, args.format)
    if text:
        print(text)
    error_count = len(errors(set(diagnostics)))
    warnings = sum(d.severity is Severity.WARNING for d in set(diagnostics))
    if args.format == "text":
        terms = len(loaded.glossary.terms)
        print(f"check: {scope}{terms} terms, {error_count} error(s), {warnings} warning(s)", file=sys.stderr)
    return 1 if error_count else 0


def cmd_verify(args: argparse.Namespace) -> int:
    from glossary_tool.pipeline import load_project
    from glossary_tool.verify.engine import VerifyOptions, run_verify
    from glossary_tool.verify.exchange import ExchangeError, merge, pack

    if args.merge:
        records = Path(args.records).resolve() if args.records else _root(args) / "snippets"
        try:
            report = merge(Path(args.merge), records)
        except ExchangeError as exc:
            print(f"glossary verify: {exc}", file=sys.stderr)
            return 1
        print(report.line())
        return 0
    loaded = load_project(_root(args), check_records=False)
    blocking = [d for d in errors(loaded.diagnostics) if d.code.startswith(("snippet-", "unterminated", "file-", "yaml", "frontmatter"))]
    if blocking:
        print(render(blocking), file=sys.stderr)
        return 1
    if args.term and args.term not in loaded.glossary.terms:
        print(f"glossary verify: no term with slug '{args.term}'", file=sys.stderr)
        return 1
    records = Path(args.records).resolve() if args.records else loaded.project.records_dir
    options = VerifyOptions(
        term=args.term,
        force=args.force,
        jobs=args.jobs or os.cpu_count() or 1,
        timeout=args.timeout,
        sanitize=args.sanitize,
        compile_only=args.compile_only,
        multi_gpu=args.multi_gpu,
    )
    try:
        summary = run_verify(loaded.glossary.ordered_terms(), records, options)
    except KeyboardInterrupt:
        print("glossary verify: interrupted; records written so far are complete", file=sys.stderr)
        return 130
    for failure in summary.failures:
        print(f"FAILED {failure}", file=sys.stderr)
    print(summary.line())
    if args.pack:
        if summary.machine is None:
            print("glossary verify: --pack needs a GPU run; nothing packed", file=sys.stderr)
            return 1
        try:
            count = pack(records, summary.machine.key, Path(args.pack), summary.folders)
        except ExchangeError as exc:
            print(f"glossary verify: {exc}", file=sys.stderr)
            return 1
        print(f"pack: {count} record(s) of {summary.machine.gpu_name} ({summary.machine.key}) in {args.pack}")
    return 0 if summary.ok else 1


def cmd_build(args: argparse.Namespace) -> int:
    from glossary_tool.commands.build import build_site

    return build_site(_root(args), Path(args.out) if args.out else None, strict=args.strict, book=args.book)


def cmd_export(args: argparse.Namespace) -> int:
    import time

    from glossary_tool.emit.book import BookError, export_epub, export_pdf
    from glossary_tool.pipeline import load_project

    loaded = load_project(_root(args))
    found = errors(loaded.diagnostics)
    if found:
        print(render(found), file=sys.stderr)
        if args.strict:
            print(f"glossary export --strict: {len(found)} error(s); nothing written", file=sys.stderr)
            return 1
    out = Path(args.out) if args.out else _root(args) / "dist" / f"gpu-glossary.{args.format}"
    started = time.monotonic()
    try:
        path = export_epub(loaded, out) if args.format == "epub" else export_pdf(loaded, out)
    except BookError as exc:
        print(f"glossary export: {exc}", file=sys.stderr)
        return 1
    print(f"glossary export: {path} ({path.stat().st_size:,} bytes) in {time.monotonic() - started:.1f} s")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from glossary_tool.commands.build import serve_site

    return serve_site(_root(args), args.dev_addr)


def cmd_new(args: argparse.Namespace) -> int:
    from glossary_tool.commands.new import new_term

    return new_term(_root(args), args.title, args.section, args.abbr, args.slug, args.alias)


def cmd_stats(args: argparse.Namespace) -> int:
    from glossary_tool.commands.stats import format_stats
    from glossary_tool.pipeline import load_project

    loaded = load_project(_root(args), check_records=False)
    print(format_stats(loaded.glossary, loaded.graph, top=args.top))
    return 0


def cmd_links(args: argparse.Namespace) -> int:
    from glossary_tool.commands.linkcheck import run_links

    cache = Path(args.cache).resolve() if args.cache else None
    return run_links(_root(args), online=args.online, cache_path=cache, timeout=args.timeout, jobs=args.jobs, max_age_days=args.max_age)


def cmd_mcp(args: argparse.Namespace) -> int:
    import time

    started = time.monotonic()
    try:
        from glossary_tool.adapters.mcp_server import parse_http, serve
    except ImportError as exc:
        print(f"glossary mcp: needs the mcp package ({exc}); install it with: pip install 'gpu-glossary[mcp]'", file=sys.stderr)
        return 1
    from glossary_tool.pipeline import load_project

    try:
        http = parse_http(args.http) if args.http else None
    except ValueError as exc:
        print(f"glossary mcp: {exc}", file=sys.stderr)
        return 1
    root = _root(args)
    loaded = load_project(root, check_records=False)
    error_count = len(errors(loaded.diagnostics))
    if not loaded.glossary.terms:  # nothing to serve: say why instead of answering "no term" forever
        print(render(errors(loaded.diagnostics)), file=sys.stderr)
        print(f"glossary mcp: no terms under {root / 'glossary'}; nothing to serve", file=sys.stderr)
        return 1
    where = f"http://{http[0]}:{http[1]}/mcp" if http else "stdio"
    # stdout is the protocol channel on stdio: everything for people goes to stderr
    print(f"glossary mcp: {len(loaded.glossary.terms)} terms loaded in {time.monotonic() - started:.2f} s, serving on {where}" + (f" ({error_count} check error(s): run glossary check)" if error_count else ""), file=sys.stderr)
    serve(loaded, args.site_url or loaded.project.site_url, http)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="glossary", description="Build, check and verify the GPU glossary.")
    parser.add_argument("--version", action="version", version=f"glossary {__version__}")
    parser.add_argument("--root", default=".", help=f"repository root holding glossary/, snippets/ and {SITE_CONFIG} (default: .)")
    sub = parser.add_subparsers(dest="command", required=True)

    check = sub.add_parser("check", help="report problems in term files as path:line:col diagnostics")
    check.add_argument("--format", choices=("text", "github"), default="text", help="github prints GitHub Actions annotations")
    check.add_argument("--changed", nargs="?", const="origin/main", default=None, metavar="REV", help="only files changed since the merge base with REV (default origin/main; HEAD for uncommitted work) and the terms linking to them")
    check.add_argument("--errors-only", action="store_true", help="hide warnings")
    check.add_argument("--no-records", action="store_true", help="skip snippet record checks")
    # only_memory_left: once `check` has returned, every output is written and closed and its
    # worker joined; what the interpreter's teardown would do is free memory (see run)
    check.set_defaults(func=cmd_check, only_memory_left=True)

    build = sub.add_parser("build", help="build the site (and with --book the EPUB and PDF)")
    build.add_argument("--strict", action="store_true", help="fail on any error diagnostic or site generator warning")
    build.add_argument("--out", help="output directory (default: site/)")
    build.add_argument("--book", action="store_true", help="also export the EPUB and PDF into dist/")
    build.set_defaults(func=cmd_build)

    serve = sub.add_parser("serve", help="preview the site with live reload")
    serve.add_argument("--dev-addr", default="127.0.0.1:8000", help="address to serve on (default 127.0.0.1:8000)")
    serve.set_defaults(func=cmd_serve)

    verify = sub.add_parser("verify", help="compile and run verify snippets, write records under snippets/")
    verify.add_argument("--term", help="only this term's snippets")
    verify.add_argument("--force", action="store_true", help="ignore cached records")
    verify.add_argument("--jobs", type=int, default=None, help="parallel compiles (default: CPU count)")
    verify.add_argument("--timeout", type=float, default=None, help="seconds per snippet run, overriding each snippet's own")
    verify.add_argument("--sanitize", action="store_true", help="run programs under compute-sanitizer memcheck")
    verify.add_argument("--compile-only", action="store_true", help="compile and disassemble, run nothing")
    verify.add_argument("--records", help="records directory (default: snippets/)")
    verify.add_argument("--multi-gpu", action="store_true", help="only snippets that need two GPUs or more (gpus=\"2\")")
    verify.add_argument("--pack", metavar="FILE.tgz", help="after the run, write this GPU's records (and the PTX/SASS) to FILE.tgz for `--merge`")
    verify.add_argument("--merge", metavar="FILE.tgz", help="file the records of a `--pack` tarball under snippets/ and exit; keeps other GPUs' records")
    verify.set_defaults(func=cmd_verify)

    export = sub.add_parser("export", help="write the glossary as a book: EPUB 3 or PDF")
    export.add_argument("format", choices=("epub", "pdf"))
    export.add_argument("--out", help="output file (default: dist/gpu-glossary.<format>)")
    export.add_argument("--strict", action="store_true", help="refuse to export while `glossary check` reports errors")
    export.set_defaults(func=cmd_export)

    new = sub.add_parser("new", help="create a term file from the template and add it to the reading order")
    new.add_argument("title", help='the term\'s title, e.g. "Thread Block Cluster"')
    new.add_argument("--section", required=True, help=", ".join(SECTIONS))
    new.add_argument("--abbr", help="abbreviation, e.g. SM")
    new.add_argument("--slug", help="file name without .md (default: from the title)")
    new.add_argument("--alias", action="append", default=[], metavar="NAME", help="another name [[...]] may use (repeatable)")
    new.set_defaults(func=cmd_new)

    stats = sub.add_parser("stats", help="terms, words and links per section; orphans; most-linked terms")
    stats.add_argument("--top", type=int, default=10, help="how many most-linked terms to list")
    stats.set_defaults(func=cmd_stats)

    mcp = sub.add_parser("mcp", help="serve the glossary to language models over the Model Context Protocol (stdio, or --http)")
    mcp.add_argument("--http", metavar="[HOST:]PORT", help="serve the streamable HTTP transport at http://HOST:PORT/mcp instead of stdio; HOST defaults to 127.0.0.1")
    mcp.add_argument("--site-url", help=f"base URL of the published site for links in answers (default: site_url of {SITE_CONFIG})")
    mcp.set_defaults(func=cmd_mcp)

    links = sub.add_parser("links", help="list external links (sources and bodies); --online checks them (not for CI)")
    links.add_argument("--online", action="store_true", help="fetch each distinct URL (HEAD, then GET) and report broken ones")
    links.add_argument("--cache", help="JSON file remembering good answers between runs")
    links.add_argument("--timeout", type=float, default=10.0, help="seconds per request (default 10)")
    links.add_argument("--jobs", type=int, default=8, help="requests in parallel (default 8)")
    links.add_argument("--max-age", type=float, default=7.0, metavar="DAYS", help="re-check cached good answers older than this (default 7)")
    links.set_defaults(func=cmd_links)
    return parser


def main(argv: list[str] | None = None) -> int:
    return _dispatch(build_parser().parse_args(argv))


def _dispatch(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except GlossaryError as exc:
        print(render(exc.diagnostics), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def run() -> NoReturn:
    """The program's entry (``python -m glossary_tool``, the ``glossary`` script): :func:`main`,
    then exit with its status.

    After `check` the interpreter's teardown only frees memory: the loaded glossary, the
    token streams kept per body and the load cache's entries, object by object, and a last
    full collection over them. That took 1.2 s of CPU after a cold 5,000-term check and
    0.4 s after a warm one (os.times at the end of main against /usr/bin/time, load 3), so
    there the process ends at once (os._exit) once its output is flushed (the parser marks
    the commands that allow it: ``only_memory_left``). Other commands,
    whose libraries may leave temporary folders or log handlers for exit time, end normally.
    """
    args = build_parser().parse_args()
    code = _dispatch(args)
    if getattr(args, "only_memory_left", False) and code in (0, 1):  # finished, not interrupted
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a closed pipe: let the normal exit report it
            raise SystemExit(code) from None
        os._exit(code)
    raise SystemExit(code)


if __name__ == "__main__":  # pragma: no cover
    run()
