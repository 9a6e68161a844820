""" "Open in Compiler Explorer": a plain link to godbolt.org that carries a CUDA snippet.

The whole session (source, compiler, flags) travels inside the URL, in the form Compiler
Explorer's ``/clientstate/<base64>`` route reads: a ClientState JSON, zlib-compressed, then
base64 (the route inflates data whose first byte says zlib). Nothing is fetched or
stored anywhere until a reader clicks, so the site still sends no request off its host.
"""

from __future__ import annotations

import base64
import html
import json
import shlex
import zlib

from glossary_tool.model import Snippet
from glossary_tool.verify.engine import arch_flags

CE_BASE = "https://godbolt.org/clientstate/"
#: Compiler Explorer's id of NVCC 13.0.2, the toolkit whose nvcc (13.0.88) made the records.
COMPILER_ID = "nvcc130u2"
#: nvcc options that start like a library (-lX) but are not one.
_NOT_LIBRARIES = ("-lineinfo", "-lto")


def _link_only(flag: str) -> bool:
    """Libraries, library paths and linker options: Compiler Explorer compiles and links nothing."""
    return flag.startswith(("-L", "-Xlinker", "--linker-options")) or (flag.startswith("-l") and flag not in _NOT_LIBRARIES)


def compile_flags(snippet: Snippet) -> str:
    """The nvcc options verify uses for ``snippet``, less the link-only ones."""
    arch = snippet.arch
    flags = [f for f in shlex.split(snippet.option("flags", "") or "") if not _link_only(f)]
    return shlex.join([*arch_flags(arch), *flags])


def client_state(snippet: Snippet) -> dict:
    """One editor with the snippet's source and one NVCC pane with its flags."""
    return {
        "sessions": [
            {
                "id": 1,
                "language": "cuda",
                "source": snippet.source,
                "compilers": [{"id": COMPILER_ID, "options": compile_flags(snippet), "filters": {"commentOnly": True, "directives": True, "labels": True, "demangle": True}, "libs": [], "tools": []}],
            }
        ]
    }


def url(snippet: Snippet) -> str:
    """The godbolt.org address that opens ``snippet`` compiled with nvcc 13.0 for its arch.

    Compressed with zlib (level 9, deterministic), base64 URL-safe: the route decodes both alphabets.
    """
    data = json.dumps(client_state(snippet), separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return CE_BASE + base64.urlsafe_b64encode(zlib.compress(data, 9)).decode("ascii")


def link_html(snippet: Snippet) -> str | None:
    """The link shown under a CUDA snippet; None for other languages."""
    if snippet.lang != "cuda":
        return None
    label = f"Open {snippet.name} in Compiler Explorer (nvcc 13.0, {snippet.arch})"
    return f'<a class="snippet-godbolt" href="{html.escape(url(snippet))}" rel="noopener nofollow" target="_blank" title="{html.escape(label)}">Open in Compiler Explorer</a>'
