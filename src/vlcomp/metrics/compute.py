"""A benchmark's metrics from one model's scores, by metric kind: the kinds of
`vlcomp.metrics.benchmarks` and those that build on it (CREPE productivity, VL-CheckList
Relation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from vlcomp.metrics.benchmarks import METRIC_FUNCTIONS, Metrics, merge_scores
from vlcomp.metrics.crepe import crepe_metrics
from vlcomp.metrics.vl_checklist import vl_checklist_metrics


def metric_functions() -> dict[str, Callable[..., Metrics]]:
    """Every metric kind's function."""
    return {**METRIC_FUNCTIONS, "crepe": crepe_metrics, "vl_checklist": vl_checklist_metrics}


def compute_metrics(
    kind: str,
    benchmark_df: pd.DataFrame,
    scores_df: pd.DataFrame,
    *,
    benchmark: str | None = None,
    **options: Any,
) -> Metrics:
    """Merge scores into the benchmark on ``item_id`` and run the ``kind`` metric function."""
    functions = metric_functions()
    if kind not in functions:
        raise ValueError(f"unknown metric kind {kind!r}; expected one of {sorted(functions)}")
    merged = merge_scores(benchmark_df, scores_df)
    return functions[kind](merged, benchmark=benchmark, **options)
