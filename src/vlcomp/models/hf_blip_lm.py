"""BLIP captioning models as generative scorers: log P(text | image) by teacher forcing.

Registry entry ``{family: hf_blip_lm, model: Salesforce/blip-image-captioning-base,
prompt: "a picture of ", reduction: mean|sum, revision, max_length}``. The papers'
checkpoints (`PAPER_MODELS`): ``Salesforce/blip-image-captioning-base`` and
``Salesforce/blip-image-captioning-large``. As LAVIS's ``blip_caption`` does: the
text is ``prompt + caption``, the first token is the decoder's ``[DEC]`` (bos), the prompt's
tokens are not scored (``prompt_length = len(tokenizer(prompt).input_ids) - 1``), the final
``[SEP]`` is. Log-probabilities come from the logits, not from transformers' loss, which
applies label smoothing (0.1) in LAVIS. VisualGPTScore averages the token log-likelihoods
(Lin et al. Eq. 2, w_k = 1/m): ``reduction: mean``, the default; ``sum`` is the caption's
total log-likelihood.

The vision tower runs once per distinct image object of a call (`vision_reuse`), and its
states serve every caption scored against that image.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from PIL import Image

from vlcomp.models.hf_loading import load_pretrained
from vlcomp.models.vision_reuse import DistinctImageCaptions

DEFAULT_MODEL = "Salesforce/blip-image-captioning-base"
PAPER_MODELS = ("Salesforce/blip-image-captioning-base", "Salesforce/blip-image-captioning-large")
DEFAULT_PROMPT = "a picture of "
REDUCTIONS = ("mean", "sum")


def caption_log_likelihood(logits: torch.Tensor, input_ids: torch.Tensor,
                           attention_mask: torch.Tensor, prompt_length: int,
                           reduction: str = "mean") -> torch.Tensor:
    """Teacher-forced log P(caption) per row from decoder logits: targets are ids[1:], the
    prompt's tokens (``prompt_length`` incl. the bos) and padding are not scored; ``mean``
    or ``sum`` over the scored tokens. Training (`vlcomp.train.captioner`) and scoring share it."""
    logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
    token_logp = logp.gather(-1, input_ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    scored = attention_mask[:, 1:].bool().clone()
    scored[:, : prompt_length - 1] = False  # prompt tokens are context, not targets
    total = (token_logp * scored).sum(dim=1)
    if reduction == "mean":
        total = total / scored.sum(dim=1).clamp(min=1)
    return total


class BlipCaptionScorer(DistinctImageCaptions):
    """Teacher-forced caption log-likelihoods of a ``BlipForConditionalGeneration``."""

    def __init__(self, name: str, entry: dict[str, Any], device: str = "cpu") -> None:
        self.name, self.device = name, device
        self.model_id = entry.get("model", DEFAULT_MODEL)
        self.revision = entry.get("revision")
        self.prompt = entry.get("prompt", DEFAULT_PROMPT)
        self.reduction = entry.get("reduction", "mean")
        if self.reduction not in REDUCTIONS:
            raise ValueError(f"model {name!r}: reduction {self.reduction!r}, one of {REDUCTIONS}")
        self.max_length = int(entry.get("max_length", 40))
        self._model = self._processor = None

    def _load(self) -> None:
        if self._model is None:
            from transformers import BlipForConditionalGeneration, BlipProcessor

            self._processor, self._model = load_pretrained(
                BlipForConditionalGeneration, BlipProcessor, self.model_id, self.revision,
                self.device)

    def vision_tower(self) -> torch.nn.Module:
        """The ViT image encoder (counted by `vlcomp.models.vision_count`)."""
        self._load()
        return self._model.vision_model

    def model_and_processor(self) -> tuple[Any, Any]:
        """The loaded ``BlipForConditionalGeneration`` and its ``BlipProcessor`` (caption
        generation, `vlcomp.models.caption_generation`, shares this loading path)."""
        self._load()
        return self._model, self._processor

    def _null_inputs(self) -> tuple[int, Any]:
        return int(self._model.config.vision_config.image_size), self._processor.image_processor

    def prompt_length(self) -> int:
        """Tokens of the prompt including the leading bos (its trailing [SEP] excluded)."""
        self._load()
        return len(self._processor.tokenizer(self.prompt).input_ids) - 1

    def _image_states(self, images: Sequence[Image.Image]) -> torch.Tensor:
        pixels = self._processor(images=list(images), return_tensors="pt").pixel_values
        return self.vision_states(pixels)

    def vision_states(self, pixel_values: torch.Tensor) -> torch.Tensor:
        """The vision tower's last hidden states of preprocessed images (n, patches, d)."""
        return self._model.vision_model(pixel_values=pixel_values.to(self.device)).last_hidden_state

    def log_likelihood_given_states(
        self, states: torch.Tensor, index: torch.Tensor, texts: Sequence[str],
        batch_size: int = 32,
    ) -> np.ndarray:
        """log P(texts[k] | image with vision states ``states[index[k]]``) for every k."""
        self._load()
        bos = self._model.config.text_config.bos_token_id
        skip = self.prompt_length()
        out = []
        with torch.inference_mode():
            for s in range(0, len(texts), batch_size):
                tokens = self._processor(
                    text=[self.prompt + t for t in texts[s : s + batch_size]], padding=True,
                    truncation=True, max_length=self.max_length, return_tensors="pt",
                ).to(self.device)
                ids = tokens.input_ids.clone()
                ids[:, 0] = bos
                logits = self._model.text_decoder(
                    input_ids=ids, attention_mask=tokens.attention_mask,
                    encoder_hidden_states=states[index[s : s + batch_size]],
                ).logits
                out.append(caption_log_likelihood(logits, ids, tokens.attention_mask, skip,
                                                  self.reduction).cpu())
        return torch.cat(out).numpy().astype(np.float64) if out else np.zeros(0)

    def score_pairs_given_states(self, states: torch.Tensor, index: torch.Tensor,
                                 texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """The pair-scorer name of `log_likelihood_given_states` (`vlcomp.score.pair_plan`)."""
        return self.log_likelihood_given_states(states, index, texts, batch_size)
