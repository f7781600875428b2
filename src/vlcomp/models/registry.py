"""Build a scorer from a registry entry (`config: models:`), dispatching on `family`.

Every family but ``hf_blip_lm`` is a dual encoder (`Scorer`: ``embed_images`` /
``embed_texts``). ``hf_blip_itm`` also scores pairs jointly (``score_pairs``);
``hf_blip_lm`` only scores pairs (``log_likelihood``, log P(text | image)), so it serves the
pair-scoring steps, not the embedding ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vlcomp.models.base import DualEncoderScorer, Scorer
from vlcomp.models.checkpoint import load_checkpoint
from vlcomp.models.hf_blip import BlipItmScorer
from vlcomp.models.hf_blip_lm import BlipCaptionScorer
from vlcomp.models.hf_dual_encoder import HFDualEncoderScorer
from vlcomp.models.open_clip_family import OpenClipScorer
from vlcomp.models.world_clip import world_tokenizer, world_transform

# a `Scorer`, or a pair scorer (hf_blip_lm)
ScorerFactory = Callable[[str, dict[str, Any], str], Any]


def build_checkpoint_scorer(name: str, entry: dict[str, Any], device: str = "cpu") -> Scorer:
    """One of our trained runs: entry `path` is a `vlcomp-clip-v1` checkpoint file."""
    model, cfg = load_checkpoint(entry["path"])
    return DualEncoderScorer(
        name, model, world_transform(cfg), world_tokenizer(cfg), int(cfg["embed_dim"]), device
    )


FAMILIES: dict[str, ScorerFactory] = {
    "open_clip": OpenClipScorer,
    "checkpoint": build_checkpoint_scorer,
    "hf_dual": HFDualEncoderScorer,
    "hf_blip_itm": BlipItmScorer,
    "hf_blip_lm": BlipCaptionScorer,
}


def build_scorer(name: str, entry: dict[str, Any], device: str = "cpu") -> Any:
    """Build the scorer for model `name` from its registry entry (a `Scorer` for every
    family but ``hf_blip_lm``)."""
    family = entry.get("family")
    factory = FAMILIES.get(family)  # type: ignore[arg-type]
    if factory is None:
        raise ValueError(
            f"model {name!r}: unknown family {family!r}; known families: {sorted(FAMILIES)}"
        )
    return factory(name, entry, device)
