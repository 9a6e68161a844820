"""Find the CUDA tools and describe the machine a verify run happens on."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from glossary_tool.verify.records import Machine

_QUERY = r"""
#include <cstdio>
#include <cuda_runtime.h>
int main() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) { std::printf("{}\n"); return 0; }
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  int rt = 0, drv = 0; cudaRuntimeGetVersion(&rt); cudaDriverGetVersion(&drv);
  std::printf("{\"name\": \"%s\", \"cc\": \"%d.%d\", \"sms\": %d, \"runtime\": %d, \"count\": %d}\n",
              p.name, p.major, p.minor, p.multiProcessorCount, rt, n);
  return 0;
}
"""


@dataclass(frozen=True)
class Toolchain:
    nvcc: str | None
    ptxas: str | None
    cuobjdump: str | None
    sanitizer: str | None
    nvcc_version: str
    python: str


def _which(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for base in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if base and Path(base, "bin", name).exists():
            return str(Path(base, "bin", name))
    if name == "cuobjdump":  # the nvidia-cuda-cuobjdump wheel puts it in site-packages
        import importlib.util

        spec = importlib.util.find_spec("nvidia")
        for root in (spec.submodule_search_locations or []) if spec else []:
            for candidate in Path(root).glob("**/bin/cuobjdump"):
                return str(candidate)
    return None


def find_toolchain() -> Toolchain:
    nvcc = _which("nvcc")
    version = "none"
    if nvcc:
        try:
            text = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60).stdout
            match = re.search(r"release [\d.]+, V([\d.]+)", text)
            version = match.group(1) if match else text.strip().splitlines()[-1]
        except (OSError, subprocess.SubprocessError):
            version = "unknown"
    return Toolchain(nvcc, _which("ptxas"), _which("cuobjdump"), _which("compute-sanitizer"), version, sys.executable)


def _driver_version() -> str:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return "unknown"
    try:
        out = subprocess.run([smi, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else "unknown"


def detect_machine(tools: Toolchain) -> Machine | None:
    """The GPU this run may execute on, or None (then verify is compile-only)."""
    if not tools.nvcc or not shutil.which("nvidia-smi"):
        return None
    with tempfile.TemporaryDirectory(prefix="glossary-query-") as tmp:
        src = Path(tmp, "query.cu")
        src.write_text(_QUERY)
        try:
            build = subprocess.run([tools.nvcc, "-o", str(Path(tmp, "query")), str(src)], capture_output=True, text=True, timeout=300)
            if build.returncode != 0:
                return None
            out = subprocess.run([str(Path(tmp, "query"))], capture_output=True, text=True, timeout=60)
            info = json.loads(out.stdout or "{}")
        except (OSError, subprocess.SubprocessError, ValueError):
            return None
    if not info:
        return None
    runtime = int(info["runtime"])
    return Machine(
        gpu_name=info["name"],
        compute_capability=info["cc"],
        sm_count=int(info["sms"]),
        driver_version=_driver_version(),
        cuda_runtime_version=f"{runtime // 1000}.{(runtime % 1000) // 10}",
        nvcc_version=tools.nvcc_version,
        gpu_count=int(info["count"]),
    )
