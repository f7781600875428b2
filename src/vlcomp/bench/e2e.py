"""Wall time per rule of a DAG run, from the ``benchmark:`` files Snakemake writes for every
job (``benchmarks/<rule>/**.tsv``: seconds, peak RSS, CPU time)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd


def rule_of(tsv: Path, benchmarks: Path) -> str:
    """The rule a benchmark file belongs to: every rule writes ``benchmarks/<rule>.tsv`` or
    ``benchmarks/<rule>/<wildcards...>.tsv``."""
    parts = tsv.relative_to(benchmarks).parts
    return parts[0] if len(parts) > 1 else tsv.stem


def read_benchmarks(workdir: Path) -> pd.DataFrame:
    """One row per benchmark file: rule, file, seconds, peak RSS (MB), CPU seconds."""
    rows = []
    for tsv in sorted((workdir / "benchmarks").rglob("*.tsv")):
        rel, rule = str(tsv.relative_to(workdir)), rule_of(tsv, workdir / "benchmarks")
        table = pd.read_csv(tsv, sep="\t")
        if table.empty:
            continue
        last = table.iloc[-1]  # a rerun appends; the last line is the latest run
        rows.append({"rule": rule, "file": rel, "s": float(last["s"]),
                     "max_rss_mb": pd.to_numeric(last.get("max_rss"), errors="coerce"),
                     "cpu_s": pd.to_numeric(last.get("cpu_time"), errors="coerce")})
    if not rows:
        raise ValueError(f"{workdir / 'benchmarks'}: no benchmark files; run the workflow first")
    return pd.DataFrame(rows)


def per_rule(jobs: pd.DataFrame) -> list[dict[str, Any]]:
    """Jobs, total/mean/max seconds, peak RSS and share of all job seconds, per rule, the
    most expensive first."""
    total = jobs.s.sum()
    rows = []
    for rule, group in jobs.groupby("rule"):
        rows.append({"rule": rule, "jobs": len(group), "total_s": float(group.s.sum()),
                     "mean_s": float(group.s.mean()), "max_s": float(group.s.max()),
                     "cpu_s": float(group.cpu_s.sum()),
                     "max_rss_mb": float(group.max_rss_mb.max()),
                     "share": float(group.s.sum() / total) if total else 0.0})
    return sorted(rows, key=lambda r: -r["total_s"])


def run_workflow(workdir: Path, snakefile: Path, configfile: Path | None, cores: int,
                 extra: list[str]) -> float:
    """Run the DAG in ``workdir`` (``snakemake --cores N``) and return its wall seconds."""
    workdir.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "snakemake", "-s", str(snakefile), "--directory",
               str(workdir), "--cores", str(cores), *extra]
    if configfile is not None:
        command += ["--configfile", str(configfile)]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - start


REPORT_RULES = ("blind_scores", "uncertainty", "uncertainty_retrieval",
                "uncertainty_robustness", "uncertainty_detectors", "uncertainty_alpha",
                "table_intervals", "rank_correlation", "figure_analysis", "summary")


def build_report(workdir: Path, snakefile: Path, configfile: Path | None,
                 report: str = "results/report.html") -> float:
    """``snakemake --report`` in a finished DAG folder; returns its wall seconds."""
    command = [sys.executable, "-m", "snakemake", "-s", str(snakefile), "--directory",
               str(workdir), "--report", report]
    if configfile is not None:
        command += ["--configfile", str(configfile)]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start
