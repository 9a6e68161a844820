"""``glossary new``: a term file from the template, placed in the reading order.

Refuses a slug, title, abbreviation or alias that an existing term already has (naming the
term that has it), so two contributors cannot silently create the same term twice, and a
new term never makes an existing ``[[name]]`` ambiguous.

The template's placeholders fail ``glossary check`` until they are replaced: the summary
is not a sentence and the source URL is not a URL, so a half-filled term cannot be merged.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from glossary_tool.atomic import write_text
from glossary_tool.diagnostics import Diagnostic
from glossary_tool.load.toc import TOC_NAME, dump_toc, read_toc
from glossary_tool.model import SECTIONS, Term
from glossary_tool.pipeline import load_project
from glossary_tool.text import SLUG_RE, kebab, normalize_name

TEMPLATE = """---
title: {title}
{abbr}aliases: {aliases}  # other names that [[...]] may use; [] if none
summary: {summary}
sources:  # primary references you read: vendor guides, specifications, papers, source code
  - title: {source_title}
    url: {source_url}
equivalents:  # the same idea on other platforms; delete the lines that have none
  amd: ""
  apple: ""
  intel: ""
  vulkan: ""
---
<!--
Replace this comment and the paragraph below with the body (CONTRIBUTING.md, "Writing
style"): original prose for an engineer who knows C++ and a little CUDA; what {title}
is, where it sits in the stack, why it matters. At least 150 words (350 for a core
term), three or more [[cross-references]] woven into the sentences, units on every
number and the GPU it holds for ("132 SMs on an H100 SXM"). A ```cuda verify
name="..."``` fence adds an example that is run on a GPU.
-->
TODO: say what {title} is in one or two sentences that link the terms it builds on,
such as [[streaming-multiprocessor]] or [[warp]].
"""

_PLAIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ()+./_-]*$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def yaml_str(value: str) -> str:
    """``value`` as a YAML scalar that reads back as exactly this string."""
    if _PLAIN.match(value) and value.lower() not in _YAML_WORDS and not value[0].isdigit() and value == value.strip():
        return value
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML double-quoted scalar


def render_template(title: str, abbr: str | None = None, aliases: list[str] | tuple[str, ...] = ()) -> str:
    return TEMPLATE.format(
        title=yaml_str(title),
        abbr=f"abbreviation: {yaml_str(abbr)}\n" if abbr else "",
        aliases="[" + ", ".join(yaml_str(a) for a in aliases) + "]",
        # Placeholders that `glossary check` rejects until they are replaced:
        summary=yaml_str(f"TODO one plain-text sentence, at most 200 characters, saying what {title} is"),
        source_title=yaml_str("TODO title of the primary source, e.g. CUDA C++ Programming Guide, Thread Block Clusters"),
        source_url=yaml_str("TODO https://..."),
    )


def _fail(message: str) -> int:
    print(f"glossary new: {message}", file=sys.stderr)
    return 1


def _clash(root: Path, names: list[tuple[str, str]], slug: str) -> str | None:
    """Why the new names cannot be used, or None."""
    loaded = load_project(root, check_records=False)
    owners: dict[str, tuple[str, str, Term]] = {}  # normalized name -> (kind, name as written, term)
    for term in sorted(loaded.glossary.terms.values(), key=lambda t: t.path):
        theirs = [("slug", term.slug), ("title", term.title), *(("alias", a) for a in term.aliases)]
        if term.abbreviation:
            theirs.append(("abbreviation", term.abbreviation))
        for kind, name in theirs:
            owners.setdefault(normalize_name(name), (kind, name, term))
    for mine, my_kind in names:  # in the order given: the first clash is the one to explain
        found = owners.get(normalize_name(mine))
        if found is not None:
            kind, _, term = found
            option = {"slug": "--slug", "title": "title", "abbreviation": "--abbr", "alias": "--alias"}[my_kind]
            return (
                f"{my_kind} '{mine}' is already the {kind} of {term.path}: if it is the same concept, edit that term"
                f" (or link to it with [[{term.slug}]]); if not, choose another {option}"
            )
    for section in SECTIONS:  # a file that exists but does not load (broken front matter) still owns its slug
        path = loaded.project.glossary_dir / section / f"{slug}.md"
        if path.exists():
            return f"{path.relative_to(root).as_posix()} already exists; choose another --slug"
    return None


def _toc_with(glossary_dir: Path, section: str, slug: str) -> tuple[str | None, str | None]:
    """(toc.yml text with ``slug`` last under ``section``, None) or (None, why not).

    The entry goes after the section's last one, indented like it, so comments and layout
    in the rest of the file stay as written.
    """
    toc = glossary_dir / TOC_NAME
    problems: list[Diagnostic] = []
    order = read_toc(glossary_dir, problems)
    if problems and toc.exists():
        return None, f"cannot read glossary/{TOC_NAME} ({problems[0].message}); fix it first"
    for other, slugs in order.terms.items():
        if slug in slugs:
            return None, f"'{slug}' is already listed under '{other}' in glossary/{TOC_NAME}; choose another --slug"
    slugs = order.terms.get(section, ())
    if slugs:
        lines = toc.read_text(encoding="utf-8").splitlines(keepends=True)
        last = order.lines[(section, len(slugs) - 1)] - 1
        item = lines[last]
        if item.lstrip().startswith("- "):
            indent = item[: len(item) - len(item.lstrip())]
            lines[last] = item if item.endswith("\n") else item + "\n"
            lines.insert(last + 1, f"{indent}- {slug}\n")
            return "".join(lines), None
    terms = {s: list(order.terms.get(s, ())) for s in order.sections}
    terms.setdefault(section, []).append(slug)
    return dump_toc(terms), None


def new_term(root: Path, title: str, section: str, abbr: str | None, slug: str | None, aliases: list[str] | None = None) -> int:
    title = " ".join(title.split())
    abbr = " ".join(abbr.split()) if abbr else None
    aliases = [" ".join(a.split()) for a in aliases or [] if a.strip()]
    if section not in SECTIONS:
        return _fail(f"unknown section '{section}'; choose one of {', '.join(SECTIONS)}")
    if not title:
        return _fail("the title is empty")
    slug = slug or kebab(title)
    if not SLUG_RE.match(slug):
        return _fail(f"cannot use '{slug}' as a slug (lowercase letters, digits and single hyphens, e.g. thread-block-cluster); pass --slug")
    # The title first: when the slug comes from the title, the title is what the user chose.
    names = [(title, "title"), (slug, "slug"), *(((abbr, "abbreviation"),) if abbr else ()), *((a, "alias") for a in aliases)]
    why = _clash(root, names, slug)
    if why:
        return _fail(why)
    glossary_dir = root / "glossary"
    toc_text, why = _toc_with(glossary_dir, section, slug)
    if toc_text is None:
        return _fail(why or "cannot update the reading order")
    path = glossary_dir / section / f"{slug}.md"
    write_text(path, render_template(title, abbr, aliases))
    write_text(glossary_dir / TOC_NAME, toc_text)
    shown = path.relative_to(root).as_posix()
    print(f"created {shown} and added '{slug}' to glossary/{TOC_NAME} under {section}")
    print("next: replace every TODO (summary, sources, body) and the comment; `glossary check --changed HEAD` fails until you do")
    print(f"      preview: `glossary serve` (or `make serve`), then open {section}/{slug}/ under the address it prints")
    return 0
