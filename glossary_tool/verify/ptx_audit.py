"""Signs in a snippet's PTX that the compiler removed work a microbenchmark meant to time.

The memory-latency chase once discarded its warm-up's result, so nvcc deleted the warm-up loop:
the PTX never loaded the kernel's ``warm`` parameter. A kernel parameter that the PTX never reads
is the cheapest symptom to look for, and it has no false alarms in hand-written snippet kernels
(a parameter nobody reads has no reason to exist). Only kernels defined in the snippet's own
source are audited; library kernels (CUB, cuBLAS) legitimately ignore some parameters.
"""

from __future__ import annotations

import re

_BOUNDS = r"(?:__launch_bounds__\s*\([^)]*\)\s*)?"
_GLOBAL = re.compile(rf"__global__\s+{_BOUNDS}void\s+{_BOUNDS}(\w+)")
_ENTRY = re.compile(r"\.entry\s+(\S+?)\s*\((.*?)\)\s*(?:\.[^{]*)?\{(.*?)\n\}", re.S)
_PARAM = re.compile(r"\.param\s+[^,)]*?\s(\w+_param_\d+)")


def kernels_in(source: str) -> set[str]:
    """Names of the ``__global__`` functions a snippet defines."""
    return set(_GLOBAL.findall(source))


def _defined_here(mangled: str, names: set[str]) -> bool:
    # Itanium mangling: _Z<len><name>... for free functions, possibly inside a template (_Z<len><name>I...).
    return any(mangled.startswith(f"_Z{len(n)}{n}") or mangled == n for n in names)


def unread_parameters(ptx: str, source: str) -> dict[str, list[str]]:
    """Kernel -> parameters its PTX never reads, for kernels defined in ``source``."""
    names = kernels_in(source)
    out: dict[str, list[str]] = {}
    for m in _ENTRY.finditer(ptx):
        mangled, params, body = m.groups()
        if not _defined_here(mangled, names):
            continue
        unread = [p for p in _PARAM.findall(params) if p not in body]
        if unread:
            out[mangled] = unread
    return out
