"""Generate a synthetic glossary of N terms (~15 cross-references, ~250 words each).

Used by the scale benchmarks; deterministic for a given N and seed.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from glossary_tool.load.toc import dump_toc
from glossary_tool.model import SECTIONS

WORDS = ("the kernel moves data through shared memory while each warp waits on its barrier and the scheduler picks another "
         "ready instruction from a resident block so latency hides behind independent work on the same multiprocessor").split()


def generate(root: Path, n: int, seed: int = 1) -> Path:
    rng = random.Random(seed)
    glossary = root / "glossary"
    order: dict[str, list[str]] = {s: [] for s in SECTIONS}
    slugs = [f"term-{i:05d}" for i in range(n)]
    for i, slug in enumerate(slugs):
        section = SECTIONS[i % len(SECTIONS)]
        order[section].append(slug)
        targets = rng.sample([s for s in slugs if s != slug] if n < 200 else [slugs[(i + k * 7 + 1) % n] for k in range(15)], k=min(15, n - 1))
        paragraphs = []
        for p in range(5):
            words = [rng.choice(WORDS) for _ in range(50)]
            for k in range(3):
                target = targets[(p * 3 + k) % len(targets)]
                words.insert(rng.randrange(len(words)), f"[[{target}]]")
            paragraphs.append(" ".join(words) + ".")
        if i % 10 == 0:
            paragraphs.append('```cuda verify name="demo"\n#include <cstdio>\nint main() { std::printf("%d\\n", 32); }\n```\n\n```output\n32\n```')
        text = (
            f"---\ntitle: Term {i:05d}\nsummary: Synthetic term number {i} for scale benchmarks.\n"
            f"aliases: [alias {i:05d}]\nsources:\n  - title: Synthetic source\n    url: https://example.org/{slug}\n---\n" + "\n\n## Part\n\n".join(paragraphs) + "\n"
        )
        path = glossary / section / f"{slug}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (glossary / "toc.yml").write_text(dump_toc(order), encoding="utf-8")
    for section in SECTIONS:
        (glossary / section / "index.md").write_text(f"---\ntitle: {section.title()}\nsummary: Synthetic section.\n---\nIntro to [[{order[section][0]}]].\n")
    (glossary / "index.md").write_text("---\ntitle: Synthetic Glossary\nsummary: Synthetic home page.\n---\nStart at [[term-00000]].\n")
    return root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("root", type=Path)
    parser.add_argument("-n", type=int, default=500)
    args = parser.parse_args()
    generate(args.root, args.n)


if __name__ == "__main__":
    main()
