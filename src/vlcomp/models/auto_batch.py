"""Batches sized to the device's memory: ``embed.batch_size: auto`` (images per forward pass of
an embedding job) and ``embed.pair_batch_size: auto`` (image–text pairs per forward pass of a
pair or captioner job).

On the CPU ``auto`` is `CPU_BATCH` (the fastest batch on a 2-core CPU: larger ones spill the
caches, ``python -m vlcomp.bench flops``). On CUDA the job measures its model: two probe
batches (`PROBE_SIZES`) of blank pictures and long captions run through the stage's own method
under the job's precision (after a pass of one item has loaded the model), and the peak memory
each allocates above the loaded model gives a line (memory = fixed + per item × batch). The
batch is the largest power of two, at most `MAX_BATCH`, whose memory on that line stays within
`MEMORY_FRACTION` of the GPU's *total* memory less what the job already holds (the weights).
The choice depends only on the model, its precision and the GPU's kind, not on what else runs
on the card, so every job of one model on one kind of GPU picks the same batch; a different
batch changes scores by float rounding only (tested per family). Shards of an embedding job
with ``auto`` keep blocks of `MAX_BATCH` images (`vlcomp.score.embedding_shards`), which every
power of two up to it divides, so each block still holds whole batches.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

AUTO = "auto"
CPU_BATCH = 64
MAX_BATCH = 4096
MEMORY_FRACTION = 0.5
PROBE_SIZES = (8, 32)
# a caption longer than most benchmark texts (tokenisers truncate it at the model's limit)
PROBE_TEXT = ("a small red metal cube to the left of a large blue rubber sphere on a wooden "
              "table next to a window with white curtains and a green plant in a tall "
              "ceramic pot beside an open book")
STAGES = ("images", "pairs")
AUTO_VISION_BATCH = 256  # pictures per vision pass of a pair scorer when batch_size is auto

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BatchChoice:
    """A resolved batch size and how it was found (for the job's log)."""

    size: int
    reason: str


def is_auto(setting: Any) -> bool:
    """Whether a batch setting asks for `auto` sizing."""
    return isinstance(setting, str) and setting == AUTO


def check_setting(setting: Any, key: str) -> None:
    """Raise a ValueError naming ``key`` unless ``setting`` is a positive integer or ``auto``."""
    if is_auto(setting):
        return
    if isinstance(setting, bool) or not isinstance(setting, int) or setting < 1:
        raise ValueError(f"{key}: {setting!r} is neither a positive integer nor {AUTO!r}")


def vision_batch(embed: Mapping[str, Any]) -> int:
    """Pictures per vision pass of a pair scorer (and per chunk its shards keep whole):
    ``embed.vision_batch``, else the integer ``embed.batch_size``, else `AUTO_VISION_BATCH`.
    A configuration number, never sized at run time: a gather job must cut the same chunks
    as its shards."""
    chosen = embed.get("vision_batch")
    if chosen is not None:
        return int(chosen)
    setting = embed.get("batch_size", AUTO_VISION_BATCH)
    check_setting(setting, "embed.batch_size")
    return AUTO_VISION_BATCH if is_auto(setting) else int(setting)


def fitted_batch(peaks_mb: Mapping[int, float], budget_mb: float, cap: int = MAX_BATCH) -> int:
    """The largest power of two up to ``cap`` whose memory, on the line through the probes'
    peaks (batch size -> MB), stays within ``budget_mb``; 1 when even that does not fit.

    A line that does not grow (the probes' peaks equal, as when the allocator's blocks
    round both alike) gives ``cap``.
    """
    if len(peaks_mb) < 2:
        raise ValueError(f"two probe batches are needed, got {sorted(peaks_mb)}")
    (n1, p1), (n2, p2) = sorted(peaks_mb.items())[:2]
    per_item = (p2 - p1) / (n2 - n1)
    fixed = p1 - per_item * n1
    batch = 1
    while batch * 2 <= cap and (per_item <= 0 or fixed + per_item * batch * 2 <= budget_mb):
        batch *= 2
    return batch


def cuda_peak_mb(run: Callable[[], Any], device: str) -> float:
    """Peak memory (MB) that ``run()`` allocates on a CUDA device above what was allocated
    before it."""
    import torch

    torch.cuda.synchronize(device)
    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    run()
    torch.cuda.synchronize(device)
    return (torch.cuda.max_memory_allocated(device) - before) / 2**20


def cuda_budget_mb(device: str, fraction: float = MEMORY_FRACTION) -> float:
    """``fraction`` of the device's total memory less what this process holds on it (MB)."""
    import torch

    total = torch.cuda.get_device_properties(device).total_memory
    return (fraction * total - torch.cuda.memory_allocated(device)) / 2**20


def resolve_batch(setting: int | str, device: str, probe: Callable[[int], Any], *,
                  key: str, peak: Callable[[Callable[[], Any], str], float] = cuda_peak_mb,
                  budget: Callable[[str], float] = cuda_budget_mb,
                  cap: int = MAX_BATCH) -> BatchChoice:
    """The batch a job runs: ``setting`` itself when an integer; for ``auto``, `CPU_BATCH`
    off CUDA, else the batch the probes' memory line allows (`fitted_batch`). ``probe(n)``
    runs one forward pass of ``n`` items; a first pass of one item loads what the scorer
    loads lazily, so the budget (measured after it) leaves out the weights and the probes'
    peaks hold only their batches. ``peak`` and ``budget`` measure (injected in tests)."""
    check_setting(setting, key)
    if not is_auto(setting):
        return BatchChoice(int(setting), "configured")
    if not str(device).startswith("cuda"):
        return BatchChoice(CPU_BATCH, f"{AUTO} on {device}: the CPU batch")
    probe(1)  # weights a scorer loads lazily, and kernels' workspaces, before any measure
    available = budget(device)
    peaks = {n: peak(lambda n=n: probe(n), device) for n in PROBE_SIZES}
    size = fitted_batch(peaks, available, cap)
    shown = ", ".join(f"{n}: {mb:.0f} MB" for n, mb in peaks.items())
    return BatchChoice(size, f"{AUTO}: probe peaks {shown}; budget {available:,.0f} MB "
                             f"({MEMORY_FRACTION:.0%} of the GPU less the model)")


def block_batch(setting: int | str, batch: int) -> int:
    """The batch an embedding shard's block keeps whole: the job's own for an integer
    setting; for ``auto`` `MAX_BATCH`, which every batch `auto` picks on any GPU divides, so
    all shards of a job cut the same blocks."""
    return MAX_BATCH if is_auto(setting) else batch


def probe_pictures(n: int) -> list:
    """``n`` distinct blank pictures (distinct objects: scorers encode each object once)."""
    from PIL import Image

    return [Image.new("RGB", (384, 384), (128, 128, 128)) for _ in range(n)]


def image_probe(scorer: Any) -> Callable[[int], Any]:
    """One embedding forward pass of ``n`` pictures through ``embed_images``, which runs the
    transform and the encoder a job's loader batches go through."""
    return lambda n: scorer.embed_images(probe_pictures(n), batch_size=n)


def pair_probes(scorer: Any) -> list[Callable[[int], Any]]:
    """One forward pass of ``n`` pairs of one picture (encoded once) with a long caption, per
    pair method the scorer has (``score_pairs``, ``log_likelihood``)."""
    probes = []
    for name in ("score_pairs", "log_likelihood"):
        method = getattr(scorer, name, None)
        if callable(method):
            def run(n: int, method: Callable = method) -> Any:
                picture = probe_pictures(1)[0]
                return method([picture] * n, [PROBE_TEXT] * n, batch_size=n)
            probes.append(run)
    return probes


def job_batch(scorer: Any, setting: int | str, stage: str, device: str, *,
              key: str | None = None, say: Callable[[str], Any] | None = None, **kw: Any) -> int:
    """A model job's batch for ``stage`` (``images``: embedding; ``pairs``: pair and
    captioner scores), logged with how it was found. For ``pairs`` with several methods the
    smallest of their batches."""
    if stage not in STAGES:
        raise ValueError(f"stage {stage!r}: one of {STAGES}")
    key = key or ("embed.batch_size" if stage == "images" else "embed.pair_batch_size")
    probes = [image_probe(scorer)] if stage == "images" else pair_probes(scorer)
    if not probes:
        raise ValueError(f"{type(scorer).__name__} has no {stage} method to size a batch for")
    choices = [resolve_batch(setting, device, p, key=key, **kw) for p in probes]
    choice = min(choices, key=lambda c: c.size)
    (say or log.info)(f"{key}: {choice.size} ({choice.reason})")
    return choice.size
