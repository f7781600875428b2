"""BLIP-2's first-stage Q-Former as a captioner: log P(text | image) ("BLIP2-QFormer
VisualGPTScore", VisualGPTScore appendix Tables 10-11).

Registry entry ``{family: hf_blip2_qformer_lm, model: Salesforce/blip2-itm-vit-g,
lm_head: resources/models/blip2_pretrained.pth, prompt: "", reduction: mean|sum,
max_length: 32, weights_only: true, revision}``.

Stage 1 of BLIP-2 trains the Q-Former with an image-grounded text generation loss besides ITC
and ITM (LAVIS ``Blip2Qformer``: ``Qformer`` is a ``BertLMHeadModel``). transformers' BLIP-2
classes keep no language-model head: converting ``blip2_image_text_matching`` / ``pretrain``
into ``Salesforce/blip2-itm-vit-g`` drops the ``Qformer.cls.*`` tensors
(``convert_blip_2_original_to_pytorch.py`` filters them out of the unexpected keys), and its
Q-Former only builds bidirectional masks. This scorer therefore runs the transformers Q-Former
of the ITM checkpoint with LAVIS' multimodal-causal mask and takes the LM head from LAVIS'
own checkpoint (``lm_head``: the ``{"model": state_dict}`` file, e.g. ``blip2_pretrained.pth``,
or any file holding the ``Qformer.cls.predictions.*`` tensors):

* text ids: the BERT tokenizer's ``[CLS] caption [SEP]`` with ``[DEC]`` (the tokenizer's bos)
  in place of ``[CLS]``, positions from 0 (LAVIS ``decoder_input_ids[:, 0] = bos``);
* attention: the 32 queries attend to each other and cross-attend to the image; each text
  token attends to every query and to the text tokens up to itself (LAVIS passes the query
  pass' ``past_key_values`` and a causal text mask: the same attention in one pass);
* head: ``dense -> gelu -> LayerNorm -> decoder (+ bias)``; the decoder weight is the file's
  ``decoder.weight`` when present (tied to the word embeddings in LAVIS), else the word
  embeddings of the transformers model;
* scored: the caption's tokens and ``[SEP]`` (the prompt's tokens, if any, are context), raw
  log-softmax (LAVIS' loss uses label smoothing 0.1), mean (default) or sum.

The paper's BLIP-2 used a ViT-L image encoder (LAVIS ``pretrain_vitL``: ``clip_L``, a CLIP
ViT-L/14 truncated to 23 blocks with a pre-LayerNorm ``ln_pre``). transformers'
``Blip2VisionModel`` has no pre-LayerNorm: `vlcomp.models.blip2_vitl_convert` converts
``clip_vit_L.pth`` + ``blip2_pretrained_vitL.pth`` into a local folder (``model``) with the
pre-LayerNorm in a side file that `Blip2ItmScorer` attaches on loading; ``lm_head`` is then
``blip2_pretrained_vitL.pth``. The ViT-g checkpoint (``blip2_pretrained.pth`` with
``Salesforce/blip2-itm-vit-g``) loads as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from PIL import Image

from vlcomp.models.hf_blip2 import Blip2ItmScorer
from vlcomp.models.hf_blip2_lm import REDUCTIONS, reduce_token_logp
from vlcomp.models.torch_files import load_torch_file
from vlcomp.models.vision_reuse import DistinctImageCaptions

LAVIS_CHECKPOINTS = {
    "pretrain": "https://storage.googleapis.com/sfr-vision-language-research/LAVIS/models/"
                "BLIP2/blip2_pretrained.pth",
    "pretrain_vitL": "https://storage.googleapis.com/sfr-vision-language-research/LAVIS/models/"
                     "BLIP2/blip2_pretrained_vitL.pth",
}
"""LAVIS ``configs/models/blip2/blip2_pretrain{,_vitL}.yaml`` ``pretrained`` URLs."""
HEAD_PREFIXES = ("Qformer.cls.predictions.", "cls.predictions.", "")
HEAD_KEYS = ("transform.dense.weight", "transform.dense.bias", "transform.LayerNorm.weight",
             "transform.LayerNorm.bias", "bias")


def read_lm_head(path: str | Path, weights_only: bool = True) -> dict[str, torch.Tensor]:
    """The Q-Former LM head tensors of a LAVIS checkpoint (``{"model": state_dict}``) or a
    plain state dict (``.pth`` or ``.safetensors``), named as `HEAD_KEYS` (+ ``decoder.weight``
    when present)."""
    path = Path(path)
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        state: Any = load_file(str(path))
    else:
        state = load_torch_file(path, weights_only=weights_only)
    if isinstance(state, Mapping) and isinstance(state.get("model"), Mapping):
        state = state["model"]
    if not isinstance(state, Mapping):
        raise ValueError(f"{path}: not a state dict (got {type(state).__name__})")
    for prefix in HEAD_PREFIXES:
        if all(prefix + k in state for k in HEAD_KEYS):
            found = {k: state[prefix + k] for k in HEAD_KEYS}
            if prefix + "decoder.weight" in state:
                found["decoder.weight"] = state[prefix + "decoder.weight"]
            return {k: v.float() for k, v in found.items()}
    missing = [HEAD_PREFIXES[0] + k for k in HEAD_KEYS if HEAD_PREFIXES[0] + k not in state]
    raise KeyError(f"{path}: no Q-Former LM head; missing {missing}")


class QFormerLMHead(torch.nn.Module):
    """BERT's LM head (``BertOnlyMLMHead``): dense, activation, LayerNorm, decoder + bias."""

    def __init__(self, tensors: Mapping[str, torch.Tensor], decoder_weight: torch.Tensor,
                 activation: str, eps: float) -> None:
        super().__init__()
        from transformers.activations import ACT2FN

        hidden = tensors["transform.dense.weight"].shape[0]
        vocab = tensors["bias"].shape[0]
        weight = tensors.get("decoder.weight", decoder_weight)
        if tuple(weight.shape) != (vocab, hidden):
            raise ValueError(f"LM head decoder weight {tuple(weight.shape)} does not match "
                             f"vocabulary {vocab} x hidden {hidden}")
        self.dense = torch.nn.Linear(hidden, hidden)
        self.act = ACT2FN[activation]
        self.norm = torch.nn.LayerNorm(hidden, eps=eps)
        self.decoder = torch.nn.Linear(hidden, vocab)
        with torch.no_grad():
            self.dense.weight.copy_(tensors["transform.dense.weight"])
            self.dense.bias.copy_(tensors["transform.dense.bias"])
            self.norm.weight.copy_(tensors["transform.LayerNorm.weight"])
            self.norm.bias.copy_(tensors["transform.LayerNorm.bias"])
            self.decoder.weight.copy_(weight)
            self.decoder.bias.copy_(tensors["bias"])

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.norm(self.act(self.dense(hidden))))


