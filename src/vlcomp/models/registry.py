"""Build a scorer from a registry entry (`config: models:`), dispatching on `family`.

Every family but the pair-only ones (`vlcomp.config.PAIR_ONLY_FAMILIES`) is a dual encoder
(`Scorer`: ``embed_images`` / ``embed_texts``). ``hf_blip_itm``, ``hf_flava`` and ``xvlm``
(X-VLM's original retrieval checkpoints, `vlcomp.models.xvlm`) also score pairs jointly with
their ITM heads (``score_pairs``). The captioner families (``hf_blip_lm``; BLIP-2 with a
frozen LLM, ``hf_blip2_lm``; BLIP-2's Q-Former captioner, ``hf_blip2_qformer_lm``) only score
pairs (``log_likelihood``, log P(text | image)), and so does BLIP-2's Q-Former ITM / ITC
(``hf_blip2_itm``, no single-vector embedding): they serve the pair-scoring steps, not the
embedding ones. Family ``python`` is a researcher's own model, built by a function of theirs
(``factory: "package.module:function"``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from vlcomp.models.base import DualEncoderScorer, Scorer
from vlcomp.models.checkpoint import load_checkpoint
from vlcomp.models.hf_blip import BlipItmScorer
from vlcomp.models.hf_blip2 import Blip2ItmScorer
from vlcomp.models.hf_blip2_lm import Blip2CaptionScorer
from vlcomp.models.hf_blip2_qformer_lm import Blip2QFormerCaptionScorer
from vlcomp.models.hf_blip_lm import BlipCaptionScorer
from vlcomp.models.hf_dual_encoder import HFDualEncoderScorer
from vlcomp.models.hf_flava import FlavaScorer
from vlcomp.models.open_clip_family import OpenClipScorer
from vlcomp.models.world_clip import world_tokenizer, world_transform
from vlcomp.models.xvlm import XVLMScorer

# a `Scorer`, or a pair scorer (the pair-only families)
ScorerFactory = Callable[[str, dict[str, Any], str], Any]


def build_checkpoint_scorer(name: str, entry: dict[str, Any], device: str = "cpu") -> Scorer:
    """One of our trained runs: entry `path` is a `vlcomp-clip-v1` checkpoint file."""
    model, cfg = load_checkpoint(entry["path"])
    return DualEncoderScorer(
        name, model, world_transform(cfg), world_tokenizer(cfg), int(cfg["embed_dim"]), device
    )


def build_python_scorer(name: str, entry: dict[str, Any], device: str = "cpu") -> Any:
    """A model of your own: entry `factory` names an importable ``package.module:function``,
    called as ``function(name, entry, device)``; it returns a `Scorer` (or a pair scorer, for
    an entry with `pair_score`). The rest of the entry (`options`, `files`) is the
    function's to read; `files` are also the job's inputs."""
    spec = str(entry.get("factory", ""))
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"model {name!r}: factory {spec!r} is not 'package.module:function'")
    try:
        module = importlib.import_module(module_name)
    except ImportError as err:
        raise ImportError(
            f"model {name!r}: cannot import {module_name!r} (factory {spec!r}); is it on "
            f"PYTHONPATH or installed? {err}"
        ) from err
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"model {name!r}: {module_name} has no function {attribute!r}")
    return factory(name, entry, device)


FAMILIES: dict[str, ScorerFactory] = {
    "open_clip": OpenClipScorer,
    "checkpoint": build_checkpoint_scorer,
    "hf_dual": HFDualEncoderScorer,
    "hf_blip_itm": BlipItmScorer,
    "hf_flava": FlavaScorer,
    "hf_blip_lm": BlipCaptionScorer,
    "hf_blip2_itm": Blip2ItmScorer,
    "hf_blip2_lm": Blip2CaptionScorer,
    "hf_blip2_qformer_lm": Blip2QFormerCaptionScorer,
    "xvlm": XVLMScorer,
    "python": build_python_scorer,
}


def build_scorer(name: str, entry: dict[str, Any], device: str = "cpu") -> Any:
    """Build the scorer for model `name` from its registry entry (a `Scorer` for every
    family but the pair-only ones)."""
    family = entry.get("family")
    factory = FAMILIES.get(family)  # type: ignore[arg-type]
    if factory is None:
        raise ValueError(
            f"model {name!r}: unknown family {family!r}; known families: {sorted(FAMILIES)}"
        )
    return factory(name, entry, device)
