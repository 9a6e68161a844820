"""Shared fixtures: build small glossaries on disk from Python literals."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def term_text(title: str, body: str, *, summary: str | None = None, extra: str = "", abbreviation: str | None = None, aliases: list[str] | None = None) -> str:
    lines = ["---", f"title: {title}"]
    if abbreviation:
        lines.append(f"abbreviation: {abbreviation}")
    if aliases:
        lines.append(f"aliases: [{', '.join(aliases)}]")
    lines.append(f"summary: {summary or f'The {title} term, used by the tests.'}")
    lines += ["sources:", "  - title: CUDA C++ Programming Guide", "    url: https://docs.nvidia.com/cuda/cuda-c-programming-guide/"]
    if extra:
        lines.append(extra.rstrip("\n"))
    lines.append("---")
    return "\n".join(lines) + "\n" + textwrap.dedent(body).lstrip("\n")


MakeGlossary = Callable[..., Path]


@pytest.fixture
def make_glossary(tmp_path: Path) -> MakeGlossary:
    """Write ``{"section/slug.md": text}`` under tmp/glossary with a matching toc.yml.

    Returns the repository root (the folder holding glossary/).
    """

    def make(files: dict[str, str], toc: dict[str, list[str]] | None = None, root: Path | None = None) -> Path:
        base = root or tmp_path / "repo"
        glossary = base / "glossary"
        for rel, text in files.items():
            path = glossary / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(text, encoding="utf-8")
        if toc is None:
            toc = {}
            for rel in files:
                section, name = rel.split("/", 1) if "/" in rel else ("", rel)
                if section and name != "index.md" and name.endswith(".md"):
                    toc.setdefault(section, []).append(name[:-3])
        lines = []
        for section, slugs in toc.items():
            lines.append(f"{section}:")
            lines += [f"  - {slug}" for slug in slugs]
        (glossary / "toc.yml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return base

    return make


def with_site_config(root: Path) -> Path:
    """The real mkdocs.yml and stylesheet beside a test glossary, so it builds like the real one."""
    if not (root / "mkdocs.yml").exists():
        shutil.copy(REPO / "mkdocs.yml", root / "mkdocs.yml")
    assets = root / "glossary" / "assets"
    if not assets.exists():
        shutil.copytree(REPO / "glossary" / "assets", assets)
    return root


def trio(extra_body: dict[str, str] | None = None) -> dict[str, str]:
    """Three well-linked terms; tests mutate one of them to trigger one diagnostic."""
    extra_body = extra_body or {}
    return {
        "device-software/warp.md": term_text("Warp", "A [[thread]] group that runs on an [[streaming-multiprocessor|SM]].\n" + extra_body.get("warp", ""), abbreviation=None),
        "device-software/thread.md": term_text("Thread", "One lane of a [[warp]], scheduled by its [[streaming-multiprocessor]].\n" + extra_body.get("thread", "")),
        "device-hardware/streaming-multiprocessor.md": term_text(
            "Streaming Multiprocessor", "Runs every [[warp]] of its [[thread]]s.\n" + extra_body.get("sm", ""), abbreviation="SM", aliases=["multiprocessor"]
        ),
    }


@pytest.fixture(scope="session")
def real_site(tmp_path_factory) -> Path:
    """The real glossary built once per test session.

    GLOSSARY_SITE names a site already built from this tree (the Pages workflow checks the
    very site it uploads) instead.
    """
    import os

    from glossary_tool.cli import main

    prebuilt = os.environ.get("GLOSSARY_SITE")
    if prebuilt:
        assert (Path(prebuilt) / "index.html").is_file(), f"GLOSSARY_SITE={prebuilt}: no index.html there"
        return Path(prebuilt).resolve()
    site = tmp_path_factory.mktemp("real") / "site"
    assert main(["--root", str(REPO), "build", "--out", str(site)]) == 0
    return site



@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """In CI (GLOSSARY_REQUIRE_ALL=1) a test skipped because a tool is missing fails instead.

    Skips there can only mean an install step is missing from .ci/run, which must not pass
    as a green run. Skips that depend on the content (e.g. no diagram page yet) say "no ..."
    and stay skips.
    """
    import os

    outcome = yield
    report = outcome.get_result()
    if os.environ.get("GLOSSARY_REQUIRE_ALL") == "1" and report.skipped and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if not reason.startswith("Skipped: no "):
            report.outcome = "failed"
            report.longrepr = f"required in CI but skipped: {reason}"