def multimodal_causal_mask(n_queries: int, text_mask: torch.Tensor,
                           dtype: torch.dtype) -> torch.Tensor:
    """Additive (batch, 1, q + t, q + t) mask: queries see queries; text token k sees every
    query and the non-padding text tokens up to k."""
    batch, length = text_mask.shape
    size = n_queries + length
    allowed = torch.zeros((batch, size, size), dtype=torch.bool, device=text_mask.device)
    allowed[:, :n_queries, :n_queries] = True
    allowed[:, n_queries:, :n_queries] = True
    causal = torch.ones((length, length), dtype=torch.bool, device=text_mask.device).tril()
    allowed[:, n_queries:, n_queries:] = causal & text_mask.bool()[:, None, :]
    bias = torch.zeros((batch, 1, size, size), dtype=dtype, device=text_mask.device)
    return bias.masked_fill(~allowed[:, None], torch.finfo(dtype).min)


class Blip2QFormerCaptionScorer(DistinctImageCaptions):
    """Teacher-forced caption log-likelihoods of BLIP-2's stage-1 Q-Former."""

    def __init__(self, name: str, entry: dict[str, Any], device: str = "cpu") -> None:
        self.name, self.device = name, device
        if not entry.get("lm_head"):
            raise ValueError(f"model {name!r}: lm_head (LAVIS checkpoint with the Q-Former's "
                             "Qformer.cls.* tensors, e.g. blip2_pretrained.pth) is required")
        self.lm_head_path = str(entry["lm_head"])
        self.weights_only = bool(entry.get("weights_only", True))
        self.prompt = str(entry.get("prompt", ""))
        self.reduction = entry.get("reduction", "mean")
        if self.reduction not in REDUCTIONS:
            raise ValueError(f"model {name!r}: reduction {self.reduction!r}, one of {REDUCTIONS}")
        self.max_length = int(entry.get("max_length", 32))
        self._itm = Blip2ItmScorer(name, {**entry, "max_length": self.max_length}, device)
        self._head: QFormerLMHead | None = None

    def _load(self) -> None:
        if self._head is None:
            self._itm._load()
            model = self._itm._model
            config = model.config.qformer_config
            tensors = read_lm_head(self.lm_head_path, self.weights_only)
            self._head = QFormerLMHead(tensors, model.embeddings.word_embeddings.weight.detach(),
                                       config.hidden_act, config.layer_norm_eps)
            self._head.to(self.device).eval()
            if self.tokenizer.bos_token_id is None:
                raise ValueError(f"model {self.name!r}: the tokenizer has no bos ([DEC]) token")

    @property
    def tokenizer(self) -> Any:
        self._itm._load()
        return self._itm._processor.tokenizer

    def vision_tower(self) -> torch.nn.Module:
        """The ViT image encoder (counted by `vlcomp.models.vision_count`)."""
        return self._itm.vision_tower()

    def vision_states(self, pixel_values: torch.Tensor) -> torch.Tensor:
        """The vision tower's last hidden states of preprocessed images."""
        return self._itm.vision_states(pixel_values)

    def _image_states(self, batch: Sequence[Image.Image]) -> torch.Tensor:
        return self._itm._vision_states(batch)

    def _null_inputs(self) -> tuple[int, Any]:
        model, processor = self._itm._model, self._itm._processor.image_processor
        return int(model.config.vision_config.image_size), processor

    def prompt_length(self) -> int:
        """Context tokens before the caption: the bos and the prompt's tokens."""
        return len(self.tokenizer(self.prompt).input_ids) - 1

    def text_logits(self, states: torch.Tensor, ids: torch.Tensor,
                    mask: torch.Tensor) -> torch.Tensor:
        """LM logits at every text position (``[:, k]`` predicts token k + 1), given the
        vision states of each row's image and the text ids (bos first)."""
        self._load()
        model = self._itm._model
        queries = model.query_tokens.expand(ids.shape[0], -1, -1)
        n_queries = queries.shape[1]
        embeds = model.embeddings(input_ids=ids, query_embeds=queries)
        hidden = model.qformer(
            query_embeds=embeds, query_length=n_queries,
            attention_mask=multimodal_causal_mask(n_queries, mask, embeds.dtype),
            encoder_hidden_states=states,
            encoder_attention_mask=torch.ones(states.shape[:2], dtype=torch.long,
                                              device=states.device),
        ).last_hidden_state
        return self._head(hidden[:, n_queries:, :])

    def log_likelihood_given_states(
        self, states: torch.Tensor, index: torch.Tensor, texts: Sequence[str],
        batch_size: int = 32,
    ) -> np.ndarray:
        """log P(texts[k] | image with vision states ``states[index[k]]``) for every k."""
        if len(index) != len(texts):
            raise ValueError(f"{len(index)} image indices but {len(texts)} texts")
        self._load()
        skip = self.prompt_length()
        bos = self.tokenizer.bos_token_id
        out = []
        with torch.inference_mode():
            for s in range(0, len(texts), batch_size):
                tokens = self.tokenizer(
                    [self.prompt + t for t in texts[s : s + batch_size]], padding=True,
                    truncation=True, max_length=self.max_length, return_tensors="pt",
                ).to(self.device)
                ids = tokens.input_ids.clone()
                ids[:, 0] = bos
                logits = self.text_logits(states[index[s : s + batch_size].to(states.device)],
                                          ids, tokens.attention_mask)
                scored = tokens.attention_mask[:, 1:].clone()
                scored[:, : skip - 1] = 0  # the prompt's tokens are context
                out.append(reduce_token_logp(logits[:, :-1], ids[:, 1:], scored,
                                             self.reduction).cpu())
        return torch.cat(out).numpy().astype(np.float64) if out else np.zeros(0)

    def score_pairs_given_states(self, states: torch.Tensor, index: torch.Tensor,
                                 texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """The pair-scorer name of `log_likelihood_given_states` (`vlcomp.score.pair_plan`)."""
        return self.log_likelihood_given_states(states, index, texts, batch_size)
