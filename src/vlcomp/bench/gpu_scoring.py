"""The scoring stages of `vlcomp.bench.gpu_check`: one model's embeddings, ITM pair scores
and log P(t|i) on the device and on the CPU for the same items, compared
(`vlcomp.bench.gpu_compare`), and its throughput on the device at the configured batch sizes.

Models are built by `vlcomp.models.registry.build_scorer` from their registry entries and
compared through the methods the workflow calls: ``embed_images`` / ``embed_texts`` (dual
encoders, `vlcomp.score.embeddings`); for scorers with vision states, one ``image_states``
pass serving ``embed_image_states``, ``score_pairs_given_states`` (every pair kind) and
``log_likelihood_given_states``, as `vlcomp.score.pair_plan` scores pairs. Throughput runs
the public ``embed_images`` / ``embed_pixels``, ``embed_texts``, ``score_pairs`` and
``log_likelihood``. On the CPU the device's outputs are their own reference.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image

from vlcomp.bench.gpu_compare import SCORES, compare_choices, compare_values, row_cosines
from vlcomp.bench.gpu_items import ChoiceItems, caption, pictures
from vlcomp.bench.gpu_timing import free_memory, guarded, peak_mb, reset_peak, timed
from vlcomp.bench.random_models import SavedModel

# the plan's per-item cost kinds (`vlcomp.plan.costs.COSTS`) each throughput row measures
COST_KINDS = {"embed_image": ["embed_image"], "embed_image_files": ["embed_image"],
              "embed_text": ["embed_text"],
              "pair": ["pair"], "log_likelihood": ["pair", "retrieval_pair"]}


def stages_of(scorer: Any) -> list[str]:
    """The scoring stages a scorer serves: ``embed``, ``pairs``, ``generative``."""
    has = {m: callable(getattr(scorer, m, None))
           for m in ("embed_images", "embed_texts", "score_pairs", "log_likelihood")}
    stages = ["embed"] if has["embed_images"] and has["embed_texts"] else []
    if has["score_pairs"]:
        stages.append("pairs")
    if has["log_likelihood"]:
        stages.append("generative")
    return stages


def stage_outputs(scorer: Any, stages: list[str], items: ChoiceItems, batch: int
                  ) -> dict[str, dict[str, np.ndarray]]:
    """Per stage, its outputs on ``items`` by name (embeddings, or one score vector per
    pair kind). A scorer with vision states encodes each picture once for all stages, as
    `vlcomp.score.pair_plan` runs it."""
    out: dict[str, dict[str, np.ndarray]] = {}
    states = index = None
    if callable(getattr(scorer, "image_states", None)):
        states = scorer.image_states(items.images, batch_size=batch)
        index = torch.arange(len(items.images)).repeat_interleave(items.per_image)
    if "embed" in stages:
        if states is not None and callable(getattr(scorer, "embed_image_states", None)):
            images = scorer.embed_image_states(states)
        else:
            images = scorer.embed_images(items.images, batch_size=batch)
        out["embed"] = {"images": images,
                        "texts": scorer.embed_texts(items.texts, batch_size=batch)}
    if "pairs" in stages:
        out["pairs"] = {kind: scorer.score_pairs_given_states(states, index, items.texts,
                                                              kind=kind, batch_size=batch)
                        for kind in scorer.pair_kinds}
    if "generative" in stages:
        out["generative"] = {"log_likelihood": scorer.log_likelihood_given_states(
            states, index, items.texts, batch_size=batch)}
    return out


def compare_stage(stage: str, device_out: dict[str, np.ndarray], cpu_out: dict[str, np.ndarray],
                  items: ChoiceItems) -> list[dict[str, Any]]:
    """One record per compared block: the embedding stage's image x text cosines (and the
    least row cosine of each embedding block), or each pair kind's scores."""
    if stage == "embed":
        blocks = {"cosine": (device_out["images"] @ device_out["texts"].T,
                             cpu_out["images"] @ cpu_out["texts"].T)}
        extra = {"min_row_cosine": min(row_cosines(device_out[k], cpu_out[k])
                                       for k in ("images", "texts"))}
    else:
        blocks = {kind: (device_out[kind], cpu_out[kind]) for kind in cpu_out}
        extra = {}
    records = []
    for kind, (d, c) in blocks.items():
        values = compare_values(d, c, SCORES)
        split = items.matrix_items if stage == "embed" else items.split
        choices = (compare_choices(split(d), split(c), values["allowed_abs_diff"])
                   if "max_abs_diff" in values else {"passed": False})
        records.append({"kind": kind, **values, **extra, "choices": choices,
                        "passed": values["passed"] and choices["passed"],
                        "tolerance": SCORES.as_dict()})
    return records


