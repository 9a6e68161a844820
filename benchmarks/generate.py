"""Generate a synthetic glossary of N terms for the scale benchmarks.

Each term is written like a real one: about 250 words of prose wrapped at 88 columns (a
cross-reference may wrap), a list, a small table with cross-references (one in the
Obsidian ``\\|`` form), a ``##`` heading and a C++ code block; 15 cross-references in all,
to nearby terms, so the graph has the local structure of the real one. Every tenth term
has a CUDA snippet with a committed record (the PTX and SASS of the real ``warp-size`` snippet stand in for its own), and every
fiftieth term shows a diagram of eight linked boxes. Deterministic for a given N and seed.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from glossary_tool.load.toc import dump_toc
from glossary_tool.model import SECTIONS

REPO = Path(__file__).resolve().parent.parent
WORDS = ("the kernel moves data through shared memory while each warp waits on its barrier and the scheduler picks another "
         "ready instruction from a resident block so latency hides behind independent work on the same multiprocessor").split()
SNIPPET = '```cuda verify name="demo"\n#include <cstdio>\nint main() { std::printf("%d\\n", 32); }\n```\n\n```output\n32\n```'
SNIPPET_EVERY = 10
CODE = "```cpp\n__global__ void scale(float* x, float a, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= a;  // [[likely]] is C++, not a cross-reference\n}\n```"
DIAGRAM_EVERY = 50


def _diagram(index: int, slugs: list[str]) -> str:
    boxes = "".join(f"      - {{term: {slug}, caption: box {k}}}\n" for k, slug in enumerate(slugs))
    return (
        f"title: Synthetic diagram {index}\n"
        f"description: Eight synthetic terms in two rows, the first linked to the last.\n"
        f"boxes:\n  - id: group\n    label: Group {index}\n    layout: grid\n    columns: 4\n    boxes:\n{boxes}"
        f"  - id: tail\n    term: {slugs[0]}\n"
        f"arrows:\n  - {{from: group, to: tail, label: reads}}\nlegend: true\n"
    )


def _wrap(words: list[str], width: int = 88) -> str:
    """Words joined into lines of at most ``width`` characters, as authors wrap prose
    (a cross-reference may be split across a line break, as in real terms)."""
    lines, line = [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join([*lines, line])


def _paragraph(rng: random.Random, targets: list[str]) -> str:
    """About 50 words with three cross-references, one of them by alias (two words, so it
    can wrap) and one with shown text."""
    units = [[rng.choice(WORDS)] for _ in range(50)]
    forms = [f"[[{targets[0]}]]", f"[[alias {targets[1][5:]}]]s", f"[[{targets[2]}|the {rng.choice(WORDS)} term]]"]
    for form in forms:
        units.insert(rng.randrange(len(units)), form.split(" "))  # word by word: a line may break inside it
    return _wrap([word for unit in units for word in unit]) + "."


def _list(rng: random.Random, targets: list[str]) -> str:
    items = [f"- {_wrap([rng.choice(WORDS) for _ in range(12)], 70)}".replace("\n", "\n  ") for _ in range(2)]
    items += [f"- see [[{target}]] for {rng.choice(WORDS)} {rng.choice(WORDS)}" for target in targets]
    return "\n".join(items)


def _table(first: str, second: str) -> str:
    return (
        "| Quantity | Term | Value |\n|---|---|---:|\n"
        f"| latency | [[{first}]] | 20 cycles |\n| width | [[{second}\\|that one]] | 32 lanes |\n| bandwidth | n/a | 3.35 TB/s |"
    )


def generate(root: Path, n: int, seed: int = 1) -> Path:
    rng = random.Random(seed)
    glossary = root / "glossary"
    order: dict[str, list[str]] = {s: [] for s in SECTIONS}
    slugs = [f"term-{i:05d}" for i in range(n)]
    (root / "diagrams").mkdir(parents=True, exist_ok=True)
    for i, slug in enumerate(slugs):
        section = SECTIONS[i % len(SECTIONS)]
        order[section].append(slug)
        targets = rng.sample([s for s in slugs if s != slug] if n < 200 else [slugs[(i + k * 7 + 1) % n] for k in range(15)], k=min(15, n - 1))
        paragraphs = [_paragraph(rng, [targets[(p * 3 + k) % len(targets)] for k in range(3)]) for p in range(4)]
        paragraphs.insert(1, _list(rng, targets[12:14]))
        paragraphs.insert(3, _table(targets[14 % len(targets)], targets[0]))
        paragraphs.append(CODE)
        if i % SNIPPET_EVERY == 0:
            paragraphs.append(SNIPPET)
        diagrams = ""
        if i % DIAGRAM_EVERY == 0 and n >= 8:
            name = f"synthetic-{i:05d}"
            (root / "diagrams" / f"{name}.yml").write_text(_diagram(i, [slugs[(i + k) % n] for k in range(8)]), encoding="utf-8")
            diagrams = f"diagrams: [{name}]\n"
        text = (
            f"---\ntitle: Term {i:05d}\nsummary: Synthetic term number {i} for scale benchmarks.\n"
            f"aliases: [alias {i:05d}]\n{diagrams}sources:\n  - title: Synthetic source\n    url: https://example.org/{slug}\n---\n"
            + "\n\n".join(paragraphs[:3]) + "\n\n## Part\n\n" + "\n\n".join(paragraphs[3:]) + "\n"
        )
        path = glossary / section / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (glossary / "toc.yml").write_text(dump_toc(order), encoding="utf-8")
    for section in SECTIONS:
        (glossary / section / "index.md").write_text(f"---\ntitle: {section.title()}\nsummary: Synthetic section.\n---\nIntro to [[{order[section][0]}]].\n")
    (glossary / "index.md").write_text("---\ntitle: Synthetic Glossary\nsummary: Synthetic home page.\n---\nStart at [[term-00000]].\n")
    _records(root)
    return root


def _records(root: Path) -> None:
    """A passed record for every snippet on each reference GPU, as `glossary verify` on the
    H100 and the H200 would write them (their machines copied from the real records)."""
    from glossary_tool.load.files import TermFile, parse_term
    from glossary_tool.pipeline import Project, load_project
    from glossary_tool.verify.records import Record, read_artifact, records_for, sha256, write_record

    # Only the real warp term is needed, so only its file is parsed (not the whole glossary).
    real = Project(REPO)
    (path,) = real.glossary_dir.glob("*/warp.md")
    warp, _ = parse_term(TermFile(path.parent.name, "warp", path.relative_to(REPO).as_posix(), path.read_bytes()))
    assert warp is not None and warp.snippets
    models = list(records_for(real.records_dir, warp, warp.snippets[0]).values())
    ptx = read_artifact(real.records_dir, warp, warp.snippets[0], "ptx")
    sass = read_artifact(real.records_dir, warp, warp.snippets[0], "sass")
    assert models
    loaded = load_project(root, cache=False)
    for term in loaded.glossary.terms.values():
        for snippet in term.snippets:
            for model in models:
                record = Record(
                    section=term.section, term=term.slug, name=snippet.name, lang=snippet.lang, options=dict(snippet.options),
                    source_sha256=sha256(snippet.source), status="passed", reason="", stdout="32\n", stderr="", exit_status=0,
                    duration_s=0.3, date=model.date, nvcc_version=model.nvcc_version, machine=model.machine,
                    expected_sha256=sha256(snippet.expected) if snippet.expected is not None else None, has_ptx=True, has_sass=True,
                )
                write_record(loaded.project.records_dir, term, snippet, record, ptx, sass)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path)
    parser.add_argument("-n", type=int, default=500)
    args = parser.parse_args()
    generate(args.root, args.n)


if __name__ == "__main__":
    main()
