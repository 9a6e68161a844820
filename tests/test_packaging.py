"""A wheel install builds a site: nothing the tool needs lives outside the package.

The wheel is installed into a scratch folder (its dependencies come from the test
environment) and run from a glossary that has no ``llms_txt/`` of its own, away from this
checkout, so the packaged default templates must be the ones used.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from bs4 import BeautifulSoup

from tests.conftest import REPO, trio, with_site_config


def test_wheel_ships_templates_and_builds_a_site(make_glossary, tmp_path: Path) -> None:
    source = tmp_path / "source"  # pip builds in the source tree: a copy keeps the checkout clean
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", "LICENSE-CONTENT"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "glossary_tool", source / "glossary_tool", ignore=shutil.ignore_patterns("__pycache__"))
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(source)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("gpu_glossary-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {"glossary_tool/emit/templates/llms.txt.j2", "glossary_tool/emit/templates/llms-full.txt.j2"} <= set(names)

    target = tmp_path / "installed"
    installed = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)], capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr

    root = with_site_config(make_glossary(trio(), root=tmp_path / "elsewhere"))
    assert not (root / "llms_txt").exists()
    env = {**os.environ, "PYTHONPATH": str(target)}
    run = subprocess.run([sys.executable, "-m", "glossary_tool", "--root", str(root), "build", "--out", str(tmp_path / "site")], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    llms = (tmp_path / "site" / "llms.txt").read_text(encoding="utf-8")
    assert llms.startswith("# ") and "thread.md" in llms
    page = BeautifulSoup((tmp_path / "site" / "device-software" / "warp" / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert page.find("a", href="../thread/") is not None  # the xref linked by the installed tool
