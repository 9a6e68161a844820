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
