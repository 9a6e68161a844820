"""The reference GPUs: the models every snippet must have passed on, configured once.

They are listed under the glossary plugin in the site config::

    plugins:
      - glossary:
          reference_gpus:
            - name: NVIDIA H100 80GB HBM3   # the CUDA device name, as the record stores it
              label: H100 SXM               # what tabs and badges call it
              compute_capability: "9.0"
              gpus: 2                       # most GPUs of this model one verify run has
            - name: NVIDIA H200
              label: H200 SXM
              compute_capability: "9.0"
              gpus: 2

``glossary check`` reads the file as YAML without importing the site generator (tags such
as ``!!python/name:`` are read as plain values). The caller names the file (the pipeline:
its name is the site adapter's business). The labels are also used on the page for
records from these GPUs; any other GPU is labelled by its device name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from glossary_tool.diagnostics import Diagnostic, error
from glossary_tool.load import cache
from glossary_tool.load.cache import Cache
from glossary_tool.model import Snippet
from glossary_tool.verify.records import Machine, gpu_key


@dataclass(frozen=True)
class ReferenceGpu:
    name: str
    label: str
    compute_capability: str
    gpus: int = 1

    @property
    def key(self) -> str:
        return gpu_key(self.name)

    def can_run(self, snippet: Snippet) -> bool:
        """Whether this model (with up to ``gpus`` of it on one host) meets requires, arch and gpus."""
        return cc_shortfall(snippet, self.compute_capability) is None and required_gpus(snippet) <= self.gpus


def _cc(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def required_cc(snippet: Snippet) -> float:
    return _cc(snippet.option("requires", "0") or "0")


def cc_shortfall(snippet: Snippet, compute_capability: str) -> str | None:
    """None when a GPU of ``compute_capability`` can run the snippet's code, else what it needs.

    ``requires`` is a lowest compute capability. A CUDA snippet's ``arch`` also binds: code
    built for sm_90 has no SASS or PTX an sm_80 GPU can load, and an arch-specific target
    (sm_90a) runs only on that exact architecture. Python and console snippets pick their
    own code, so only ``requires`` applies to them.
    """
    cc = _cc(compute_capability)
    if required_cc(snippet) > cc:
        return f"compute capability {snippet.option('requires')}"
    arch = snippet.arch
    match = re.fullmatch(r"sm_(\d+)(\d)([af]?)", arch)
    if snippet.lang != "cuda" or match is None:
        return None
    need = float(f"{match.group(1)}.{match.group(2)}")
    if match.group(3) == "a" and cc != need:
        return f"compute capability exactly {need:.1f} ({arch})"
    if match.group(3) == "f" and int(cc) != int(need):
        return f"a compute capability {int(need)}.x GPU ({arch})"
    if cc < need:
        return f"compute capability {need:.1f} ({arch})"
    return None


def required_gpus(snippet: Snippet) -> int:
    try:
        return int(snippet.option("gpus", "1") or 1)
    except ValueError:
        return 1


class _Loader(yaml.SafeLoader):
    """SafeLoader that reads any tag (``!!python/name:...``, ``!ENV``) as its plain value."""


def _any_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)  # type: ignore[arg-type]


_Loader.add_multi_constructor("", _any_tag)


@dataclass(frozen=True)
class ReferenceConfig:
    gpus: tuple[ReferenceGpu, ...]
    diagnostics: tuple[Diagnostic, ...] = ()

    def label(self, machine: Machine | None, snippet: Snippet | None = None) -> str:
        return gpu_label(machine, self.gpus, snippet)


def load_reference_gpus(config: Path, store: Cache | None = None) -> ReferenceConfig:
    """The reference GPUs of the glossary whose site config is ``config`` (none if it has none).
    ``store``: the result for the same text is kept there (the site config in pure-Python
    YAML cost a warm check 30 ms)."""
    try:
        text = config.read_text(encoding="utf-8")
    except OSError:
        return ReferenceConfig(())
    where = str(config.name)
    if store is None:
        return _reference_gpus(where, text)
    return store.get_or_make(cache.key("reference-gpus", where, text), lambda: _reference_gpus(where, text), counted=False)


@lru_cache(maxsize=16)
def _reference_cached(path: str, mtime_ns: int) -> tuple[ReferenceGpu, ...]:
    return load_reference_gpus(Path(path)).gpus


def reference_gpus_of(config: Path) -> tuple[ReferenceGpu, ...]:
    """The reference GPUs in the site config ``config`` (none if it is missing), read again
    only when its modification time changes: every page's snippets ask."""
    try:
        stamp = config.stat().st_mtime_ns
    except OSError:
        return ()
    return _reference_cached(str(config), stamp)


def _reference_gpus(where: str, text: str) -> ReferenceConfig:
    try:
        data = yaml.load(text, Loader=_Loader) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return ReferenceConfig((), (error(where, (mark.line + 1) if mark else 1, (mark.column + 1) if mark else 1, "reference-gpus", f"cannot read {where}: {exc}"),))
    plugin: Any = None
    for entry in data.get("plugins", []) if isinstance(data, dict) else []:
        if isinstance(entry, dict) and "glossary" in entry:
            plugin = entry["glossary"] or {}
    entries = plugin.get("reference_gpus", []) if isinstance(plugin, dict) else []
    line = next((i for i, text_line in enumerate(text.splitlines(), 1) if "reference_gpus" in text_line), 1)
    gpus: list[ReferenceGpu] = []
    problems: list[Diagnostic] = []
    for index, item in enumerate(entries if isinstance(entries, list) else [None]):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            problems.append(error(where, line, 1, "reference-gpus", f"reference_gpus entry {index + 1}: needs at least `name:` (the CUDA device name)"))
            continue
        try:
            count = int(item.get("gpus", 1))
        except (TypeError, ValueError):
            problems.append(error(where, line, 1, "reference-gpus", f"reference_gpus entry {index + 1}: `gpus` must be a whole number"))
            continue
        name = item["name"]
        gpus.append(ReferenceGpu(name, str(item.get("label") or short_name(name)), str(item.get("compute_capability", "0")), count))
    return ReferenceConfig(tuple(gpus), tuple(problems))


def short_name(gpu_name: str) -> str:
    """``NVIDIA A100-SXM4-40GB`` -> ``A100-SXM4-40GB``: the vendor adds nothing on a CUDA page."""
    return re.sub(r"^NVIDIA\s+", "", gpu_name).strip() or gpu_name


def gpu_label(machine: Machine | None, reference: Sequence[ReferenceGpu], snippet: Snippet | None = None) -> str:
    """What a tab calls a record's GPU: the configured label, ``2×H200`` for multi-GPU snippets."""
    if machine is None:
        return "no GPU"
    label = next((g.label for g in reference if g.key == machine.key), short_name(machine.gpu_name))
    count = required_gpus(snippet) if snippet is not None else 1
    if count > 1:
        return f"{min(count, machine.gpu_count)}×{label.split()[0]}"
    return label
