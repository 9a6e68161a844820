"""One failing fixture per diagnostic code: the code, the path and the line are exact."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from glossary_tool.cli import main
from glossary_tool.diagnostics import Severity
from glossary_tool.pipeline import load_project
from glossary_tool.verify.records import Record, sha256
from tests.conftest import term_text, trio

WARP = "device-software/warp.md"


def diagnostics(root: Path):
    return load_project(root).diagnostics


def find(diags, code):
    return [d for d in diags if d.code == code]


def test_clean_trio_has_no_diagnostics(make_glossary):
    assert diagnostics(make_glossary(trio())) == ()


FM_CASES = [
    ("frontmatter-missing", "no front matter\n", 1),
    ("frontmatter-unterminated", "---\ntitle: Warp\n", 1),
    ("yaml-syntax", "---\ntitle: Warp\nsummary: [unclosed\nsources: []\n---\nbody\n", 3),  # where the '[' opens
    ("frontmatter-empty", "---\n---\nbody\n", 1),
    ("frontmatter-type", "---\n- a\n- b\n---\nbody\n", 2),
    ("field-duplicate", "---\ntitle: Warp\ntitle: Again\nsummary: One sentence.\nsources:\n  - {title: T, url: 'https://x.org'}\n---\n[[thread]] [[streaming-multiprocessor]]\n", 3),
    ("field-unknown", "---\ntitle: Warp\nsumary: typo.\nsummary: One sentence.\nsources:\n  - {title: T, url: 'https://x.org'}\n---\n[[thread]] [[streaming-multiprocessor]]\n", 3),
    ("field-missing", "---\ntitle: Warp\nsources:\n  - {title: T, url: 'https://x.org'}\n---\nbody\n", 1),
    ("field-invalid", "---\ntitle: Warp\nsummary: One sentence.\naliases: warp-alias\nsources:\n  - {title: T, url: 'https://x.org'}\n---\n[[thread]] [[streaming-multiprocessor]]\n", 4),
    ("summary-too-long", "---\ntitle: Warp\nsummary: " + "word " * 50 + "end.\nsources:\n  - {title: T, url: 'https://x.org'}\n---\n[[thread]] [[streaming-multiprocessor]]\n", 3),
    ("summary-not-sentence", "---\ntitle: Warp\nsummary: First sentence. Second sentence.\nsources:\n  - {title: T, url: 'https://x.org'}\n---\n[[thread]] [[streaming-multiprocessor]]\n", 3),
    ("summary-markup", "---\ntitle: Warp\nsummary: Links to [[thread]] here.\nsources:\n  - {title: T, url: 'https://x.org'}\n---\n[[thread]] [[streaming-multiprocessor]]\n", 3),
]


@pytest.mark.parametrize(("code", "text", "line"), FM_CASES, ids=[c[0] for c in FM_CASES])
def test_front_matter_diagnostics(make_glossary, code, text, line):
    files = trio()
    files[WARP] = text
    found = find(diagnostics(make_glossary(files)), code)
    assert found, f"no {code}"
    assert found[0].path == f"glossary/{WARP}"
    assert found[0].line == line
    assert found[0].severity is Severity.ERROR


def test_unknown_field_suggests_the_right_name(make_glossary):
    files = trio()
    files[WARP] = files[WARP].replace("summary:", "sumary:")
    (d,) = find(diagnostics(make_glossary(files)), "field-unknown")
    assert "did you mean 'summary'?" in d.message


BODY_CASES = [
    ("xref-unknown", "See [[wrap]].\n", 2, 5),
    ("xref-self", "Me: [[warp]].\n", 2, 5),
    ("xref-anchor", "See [[thread#nowhere|x]].\n", 2, 5),
    ("xref-empty", "Empty [[]] ref.\n", 2, 7),
    ("unterminated-fence", "```cuda\nint main() {}\n", 2, 1),
    ("unsafe-html", "<script>alert(1)</script>\n", 2, 1),
    ("unsafe-url", "[click](javascript:alert(1))\n", 2, 1),
    ("snippet-language", '```rust verify name="r"\nfn main() {}\n```\n', 2, 1),
    ("snippet-option", '```cuda verify nmae="x"\nint main() {}\n```\n', 2, 1),
    ("snippet-duplicate-name", '```cuda verify name="x"\nint main() {}\n```\n\n```cuda verify name="x"\nint main() { return 0; }\n```\n', 6, 1),
    ("snippet-unverified", '```cuda verify name="x"\nint main() {}\n```\n', 2, 1),
]


@pytest.mark.parametrize(("code", "extra", "body_line", "col"), BODY_CASES, ids=[c[0] for c in BODY_CASES])
def test_body_diagnostics(make_glossary, code, extra, body_line, col):
    root = make_glossary(trio({"warp": extra}))
    found = find(diagnostics(root), code)
    assert found, f"no {code} in {diagnostics(root)}"
    # the warp body starts on file line 8, after 7 lines of front matter and delimiters
    assert (found[0].path, found[0].line, found[0].col) == (f"glossary/{WARP}", 7 + body_line, col)


def test_unknown_xref_did_you_mean(make_glossary):
    (d,) = find(diagnostics(make_glossary(trio({"warp": "See [[thred]].\n"}))), "xref-unknown")
    assert "did you mean 'thread'" in d.message


def test_alias_and_abbreviation_resolve_case_insensitively(make_glossary):
    root = make_glossary(trio({"warp": "On an [[sm]] or a [[Multiprocessor]].\n"}))
    assert diagnostics(root) == ()


def test_ambiguous_name_and_xref(make_glossary):
    files = trio()
    files["device-hardware/special.md"] = term_text("Special", "Uses [[warp]] and [[thread]].\n", abbreviation="SM")
    files["device-software/warp.md"] = files["device-software/warp.md"].replace("A [[thread]]", "A [[thread]] on [[special]] or [[SM]]")
    root = make_glossary(files)
    diags = diagnostics(root)
    amb = {(d.path, d.line) for d in find(diags, "name-ambiguous")}
    assert amb == {("glossary/device-hardware/special.md", 3), ("glossary/device-hardware/streaming-multiprocessor.md", 3)}
    (xref,) = find(diags, "xref-ambiguous")
    assert xref.path == f"glossary/{WARP}" and "2 terms" in xref.message


def test_duplicate_slug_and_title(make_glossary):
    files = trio()
    files["performance/warp.md"] = term_text("Warp", "Links [[thread]] and [[streaming-multiprocessor]].\n")
    diags = diagnostics(make_glossary(files, toc={"device-software": ["warp", "thread"], "device-hardware": ["streaming-multiprocessor"]}))
    assert find(diags, "duplicate-slug")[0].path in ("glossary/performance/warp.md", "glossary/device-software/warp.md")


def test_duplicate_title(make_glossary):
    files = trio()
    files["device-software/warp-two.md"] = term_text("Warp", "Links [[thread]] and [[streaming-multiprocessor]].\n")
    (d,) = find(diagnostics(make_glossary(files)), "duplicate-title")
    assert (d.path, d.line) == ("glossary/device-software/warp.md", 2)


def test_reading_order_missing_duplicate_unknown_and_wrong_section(make_glossary):
    root = make_glossary(trio(), toc={"device-software": ["warp", "warp", "ghost"], "device-hardware": ["thread"]})
    diags = diagnostics(root)
    assert (find(diags, "toc-duplicate")[0].path, find(diags, "toc-duplicate")[0].line) == ("glossary/toc.yml", 3)
    assert find(diags, "toc-unknown")[0].line == 4
    assert find(diags, "toc-section")[0].line == 6
    (missing,) = find(diags, "toc-missing")
    assert missing.path == "glossary/device-hardware/streaming-multiprocessor.md"


def test_orphan_and_few_links_are_warnings(make_glossary):
    files = trio()
    files["performance/lonely.md"] = term_text("Lonely", "Only [[warp]].\n")
    diags = diagnostics(make_glossary(files))
    (orphan,) = find(diags, "orphan")
    (few,) = find(diags, "few-links")
    assert orphan.severity is few.severity is Severity.WARNING
    assert orphan.path == few.path == "glossary/performance/lonely.md"


def _write_record(root: Path, source: str, **changes) -> None:
    data = dict(section="device-software", term="warp", name="x", lang="cuda", options={}, source_sha256=sha256(source), status="passed", reason="",
                stdout="hello\n", stderr="", exit_status=0, duration_s=0.1, date="2026-11-22", nvcc_version="13.0.88",
                machine=dict(gpu_name="NVIDIA H200", compute_capability="9.0", sm_count=132, driver_version="580", cuda_runtime_version="13.0", nvcc_version="13.0.88"))
    data.update(changes)
    path = root / "snippets/device-software/warp/x.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    Record.from_json(path.read_text())


SNIP = '```cuda verify name="x"\nint main() {}\n```\n\n```output\nhello\n```\n'


def test_fresh_record_is_clean(make_glossary):
    root = make_glossary(trio({"warp": SNIP}))
    _write_record(root, "int main() {}\n")
    assert diagnostics(root) == ()


@pytest.mark.parametrize(
    ("code", "changes", "source"),
    [
        ("snippet-stale", {}, "int main() { return 1; }\n"),
        ("snippet-failed", {"status": "failed", "reason": "exit status 1"}, "int main() {}\n"),
        ("snippet-output", {"stdout": "goodbye\n"}, "int main() {}\n"),
        ("snippet-unverified", {"status": "compile-only", "machine": None}, "int main() {}\n"),
    ],
)
def test_record_states(make_glossary, code, changes, source):
    root = make_glossary(trio({"warp": SNIP}))
    _write_record(root, source, **changes)
    (d,) = diagnostics(root)
    assert (d.code, d.path, d.line) == (code, f"glossary/{WARP}", 9)
    assert "glossary verify --term warp" in d.message or code == "snippet-output"


def test_cli_exit_status_and_format(make_glossary, capsys):
    root = make_glossary(trio({"warp": "See [[wrap]].\n"}))
    assert main(["--root", str(root), "check"]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert out == ["glossary/device-software/warp.md:9:5: error: unknown cross-reference 'wrap'; did you mean 'warp'? [xref-unknown]"]
    assert main(["--root", str(root), "check", "--format", "github"]) == 1
    gh = capsys.readouterr().out.strip()
    assert gh.startswith("::error file=glossary/device-software/warp.md,line=9,col=5,title=xref-unknown::")


def test_clean_cli_exit_zero(make_glossary):
    assert main(["--root", str(make_glossary(trio())), "check"]) == 0


def test_file_level_problems(make_glossary, tmp_path):
    files = trio()
    files["device-software/empty.md"] = ""
    files["device-software/binary.md"] = b"\x00\x01\x02"
    files["device-software/latin1.md"] = b"---\ntitle: caf\xe9\n"
    files["device-software/huge.md"] = "---\ntitle: Huge\n---\n" + "x" * 5_000_000
    files["device-software/list.md"] = "---\n- a list\n---\nbody\n"
    files["device-software/Bad_Name.md"] = term_text("Bad", "x")
    files["device-software/notes.txt"] = "not markdown"
    files["misc/odd.md"] = term_text("Odd", "x")
    outside = tmp_path / "outside.md"
    outside.write_text(term_text("Outside", "x"))
    root = make_glossary(files, toc={"device-software": ["warp", "thread"], "device-hardware": ["streaming-multiprocessor"]})
    os.symlink(outside, root / "glossary/device-software/link.md")
    diags = diagnostics(root)
    by_path = {(d.path.rsplit("/", 1)[-1], d.code) for d in diags}
    for expected in [
        ("empty.md", "file-empty"),
        ("binary.md", "file-binary"),
        ("latin1.md", "file-encoding"),
        ("huge.md", "file-too-large"),
        ("list.md", "frontmatter-type"),
        ("Bad_Name.md", "slug-invalid"),
        ("notes.txt", "file-unexpected"),
        ("misc", "section-unknown"),
        ("link.md", "symlink-outside"),
    ]:
        assert expected in by_path, expected
    (enc,) = find(diags, "file-encoding")
    assert (enc.line, enc.col) == (2, 11)


def test_a_quote_ending_the_file_without_a_newline_checks_and_renders(make_glossary, capsys):
    """mdit_py_plugins' admonition rule read past the end of a source whose last line is an
    empty quote line with no newline after it (an IndexError, so a traceback from `check`):
    a body is parsed with a final newline, which changes no block and no line map."""
    from glossary_tool.emit.links import RelativeLinker, term_src
    from glossary_tool.emit.render import RenderOptions, render_body
    from glossary_tool.load.body import parse_once

    tail = "> | a |\n> | - |\n> "
    root = make_glossary(trio({"warp": "\n" + tail}))
    warp = root / "glossary" / "device-software" / "warp.md"
    warp.write_text(warp.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + tail, encoding="utf-8")
    assert main(["--root", str(root), "check"]) == 0
    assert "Traceback" not in capsys.readouterr().err
    loaded = load_project(root, cache=False)
    term = loaded.glossary.terms["warp"]
    assert term.body.endswith("> ")
    html = render_body(term, RenderOptions(loaded.glossary, RelativeLinker(term_src(term)), None)).html
    assert "<table>" in html and "<blockquote>" in html
    for text in ("A [[thread]] list:\n\n- one\n- two", "> quoted\n> ", "| a |\n| - |\n| [[warp]] |", "# Head\n\ntext"):
        with_newline, without = parse_once(text + "\n"), parse_once(text)
        assert [(t.type, t.map, t.content, t.meta) for t in without] == [(t.type, t.map, t.content, t.meta) for t in with_newline], text


def test_a_parser_failure_is_a_diagnostic_at_the_body(make_glossary, monkeypatch):
    """Whatever the Markdown parser raises on a body becomes an error at the body's first
    line, never a traceback."""
    from glossary_tool.load import body

    class Broken:
        options = {"maxNesting": 20}

        def parse(self, text: str) -> list:
            raise IndexError("string index out of range")

    root = make_glossary(trio())
    body.forget_tokens()
    monkeypatch.setattr(body, "parser", lambda: Broken())
    found = find(diagnostics(root), "markdown-unparsable")
    first_body_line = {}
    for path in (root / "glossary").glob("*/*.md"):
        lines = path.read_text(encoding="utf-8").split("\n")
        first_body_line[path.relative_to(root).as_posix()] = lines.index("---", 1) + 2
    assert sorted((d.path, d.line) for d in found) == sorted(first_body_line.items())
    assert not load_project(root, cache=False).glossary.terms, "no later stage sees a body the parser failed on"
    assert all("IndexError" in d.message for d in found)
