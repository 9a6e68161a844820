"""``glossary new``: a term file from the template, placed in the reading order.

Refuses a slug, title or alias that already exists and names the clash, so two
contributors cannot silently create the same term twice.
"""

from __future__ import annotations

import sys
from pathlib import Path

from glossary_tool.atomic import write_text
from glossary_tool.load.toc import TOC_NAME, dump_toc
from glossary_tool.model import SECTIONS
from glossary_tool.pipeline import load_project
from glossary_tool.text import SLUG_RE, kebab, normalize_name

TEMPLATE = """---
title: {title}
{abbr}summary: One plain-text sentence (at most 200 characters) saying what {title} is.
sources:
  - title: CUDA C++ Programming Guide
    url: https://docs.nvidia.com/cuda/cuda-c-programming-guide/
equivalents:
  amd: ""
  apple: ""
  intel: ""
  vulkan: ""
---
Write two to five paragraphs for an engineer who knows C++ and a little CUDA. Say what
{title} is, where it sits in the stack, and why it matters, with numbers that name the GPU
they hold for (for example "on an H100 SXM, 132 SMs"). Weave at least three
cross-references into the sentences, such as [[streaming-multiprocessor]] or [[warp]].
"""


def new_term(root: Path, title: str, section: str, abbr: str | None, slug: str | None) -> int:
    title = " ".join(title.split())
    if section not in SECTIONS:
        print(f"glossary new: unknown section '{section}'; choose one of {', '.join(SECTIONS)}", file=sys.stderr)
        return 1
    slug = slug or kebab(title)
    if not title or not SLUG_RE.match(slug):
        print(f"glossary new: cannot make a kebab-case slug from '{title}'; pass --slug", file=sys.stderr)
        return 1
    loaded = load_project(root, check_records=False)
    glossary = loaded.glossary
    wanted = {normalize_name(n): kind for n, kind in ((slug, "slug"), (title, "title"), *(((abbr, "abbreviation"),) if abbr else ()))}
    for term in glossary.terms.values():
        for name, kind in [(term.slug, "slug"), (term.title, "title"), *((a, "alias") for a in term.aliases), *(((term.abbreviation, "abbreviation"),) if term.abbreviation else ())]:
            key = normalize_name(name)
            if key in wanted and not (wanted[key] == "abbreviation" and kind == "abbreviation"):
                print(f"glossary new: {wanted[key]} '{name}' clashes with the {kind} of {term.path}", file=sys.stderr)
                return 1
    path = loaded.project.glossary_dir / section / f"{slug}.md"
    if path.exists():
        print(f"glossary new: {path} already exists", file=sys.stderr)
        return 1
    order = {s.slug: list(s.terms) for s in glossary.sections}
    order.setdefault(section, []).append(slug)
    text = TEMPLATE.format(title=title, abbr=f"abbreviation: {abbr}\n" if abbr else "")
    write_text(path, text)
    write_text(loaded.project.glossary_dir / TOC_NAME, dump_toc(order))
    print(f"created {path.relative_to(root)} and added '{slug}' to glossary/{TOC_NAME} under {section}")
    print("next: edit it, then `glossary check` and `glossary serve` to preview")
    return 0
