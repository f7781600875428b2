"""Real-model caption scorers used to select TROHN-Img negatives (BiVLC ``TROHN_Img_scoring.py``).

BiVLC scores every positive and negative caption with two Hugging Face models and keeps
negatives by those scores:

* :class:`VeraPlausibility` - Vera (``liujch1998/vera``), a T5 encoder whose calibrated head is
  stored in three rows of the shared embedding matrix; its score is a plausibility probability.
* :class:`AcceptabilityClassifier` - ``textattack/roberta-base-CoLA``, a sequence classifier;
  its score is ``softmax(logits)[:, 1]``, the probability that the text is acceptable.

Both load lazily (on the first :meth:`score`) from a hub id or a local directory, in float32
(transformers 5 would otherwise load in the checkpoint's dtype), in eval mode, and return
float64 arrays in input order. Texts are batched in order of length; scores do not depend on
the batch composition because each row is read at its own positions under the attention mask.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from vlcomp.models.hub import pretrained_source
from vlcomp.pins import COLA_MODEL, VERA_MODEL

VERA_MAX_LENGTH = 128  # model card: truncation='longest_first', max_length=128
VERA_WEIGHT_ROW = 32099  # shared.weight row holding the head's weight vector
VERA_BIAS_ROW = 32098  # shared.weight[32098, 0] is the head's bias
VERA_TEMPERATURE_ROW = 32097  # shared.weight[32097, 0] is the calibration temperature


def _length_order(texts: Sequence[str]) -> list[int]:
    """Indices of ``texts`` from longest to shortest (stable), so batches pad little."""
    return sorted(range(len(texts)), key=lambda i: -len(texts[i]))


class _HFScorer:
    """Shared lazy loading and length-sorted batching; subclasses implement ``_load`` and
    ``_score_batch``."""

    name = "hf"

    def __init__(self, model: str, device: str = "cpu", batch_size: int = 64,
                 revision: str | None = None) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        self.model_id = model
        self.device = device
        self.batch_size = batch_size
        self.revision = revision
        self.tokenizer: Any = None
        self.model: Any = None

    def _load(self) -> None:
        raise NotImplementedError

    def _score_batch(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Scores (float64; in [0, 1] but for `CausalLMPrior`), one per text, in input
        order."""
        import torch

        texts = [str(t) for t in texts]
        out = np.empty(len(texts), dtype=np.float64)
        if not texts:
            return out
        if self.model is None:
            self._load()
        order = _length_order(texts)
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                idx = order[start:start + self.batch_size]
                out[idx] = self._score_batch([texts[i] for i in idx])
        return out


class VeraPlausibility(_HFScorer):
    """Vera plausibility, following the ``liujch1998/vera`` model card.

    The statement is encoded by a ``T5EncoderModel``; the hidden state of the last token (the
    final ``</s>``) goes through a linear head whose weight is ``shared.weight[32099]`` and whose
    bias is ``shared.weight[32098, 0]``, and the logit divided by the temperature
    ``shared.weight[32097, 0]`` is passed through a sigmoid. In a padded batch each row's last
    non-padding token is used, so batched scores equal one-at-a-time scores.
    """

    name = "vera"

    def __init__(self, model: str = VERA_MODEL, device: str = "cpu", batch_size: int = 64,
                 revision: str | None = None) -> None:
        super().__init__(model, device, batch_size, revision)
        self.linear: Any = None
        self.temperature: float | None = None

    def _load(self) -> None:
        import torch
        from transformers import AutoTokenizer, T5EncoderModel

        source, revision = pretrained_source(self.model_id, self.revision)
        tokenizer = AutoTokenizer.from_pretrained(source, revision=revision)
        model = T5EncoderModel.from_pretrained(source, revision=revision,
                                               dtype=torch.float32)
        shared = model.shared.weight
        if shared.shape[0] <= VERA_WEIGHT_ROW:
            raise ValueError(
                f"{self.model_id!r} has a vocabulary of {shared.shape[0]} rows; Vera's head needs "
                f"at least {VERA_WEIGHT_ROW + 1} (rows {VERA_TEMPERATURE_ROW}-{VERA_WEIGHT_ROW})")
        model.to(torch.device(self.device)).eval()
        shared = model.shared.weight
        linear = torch.nn.Linear(model.shared.embedding_dim, 1, dtype=model.dtype,
                                 device=shared.device)
        with torch.no_grad():
            linear.weight.copy_(shared[VERA_WEIGHT_ROW, :].unsqueeze(0))
            linear.bias.copy_(shared[VERA_BIAS_ROW, 0].unsqueeze(0))
        self.linear = linear.eval()
        self.temperature = float(shared[VERA_TEMPERATURE_ROW, 0].item())
        self.tokenizer, self.model = tokenizer, model

    def _score_batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer(texts, return_tensors="pt", padding="longest",
                             truncation="longest_first", max_length=VERA_MAX_LENGTH)
        device = self.model.shared.weight.device
        input_ids = enc["input_ids"].to(device)
        mask = enc["attention_mask"].to(device)
        hidden = self.model(input_ids=input_ids, attention_mask=mask).last_hidden_state
        # last non-padding position of each row (works for right and left padding)
        last = mask.shape[1] - 1 - mask.flip(1).argmax(dim=1)
        rows = hidden[range(hidden.shape[0]), last, :]
        logit = self.linear(rows).squeeze(-1)
        return (logit / self.temperature).sigmoid().double().cpu().numpy()


