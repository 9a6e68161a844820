"""Parse a term body once with markdown-it-py and collect what later stages need.

From the token stream we take cross-references (with file line and column), headings
(with the anchors the site will generate), verify snippets and their expected output,
and every structural problem: unterminated fences, unsafe HTML, bad snippet options.
"""

from __future__ import annotations

import bisect
import difflib
import html
import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

from glossary_tool.diagnostics import Diagnostic, error, warning
from glossary_tool.load.xref_rule import XREF_RE, make_parser
from glossary_tool.model import Heading, Snippet, XRef
from glossary_tool.text import count_words, slugify

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
# attr_list (enabled in mkdocs.yml) puts any attribute on the element: {: onclick="..." }
_ATTR_LIST = re.compile(r"\{:?([^}\n]*)\}")
_ATTR_EVENT = re.compile(r"(?:^|[\s\"'])on[a-z]+\s*=", re.I)
_ATTR_URL = re.compile(r"(?:^|\s)(?:href|src|action|formaction|xlink:href|srcset|poster|data)\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s\"']+)", re.I)
_URL_NOISE = re.compile(r"[\x00-\x20\x7f]+")  # browsers drop tabs and newlines inside URLs
_BAD_SCHEMES = ("javascript:", "vbscript:", "data:")
_VOID_TAG = re.compile(r"<(area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr)\b", re.I)
_CODE_SPAN = re.compile(r"(`+)(?:.|\n)*?\1")
_NEWLINE = re.compile(r"\n")
_FENCE_CLOSE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*$")

_PARSER: MarkdownIt | None = None


def parser() -> MarkdownIt:
    global _PARSER
    if _PARSER is None:
        _PARSER = make_parser()
    return _PARSER


@dataclass(frozen=True)
class ParsedBody:
    xrefs: tuple[XRef, ...]
    headings: tuple[Heading, ...]
    snippets: tuple[Snippet, ...]
    words: int
    diagnostics: tuple[Diagnostic, ...]


def _inline_text(token: Token) -> str:
    parts = []
    for child in token.children or []:
        if child.type == "xref":
            meta = child.meta
            parts.append((meta["text"] if meta["text"] is not None else meta["target"]) + meta["suffix"])
        elif child.type in ("text", "code_inline"):
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


def _check_html(path: str, line: int, content: str, out: list[Diagnostic]) -> None:
    """Unsafe tags, event handlers and script URLs in raw HTML or Markdown text (code removed).

    ``line`` is the file line of the first line of ``content``; each problem is reported on
    the line where it starts.
    """

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
    if not tokens or max(t.level for t in tokens) < limit - 1:
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


def parse_body(path: str, body: str, offset: int, *, is_term: bool = True) -> ParsedBody:
    """Parse ``body`` whose first line is file line ``offset + 1``."""
    out: list[Diagnostic] = []
    lines = body.split("\n")
    try:
        tokens = parser().parse(body)
    except RecursionError:
        return ParsedBody((), (), (), 0, (error(path, offset + 1, 1, "markdown-too-deep", "Markdown nesting is too deep to parse"),))
    deep = _truncated_at(body, tokens)
    if deep is not None:
        return ParsedBody((), (), (), 0, (error(path, offset + deep + 1, 1, "markdown-too-deep", f"lists or quotes nest too deeply here (the Markdown parser stops at {parser().options['maxNesting']} levels) and the text after it would be lost"),))
    xrefs: list[XRef] = []
    headings: list[Heading] = []
    snippets: list[Snippet] = []
    code_lines: set[int] = set()
    seen_names: dict[str, int] = {}
    cursor = {"line": -1, "col": 0}

    for index, token in enumerate(tokens):
        if token.type in ("fence", "code_block"):
            start, end = token.map or (0, 0)
            code_lines.update(range(start, end))
            if token.type == "fence" and not _fence_closed(lines, token):
                out.append(error(path, offset + start + 1, 1, "unterminated-fence", f"code fence opened here with {token.markup} is never closed; it swallows the rest of the file"))
            if token.type == "fence":
                snippet = _snippet(path, offset, token, tokens, index, len(snippets), out)
                if snippet is not None:
                    if snippet.name in seen_names:
                        out.append(error(path, snippet.line, 1, "snippet-duplicate-name", f"snippet name '{snippet.name}' is already used on line {seen_names[snippet.name]} of this term"))
                    else:
                        seen_names[snippet.name] = snippet.line
                    snippets.append(snippet)
        elif token.type == "html_block":
            start = (token.map or (0, 0))[0]
            _check_html(path, offset + start + 1, token.content, out)
        elif token.type == "heading_open":
            inline = tokens[index + 1]
            text = _inline_text(inline).strip()
            line = offset + (token.map or (0, 0))[0] + 1
            headings.append(Heading(int(token.tag[1]), text, slugify(text), line))
            if is_term and token.tag == "h1":
                out.append(warning(path, line, 1, "h1-in-body", "do not start a section with '#': the page title comes from the 'title' field; use '##'"))
        elif token.type == "inline":
            _inline(path, offset, lines, token, xrefs, out, cursor)

    prose = [line for i, line in enumerate(lines) if i not in code_lines]
    prose_text = XREF_RE.sub(lambda m: (m.group("text") or m.group("target")) + m.group("suffix"), "\n".join(prose))
    return ParsedBody(tuple(xrefs), tuple(headings), tuple(snippets), count_words(prose_text), tuple(out))


