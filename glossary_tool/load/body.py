"""Parse a term body once with markdown-it-py and collect what later stages need.

From the token stream we take cross-references (with file line and column), headings
(with the anchors the site will generate), verify snippets and their expected output,
and every structural problem: unterminated fences, unsafe HTML, bad snippet options.
"""

from __future__ import annotations

import bisect
import dataclasses
import difflib
import functools
import html
import operator
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from markdown_it import MarkdownIt
from markdown_it.token import Token

from glossary_tool.diagnostics import Diagnostic, error, warning
from glossary_tool.load.heading_attrs import read_list
from glossary_tool.load.xref_rule import XREF_RE, make_parser
from glossary_tool.model import Heading, Snippet, XRef
from glossary_tool.text import count_words, find_shown, shown_skeleton, slugify

LANGUAGES = ("cuda", "python", "ptx", "console")
SNIPPET_OPTIONS = ("name", "arch", "requires", "timeout", "flags", "gpus", "args")
_OPTION_RE = re.compile(r'(?P<key>[A-Za-z_][\w-]*)=(?:"(?P<quoted>[^"]*)"|(?P<bare>\S+))')
_OPTION_CHECKS = {
    "name": (re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"), "letters, digits, '.', '_' and '-' (at most 64)"),
    "arch": (re.compile(r"^(sm|compute)_\d{2,3}[af]?$"), "an nvcc architecture such as sm_90 or sm_90a"),
    "requires": (re.compile(r"^\d{1,2}\.\d$"), "a compute capability such as 9.0 or 10.0"),
    "timeout": (re.compile(r"^\d{1,4}(\.\d+)?$"), "a number of seconds"),
    "gpus": (re.compile(r"^[1-9]\d?$"), "a positive number of GPUs"),
    "flags": (re.compile(r"^[^;&|`$<>\\]*$"), "plain nvcc flags (no shell characters)"),
    "args": (re.compile(r"^[^;&|`$<>\\]*$"), "plain arguments (no shell characters)"),
}
_UNSAFE_TAG = re.compile(r"<\s*/?\s*(script|iframe|frame|frameset|object|embed|applet|base|meta)\b", re.I)
# HTML parsers also split attributes at '/' and right after a closing quote: <img/src=x/onerror=f()>
_EVENT_ATTR = re.compile(r"<[^>]*?[\s/\"']on[a-z]+\s*=", re.I | re.S)
_URL_ATTR = re.compile(r"[\s/\"'](?:href|src|action|formaction|xlink:href|srcset|poster|data|background|cite|codebase)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>\"']+)", re.I)
# Markdown link destinations: [t](dest), [t](<dest>), reference definitions, <scheme:...> autolinks
_MD_DEST = re.compile(r"\]\(\s*<([^>\n]*)>|\]\(\s*([^\s)]+)|^ {0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)|<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)>", re.M)
# attr_list (enabled in the site config) puts any attribute on the element: {: onclick="..." }
_ATTR_LIST = re.compile(r"\{:?([^}\n]*)\}")
_ATTR_EVENT = re.compile(r"(?:^|[\s\"'])on[a-z]+\s*=", re.I)
_ATTR_URL = re.compile(r"(?:^|\s)(?:href|src|action|formaction|xlink:href|srcset|poster|data)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"']+)", re.I)
_URL_NOISE = re.compile(r"[\x00-\x20\x7f]+")  # browsers drop tabs and newlines inside URLs
_BAD_SCHEMES = ("javascript:", "vbscript:", "data:")
_CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?\1")
#: Each pattern of ``_check_html`` needs one of these (a tag, an attribute, an attr_list, a
#: link destination or reference definition): text with none is skipped without the regexes.
_HTML_MARKERS = ("<", "=", "{", "](", "]:")
_NEWLINE = re.compile("\n")
_FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*$")

_PARSER: MarkdownIt | None = None


def parser() -> MarkdownIt:
    global _PARSER
    if _PARSER is None:
        _PARSER = make_parser()
    return _PARSER


#: Token streams kept by :func:`parse_tokens`, most recently used last. A 250-word body's
#: stream holds about 60 KB of Python objects, so the bound matters (BENCHMARKS.md, peak
#: memory): a build forgets a term's stream once its page is rendered (:func:`forget_tokens`).
TOKEN_CACHE_SIZE = 16384
_TOKENS: dict[str, tuple[Token, ...]] = {}


def parse_tokens(body: str) -> tuple[Token, ...]:
    """The token stream of a body, parsed once per process and shared by `check` and every
    renderer (tokens are never mutated after this). Each ``xref`` token's meta gains its
    0-based body ``line``/``col`` and exclusive ``end_line``/``end_col``, so diagnostics
    point at the source and the Markdown copy replaces exactly the written text.

    Kept until :func:`forget_tokens` or until TOKEN_CACHE_SIZE newer bodies push it out.
    Raises RecursionError for Markdown nested too deeply to parse (see parse_body).
    """
    tokens = _TOKENS.pop(body, None)
    if tokens is None:
        tokens = parse_once(body)
        if len(_TOKENS) >= TOKEN_CACHE_SIZE:
            _TOKENS.pop(next(iter(_TOKENS)), None)
    _TOKENS[body] = tokens
    return tokens


def parse_once(text: str) -> tuple[Token, ...]:
    """:func:`parse_tokens` without keeping the result: for a text parsed once in a process
    (a generated page, a Markdown copy), whose stream would only crowd out the bodies'."""
    # Parsed with a final "\n" where the text has none: the same blocks and line maps (no
    # line starts after a final "\n"), and mdit_py_plugins' admonition rule (0.7) reads past
    # the end of a source whose last line is an empty quote line without one ("> | a |\n>
    # | - |\n> " raised IndexError, a traceback from `glossary check`).
    tokens = parser().parse(text if not text or text.endswith("\n") else text + "\n")
    lines = text.split("\n")
    _locate_xrefs(lines, tokens)
    global _LAST_LINES
    _LAST_LINES = (text, lines)  # one assignment: a thread reading it sees a matching pair
    return tuple(tokens)


#: The text parse_once last split into lines, and its lines: parse_body, which parses a body
#: (parse_once) and then reads its lines, takes them from here instead of splitting it again.
#: Neither changes the list.
_LAST_LINES: tuple[str | None, list[str]] = (None, [])


def _lines(text: str) -> list[str]:
    """``text.split("\n")``, the list parse_once made where it was the last text parsed."""
    last, lines = _LAST_LINES
    return lines if last is text else text.split("\n")


def holds_tokens(body: str) -> bool:
    """Whether this process keeps the token stream of ``body`` (a render would not parse it)."""
    return body in _TOKENS


def forget_tokens(bodies: Iterable[str] | None = None) -> None:
    """Drop the kept streams of ``bodies`` (all of them: None). A build calls it for a term
    whose page is rendered; a later :func:`parse_tokens` of the body parses it again."""
    if bodies is None:
        _TOKENS.clear()
        return
    for body in bodies:
        _TOKENS.pop(body, None)


_T = TypeVar("_T")
_MISSING = object()
#: Results of :func:`precomputed` functions that another process computed from the tokens it
#: parsed, by (function, body): see files.parse_terms, which parses terms in workers.
_PRECOMPUTED: dict[tuple[str, str], Any] = {}


def precomputed(wanted: Callable[[str], bool] | None = None) -> Callable[[Callable[[str], _T]], Callable[[str], _T]]:
    """Mark a pure function of a body that reads its tokens as one a worker process that
    parsed the body may compute instead (for the bodies ``wanted`` accepts, all if None):
    called here, it returns the worker's result once (as :func:`remember` stored it), else
    computes it, parsing the body if need be. A check whose terms were parsed in workers
    thus never parses those bodies again."""

    def mark(fn: Callable[[str], _T]) -> Callable[[str], _T]:
        name = f"{fn.__module__}.{fn.__qualname__}"

        @functools.wraps(fn)
        def wrapper(body: str) -> _T:
            found = _PRECOMPUTED.pop((name, body), _MISSING)
            return fn(body) if found is _MISSING else found  # type: ignore[return-value]

        wrapper.precomputed = (name, wanted)  # type: ignore[attr-defined]
        return wrapper

    return mark


def precompute(functions: tuple[Callable[[str], Any], ...], body: str) -> dict[tuple[str, str], Any]:
    """What each :func:`precomputed` function gives for ``body`` (where it wants it), to send
    to the process that will ask; one that raises is left out: asked there, it raises the
    same way."""
    out: dict[tuple[str, str], Any] = {}
    for fn in functions:
        name, wanted = fn.precomputed  # type: ignore[attr-defined]
        if wanted is not None and not wanted(body):
            continue
        try:
            out[(name, body)] = fn(body)
        except RecursionError:
            continue
    return out


def remember(results: dict[tuple[str, str], Any]) -> None:
    """Keep what :func:`precompute` gave in another process, for the first call here."""
    _PRECOMPUTED.update(results)


@dataclass(frozen=True)
class ParsedBody:
    xrefs: tuple[XRef, ...]
    headings: tuple[Heading, ...]
    snippets: tuple[Snippet, ...]
    words: int
    diagnostics: tuple[Diagnostic, ...]


def inline_text(token: Token) -> str:
    """An inline token's text as a reader sees it (xrefs by their shown text): heading anchors."""
    parts = []
    for child in token.children or []:
        if child.type == "xref":
            meta = child.meta
            parts.append((meta["text"] if meta["text"] is not None else meta["target"]) + meta["suffix"])
        elif child.type in ("text", "code_inline", "xref_literal"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def parse_options(info: str) -> tuple[list[tuple[str, str]], list[str]]:
    """``cuda verify name="x" arch=sm_90`` -> ([("name","x"), ("arch","sm_90")], problems)."""
    rest = info.split(None, 1)[1] if len(info.split(None, 1)) > 1 else ""
    rest = re.sub(r"(^|\s)verify(?=\s|$)", " ", rest, count=1)
    options: list[tuple[str, str]] = []
    problems: list[str] = []
    pos = 0
    for match in _OPTION_RE.finditer(rest):
        leftover = rest[pos : match.start()].strip()
        if leftover:
            problems.append(f"cannot read '{leftover}' in the snippet options; write key=\"value\"")
        pos = match.end()
        value = match.group("quoted") if match.group("quoted") is not None else match.group("bare")
        options.append((match.group("key"), value))
    leftover = rest[pos:].strip()
    if leftover:
        problems.append(f"cannot read '{leftover}' in the snippet options; write key=\"value\"")
    return options, problems


def _fence_closed(lines: list[str], token: Token) -> bool:
    start, end = token.map or (0, 0)
    if end - start < 2:
        return False
    last = lines[end - 1] if end - 1 < len(lines) else ""
    match = _FENCE_CLOSE.match(last)
    return bool(match) and match.group(1)[0] == token.markup[0] and len(match.group(1)) >= len(token.markup)


def _bad_scheme(url: str) -> str | None:
    """The scheme a browser would follow, when it is one that runs script or embeds a document.

    Entities are decoded (``jav&#x61;script:``, ``javascript&colon;``) and whitespace and control
    characters dropped (``java\tscript:``) first, as a browser does with an attribute value;
    Python-Markdown, which renders the site, passes both through untouched.
    """
    seen = _URL_NOISE.sub("", html.unescape(url.strip("\"'"))).lower()
    return next((scheme[:-1] for scheme in _BAD_SCHEMES if seen.startswith(scheme)), None)


def _may_hold_html(content: str) -> bool:
    """Whether ``content`` holds one of :data:`_HTML_MARKERS`. Five substring tests, not one
    search for the alternatives: a regex that opens with alternatives is tried at every
    character through a call per character, where ``in`` runs a vectorised memchr (2% of a
    term's parse). Written out: ``any(map(content.__contains__, ...))`` cost as much again."""
    return "<" in content or "=" in content or "{" in content or "](" in content or "]:" in content


def _check_html(path: str, line: int, content: str, out: list[Diagnostic]) -> None:
    """Unsafe tags, event handlers and script URLs in raw HTML or Markdown text (code removed).

    ``line`` is the file line of the first line of ``content``; each problem is reported on
    the line where it starts.
    """

    if not _may_hold_html(content):  # none of the patterns can match
        return

    def at(pos: int) -> int:
        return line + content.count("\n", 0, pos)

    tag = _UNSAFE_TAG.search(content)
    if tag:
        out.append(error(path, at(tag.start()), 1, "unsafe-html", f"raw <{tag.group(1).lower()}> is not allowed in term files: it can run script or load other pages"))
    attr_lists = list(_ATTR_LIST.finditer(content))
    event = _EVENT_ATTR.search(content) or next((m for m in attr_lists if _ATTR_EVENT.search(m.group(1))), None)
    if event:
        out.append(error(path, at(event.start()), 1, "unsafe-html", "HTML event-handler attributes (on...=) are not allowed in term files"))
    urls = [(m.start(), m.group(1)) for m in _URL_ATTR.finditer(content)]
    urls += [(m.start(), next(g for g in m.groups() if g is not None)) for m in _MD_DEST.finditer(content)]
    urls += [(m.start(), u.group(1)) for m in attr_lists for u in _ATTR_URL.finditer(m.group(1))]
    bad = min(((pos, scheme) for pos, url in urls if (scheme := _bad_scheme(url))), default=None)
    if bad:
        out.append(error(path, at(bad[0]), 1, "unsafe-url", f"'{bad[1]}:' URLs are not allowed in term files"))


def _truncated_at(body: str, tokens: list[Token]) -> int | None:
    """0-based body line from which markdown-it dropped the text because nesting hit maxNesting.

    markdown-it silently skips the rest of the document there (its guard against deep
    recursion). Only a token stream that reaches the limit is re-parsed without it, to tell
    a truncated parse from one that merely came close.
    """
    limit = parser().options["maxNesting"]
    if not tokens or max(map(_LEVEL, tokens)) < limit - 1:
        return None
    # the first line after the deepest parsed block: where the dropped text begins
    deep_blocks = [t.map for t in tokens if t.map and t.level >= limit - 2]
    deepest = max((t.map[1] for t in tokens if t.map and t.nesting == 0 and t.level >= limit - 2), default=deep_blocks[0][0] if deep_blocks else 0)
    global _DEEP_PARSER
    if _DEEP_PARSER is None:
        _DEEP_PARSER = make_parser()
        _DEEP_PARSER.options["maxNesting"] = 10_000
    try:
        full = _DEEP_PARSER.parse(body)
    except RecursionError:
        return deepest
    return deepest if len(full) != len(tokens) else None


_DEEP_PARSER: MarkdownIt | None = None
_LEVEL = operator.attrgetter("level")


#: The block tokens other than ``inline`` that parse_body reads.
_BLOCK_KINDS = frozenset(("fence", "code_block", "html_block", "heading_open"))


def parse_body(path: str, body: str, offset: int, *, is_term: bool = True) -> ParsedBody:
    """Parse ``body`` whose first line is file line ``offset + 1``."""
    out: list[Diagnostic] = []
    try:
        tokens = list(parse_tokens(body))
    except RecursionError:
        return ParsedBody((), (), (), 0, (error(path, offset + 1, 1, "markdown-too-deep", "Markdown nesting is too deep to parse"),))
    except Exception as exc:  # a parser or plugin bug on this text: a diagnostic, never a traceback
        return ParsedBody((), (), (), 0, (error(path, offset + 1, 1, "markdown-unparsable", f"the Markdown parser failed on this body ({type(exc).__name__}: {exc}); simplify its Markdown and report the text as a bug"),))
    lines = _lines(body)
    deep = _truncated_at(body, tokens)
    if deep is not None:
        return ParsedBody((), (), (), 0, (error(path, offset + deep + 1, 1, "markdown-too-deep", f"lists or quotes nest too deeply here (the Markdown parser stops at {parser().options['maxNesting']} levels) and the text after it would be lost"),))
    xrefs: list[XRef] = []
    headings: list[Heading] = []
    snippets: list[Snippet] = []
    code_lines: set[int] = set()
    seen_names: dict[str, int] = {}
    anchors = explicit_anchors(tokens) if "{" in body else {}  # an id comes only from a {#id} list

    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "inline":  # most tokens that matter, so asked first
            _inline(path, offset, lines, token, xrefs, out)
        elif kind not in _BLOCK_KINDS:
            continue
        elif kind in ("fence", "code_block"):
            start, end = token.map or (0, 0)
            code_lines.update(range(start, end))
            if kind == "fence" and not _fence_closed(lines, token):
                out.append(error(path, offset + start + 1, 1, "unterminated-fence", f"code fence opened here with {token.markup} is never closed; it swallows the rest of the file"))
            if kind == "fence":
                snippet = _snippet(path, offset, token, tokens, index, len(snippets), out)
                if snippet is not None:
                    if snippet.name in seen_names:
                        out.append(error(path, snippet.line, 1, "snippet-duplicate-name", f"snippet name '{snippet.name}' is already used on line {seen_names[snippet.name]} of this term"))
                    else:
                        seen_names[snippet.name] = snippet.line
                    snippets.append(snippet)
        elif kind == "html_block":
            start = (token.map or (0, 0))[0]
            _check_html(path, offset + start + 1, token.content, out)
            _xref_in_html(path, offset + start + 1, token.content, out)
            if "markdown" in token.content:
                _markdown_attribute(path, offset + start + 1, token.content, out)
        else:  # heading_open
            inline = tokens[index + 1]
            text = inline_text(inline).strip()
            line = offset + (token.map or (0, 0))[0] + 1
            ident = token.attrs.get("id")
            headings.append(Heading(int(token.tag[1]), text, str(ident) if ident else unique_anchor(slugify(text), anchors), line))
            if token.meta and "attrs" in token.meta:
                _heading_attrs(path, line, token.meta["attrs"], out)
            if is_term and token.tag == "h1":
                out.append(warning(path, line, 1, "h1-in-body", "do not start a section with '#': the page title comes from the 'title' field; use '##'"))

    prose = [line for i, line in enumerate(lines) if i not in code_lines]
    prose_text = XREF_RE.sub(_shown, "\n".join(prose))
    return ParsedBody(tuple(xrefs), tuple(headings), tuple(snippets), count_words(prose_text), tuple(out))


def _shown(match: re.Match[str]) -> str:
    """An xref as a reader sees it: its text (else its target) and suffix. By group number
    (XREF_RE's groups: target, anchor, text, suffix): a subscript, not a method call with a
    name looked up, for each of a body's xrefs."""
    return (match[3] or match[1]) + match[4]


assert tuple(XREF_RE.groupindex) == ("target", "anchor", "text", "suffix")


_NUMBERED = re.compile(r"^(.*)_([0-9]+)$")


def unique_anchor(anchor: str, seen: dict[str, int]) -> str:
    """``anchor``, or the next free ``anchor_1``, ``anchor_2`` ... on one page; an empty one
    (a heading with no ASCII letter or digit) is ``_1``. Python-Markdown's ``toc`` rule, the
    one authors of Python-Markdown sites know: a taken ``x_1`` goes on to ``x_2``, not
    ``x_1_1``. ``seen`` holds the page's ids so far (the values are not read)."""
    while anchor in seen or not anchor:
        numbered = _NUMBERED.match(anchor)
        anchor = f"{numbered.group(1)}_{int(numbered.group(2)) + 1}" if numbered else f"{anchor}_1"
    seen[anchor] = 0
    return anchor


def explicit_anchors(tokens: Sequence[Token]) -> dict[str, int]:
    """The ids that headings' attribute lists give (load/heading_attrs.py), as ``seen`` for
    :func:`unique_anchor`: like the ``toc`` extension, generated ids avoid them wherever on
    the page they stand."""
    return {token.attrs["id"]: 0 for token in tokens if token.type == "heading_open" and "id" in token.attrs}


_HTML_CODE = re.compile(r"<(pre|code|kbd|samp)\b.*?</\1\s*>|<!--.*?-->", re.I | re.S)


def _xref_in_html(path: str, line: int, content: str, out: list[Diagnostic]) -> None:
    """A raw HTML block is passed through without Markdown: an xref there would be shown raw
    (inside <pre>/<code> or a comment it is not prose, and is left alone)."""
    text = _HTML_CODE.sub(lambda m: "\n" * m.group(0).count("\n"), content)
    found = text.find("[[")
    if found >= 0:
        out.append(
            error(
                path,
                line + text.count("\n", 0, found),
                found - text.rfind("\n", 0, found),
                "xref-in-html",
                "a [[cross-reference]] inside a raw HTML block is not rendered (Markdown is off there) and would reach readers as brackets; "
                "leave a blank line after the opening tag and before the closing one so the text between is Markdown, or keep the HTML inline in a paragraph",
            )
        )


#: The frozen dataclass :class:`XRef` keeps its fields in the instance's ``__dict__``, in this
#: order, and its ``__init__`` does nothing else: where that holds (:data:`_XREF_DIRECT`)
#: _inline fills the dict itself, for a third of the cost of the frozen ``__init__`` (each
#: field through ``object.__setattr__``). tests/test_plain_inline.py checks that both make
#: equal objects with equal pickles.
_XREF_FIELDS = ("target", "anchor", "text", "suffix", "line", "col", "raw", "end_line", "end_col")
_XREF_DIRECT = tuple(f.name for f in dataclasses.fields(XRef)) == _XREF_FIELDS and not hasattr(XRef, "__slots__") and not hasattr(XRef, "__post_init__")
_NEW = object.__new__


def _inline(path: str, offset: int, lines: list[str], token: Token, xrefs: list[XRef], out: list[Diagnostic]) -> None:
    content = token.content
    start_line = token.map[0] if token.map is not None else _first_line_holding(lines, content.split("\n")[0])
    for child in token.children or []:
        kind = child.type
        if kind != "xref":
            if kind == "text" and "[[" in child.content:
                end_line = token.map[1] if token.map is not None else start_line + 1
                taken = {(c.meta.get("line"), c.meta.get("col")) for c in token.children or () if c.type == "xref"}
                _xref_unparsed(path, offset, lines, (start_line, end_line), child.content, taken, out)
            continue
        meta = child.meta
        if not meta["target"]:
            out.append(error(path, offset + meta["line"] + 1, meta["col"] + 1, "xref-empty", f"cross-reference '{child.content}' names no term"))
            continue
        fields = {
            "target": meta["target"],
            "anchor": meta["anchor"],
            "text": meta["text"],
            "suffix": meta["suffix"],
            "line": offset + meta["line"] + 1,
            "col": meta["col"] + 1,
            "raw": child.content,
            "end_line": offset + meta["end_line"] + 1,
            "end_col": meta["end_col"] + 1,
        }
        if _XREF_DIRECT:  # XRef(**fields) as its __init__ makes it, at 80,000 a check
            xref = _NEW(XRef)
            vars(xref).update(fields)
        else:
            xref = XRef(**fields)
        xrefs.append(xref)
    if "{" in content:
        _attr_lists(path, offset, lines, start_line, token, out)
    if "*[" in content:
        _abbr_definitions(path, offset, lines, start_line, content, out)
    if "](" in content:
        _broken_links(path, offset, lines, start_line, token, out)
    # The whole text, not only what markdown-it took for HTML: raw tags are sanitised on the
    # page, and an author should hear about what was dropped.
    text_only = _CODE_SPAN.sub(lambda m: "\n" * m.group(0).count("\n"), content) if "`" in content else content
    if _may_hold_html(text_only):  # asked here too: most inline text has no marker (a call saved)
        _check_html(path, offset + start_line + 1, text_only, out)


#: An attribute list as Python-Markdown's ``attr_list`` finds one after an inline element
#: (``INLINE_RE``) or on the last line of a block (``BLOCK_RE``).
_INLINE_ATTRS = re.compile(r"\{:?[ ]*[^}\n ][^\n]*?\}")
_BLOCK_ATTRS = re.compile(r"\n[ ]*(\{:?[ ]*[^}\n ][^\n]*\})[ ]*$")
#: An abbreviation definition of Python-Markdown's ``abbr`` (``*[SM]: Streaming Multiprocessor``).
_ABBR_DEFINITION = re.compile(r"^\*\[([^\]\n]+)\]:", re.M)
#: The inline elements Python-Markdown gives a directly following list to.
_ATTR_TARGETS = frozenset(("code_inline", "link_close", "image", "em_close", "strong_close", "s_close"))


def _attr_lists(path: str, offset: int, lines: list[str], start_line: int, token: Token, out: list[Diagnostic]) -> None:
    """Attribute lists this dialect shows as text: after an inline element
    (``[Get it](url){ .md-button }``) or closing a paragraph (``{: .note }``). Python-Markdown's
    ``attr_list`` (in the site configuration) would apply them; only headings take them here
    (load/heading_attrs.py), so an author hears why braces show."""
    found: list[str] = []
    previous = ""
    for child in token.children or ():
        if child.type == "text" and previous in _ATTR_TARGETS and (match := _INLINE_ATTRS.match(child.content)):
            found.append(match.group(0))
        previous = child.type
    block = _BLOCK_ATTRS.search(token.content)
    if block is not None:
        found.append(block.group(1))
    for written in found:
        line, col = _find_raw(lines, start_line, written.split("\n")[0])
        out.append(warning(path, offset + line + 1, col + 1, "attr-list-ignored", f"'{written}' is shown as text: attribute lists apply to headings only (## Title {{#id .class}})"))


#: An opening tag with Python-Markdown's ``md_in_html`` switch: ``<div markdown>``, ``markdown="1"``.
_MARKDOWN_ATTR = re.compile(r"^\s*<[A-Za-z][\w-]*\b[^>]*?\smarkdown(?:\s*=\s*[\"']?(?:1|block|span)[\"']?)?[\s/>]", re.I)


def _markdown_attribute(path: str, line: int, content: str, out: list[Diagnostic]) -> None:
    """``<div markdown>`` asks ``md_in_html`` (in the site configuration) to read Markdown
    inside the block; this dialect reads CommonMark's HTML blocks, where Markdown is off until
    a blank line. Said only where the block holds more than its opening tag's line."""
    if _MARKDOWN_ATTR.match(content) and content.rstrip("\n").count("\n"):
        out.append(
            warning(
                path,
                line,
                1,
                "markdown-in-html",
                "the 'markdown' attribute is not read here, so the Markdown inside this HTML block is shown as written; "
                "leave a blank line after the opening tag and before the closing one, and the text between is Markdown",
            )
        )


#: A link's destination left in the text: the link around it did not parse.
_SHOWN_DESTINATION = re.compile(r"\]\([^)\s]*\)")


def _broken_links(path: str, offset: int, lines: list[str], start_line: int, token: Token, out: list[Diagnostic]) -> None:
    """Links that the reader would see as syntax: ``[the docs on [[thread]]](url)`` (a
    reference inside a link's text ends the link, so ``[the docs on ``, the reference and
    ``](url)`` show), or a reference inside an image's alt text (dropped from it)."""
    for child in token.children or ():
        if child.type == "text" and (shown := _SHOWN_DESTINATION.search(child.content)):
            line, col = _find_raw(lines, start_line, shown.group(0))
            message = f"'{shown.group(0)}' is shown as text: the link around it did not parse (a [[reference]] inside a link's text ends the link); write the link's text without [[...]], or the reference outside it"
            out.append(warning(path, offset + line + 1, col + 1, "link-syntax-shown", message))
        elif child.type == "image" and any(grand.type == "xref" for grand in child.children or ()):
            line, col = _find_raw(lines, start_line, "![")
            out.append(warning(path, offset + line + 1, col + 1, "link-syntax-shown", "a [[reference]] inside an image's alt text is dropped from it; write the alt text plainly"))


def _abbr_definitions(path: str, offset: int, lines: list[str], start_line: int, content: str, out: list[Diagnostic]) -> None:
    """Python-Markdown's ``abbr`` definitions, which this dialect shows as text."""
    for found in _ABBR_DEFINITION.finditer(content):
        line, col = _find_raw(lines, start_line, found.group(0))
        message = f"'{found.group(0)} ...' is shown as text: abbreviation definitions are not applied in term files; link the term instead ([[{found.group(1)}]])"
        out.append(warning(path, offset + line + 1, col + 1, "abbr-ignored", message))


def _heading_attrs(path: str, line: int, written: str, out: list[Diagnostic]) -> None:
    """A heading's attribute list (load/heading_attrs.py): what it may not hold is an error, as
    in raw HTML; items other than ``#id`` and ``.class`` are not written, which the author
    should hear about."""
    _check_html(path, line, "{" + written + "}", out)
    ignored = read_list(written).ignored
    if ignored and not any(d.line == line and d.code == "unsafe-html" for d in out):
        out.append(warning(path, line, 1, "heading-attr", f"heading attribute {', '.join(ignored)} is not written: a heading takes #id and .class only"))


def _xref_unparsed(path: str, offset: int, lines: list[str], span: tuple[int, int], text: str, taken: set, out: list[Diagnostic]) -> None:
    """Report the ``[[`` of a text child that no xref took, where in the body lines ``span``
    of its inline token it was written (not where one of the token's xrefs opens: ``taken``,
    body line and column; :func:`_find_shown`)."""
    raw = text[text.index("[[") :].split("\n")[0]
    line, col = _find_shown(lines, span, raw, taken) or _find_raw(lines, span[0], raw)
    out.append(
        error(
            path,
            offset + line + 1,
            col + 1,
            "xref-unparsed",
            "'[[' here is not a cross-reference (no matching ']]', or a bracket inside the name) and would reach readers as brackets; "
            "close it as [[name]] or [[name|text]], or write \\[[ for literal brackets",
        )
    )


def _first_line_holding(lines: list[str], text: str) -> int:
    """The first body line that contains ``text`` (0 when none does)."""
    return next((i for i, line in enumerate(lines) if text in line), 0)


def _locate_xrefs(lines: list[str], tokens: list[Token]) -> None:
    """Record where in the body each xref token was written (see parse_tokens).

    An inline token's content is its source lines with block prefixes (indentation, ``>``,
    list markers, table pipes) removed, so each content line is found in its source line;
    table cells share a line, so a cursor moves along it. The written text can differ from
    the token's (``\\|`` in a table cell arrives as ``|``): both forms are tried.
    """
    ends: dict[int, int] = {}  # body line -> column after the last xref placed on it (table cells share a line)
    last_line = len(lines) - 1
    for token in tokens:
        # an xref child is a match in the token's own text: a token without "[[" has none
        if token.type != "inline" or "[[" not in token.content or not token.children:
            continue
        content = token.content
        start_line = -1  # set up at the token's first xref child: most children are not
        for child in token.children:
            if child.type != "xref":
                continue
            if start_line < 0:
                # An inline footnote (^[...]) arrives without a source map: its text is found in the body.
                start_line = token.map[0] if token.map is not None else _first_line_holding(lines, content.split("\n")[0])
                newlines = [m.start() for m in _NEWLINE.finditer(content)] if "\n" in content else []
                bases: dict[int, int] = {}  # content line -> where it starts in its source line, found once (a line may hold 20,000 xrefs)
            meta = child.meta
            pos = meta["pos"]
            if newlines:
                k = bisect.bisect_left(newlines, pos)
                line_start = newlines[k - 1] + 1 if k else 0
            else:
                k = line_start = 0
            body_line = start_line + k
            if body_line > last_line:
                body_line = last_line
            raw = child.content
            first = raw if "\n" not in raw else raw[: raw.index("\n")]
            source = lines[body_line]
            base = bases.get(k)
            if base is None:
                content_line = content[line_start : newlines[k] if k < len(newlines) else len(content)]
                base = bases[k] = source.find(content_line) if content_line else -1
            expected = base + (pos - line_start) if base >= 0 else -1
            begin = ends.get(body_line, 0)
            if expected >= begin and source.startswith(first, expected):
                if first is raw:  # the usual xref: written where the content puts it, on one line
                    end_col = expected + len(raw)  # > begin: the furthest mark on its line
                    meta["line"] = body_line  # the keys in the order below
                    meta["col"] = expected
                    meta["end_line"] = body_line
                    meta["end_col"] = ends[body_line] = end_col
                    continue
                col, length = expected, len(first)
            else:
                col, length = -1, len(first)
                for variant in (first, first.replace("|", "\\|")):
                    found = source.find(variant, begin)
                    if found >= 0:
                        col, length = found, len(variant)
                        break
            if col < 0:
                body_line, col = _find_raw(lines, start_line, first)
                source = lines[body_line]
            meta["line"] = body_line
            meta["col"] = col
            if first is raw:  # one line: its end (col + length, length >= 4) is the furthest mark
                end_col = col + length
                meta["end_line"] = body_line
                meta["end_col"] = end_col
                if ends.get(body_line, 0) < end_col:
                    ends[body_line] = end_col
                continue
            pieces = raw.split("\n")
            end_line = min(body_line + len(pieces) - 1, last_line)
            last = lines[end_line].find(pieces[-1])
            end_col = (last if last >= 0 else 0) + len(pieces[-1])
            meta["end_line"] = end_line
            meta["end_col"] = end_col
            if ends.get(body_line, 0) < col + 1:
                ends[body_line] = col + 1
            if ends.get(end_line, 0) < end_col:
                ends[end_line] = end_col


def _find_shown(lines: list[str], span: tuple[int, int], shown: str, taken: set) -> tuple[int, int] | None:
    """Where in body lines ``span`` (start, end) the text ``shown`` was written, except at
    the places ``taken``: as it stands, else as a reader sees the source (``&#91;&#91;x]]``
    shows ``[[x]]``; :func:`~glossary_tool.text.shown_skeleton`)."""
    rows = range(span[0], min(span[1], len(lines)))
    for number in rows:
        found = lines[number].find(shown)
        while found >= 0:
            if (number, found) not in taken:
                return number, found
            found = lines[number].find(shown, found + 1)
    needle = shown_skeleton(shown)[0]
    for length in dict.fromkeys((len(needle), 6, 3)):  # the text may run on past the line its brackets are on
        for number in rows:
            col = find_shown(lines[number], needle[:length], {column for row, column in taken if row == number})
            if col is not None:
                return number, col
    return None


def _find_raw(lines: list[str], start: int, raw: str) -> tuple[int, int]:
    """The first place at or after body line ``start`` where ``raw`` is written (else anywhere)."""
    for number in [*range(start, len(lines)), *range(0, start)]:
        found = lines[number].find(raw)
        if found >= 0:
            return number, found
    return min(start, max(len(lines) - 1, 0)), 0


def _snippet(path: str, offset: int, token: Token, tokens: list[Token], index: int, position: int, out: list[Diagnostic]) -> Snippet | None:
    info = token.info.strip()
    words = info.split()
    if "verify" not in words[1:] and not (words and words[0] == "verify"):
        return None
    line = offset + (token.map or (0, 0))[0] + 1
    lang = words[0] if words and words[0] != "verify" else ""
    if lang not in LANGUAGES:
        close = difflib.get_close_matches(lang, LANGUAGES, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        out.append(error(path, line, 1, "snippet-language", f"verify snippet language '{lang or '(none)'}' is not one of {', '.join(LANGUAGES)}{hint}"))
        return None
    options, problems = parse_options(info)
    for problem in problems:
        out.append(error(path, line, 1, "snippet-option", problem))
    clean: dict[str, str] = {}
    for key, value in options:
        if key not in SNIPPET_OPTIONS:
            close = difflib.get_close_matches(key, SNIPPET_OPTIONS, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; known options: {', '.join(SNIPPET_OPTIONS)}"
            out.append(error(path, line, 1, "snippet-option", f"unknown snippet option '{key}'{hint}"))
            continue
        pattern, wanted = _OPTION_CHECKS[key]
        if not pattern.match(value):
            out.append(error(path, line, 1, "snippet-option", f"snippet option {key}=\"{value}\" is invalid: expected {wanted}"))
            continue
        if key in clean:
            out.append(error(path, line, 1, "snippet-option", f"snippet option '{key}' is given twice"))
            continue
        clean[key] = value
    name = clean.pop("name", f"snippet-{position + 1}")
    expected = None
    end = (token.map or (0, 0))[1]
    nxt = tokens[index + 1] if index + 1 < len(tokens) else None
    if nxt is not None and nxt.type == "fence" and nxt.info.strip() == "output":
        expected = nxt.content
        end = (nxt.map or (0, end))[1]
    return Snippet(
        name=name,
        lang=lang,
        options=tuple(sorted(clean.items())),
        source=token.content,
        expected=expected,
        line=line,
        body_start=(token.map or (0, 0))[0],
        body_end=end,
    )
