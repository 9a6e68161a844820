"""schema.DeepSafeLoader, the pure-Python loader for YAML that may nest too deeply for
libyaml, finds what PyYAML's SafeLoader finds: the same tokens with the same marks, or the
same error; only its stale-key walk is shorter (it stops at the first fresh key)."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from glossary_tool.load.schema import DeepSafeLoader

REPO = Path(__file__).resolve().parent.parent

# The characters that make or break YAML's simple keys, flow levels and lines.
PIECES = st.sampled_from(["[", "]", "{", "}", ":", ": ", ", ", "- ", "? ", "\n", "  ", "a", "key", "'q'", '"d"', "#c", "&x ", "*x", "!t ", "|\n", ">\n"])


def _outcome(text: str, loader: type) -> tuple[str, object]:
    """Every token with its marks, or the error PyYAML raised (its message names the marks)."""
    try:
        return "tokens", [(type(t).__name__, getattr(t, "value", None), t.start_mark.index, t.end_mark.index, t.start_mark.line, t.start_mark.column) for t in yaml.scan(text, Loader=loader)]
    except yaml.YAMLError as exc:
        return "error", str(exc)


def _composed(text: str, loader: type) -> tuple[str, object]:
    try:
        return "node", repr(yaml.compose(text, Loader=loader))
    except yaml.YAMLError as exc:
        return "error", str(exc)
    except RecursionError:
        return "too deep", None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=80), st.integers(0, 1100))
@example(["a", ": ", "[", "b"], 1030)  # a simple key that goes stale past 1,024 characters
@example(["key", "\n", "[", "a", ": "], 0)
def test_same_tokens_and_errors_as_safeloader(pieces: list[str], pad: int) -> None:
    # ``pad`` spaces push later keys past PyYAML's 1,024-character limit for a simple key
    text = "".join(pieces[: len(pieces) // 2]) + " " * pad + "".join(pieces[len(pieces) // 2 :])
    assert _outcome(text, DeepSafeLoader) == _outcome(text, yaml.SafeLoader)
    assert _composed(text, DeepSafeLoader) == _composed(text, yaml.SafeLoader)


def test_same_nodes_for_every_yaml_file_of_the_glossary() -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted((REPO / "diagrams").glob("*.yml"))]
    texts += [p.read_text(encoding="utf-8").split("\n---\n", 1)[0].removeprefix("---\n") for p in sorted((REPO / "glossary").rglob("*.md"))]
    texts.append((REPO / "glossary" / "toc.yml").read_text(encoding="utf-8"))
    assert len(texts) > 250
    for text in texts:
        assert _composed(text, DeepSafeLoader) == _composed(text, yaml.SafeLoader)


def _constructed(node: yaml.Node, construct) -> tuple[str, object]:  # noqa: ANN001 - either constructor
    """The value (its pickle keeps which parts are one object) or the error."""
    import pickle

    try:
        return "value", pickle.dumps(construct(node))
    except Exception as exc:  # noqa: BLE001 - `!!int ""` raises IndexError: frontmatter.parse catches any
        return "error", f"{type(exc).__name__}: {exc}"


# Front matter values: lists, mappings, strings, anchors and aliases, merge keys, tags.
VALUE_PIECES = st.sampled_from(["[", "]", "{", "}", ": ", ", ", "\n- ", "\n  - ", "\n  ", "a", "key", "'q'", "1", "~", "&x ", "*x", "<<: ", "!!str ", "!!int ", "? ", "= "])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(VALUE_PIECES, max_size=30))
@example(["key", ": ", "\n- ", "a", "\n- ", "key", ": ", "'q'"])
@example(["key", ": ", "&x ", "[", "a", "]", "\n", "key", ": ", "*x"])
def test_front_matter_values_are_pyyamls(pieces: list[str]) -> None:
    """frontmatter.construct (strings, lists and string-keyed mappings made directly) builds
    what PyYAML's SafeConstructor builds from each top-level value, or leaves it to it."""
    from glossary_tool.load.frontmatter import construct

    text = "key: " + "".join(pieces)
    try:
        root = yaml.compose(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        return
    if not isinstance(root, yaml.MappingNode):
        return
    # a fresh tree for each: PyYAML's constructor rewrites merge keys in the nodes it reads
    again = yaml.compose(text, Loader=yaml.CSafeLoader)
    for (_, value), (_, same) in zip(root.value, again.value, strict=True):
        assert _constructed(value, construct) == _constructed(same, lambda n: yaml.constructor.SafeConstructor().construct_document(n))


def test_front_matter_values_of_the_glossary() -> None:
    from glossary_tool.load.frontmatter import construct

    taken = 0
    for path in sorted((REPO / "glossary").rglob("*.md")):
        root = yaml.compose(path.read_text(encoding="utf-8").split("\n---\n", 1)[0].removeprefix("---\n"), Loader=yaml.CSafeLoader)
        for _, value in root.value:
            assert _constructed(value, construct) == _constructed(value, lambda n: yaml.constructor.SafeConstructor().construct_document(n))
            taken += isinstance(value, yaml.SequenceNode) and _made_directly(value)
    assert taken > 200  # the direct path is taken


def _made_directly(node: yaml.Node) -> bool:
    from glossary_tool.load import frontmatter

    try:
        frontmatter._plain(node, set(), 0)
    except frontmatter._NotPlain:
        return False
    return True


def test_other_pyyaml_releases_construct_with_pyyaml(monkeypatch) -> None:  # noqa: ANN001 - pytest fixture
    """Under a PyYAML release nobody read, frontmatter.construct is PyYAML's constructor."""
    from glossary_tool.load import frontmatter

    assert frontmatter._read_for(yaml.__version__) and not frontmatter._read_for("9.9.0")
    node = yaml.compose("[a, b]", Loader=yaml.CSafeLoader)
    monkeypatch.setattr(frontmatter, "_plain", None)  # would raise if called
    monkeypatch.setattr(frontmatter, "_PLAIN_KNOWN", False)
    assert frontmatter.construct(node) == ["a", "b"]


FRONT_PIECES = st.sampled_from(["---", "...", "\n", " ", "\t", "\r", "\x0b", "\x1c", "\u00a0", "\u2028", "a", "-", ".", "--- x", "title: a"])


def split_by_lines(path: str, text: str) -> tuple[str | None, int, str, list]:
    """frontmatter.split as it was written, a walk over the file's lines: what the one search
    and the slices must agree with."""
    from glossary_tool.diagnostics import error

    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return None, 0, text, [error(path, 1, 1, "frontmatter-missing", "file must start with a '---' line opening the YAML front matter")]
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            yaml_text = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :])
            return yaml_text, index + 1, body, []
    return None, 0, text, [error(path, 1, 1, "frontmatter-unterminated", "front matter opened with '---' on line 1 is never closed by a '---' line")]


@settings(max_examples=600, deadline=None)  # 2.7 s at 1,500
@given(st.lists(FRONT_PIECES, max_size=14), st.booleans())
@example(["\n", "---", "\n", "body"], True)
@example(["---"], True)
@example([" \u00a0\n", "..."], True)
def test_front_matter_split_is_the_line_walk(pieces: list[str], opened: bool) -> None:
    """frontmatter.split (one search for the closing line, slices) cuts every text where the
    walk over its lines does: yaml text, body offset, body and diagnostics."""
    from glossary_tool.load.frontmatter import split

    text = ("---\n" if opened else "") + "".join(pieces)
    assert split("p.md", text) == split_by_lines("p.md", text)


def test_front_matter_split_on_real_terms() -> None:
    from glossary_tool.load.frontmatter import split

    paths = sorted((Path(__file__).resolve().parent.parent / "glossary").rglob("*.md"))
    assert len(paths) > 100
    for path in paths:
        text = path.read_text(encoding="utf-8")
        assert split(path.name, text) == split_by_lines(path.name, text)
        assert split(path.name, text)[0] is not None or path.name == "index.md"
