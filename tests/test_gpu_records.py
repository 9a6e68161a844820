"""Records per GPU model: layout and migration, portable output fences, reference GPUs in
``glossary check``, a contributor's other GPU, the per-GPU tabs, the comparison page and the
tarballs that carry records from a GPU machine. Markdown in, records and parsed HTML out."""

from __future__ import annotations

import io
import json
import sys
import tarfile
from pathlib import Path

import markdown
import pytest
from bs4 import BeautifulSoup

from glossary_tool.cli import main
from glossary_tool.emit.gpu_compare import comparison, comparison_markdown, comparison_title, comparison_xhtml
from glossary_tool.emit.links import RelativeLinker
from glossary_tool.emit.markdown import term_markdown
from glossary_tool.emit.snippets import PlainSnippets, SiteSnippets
from glossary_tool.pipeline import Project, load_project
from glossary_tool.verify import engine
from glossary_tool.verify.exchange import ExchangeError, merge, pack
from glossary_tool.verify.matching import match_output
from glossary_tool.verify.records import Machine, Record, migrate_legacy, records_for, records_in, sha256, write_record
from glossary_tool.verify.reference import ReferenceGpu, gpu_label, load_reference_gpus
from glossary_tool.verify.toolchain import Toolchain
from tests.conftest import REPO, trio

H100 = Machine("NVIDIA H100 80GB HBM3", "9.0", 132, "580.159.04", "13.0", "13.0.88")
H200 = Machine("NVIDIA H200", "9.0", 132, "580.159.04", "13.0", "13.0.88")
H200X2 = Machine("NVIDIA H200", "9.0", 132, "580.159.04", "13.0", "13.0.88", gpu_count=2)
A100 = Machine("NVIDIA A100-SXM4-40GB", "8.0", 108, "570.86.15", "12.8", "13.0.88")
REFERENCE = (ReferenceGpu("NVIDIA H100 80GB HBM3", "H100 SXM", "9.0", 1), ReferenceGpu("NVIDIA H200", "H200 SXM", "9.0", 2))
CONFIG = """site_name: Test
markdown_extensions:
  - pymdownx.superfences:
      custom_fences:
        - name: mermaid
          format: !!python/name:pymdownx.superfences.fence_code_format
plugins:
  - search
  - glossary:
      reference_gpus:
        - name: NVIDIA H100 80GB HBM3
          label: H100 SXM
          compute_capability: "9.0"
          gpus: 1
        - name: NVIDIA H200
          label: H200 SXM
          compute_capability: "9.0"
          gpus: 2
"""

DEVICE = '```cuda verify name="device"\nint main() {}\n```\n\n```output\nname = {gpu_name}\n{on H100} L2 = 50 MiB\n{on H200} L2 = 60 MiB\nwarpSize = 32\n```\n'
H100_OUT = "name = NVIDIA H100 80GB HBM3\nL2 = 50 MiB\nwarpSize = 32\n"
H200_OUT = "name = NVIDIA H200\nL2 = 60 MiB\nwarpSize = 32\n"


def _record(term: str, snippet, machine: Machine | None, stdout: str = "", status: str = "passed", date: str = "2026-11-23", section: str = "device-software") -> Record:
    return Record(section, term, snippet.name, snippet.lang, dict(snippet.options), sha256(snippet.source), status, "" if status == "passed" else "compiled only: x", stdout, "", 0, 0.1, date, "13.0.88", machine)


def _project(make_glossary, body: str, *, title: str = "Warp", config: bool = True) -> Path:
    files = trio({"warp": body})
    if title != "Warp":
        files["device-software/warp.md"] = files["device-software/warp.md"].replace("title: Warp", f"title: {title}")
    root = make_glossary(files)
    if config:
        (root / "mkdocs.yml").write_text(CONFIG, encoding="utf-8")
    return root


def _warp(root: Path):
    loaded = load_project(root, check_records=False)
    term = loaded.glossary.terms["warp"]
    return loaded, term


def _reference(root: Path) -> tuple[ReferenceGpu, ...]:
    """The reference GPUs of the project at ``root``, read from its site config as a build reads them."""
    return Project(root).reference_gpus


def _codes(root: Path) -> list[tuple[str, str]]:
    return [(d.code, d.message) for d in load_project(root).diagnostics if d.code.startswith("snippet-")]


# ---- layout, migration ---------------------------------------------------------------


