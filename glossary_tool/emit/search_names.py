"""Search by name: every name a reader may type for a term, for the search worker to rank by.

Material's search ranks by full text (lunr with a trailing wildcard), so "SM" found pages
full of ``sm_90`` before the Streaming Multiprocessor, and other vendors' names ("wavefront",
"LDS") were not special at all. The site's search worker (glossary/assets/search-worker.js)
wraps Material's and reorders its results with this table: a term whose title,
abbreviation, alias or other-vendor name equals the query comes first, then terms with a
name that starts with it, then Material's full-text order. The table is small (a few names
per term) and is fetched once, from the site itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from glossary_tool.model import VENDORS, Glossary, Term

#: Where the site serves the table: beside search-worker.js, which fetches it.
SEARCH_NAMES_SRC = "assets/search-names.json"
#: How strongly a kind of name claims a term, lower first, when two terms share a name.
TITLE, ALIAS, VENDOR, VENDOR_DETAIL = 0, 1, 2, 3
#: A vendor's entry is prose ("CDNA 2 (Instinct MI200 series), the contemporary generation");
#: only short phrases in it are names.
MAX_NAME_WORDS = 4
_PAREN = re.compile(r"\(([^()]*)\)")


def normalize(name: str) -> str:
    """What the worker compares: case-folded, inner spaces collapsed (the worker does the same)."""
    return " ".join(name.casefold().split())


def _top_level_split(text: str, separators: str) -> list[str]:
    """Split at ``separators`` outside parentheses."""
    parts, depth, current = [], 0, []
    for ch in text:
        depth += ch == "("
        depth -= ch == ")" and depth > 0
        if ch in separators and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


_XREF = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]")


def _plain(value: str) -> str:
    """An entry as read: ``[[compute-unit|Compute Unit]] (CU)`` -> ``Compute Unit (CU)``."""
    return _XREF.sub(lambda m: m.group(2) if m.group(2) is not None else m.group(1), value)


def vendor_names(value: str) -> list[tuple[str, int]]:
    """Names in one ``equivalents`` entry: each clause's head, and short names in its parentheses.

    ``"Local Data Share (LDS)"`` -> Local Data Share, LDS; ``"wavefront (wave64 on CDNA)"`` ->
    wavefront, wave64 on CDNA; a clause that is a sentence gives nothing.
    """
    names: list[tuple[str, int]] = []
    for clause in _top_level_split(_plain(value), ";"):
        first = _top_level_split(clause, ",")[0]
        head = _PAREN.sub("", first).strip().strip("\"'")
        if head and len(head.split()) <= MAX_NAME_WORDS:
            names.append((head, VENDOR))
        for part in re.split(r" / | and ", head) if head else ():  # "rocBLAS and hipBLASLt", "hipcc / amdclang++"
            if part.strip() != head and len(part.split()) <= MAX_NAME_WORDS:
                names.append((part.strip(), VENDOR))
        for inner in _PAREN.findall(first):
            for piece in re.split(r"[,;/]", inner):
                piece = piece.strip()
                if piece and len(piece.split()) <= MAX_NAME_WORDS:
                    names.append((piece, VENDOR_DETAIL))
    return names


def term_names(term: Term) -> list[tuple[str, int]]:
    """Every name of ``term`` with its kind, each normalized name once (the strongest kind)."""
    found: list[tuple[str, int]] = [(term.title, TITLE), (_PAREN.sub("", term.title).strip(), TITLE)]
    for inner in _PAREN.findall(term.title):  # "Hopper Architecture (H100, H200)"
        found += [(p.strip(), ALIAS) for p in inner.split(",") if p.strip()]
    if term.abbreviation:
        found.append((term.abbreviation, TITLE))
    found += [(alias, ALIAS) for alias in term.aliases]
    for key, value in term.equivalents:
        if key in VENDORS:
            found += vendor_names(value)
    best: dict[str, int] = {}
    for name, kind in found:
        key = normalize(name)
        if key and (key not in best or kind < best[key]):
            best[key] = kind
    return sorted(best.items(), key=lambda item: (item[1], item[0]))


def names_index(glossary: Glossary, location: Callable[[Term], str]) -> dict:
    """``{"terms": [[location, [[name, kind], ...]], ...]}`` in reading order.

    ``location(term)`` is the term page's address as the search index writes it
    (``device-hardware/streaming-multiprocessor/``).
    """
    return {"terms": [[location(term), [[name, kind] for name, kind in term_names(term)]] for term in glossary.ordered_terms()]}


def names_json(glossary: Glossary, location: Callable[[Term], str]) -> str:
    return json.dumps(names_index(glossary, location), ensure_ascii=False, separators=(",", ":"), sort_keys=True)
