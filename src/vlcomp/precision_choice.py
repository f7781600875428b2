"""Which precision a model job runs in on CUDA (`job_precision`), without torch: the
workflow reads it at parse time (`vlcomp.models.precision` applies it in the job).

A model entry's ``precision`` (one for all stages, or ``{embed, pairs, generative}``) wins;
else a global ``compute.autocast`` of fp16 / bf16 (every model job); else the precision the
reference implementation of the family states (`REFERENCE_PRECISION`, with the line that
states it); else fp32.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PRECISIONS = ("fp32", "tf32", "bf16", "fp16")
STAGES = ("embed", "pairs", "generative")
GLOBAL = ("none", "fp16", "bf16")  # compute.autocast

# family -> (precision of every stage, where the reference states it)
REFERENCE_PRECISION: dict[str, tuple[str, str]] = {
    "hf_blip2_itm": ("fp16", "t2v_metrics blip2_itm_model.py: forward under "
                     "@torch.autocast(device_type='cuda', dtype=torch.float16)"),
    "hf_blip2_qformer_lm": ("fp16", "LAVIS blip2: vit_precision 'fp16' (the ViT in half); "
                            "t2v_metrics runs BLIP-2 under fp16 autocast"),
    "hf_blip2_lm": ("bf16", "LAVIS blip2_t5.py: the T5's parameters cast to bfloat16, its "
                    "forward under torch.cuda.amp.autocast(dtype=torch.bfloat16)"),
}


def job_precision(entry: Mapping[str, Any], stage: str,
                  compute: Mapping[str, Any] | None = None) -> str:
    """The precision of a model's ``stage`` job (module docstring); ValueError names a
    precision or stage that is not one."""
    if stage not in STAGES:
        raise ValueError(f"precision stage {stage!r}: one of {STAGES}")
    given = entry.get("precision")
    if isinstance(given, Mapping):
        given = given.get(stage)
    if given is not None:
        if given not in PRECISIONS:
            raise ValueError(f"models.{entry.get('group', '?')}.precision: {given!r} is not "
                             f"one of {PRECISIONS}")
        return str(given)
    forced = (compute or {}).get("autocast", "none")
    if forced not in GLOBAL:
        raise ValueError(f"compute.autocast: {forced!r} is not one of {GLOBAL}")
    if forced != "none":
        return str(forced)
    return REFERENCE_PRECISION.get(str(entry.get("family")), ("fp32", ""))[0]


