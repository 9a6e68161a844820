"""``glossary stats``: the size and shape of the glossary, per section."""

from __future__ import annotations

import networkx as nx

from glossary_tool.model import Glossary


def format_stats(glossary: Glossary, graph: nx.DiGraph, top: int = 10) -> str:
    rows = []
    total_terms = total_words = total_links = total_snippets = 0
    for section in glossary.sections:
        terms = [glossary.terms[s] for s in section.terms]
        words = sum(t.words for t in terms)
        links = sum(len(glossary.links.get(t.slug, ())) for t in terms)
        snippets = sum(len(t.snippets) for t in terms)
        rows.append((section.slug, len(terms), words, links, snippets))
        total_terms += len(terms)
        total_words += words
        total_links += links
        total_snippets += snippets
    lines = [f"{'section':<18}{'terms':>7}{'words':>9}{'links':>8}{'snippets':>10}"]
    for slug, terms, words, links, snippets in rows:
        lines.append(f"{slug:<18}{terms:>7}{words:>9,}{links:>8,}{snippets:>10}")
    lines.append(f"{'total':<18}{total_terms:>7}{total_words:>9,}{total_links:>8,}{total_snippets:>10}")
    orphans = [s for s in glossary.terms if not glossary.backlinks.get(s)]
    lines.append("")
    lines.append(f"orphans ({len(orphans)}): {', '.join(sorted(orphans)) or 'none'}")
    ranked = sorted(glossary.terms, key=lambda s: (-len(glossary.backlinks.get(s, ())), s))[:top]
    lines.append("most-linked terms (distinct inbound terms):")
    for slug in ranked:
        lines.append(f"  {len(glossary.backlinks.get(slug, ())):>4}  {slug}")
    lines.append(f"graph: {sum(1 for _, d in graph.nodes(data=True) if d.get('kind') == 'term')} term nodes, "
                 f"{sum(1 for *_, d in graph.edges(data=True) if d.get('kind') == 'xref')} distinct term-to-term edges")
    return "\n".join(lines)
