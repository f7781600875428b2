"""Text-only language priors P_LLM(t) from encoder-decoder LMs (VisualGPTScore Table 2a: BART,
FLAN-T5 beside OPT), and `lm_prior`, which picks the causal or the seq2seq scorer from a
model's config.

Lin et al. pass each caption "into a pure LLM (such as BART-base, FLAN-T5-XL, and OPT-2.7B)
to compute a text-only GPTScore", citing BARTScore and GPTScore; their code is unreleased.
Following those two scores, an encoder-decoder LM scores the caption as the decoder's target
given a fixed source text: the source (``source``, default ``""``: no conditioning text, only
the tokenizer's special tokens) goes through the encoder; the target is the tokenizer's own
encoding of the caption, special tokens included (T5: ``caption </s>``; BART:
``<s> caption </s>``), and the decoder reads it shifted right behind the model's
``decoder_start_token_id``, as in training (``labels=``). Every target token is scored;
``reduction: mean`` (default, Eq. 2's w_k = 1/m, as BARTScore) or ``sum``. The source text
and scoring the special tokens are assumptions of this reimplementation.

Checkpoints (paper, Section 4): ``facebook/bart-base``, ``google/flan-t5-xl``,
``facebook/opt-2.7b`` (causal: `CausalLMPrior`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.models.hub import pretrained_source
from vlcomp.text.hf_text_scorers import CausalLMPrior, _HFScorer

PAPER_LMS = ("facebook/bart-base", "google/flan-t5-xl", "facebook/opt-2.7b")
REDUCTIONS = ("mean", "sum")


class Seq2SeqLMPrior(_HFScorer):
    """log P_LLM(t) under an encoder-decoder LM: the caption's tokens (special tokens included)
    as the decoder target given the encoded ``source``; mean (default) or sum of the token
    log-probabilities. Not in [0, 1]: a log-probability (<= 0)."""

    name = "seq2seq_lm"

    def __init__(self, model: str, device: str = "cpu", batch_size: int = 64,
                 revision: str | None = None, source: str = "", reduction: str = "mean",
                 max_length: int | None = None) -> None:
        super().__init__(model, device, batch_size, revision)
        if reduction not in REDUCTIONS:
            raise ValueError(f"{model!r}: reduction {reduction!r}, one of {REDUCTIONS}")
        self.source = source
        self.reduction = reduction
        self.max_length = max_length
        self.start: int | None = None
        self._source_ids: Any = None

    def _load(self) -> None:
        import torch
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        source, revision = pretrained_source(self.model_id, self.revision)
        tokenizer = AutoTokenizer.from_pretrained(source, revision=revision)
        model = AutoModelForSeq2SeqLM.from_pretrained(source, revision=revision,
                                                      dtype=torch.float32)
        start = model.config.decoder_start_token_id
        if start is None:
            start = getattr(model.generation_config, "decoder_start_token_id", None)
        if start is None:
            raise ValueError(f"{self.model_id!r}: the config has no decoder_start_token_id")
        self.start = int(start)
        source = tokenizer(self.source).input_ids
        if not source:
            raise ValueError(f"{self.model_id!r}: source {self.source!r} encodes to no tokens")
        self._source_ids = torch.tensor([source], dtype=torch.long)
        tokenizer.padding_side = "right"  # targets are read left to right from position 0
        model.to(torch.device(self.device)).eval()
        self.tokenizer, self.model = tokenizer, model

    def _score_batch(self, texts: list[str]) -> np.ndarray:
        import torch

        enc = self.tokenizer(texts, padding="longest", return_tensors="pt",
                             truncation=self.max_length is not None, max_length=self.max_length)
        targets, mask = enc["input_ids"], enc["attention_mask"]
        decoder_ids = torch.cat([torch.full((len(texts), 1), self.start, dtype=torch.long),
                                 targets[:, :-1]], dim=1)
        device = next(self.model.parameters()).device
        source = self._source_ids.expand(len(texts), -1).to(device)
        logits = self.model(input_ids=source, attention_mask=torch.ones_like(source),
                            decoder_input_ids=decoder_ids.to(device),
                            decoder_attention_mask=mask.to(device)).logits
        logp = torch.log_softmax(logits.float(), dim=-1).cpu()
        token_logp = logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
        scored = mask.bool()
        total = (token_logp * scored).sum(dim=1)
        if self.reduction == "mean":
            total = total / scored.sum(dim=1).clamp(min=1)
        return total.double().numpy()


def is_encoder_decoder(model_id: str, revision: str | None = None) -> bool:
    """Whether the model's config (hub id or folder) is an encoder-decoder."""
    from transformers import AutoConfig

    source, revision = pretrained_source(model_id, revision)
    config = AutoConfig.from_pretrained(source, revision=revision)
    return bool(getattr(config, "is_encoder_decoder", False))


def lm_prior(model_id: str, device: str = "cpu", batch_size: int = 64,
             revision: str | None = None, **seq2seq: Any) -> _HFScorer:
    """The text prior for ``model_id``: `Seq2SeqLMPrior` for an encoder-decoder config (BART,
    T5; ``seq2seq`` options: source, reduction, max_length), else `CausalLMPrior` (OPT, GPT-2),
    which takes no extra options."""
    if is_encoder_decoder(model_id, revision):
        return Seq2SeqLMPrior(model_id, device, batch_size, revision, **seq2seq)
    if seq2seq:
        raise ValueError(f"{model_id!r} is a causal LM; options {sorted(seq2seq)} apply only "
                         "to encoder-decoder LMs")
    return CausalLMPrior(model_id, device, batch_size, revision)


SEQ2SEQ_OPTIONS = ("source", "reduction", "max_length")


def text_prior_table(entry: dict[str, Any], texts: Sequence[str],
                     device: str = "cpu") -> pd.DataFrame:
    """``text, log_prior``: log P_LLM(t) of every text under the LM of a
    ``visualgptscore.llm`` entry (``model``, ``revision``, ``batch_size``; encoder-decoder
    options ``source``, ``reduction``, ``max_length``), through `lm_prior`."""
    options = {k: entry[k] for k in SEQ2SEQ_OPTIONS if k in entry}
    scorer = lm_prior(entry["model"], device, int(entry.get("batch_size", 64)),
                      entry.get("revision"), **options)
    texts = list(texts)
    scores = scorer.score(texts) if texts else np.zeros(0)
    return pd.DataFrame({"text": texts, "log_prior": np.asarray(scores, np.float64)})
