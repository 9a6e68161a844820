"""The schema layer: YAML in, diagnostics out (path, line, column, code), for front matter,
toc.yml and diagrams alike, and the one helper that maps a problem's path to its node."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

from glossary_tool.commands.changed import front_matter
from glossary_tool.diagnostics import Diagnostic
from glossary_tool.draw import parse_diagram
from glossary_tool.load import frontmatter, schema
from glossary_tool.load.toc import read_toc

SOURCES = "sources:\n  - {title: T, url: 'https://x.org'}\n"


def front(text: str) -> list[Diagnostic]:
    fm = frontmatter.parse("t.md", text)
    return [*fm.diagnostics, *frontmatter.validate(fm)[1]]


def toc(tmp_path: Path, text: str) -> list[Diagnostic]:
    (tmp_path / "toc.yml").write_text(text, encoding="utf-8")
    out: list[Diagnostic] = []
    read_toc(tmp_path, out)
    return out


def diagram(text: str) -> list[Diagnostic]:
    return parse_diagram("d", "d.yml", text)[1]


def where(found: list[Diagnostic], code: str) -> list[tuple[int, int]]:
    return sorted((d.line, d.col) for d in found if d.code == code)


FRONT_CASES = [
    # (id, front matter text, code, [(line, col)], words the message must hold)
    ("title-list", "---\ntitle: [a, b]\nsummary: One.\n" + SOURCES + "---\n", "field-invalid", [(2, 8)], "'title' must be a non-empty string"),
    ("title-null", "---\ntitle: ~\nsummary: One.\n" + SOURCES + "---\n", "field-invalid", [(2, 8)], "'title'"),
    ("missing-summary", "---\ntitle: T\n" + SOURCES + "---\n", "field-missing", [(1, 1)], "'summary'"),
    ("duplicate", "---\ntitle: T\nsummary: One.\ntitle: U\n" + SOURCES + "---\n", "field-duplicate", [(4, 1)], "first on line 2"),
    ("unknown", "---\ntitle: T\nsummary: One.\nalias: [x]\n" + SOURCES + "---\n", "field-unknown", [(4, 1)], "did you mean 'aliases'?"),
    ("block-url", "---\ntitle: T\nsummary: One.\nsources:\n  - title: A\n    url: https://a.org\n  - title: B\n    url: ftp://b.org\n---\n", "field-invalid", [(8, 10)], "sources[2].url must be an http(s) URL"),
    ("source-not-mapping", "---\ntitle: T\nsummary: One.\nsources:\n  - https://a.org\n---\n", "field-invalid", [(5, 5)], "sources[1] must be a mapping"),
    ("source-unknown-key", "---\ntitle: T\nsummary: One.\nsources:\n  - title: A\n    url: https://a.org\n    year: 2020\n---\n", "field-unknown", [(7, 5)], "sources[1] has unknown key 'year'"),
    ("source-missing-url", "---\ntitle: T\nsummary: One.\nsources:\n  - title: A\n---\n", "field-invalid", [(5, 5)], "sources[1].url"),
    ("alias-item", "---\ntitle: T\nsummary: One.\naliases:\n  - a\n  - {b: c}\n" + SOURCES + "---\n", "field-invalid", [(6, 5)], "'aliases' must be a list of non-empty strings"),
    ("equivalents-number-key", "---\ntitle: T\nsummary: One.\nequivalents: {amd: x, 3: y}\n" + SOURCES + "---\n", "field-invalid", [(4, 23)], "vendor names"),
    ("equivalents-list", "---\ntitle: T\nsummary: One.\nequivalents:\n  amd: [wavefront]\n" + SOURCES + "---\n", "field-invalid", [(5, 8)], "quote a value"),
    ("python-tag", "---\ntitle: !!python/name:os.system T\nsummary: One.\n" + SOURCES + "---\n", "yaml-syntax", [(2, 8)], "could not determine a constructor"),
    ("two-sentences", "---\ntitle: T\nsummary: One. Two.\n" + SOURCES + "---\n", "summary-not-sentence", [(3, 10)], "found 2"),
    ("non-string-key", "---\ntitle: T\nsummary: One.\n? [a]\n: b\n" + SOURCES + "---\n", "field-invalid", [(4, 3)], "plain strings"),
]


@pytest.mark.parametrize(("text", "code", "at", "words"), [c[1:] for c in FRONT_CASES], ids=[c[0] for c in FRONT_CASES])
def test_front_matter(text, code, at, words):
    found = front(text)
    assert where(found, code) == at, [d.format() for d in found]
    assert all(words in d.message for d in found if d.code == code)


def test_a_clean_term_has_no_diagnostics_and_tidy_values():
    fm = frontmatter.parse("t.md", "---\ntitle: '  Warp   Size '\nsummary: >\n  One\n  sentence.\nequivalents: {amd: wavefront, intel: ~}\n" + SOURCES + "---\nbody\n")
    clean, problems = frontmatter.validate(fm)
    assert fm.diagnostics == () and problems == []
    assert clean["title"] == "Warp Size" and clean["summary"] == "One sentence."
    assert clean["sources"] == (("T", "https://x.org"),)
    assert clean["equivalents"] == (("amd", "wavefront"),)


def test_a_section_page_has_its_own_fields():
    fm = frontmatter.parse("index.md", "---\ntitle: S\nsummary: One.\n" + SOURCES + "---\n")
    _, problems = frontmatter.validate(fm, schema.SECTION)
    assert [(d.code, d.line, d.col) for d in problems] == [("field-unknown", 4, 1)]


TOC_CASES = [
    ("unknown-section", "device-hardwar:\n  - a\n", "toc-invalid", [(1, 1)], "did you mean 'device-hardware'?"),
    ("entry-not-a-slug", "device-hardware:\n  - a\n  - [b]\n", "toc-invalid", [(3, 5)], "entry 2 of section 'device-hardware' must be a term slug"),
    ("section-not-a-list", "device-hardware: a\n", "toc-invalid", [(1, 18)], "must be a list of term slugs"),
    ("root-a-list", "- a\n- b\n", "toc-invalid", [(1, 1)], "toc.yml must be a mapping"),
    ("twice", "device-hardware:\n  - a\nperformance: []\ndevice-hardware: []\n", "toc-duplicate", [(4, 1)], "first on line 1"),
]


@pytest.mark.parametrize(("text", "code", "at", "words"), [c[1:] for c in TOC_CASES], ids=[c[0] for c in TOC_CASES])
def test_toc(tmp_path, text, code, at, words):
    found = toc(tmp_path, text)
    assert where(found, code) == at, [d.format() for d in found]
    assert all(words in d.message for d in found if d.code == code)


def test_toc_keeps_the_good_entries_of_a_section_with_a_bad_one(tmp_path):
    (tmp_path / "toc.yml").write_text("device-hardware:\n  - a\n  - [b]\n  - c\n", encoding="utf-8")
    out: list[Diagnostic] = []
    order = read_toc(tmp_path, out)
    assert order.terms["device-hardware"] == ("a", "c")
    assert order.lines[("device-hardware", 1)] == 4


HEAD = "title: T\ndescription: D.\nboxes:\n"
DIAGRAM_CASES = [
    ("bad-layout", HEAD + "  - {label: x, layout: diagnal}\n", "diagram-invalid", [(4, 24)], "not one of row, column, grid"),
    ("bad-align", HEAD + "  - label: x\n    align: middle\n", "diagram-invalid", [(5, 12)], "not one of start, center, end"),
    ("bad-tone", HEAD + "  - {label: x, tone: devise-hardware}\n", "diagram-invalid", [(4, 22)], "did you mean 'device-hardware'?"),
    ("nested-unknown-key", HEAD + "  - boxes:\n      - {lable: x}\n", "diagram-invalid", [(5, 10)], "did you mean 'label'?"),
    ("no-title", "description: D.\nboxes:\n  - label: x\n", "diagram-invalid", [(1, 1)], "needs a 'title'"),
    ("box-a-list", HEAD + "  - [a, b]\n", "diagram-invalid", [(4, 5)], "a box must be a mapping"),
    ("dangling-arrow", HEAD + "  - {id: a, label: x}\narrows:\n  - from: a\n    to: c\n", "diagram-id", [(7, 9)], "names no box"),
    ("axis-missing-max", HEAD + "  - plot:\n      x: {label: x, min: 0, max: 1}\n      y: {label: y, min: 0}\n", "diagram-invalid", [(6, 10)], "the y axis needs 'max'"),
    ("point-not-a-pair", HEAD + "  - plot:\n      x: {label: x, min: 0, max: 1}\n      y: {label: y, min: 0, max: 1}\n      series:\n        - {label: s, points: [[0, 0], [1]]}\n", "diagram-invalid", [(8, 39)], "a point must be a pair [x, y]"),
    ("repeat-zero", HEAD + "  - {label: x, repeat: 0}\n", "diagram-invalid", [(4, 24)], "whole number from 1 to 1024"),
]


@pytest.mark.parametrize(("text", "code", "at", "words"), [c[1:] for c in DIAGRAM_CASES], ids=[c[0] for c in DIAGRAM_CASES])
def test_diagram(text, code, at, words):
    found = diagram(text)
    assert where(found, code) == at, [d.format() for d in found]
    assert all(words in d.message for d in found if d.code == code)


def test_a_path_maps_to_its_node_or_the_nearest_parent():
    text = "a:\n  b:\n    - x\n    - {c: 1}\nd: 2\n"
    doc = schema.Document("f.yml", yaml.compose(text))
    assert doc.position(("a", "b", 1, "c")) == (4, 11)
    assert doc.position(("a", "b", 1, "missing")) == (4, 7), "the nearest existing parent: the mapping"
    assert doc.position(("a", "b", 7)) == (3, 5), "no item 8: the list"
    assert doc.position((schema.KeyAt(1),)) == (5, 1), "a key, not its value"
    assert doc.position(("nowhere",)) == (1, 1)
    assert schema.Document("f.yml", doc.root, origin=(9, 9)).position(("nowhere",)) == (9, 9)
    assert schema.render(("sources", 0, "url")) == "sources[1].url"


HOSTILE = [
    "- a\n- b\n",
    "42\n",
    "~\n",
    "title: 42\ndescription: 43\nboxes: 44\nsummary: 45\nsources: 46\n",
    "title: ~\ndescription: ~\nboxes: ~\nsummary: ~\nsources: [~]\naliases: [~]\nequivalents: ~\n",
    "title: {a: b}\nsummary: [1]\nsources: {title: x}\nboxes: {label: x}\narrows: {from: a}\n",
    "boxes: " + "[" * 300 + "]" * 300 + "\ntitle: " + "{a: " * 300 + "b" + "}" * 300 + "\n",
    "a: &a [*a]\ntitle: *a\nboxes: *a\nsources: *a\n",
    "? {a: b}\n: c\n? [d]\n: e\n",
    "title: !!binary aGVsbG8=\nsummary: !!timestamp 2001-12-14\nboxes: [!!set {a}]\n",
    # tags whose converter raises ValueError, KeyError, AttributeError (a traceback before)
    "title: !!int abc\nsummary: !!bool maybe\nboxes: [{width: !!float x}]\nsources: [!!timestamp nope]\naliases: [!!int x]\n",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_yaml_gives_diagnostics_not_tracebacks(tmp_path, text):
    lines = text.count("\n") + 2
    found = [*front("---\n" + text + "---\n"), *diagram(text), *toc(tmp_path, text)]
    front_matter("t.md", "---\n" + text + "---\n")  # `check --changed` reads a base version the same way
    assert found, "every one of these is wrong somewhere"
    assert all(1 <= d.line <= lines and d.col >= 1 for d in found), [d.format() for d in found]


def test_random_damage_to_real_files_never_raises(tmp_path):
    """Real terms, diagrams and the toc with lines cut, swapped, repeated or spliced with YAML
    punctuation: every outcome is diagnostics (the seed is fixed, so a failure reproduces)."""
    repo = Path(__file__).resolve().parent.parent
    terms = [p.read_text(encoding="utf-8") for p in sorted((repo / "glossary").rglob("*.md"))][:40]
    drawings = [p.read_text(encoding="utf-8") for p in sorted((repo / "diagrams").glob("*.yml"))]
    order = (repo / "glossary/toc.yml").read_text(encoding="utf-8")
    rng = random.Random(22)
    bits = ["[", "]", "{", "}", ": ", "- ", "~", "42", "&a ", "*a", "!!str ", "'", "? ", "{a: [b, {c: d}]}", "yes", ".inf"]

    def damage(text: str) -> str:
        lines = text.split("\n")
        for _ in range(rng.randint(1, 4)):
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            op = rng.randrange(4)
            if op == 0:
                cut = rng.randint(0, len(lines[i]))
                lines[i] = lines[i][:cut] + rng.choice(bits) + lines[i][cut:]
            elif op == 1 and len(lines) > 1:
                del lines[i]
            elif op == 2:
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines.insert(i, lines[j])
        return "\n".join(lines)

    for _ in range(300):
        front(damage(rng.choice(terms)))
        diagram(damage(rng.choice(drawings)))
        toc(tmp_path, damage(order))


def test_term_fields_are_the_schema_fields():
    assert frontmatter.TERM_FIELDS == ("title", "abbreviation", "aliases", "summary", "sources", "equivalents", "diagrams")
    assert set(frontmatter.SECTION_FIELDS) < set(frontmatter.TERM_FIELDS)
