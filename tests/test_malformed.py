"""Broken inputs, through the real command line: each yields its exact diagnostic and nothing worse.

For every case the glossary (three good terms) gets one broken term, diagram, snippet or
reading-order file, and two processes run on it side by side: ``glossary check`` and
``build --strict --out SITE`` where SITE holds a previous good build (each a fresh fork of
one Python that imported the command line once: see ``FORK_SERVER``). Both must exit 1 with
the expected ``path:line:col: error: ... [code]`` line, print no traceback, and leave SITE
byte-for-byte as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from glossary_tool.cli import main
from tests.conftest import REPO, TRIO_TOC, term_text, trio, with_site_config, write_glossary

W = "glossary/device-software/warp.md"
BODY = "A [[thread]] group on an [[streaming-multiprocessor]].\n"
# A good warp.md has 6 front matter lines, so its body starts on file line 7 with BODY.
SOURCES = "sources:\n  - {title: T, url: 'https://x.org'}\n---\n"
DIAGRAM_OK = "title: T\ndescription: A thing.\nboxes:\n  - term: warp\n"
LINE_RE = re.compile(r"^[^\s:][^:]*:\d+:\d+: (error|warning): .+ \[[a-z][a-z0-9-]*\]$")


def warp(extra_fm: str = "", body: str = BODY) -> str:
    return "---\ntitle: Warp\nsummary: One sentence.\n" + extra_fm + SOURCES + body


def uses(name: str) -> dict[str, str]:
    return {W: warp(f"diagrams: [{name}]\n")}


@dataclass(frozen=True)
class Case:
    id: str
    files: dict[str, str | bytes]
    code: str
    path: str
    line: int
    col: int | None = None
    needle: str = ""
    toc: str | None = None
    #: "term" (a symlinked term file) or "diagram": make a symlink to a file outside the repo
    symlink: str | None = None
    #: text that must not appear in any output (e.g. the content of a file outside the repo)
    secret: str | None = None
    extra: dict = field(default_factory=dict)


CASES = [
    # --- front matter: YAML syntax, types, keys ---
    # reported where the '[' opens, with where the parser gave up as a note
    Case("yaml-unclosed-bracket", {W: "---\ntitle: Warp\nsummary: [unclosed\n" + SOURCES + BODY}, "yaml-syntax", W, 3, 10, "that starts here (note: the parser stopped at line 4, column 8)"),
    Case("yaml-tab-indentation", {W: "---\ntitle: Warp\nsummary: One sentence.\nsources:\n\t- {title: T, url: 'https://x.org'}\n---\n" + BODY}, "yaml-syntax", W, 5, 1, "cannot start any token"),
    Case("yaml-python-tag", {W: warp("aliases: !!python/object/apply:os.system ['echo pwned']\n")}, "yaml-syntax", W, 4, 10, "could not determine a constructor"),
    Case("yaml-alias-bomb", {W: warp("aliases: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\nequivalents: {amd: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]}\n")}, "field-invalid", W, 5, 20, "'equivalents'"),
    Case("yaml-nested-500-deep", {W: warp("aliases: " + "[" * 500 + "]" * 500 + "\n")}, "field-invalid", W, 4, 11, "'aliases' must be a list of non-empty strings"),
    # libyaml (C) would overflow the C stack on this and kill the process with SIGSEGV
    Case("yaml-nested-100000-deep", {W: warp("aliases: " + "[" * 100_000 + "]" * 100_000 + "\n")}, "yaml-syntax", W, 2, 1, "nested too deeply"),
    Case("yaml-block-nested-100000-deep", {W: warp("aliases:\n" + "- " * 100_000 + "x\n")}, "yaml-syntax", W, 2, 1, "nested too deeply"),
    Case("title-is-a-list", {W: "---\ntitle: [a, b]\nsummary: One sentence.\n" + SOURCES + BODY}, "field-invalid", W, 2, 8, "'title' must be a non-empty string"),
    Case("summary-is-a-number", {W: "---\ntitle: Warp\nsummary: 42\n" + SOURCES + BODY}, "field-invalid", W, 3, 10, "'summary' must be a non-empty string"),
    Case("sources-is-a-string", {W: "---\ntitle: Warp\nsummary: One sentence.\nsources: https://x.org\n---\n" + BODY}, "field-invalid", W, 4, 10, "non-empty list"),
    Case("source-without-url", {W: "---\ntitle: Warp\nsummary: One sentence.\nsources:\n  - {title: T}\n---\n" + BODY}, "field-invalid", W, 5, 5, "sources[1].url"),  # the list item, not 'sources:'
    Case("source-javascript-url", {W: "---\ntitle: Warp\nsummary: One sentence.\nsources:\n  - {title: T, url: 'javascript:alert(1)'}\n---\n" + BODY}, "field-invalid", W, 5, 21, "http(s) URL"),
    Case("unknown-key-typo", {W: warp("abbrevation: W\n")}, "field-unknown", W, 4, 1, "did you mean 'abbreviation'?"),
    Case("unknown-source-key-typo", {W: "---\ntitle: Warp\nsummary: One sentence.\nsources:\n  - {title: T, uri: 'https://x.org'}\n---\n" + BODY}, "field-unknown", W, 5, 16, "did you mean 'url'?"),
    Case("duplicate-key", {W: warp("summary: Again.\n")}, "field-duplicate", W, 4, 1, "first on line 3"),
    Case("no-front-matter", {W: BODY}, "frontmatter-missing", W, 1, 1),
    Case("unterminated-front-matter", {W: "---\ntitle: Warp\n" + BODY}, "frontmatter-unterminated", W, 1, 1),
    # --- the file itself ---
    Case("empty-file", {W: ""}, "file-empty", W, 1, 1),
    Case("whitespace-only", {W: " \n\t\n"}, "file-empty", W, 1, 1),
    Case("huge-file", {W: warp(body=BODY + "word " * 250_000)}, "file-too-large", W, 1, 1, "at most 1,000,000"),
    Case("invalid-utf8", {W: warp(body=BODY).encode() + b"caf\xe9\n"}, "file-encoding", W, 8, 4, "byte 0xe9"),
    Case("nul-byte", {W: warp(body=BODY + "a\x00b\n").encode()}, "file-binary", W, 8, 1),
    Case("bom-keeps-line-numbers", {W: "\ufeff" + warp(body=BODY + "See [[wrap]].\n")}, "xref-unknown", W, 8, 5, "did you mean 'warp'?"),
    Case("crlf-keeps-line-numbers", {W: warp(body=BODY + "\nSee [[wrap]].\n").replace("\n", "\r\n")}, "xref-unknown", W, 9, 5),
    Case("cr-only-keeps-line-numbers", {W: warp(body=BODY + "\nSee [[wrap]].\n").replace("\n", "\r")}, "xref-unknown", W, 9, 5),
    Case("tabs-in-body", {W: warp(body=BODY + "\n\tindented code [[wrap]]\n\nSee\t[[wrap]].\n")}, "xref-unknown", W, 11, 5),
    Case("symlink-outside-repo", {}, "symlink-outside", "glossary/device-software/outside.md", 1, 1, symlink="term", secret="Outside secret body"),
    Case("unknown-section-folder", {"glossary/gpu-stuff/warp3.md": term_text("Warp Three", BODY)}, "section-unknown", "glossary/gpu-stuff", 0, 0),
    Case("slug-with-dot-dot", {"glossary/device-software/x..y.md": term_text("Dots", BODY)}, "slug-invalid", "glossary/device-software/x..y.md", 1, 1),
    Case("slug-upper-case", {"glossary/device-software/Warp2.md": term_text("Warp Two", BODY)}, "slug-invalid", "glossary/device-software/Warp2.md", 1, 1),
    # --- the body ---
    Case("unterminated-fence", {W: warp(body=BODY + "\n```cuda\nint main() {}\n")}, "unterminated-fence", W, 9, 1),
    Case("unterminated-tilde-fence", {W: warp(body=BODY + "\n~~~~\ncode\n~~~\n")}, "unterminated-fence", W, 9, 1),
    Case("broken-xref", {W: warp(body=BODY + "See [[wrap]].\n")}, "xref-unknown", W, 8, 5, "did you mean 'warp'?"),
    Case("xref-to-missing-anchor", {W: warp(body=BODY + "See [[thread#nowhere|x]].\n")}, "xref-anchor", W, 8, 5),
    Case("empty-xref", {W: warp(body=BODY + "See [[ ]].\n")}, "xref-empty", W, 8, 5),
    Case("duplicate-title", {"glossary/device-software/warp-two.md": term_text("Warp", BODY)}, "duplicate-title", W, 2, 1),
    Case("duplicate-slug-across-sections", {"glossary/performance/warp.md": term_text("Warp Two", BODY)}, "duplicate-slug", "glossary/performance/warp.md", 1, 1),
    Case("deeply-nested-lists", {W: warp(body=BODY + "".join("  " * i + "- x\n" for i in range(400)) + "\nSee [[wrap]].\n")}, "markdown-too-deep", W, 17, 1),
    Case("deeply-nested-quotes", {W: warp(body=BODY + ">" * 100_000 + " x\n\nSee [[wrap]].\n")}, "markdown-too-deep", W, 8, 1),
    Case("fifty-thousand-brackets", {W: warp(body=BODY + "[" * 50_000 + "\n\nSee [[wrap]].\n")}, "xref-unknown", W, 10, 5),
    Case("twenty-thousand-xrefs-on-a-line", {W: warp(body=BODY + "[[thread]] " * 20_000 + "\n\nSee [[wrap]].\n")}, "xref-unknown", W, 10, 5),
    Case("900k-character-line", {W: warp(body=BODY + "x" * 900_000 + " [[wrap]]\n")}, "xref-unknown", W, 8, 900_002),
    # --- snippets ---
    Case("snippet-name-path-traversal", {W: warp(body=BODY + '\n```cuda verify name="../../etc/passwd"\nint main() {}\n```\n')}, "snippet-option", W, 9, 1, 'name="../../etc/passwd" is invalid'),
    Case("snippet-flags-shell-injection", {W: warp(body=BODY + '\n```cuda verify name="x" flags="-O3; rm -rf /"\nint main() {}\n```\n')}, "snippet-option", W, 9, 1, "no shell characters"),
    Case("snippet-option-typo", {W: warp(body=BODY + '\n```cuda verify nmae="x"\nint main() {}\n```\n')}, "snippet-option", W, 9, 1, "did you mean 'name'?"),
    Case("snippet-unknown-language", {W: warp(body=BODY + '\n```rust verify name="r"\nfn main() {}\n```\n')}, "snippet-language", W, 9, 1),
    # --- reading order ---
    Case("toc-path-traversal", {}, "toc-unknown", "glossary/toc.yml", 6, 1, "../../etc/passwd", toc="device-hardware:\n  - streaming-multiprocessor\ndevice-software:\n  - warp\n  - thread\n  - ../../etc/passwd\n"),
    Case("toc-bad-yaml", {}, "yaml-syntax", "glossary/toc.yml", 2, 1, toc="device-hardware: [streaming-multiprocessor\n"),
    Case("toc-nested-100000-deep", {}, "yaml-syntax", "glossary/toc.yml", 1, 1, "nested too deeply", toc="device-hardware: " + "[" * 100_000 + "]" * 100_000 + "\n"),
    Case("section-index-bad-yaml", {"glossary/device-software/index.md": "---\ntitle: [x\n---\nbody\n"}, "yaml-syntax", "glossary/device-software/index.md", 2, 8),
    # --- diagrams ---
    Case("diagram-bad-yaml", {"diagrams/bad.yml": "title: [x\n", **uses("bad")}, "diagram-syntax", "diagrams/bad.yml", 2, 1),
    Case("diagram-unknown-key-typo", {"diagrams/typo.yml": DIAGRAM_OK + "arows: []\n", **uses("typo")}, "diagram-invalid", "diagrams/typo.yml", 5, 1, "did you mean 'arrows'?"),
    Case("diagram-unknown-term", {"diagrams/term.yml": "title: T\ndescription: A thing.\nboxes:\n  - term: wrap\n", **uses("term")}, "diagram-unknown-term", "diagrams/term.yml", 4, 1, "did you mean 'warp'?"),
    Case("diagram-dangling-arrow", {"diagrams/arrow.yml": DIAGRAM_OK + "arrows:\n  - {from: a, to: b}\n", **uses("arrow")}, "diagram-id", "diagrams/arrow.yml", 6, 12),
    Case("diagram-wrong-type", {"diagrams/types.yml": "title: T\ndescription: A thing.\nboxes: 7\n", **uses("types")}, "diagram-invalid", "diagrams/types.yml", 3, 8, "must be a list"),
    Case("diagram-unknown-name", uses("nonexistent"), "diagram-unknown", W, 4, 1),
    Case("diagram-name-path-traversal", uses("../../etc/passwd"), "diagram-unknown", W, 4, 1),
    Case("diagram-invalid-utf8", {"diagrams/enc.yml": b"title: caf\xe9\n", **uses("enc")}, "diagram-syntax", "diagrams/enc.yml", 1, 1),
    Case("diagram-nul-byte", {"diagrams/nul.yml": b"title: T\x00\n", **uses("nul")}, "diagram-syntax", "diagrams/nul.yml", 1, 1),
    Case("diagram-huge-repeat", {"diagrams/rep.yml": "title: T\ndescription: A thing.\nboxes:\n  - {label: x, repeat: 100000000}\n", **uses("rep")}, "diagram-invalid", "diagrams/rep.yml", 4, 24),
    Case(
        "diagram-alias-bomb",
        {
            "diagrams/lol.yml": "title: T\ndescription: A thing.\nx0: &a0 [" + ", ".join(["{label: x}"] * 8) + "]\n" + "".join(f"x{i}: &a{i} [" + ", ".join([f"{{boxes: *a{i - 1}}}"] * 8) + "]\n" for i in range(1, 9)) + "boxes: *a8\n",
            **uses("lol"),
        },
        "diagram-invalid", "diagrams/lol.yml", 3, 10, "at most 5000 boxes",
    ),
    Case("diagram-self-referencing-alias", {"diagrams/loop.yml": "title: T\ndescription: A thing.\nboxes: &a0\n  - {label: x}\n  - {label: y, boxes: *a0}\n", **uses("loop")}, "diagram-invalid", "diagrams/loop.yml", 3, 8, "at most 32 levels"),
    Case("diagram-yaml-100000-deep", {"diagrams/abyss.yml": "title: T\ndescription: A thing.\nboxes: " + "[" * 100_000 + "]" * 100_000 + "\n", **uses("abyss")}, "diagram-syntax", "diagrams/abyss.yml", 1, 1, "nested too deeply"),
    Case("diagram-400-levels-deep", {"diagrams/deep.yml": "title: T\ndescription: A thing.\nboxes:\n" + "".join("  " * (i + 1) + "- boxes:\n" for i in range(400)), **uses("deep")}, "diagram-invalid", "diagrams/deep.yml", 36, None, "at most 32 levels"),
    Case("diagram-symlink-outside-repo", uses("leak"), "symlink-outside", "diagrams/leak.yml", 1, 1, symlink="diagram", secret="hunter2"),
]


def _base_repo(root: Path) -> Path:
    return with_site_config(write_glossary(root, trio(), TRIO_TOC))


def _tree_digest(path: Path) -> str:
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(file.relative_to(path).as_posix().encode() + b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def previous_site(tmp_path_factory) -> Path:
    """A good build, which every failing build below must leave exactly as it is."""
    root = _base_repo(tmp_path_factory.mktemp("good") / "repo")
    site = root / "site"
    assert main(["--root", str(root), "build", "--strict", "--out", str(site)]) == 0
    return site


def _make(case: Case, root: Path) -> Path:
    _base_repo(root)
    for rel, text in case.files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_bytes(text.encode("utf-8"))  # no newline translation: CR and CRLF stay as written
    if case.toc is not None:
        (root / "glossary/toc.yml").write_text(case.toc, encoding="utf-8")
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    if case.symlink == "term":
        target = outside / "outside.md"
        target.write_text(term_text("Outside", BODY + case.secret + "\n"), encoding="utf-8")
        os.symlink(target, root / case.path)
    elif case.symlink == "diagram":
        target = outside / "secret.yml"
        target.write_text(f"password: {case.secret}\n", encoding="utf-8")
        (root / "diagrams").mkdir(exist_ok=True)
        os.symlink(target, root / case.path)
    return root


#: A Python that has imported the command line once, then forks a fresh child per command:
#: each child runs ``glossary_tool.cli.main(argv)`` as ``python -m glossary_tool`` does, with
#: its stdout and stderr in files, an uncaught exception printed as a traceback, and its exit
#: status (negative: the signal that killed it) sent back. It saves the half second of imports
#: (networkx, most of it) that each of the 130 commands below would spend.
FORK_SERVER = """
import json, os, sys, traceback
import glossary_tool.cli, glossary_tool.pipeline
for line in sys.stdin:
    children = []
    for argv, out, err in json.loads(line):
        sys.stdout.flush(); sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 1)
            os.dup2(os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
            try:
                code = glossary_tool.cli.main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                traceback.print_exc()
                code = 1
            sys.stdout.flush(); sys.stderr.flush()
            os._exit(code or 0)
        children.append(pid)
    codes = []
    for pid in children:
        _, status = os.waitpid(pid, 0)
        codes.append(os.waitstatus_to_exitcode(status))
    print(json.dumps(codes), flush=True)
"""


@pytest.fixture(scope="module")
def commands():
    """Run glossary commands side by side: ``commands(tmp, argv, ...)`` -> [(status, stdout, stderr)]."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONDONTWRITEBYTECODE": "1"}
    server = subprocess.Popen([sys.executable, "-c", FORK_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)

    def run(tmp: Path, *argvs: list[str]) -> list[tuple[int, str, str]]:
        files = [(list(argv), str(tmp / f"out-{i}.txt"), str(tmp / f"err-{i}.txt")) for i, argv in enumerate(argvs)]
        server.stdin.write(json.dumps(files) + "\n")
        server.stdin.flush()
        ready, _, _ = select.select([server.stdout], [], [], 240)
        assert ready, "the commands did not finish in 240 s"
        codes = json.loads(server.stdout.readline())
        return [(code, Path(out).read_text(encoding="utf-8"), Path(err).read_text(encoding="utf-8")) for code, (_, out, err) in zip(codes, files, strict=True)]

    try:
        yield run
    finally:
        server.stdin.close()
        server.wait(timeout=60)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_broken_input_gives_its_diagnostic_and_leaves_the_site(case: Case, tmp_path: Path, previous_site: Path, commands):
    root = _make(case, tmp_path / "repo")
    before = _tree_digest(previous_site)
    # check and build run side by side: they only read the sources
    (check_status, check_out, check_err), (build_status, build_out, build_err) = commands(
        tmp_path, ["--root", str(root), "check"], ["--root", str(root), "build", "--strict", "--out", str(previous_site)]
    )

    col = r"\d+" if case.col is None else str(case.col)
    wanted = re.compile(rf"^{re.escape(case.path)}:{case.line}:{col}: error: .*{re.escape(case.needle)}.* \[{re.escape(case.code)}\]$", re.M)
    assert check_status == 1, f"check exit {check_status}\n{check_out}\n{check_err}"
    assert "Traceback" not in check_err and "Traceback" not in check_out, check_err
    assert wanted.search(check_out), f"expected {case.code} at {case.path}:{case.line}:{case.col} in:\n{check_out}"
    for line in check_out.splitlines():
        assert LINE_RE.match(line), f"not a diagnostic line: {line!r}"
    assert re.search(r"check: \d+ terms, [1-9]\d* error\(s\)", check_err), check_err

    assert build_status == 1, f"build exit {build_status}\n{build_out}\n{build_err}"
    assert "Traceback" not in build_err and "Traceback" not in build_out, build_err
    assert wanted.search(build_err), f"build --strict did not report {case.code}:\n{build_err}"
    assert "site not built" in build_err
    assert _tree_digest(previous_site) == before, "a failed build changed the previous site"

    if case.secret:
        for text in (check_out, check_err, build_out, build_err):
            assert case.secret not in text, "content of a file outside the repository leaked into the output"


def test_there_are_at_least_25_cases_and_ids_are_unique():
    assert len(CASES) >= 25
    assert len({c.id for c in CASES}) == len(CASES)
    assert sum(c.path.startswith("diagrams/") for c in CASES) >= 5


def test_previous_site_is_a_real_build(previous_site: Path):
    assert (previous_site / "device-software/warp/index.html").is_file()
    assert not list(previous_site.parent.glob(".site.build-*")), "no staging folder left behind"


# --- content safety: what could run script in a reader's browser is refused -------------------
# In-process (one load per case): the subprocess path is proven above. The extra text starts on
# line 9 of warp.md. Each case was checked against Python-Markdown, which renders the site: all
# of these reach the page as written, and a browser decodes the entities in attribute values.

SAFETY_CASES = [
    ("script", "<script>alert(1)</script>\n", "unsafe-html", 9),
    ("script-upper-case", "<SCRIPT>alert(1)</SCRIPT>\n", "unsafe-html", 9),
    ("script-inline-second-line", "Text\nand <script>alert(1)</script> more.\n", "unsafe-html", 10),
    ("iframe", "<iframe src='https://example.org'></iframe>\n", "unsafe-html", 9),
    ("object", "<object data='x.swf'></object>\n", "unsafe-html", 9),
    ("embed-inline", "Text <embed src='x'> more.\n", "unsafe-html", 9),
    ("meta-refresh", '<meta http-equiv="refresh" content="0;url=https://evil.example">\n', "unsafe-html", 9),
    ("base-href", '<base href="https://evil.example/">\n', "unsafe-html", 9),
    ("onerror", "<img src=x onerror=alert(1)>\n", "unsafe-html", 9),
    ("onclick-upper-case", "<div ONCLICK='alert(1)'>x</div>\n", "unsafe-html", 9),
    ("onerror-after-slash", "<img/src=x/onerror=alert(1)>\n", "unsafe-html", 9),
    ("onerror-after-quote", 'Text <img src="x"onerror="alert(1)"> more.\n', "unsafe-html", 9),
    ("attr-list-onclick", 'A paragraph.\n{: onclick="alert(1)" }\n', "unsafe-html", 10),
    ("attr-list-on-heading", "## Title {: onmouseover=alert(1) }\n", "unsafe-html", 9),
    ("html-href-javascript", '<a href="javascript:alert(1)">x</a>\n', "unsafe-url", 9),
    ("html-href-hex-entity", '<a href="jav&#x61;script:alert(1)">x</a>\n', "unsafe-url", 9),
    ("html-href-decimal-entity", '<a href="&#106;avascript:alert(1)">x</a>\n', "unsafe-url", 9),
    ("html-href-colon-entity", '<a href="javascript&colon;alert(1)">x</a>\n', "unsafe-url", 9),
    ("html-href-tab-inside", '<a href="java\tscript:alert(1)">x</a>\n', "unsafe-url", 9),
    ("html-img-data", '<img src="data:image/svg+xml;base64,PHN2Zz4=">\n', "unsafe-url", 9),
    ("svg-xlink-href", '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>\n', "unsafe-url", 9),
    ("form-action", '<form action="javascript:alert(1)"><button>x</button></form>\n', "unsafe-url", 9),
    ("md-link-javascript", "[click](javascript:alert(1))\n", "unsafe-url", 9),
    ("md-link-mixed-case", "[click](JavaScript:alert(1))\n", "unsafe-url", 9),
    ("md-link-entity", "[click](jav&#x61;script:alert(1))\n", "unsafe-url", 9),
    ("md-link-colon-entity", "[click](javascript&colon;alert(1))\n", "unsafe-url", 9),
    ("md-link-angle-brackets", "[click](<javascript:alert(1)>)\n", "unsafe-url", 9),
    ("md-link-vbscript", "[x](vbscript:msgbox(1))\n", "unsafe-url", 9),
    ("md-image-data", "![x](data:image/svg+xml;base64,PHN2Zz4=)\n", "unsafe-url", 9),
    ("autolink-javascript", "See <javascript:alert(1)> now.\n", "unsafe-url", 9),
    ("reference-javascript", "[click][1]\n\n[1]: javascript:alert(1)\n", "unsafe-url", 11),
    ("reference-entity", "[click][1]\n\n[1]: jav&#x61;script:alert(1)\n", "unsafe-url", 11),
    ("reference-angle-and-title", '[click][1]\n\n[1]: <javascript:alert(1)> "t"\n', "unsafe-url", 11),
    ("reference-data", "![x][1]\n\n[1]: data:text/html,hello\n", "unsafe-url", 11),
    ("attr-list-href", '[x](https://ok.org){: href="javascript:alert(1)" }\n', "unsafe-url", 9),
    ("md-in-html-block", '<div markdown="1">\n[x](javascript:alert(1))\n</div>\n', "unsafe-url", 10),
]

SAFE_TEXT = [
    ("code-span", "`<script>`, `[x](javascript:y)` and `<img onerror=f()>` are code.\n"),
    ("code-fence", '```html\n<script>alert(1)</script>\n<a href="javascript:x" onclick="f()">\n```\n'),
    ("indented-code", "Example:\n\n    <script>alert(1)</script>\n"),
    ("http-links", "[docs](https://docs.nvidia.com/) and <https://example.org/> and [r][1].\n\n[1]: https://example.org/r\n"),
    ("attr-list-anchor", "## Heading {#custom-id .wide }\n"),
    ("words-like-handlers", "Turn it on=off? The <b>online</b> data: see upon=x.\n"),
]


def _load_with(make_glossary, extra: str):
    from glossary_tool.pipeline import load_project

    return load_project(make_glossary(trio({"warp": extra})))


@pytest.mark.parametrize(("extra", "code", "line"), [c[1:] for c in SAFETY_CASES], ids=[c[0] for c in SAFETY_CASES])
def test_unsafe_content_is_refused(make_glossary, extra, code, line):
    found = [(d.code, d.path, d.line) for d in _load_with(make_glossary, extra).diagnostics if d.code.startswith("unsafe-")]
    assert (code, W, line) in found, found


@pytest.mark.parametrize("extra", [c[1] for c in SAFE_TEXT], ids=[c[0] for c in SAFE_TEXT])
def test_safe_text_is_not_refused(make_glossary, extra):
    found = [d.format() for d in _load_with(make_glossary, extra).diagnostics if d.code.startswith("unsafe-")]
    assert not found


def test_refused_content_never_reaches_a_page(make_glossary, tmp_path):
    """End to end: one unsafe term, build --strict refuses; the site has none of it."""
    root = make_glossary(trio({"warp": "[x](jav&#x61;script:alert(1))\n"}))
    with_site_config(root)
    assert main(["--root", str(root), "build", "--strict", "--out", str(tmp_path / "site")]) == 1
    assert not (tmp_path / "site").exists()


def test_markup_in_plain_text_fields_is_shown_as_text(make_glossary, tmp_path):
    """Titles, abbreviations, aliases, equivalents and summaries are text, on every page and in nav.

    Before the fix, MkDocs' nav and Material's header printed them raw, and Python-Markdown has
    no backslash escape for '<': WGSL's ``var<uniform>`` lost its ``<uniform>`` on the page.
    """
    files = trio()
    files["device-software/thread.md"] = files["device-software/thread.md"].replace("title: Thread", 'title: "Thread <img src=x onerror=alert(1)>"').replace(
        "summary: The Thread term, used by the tests.", "summary: 'The x\"><img src=x onerror=alert(5)> term.'"
    )
    files["device-software/warp.md"] = files["device-software/warp.md"].replace("---\nA [[thread]]", "equivalents:\n  amd: '<img src=x onerror=alert(2)>'\n  vulkan: 'var<uniform> & AT&T'\n---\nA [[thread]]")
    files["device-hardware/streaming-multiprocessor.md"] = files["device-hardware/streaming-multiprocessor.md"].replace("abbreviation: SM", 'abbreviation: "SM<svg onload=alert(3)>"').replace(
        "aliases: [multiprocessor]", "aliases: ['<img src=y onerror=alert(4)>']"
    )
    root = make_glossary(files)
    with_site_config(root)
    site = tmp_path / "site"
    assert main(["--root", str(root), "build", "--out", str(site)]) == 0
    payload = re.compile(r"<img src=[xy] onerror=alert\(\d\)>|<svg onload=alert\(3\)>|<uniform>")
    for page in [*site.rglob("*.html"), site / "search/search_index.json"]:
        text = page.read_text(encoding="utf-8")
        head_end = text.find("</head>")
        for match in payload.finditer(text):
            # only allowed as text of the document's own <title> (RCDATA: the browser parses no tags there)
            in_title = match.start() < head_end and text.rfind("<title>", 0, match.start()) > text.rfind("</title>", 0, match.start())
            assert in_title, f"{page.relative_to(site)}: raw {match.group(0)!r}"
    warp = (site / "device-software/warp/index.html").read_text(encoding="utf-8")
    assert "var&lt;uniform&gt; &amp; AT&amp;T" in warp
    thread = (site / "device-software/thread/index.html").read_text(encoding="utf-8")
    assert 'content="The x&quot;&gt;&lt;img src=x onerror=alert(5)&gt; term."' in thread