def test_each_gpu_has_its_record_and_the_ptx_sass_are_stored_once(make_glossary):
    root = _project(make_glossary, DEVICE)
    _, term = _warp(root)
    (snippet,) = term.snippets
    records = root / "snippets"
    write_record(records, term, snippet, _record("warp", snippet, H200, H200_OUT), ptx="// ptx\n", sass="sass\n")
    write_record(records, term, snippet, _record("warp", snippet, H100, H100_OUT), ptx="// ptx\n", sass="sass\n")
    folder = records / "device-software/warp/device"
    assert sorted(p.name for p in folder.iterdir()) == ["nvidia-h100-80gb-hbm3.json", "nvidia-h200.json", "sm_90.sass", "snippet.ptx"]
    found = records_for(records, term, snippet)
    assert list(found) == ["nvidia-h100-80gb-hbm3", "nvidia-h200"]
    assert found["nvidia-h200"].stdout == H200_OUT and found["nvidia-h100-80gb-hbm3"].machine == H100


def test_schema_1_records_are_read_and_migrated(make_glossary):
    root = _project(make_glossary, DEVICE)
    _, term = _warp(root)
    (snippet,) = term.snippets
    base = root / "snippets/device-software/warp"
    base.mkdir(parents=True)
    data = json.loads(_record("warp", snippet, H200, H200_OUT).to_json())
    data["schema"] = 1
    (base / "device.json").write_text(json.dumps(data))
    (base / "device.ptx").write_text("// old ptx\n")
    (base / "device.sass").write_text("old sass\n")
    assert list(records_for(root / "snippets", term, snippet)) == ["nvidia-h200"], "an unmigrated record still counts"
    assert migrate_legacy(root / "snippets") == 1
    assert sorted(p.relative_to(base).as_posix() for p in base.rglob("*") if p.is_file()) == ["device/nvidia-h200.json", "device/sm_90.sass", "device/snippet.ptx"]
    migrated = json.loads((base / "device/nvidia-h200.json").read_text())
    assert migrated["schema"] == 2 and migrated["stdout"] == H200_OUT


def test_records_read_ahead_equal_records_for_in_every_layout(make_glossary):
    """`check` reads every record before it knows the terms (records_in): the same records as
    records_for for each snippet, in the per-GPU folders, a schema-1 file beside them, a folder
    with nothing readable, and for a snippet with no record at all."""
    root = _project(make_glossary, DEVICE)
    _, term = _warp(root)
    (snippet,) = term.snippets
    records = root / "snippets"
    assert records_in(records) == {} and records_for(records, term, snippet) == {}
    write_record(records, term, snippet, _record("warp", snippet, H100, H100_OUT), ptx=None, sass=None)
    data = json.loads(_record("warp", snippet, H200, H200_OUT).to_json())
    data["schema"] = 1
    (records / "device-software/warp/device.json").write_text(json.dumps(data))
    (records / "device-software/warp/orphan").mkdir()
    (records / "device-software/warp/orphan/broken.json").write_text("{")
    ahead = records_in(records)
    assert list(ahead) == [("device-software", "warp", "device")]
    assert ahead[("device-software", "warp", "device")] == records_for(records, term, snippet)
    assert list(ahead[("device-software", "warp", "device")]) == ["nvidia-h100-80gb-hbm3", "nvidia-h200"]


def test_records_read_ahead_equal_records_for_on_the_committed_records(real_project):
    records = REPO / "snippets"
    ahead = records_in(records)
    snippets = [(term, snippet) for term in real_project.glossary.ordered_terms() for snippet in term.snippets]
    assert len(snippets) > 100
    for term, snippet in snippets:
        assert ahead.get((term.section, term.slug, snippet.name), {}) == records_for(records, term, snippet), f"{term.slug}:{snippet.name}"


def test_committed_records_are_all_migrated_h200_records():
    """Every committed record sits in the per-GPU layout; what was there came from one H200."""
    records = REPO / "snippets"
    assert not list(records.glob("*/*/*.json")), "no schema-1 record left"
    keys = {p.stem for p in records.glob("*/*/*/*.json")}
    assert "nvidia-h200" in keys
    for path in records.glob("*/*/*/nvidia-h200.json"):
        assert json.loads(path.read_text())["machine"]["gpu_name"] == "NVIDIA H200"


# ---- portable output fences ----------------------------------------------------------


