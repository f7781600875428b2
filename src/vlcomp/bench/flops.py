"""Compute efficiency of batched image encoding: GFLOP/s of the vision tower per batch size,
against this CPU's float32 matmul peak measured with torch at the same thread count."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import torch
from torch.utils.flop_counter import FlopCounterMode

from vlcomp.models.world_clip import image_layout


def best_seconds(run, repeats: int, min_seconds: float = 0.0) -> float:
    """The fastest of ``repeats`` timed calls (after one untimed warm-up call), repeating
    further until ``min_seconds`` of timed calls have passed."""
    run()
    best, spent, n = float("inf"), 0.0, 0
    while n < repeats or spent < min_seconds:
        start = time.perf_counter()
        run()
        took = time.perf_counter() - start
        best, spent, n = min(best, took), spent + took, n + 1
    return best


def sgemm_peak(sizes: Sequence[int] = (1024, 2048, 3072), repeats: int = 5) -> dict[str, Any]:
    """Float32 matmul GFLOP/s (2n³ flops per n×n product) per size; the peak is the best."""
    per_size = {}
    for n in sizes:
        a, b = torch.randn(n, n), torch.randn(n, n)
        seconds = best_seconds(lambda a=a, b=b: torch.mm(a, b), repeats)
        per_size[n] = 2 * n**3 / seconds / 1e9
    return {"gflops_by_size": per_size, "peak_gflops": max(per_size.values())}


def vision_flops(tower: torch.nn.Module, image_size: int, layout=torch.contiguous_format
                 ) -> int:
    """Floating-point operations of one image through the tower (torch's flop counter:
    2 per multiply-add of matmuls and convolutions).

    The count runs with PyTorch's fused multi-head-attention fast path off: the counter does
    not see inside the fused op, which would hide the attention projections (a third of a
    ViT's work). The same arithmetic runs either way; timed runs keep the fast path.
    """
    pixels = torch.randn(1, 3, image_size, image_size).contiguous(memory_format=layout)
    fast_path = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        with torch.inference_mode(), FlopCounterMode(display=False) as counter:
            tower(pixels)
    finally:
        torch.backends.mha.set_fastpath_enabled(fast_path)
    return int(counter.get_total_flops())


def encode_efficiency(tower: torch.nn.Module, image_size: int, batch_sizes: Sequence[int],
                      peak_gflops: float, repeats: int = 3, min_seconds: float = 2.0,
                      layout=None) -> list[dict[str, Any]]:
    """Images/s and GFLOP/s of the tower (inference mode, vlcomp's memory layout) per batch
    size, and the share of the matmul peak that is."""
    layout = image_layout(_Holder(tower)) if layout is None else layout
    tower = tower.eval().to(memory_format=layout)
    flops = vision_flops(tower, image_size, layout)
    rows = []
    for batch_size in batch_sizes:
        pixels = torch.randn(batch_size, 3, image_size, image_size).contiguous(
            memory_format=layout)

        def run(pixels=pixels):
            with torch.inference_mode():
                tower(pixels)

        seconds = best_seconds(run, repeats, min_seconds)
        gflops = batch_size * flops / seconds / 1e9
        rows.append({"batch_size": batch_size, "images_per_s": batch_size / seconds,
                     "gflop_per_image": flops / 1e9, "gflops": gflops,
                     "share_of_peak": gflops / peak_gflops})
    return rows


class _Holder:
    """Lets `image_layout` (which looks at ``model.visual``) judge a bare tower."""

    def __init__(self, tower: torch.nn.Module) -> None:
        self.visual = tower
