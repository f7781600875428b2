"""Benchmarks that measure vlcomp against side-by-side baselines (``python -m vlcomp.bench``).

Each prints a table and writes JSON with the machine it ran on: ``itc`` (scoring throughput
vs the SugarCrepe/ARO reference loops), ``encodes`` (vision passes vs distinct images in a
DAG run), ``flops`` (image-encoding GFLOP/s vs this CPU's sgemm peak) and ``e2e`` (per-rule
wall time from Snakemake's ``benchmark:`` files).
"""