def _inline(path: str, offset: int, lines: list[str], token: Token, xrefs: list[XRef], out: list[Diagnostic], cursor: dict[str, int]) -> None:
    content = token.content
    start_line = (token.map or (None, None))[0]
    html_depth = 0  # text between inline HTML tags belongs to the HTML: never rewritten
    newlines: list[int] | None = None
    bases: dict[int, int] = {}
    for child in token.children or []:
        if child.type == "html_inline":  # checked with the rest of the text below
            tag = child.content
            if tag.startswith("</"):
                html_depth = max(0, html_depth - 1)
            elif tag.startswith("<") and not tag.startswith(("<!", "<?")) and not tag.endswith("/>") and not _VOID_TAG.match(tag):
                html_depth += 1
        if child.type != "xref" or html_depth:
            continue
        meta = child.meta
        pos = meta["pos"]
        if newlines is None:  # once per inline token, not per xref: 20,000 xrefs on a line stay linear
            newlines = [m.start() for m in _NEWLINE.finditer(content)]
        k = bisect.bisect_left(newlines, pos)  # newlines before pos
        line_start = newlines[k - 1] + 1 if k else 0
        col_in_content = pos - line_start
        body_line = None
        col = None
        if start_line is not None and start_line + k < len(lines):
            body_line = start_line + k
            source_line = lines[body_line]
            if k not in bases:
                content_line = content[line_start : newlines[k] if k < len(newlines) else len(content)]
                bases[k] = source_line.find(content_line) if content_line else -1
            base = bases[k]
            if base >= 0 and source_line.startswith(child.content, base + col_in_content):
                col = base + col_in_content
            else:
                found = source_line.find(child.content)
                col = found if found >= 0 else None
        if body_line is None or col is None:  # e.g. table cells without maps: search forward
            body_line, col = _search(lines, child.content, cursor)
        cursor["line"], cursor["col"] = body_line, col + 1
        xref = XRef(
            target=meta["target"],
            anchor=meta["anchor"],
            text=meta["text"],
            suffix=meta["suffix"],
            line=offset + body_line + 1,
            col=col + 1,
            raw=child.content,
        )
        if not xref.target:
            out.append(error(path, xref.line, xref.col, "xref-empty", f"cross-reference '{xref.raw}' names no term"))
            continue
        xrefs.append(xref)
    # The whole text, not only what markdown-it took for HTML: Python-Markdown renders the site
    # and passes through tags markdown-it reads as text (<img/src=x/onerror=...>).
    text_only = _CODE_SPAN.sub(lambda m: "\n" * m.group(0).count("\n"), content)
    _check_html(path, offset + (start_line or 0) + 1, text_only, out)


def _search(lines: list[str], raw: str, cursor: dict[str, int]) -> tuple[int, int]:
    start_line = max(cursor["line"], 0)
    for number in range(start_line, len(lines)):
        begin = cursor["col"] if number == cursor["line"] else 0
        found = lines[number].find(raw, begin)
        if found >= 0:
            return number, found
    for number, line in enumerate(lines):
        found = line.find(raw)
        if found >= 0:
            return number, found
    return 0, 0


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