@pytest.mark.parametrize(
    ("expected", "machine", "actual", "ok"),
    [
        ("name = {gpu_name}\n", H200, "name = NVIDIA H200\n", True),
        ("name = {gpu_name}\n", H100, "name = NVIDIA H200\n", False),
        ("{gpu_name}, {int} MiB, {float} W\n", H100, "NVIDIA H100 80GB HBM3, 81559 MiB, 700.00 W\n", True),
        ("{int} MiB\n", H200, "12.5 MiB\n", False),
        ("{float}\n", H200, "1.52588e-05\n", True),
        ("{float}\n", H200, "fast\n", False),
        ("driver {driver}, {sm_count} SMs, cc {cc}\n", H100, "driver 580.159.04, 132 SMs, cc 9.0\n", True),
        ("{on H100} L2 = 50 MiB\n{on H200} L2 = 60 MiB\n", H100, "L2 = 50 MiB\n", True),
        ("{on H100} L2 = 50 MiB\n{on H200} L2 = 60 MiB\n", H200, "L2 = 50 MiB\n", False),
        ("{on H100} L2 = 50 MiB\n{on H200} L2 = 60 MiB\n", A100, "L2 = 40 MiB\n", True),
        ("{on H200} L2 = 60 MiB\n{on *} L2 = {int} MiB\n", A100, "L2 = lots\n", False),
        ("{on H200} a = 1\n{on *} a = {int}\n{on H200} b = 2\n{on *} b = {int}\n", H200, "a = 1\nb = 2\n", True),
        ("{on H200} a = 1\n{on *} a = {int}\n{on H200} b = 2\n{on *} b = {int}\n", H100, "a = 7\nb = 8\n", True),
        ("a\n...\nz = {...}\n", None, "a\nb\nz = 3\n", True),
        ("{gpu_name}\n", None, "anything at all\n", True),
        ("{literal} {}\n", H200, "{literal} {}\n", True),
    ],
)
def test_placeholders_and_per_gpu_lines(expected, machine, actual, ok):
    assert (match_output(expected, actual, machine) is None) is ok


def test_mismatch_points_at_the_fence_line_of_the_gpu_specific_line():
    mismatch = match_output("name = {gpu_name}\n{on H100} L2 = 50 MiB\n{on H200} L2 = 60 MiB\n", "name = NVIDIA H200\nL2 = 50 MiB\n", H200)
    assert mismatch is not None and mismatch.expected_line == 3 and mismatch.actual == "L2 = 50 MiB"


def test_no_output_fence_holds_an_h200_value_outside_an_on_line(real_project):
    """The committed fences pass on either reference GPU: no bare H200 device name is left."""
    loaded = real_project
    offenders = [
        f"{t.slug}:{s.name}: {line}"
        for t in loaded.glossary.ordered_terms()
        for s in t.snippets
        for line in (s.expected or "").splitlines()
        if "NVIDIA H200" in line and not line.startswith("{on ")
    ]
    assert offenders == []


# ---- reference GPUs in glossary check ------------------------------------------------


def test_reference_gpus_are_read_from_mkdocs_yml_without_mkdocs():
    config = load_reference_gpus(REPO / "mkdocs.yml")
    assert config.diagnostics == ()
    assert [(g.name, g.label, g.gpus) for g in config.gpus] == [("NVIDIA H100 80GB HBM3", "H100 SXM", 2), ("NVIDIA H200", "H200 SXM", 2)]
    source = (REPO / "glossary_tool/verify/reference.py").read_text()
    assert "import mkdocs" not in source and "from mkdocs" not in source


def test_bad_reference_config_is_a_diagnostic(tmp_path):
    path = tmp_path / "mkdocs.yml"
    path.write_text("plugins:\n  - glossary:\n      reference_gpus:\n        - label: no name\n")
    config = load_reference_gpus(path)
    assert config.gpus == () and [d.code for d in config.diagnostics] == ["reference-gpus"]
    assert "needs at least `name:`" in config.diagnostics[0].message


def test_check_names_the_missing_reference_gpu(make_glossary):
    root = _project(make_glossary, DEVICE)
    _, term = _warp(root)
    (snippet,) = term.snippets
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H200, H200_OUT), None, None)
    ((code, message),) = _codes(root)
    assert code == "snippet-unverified" and "no record from reference GPU H100 SXM (NVIDIA H100 80GB HBM3)" in message
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H100, H100_OUT), None, None)
    assert _codes(root) == []


def test_check_reports_a_stale_and_a_wrong_reference_record(make_glossary):
    root = _project(make_glossary, DEVICE)
    _, term = _warp(root)
    (snippet,) = term.snippets
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H200, H200_OUT), None, None)
    stale = _record("warp", snippet, H100, H100_OUT)
    write_record(root / "snippets", term, snippet, Record(**{**stale.__dict__, "source_sha256": sha256("old source")}), None, None)
    ((code, message),) = _codes(root)
    assert code == "snippet-stale" and "H100 SXM" in message
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H100, H100_OUT.replace("50", "60")), None, None)
    ((code, message),) = _codes(root)
    assert code == "snippet-output" and "recorded on H100 SXM" in message and "expected line 2 'L2 = 50 MiB', got 'L2 = 60 MiB'" in message


def test_multi_gpu_snippet_needs_only_the_reference_gpu_with_two(make_glossary):
    body = '```cuda verify name="pair" gpus="2"\nint main() {}\n```\n'
    root = _project(make_glossary, body)
    _, term = _warp(root)
    (snippet,) = term.snippets
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H100, status="compile-only"), None, None)
    ((code, message),) = _codes(root)
    assert code == "snippet-unverified" and "2×H200" in message and "H100" not in message
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H200X2, "ok\n"), None, None)
    assert _codes(root) == []