PRECISION_TRIALS = ("tf32", "bf16", "fp16")  # each scored against the CPU's fp32


def drift_of_stage(stage: str, out: dict[str, np.ndarray], cpu_out: dict[str, np.ndarray],
                   items: ChoiceItems) -> list[dict[str, Any]]:
    """How far a lower precision's outputs of a stage lie from the CPU's fp32 ones: the
    largest differences, and each item's choice kept or not; a changed choice whose CPU
    top-two margin is within twice the largest difference is a near-tie."""
    if stage == "embed":
        blocks = {"cosine": (out["images"] @ out["texts"].T,
                             cpu_out["images"] @ cpu_out["texts"].T)}
    else:
        blocks = {kind: (out[kind], cpu_out[kind]) for kind in cpu_out}
    records = []
    for kind, (d, c) in blocks.items():
        d, c = np.asarray(d, np.float64), np.asarray(c, np.float64)
        diff = np.abs(d - c)
        largest = float(diff.max()) if diff.size else 0.0
        split = items.matrix_items if stage == "embed" else items.split
        choices = compare_choices(split(d), split(c), largest)
        records.append({"kind": kind, "max_abs_diff": largest,
                        "max_rel_diff": float((diff / np.maximum(np.abs(c), 1e-6)).max())
                        if diff.size else 0.0, "scale": float(np.abs(c).max()),
                        "finite": bool(np.isfinite(d).all()), "choices": choices,
                        "keeps_choices": choices["disagree"] == 0})
    return records


def precision_drift(scorer: Any, stages: list[str], items: ChoiceItems, batch: int,
                    device: str, cpu_out: dict[str, dict[str, np.ndarray]],
                    base: dict[str, Any],
                    trials: tuple[str, ...] = PRECISION_TRIALS) -> list[dict[str, Any]]:
    """One record per lower precision (``trials``), stage and block: its drift from the
    CPU's fp32 (`drift_of_stage`), measured (not judged: docs/fidelity.md lists each
    family's choice); on the CPU, autocast runs there (tf32 is then fp32)."""
    from vlcomp.models.precision import precision_context

    records: list[dict[str, Any]] = []
    for precision in trials:
        run: dict[str, Any] = {**base, "stage": f"precision {precision}", "passed": True}
        with guarded(run), precision_context(device, precision, cpu=True):
            out, seconds = timed(lambda: stage_outputs(scorer, stages, items, batch), device)
        if "error" in run:  # a precision a model cannot run in is a finding, not a failure
            records.append({**run, "passed": True, "precision": precision})
            continue
        records += [{**base, "stage": f"{stage} @{precision}", "precision": precision,
                     "device_s": seconds, "passed": True, **r}
                    for stage in stages for r in drift_of_stage(stage, out[stage],
                                                                cpu_out[stage], items)]
    return records


def _load(scorer: Any) -> Any:
    loader = getattr(scorer, "_load", None)
    if callable(loader):
        loader()
    return scorer


@dataclass
class Workload:
    """Throughput inputs, made once: distinct pictures and captions by count."""

    seed: int = 0
    folder: Path | None = None  # where `jpeg_files` writes (None: no file rows)
    _images: dict[int, list[Image.Image]] = field(default_factory=dict)
    _files: dict[int, list[str]] = field(default_factory=dict)

    def images(self, n: int) -> list[Image.Image]:
        if n not in self._images:
            self._images[n] = [Image.fromarray(p) for p in pictures(n, 256, self.seed + n)]
        return self._images[n]

    def texts(self, n: int) -> list[str]:
        rng = np.random.default_rng(self.seed)
        return [caption(rng) for _ in range(n)]

    def jpeg_files(self, n: int, folder: Path) -> list[str]:
        """``n`` COCO-sized JPEGs under ``folder`` (written once; `vlcomp.bench.pixels`)."""
        from vlcomp.bench.pixels import write_pictures

        if n not in self._files:
            target = folder / f"jpegs_{n}"
            target.mkdir(parents=True, exist_ok=True)
            self._files[n] = write_pictures(target, n, seed=self.seed)
        return self._files[n]


