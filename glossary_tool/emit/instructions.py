"""PTX and SASS that explain themselves: each instruction with a term links to it.

The mapping lives with the content, in ``glossary/instructions.yml`` (term -> PTX and SASS
opcode names), so writers extend it like any term field and ``glossary check`` validates it.
An instruction matches the longest entry that is a whole dot-separated prefix of its
opcode: ``cp.async.ca.shared.global`` -> ``cp.async``, ``cp.async.bulk.tensor.2d...`` ->
``cp.async.bulk``; ``BAR.SYNC.DEFER_BLOCKING`` -> ``BAR``. Only the opcode is linked; the
operands stay plain text. The link's ``title`` is the term's summary (Material shows it as
a tooltip; the preview card replaces it where previews are on).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import yaml

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.emit.html_parts import highlight
from glossary_tool.link.names import build_index
from glossary_tool.load.frontmatter import loader_for
from glossary_tool.model import Glossary

TABLE_NAME = "instructions.yml"
KINDS = ("ptx", "sass")

#: SASS as cuobjdump prints it, ``/*0070*/  @!P0 LDG.E.64 R2, desc[UR4][R2.64] ;``, or with
#: the control code decoded after the address (emit/sass_control.py): ``/*0070*/  [B------:R-:W0:-:S02]  @!P0 LDG...``
_SASS_LINE = re.compile(r"^(?P<lead>\s*/\*[0-9a-fA-F]+\*/\s+(?:\[B[0-5-]{6}:R[0-5-]:W[0-5-]:[Y-]:S\d\d\]\s+)?(?:@!?U?P(?:T|\d)\s+)?)(?P<op>[A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)")
#: PTX instructions: ``\t@%p1 bra.uni $L__BB0_2;`` (directives start with '.', labels end with ':').
_PTX_LINE = re.compile(r"^(?P<lead>\s*(?:@!?%\w+\s+)?)(?P<op>[a-z][a-z0-9_]*(?:\.[A-Za-z0-9_:]+)*)(?=[\s;]|$)")
_LINE = {"ptx": _PTX_LINE, "sass": _SASS_LINE}


@dataclass(frozen=True)
class InstructionTable:
    """Opcode prefix -> term slug, one mapping per kind (``ptx``, ``sass``)."""

    ptx: Mapping[str, str] = field(default_factory=dict)
    sass: Mapping[str, str] = field(default_factory=dict)

    def term_for(self, opcode: str, kind: str) -> str | None:
        """The term of ``opcode``: the longest whole dot-separated prefix in the table."""
        table = self.ptx if kind == "ptx" else self.sass
        parts = opcode.split(".")
        for n in range(len(parts), 0, -1):
            slug = table.get(".".join(parts[:n]))
            if slug is not None:
                return slug
        return None


EMPTY = InstructionTable()


def load_instructions(glossary_dir: Path, glossary: Glossary) -> tuple[InstructionTable, list[Diagnostic]]:
    """Read ``glossary/instructions.yml``; a missing file is an empty table, not an error.

    Keys are term names resolved like ``[[...]]`` (slug, title, abbreviation, alias). An
    unknown term, a malformed entry or an opcode claimed by two terms is a diagnostic with
    the file position; the rest of the table still loads.
    """
    path = glossary_dir / TABLE_NAME
    shown = f"{glossary_dir.name}/{TABLE_NAME}"
    out: list[Diagnostic] = []
    if not path.is_file():
        return EMPTY, out
    try:
        text = path.read_text(encoding="utf-8")
        node = yaml.compose(text, Loader=loader_for(text))
    except RecursionError:
        return EMPTY, [error(shown, 1, 1, "yaml-syntax", "invalid instruction table: nested too deeply")]
    except (yaml.YAMLError, UnicodeDecodeError, OSError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line, col = ((mark.line + 1), (mark.column + 1)) if mark else (1, 1)
        return EMPTY, [error(shown, line, col, "yaml-syntax", f"invalid instruction table: {getattr(exc, 'problem', exc)}")]
    if node is None:
        return EMPTY, out
    if not isinstance(node, yaml.MappingNode):
        return EMPTY, [error(shown, node.start_mark.line + 1, node.start_mark.column + 1, "instructions-invalid", "instructions.yml must map each term to its `ptx` and `sass` opcode lists")]
    index, _ = build_index(list(glossary.terms.values()))
    tables: dict[str, dict[str, str]] = {kind: {} for kind in KINDS}
    for key, value in node.value:
        line, col = key.start_mark.line + 1, key.start_mark.column + 1
        name = key.value if isinstance(key, yaml.ScalarNode) else ""
        slugs = index.resolve(str(name))
        if len(slugs) != 1:
            hint = index.suggest(str(name))
            why = f"names {len(slugs)} terms ({', '.join(slugs)})" if slugs else "is not a term" + (f"; did you mean {', '.join(hint)}?" if hint else "")
            out.append(error(shown, line, col, "instructions-unknown-term", f"'{name}' {why}"))
            continue
        if not isinstance(value, yaml.MappingNode):
            out.append(error(shown, line, col, "instructions-invalid", f"'{name}' must map `ptx` and/or `sass` to lists of opcodes"))
            continue
        for kind_node, ops_node in value.value:
            kind = kind_node.value if isinstance(kind_node, yaml.ScalarNode) else ""
            kline, kcol = kind_node.start_mark.line + 1, kind_node.start_mark.column + 1
            if kind not in KINDS:
                out.append(error(shown, kline, kcol, "instructions-invalid", f"unknown key '{kind}' under '{name}' (expected ptx or sass)"))
                continue
            if not isinstance(ops_node, yaml.SequenceNode) or not all(isinstance(o, yaml.ScalarNode) and o.value for o in ops_node.value):
                out.append(error(shown, kline, kcol, "instructions-invalid", f"'{name}' {kind} must be a list of opcode names"))
                continue
            for op in ops_node.value:
                opcode = str(op.value)
                oline, ocol = op.start_mark.line + 1, op.start_mark.column + 1
                if not _LINE[kind].match(_sample(opcode, kind)):
                    out.append(error(shown, oline, ocol, "instructions-invalid", f"'{opcode}' is not a {kind.upper()} opcode name ({'lower' if kind == 'ptx' else 'upper'} case, dot-separated)"))
                elif opcode in tables[kind] and tables[kind][opcode] != slugs[0]:
                    out.append(error(shown, oline, ocol, "instructions-duplicate", f"{kind.upper()} '{opcode}' already links to '{tables[kind][opcode]}'"))
                else:
                    tables[kind][opcode] = slugs[0]
    return InstructionTable(MappingProxyType(tables["ptx"]), MappingProxyType(tables["sass"])), out


def _sample(opcode: str, kind: str) -> str:
    """A line as the compiler would print ``opcode``, to check the name with the same pattern."""
    return f"\t{opcode} x;" if kind == "ptx" else f"        /*0000*/                   {opcode} R0 ;"


def link_instructions(asm_text: str, kind: str, table: InstructionTable, glossary: Glossary, href: Callable[[str], str | None]) -> str:
    """``asm_text`` as escaped HTML in which each opcode with a term links to it where it first appears.

    Only the first line with a given opcode (``FFMA``, ``LDG.E.128``) links: a GEMM's SASS repeats
    ``FFMA`` thousands of times, and thousands of links would double the page for nothing.
    ``href(slug)`` gives the term's URL relative to the page (None: leave it plain).
    """
    pattern = _LINE[kind]
    lines = []
    seen: set[str] = set()
    for line in asm_text.split("\n"):
        match = pattern.match(line)
        slug = table.term_for(match.group("op"), kind) if match and match.group("op") not in seen else None
        url = href(slug) if slug else None
        if match is None or slug is None or url is None:
            lines.append(html.escape(line, quote=False))
            continue
        seen.add(match.group("op"))
        term = glossary.terms[slug]
        anchor = f'<a class="gg-insn" href="{html.escape(url)}" title="{html.escape(f"{term.display_title}: {term.summary}")}">{html.escape(match.group("op"))}</a>'
        lines.append(html.escape(match.group("lead"), quote=False) + anchor + html.escape(line[match.end() :], quote=False))
    return "\n".join(lines)


def asm_block(asm_text: str, kind: str, table: InstructionTable, glossary: Glossary, href: Callable[[str], str | None]) -> str:
    """A code block shaped like :func:`html_parts.highlight` (copy button included), opcodes linked."""
    shell = highlight("", kind)
    return shell.replace("<code></code>", f"<code>{link_instructions(asm_text.rstrip(chr(10)) + chr(10), kind, table, glossary, href)}</code>", 1)


#: A listing as html_parts.highlight writes it (``language-ptx``) or as Python-Markdown does for
#: a fence written ``{ .text .gg-asm-ptx }`` (emit/snippets.py).
_RENDERED_BLOCK = re.compile(r'(<div class="(?:language-|gg-asm-)(?P<kind>ptx|sass) highlight"(?: data-search-exclude)?><pre>(?:<span></span>)?<code>)(?P<body>.*?)(</code></pre></div>)', re.S)
_TAG = re.compile(r"<[^>]+>")


def link_rendered_blocks(page_html: str, table: InstructionTable, glossary: Glossary, href: Callable[[str], str | None]) -> str:
    """Link the opcodes of every rendered ``ptx``/``sass`` code block of a page.

    For renderers that highlight fences themselves (Python-Markdown's pymdownx.highlight may
    colour ``sass`` as the CSS language): the block's text is recovered and re-linked.
    """
    if not (table.ptx or table.sass):
        return page_html

    def replace(match: re.Match[str]) -> str:
        text = html.unescape(_TAG.sub("", match.group("body")))
        return match.group(1) + link_instructions(text, match.group("kind"), table, glossary, href) + match.group(4)

    return _RENDERED_BLOCK.sub(replace, page_html)
