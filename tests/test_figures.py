"""Figures quoted in prose against the records: markdown in, `figure-drift` diagnostics out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from glossary_tool.cli import main
from glossary_tool.pipeline import load_project
from glossary_tool.verify.figures import RecordOutput, figure_problems, parse_figures
from glossary_tool.verify.records import sha256
from tests.conftest import trio

H200 = "NVIDIA H200"
H100 = "NVIDIA H100 80GB HBM3"
SOURCE = "int main() {}\n"


def problems(prose: str, stdout: str, gpu: str = H200, written: str = "") -> list[str]:
    return [p.figure.text for p in figure_problems(prose, [RecordOutput(gpu, stdout)], written)]


@pytest.mark.parametrize(
    ("prose", "stdout", "flagged"),
    [
        ("A hop took 416 cycles.", "L2 416 cycles\n", []),
        ("A hop took 414 cycles.", "L2 416 cycles\n", ["414 cycles"]),  # drifted from the record
        ("It took 0.20 ms.", "0.204 ms\n", []),  # rounds to the written precision
        ("It took 0.20 ms.", "0.206 ms\n", ["0.20 ms"]),
        ("It took 340 ns.", "339.3 ns\n", []),  # trailing zeros of 3+ digits are rounding
        ("It took 40 cycles.", "44 cycles\n", ["40 cycles"]),  # but 40 is exact
        ("It took about 40 cycles.", "43 cycles\n", []),  # a hedge allows 10 %
        ("It took about 40 cycles.", "45 cycles\n", ["40 cycles"]),
        ("It ran at over 50 GB/s.", "55.3 GB/s\n", []),
        ("It ran at up to 50 GB/s.", "55.3 GB/s\n", ["50 GB/s"]),
        ("Copies ran at 6.2-8.1 GB/s.", "7.5 GB/s\n", []),  # a range holds a printed value
        ("Copies ran at 8.2-9.1 GB/s.", "7.5 GB/s\n", ["8.2-9.1 GB/s"]),
        ("It took 290 to 300 cycles.", "276 cycles\n", ["290 to 300 cycles"]),
        ("It reached 4.8 TB/s.", "1.2 TB/s\n", []),  # no printed figure near it: not a quote
        ("It reached the 4.8 TB/s peak.", "4.3 TB/s\n", []),  # a specification
        ("Kernels shorter than about 10 us suffer.", "8.5 us\n", []),  # a threshold
        ("2 x (113 + 1) KiB = 228 KiB fits.", "227 KiB\n", []),  # arithmetic shown in the text
        ("A 16 x 16 tile, 1.99x faster.", "1.99x\n16 x\n", []),
        ("The speedup was 1.9x.", "speedup 1.99x\n", ["1.9x"]),
    ],
)
def test_tolerance_rules(prose, stdout, flagged):
    assert problems(prose, stdout) == flagged


def test_tables_with_units_in_the_header_are_read():
    table = "op      MiB   time_us   busbw_GB/s\nallreduce  512   1703.2   315.2\n\nafter 300 GB/s\n"
    assert problems("It reached a bus bandwidth of 315 GB/s.", table) == []
    assert problems("It reached a bus bandwidth of 310 GB/s.", table) == ["310 GB/s"]
    assert problems("It took 1,703 us.", table) == []


def test_figures_repeated_from_the_source_are_not_measurements():
    assert problems("Each of the 256 MiB copies.", "copied 250 MiB\n", written="const size_t bytes = 256; // 256 MiB") == []


def test_a_figure_is_quoted_for_the_gpu_named_before_it():
    outputs = [RecordOutput(H200, "L2 288 cycles\n"), RecordOutput(H100, "L2 276 cycles\n")]
    assert [p.figure.text for p in figure_problems("On the H100 an L2 hit took 288 cycles.", outputs)] == ["288 cycles"]
    assert figure_problems("On the H100 an L2 hit took 276 cycles, on the H200 288 cycles.", outputs) == []
    (problem,) = figure_problems("On the H200 an L2 hit took 276 cycles.", outputs)
    assert problem.gpus == (H200,) and problem.near == (288.0,)
    # No record from the GPU the sentence names: nothing to check it against.
    assert figure_problems("On an A100 an L2 hit took 200 cycles.", outputs) == []


def test_parse_keeps_the_written_text_and_offset():
    (range_, single) = parse_figures("ran at 6.2-8.1 GB/s, 7.5 GB/s")
    assert (range_.text, range_.value, range_.high, range_.offset) == ("6.2-8.1 GB/s", 6.2, 8.1, 7)
    assert (single.text, single.offset, single.qualifier) == ("7.5 GB/s", 21, "")


# --- the check on a glossary on disk -------------------------------------------------------

SNIPPET = '```cuda verify name="x"\nint main() {}\n```\n\n```output\n...\n```\n'


def _record(root: Path, term: str, stdout: str, *, source: str = SOURCE, gpu: str = H200, status: str = "passed", section: str = "device-software") -> None:
    data = dict(section=section, term=term, name="x", lang="cuda", options={}, source_sha256=sha256(source), status=status, reason="",
                stdout=stdout, stderr="", exit_status=0, duration_s=0.1, date="2026-11-23", nvcc_version="13.0.88",
                machine=dict(gpu_name=gpu, compute_capability="9.0", sm_count=132, driver_version="580", cuda_runtime_version="13.0", nvcc_version="13.0.88"))
    path = root / f"snippets/{section}/{term}/x.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def _glossary(make_glossary, warp_extra: str, thread_extra: str = "") -> Path:
    return make_glossary(trio({"warp": warp_extra, "thread": thread_extra}))


def _codes(root: Path) -> list[tuple[str, str, int, int]]:
    return [(d.code, d.path, d.line, d.col) for d in load_project(root).diagnostics]


def test_drifted_figure_is_reported_at_its_position(make_glossary):
    root = _glossary(make_glossary, SNIPPET + "\nOn the H200 we ran this on, a hop took about 29 cycles and\nan L2 hit 414 cycles.\n")
    _record(root, "warp", "shared 29 cycles\nL2 416 cycles\n")
    # Seven lines of front matter, one of body, then the snippet (lines 9-15) and the prose.
    diags = load_project(root).diagnostics
    (d,) = diags
    assert (d.code, d.path, d.line, d.col) == ("figure-drift", "glossary/device-software/warp.md", 18, 11)
    assert "'414 cycles'" in d.message and "416 cycles" in d.message and "snippet 'x'" in d.message


def test_figures_that_match_are_clean(make_glossary):
    root = _glossary(make_glossary, SNIPPET + "\nOn the H200 we ran this on, an L2 hit took 416 cycles; `414 cycles` is code.\n")
    _record(root, "warp", "L2 416 cycles\n")
    assert _codes(root) == []


def test_stale_or_failed_records_are_not_quoted_against(make_glossary):
    body = SNIPPET + "\nOn the H200 we ran this on, an L2 hit took 414 cycles.\n"
    root = _glossary(make_glossary, body)
    _record(root, "warp", "L2 416 cycles\n", source="int main() { return 0; }\n")
    assert [c for c, *_ in _codes(root)] == ["snippet-stale"]
    _record(root, "warp", "L2 416 cycles\n", status="failed")
    assert [c for c, *_ in _codes(root)] == ["snippet-failed"]


def test_prose_after_a_heading_belongs_to_no_snippet(make_glossary):
    root = _glossary(make_glossary, SNIPPET + "\n## Elsewhere\n\nAnother GPU took 414 cycles.\n")
    _record(root, "warp", "L2 416 cycles\n")
    assert _codes(root) == []


def test_a_linked_term_lends_its_records_to_the_sentence(make_glossary):
    root = _glossary(make_glossary, SNIPPET + "\nThe [[thread]] page timed the same hop at 305 cycles.\n", thread_extra=SNIPPET)
    _record(root, "warp", "L2 416 cycles\n")
    _record(root, "thread", "L2 301 cycles\n")
    assert [c for c, *_ in _codes(root)] == ["figure-drift"]
    _record(root, "thread", "L2 305 cycles\n")
    assert _codes(root) == []


def test_cli_reports_figure_drift_and_fails(make_glossary, capsys):
    root = _glossary(make_glossary, SNIPPET + "\nOn the H200 we ran this on, it copied at 7.9 GB/s.\n")
    _record(root, "warp", "pageable 8.5 GB/s\n")
    assert main(["--root", str(root), "check"]) == 1
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert line.startswith("glossary/device-software/warp.md:17:42: error: '7.9 GB/s' matches no figure the snippet printed on NVIDIA H200")
    assert line.endswith("[figure-drift]")



def test_check_changed_reports_figure_drift_like_a_full_check(make_glossary):
    from glossary_tool.commands.changed import check_paths

    root = _glossary(make_glossary, SNIPPET + "\nThe [[thread]] page timed the same hop at 305 cycles.\n", thread_extra=SNIPPET)
    _record(root, "warp", "L2 416 cycles\n")
    _record(root, "thread", "L2 301 cycles\n")
    full = [d.format() for d in load_project(root).diagnostics if d.code == "figure-drift"]
    fast = [d.format() for d in check_paths(root, {"glossary/device-software/warp.md"}).diagnostics if d.code == "figure-drift"]
    assert len(full) == 1 and fast == full


def test_a_paragraph_quoting_the_record_must_name_the_gpu(make_glossary):
    root = _glossary(make_glossary, SNIPPET + "\nAn L2 hit took 416 cycles.\n")
    _record(root, "warp", "L2 416 cycles\n")
    (d,) = load_project(root).diagnostics
    assert (d.code, d.severity.value, d.line, d.col) == ("figure-gpu", "warning", 17, 16)
    assert "names no GPU" in d.message
    root = _glossary(make_glossary, SNIPPET + "\nOn the H200 we ran this on, an L2 hit took 416 cycles.\n")
    assert _codes(root) == []


# --- blind spots: figures the check used to skip ---------------------------------------------

@pytest.mark.parametrize(
    ("prose", "stdout", "flagged"),
    [
        # A list shares the unit written after its last number; a hedge before the first covers all.
        ("It took 0.118 and 2.155 ms.", "0.118 ms\n2.155 ms\n", []),
        ("It took 0.128 and 2.155 ms.", "0.118 ms\n2.155 ms\n", ["0.128"]),
        ("The lines came out at 51.5, 431.2 and 870.6 TFLOP/s.", "51.5 TFLOP/s\n433.2 TFLOP/s\n870.6 TFLOP/s\n", ["431.2"]),
        ("It gave about 1.1, 1.8 and 2.9 TB/s.", "1.11 TB/s\n1.97 TB/s\n2.92 TB/s\n", []),
        ("It gave about 1.1, 1.5 and 2.9 TB/s.", "1.11 TB/s\n1.97 TB/s\n2.92 TB/s\n", ["1.5"]),
        ("The runs stayed between 59.6 and 64.4 TFLOP/s.", "60.5 TFLOP/s\n", []),  # "between a and b" is a range
        # "from 1,300 GB/s at stride 1 to 480 GB/s" is no range: the ends are too far apart.
        ("It fell from 1,300 GB/s at stride 1 to 480 GB/s at stride 8.", "1293.9 GB/s\n410.5 GB/s\n", ["480 GB/s"]),
        # Spelled-out units.
        ("The second wave began 210 microseconds later.", "wave 2 at 187.5 us\n", ["210 microseconds"]),
        # Ratios: "N times as ...", "a ratio of N", "N-fold", checked against printed ratios and
        # against ratios of two figures of one unit that the same record printed.
        ("It was 18 times slower.", "0.116 ms\n2.152 ms\n", ["18 times"]),
        ("It was about 18 times slower.", "0.116 ms\n2.152 ms\n", []),
        ("The chain cost 4.9 times less.", "287.8 cycles\n59.3 cycles\n", []),
        ("The chain cost 4.6 times less.", "287.8 cycles\n59.3 cycles\n", ["4.6 times"]),
        ("A measured ratio of 1.78 rather than 2.", "FP32/FP64 = 1.78\n56.1 TFLOP/s\n31.5 TFLOP/s\n", []),
        ("A measured ratio of 1.87.", "56.1 TFLOP/s\n31.5 TFLOP/s\n", ["1.87"]),
        ("It ran 10.8 times as fast (the program prints 11x).", "56.0 TFLOP/s\n607.1 TFLOP/s (11x)\n", []),
        ("It ran 12x faster.", "56.0 TFLOP/s\n607.1 TFLOP/s (11x)\n", ["12x"]),
        # A percentage of a figure is checked against printed figures divided by that figure.
        ("The copy reached 81.2 % of the 4,814 GB/s theoretical figure.", "3911 GB/s\n", []),
        ("The copy reached 85.2 % of the 4,814 GB/s theoretical figure.", "3911 GB/s\n", ["85.2 %"]),
        ("It ran at about 80% of the H200's 4.8 TB/s peak.", "3832 GB/s\n", []),
        ("It ran at about 90% of the H200's 4.8 TB/s peak.", "3832 GB/s\n", ["90%"]),
        # A percentage below or above a figure.
        ("The clock came out at 1976 MHz, 0.2 % below the 1980 MHz maximum.", "1976 MHz\n", []),
        ("The clock came out at 1976 MHz, 0.3 % below the 1980 MHz maximum.", "1976 MHz\n", ["0.3 %"]),
        # Unitless numbers that look measured (a decimal, or three significant digits) and have a
        # printed number nearby must match a printed number.
        ("On the H100 the same three took 4.23, 4.39 and 10.64 us.", "4.23 us\n4.39 us\n10.64 us\n", []),
        ("The kernel's 977 program instances ran.", "grid 977\n", []),
        ("The kernel's 967 program instances ran.", "grid 977\n", ["967"]),
        ("The error was about 9.5e-7.", "max error 9.54e-07\n", []),
        ("The error was about 9.5e-7.", "max error 1.19e-06\n", ["9.5e-7"]),
        ("The sums were −22783.2715 and −22784.6777.", "sums -22783.2715 -22784.6777\n", []),
        ("Lanes 0 to 31 and 2 x 1,024 = 2,048.", "sum 500\n2000\n", []),  # names, arithmetic, small integers
        ("Driver 580.159.04 serves CUDA 13.0 since 2024.", "driver 580.95.05, CUDA 12.9\n", []),  # versions, years
        ("A 2,048-thread block.", "2,000 threads\n", []),  # a compound names a configuration
    ],
)
def test_blind_spots(prose, stdout, flagged):
    assert problems(prose, stdout) == flagged


@pytest.mark.parametrize(
    ("prose", "flagged"),
    [
        # A specification keyword exempts the figure it qualifies, not every figure of its sentence.
        ("The loop reached 55.97 TFLOP/s, 83.7 % of the computed 66.91 TFLOP/s, at 1,837 MHz, 7 % below the 1,980 MHz maximum.", []),
        ("The loop reached 57.97 TFLOP/s, 83.7 % of the computed 66.91 TFLOP/s, at 1,837 MHz, 7 % below the 1,980 MHz maximum.", ["57.97 TFLOP/s"]),
        ("The loop reached 55.97 TFLOP/s at 1,807 MHz, below the 1,980 MHz maximum.", ["1,807 MHz"]),
        ("The copy moved 3,911 GB/s, near the 4,814 GB/s theoretical figure.", []),
        ("The copy moved 3,711 GB/s, near the 4,814 GB/s theoretical figure.", ["3,711 GB/s"]),
        # The specification itself stays unchecked, before or after its keyword, or in a "that ... carries" clause.
        ("The 1,980 MHz maximum and the quoted 2,000 MHz and 1,700 MHz that the datasheet gives.", []),
    ],
)
def test_specification_keywords_exempt_only_their_figure(prose, flagged):
    stdout = "FP32 peak = 66.91 TFLOP/s\nmeasured = 55.97 TFLOP/s (83.7% of peak)\nSM clock during the run = 1837 MHz\n3911 GB/s\n"
    assert problems(prose, stdout) == flagged


@pytest.mark.parametrize(
    ("table", "prose", "flagged"),
    [
        # The unit is a word of the column's header, the columns aligned on two or more spaces.
        ("stride  bytes apart  useful read GB/s\n     1            4            1293.9\n     8           32             482.5\n",
         "It fell to 482 GB/s at stride 8.", []),
        ("stride  bytes apart  useful read GB/s\n     1            4            1293.9\n     8           32             482.5\n",
         "It fell to 460 GB/s at stride 8.", ["460 GB/s"]),
        ("warps/SM   GB/s, 1 load in flight   GB/s, 4 loads in flight\n       2      621     1638\n      64     3997     3902\n",
         "With 64 warps it reached 3,950 GB/s.", ["3,950 GB/s"]),
        ("size  time (ms)\n  1  0.204\n", "It took 0.204 ms.", []),
        ("size  time (ms)\n  1  0.204\n", "It took 0.214 ms.", ["0.214 ms"]),
        # "per cycle" is a rate, not the column's unit.
        ("warps   cycles between FMAs   FMAs per cycle\n    1                  4.45             0.22\n",
         "One warp issued an FMA every 4.45 cycles.", []),
        ("warps   cycles between FMAs   FMAs per cycle\n    1                  4.45             0.22\n",
         "One warp issued an FMA every 4.75 cycles.", ["4.75 cycles"]),
    ],
)
def test_table_columns_with_the_unit_in_the_header(table, prose, flagged):
    assert problems(prose, table) == flagged


@pytest.mark.parametrize(
    ("prose", "stdout", "flagged"),
    [
        # The same quantity in another unit: 81,559 MiB is 79.6 GiB or 85.5 GB.
        ("Its 81,559 MiB are 79.6 GiB or 85.5 GB.", "81559 MiB\n", []),
        ("Its 81,559 MiB are 79.6 GiB or 86.5 GB.", "81559 MiB\n", ["86.5 GB"]),
        # A share of a line's own figures: "962 GFLOP/s measured, roof 1204 GFLOP/s" is 80 %.
        ("It reached 80 % of the sloped roof.", "962 GFLOP/s measured, roof 1204 GFLOP/s\n83.6%\n", []),
        ("It reached 85 % of the sloped roof.", "962 GFLOP/s measured, roof 1204 GFLOP/s\n83.6%\n", ["85 %"]),
        # "N times" is a ratio whatever follows; a count matches the printed number.
        ("On the H100, 56.0 and 611.5 TFLOP/s, 10.9 times.", "56.0 TFLOP/s\n611.5 TFLOP/s (11x)\n", []),
        ("It loads the table 1,056 times.", "1056 blocks\n", []),
        # The ceiling a share is taken of, a figure "according to" a document, a peak after its keyword.
        ("It ran at 2774 GB/s, about 83% of its 3.35 TB/s.", "2774 GB/s\n", []),
        ("It has 141 GB of HBM3e according to NVIDIA's product page.", "150109 MB\n", []),
        ("At the 1.98 GHz maximum clock the pipe's peak is about 33,450 G results/s.", "27889 G results/s\n", []),
        ("The pipe delivered 27,389 G results/s.", "27889 G results/s\n", ["27,389 G results/s"]),
        # Powers of two are sizes and limits of the design.
        ("Blocks of 256 threads and the next power of two, 65,536.", "264 blocks\n65520\n", []),
    ],
)
def test_conversions_shares_and_exemptions(prose, stdout, flagged):
    assert problems(prose, stdout) == flagged


def test_shares_listed_before_their_whole_and_keywords_that_open_the_next_phrase():
    stdout = "4041 GB/s\n3927 GB/s\n26.562 GB/s\n"
    assert problems("They moved 84 % and 82 % of the 4,814 GB/s theoretical figure.", stdout) == []
    assert problems("They moved 88 % and 82 % of the 4,814 GB/s theoretical figure.", stdout) == ["88 %"]
    # "the quoted" belongs to the figure after it: the one before stays a measurement.
    assert problems("The 18 links add up to 478 GB/s against the quoted 450 GB/s.", "18 x 26.6 GB/s = 478.1 GB/s\n") == []
    assert problems("The 18 links add up to 468 GB/s against the quoted 450 GB/s.", "18 x 26.6 GB/s = 478.1 GB/s\n") == ["468 GB/s"]


def test_a_gpu_named_right_after_a_figure_is_its_gpu():
    outputs = [RecordOutput(H200, "143156 MiB\n81.0%\n84.2%\n77.3%\n"), RecordOutput(H100, "81079 MiB\n80.8%\n83.9%\n78.4%\n")]
    assert figure_problems("The totals were 143,156 MiB on the H200 and 81,079 MiB on the H100.", outputs) == []
    (problem,) = figure_problems("The totals were 143,156 MiB on the H200 and 81,179 MiB on the H100.", outputs)
    assert problem.figure.text == "81,179 MiB" and problem.gpus == (H100,)
    assert figure_problems("That is 81%, 84% and 77% on the H200 and 81%, 84% and 78% on the H100.", outputs) == []
    assert [p.figure.text for p in figure_problems("That is 81%, 84% and 77% on the H200 and 81%, 84% and 77% on the H100.", outputs)] == ["77%"]


def test_a_list_member_is_reported_at_its_own_column(make_glossary, capsys):
    root = _glossary(make_glossary, SNIPPET + "\nOn the H200 we ran this on, the three took 5.14, 5.31 and 10.23 us.\n")
    _record(root, "warp", "queue 5.14 us\nretire 5.21 us\nsync 10.23 us\n")
    assert main(["--root", str(root), "check"]) == 1
    (line,) = capsys.readouterr().out.strip().splitlines()
    assert line.startswith("glossary/device-software/warp.md:17:50: error: '5.31' matches no figure the snippet printed on NVIDIA H200 (nearest: 5.21, 5.14 us;")
    assert line.endswith("[figure-drift]")
