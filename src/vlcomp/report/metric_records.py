"""The outputs of scoring one model on one choice benchmark: score matrices, the metric
record (JSON) and its per-subset table (CSV), the same for every way of scoring."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from vlcomp.io import write_json, write_parquet
from vlcomp.metrics.compute import compute_metrics
from vlcomp.report.tables import subsets_table, write_csv


def write_benchmark_outputs(
    items: pd.DataFrame, scores: pd.DataFrame, kind: str, benchmark: str, model: str,
    options: dict[str, Any], scores_path: str | Path | None, json_path: str | Path,
    csv_path: str | Path,
) -> dict[str, Any]:
    """Write the scores (unless ``scores_path`` is None: they are already written), compute
    the ``kind`` metrics and write their record and table."""
    if scores_path is not None:
        write_parquet(scores, scores_path)
    result = compute_metrics(kind, items, scores, benchmark=benchmark, **options)
    result["model"] = model
    write_json(result, json_path)
    write_csv(subsets_table(result), csv_path)
    return result