def test_compile_only_is_enough_only_where_no_reference_gpu_can_run_it(make_glossary):
    body = '```cuda verify name="bw" arch="sm_100a" requires="10.0"\nint main() {}\n```\n\n```cuda verify name="hopper"\nint main() { return 0; }\n```\n'
    root = _project(make_glossary, body)
    _, term = _warp(root)
    blackwell, hopper = term.snippets
    for snippet in (blackwell, hopper):
        for machine in (H100, H200):
            write_record(root / "snippets", term, snippet, _record("warp", snippet, machine, status="compile-only"), None, None)
    found = _codes(root)
    assert [c for c, _ in found] == ["snippet-unverified", "snippet-unverified"], "the Hopper snippet must run on both"
    assert all("'hopper'" in m for _, m in found)


def test_a_ptx_snippet_passes_by_being_assembled_on_each_reference_gpu(make_glossary):
    root = _project(make_glossary, '```ptx verify name="fence" arch="sm_90a"\n.version 8.0\n```\n')
    _, term = _warp(root)
    (snippet,) = term.snippets
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H200, status="compile-only"), None, "SASS\n")
    ((code, message),) = _codes(root)
    assert code == "snippet-unverified" and "H100 SXM" in message
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H100, status="compile-only"), None, "SASS\n")
    assert _codes(root) == []
    assert (root / "snippets/device-software/warp/fence/sm_90a.sass").read_text() == "SASS\n"


def test_without_reference_gpus_one_fresh_record_is_enough(make_glossary):
    root = _project(make_glossary, DEVICE, config=False)
    _, term = _warp(root)
    (snippet,) = term.snippets
    write_record(root / "snippets", term, snippet, _record("warp", snippet, A100, "name = NVIDIA A100-SXM4-40GB\nL2 = 40 MiB\nwarpSize = 32\n"), None, None)
    assert _codes(root) == []


def test_the_repository_has_a_fresh_passing_record_on_every_reference_gpu_that_can_run_it(real_project):
    """The committed records: no snippet error in the repository's check, and every snippet a
    reference GPU can run has that GPU's passing record (the H100's and the H200's)."""
    loaded = real_project
    assert [d.format() for d in loaded.diagnostics if d.code.startswith("snippet-")] == []
    h100 = sorted((REPO / "snippets").glob("*/*/*/nvidia-h100-80gb-hbm3.json"))
    h200 = sorted((REPO / "snippets").glob("*/*/*/nvidia-h200.json"))
    assert len(h100) >= 170 and len(h200) >= 170


# ---- a contributor with another GPU: an sm_80 A100 with 40 GB, one GPU --------------------

FAKE_NVCC = r"""#!{python}
import os, shutil, stat, sys
args = sys.argv[1:]
out = args[args.index("-o") + 1]
keep = args[args.index("--keep-dir") + 1]
source = next(a for a in args if a.endswith(".cu"))
arch = next(a.split("=", 1)[1] for a in args if a.startswith("-arch="))
open(os.path.join(keep, "snippet.ptx"), "w").write(f"// fake PTX for {{arch}}\n.target {{arch}}\n")
shutil.copy(source, out)
os.chmod(out, os.stat(out).st_mode | stat.S_IEXEC)
"""
FAKE_CUOBJDUMP = "#!/bin/sh\necho \"fake SASS of $(basename $2)\"\n"


def _program(text: str) -> str:
    """A "CUDA" source the fake nvcc turns into a program: a Python script that prints ``text``."""
    return f"#!{sys.executable}\nprint({text!r}, end='')\n"


