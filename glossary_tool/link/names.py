"""Which names refer to which term, and what a misspelled name probably meant."""

from __future__ import annotations

import difflib
from collections import defaultdict
from dataclasses import dataclass, field

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.model import Term
from glossary_tool.text import normalize_name


@dataclass(frozen=True)
class NameIndex:
    slugs: dict[str, str]
    names: dict[str, tuple[str, ...]]
    #: Names already resolved, as written: a glossary writes the same few names many times.
    _resolved: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False, repr=False)

    def resolve(self, name: str) -> tuple[str, ...]:
        found = self._resolved.get(name)
        if found is None:
            key = normalize_name(name)
            found = (self.slugs[key],) if key in self.slugs else self.names.get(key, ())
            self._resolved[name] = found
        return found

    def suggest(self, name: str, limit: int = 3) -> list[str]:
        key = normalize_name(name)
        pool = list(self.slugs) + list(self.names)
        matches = difflib.get_close_matches(key, pool, n=limit * 3, cutoff=0.6)
        out: list[str] = []
        for match in matches:
            slug = self.slugs.get(match) or self.names[match][0]
            if slug not in out:
                out.append(slug)
        return out[:limit]


def build_index(terms: list[Term]) -> tuple[NameIndex, list[Diagnostic]]:
    out: list[Diagnostic] = []
    slugs: dict[str, str] = {}
    holders: dict[str, list[tuple[Term, str]]] = defaultdict(list)
    for term in terms:
        slugs[term.slug] = term.slug
        seen: set[str] = set()
        for field_name, name in [("title", term.title), ("abbreviation", term.abbreviation), *(("aliases", a) for a in term.aliases)]:
            if not name:
                continue
            key = normalize_name(name)
            if key in seen:
                continue
            seen.add(key)
            holders[key].append((term, field_name))
    names: dict[str, tuple[str, ...]] = {}
    titles: dict[str, Term] = {}
    for key, owners in holders.items():
        unique = []
        for term, field_name in owners:
            if term.slug not in [t.slug for t, _ in unique]:
                unique.append((term, field_name))
        names[key] = tuple(t.slug for t, _ in unique)
        if key in slugs and any(t.slug != slugs[key] for t, _ in unique):
            for term, field_name in unique:
                if term.slug != slugs[key]:
                    out.append(error(term.path, term.line_of(field_name), 1, "name-ambiguous", f"{field_name} '{_original(term, field_name, key)}' is the slug of term '{slugs[key]}'; [[...]] would be ambiguous"))
        if len(unique) > 1 and not all(f == "title" for _, f in unique):  # equal titles: duplicate-title
            for term, field_name in unique:
                others = ", ".join(f"'{t.slug}'" for t, _ in unique if t.slug != term.slug)
                out.append(error(term.path, term.line_of(field_name), 1, "name-ambiguous", f"{field_name} '{_original(term, field_name, key)}' is also a name of {others}; [[...]] by this name would be ambiguous"))
    for term in terms:
        key = normalize_name(term.title)
        if key in titles:
            other = titles[key]
            out.append(error(term.path, term.line_of("title"), 1, "duplicate-title", f"title '{term.title}' is already used by {other.path}"))
        else:
            titles[key] = term
    return NameIndex(slugs, names), out


def _original(term: Term, field_name: str, key: str) -> str:
    if field_name == "title":
        return term.title
    if field_name == "abbreviation":
        return term.abbreviation or key
    for alias in term.aliases:
        if normalize_name(alias) == key:
            return alias
    return key
