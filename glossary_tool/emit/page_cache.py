"""Cache keys of finished term pages across builds: a repeated build renders and draws only
the pages whose inputs changed (``.cache/``, load/cache.py).

A term page's HTML is a function of its own file, of what it shows about other terms
(titles, summaries in tooltips, headings that anchors point at, backlinks, the link graph
its drawing shows, equivalents), of the records of snippets, the diagrams and the opcode
table, of the site's configuration and the page's URL, and of the page dates git gives.
Rather than track which of the other terms one page depends on, :func:`site_digest`
hashes everything that is not the page's own file but could show on some page; a body
edit that leaves titles, summaries, headings and links as they were changes no digest, so
only the edited page is rendered again. Anything else (a new link, a summary, a record
from a verify run, mkdocs.yml) renders every page, as a first build does. A key never
needs invalidating: a changed input is another key, and the tool's own source is part of
every key (``key``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from collections.abc import Iterable
from pathlib import Path

from glossary_tool.load.cache import key
from glossary_tool.model import Glossary, Term


def _glossary_facts(glossary: Glossary) -> Iterable[str]:
    """Everything about the glossary that one term's page can show of another term."""
    for section in (*glossary.sections, *([glossary.home] if glossary.home is not None else [])):
        yield repr((section.slug, section.title, section.summary, section.path, section.terms))
    for slug, term in glossary.terms.items():
        yield repr((slug, term.section, term.path, term.title, term.summary, term.abbreviation, term.aliases, term.equivalents, term.diagrams, [(h.level, h.text, h.anchor) for h in term.headings], [s.name for s in term.snippets]))
        yield repr([(link.target, link.xref.anchor) for link in glossary.links.get(slug, ())])
        yield repr(glossary.backlinks.get(slug, ()))
        yield repr(sorted((vendor, link.target, link.xref.anchor) for vendor, link in glossary.equivalent_links.get(slug, {}).items()))


def _tree_bytes(folder: Path) -> Iterable[bytes]:
    """Every file under ``folder``: its path and its bytes (records, PTX, SASS)."""
    if not folder.is_dir():
        return
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        yield path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes()


def site_digest(glossary: Glossary, *, records_dir: Path, config: bytes, extra: Iterable[str]) -> str:
    """The digest of every input a term page shares with the others (see the module text).

    ``config`` is mkdocs.yml's bytes; ``extra`` what else the adapter knows the pages show
    (the site's term URLs, the parsed diagrams and opcode table).
    """
    digest = hashlib.sha256(config)
    digest.update(importlib.metadata.version("Pygments").encode())
    for part in (*_glossary_facts(glossary), *extra):
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "little") + data)
    for data in _tree_bytes(records_dir):
        digest.update(len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


def page_key(site: str, term: Term, source: bytes, url: str, dates: str) -> str:
    """The cache key of ``term``'s finished page at ``url``: the shared digest, its file's
    bytes (``source``) and its page dates."""
    return key("term page", site, term.path, source, url, dates)


__all__ = ["page_key", "site_digest"]