@pytest.fixture
def a100(tmp_path, monkeypatch):
    """The verify engine on a simulated machine: an A100 40GB (sm_80, one GPU), nvcc that
    'compiles' a snippet into the Python script it is, and cuobjdump."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    nvcc = bin_dir / "nvcc"
    nvcc.write_text(FAKE_NVCC.format(python=sys.executable))
    cuobjdump = bin_dir / "cuobjdump"
    cuobjdump.write_text(FAKE_CUOBJDUMP)
    for tool in (nvcc, cuobjdump):
        tool.chmod(0o755)
    tools = Toolchain(str(nvcc), None, str(cuobjdump), None, "13.0.88", sys.executable)
    monkeypatch.setattr(engine, "find_toolchain", lambda: tools)
    monkeypatch.setattr(engine, "detect_machine", lambda _tools: A100)
    return A100


def test_a_contributor_with_an_a100_skips_what_it_cannot_run_and_adds_its_column(make_glossary, a100):
    ampere_out = "name = NVIDIA A100-SXM4-40GB\nL2 = 40 MiB\nwarpSize = 32\n"
    body = (
        f'```cuda verify name="hopper"\n{_program("name = NVIDIA A100")}```\n\n'
        f'```cuda verify name="ampere" arch="sm_80"\n{_program(ampere_out)}```\n\n'
        "```output\nname = {gpu_name}\n{on H100} L2 = 50 MiB\n{on H200} L2 = 60 MiB\nwarpSize = 32\n```\n\n"
        '```python verify name="pair" gpus="2"\nprint("two")\n```\n\n'
        '```python verify name="bw-python" requires="10.0"\nprint("blackwell")\n```\n'
    )
    root = _project(make_glossary, body)
    loaded, term = _warp(root)
    hopper, ampere, pair, bw = term.snippets
    records = root / "snippets"
    write_record(records, term, ampere, _record("warp", ampere, H200, "name = NVIDIA H200\nL2 = 60 MiB\nwarpSize = 32\n"), "// ptx", "sass")
    lines: list[str] = []
    summary = engine.run_verify(loaded.glossary.ordered_terms(), records, engine.VerifyOptions(jobs=2), log=lines.append)
    assert (summary.counts["passed"], summary.counts["skipped"], summary.counts["failed"]) == (1, 3, 0), lines
    skipped = {line.split()[1]: line for line in lines if " skipped " in line}
    assert "needs compute capability 9.0 (sm_90); NVIDIA A100-SXM4-40GB is 8.0" in skipped["device-software/warp:hopper"]
    assert "needs 2 GPUs; this machine has 1" in skipped["device-software/warp:pair"]
    assert "needs compute capability 10.0" in skipped["device-software/warp:bw-python"]
    # The A100's column joins the H200's; the H200 record is kept as it was.
    found = records_for(records, term, ampere)
    assert list(found) == ["nvidia-a100-sxm4-40gb", "nvidia-h200"]
    assert found["nvidia-a100-sxm4-40gb"].stdout == ampere_out and found["nvidia-h200"].machine == H200
    assert (records / "device-software/warp/ampere/snippet.ptx").read_text().startswith("// fake PTX for sm_80")
    soup = BeautifulSoup(SiteSnippets(records, _reference(root))(term, ampere), "html.parser")
    assert [label.get_text() for label in soup.select(".snippet-gpus > .tabbed-labels > label")] == ["H200 SXM", "A100-SXM4-40GB"]
    # A second run has nothing left to do.
    again = engine.run_verify(loaded.glossary.ordered_terms(), records, engine.VerifyOptions(jobs=2), log=lambda _: None)
    assert again.counts["cached"] == 4


def test_verify_multi_gpu_selects_only_snippets_for_two_gpus(make_glossary, a100):
    body = '```python verify name="one"\nprint(1)\n```\n\n```python verify name="pair" gpus="2"\nprint(2)\n```\n'
    root = _project(make_glossary, body)
    loaded, _ = _warp(root)
    lines: list[str] = []
    engine.run_verify(loaded.glossary.ordered_terms(), root / "snippets", engine.VerifyOptions(jobs=1, multi_gpu=True), log=lines.append)
    assert [line.split()[1] for line in lines if line.startswith("[")] == ["device-software/warp:pair"]


# ---- the page: one HTML fragment, a tab per GPU ------------------------------------------


def _two_gpu_project(make_glossary, title: str = "Warp") -> tuple[Path, object, object]:
    root = _project(make_glossary, DEVICE, title=title)
    _, term = _warp(root)
    (snippet,) = term.snippets
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H200, H200_OUT, date="2026-11-22"), "// ptx\n", "SASS\n")
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H100, H100_OUT), "// ptx\n", "SASS\n")
    return root, term, snippet


def test_snippet_fragment_has_source_output_ptx_sass_and_a_tab_per_gpu(make_glossary):
    root, term, snippet = _two_gpu_project(make_glossary)
    soup = BeautifulSoup(SiteSnippets(root / "snippets", _reference(root))(term, snippet), "html.parser")
    (outer,) = soup.find_all(recursive=False)
    assert outer["class"] == ["snippet"] and not outer.has_attr("markdown")
    tabs = outer.find("div", class_="tabbed-set", recursive=False)
    assert [label.get_text() for label in tabs.select(":scope > .tabbed-labels > label")] == ["Source", "Output", "PTX", "SASS"]
    gpus = tabs.select_one(".snippet-gpus")
    assert [label.get_text() for label in gpus.select(":scope > .tabbed-labels > label")] == ["H100 SXM", "H200 SXM"]
    blocks = gpus.select(":scope > .tabbed-content > .tabbed-block")
    assert [b.get_text() for b in blocks] == [H100_OUT, H200_OUT], "readers see what each GPU printed, no placeholder"
    assert [[m.get_text() for m in b.find_all("mark", class_="gpu-diff")] for b in blocks] == [
        ["name = NVIDIA H100 80GB HBM3", "L2 = 50 MiB"],
        ["name = NVIDIA H200", "L2 = 60 MiB"],
    ]
    badges = [li.get_text() for li in outer.select(".snippet-badge .snippet-runs li")]
    assert badges == [
        "Ran on H100 SXM (NVIDIA H100 80GB HBM3, sm_90): CUDA 13.0, driver 580.159.04, 2026-11-23",
        "Ran on H200 SXM (NVIDIA H200, sm_90): CUDA 13.0, driver 580.159.04, 2026-11-22",
    ]
    assert "snippet-badge--verified" in outer.select_one(".snippet-badge")["class"]
    ids = [i["id"] for i in soup.find_all("input")]
    assert len(ids) == len(set(ids)) == 6


def test_the_page_about_a_gpu_shows_that_gpu_first(make_glossary):
    root, term, snippet = _two_gpu_project(make_glossary, title="NVIDIA H200")
    soup = BeautifulSoup(SiteSnippets(root / "snippets", _reference(root))(term, snippet), "html.parser")
    assert [label.get_text() for label in soup.select(".snippet-gpus > .tabbed-labels > label")] == ["H200 SXM", "H100 SXM"]
    assert soup.select_one(".snippet-gpus > input")["id"].endswith("_1") and soup.select_one(".snippet-gpus > input").has_attr("checked")


def test_the_fragment_survives_python_markdown_with_md_in_html(make_glossary):
    source = "int main() {\n\n\n    // *not emphasis* [[warp]] <b>\n    return 0;\n}\n"
    root = _project(make_glossary, f'Before.\n\n```cuda verify name="blank"\n{source}```\n\n```output\n{{gpu_name}}\n```\n\nAfter *this*.\n')
    loaded, term = _warp(root)
    (snippet,) = term.snippets
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H200, "NVIDIA H200\n\n\nend\n"), None, None)
    text = term_markdown(term, loaded.glossary, RelativeLinker("device-software/warp.md"), SiteSnippets(root / "snippets", _reference(root)))
    page = markdown.markdown(text, extensions=["md_in_html", "attr_list", "tables", "pymdownx.superfences"])
    soup = BeautifulSoup(page, "html.parser")
    (fragment,) = soup.select("div.snippet")
    assert fragment.select_one(".tabbed-block pre code").get_text() == source
    assert fragment.select_one(".snippet-gpus .tabbed-block").get_text() == "NVIDIA H200\n\n\nend\n"
    assert soup.find("em").get_text() == "this", "the Markdown after the fragment is still Markdown"
    assert fragment.find("em") is None and fragment.find("b") is None


def test_unverified_snippet_shows_its_expected_output_under_that_name(make_glossary):
    root = _project(make_glossary, DEVICE)
    _, term = _warp(root)
    (snippet,) = term.snippets
    soup = BeautifulSoup(SiteSnippets(root / "snippets", _reference(root))(term, snippet), "html.parser")
    assert [label.get_text() for label in soup.select(".tabbed-labels > label")] == ["Source", "Expected output"]
    assert soup.select_one(".snippet-badge--unverified .snippet-runs li").get_text() == "Not yet verified: this snippet has no record from a GPU run."


def test_plain_output_names_each_gpu(make_glossary):
    root, term, snippet = _two_gpu_project(make_glossary)
    text = PlainSnippets(root / "snippets", _reference(root))(term, snippet)
    html_text = markdown.markdown(text, extensions=["fenced_code"])
    soup = BeautifulSoup(html_text, "html.parser")
    labels = [p.get_text() for p in soup.find_all("p") if p.get_text().startswith("Output on")]
    assert labels == ["Output on H100 SXM:", "Output on H200 SXM:"]
    assert [code.get_text() for code in soup.find_all("code")][1:] == [H100_OUT, H200_OUT]
    assert len(soup.select("li em")) == 2


def test_multi_gpu_tab_is_labelled_with_the_count():
    snippet = type("S", (), {"option": lambda self, k, d=None: {"gpus": "2"}.get(k, d)})()
    assert gpu_label(H200X2, REFERENCE, snippet) == "2×H200"
    assert gpu_label(H200X2, REFERENCE) == "H200 SXM"
    assert gpu_label(A100, REFERENCE) == "A100-SXM4-40GB"


# ---- the comparison page -----------------------------------------------------------------


def test_comparison_lists_differing_lines_side_by_side_and_links_the_term(make_glossary):
    root, term, snippet = _two_gpu_project(make_glossary)
    loaded, _ = _warp(root)
    comp = comparison(loaded.glossary, root / "snippets", loaded.project.reference_gpus)
    assert comp.title == "H100 vs H200: the same programs on two GPUs" == comparison_title(REFERENCE)
    assert comp.compared == 1 and len(comp.rows) == 1
    page = markdown.markdown(comparison_markdown(loaded.glossary, root / "snippets", reference=loaded.project.reference_gpus, term_href=lambda t: f"../{t.section}/{t.slug}/"), extensions=["md_in_html"])
    soup = BeautifulSoup(page, "html.parser")
    assert soup.h1.get_text() == comp.title
    (table,) = soup.select("table.gpu-compare")
    assert [th.get_text() for th in table.select("thead th")] == ["Snippet", "H100 SXM", "H200 SXM"]
    (row,) = table.select("tbody tr")
    cells = row.find_all("td")
    assert cells[0].a["href"] == "../device-software/warp/" and cells[0].code.get_text() == "device"
    assert [c.pre.get_text() for c in cells[1:]] == ["name = NVIDIA H100 80GB HBM3\nL2 = 50 MiB", "name = NVIDIA H200\nL2 = 60 MiB"]
    plain = comparison_markdown(loaded.glossary, root / "snippets", reference=loaded.project.reference_gpus, tables=False)
    assert "H100 SXM:" in plain and "warpSize" not in plain
    book = BeautifulSoup(comparison_xhtml(loaded.glossary, root / "snippets", RelativeLinker("x.md"), loaded.project.reference_gpus), "html.parser")
    assert book.h1["id"] == "gpu-comparison" and len(book.select("tbody tr")) == 1


def test_comparison_without_a_second_gpu_says_so(make_glossary):
    root = _project(make_glossary, DEVICE)
    loaded, term = _warp(root)
    (snippet,) = term.snippets
    write_record(root / "snippets", term, snippet, _record("warp", snippet, H200, H200_OUT), None, None)
    soup = BeautifulSoup(markdown.markdown(comparison_markdown(loaded.glossary, root / "snippets", reference=loaded.project.reference_gpus)), "html.parser")
    assert soup.find("table") is None and "No snippet has passing runs on two GPUs yet" in soup.get_text()


# ---- carrying records: pack on the GPU machine, merge at the checkout ----------------------


def test_pack_and_merge_keep_other_gpus_and_never_downgrade(make_glossary, tmp_path):
    gpu_machine = _project(make_glossary, DEVICE)
    _, term = _warp(gpu_machine)
    (snippet,) = term.snippets
    write_record(gpu_machine / "snippets", term, snippet, _record("warp", snippet, H100, H100_OUT), "// ptx\n", "SASS\n")
    write_record(gpu_machine / "snippets", term, snippet, _record("warp", snippet, H200, H200_OUT), "// ptx\n", "SASS\n")
    archive = tmp_path / "h100.tgz"
    assert pack(gpu_machine / "snippets", "nvidia-h100-80gb-hbm3", archive) == 1
    with tarfile.open(archive) as tar:
        assert sorted(tar.getnames()) == [f"snippets/device-software/warp/device/{n}" for n in ("nvidia-h100-80gb-hbm3.json", "sm_90.sass", "snippet.ptx")]
    checkout = make_glossary(trio({"warp": DEVICE}), root=tmp_path / "checkout")
    write_record(checkout / "snippets", term, snippet, _record("warp", snippet, H200, H200_OUT), None, None)
    assert main(["--root", str(checkout), "verify", "--merge", str(archive)]) == 0
    assert list(records_for(checkout / "snippets", term, snippet)) == ["nvidia-h100-80gb-hbm3", "nvidia-h200"]
    # An older, compile-only record of the same GPU does not replace the passing one.
    write_record(gpu_machine / "snippets", term, snippet, _record("warp", snippet, H100, status="compile-only", date="2026-11-24"), None, None)
    pack(gpu_machine / "snippets", "nvidia-h100-80gb-hbm3", archive)
    report = merge(archive, checkout / "snippets")
    assert report.kept == ["device-software/warp/device/nvidia-h100-80gb-hbm3.json"]
    assert records_for(checkout / "snippets", term, snippet)["nvidia-h100-80gb-hbm3"].status == "passed"


def test_merge_refuses_a_tarball_with_other_paths(tmp_path, capsys):
    archive = tmp_path / "evil.tar"
    with tarfile.open(archive, "w") as tar:
        info = tarfile.TarInfo("snippets/../../etc/x.json")
        info.size = 2
        tar.addfile(info, io.BytesIO(b"{}"))
    with pytest.raises(ExchangeError, match="only snippets/"):
        merge(archive, tmp_path / "snippets")
    assert main(["--root", str(tmp_path), "verify", "--merge", str(archive)]) == 1
    assert "error" not in capsys.readouterr().out and not (tmp_path / "snippets").exists()


def test_verify_pack_carries_only_the_snippets_the_run_covered(make_glossary, a100, tmp_path):
    body = '```python verify name="one"\nprint(1)\n```\n\n```output\n{int}\n```\n\n```python verify name="pair" gpus="2"\nprint(2)\n```\n'
    root = _project(make_glossary, body)
    archive = tmp_path / "out" / "gpu-records.tar"
    assert main(["--root", str(root), "verify", "--jobs", "1"]) == 0
    assert main(["--root", str(root), "verify", "--jobs", "1", "--multi-gpu", "--force", "--pack", str(archive)]) == 0
    with tarfile.open(archive) as tar:
        assert tar.getnames() == ["snippets/device-software/warp/pair/nvidia-a100-sxm4-40gb.json"]
    assert main(["--root", str(root), "verify", "--jobs", "1", "--pack", str(archive)]) == 0
    with tarfile.open(archive) as tar:
        records = {name: json.load(tar.extractfile(name)) for name in tar.getnames()}
    assert {r["name"]: r["status"] for r in records.values()} == {"one": "passed", "pair": "compile-only"}
    assert records["snippets/device-software/warp/one/nvidia-a100-sxm4-40gb.json"]["stdout"] == "1\n"


FAKE_MACHINE_NVCC = r"""#!{python}
import os, shutil, stat, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("Cuda compilation tools, release 13.0, V13.0.88")
    sys.exit(0)