class AcceptabilityClassifier(_HFScorer):
    """Linguistic acceptability from a CoLA sequence classifier (``textattack/roberta-base-CoLA``
    in BiVLC): ``softmax(logits)[:, positive_label]``."""

    name = "cola"

    def __init__(self, model: str = COLA_MODEL, device: str = "cpu", batch_size: int = 64,
                 revision: str | None = None, positive_label: int = 1) -> None:
        super().__init__(model, device, batch_size, revision)
        self.positive_label = positive_label

    def _load(self) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        source, revision = pretrained_source(self.model_id, self.revision)
        tokenizer = AutoTokenizer.from_pretrained(source, revision=revision)
        model = AutoModelForSequenceClassification.from_pretrained(
            source, revision=revision, dtype=torch.float32)
        num_labels = model.config.num_labels
        if not 0 <= self.positive_label < num_labels:
            raise ValueError(f"positive_label {self.positive_label} out of range for "
                             f"{self.model_id!r} with {num_labels} labels")
        model.to(torch.device(self.device)).eval()
        self.tokenizer, self.model = tokenizer, model

    def _score_batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer(texts, return_tensors="pt", padding=True, truncation=True)
        device = next(self.model.parameters()).device
        logits = self.model(**{k: v.to(device) for k, v in enc.items()}).logits
        probs = logits.float().softmax(dim=-1)[:, self.positive_label]
        return probs.double().cpu().numpy()


class CausalLMPrior(_HFScorer):
    """A text-only language prior P_LLM(t) (VisualGPTScore Table 2: OPT, BART, FLAN-T5): the
    mean log-probability of the text's tokens under a causal LM, each given the ones before it
    and a leading bos (``bos_token``, else ``cls_token``) that is not scored. Not in [0, 1]:
    a log-probability (<= 0)."""

    name = "causal_lm"

    def _load(self) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        source, revision = pretrained_source(self.model_id, self.revision)
        tokenizer = AutoTokenizer.from_pretrained(source, revision=revision)
        model = AutoModelForCausalLM.from_pretrained(source, revision=revision,
                                                     dtype=torch.float32)
        bos = tokenizer.bos_token_id if tokenizer.bos_token_id is not None \
            else tokenizer.cls_token_id
        if bos is None:
            raise ValueError(f"{self.model_id!r}: the tokenizer has no bos or cls token")
        self.bos = int(bos)
        model.to(torch.device(self.device)).eval()
        self.tokenizer, self.model = tokenizer, model

    def _score_batch(self, texts: list[str]) -> np.ndarray:
        import torch

        rows = [self.tokenizer(t, add_special_tokens=False).input_ids for t in texts]
        width = 1 + max(len(r) for r in rows)
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        ids = torch.full((len(rows), width), pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for k, row in enumerate(rows):
            ids[k, : len(row) + 1] = torch.tensor([self.bos, *row])
            mask[k, : len(row) + 1] = 1
        device = next(self.model.parameters()).device
        logits = self.model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
        logp = torch.log_softmax(logits[:, :-1].float(), dim=-1).cpu()
        token_logp = logp.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
        scored = mask[:, 1:].bool()
        total = (token_logp * scored).sum(dim=1) / scored.sum(dim=1).clamp(min=1)
        return total.double().numpy()


HF_TEXT_SCORERS: dict[str, type[_HFScorer]] = {
    "vera": VeraPlausibility,
    "cola": AcceptabilityClassifier,
}
