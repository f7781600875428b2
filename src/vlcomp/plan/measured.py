"""Per-item costs measured on a GPU by ``scripts/gpu_check.sh`` (`vlcomp.bench.gpu_check`),
read from its JSON for the plan (``python -m vlcomp.plan --measured FILE``).

Only a full run on CUDA counts (not ``--quick``: its batches are not the paper's), and of its
throughput rows only those that passed, at full depth and at model scale ``base``
(open_clip's ViT-B/32, BLIP-base): they give the `vlcomp.plan.costs.COSTS` kinds
``embed_image`` (model time on preprocessed pixels; JPEG decoding runs beside it in the
loader's workers), ``embed_text``, ``pair`` (the slower of BLIP's ITM and captioner),
``retrieval_pair`` (the captioner), each timed at the precision its family's jobs run in
(`vlcomp.precision_choice`; fp32 for these three unless configured). Each cost is labelled
with the GPU's name.

The training rows (``train_<objective>``: bf16 autocast, strict determinism, each
objective's paper batch) time model steps on images held in memory; a paper run decodes
its images from JPEG files and validates every epoch, which the published end-to-end times
behind the ``train_*`` estimates include (the first H200 run measured 2,718 CLIP rows/s,
against BiVLC's ~73 on an A100 end to end). Priced from model steps alone, training jobs
would ask SLURM for a fraction of the time they need, so their estimates stay
(`MeasuredCosts.kept`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlcomp.plan.costs import COSTS, Cost

SCALE = "base"


@dataclass(frozen=True)
class MeasuredCosts:
    """The GPU a check ran on and its measured per-item costs by (kind, scale)."""

    gpu: str
    costs: dict[tuple[str, str], Cost]
    kept: tuple[str, ...] = ()  # measured kinds whose estimates stay (`MODEL_STEP_ONLY`)


MODEL_STEP_ONLY = "train_"  # kinds timed without their loader and validation
STAGE_OF_KIND = {"embed_image": "embed", "embed_image_files": "embed", "embed_text": "embed",
                 "pair": "pairs", "log_likelihood": "generative"}


def _usable(row: dict[str, Any]) -> bool:
    return (bool(row.get("passed")) and str(row.get("device", "")).startswith("cuda")
            and row.get("depth") == "full" and row.get("scale") == SCALE
            and float(row.get("seconds_per_item") or 0) > 0 and _at_job_precision(row))


def _at_job_precision(row: dict[str, Any]) -> bool:
    """Whether a rate was timed at the precision its family's jobs run in (a row without
    one is fp32, as gpu_check timed every rate before it timed several)."""
    from vlcomp.precision_choice import job_precision

    stage = STAGE_OF_KIND.get(str(row.get("kind")))
    if stage is None or "family" not in row:
        return row.get("precision", "fp32") == "fp32"
    return row.get("precision", "fp32") == job_precision({"family": row["family"]}, stage)


def costs_of_report(report: dict[str, Any], source: str = "gpu_check") -> MeasuredCosts:
    """The per-item costs of a `vlcomp.bench.gpu_check` report (module docstring); a
    ValueError when it was not a full run on a GPU."""
    gpu = report.get("gpu_name")
    if not gpu:
        raise ValueError(f"{source}: not measured on a GPU (device {report.get('device')!r})")
    if (report.get("settings") or {}).get("quick", True):
        raise ValueError(f"{source}: a --quick run; its batch sizes are not the paper's")
    slowest: dict[str, dict[str, Any]] = {}
    kept: set[str] = set()
    for row in report.get("throughput", []):
        if not _usable(row):
            continue
        for kind in row.get("cost_kinds", []):
            if kind.startswith(MODEL_STEP_ONLY):
                kept.add(kind)
            elif (kind, SCALE) in COSTS and (kind not in slowest or float(
                    row["seconds_per_item"]) > float(slowest[kind]["seconds_per_item"])):
                slowest[kind] = row
    costs = {(kind, SCALE): Cost(
        float(row["seconds_per_item"]), "gpu",
        f"measured: gpu_check on {gpu} ({row['model']}, batch {row.get('batch_size')}, "
        f"{float(row['items_per_s']):,.1f} items/s; {source})", measured=True)
        for kind, row in sorted(slowest.items())}
    return MeasuredCosts(gpu, costs, tuple(sorted(kept)))


def read_measured(path: str | os.PathLike) -> MeasuredCosts:
    """`costs_of_report` of a JSON file written by ``scripts/gpu_check.sh``."""
    path = Path(path)
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise ValueError(f"{path}: not a readable gpu_check JSON ({err})") from err
    return costs_of_report(report, path.name)


def gpu_matches(gpu_name: str, kind: str) -> bool:
    """Whether a device name (``NVIDIA A100-SXM4-80GB``) is of a GPU kind (``A100``): the kind
    as a whole word of the name, case ignored (``A10`` is not an ``A100``)."""
    kind = kind.strip()
    return bool(kind) and re.search(rf"(?<![A-Za-z0-9]){re.escape(kind)}(?![A-Za-z0-9])",
                                    gpu_name, re.IGNORECASE) is not None