out = args[args.index("-o") + 1]
source = next(a for a in args if a.endswith(".cu"))
text = open(source).read()
if "cudaGetDeviceCount" in text:  # the machine query of glossary_tool/verify/toolchain.py
    text = "#!{python}\nprint('{{\"name\": \"NVIDIA A100-SXM4-40GB\", \"cc\": \"8.0\", \"sms\": 108, \"runtime\": 12080, \"count\": 1}}')\n"
else:
    keep = args[args.index("--keep-dir") + 1]
    open(os.path.join(keep, "snippet.ptx"), "w").write("// fake PTX\n")
open(out, "w").write(text)
os.chmod(out, os.stat(out).st_mode | stat.S_IEXEC)
"""
FAKE_SMI = "#!/bin/sh\ncase \"$*\" in *name,*) echo 'NVIDIA A100-SXM4-40GB, 570.86.15, 40960 MiB';; *) echo 570.86.15;; esac\n"


def test_gpu_verify_script_packs_one_tarball_and_a_log(make_glossary, tmp_path):
    """scripts/gpu-verify.sh on a simulated A100 machine: nvcc, cuobjdump and nvidia-smi on PATH."""
    import os
    import shutil
    import subprocess

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("nvcc", FAKE_MACHINE_NVCC.format(python=sys.executable)), ("cuobjdump", FAKE_CUOBJDUMP), ("nvidia-smi", FAKE_SMI)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    ampere_program = _program("name = NVIDIA A100-SXM4-40GB\n")
    body = (
        f'```cuda verify name="ampere" arch="sm_80"\n{ampere_program}```\n\n```output\nname = {{gpu_name}}\n```\n\n'
        f'```cuda verify name="hopper"\n{_program("hopper")}```\n'
    )
    root = _project(make_glossary, body)
    (root / "scripts").mkdir()
    shutil.copy(REPO / "scripts/gpu-verify.sh", root / "scripts/gpu-verify.sh")
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(REPO), "PYTHON": sys.executable, "CUDA_HOME": str(tmp_path / "none")}
    out = tmp_path / "out"
    result = subprocess.run(["bash", "scripts/gpu-verify.sh", str(out), "--force", "--jobs", "2"], cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["gpu-records.tgz", "verify.log"]
    log = (out / "verify.log").read_text()
    assert "verify: 1 passed, 0 failed, 0 compile-only, 0 cached, 1 skipped (2 snippets)" in log
    assert "warm verify: 0 passed, 0 failed, 0 compile-only, 2 cached, 0 skipped (2 snippets)" in log
    assert "hopper skipped" in result.stdout and "needs compute capability 9.0 (sm_90)" in result.stdout
    checkout = make_glossary(trio({"warp": body}), root=tmp_path / "checkout")
    assert main(["--root", str(checkout), "verify", "--merge", str(out / "gpu-records.tgz")]) == 0
    _, term = _warp(checkout)
    ampere, hopper = term.snippets
    assert records_for(checkout / "snippets", term, ampere)["nvidia-a100-sxm4-40gb"].stdout == "name = NVIDIA A100-SXM4-40GB\n"
    assert records_for(checkout / "snippets", term, hopper)["nvidia-a100-sxm4-40gb"].status == "compile-only"
