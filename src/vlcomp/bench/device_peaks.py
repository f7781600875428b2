"""The dense (no structured sparsity) peak TFLOP/s of the GPUs the project measures on, from
NVIDIA's data sheets, so that a measured rate can be read as a share of what the device can
do. The data sheets print tensor-core peaks with 2:4 sparsity; the dense peak is half."""

from __future__ import annotations

# name fragment (of torch.cuda.get_device_name), in match order -> peak TFLOP/s by precision
PEAKS: tuple[tuple[str, dict[str, float]], ...] = (
    # H100 SXM5 / H200 SXM: FP32 67; TF32 989 and BF16/FP16 1,979 with sparsity
    ("H200", {"fp32": 67.0, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4}),
    ("H100 PCIe", {"fp32": 51.0, "tf32": 378.0, "bf16": 756.0, "fp16": 756.0}),
    ("H100", {"fp32": 67.0, "tf32": 494.7, "bf16": 989.4, "fp16": 989.4}),
    # A100 (SXM4 and PCIe): FP32 19.5; TF32 156, BF16/FP16 312 dense
    ("A100", {"fp32": 19.5, "tf32": 156.0, "bf16": 312.0, "fp16": 312.0}),
)


def device_peak(name: str, precision: str = "bf16") -> float | None:
    """Dense peak TFLOP/s of the GPU ``name`` at ``precision`` (None: not in `PEAKS`)."""
    for fragment, peaks in PEAKS:
        if fragment in name:
            return peaks.get(precision)
    return None
