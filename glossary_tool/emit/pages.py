"""Generated pages: home, section indexes and the A-Z index, as Markdown."""

from __future__ import annotations

from collections import defaultdict

from glossary_tool.emit.equivalents import equivalent_cell
from glossary_tool.emit.links import Linker, RelativeLinker, term_src
from glossary_tool.emit.markdown import display_text, md_escape_text, md_link
from glossary_tool.link.equivalents import equivalent_target
from glossary_tool.model import Glossary, Section, Term

AZ_SRC = "a-z.md"
EPUB_SRC = "downloads/gpu-glossary.epub"
PDF_SRC = "downloads/gpu-glossary.pdf"
HOME_SRC = "index.md"


def section_src(section: Section) -> str:
    return f"{section.slug}/index.md"


def home_parts(glossary: Glossary, extra_links: list[tuple[str, str]] | None = None) -> list[str | Term]:
    """The home page as generated Markdown pieces around the home intro (a Term whose xrefs resolve)."""
    linker = RelativeLinker(HOME_SRC)
    title = glossary.home.title if glossary.home else "GPU Glossary"
    parts: list[str | Term] = [f"# {md_escape_text(title)}\n"]
    if glossary.home is not None and glossary.home.page is not None:
        parts.append(glossary.home.page)
    total = sum(len(s.terms) for s in glossary.sections)
    pages = [("A-Z index", AZ_SRC), ("Rosetta: names on other platforms", ROSETTA_SRC), *(extra_links or [])]
    lists = ["Also: " + " · ".join(md_link(label, linker.to_page(src)) for label, src in pages) + f". {total} terms in all."]
    for section in glossary.sections:
        terms = [glossary.terms[s] for s in section.terms]
        heading = f"## {md_link(section.title, linker.to_page(section_src(section)))}"
        lead = md_escape_text(section.summary) if section.summary else ""
        items = ", ".join(md_link(t.display_title, linker.to_term(t), t.summary) for t in terms)
        lists.append("\n\n".join(p for p in (heading, lead, items) if p))
    parts.append("\n\n".join(lists) + "\n")
    return parts


def az_entries(glossary: Glossary) -> list[tuple[str, str, str | None]]:
    """(name, slug, canonical title if the name is an alias/abbreviation), sorted."""
    entries: list[tuple[str, str, str | None]] = []
    for term in glossary.ordered_terms():
        entries.append((term.title, term.slug, None))
        if term.abbreviation:
            entries.append((term.abbreviation, term.slug, term.title))
        entries.extend((alias, term.slug, term.title) for alias in term.aliases)
    return sorted(entries, key=lambda e: (e[0].casefold().lstrip("_"), e[0], e[1]))


def az_markdown(glossary: Glossary, linker: Linker | None = None) -> str:
    linker = linker or RelativeLinker(AZ_SRC)
    groups: dict[str, list[str]] = defaultdict(list)
    for name, slug, canonical in az_entries(glossary):
        term = glossary.terms[slug]
        first = name.lstrip("_")[:1].upper()
        letter = first if first.isalpha() else "#"
        entry = md_link(name, linker.to_term(term), term.summary)
        if canonical:
            entry += f" → {md_escape_text(canonical)}"
        groups[letter].append(f"- {entry}")
    parts = ["# A-Z index", "Every term, abbreviation and alias of the glossary. An arrow names the term an abbreviation or alias belongs to."]
    letters = sorted(groups, key=lambda k: (k == "#", k))
    parts.append(" · ".join(f"[{letter}](#{'other' if letter == '#' else letter.lower()})" for letter in letters))
    for letter in letters:
        label = "Other" if letter == "#" else letter
        parts.append(f"## {label}\n\n" + "\n".join(groups[letter]))  # heading id: the letter, or "other"
    return "\n\n".join(parts) + "\n"


__all__ = ["AZ_SRC", "HOME_SRC", "ROSETTA_SRC", "rosetta_markdown", "rosetta_rows", "az_entries", "az_markdown", "home_parts", "section_src", "term_src"]


ROSETTA_SRC = "rosetta.md"


def rosetta_rows(glossary: Glossary) -> list[tuple[Term, dict[str, str]]]:
    """Terms with at least one vendor equivalent, in reading order."""
    from glossary_tool.model import VENDORS

    rows = []
    for term in glossary.ordered_terms():
        names = {k: equivalent_cell(glossary, term, k, v, display_text)[0] for k, v in term.equivalents if k in VENDORS}
        if names:
            rows.append((term, names))
    return rows


def rosetta_markdown(glossary: Glossary, linker: Linker | None = None) -> str:
    """One table of CUDA terms against other vendors' names, each cell linking to the term."""
    from glossary_tool.model import VENDORS

    linker = linker or RelativeLinker(ROSETTA_SRC)
    rows = rosetta_rows(glossary)
    parts = [
        "# Rosetta: CUDA terms on other platforms",
        "The same idea under other vendors' names, built from the *Equivalents* of every term. "
        "A cell links to that platform's own page where the glossary has one (the AMD section), otherwise to the CUDA term it translates; "
        "search finds a term by any of these names. "
        "An empty cell means the platform has no equivalent, or none we have checked against that vendor's documentation.",
    ]
    for section in glossary.sections:
        section_rows = [(t, n) for t, n in rows if t.section == section.slug]
        if not section_rows:
            continue
        header = "| CUDA term | " + " | ".join(VENDORS.values()) + " |"
        lines = [f"## {md_escape_text(section.title)}", "", header, "| " + " | ".join(["---"] * (len(VENDORS) + 1)) + " |"]
        for term, names in section_rows:
            url = linker.to_term(term)
            cells = [md_link(term.display_title, url, term.summary)]
            for key in VENDORS:
                value = names.get(key, "")
                page = equivalent_target(glossary, term, key)
                cells.append((md_link(value, linker.to_term(*page), page[0].summary) if page else md_link(value, url, f"{VENDORS[key]} name for {term.title}")).replace("|", "&#124;") if value else "")
            lines.append("| " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"
