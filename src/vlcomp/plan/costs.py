"""Per-item costs of the heavy stages, by model scale, with where each number comes from.

``world`` costs were measured here, on one CPU thread (2-core machine, ``compute.threads: 1``),
from the tiny run's Snakemake ``benchmark:`` files; every other scale is a GPU estimate for
one NVIDIA A100 (each with its source, listed in docs/cluster.md), since no weights can be
downloaded here. A cluster's own ``benchmarks/`` files give better numbers: see
``python -m vlcomp.plan --help``; so do a GPU's measurements by ``scripts/gpu_check.sh``
(`vlcomp.plan.measured`), used in place of the estimates inside `measured_costs`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Cost:
    """Seconds per item of one stage at one model scale, on ``device`` (gpu or cpu);
    ``measured`` for a GPU measurement read by `vlcomp.plan.measured`."""

    seconds: float
    device: str
    source: str
    measured: bool = False


MEASURED = "measured here: tiny run, one CPU thread"
OPEN_CLIP_PROFILE = ("estimate: open_clip's model profile (ViT-B/32 4.4, ViT-L/14 81 GFLOPs "
                     "per image) on an A100 in fp32, JPEG decoding by 6 loader workers")
OPEN_CLIP_TEXT = ("estimate: open_clip's model profile (text towers of ViT-B/32 ~3, ViT-L/14 "
                  "~6 GFLOPs per 77-token text) on an A100 in fp32, batches of 32")

COSTS: dict[tuple[str, str], Cost] = {
    # embed: one image through the vision tower (decoding included); one text
    ("embed_image", "world"): Cost(0.003, "cpu", MEASURED + " (941 images, 2.8 s)"),
    ("embed_image", "base"): Cost(0.002, "gpu", OPEN_CLIP_PROFILE),
    ("embed_image", "large"): Cost(0.008, "gpu", OPEN_CLIP_PROFILE),
    ("embed_text", "world"): Cost(0.00013, "cpu", MEASURED + " (6,295 texts, 0.8 s)"),
    ("embed_text", "base"): Cost(0.0003, "gpu", OPEN_CLIP_TEXT),
    ("embed_text", "large"): Cost(0.001, "gpu", OPEN_CLIP_TEXT),
}

COSTS.update({
    # generate: one candidate image (the world's renders; SDXL + DPO UNet at 1024 px, fp16)
    ("generate_image", "world"): Cost(0.002, "cpu", MEASURED + " (1,010 images, 2.0 s)"),
    ("generate_image", "diffusers"): Cost(5.3, "gpu", "BiVLC App. E: 30,048 SDXL-DPO images on "
                                      "4 A100s in ~11 h (~683 images per A100-hour)"),
})

BLIP_DECODER = ("estimate: BLIP's text decoder (BERT-base, 12 layers) over ~20 tokens with "
                "cross-attention to 577 image tokens (384 px), ~7 GFLOP a pair, at ~10 TFLOP/s "
                "effective on an A100")
COSTS.update({
    # retrieval: one (gallery image, query) pair's log P(t|i), the picture's vision pass shared
    ("retrieval_pair", "world"): Cost(0.00015, "cpu", MEASURED + " (24,283 pairs, 3.6 s)"),
    ("retrieval_pair", "base"): Cost(0.0005, "gpu", BLIP_DECODER),
    ("retrieval_pair", "large"): Cost(0.0007, "gpu", BLIP_DECODER),
})

COSTS.update({
    # llm_negatives: one SugarCrepe-template generation (TROHN-Text's openchat-3.5, bf16)
    ("llm_generation", "llm"): Cost(0.097, "gpu", "BiVLC App. E: 591,753 generations per "
                                    "subtype in ~16 h on one A100 (~37,000 an hour)"),
})

COSTS.update({
    # pairs: one (image, text) pair of a choice benchmark through a pair scorer (ITM or
    # log P(t|i)), the picture's vision pass shared; xl: an LLM decoder (BLIP-2 FLAN-T5-XL)
    ("pair", "world"): Cost(0.00015, "cpu", MEASURED + " (24,283 pairs, 3.6 s)"),
    ("pair", "base"): Cost(0.0005, "gpu", BLIP_DECODER),
    ("pair", "large"): Cost(0.0007, "gpu", BLIP_DECODER),
    ("pair", "xl"): Cost(0.01, "gpu", "estimate: FLAN-T5-XL (3B) over ~20 target tokens, "
                         "~120 GFLOP a pair, at ~12 TFLOP/s effective on an A100"),
})

TRAIN_WORLD = MEASURED + " (samples_per_s in the tiny run's train_log.csv)"
BIVLC_TRAINING = "BiVLC App. E: {what} on one A100, validation included"
VIT_L_RATIO = 81 / 4.4  # open_clip's image GFLOPs, ViT-L/14 : ViT-B/32
VIT_L_TRAINING = ("estimate: the base cost times ViT-L/14's image GFLOPs over ViT-B/32's "
                  "(81 / 4.4, open_clip's model profile)")
# train_<objective>: one training row (an image, its caption and the objective's hard
# examples) through forward and backward, an epoch's validation spread over its rows
_TRAIN_BASE = {
    "clip": Cost(0.0137, "gpu", BIVLC_TRAINING.format(
        what="CLIP_COCO, 10 epochs of 473,402 caption rows in ~18 h")),
    "trohn_text": Cost(0.0177, "gpu", BIVLC_TRAINING.format(
        what="CLIP_TROHN-Text, 10 epochs of 2,922,276 rows in ~6 days")),
    "trohn_img": Cost(0.0274, "gpu", BIVLC_TRAINING.format(
        what="CLIP_TROHN-Img, 10 epochs of 236,856 rows (2 images, 2 captions) in ~18 h")),
    "negclip": Cost(0.0274, "gpu", "estimate: as a TROHN-Img row (an image, a neighbour "
                    "image, a caption and a negative caption); ARO §C gives no time"),
}
COSTS.update({("train_" + objective, "base"): each for objective, each in _TRAIN_BASE.items()})
COSTS.update({("train_" + objective, "large"): Cost(round(each.seconds * VIT_L_RATIO, 4),
                                                      "gpu", VIT_L_TRAINING)
              for objective, each in _TRAIN_BASE.items()})
COSTS.update({
    ("train_clip", "world"): Cost(0.0051, "cpu", TRAIN_WORLD + ": clip, 196 rows/s"),
    ("train_negclip", "world"): Cost(0.0106, "cpu", TRAIN_WORLD + ": negclip, 95 rows/s"),
    ("train_trohn_text", "world"): Cost(0.0057, "cpu", TRAIN_WORLD + ": trohn_text, "
                                        "176 rows/s"),
    ("train_trohn_img", "world"): Cost(0.0099, "cpu", TRAIN_WORLD + ": trohn_img, 101 rows/s"),
})

COSTS.update({
    # llm_text: one text's log P_LLM(t) by a text-only LM (VisualGPTScore Table 2a)
    ("llm_text", "base"): Cost(0.0005, "gpu", "estimate: BART-base (140M) over ~20 tokens, "
                               "batched, on an A100"),
    ("llm_text", "xl"): Cost(0.005, "gpu", "estimate: FLAN-T5-XL / OPT-2.7B (~3B) over ~20 "
                             "tokens, ~120 GFLOP a text, at ~25 TFLOP/s effective on an A100"),
    # caption_image: one test image captioned by BLIP's decoding (beam 3, <= 20 tokens)
    ("caption_image", "world"): Cost(0.016, "cpu", MEASURED + " (80 images, 1.3 s)"),
    ("caption_image", "base"): Cost(0.05, "gpu", "estimate: 3 beams x 20 steps of BLIP's "
                                    "decoder with cross-attention, batches of 32, on an A100"),
    ("caption_image", "large"): Cost(0.08, "gpu", "estimate: as base, ViT-L vision tower"),
})

# model families and architectures whose towers cost about a ViT-L/14's
LARGE_MARKERS = ("L-14", "L14", "large", "flava", "blip2", "vit-g", "xvlm", "AltCLIP")


XL_MARKERS = ("flan-t5-xl", "opt-2.7b")  # an LLM behind the vision tower


def model_scale(entry: dict[str, Any], world: bool) -> str:
    """``world`` (the world's small models), ``xl`` (an LLM decoder), ``large`` (ViT-L-class
    towers) or ``base``."""
    if world:
        return "world"
    described = " ".join([*(str(entry.get(k, "")) for k in ("family", "arch", "model")),
                          str((entry.get("convert") or {}).get("t5", ""))]).lower()
    if any(m in described for m in XL_MARKERS):
        return "xl"
    return "large" if any(m.lower() in described for m in LARGE_MARKERS) else "base"


_MEASURED: dict[tuple[str, str], Cost] = {}  # in force inside `measured_costs`
_TRACES: list[list[Cost]] = []  # open `traced_costs` blocks


@contextmanager
def measured_costs(costs: Mapping[tuple[str, str], Cost]) -> Iterator[None]:
    """Inside the block, `cost` answers ``costs`` in place of the estimates of the same
    (kind, scale); outside (the rules' resource requests) the estimates stand."""
    old = dict(_MEASURED)
    _MEASURED.update(costs)
    try:
        yield
    finally:
        _MEASURED.clear()
        _MEASURED.update(old)


@contextmanager
def traced_costs() -> Iterator[list[Cost]]:
    """The costs `cost` returns inside the block, in order (which basis a job's hours have)."""
    seen: list[Cost] = []
    _TRACES.append(seen)
    try:
        yield seen
    finally:
        _TRACES.remove(seen)


def cost(kind: str, scale: str) -> Cost:
    """The per-item cost of a stage's item kind at a model scale; a KeyError names both."""
    if scale == "xl" and (kind, scale) not in COSTS:
        scale = "large"  # an LLM's vision tower and text encoder are ViT-L-class
    found = _MEASURED.get((kind, scale)) or COSTS.get((kind, scale))
    if found is None:
        raise KeyError(f"no per-item cost for {kind!r} at scale {scale!r}")
    for seen in _TRACES:
        seen.append(found)
    return found
