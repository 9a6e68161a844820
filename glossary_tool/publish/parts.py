"""HTML fragments added to each term page: its dates, "Cite this term", and the footer's build line.

Each function returns one self-contained element built with html.escape, so it can be
appended to a page whatever renderer produced the rest.
"""

from __future__ import annotations

import datetime as dt
import html

from glossary_tool.emit.html_parts import highlight
from glossary_tool.model import Term
from glossary_tool.publish.history import NO_GIT, FileDates, History, Verified

#: Who the citations name: the glossary is written by many people, credited in git history.
AUTHOR = "GPU Glossary contributors"


def iso_date(when: dt.datetime) -> str:
    return when.strftime("%Y-%m-%d")


def _time(when: dt.datetime) -> str:
    day = iso_date(when)
    return f'<time datetime="{day}">{day}</time>'


def updated_phrase(dates: FileDates) -> str:
    """Plain text: "2026-11-22", "on or before 2026-11-22 (why)" or "unknown (why)"."""
    if dates.updated is None:
        return f"unknown ({dates.note})" if dates.note else "unknown"
    if dates.exact:
        return iso_date(dates.updated)
    return f"on or before {iso_date(dates.updated)}" + (f" ({dates.note})" if dates.note else "")


def dates_html(dates: FileDates, verified: Verified | None, snippets: int) -> str:
    """When the text last changed (git) and, for a term with snippets, when they last passed on a GPU."""
    if dates.updated is None:
        text = f"Text last changed: {html.escape(updated_phrase(dates))}"
    elif dates.exact:
        text = f"Text last changed {_time(dates.updated)}"
    else:
        note = f" ({html.escape(dates.note)})" if dates.note else ""
        text = f"Text last changed on or before {_time(dates.updated)}{note}"
    parts = [f'<span class="glossary-updated">{text}</span>']
    if snippets:
        if verified is None:
            run = "Snippets not yet verified on a GPU"
        else:
            day = html.escape(verified.date)
            on = f" on {html.escape(', '.join(verified.gpus))}" if verified.gpus else ""
            count = f"{verified.passed} of {verified.total}" if verified.passed != verified.total else f"all {verified.total}" if verified.total > 1 else "its snippet"
            run = f'Snippets last verified <time datetime="{day}">{day}</time>{on} ({count} passed)'
        parts.append(f'<span class="glossary-verified">{run}</span>')
    return f'<p class="glossary-dates">{" · ".join(parts)}</p>'


def _bibtex_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "~":
            out.append("\\textasciitilde{}")
        elif ch == "^":
            out.append("\\textasciicircum{}")
        elif ch == "\\":
            out.append("\\textbackslash{}")
        else:
            out.append(ch)
    return "".join(out)


def bibtex(term: Term, url: str, site_name: str, dates: FileDates) -> str:
    """A ``@misc`` entry: title kept in its case, the URL, and the last-updated date as the note."""
    lines = [
        f"@misc{{gpu-glossary-{term.slug},",
        f"  author       = {{{{{_bibtex_escape(AUTHOR)}}}}},",
        f"  title        = {{{{{_bibtex_escape(term.display_title)}}}}},",
        f"  howpublished = {{{_bibtex_escape(site_name)}}},",
    ]
    if dates.updated is not None:
        lines.append(f"  year         = {{{dates.updated.year}}},")
        lines.append(f"  month        = {dates.updated.strftime('%b').lower()},")
    lines.append(f"  url          = {{{url}}},")
    lines.append(f"  note         = {{Last updated {_bibtex_escape(updated_phrase(dates))}}},")
    lines.append("}")
    return "\n".join(lines) + "\n"


def citation_text(term: Term, url: str, site_name: str, dates: FileDates) -> str:
    """One plain-text reference: author, term, glossary, last-updated date, URL."""
    return f"{AUTHOR}. “{term.display_title}.” {site_name}. Last updated {updated_phrase(dates)}. {url}"


def cite_html(term: Term, url: str, site_name: str, dates: FileDates) -> str:
    """"Cite this term": a <details> (opened with Enter or Space on its summary) holding both forms.

    Out of the search index (a citation repeats the title and URL on every page; its BibTeX
    was a third of what the indexer had left to parse): emit/search_text.py cuts the div."""
    plain = html.escape(citation_text(term, url, site_name, dates))
    return (
        "<div data-search-exclude>"
        '<details class="quote glossary-cite">'
        "<summary>Cite this term</summary>"
        f'<p class="glossary-cite-text">{plain}</p>'
        f"<p>BibTeX:</p>{highlight(bibtex(term, url, site_name, dates), 'bibtex')}"
        "</details></div>"
    )


def build_note_html(version: str, history: History, repo_url: str | None) -> str:
    """The footer's line: the tool version and the content commit the site was built from."""
    tool = f"Built with gpu-glossary {html.escape(version)}"
    if history.head is None:
        return f'<div class="glossary-build">{tool}; content commit unknown ({NO_GIT})</div>'
    short = html.escape(history.head[:12])
    commit = f"<code>{short}</code>"
    if repo_url:
        commit = f'<a href="{html.escape(repo_url.rstrip("/"))}/commit/{html.escape(history.head)}">{commit}</a>'
    dirty = " with uncommitted changes" if history.dirty else ""
    return f'<div class="glossary-build">{tool} from content commit {commit}{dirty}</div>'
