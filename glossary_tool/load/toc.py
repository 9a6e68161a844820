"""The reading order: ``glossary/toc.yml``, the one place that orders sections and terms.

Navigation, prev/next, the EPUB spine and llms.txt all follow it; ``glossary new`` edits
it, and ``glossary check`` makes sure every term appears in it exactly once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.load import cache, schema
from glossary_tool.load.cache import Cache
from glossary_tool.model import SECTIONS

TOC_NAME = "toc.yml"
HEADER = "# Reading order of the glossary: sections in order, each with its terms in order.\n# `glossary new` maintains this file; `glossary check` makes sure every term appears once.\n"


@dataclass(frozen=True)
class ReadingOrder:
    sections: tuple[str, ...]
    terms: dict[str, tuple[str, ...]]
    #: (section, position in its list) -> 1-based line in toc.yml
    lines: dict[tuple[str, int], int] = field(default_factory=dict)


def read_toc(root: Path, out: list[Diagnostic], store: Cache | None = None) -> ReadingOrder:
    """The reading order in ``root``/toc.yml (diagnostics to ``out``). ``store``: the parse
    of the same text is kept there (composing a 5,000-line file in pure-Python YAML cost a
    warm check 40 ms)."""
    path = root / TOC_NAME
    shown = f"{root.name}/{TOC_NAME}"
    if not path.exists():
        out.append(error(shown, 0, 0, "toc-missing-file", "reading order file glossary/toc.yml is missing"))
        return ReadingOrder((), {})
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError) as exc:
        out.append(error(shown, 1, 1, "yaml-syntax", f"invalid reading order: {exc}"))
        return ReadingOrder((), {})
    if store is None:
        return _parse_toc(shown, text, out)

    def parse() -> tuple[ReadingOrder, tuple[Diagnostic, ...]]:
        problems: list[Diagnostic] = []
        return _parse_toc(shown, text, problems), tuple(problems)

    order, problems = store.get_or_make(cache.key("toc", shown, text), parse, counted=False)
    out.extend(problems)
    return order


def _parse_toc(shown: str, text: str, out: list[Diagnostic]) -> ReadingOrder:
    doc, broken = schema.compose(shown, text, "invalid reading order")
    out.extend(broken)
    if doc is None:
        return ReadingOrder((), {})
    node = doc.root
    if node is None:
        out.append(error(shown, 1, 1, "toc-invalid", "toc.yml is empty; it must map each section to a list of term slugs"))
        return ReadingOrder((), {})
    shape = schema.toc_shape(SECTIONS)
    found, problems = schema.validate(doc, shape, schema.TOC_CODES, "toc.yml")
    out.extend(problems)
    if found is schema.INVALID:
        return ReadingOrder((), {})
    sections: list[str] = []
    terms: dict[str, tuple[str, ...]] = {}
    lines: dict[tuple[str, int], int] = {}
    for _, section, _, value in shape.accepted(node):
        # the entries that are slugs, even where another entry of the list is not (reported)
        items = [i for i in value.value if isinstance(i, yaml.ScalarNode)] if isinstance(value, yaml.SequenceNode) else []
        sections.append(section)
        terms[section] = tuple(i.value for i in items)
        lines.update(((section, index), item.start_mark.line + 1) for index, item in enumerate(items))
    return ReadingOrder(tuple(sections), terms, lines)


def dump_toc(order: dict[str, list[str]]) -> str:
    """Serialize a reading order in the stable layout ``glossary new`` writes."""
    parts = [HEADER]
    for section, slugs in order.items():
        parts.append(f"{section}:\n")
        parts.extend(f"  - {slug}\n" for slug in slugs)
    return "".join(parts)