def counted_flops(fn: Any) -> int:
    """Floating-point operations of one call of ``fn`` (torch's flop counter: 2 per
    multiply-add of matmuls, convolutions and attention), with the fused multi-head-attention
    fast path off so the counter sees its projections (`vlcomp.bench.flops`)."""
    from torch.utils.flop_counter import FlopCounterMode

    fast_path = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        with torch.no_grad(), FlopCounterMode(display=False) as counter:
            fn()
    finally:
        torch.backends.mha.set_fastpath_enabled(fast_path)
    return int(counter.get_total_flops())


def achieved(gflop_per_item: float | None, items_per_s: float, gpu: str | None,
             precision: str = "fp32") -> dict[str, Any]:
    """TFLOP/s a rate achieves and its share of the GPU's dense peaks: at the precision it
    ran in, and bf16's (the device's headline; `vlcomp.bench.device_peaks`). Shares are None
    without a GPU (``gpu`` None: the CPU) or for one not in the peak table."""
    from vlcomp.bench.device_peaks import device_peak

    if gflop_per_item is None:
        return {"gflop_per_item": None, "tflops": None, "precision": precision,
                "share_of_peak": None, "share_of_bf16_peak": None}
    tflops = gflop_per_item * items_per_s / 1e3
    name = gpu or ""
    at, bf16 = device_peak(name, precision), device_peak(name, "bf16")
    return {"gflop_per_item": round(gflop_per_item, 4), "tflops": round(tflops, 3),
            "precision": precision,
            "share_of_peak": None if not at else round(tflops / at, 4),
            "share_of_bf16_peak": None if not bf16 else round(tflops / bf16, 4)}


def _rate(kind: str, batch: int, items: int, fn: Any, warm: Any, device: str,
          warm_items: int | None = None) -> dict[str, Any]:
    if device != "cpu":  # CUDA: kernels chosen and memory cached before the clock starts
        warm()
    reset_peak(device)
    _, seconds = timed(fn, device)
    try:
        per_item: float | None = counted_flops(warm) / (warm_items or batch) / 1e9
    except Exception as err:  # the counter cannot trace every model (BLIP-2's FLAN-T5)
        per_item = None
        logging.getLogger(__name__).warning("no flop count for %s: %s", kind, err)
    return {"kind": kind, "cost_kinds": COST_KINDS[kind], "batch_size": batch, "items": items,
            "seconds": round(seconds, 4), "items_per_s": round(items / seconds, 2),
            "seconds_per_item": seconds / items, "peak_gpu_mb": peak_mb(device),
            **achieved(per_item, items / seconds, torch.cuda.get_device_name(0)
                       if str(device).startswith("cuda") else None)}


def pixel_shape(scorer: Any, image: Image.Image) -> tuple[int, ...]:
    """The ``C × H × W`` shape of one preprocessed picture of a scorer with `embed_pixels`."""
    transform = getattr(scorer, "preprocess", None) or scorer._image_transform()
    return tuple(transform(image).shape)


def files_rate(scorer: Any, paths: list[str], batch: int, workers: int,
               device: str) -> dict[str, Any]:
    """Pictures a second from JPEG files through the workflow's loader
    (`vlcomp.score.embeddings.embed_image_set`: ``workers`` processes decode, and
    preprocess unless the processor runs on the device), to unit embeddings."""
    import pandas as pd

    from vlcomp.score.embeddings import embed_image_set

    rows = pd.DataFrame({"path": paths, "bbox": pd.Series([None] * len(paths), dtype=object)})
    row = _rate("embed_image_files", batch, len(paths),
                lambda: embed_image_set(scorer, rows, batch_size=batch, workers=workers),
                lambda: embed_image_set(scorer, rows.iloc[:batch], batch_size=batch),
                device)
    return {**row, "workers": workers}


