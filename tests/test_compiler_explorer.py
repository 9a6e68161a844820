"""The "Open in Compiler Explorer" link: a godbolt.org address that carries the snippet itself."""

from __future__ import annotations

import base64
import json
import zlib
from urllib.parse import urlsplit

from bs4 import BeautifulSoup

from glossary_tool.emit import compiler_explorer
from glossary_tool.model import Snippet

SOURCE = '#include <cstdio>\n__global__ void k() { printf("[[x]] & <y>\\n"); }\nint main() { k<<<1, 1>>>(); cudaDeviceSynchronize(); }\n'


def snippet(lang: str = "cuda", **options: str) -> Snippet:
    return Snippet("hello", lang, tuple(options.items()), SOURCE, None, 3, 2, 8)


def decode(url: str) -> dict:
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc) == ("https", "godbolt.org")
    assert parts.path.startswith("/clientstate/") and not parts.query and not parts.fragment
    raw = base64.urlsafe_b64decode(parts.path.removeprefix("/clientstate/"))
    assert raw[0] & 0x0F == 0x8, "zlib stream, which Compiler Explorer inflates"
    return json.loads(zlib.decompress(raw))


def test_url_carries_source_compiler_flags_and_arch():
    state = decode(compiler_explorer.url(snippet(flags="-O3 -lineinfo -lcublas -L/opt/lib")))
    (session,) = state["sessions"]
    assert session["language"] == "cuda"
    assert session["source"] == SOURCE
    (compiler,) = session["compilers"]
    assert compiler["id"].startswith("nvcc13")
    assert compiler["options"].split() == ["-arch=sm_90", "-O3", "-lineinfo"]  # link-only flags dropped


def test_feature_specific_arch_uses_gencode_like_verify():
    state = decode(compiler_explorer.url(snippet(arch="sm_90a")))
    assert state["sessions"][0]["compilers"][0]["options"] == "-gencode arch=compute_90a,code=sm_90a"


def test_url_is_deterministic_and_url_safe():
    first, second = compiler_explorer.url(snippet()), compiler_explorer.url(snippet())
    assert first == second
    payload = urlsplit(first).path.removeprefix("/clientstate/")
    assert set(payload) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=")


def test_link_html_only_for_cuda_and_is_a_plain_link():
    assert compiler_explorer.link_html(snippet("python")) is None
    soup = BeautifulSoup(compiler_explorer.link_html(snippet(arch="sm_100a")), "html.parser")
    (a,) = soup.find_all("a")
    assert a["href"] == compiler_explorer.url(snippet(arch="sm_100a"))
    assert a.get_text() == "Open in Compiler Explorer"
    assert "sm_100a" in a["title"]
    assert "noopener" in a["rel"]
    assert not soup.find_all(["script", "img", "iframe"])  # nothing loads before a click
