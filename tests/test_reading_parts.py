"""The data behind the reading features: search names, preview cards, the interactive pages' records."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from bs4 import BeautifulSoup

from glossary_tool.emit import occupancy, roofline, search_names
from glossary_tool.emit.previews import mark_previewable, opening, previews_index, resolver
from glossary_tool.emit.widgets import widget_html
from glossary_tool.pipeline import load_project
from glossary_tool.verify.records import Machine, Record
from tests.conftest import REPO, term_text, trio


@pytest.fixture(scope="module")
def real(real_project):
    return real_project.glossary


# --- search names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ("Compute Unit (CU)", [("Compute Unit", 2), ("CU", 3)]),
        ("[[compute-unit|Compute Unit]] (CU)", [("Compute Unit", 2), ("CU", 3)]),
        ("[[wavefront]] (64 lanes)", [("wavefront", 2), ("64 lanes", 3)]),
        ("wavefront (64 lanes on CDNA; wave32 or wave64 on RDNA)", [("wavefront", 2), ("64 lanes on CDNA", 3)]),  # five words: prose, not a name
        ("rocBLAS and hipBLASLt", [("rocBLAS and hipBLASLt", 2), ("rocBLAS", 2), ("hipBLASLt", 2)]),
        ("CDNA 2 (Instinct MI200 series), the contemporary generation", [("CDNA 2", 2), ("Instinct MI200 series", 3)]),
        ("stream processor (one ALU lane); AMD's \"compute unit\" is the SM-sized block", [("stream processor", 2), ("one ALU lane", 3)]),
    ],
)
def test_vendor_names_are_the_short_phrases_of_an_entry(value, names):
    assert search_names.vendor_names(value) == names


def test_term_names_keep_the_strongest_kind_once(make_glossary):
    root = make_glossary(
        {
            **trio(),
            "device-hardware/streaming-multiprocessor.md": term_text(
                "Streaming Multiprocessor", "Runs every [[warp]] of its [[thread]]s.\n", abbreviation="SM", aliases=["multiprocessor"], extra="equivalents:\n  amd: Compute Unit (CU)\n  intel: Xe-core (the SM)\n"
            ),
        }
    )
    term = load_project(root, check_records=False).glossary.terms["streaming-multiprocessor"]
    names = dict(search_names.term_names(term))
    assert names == {"streaming multiprocessor": 0, "sm": 0, "multiprocessor": 1, "compute unit": 2, "cu": 3, "xe-core": 2, "the sm": 3}


def test_names_index_is_in_reading_order_with_page_locations(real):
    index = json.loads(search_names.names_json(real, lambda t: f"{t.section}/{t.slug}/"))
    locations = [entry[0] for entry in index["terms"]]
    assert locations == [f"{t.section}/{t.slug}/" for t in real.ordered_terms()]
    sm = dict(index["terms"][locations.index("device-hardware/streaming-multiprocessor/")][1])
    assert sm["sm"] == search_names.TITLE and sm["compute unit"] == search_names.VENDOR


# --- previews -------------------------------------------------------------------------------------


def test_opening_is_plain_text_with_references_shown_as_read(make_glossary):
    body = "A [[thread]] group on an [[streaming-multiprocessor|SM]], `__syncwarp()` and *all*.\n\nSecond paragraph.\n\n```cuda\nint x;\n```\n"
    root = make_glossary({**trio(), "device-software/warp.md": term_text("Warp", body)})
    glossary = load_project(root, check_records=False).glossary
    text = opening(glossary.terms["warp"], glossary, resolver(glossary))
    assert text == "A thread group on an SM, __syncwarp() and all. Second paragraph."


def test_long_openings_end_at_a_sentence(real):
    resolve = resolver(real)
    for term in real.ordered_terms():
        text = opening(term, real, resolve)
        assert text and len(text) <= 430, term.slug
        assert "[[" not in text and "](" not in text, term.slug
    index = previews_index(real, lambda t: f"{t.section}/{t.slug}/", resolve)
    warp = index["device-software/warp/"]
    assert (warp["title"], warp["section"], warp["summary"]) == ("Warp", "Device Software", real.terms["warp"].summary)


def test_links_to_terms_are_marked_and_keep_their_title():
    page = (
        '<p><a href="../warp/" title="A group.">warp</a> <a href="../../performance/occupancy/#what-limits-it" title="x">o</a> '
        '<a href="https://docs.nvidia.com/" title="Docs">docs</a> <a href="../no-such/">n</a></p>'
        '<svg><a xlink:href="../warp/" tabindex="0"><title>Warp</title></a></svg>'
    )
    out = BeautifulSoup(mark_previewable(page, "device-software/thread/", {"device-software/warp/", "performance/occupancy/"}), "html.parser")
    marked = [(a.get("href") or a.get("xlink:href"), a.has_attr("title")) for a in out.select("a[data-gg-preview]")]
    assert marked == [("../warp/", True), ("../../performance/occupancy/#what-limits-it", True), ("../warp/", False)]  # the summary stays for readers without JavaScript
    assert out.select_one('a[href="https://docs.nvidia.com/"]')["title"] == "Docs"
    assert not out.select_one('a[href="../no-such/"]').has_attr("data-gg-preview")


# --- interactive pages ----------------------------------------------------------------------------

H200 = Machine("NVIDIA H200", "9.0", 132, "13.0", "580.159.04", "13.0.88")
LIMITS = "limits: cc 9.0, warpSize 32, maxThreadsPerBlock 1024, maxThreadsPerMultiProcessor 2048, maxBlocksPerMultiProcessor 32, regsPerMultiprocessor 65536, regsPerBlock 65536, sharedMemPerMultiprocessor 233472, sharedMemPerBlockOptin 232448, reservedSharedMemPerBlock 1024"


def record(stdout: str) -> Record:
    return Record(name="x", term="occupancy", section="performance", lang="cuda", source_sha256="0", options={}, status="passed", reason="", stdout=stdout, stderr="", exit_status=0, duration_s=0.1, date="2026-11-23", nvcc_version="13.0.88", machine=H200)


def test_occupancy_record_gives_limits_and_cases():
    run = occupancy.parse_run(record(LIMITS + "\ncap96  regs  96, static    0 B, block  640, dynamic  9000 B ->  1 blocks/SM\ncap168 regs 168, static    0 B, block 1024, dynamic     0 B -> cudaErrorInvalidValue\n"))
    assert run is not None and run.compute_capability == (9, 0)
    assert run.limits["sharedMemPerMultiprocessor"] == 233472 and len(run.limits) == len(occupancy.LIMIT_KEYS)
    assert run.cases == (occupancy.Case("cap96", 96, 0, 640, 9000, 1), occupancy.Case("cap168", 168, 0, 1024, 0, None, "cudaErrorInvalidValue"))
    assert occupancy.parse_run(record(LIMITS.replace(", reservedSharedMemPerBlock 1024", "") + "\n")) is None  # an incomplete limits line is no run


def test_calculator_html_is_one_element_with_labelled_inputs_and_the_limits():
    run = occupancy.parse_run(record(LIMITS + "\n"))
    soup = BeautifulSoup(occupancy.calculator_html([run, replace(run, gpu="NVIDIA H100 80GB HBM3")]), "html.parser")
    (root,) = soup.find_all(recursive=False)
    assert root["data-gg-widget"] == "occupancy"
    assert [o.get_text() for o in root.select("select[name=gpu] option")] == ["NVIDIA H200", "NVIDIA H100 80GB HBM3"]
    for name in ("threads", "regs", "smem"):
        assert root.select_one(f"input[name={name}]").find_parent("label") is not None
    data = json.loads(root.select_one("script.gg-occupancy__data").string)
    assert data["gpus"][0]["limits"]["regsPerMultiprocessor"] == 65536 and data["gpus"][0]["cc"] == [9, 0]
    assert "</" not in root.select_one("script").string
    empty = BeautifulSoup(occupancy.calculator_html([]), "html.parser")
    assert not empty.select("form") and "occupancy-oracle" in empty.get_text()


def test_roofline_record_gives_roof_and_points():
    text = "FP32 roofline: 4814 GB/s slope, 66908 GFLOP/s flat roof, ridge at 13.9 FLOP/B\nAI   0.25 FLOP/B:      965 GFLOP/s measured, roof   1204 GFLOP/s\nAI  64.00 FLOP/B:    62992 GFLOP/s measured, roof  66908 GFLOP/s\n"
    run = roofline.parse_run(record(text))
    assert run is not None and (run.bandwidth, run.peak, run.ridge) == (4814.0, 66908.0, 13.9)
    assert run.points == (roofline.Point(0.25, 965.0, 1204.0), roofline.Point(64.0, 62992.0, 66908.0))
    assert roofline.parse_run(record("AI   0.25 FLOP/B:      965 GFLOP/s measured, roof   1204 GFLOP/s\n")) is None


def test_widgets_only_on_their_pages_and_from_committed_records(real):
    records = REPO / "snippets"
    assert widget_html(real.terms["warp"], real, records) == ""
    page = BeautifulSoup(widget_html(real.terms["roofline-model"], real, records), "html.parser")
    runs = roofline.runs(real, records)
    assert [r.gpu for r in runs] == [th.get_text() for th in page.select("tbody th")]
    calculator = BeautifulSoup(widget_html(real.terms["occupancy"], real, records), "html.parser")
    assert calculator.select_one(".gg-occupancy") is not None
    assert bool(calculator.select("form")) == bool(occupancy.runs(real, records))