def throughput(scorer: Any, stage: str, work: Workload, batch: int, repeats: int,
               per_image: int, device: str, files: int = 0,
               workers: int = 0) -> list[dict[str, Any]]:
    """Items per second of a stage on the device, ``repeats`` batches of ``batch`` after a
    warm-up batch. Scorers with ``embed_pixels`` are timed on preprocessed pixels (model
    time), and, with ``files``, from that many JPEG files through the loader with
    ``workers`` processes (the pipeline's rate); the others from PIL images, preprocessing
    included, as the workflow calls them."""
    n = batch * repeats
    if stage == "embed":
        texts = work.texts(n)
        rows = []
        if callable(getattr(scorer, "embed_pixels", None)):
            shape = pixel_shape(scorer, work.images(1)[0])
            pixels = torch.randn(n, *shape, generator=torch.Generator().manual_seed(0))

            def images() -> None:
                for s in range(0, n, batch):
                    scorer.embed_pixels(pixels[s : s + batch])

            rows.append(_rate("embed_image", batch, n, images,
                              lambda: scorer.embed_pixels(pixels[:batch]), device))
            if files and work.folder is not None:
                rows.append(files_rate(scorer, work.jpeg_files(files, work.folder), batch,
                                       workers, device))
        else:
            pil = work.images(n)
            rows.append(_rate("embed_image", batch, n,
                              lambda: scorer.embed_images(pil, batch_size=batch),
                              lambda: scorer.embed_images(pil[:batch], batch_size=batch),
                              device))
        rows.append(_rate("embed_text", batch, n,
                          lambda: scorer.embed_texts(texts, batch_size=batch),
                          lambda: scorer.embed_texts(texts[:batch], batch_size=batch), device))
        return rows
    pictures_ = work.images(max(1, n // per_image))
    images = [p for p in pictures_ for _ in range(per_image)][:n]
    texts = work.texts(len(images))
    method = scorer.score_pairs if stage == "pairs" else scorer.log_likelihood
    kind = "pair" if stage == "pairs" else "log_likelihood"
    warm_n = min(batch, len(images))
    row = _rate(kind, batch, len(images), lambda: method(images, texts, batch_size=batch),
                lambda: method(images[:warm_n], texts[:warm_n], batch_size=batch), device,
                warm_items=warm_n)
    return [{**row, "texts_per_image": per_image}]


def check_model(saved: SavedModel, items: ChoiceItems, device: str, batch: int,
                rates: dict[str, Any] | None, work: Workload,
                drift: tuple[str, ...] = PRECISION_TRIALS) -> tuple[list[dict], list[dict]]:
    """(comparison records, throughput rows) of one saved model. ``rates`` gives the
    throughput settings (``embed_batch``, ``pair_batch``, ``repeats``), None for none;
    ``drift`` the lower precisions whose drift is measured (`precision_drift`)."""
    base = {"model": saved.name, "family": saved.entry["family"], "depth": saved.depth}
    records: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    load: dict[str, Any] = {**base, "stage": "load", "passed": True}
    with guarded(load):
        dev = _load(_build(saved, device))
        cpu = dev if device == "cpu" else _load(_build(saved, "cpu"))
    if "error" in load:
        return [load], rows
    stages = stages_of(dev)
    record: dict[str, Any] = {**base, "stage": "+".join(stages), "passed": True}
    with guarded(record):
        device_out, record["device_s"] = timed(
            lambda: stage_outputs(dev, stages, items, batch), device)
        if device == "cpu":  # the CPU is its own reference: the comparison still runs
            cpu_out, record["cpu_s"] = device_out, record["device_s"]
        else:
            cpu_out, record["cpu_s"] = timed(
                lambda: stage_outputs(cpu, stages, items, batch), "cpu")
        found = {stage: compare_stage(stage, device_out[stage], cpu_out[stage], items)
                 for stage in stages}
    if "error" in record:
        records.append(record)
    else:
        shared = {k: record[k] for k in ("device_s", "cpu_s", "warnings", "seconds")}
        records += [{**base, "stage": stage, **shared, **r}
                    for stage in stages for r in found[stage]]
        records += precision_drift(dev, stages, items, batch, device, cpu_out, base, drift)
    if rates is not None:
        rows = model_throughput(dev, saved, device, rates, work, items.per_image)
    dev = cpu = None  # drop the models before the next one loads
    free_memory(device)
    return records, rows


def rate_precisions(entry: dict[str, Any], device: str) -> list[str]:
    """The precisions a model's rates are timed in: fp32, and on a GPU also its job's
    (`vlcomp.precision_choice.job_precision`) and bf16, the device's headline."""
    from vlcomp.precision_choice import job_precision

    if not str(device).startswith("cuda"):
        return ["fp32"]
    found = ["fp32"]
    for stage in ("embed", "pairs", "generative"):
        found.append(job_precision(entry, stage))
    return list(dict.fromkeys([*found, "bf16"]))


def model_throughput(scorer: Any, saved: SavedModel, device: str, rates: dict[str, Any],
                     work: Workload, per_image: int) -> list[dict[str, Any]]:
    """`throughput` rows of every stage of a loaded scorer (``rates``: ``embed_batch``,
    ``pair_batch``, ``repeats``) in each of `rate_precisions`, a failed measurement
    recorded as such."""
    from vlcomp.models.auto_batch import is_auto, job_batch
    from vlcomp.models.precision import precision_context

    rows: list[dict[str, Any]] = []
    gpu = torch.cuda.get_device_name(0) if str(device).startswith("cuda") else None

    def timed_rows(row: dict[str, Any], precision: str, *args: Any) -> list[dict[str, Any]]:
        """`throughput`'s rows at ``precision`` (``args`` after the stage and work), each
        with its share of peak; the failure as one row."""
        with guarded(row), precision_context(device, precision):
            measured = throughput(scorer, row["stage"], work, *args)
        if "error" in row:
            return [{**row, "precision": precision}]
        return [{**row, **m, **achieved(m["gflop_per_item"], m["items_per_s"], gpu, precision)}
                for m in measured]

    for precision in rate_precisions(saved.entry, device):
        for stage in stages_of(scorer):
            row: dict[str, Any] = {"model": saved.name, "family": saved.entry["family"],
                                   "depth": saved.depth, "scale": saved.scale,
                                   "device": device, "stage": stage, "passed": True}
            setting = rates["embed_batch"] if stage == "embed" else rates["pair_batch"]
            size, repeats = setting, rates["repeats"]
            if is_auto(setting):  # sized as the jobs size it, at this precision; like the
                repeats = 1       # memory-sized rows, one batch after a warm one
                with guarded(row), precision_context(device, precision):
                    size = job_batch(scorer, setting, "images" if stage == "embed" else "pairs",
                                     device)
                if "error" in row:
                    rows.append({**row, "precision": precision, "batch_by": "auto"})
                    continue
                row["batch_by"] = "auto"
            files = rates.get("file_images", 0) if precision == "fp32" else 0
            found = timed_rows(row, precision, size, repeats, per_image, device,
                               files, rates.get("workers", 0))
            rows += found
            bigger = memory_batch(size, [m.get("peak_gpu_mb") for m in found], device,
                                  rates.get("memory_fraction", 0.0))
            if bigger > size and precision == "bf16":  # the device's headline precision
                rows += timed_rows({**row, "batch_by": "memory"}, precision, bigger, 1,
                                   per_image, device)
    return rows


MEMORY_CAP = 4096  # the largest batch sized to memory (items); timed one batch after a warm one


def memory_batch(size: int, peaks_mb: list[Any], device: str, fraction: float) -> int:
    """The batch the device's memory allows: ``size`` doubled while the peak memory measured
    at ``size`` (the largest of ``peaks_mb``), scaled with the batch, stays within
    ``fraction`` of the device's memory (at most `MEMORY_CAP`); ``size`` on the CPU, without
    a measured peak or with ``fraction`` 0."""
    peak = max((float(p) for p in peaks_mb if p), default=0.0)
    if not str(device).startswith("cuda") or fraction <= 0 or peak <= 0:
        return size
    total_mb = torch.cuda.get_device_properties(0).total_memory / 2**20
    batch = size
    while batch * 2 <= MEMORY_CAP and peak * (batch * 2) / size <= fraction * total_mb:
        batch *= 2
    return batch


def measure_full(name: str, folder: Path, device: str, rates: dict[str, Any], work: Workload,
                 per_image: int, seed: int = 0) -> list[dict[str, Any]]:
    """Throughput of model ``name`` of `random_models.BUILDERS` at full depth (built on the
    device, saved, loaded back as the workflow loads it)."""
    from vlcomp.bench.random_models import BUILDERS

    row: dict[str, Any] = {"model": name, "depth": "full", "device": device, "passed": True,
                           "stage": "load"}
    with guarded(row):
        saved = BUILDERS[name](folder / name, None, seed, device)
        free_memory(device)
        scorer = _load(_build(saved, device))
    if "error" in row:
        return [row]
    rows = model_throughput(scorer, saved, device, rates, work, per_image)
    del scorer
    free_memory(device)
    return rows


def _build(saved: SavedModel, device: str) -> Any:
    from vlcomp.models.registry import build_scorer

    return build_scorer(saved.name, saved.entry, device)
