"""BLIP captioning models as generative scorers: log P(text | image) by teacher forcing.

Registry entry ``{family: hf_blip_lm, model: Salesforce/blip-image-captioning-base,
prompt: "a picture of ", reduction: sum|mean, revision, max_length}``. The papers'
checkpoints (`PAPER_MODELS`): ``Salesforce/blip-image-captioning-base`` and
``Salesforce/blip-image-captioning-large``. As LAVIS's ``blip_caption`` does: the
text is ``prompt + caption``, the first token is the decoder's ``[DEC]`` (bos), the prompt's
tokens are not scored (``prompt_length = len(tokenizer(prompt).input_ids) - 1``), the final
``[SEP]`` is. Log-probabilities come from the logits, not from transformers' loss, which
applies label smoothing (0.1) in ``BlipTextLMHeadModel``. Whether VisualGPTScore sums or
averages token log-likelihoods is not published (reference note §C), so both are offered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from PIL import Image

from vlcomp.models.hf_loading import load_pretrained

DEFAULT_MODEL = "Salesforce/blip-image-captioning-base"
PAPER_MODELS = ("Salesforce/blip-image-captioning-base", "Salesforce/blip-image-captioning-large")
DEFAULT_PROMPT = "a picture of "
REDUCTIONS = ("sum", "mean")


class BlipCaptionScorer:
    """Teacher-forced caption log-likelihoods of a ``BlipForConditionalGeneration``."""

    def __init__(self, name: str, entry: dict[str, Any], device: str = "cpu") -> None:
        self.name, self.device = name, device
        self.model_id = entry.get("model", DEFAULT_MODEL)
        self.revision = entry.get("revision")
        self.prompt = entry.get("prompt", DEFAULT_PROMPT)
        self.reduction = entry.get("reduction", "sum")
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

    def prompt_length(self) -> int:
        """Tokens of the prompt including the leading bos (its trailing [SEP] excluded)."""
        self._load()
        return len(self._processor.tokenizer(self.prompt).input_ids) - 1

    def log_likelihood(
        self, images: Sequence[Image.Image], texts: Sequence[str], batch_size: int = 32
    ) -> np.ndarray:
        """log P(text | image) per aligned pair (``reduction`` over the scored tokens)."""
        if len(images) != len(texts):
            raise ValueError(f"{len(images)} images but {len(texts)} texts")
        self._load()
        bos = self._model.config.text_config.bos_token_id
        skip = self.prompt_length()
        out = []
        with torch.inference_mode():
            for s in range(0, len(texts), batch_size):
                batch = [self.prompt + t for t in texts[s : s + batch_size]]
                inputs = self._processor(images=list(images[s : s + batch_size]), text=batch,
                                         padding=True, truncation=True,
                                         max_length=self.max_length, return_tensors="pt")
                inputs = inputs.to(self.device)
                ids = inputs.input_ids.clone()
                ids[:, 0] = bos
                logits = self._model(pixel_values=inputs.pixel_values, input_ids=ids,
                                     attention_mask=inputs.attention_mask).logits
                logp = torch.log_softmax(logits[:, :-1].float(), dim=-1)
                targets = ids[:, 1:]
                token_logp = logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
                scored = inputs.attention_mask[:, 1:].bool().clone()
                scored[:, : skip - 1] = False  # prompt tokens are context, not targets
                total = (token_logp * scored).sum(dim=1)
                if self.reduction == "mean":
                    total = total / scored.sum(dim=1).clamp(min=1)
                out.append(total.cpu())
        return torch.cat(out).numpy().astype(np.float64)
