"""Verify stage: compile and run each snippet, record what the GPU printed.

Pure Python plus subprocesses (nvcc, ptxas, cuobjdump, compute-sanitizer): it runs on a
GPU machine that has no site generator and no package registry.
"""
