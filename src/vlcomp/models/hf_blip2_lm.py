"""BLIP-2 with a frozen LLM (FLAN-T5 or OPT) as a generative scorer: log P(text | image).

Registry entry ``{family: hf_blip2_lm, model: Salesforce/blip2-flan-t5-xl, prompt: "",
suffix, reduction: mean|sum, max_length: 32, revision}``. The image goes through the ViT and
the Q-Former's 32 queries; ``language_projection`` turns the query outputs into 32 soft
visual tokens placed before the prompt, as LAVIS ``blip2_t5`` / ``blip2_opt`` build the LLM
input (``inputs_embeds = [projected queries; prompt tokens]``). Those projected tokens are
this scorer's image states: computed once per distinct image (`vision_reuse`), they serve
every text scored against it.

* FLAN-T5 (encoder-decoder; LAVIS ``blip2_t5``; t2v_metrics scores its FLAN-T5 models'
  VisualGPTScore with ``question_template=""``, ``answer_template="{}"``): the encoder reads
  the visual tokens and the prompt (default ``""``, i.e. only ``</s>``, as the
  ``pretrain_flant5xl`` configs' ``prompt: ""``); the decoder target is ``caption + suffix``
  (default suffix ``""``) as the T5 tokenizer encodes it (``... </s>``), read shifted right
  behind ``decoder_start_token_id``. Every target token is scored, ``</s>`` included.
* OPT (decoder-only; LAVIS ``blip2_opt``): the LLM reads the visual tokens, then
  ``prompt + caption + suffix`` with the tokenizer's leading ``</s>`` (bos); the bos and the
  prompt's tokens are context (LAVIS' ``prompt_length``), the caption's tokens and the suffix
  (default ``"\\n"``: LAVIS trains on ``t + "\\n"``) are scored. (LAVIS masks the prompt
  only for a non-empty prompt, so with ``""`` its loss also scores the bos after the visual
  tokens: a term of the image alone, left out here.)

Token log-probabilities come from the logits (raw log-softmax); ``reduction: mean`` (default,
VisualGPTScore Eq. 2; t2v_metrics' ``exp(-mean CE)``) or ``sum``. Targets are truncated to
``max_length`` tokens (LAVIS ``max_txt_len``: 32). Checkpoints: ``Salesforce/blip2-flan-t5-xl``
(the appendix's "BLIP2-FlanT5"; ViT-g, whereas the paper's used ViT-L: LAVIS
``pretrain_flant5xl_vitL``, not in transformers; `vlcomp.models.blip2_vitl_convert` writes it
as a local folder whose ViT pre-LayerNorm is attached on loading), ``Salesforce/blip2-opt-2.7b``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image

from vlcomp.models.blip2_vitl_convert import attach_vision_pre_layernorm
from vlcomp.models.hf_loading import load_pretrained
from vlcomp.models.vision_reuse import DistinctImageCaptions

DEFAULT_MODEL = "Salesforce/blip2-flan-t5-xl"
PAPER_MODELS = ("Salesforce/blip2-flan-t5-xl",)
REDUCTIONS = ("mean", "sum")


def reduce_token_logp(logits: torch.Tensor, targets: torch.Tensor, scored: torch.Tensor,
                      reduction: str) -> torch.Tensor:
    """Sum or mean of log-softmax(logits)[target] over the ``scored`` positions per row
    (``logits[:, k]`` predicts ``targets[:, k]``)."""
    logp = torch.log_softmax(logits.float(), dim=-1)
    token_logp = logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    scored = scored.bool()
    total = (token_logp * scored).sum(dim=1)
    if reduction == "mean":
        total = total / scored.sum(dim=1).clamp(min=1)
    return total


class Blip2CaptionScorer(DistinctImageCaptions):
    """Teacher-forced caption log-likelihoods of a ``Blip2ForConditionalGeneration``."""

    def __init__(self, name: str, entry: dict[str, Any], device: str = "cpu") -> None:
        self.name, self.device = name, device
        self.model_id = entry.get("model", DEFAULT_MODEL)
        self.revision = entry.get("revision")
        self.prompt = str(entry.get("prompt", ""))
        self.suffix: str | None = entry.get("suffix")
        self.reduction = entry.get("reduction", "mean")
        if self.reduction not in REDUCTIONS:
            raise ValueError(f"model {name!r}: reduction {self.reduction!r}, one of {REDUCTIONS}")
        self.max_length = int(entry.get("max_length", 32))
        self._model: Any = None
        self._processor: Any = None

    def _load(self) -> None:
        if self._model is None:
            from transformers import Blip2ForConditionalGeneration, Blip2Processor

            self._processor, self._model = load_pretrained(
                Blip2ForConditionalGeneration, Blip2Processor, self.model_id, self.revision,
                self.device)
            if Path(self.model_id).is_dir():  # a converted ViT-L folder: LAVIS' ln_pre
                attach_vision_pre_layernorm(self._model, self.model_id)
            if self.suffix is None:
                self.suffix = "\n" if self.decoder_only else ""
            self._processor.tokenizer.padding_side = "right"

    @property
    def decoder_only(self) -> bool:
        """Whether the LLM is decoder-only (OPT) rather than an encoder-decoder (FLAN-T5)."""
        self._load()
        return bool(self._model.config.use_decoder_only_language_model)

    @property
    def tokenizer(self) -> Any:
        self._load()
        return self._processor.tokenizer

    def vision_tower(self) -> torch.nn.Module:
        """The ViT image encoder (counted by `vlcomp.models.vision_count`)."""
        self._load()
        return self._model.vision_model

    def vision_states(self, pixel_values: torch.Tensor) -> torch.Tensor:
        """The LLM's visual tokens of preprocessed images: ViT, Q-Former queries, then
        ``language_projection`` (n, queries, d_llm)."""
        self._load()
        model = self._model
        vision = model.vision_model(pixel_values=pixel_values.to(self.device)).last_hidden_state
        queries = model.query_tokens.expand(vision.shape[0], -1, -1)
        hidden = model.qformer(
            query_embeds=queries, encoder_hidden_states=vision,
            encoder_attention_mask=torch.ones(vision.shape[:2], dtype=torch.long,
                                              device=vision.device)).last_hidden_state
        return model.language_projection(hidden)

    def _image_states(self, images: Sequence[Image.Image]) -> torch.Tensor:
        pixels = self._processor.image_processor(images=list(images), return_tensors="pt")
        return self.vision_states(pixels.pixel_values)

    def _null_inputs(self) -> tuple[int, Any]:
        return int(self._model.config.vision_config.image_size), self._processor.image_processor

    def prompt_length(self) -> int:
        """Tokens of the prompt as the tokenizer encodes it alone (OPT: bos included; the
        context before the scored caption tokens)."""
        return len(self.tokenizer(self.prompt).input_ids)

    def log_likelihood_given_states(
        self, states: torch.Tensor, index: torch.Tensor, texts: Sequence[str],
        batch_size: int = 32,
    ) -> np.ndarray:
        """log P(texts[k] | image with visual tokens ``states[index[k]]``) for every k."""
        if len(index) != len(texts):
            raise ValueError(f"{len(index)} image indices but {len(texts)} texts")
        self._load()
        step = self._decoder_only_batch if self.decoder_only else self._seq2seq_batch
        out = []
        with torch.inference_mode():
            for s in range(0, len(texts), batch_size):
                visual = states[index[s : s + batch_size].to(states.device)]
                out.append(step(visual, list(texts[s : s + batch_size])).cpu())
        return torch.cat(out).numpy().astype(np.float64) if out else np.zeros(0)

    def score_pairs_given_states(self, states: torch.Tensor, index: torch.Tensor,
                                 texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """The pair-scorer name of `log_likelihood_given_states` (`vlcomp.score.pair_plan`)."""
        return self.log_likelihood_given_states(states, index, texts, batch_size)

    def _seq2seq_batch(self, visual: torch.Tensor, texts: list[str]) -> torch.Tensor:
        model, tokenizer = self._model, self.tokenizer
        lm = model.language_model
        prompt = torch.tensor([tokenizer(self.prompt).input_ids], device=self.device)
        prompt_embeds = lm.get_input_embeddings()(prompt).expand(len(texts), -1, -1)
        inputs = torch.cat([visual.to(prompt_embeds.dtype), prompt_embeds], dim=1)
        target = tokenizer([t + self.suffix for t in texts], padding="longest",
                           truncation=True, max_length=self.max_length,
                           return_tensors="pt").to(self.device)
        start = lm.config.decoder_start_token_id
        decoder_ids = torch.cat([torch.full_like(target.input_ids[:, :1], start),
                                 target.input_ids[:, :-1]], dim=1)
        logits = lm(inputs_embeds=inputs,
                    attention_mask=torch.ones(inputs.shape[:2], dtype=torch.long,
                                              device=self.device),
                    decoder_input_ids=decoder_ids,
                    decoder_attention_mask=target.attention_mask).logits
        return reduce_token_logp(logits, target.input_ids, target.attention_mask,
                                 self.reduction)

    def _decoder_only_batch(self, visual: torch.Tensor, texts: list[str]) -> torch.Tensor:
        model, tokenizer = self._model, self.tokenizer
        lm = model.language_model
        tokens = tokenizer([self.prompt + t + self.suffix for t in texts], padding="longest",
                           truncation=True, max_length=self.max_length,
                           return_tensors="pt").to(self.device)
        ids, mask = tokens.input_ids, tokens.attention_mask
        embeds = lm.get_input_embeddings()(ids)
        n_visual = visual.shape[1]
        inputs = torch.cat([visual.to(embeds.dtype), embeds], dim=1)
        attention = torch.cat([torch.ones(visual.shape[:2], dtype=mask.dtype,
                                          device=mask.device), mask], dim=1)
        logits = lm(inputs_embeds=inputs, attention_mask=attention).logits
        # the logit at position n_visual + k - 1 predicts text token k
        predicting = logits[:, n_visual - 1 : n_visual - 1 + ids.shape[1]]
        scored = mask.clone()
        scored[:, : self.prompt_length()] = 0  # bos and prompt: context, not targets
        return reduce_token_logp(predicting, ids, scored, self.reduction)
