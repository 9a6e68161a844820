"""The package's layering, read from its import statements (issue 22's "done means").

MkDocs, Material and Python-Markdown are imported only by ``glossary_tool/adapters/``: the
core renders with markdown-it-py alone, so a successor of MkDocs replaces one package. The
core stages never import the adapters or the commands above them, no file outside the
adapters so much as names MkDocs' package (``grep -r mkdocs glossary_tool`` finds only
``adapters/``: the site config's file name included), and no module hands build state to
another through an environment variable it sets.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "glossary_tool"
#: Site generators and the second Markdown engine: the adapters' business only.
ADAPTER_ONLY = ("mkdocs", "material", "markdown", "pymdownx")
CORE = ("load", "link", "verify", "draw", "emit", "publish")


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path, package_dir: Path = PACKAGE) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, function-level ones too
    (a lazy ``import mkdocs`` inside a function is still a dependency)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = ".".join(path.relative_to(package_dir.parent).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def _mentions(package_dir: Path, word: str) -> list[str]:
    """``path:line: text`` of each line, in every text file under ``package_dir`` but the
    adapters (sources, templates; compiled caches and binary files left out), holding
    ``word`` as ``grep -r`` matches it: case-sensitive, anywhere in the line."""
    found = []
    for path in sorted(package_dir.rglob("*")):
        parts = path.relative_to(package_dir).parts
        if not path.is_file() or "__pycache__" in parts or parts[0] == "adapters":
            continue
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        where = path.relative_to(package_dir.parent).as_posix()
        found += [f"{where}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if word in line]
    return found


def _top(name: str) -> str:
    return name.split(".")[0]


def _where(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).as_posix()


def test_the_scan_sees_imports_of_every_kind(tmp_path: Path) -> None:
    """The checks below are only as good as ``_imports``: it must see plain, from, relative and
    function-level imports."""
    pkg = tmp_path / "glossary_tool" / "emit"
    pkg.mkdir(parents=True)
    probe = pkg / "probe.py"
    probe.write_text(
        "import os, mkdocs.config\nfrom markdown import Markdown\nfrom ..adapters import mkdocs_plugin\nfrom . import book\n"
        "def f():\n    import material.plugins\n",
        encoding="utf-8",
    )
    names = [name for _, name in _imports(probe, tmp_path / "glossary_tool")]
    assert names == ["os", "mkdocs.config", "markdown", "glossary_tool.adapters", "glossary_tool.emit", "material.plugins"]


def test_only_the_adapters_import_mkdocs_material_or_python_markdown() -> None:
    offending = [
        f"{_where(path)}:{line}: {name}"
        for path in _modules()
        if "adapters" not in path.relative_to(PACKAGE).parts
        for line, name in _imports(path)
        if _top(name) in ADAPTER_ONLY
    ]
    assert offending == []


def test_the_text_scan_sees_every_kind_of_file_but_the_adapters_and_caches(tmp_path: Path) -> None:
    """The check below is only as good as ``_mentions``: it must read modules at any depth
    and templates, and skip only the adapters, ``__pycache__`` and binary files."""
    pkg = tmp_path / "glossary_tool"
    files = {
        "cli.py": '"""Help."""\nHELP = "see mkdocs.yml"\n',
        "emit/templates/page.txt.j2": "{{ title }}\n# built by mkdocs\n",
        "emit/deep/probe.py": "x = 1  # MkDocs, capitalised, is not the package name\ny = 'mkdocs'\n",
        "adapters/mkdocs_plugin.py": "import mkdocs\n",
        "__pycache__/cli.cpython-312.pyc": "mkdocs\n",
    }
    for rel, text in files.items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(text, encoding="utf-8")
    (pkg / "emit" / "logo.bin").write_bytes(b"\0mkdocs\xff")
    assert _mentions(pkg, "mkdocs") == [
        'glossary_tool/cli.py:2: HELP = "see mkdocs.yml"',
        "glossary_tool/emit/deep/probe.py:2: y = 'mkdocs'",
        "glossary_tool/emit/templates/page.txt.j2:2: # built by mkdocs",
    ]


def test_only_the_adapters_name_mkdocs() -> None:
    """Issue 22's "``grep -r mkdocs glossary_tool`` finds only ``adapters/``": the site
    config's name lives in adapters/site_config.py, and the commands reach the generator
    through ``glossary_tool.adapters``' functions, not by naming its modules."""
    assert _mentions(PACKAGE, "mkdocs") == []


def test_python_markdown_is_imported_nowhere() -> None:
    """One engine: even the adapters hand MkDocs finished HTML and never call Python-Markdown."""
    offending = [f"{_where(path)}:{line}: {name}" for path in _modules() for line, name in _imports(path) if _top(name) in ("markdown", "pymdownx")]
    assert offending == []


@pytest.mark.parametrize("stage", CORE)
def test_core_stages_do_not_import_adapters_or_commands(stage: str) -> None:
    above = ("glossary_tool.adapters", "glossary_tool.commands", "glossary_tool.cli")
    offending = [
        f"{_where(path)}:{line}: {name}"
        for path in sorted((PACKAGE / stage).rglob("*.py"))
        for line, name in _imports(path)
        if name.startswith(above)
    ]
    assert offending == []


def test_no_module_sets_an_environment_variable() -> None:
    """Build state travels through the plugin's config and function arguments, never through
    ``os.environ`` (the old ``GLOSSARY_BOOK``): a child process's environment is passed as an
    ``env=`` argument, which this does not flag."""
    offending = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            target = None
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                target = next((t for t in targets if isinstance(t, ast.Subscript) and ast.unparse(t.value) == "os.environ"), None)
            elif isinstance(node, ast.Call) and ast.unparse(node.func) in ("os.environ.setdefault", "os.environ.update", "os.putenv"):
                target = node
            if target is not None:
                offending.append(f"{_where(path)}:{node.lineno}")
    assert offending == []
