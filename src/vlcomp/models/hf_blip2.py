"""BLIP-2's first-stage Q-Former from transformers: ITC and ITM pair scores.

Registry entry ``{family: hf_blip2_itm, model: Salesforce/blip2-itm-vit-g, revision,
max_length, pair_score: itm_logit|itm_prob|itc}``. ``Salesforce/blip2-itm-vit-g`` is LAVIS's
``blip2_image_text_matching`` / ``pretrain`` (EVA ViT-g, 224 px) converted by transformers;
VisualGPTScore's appendix used BLIP-2 with a ViT-L image encoder (LAVIS ``pretrain_vitL``),
which has no transformers copy: `vlcomp.models.blip2_vitl_convert` writes it as a folder with
the ViT's pre-LayerNorm beside it, attached on loading a local folder that has one.

As LAVIS ``Blip2ITM`` and t2v_metrics' ``blip2_itm_model.py`` / ``blip2_itc_model.py``:

* vision states: the ViT's last hidden states after ``ln_vision`` (transformers:
  ``vision_model``'s ``post_layernorm``), one pass per distinct image (`vision_reuse`).
* ITM: the 32 learned queries and the caption's tokens (``[CLS] ... [SEP]``, unchanged: no
  ``[ENC]`` in BLIP-2) go through the Q-Former together, the queries cross-attending to the
  image; ``itm_head`` is applied to each query output and the logits are averaged over the
  queries; ``itm_logit`` is the match logit, ``itm_prob`` softmax(...)[1] (t2v_metrics'
  ITMScore).
* ITC: the queries alone give 32 image embeddings (``vision_projection``, L2-normalised), the
  caption alone its ``[CLS]`` embedding (``text_projection``); the score is the largest cosine
  over the queries (transformers' ``use_image_text_matching_head=False``, LAVIS, t2v_metrics).
  Not a single-vector dual encoder, so there is no ``embed_images``: retrieval galleries use
  the pair score ``itc`` or `itc_matrix`.

Texts are truncated to ``max_length`` tokens (35, as t2v_metrics; LAVIS' ``max_txt_len`` is 32).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from vlcomp.models.blip2_vitl_convert import attach_vision_pre_layernorm
from vlcomp.models.hf_loading import load_pretrained
from vlcomp.models.vision_reuse import DistinctImagePairs

DEFAULT_MODEL = "Salesforce/blip2-itm-vit-g"
PAIR_SCORES = ("itm_logit", "itm_prob", "itc")


class Blip2ItmScorer(DistinctImagePairs):
    """ITM and ITC pair scores of a ``Blip2ForImageTextRetrieval`` (lazy loading)."""

    pair_kinds = PAIR_SCORES

    def __init__(self, name: str, entry: dict[str, Any], device: str = "cpu") -> None:
        self.name, self.device = name, device
        self.model_id = entry.get("model", DEFAULT_MODEL)
        self.revision = entry.get("revision")
        self.max_length = int(entry.get("max_length", 35))
        self._model: Any = None
        self._processor: Any = None

    def _load(self) -> None:
        if self._model is None:
            from transformers import Blip2ForImageTextRetrieval, Blip2Processor

            self._processor, self._model = load_pretrained(
                Blip2ForImageTextRetrieval, Blip2Processor, self.model_id, self.revision,
                self.device)
            if Path(self.model_id).is_dir():  # a converted ViT-L folder: LAVIS' ln_pre
                attach_vision_pre_layernorm(self._model, self.model_id)
            if not self._model.config.qformer_config.use_qformer_text_input:
                raise ValueError(f"model {self.name!r}: {self.model_id!r} has no Q-Former text "
                                 "input (use_qformer_text_input: false); not an ITM checkpoint")

    def vision_tower(self) -> torch.nn.Module:
        """The ViT image encoder (counted by `vlcomp.models.vision_count`)."""
        self._load()
        return self._model.vision_model

    def _tokens(self, texts: Sequence[str]) -> Any:
        """The Q-Former tokenizer's ids (``[CLS] ... [SEP]``), padded, on the device."""
        return self._processor.tokenizer(
            list(texts), padding=True, truncation=True, max_length=self.max_length,
            return_tensors="pt").to(self.device)

    def _vision_states(self, batch: Sequence[Image.Image]) -> torch.Tensor:
        pixels = self._processor.image_processor(images=list(batch), return_tensors="pt")
        return self.vision_states(pixels.pixel_values)

    def vision_states(self, pixel_values: torch.Tensor) -> torch.Tensor:
        """The vision tower's last hidden states of preprocessed images (n, patches + 1, d)."""
        self._load()
        return self._model.vision_model(
            pixel_values=pixel_values.to(self.device)).last_hidden_state

    def image_query_embeddings(self, states: torch.Tensor, batch_size: int = 64) -> torch.Tensor:
        """ITC image embeddings from vision states: (n, queries, e), unit-norm rows."""
        self._load()
        model, out = self._model, []
        with torch.inference_mode():
            for s in range(0, len(states), batch_size):
                part = states[s : s + batch_size]
                queries = model.query_tokens.expand(part.shape[0], -1, -1)
                hidden = model.qformer(
                    query_embeds=queries, encoder_hidden_states=part,
                    encoder_attention_mask=_ones(part)).last_hidden_state
                out.append(F.normalize(model.vision_projection(hidden), dim=-1))
        return torch.cat(out) if out else torch.zeros(0)

    def embed_texts(self, texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
        """ITC text embeddings: the Q-Former's ``[CLS]`` state of the caption alone through
        ``text_projection``, (n, e) float32, unit-norm rows."""
        return self._text_embeddings(texts, batch_size).float().cpu().numpy()

    def _text_embeddings(self, texts: Sequence[str], batch_size: int) -> torch.Tensor:
        self._load()
        model, out = self._model, []
        with torch.inference_mode():
            for s in range(0, len(texts), batch_size):
                tokens = self._tokens(texts[s : s + batch_size])
                hidden = model.qformer(
                    query_embeds=model.embeddings(input_ids=tokens.input_ids), query_length=0,
                    attention_mask=tokens.attention_mask).last_hidden_state
                out.append(F.normalize(model.text_projection(hidden[:, 0, :]), dim=-1))
        return torch.cat(out) if out else torch.zeros((0, 0), device=self.device)

    @staticmethod
    def itc_matrix(image_queries: torch.Tensor, text_embeddings: torch.Tensor | np.ndarray,
                   ) -> np.ndarray:
        """ITC scores S[image, text] = max over queries of the cosine, (n_images, n_texts)."""
        texts = torch.as_tensor(text_embeddings, device=image_queries.device,
                                dtype=image_queries.dtype)
        sims = torch.einsum("iqe,te->iqt", image_queries, texts)
        return sims.max(dim=1).values.double().cpu().numpy()

    def score_pairs_given_states(
        self, states: torch.Tensor, index: torch.Tensor, texts: Sequence[str],
        kind: str = "itm_logit", batch_size: int = 64,
    ) -> np.ndarray:
        """The ``kind`` score of texts[k] against the image with vision states
        ``states[index[k]]``, for every k."""
        kind = self.check_pair_kind(kind)
        if len(index) != len(texts):
            raise ValueError(f"{len(index)} image indices but {len(texts)} texts")
        if not len(texts):
            return np.zeros(0)
        self._load()
        if kind == "itc":
            return self._itc_pairs(states, index, texts, batch_size)
        model, out = self._model, []
        with torch.inference_mode():
            for s in range(0, len(texts), batch_size):
                tokens = self._tokens(texts[s : s + batch_size])
                image = states[index[s : s + batch_size].to(states.device)]
                queries = model.query_tokens.expand(image.shape[0], -1, -1)
                mask = torch.cat([_ones(queries), tokens.attention_mask], dim=1)
                hidden = model.qformer(
                    query_embeds=model.embeddings(input_ids=tokens.input_ids,
                                                  query_embeds=queries),
                    query_length=queries.shape[1], attention_mask=mask,
                    encoder_hidden_states=image, encoder_attention_mask=_ones(image),
                ).last_hidden_state
                logits = model.itm_head(hidden[:, : queries.shape[1], :]).mean(dim=1)
                score = logits.softmax(dim=-1)[:, 1] if kind == "itm_prob" else logits[:, 1]
                out.append(score.float().cpu())
        return torch.cat(out).numpy().astype(np.float64)

    def _itc_pairs(self, states: torch.Tensor, index: torch.Tensor, texts: Sequence[str],
                   batch_size: int) -> np.ndarray:
        """ITC per pair: each distinct image's queries and each distinct text once."""
        queries = self.image_query_embeddings(states, batch_size)
        distinct = list(dict.fromkeys(texts))
        row = {t: k for k, t in enumerate(distinct)}
        text_emb = self._text_embeddings(distinct, batch_size)
        picked = text_emb[torch.tensor([row[t] for t in texts], device=text_emb.device)]
        sims = torch.einsum("pqe,pe->pq", queries[index.to(queries.device)], picked)
        return sims.max(dim=1).values.double().cpu().numpy()


def _ones(states: torch.Tensor) -> torch.Tensor:
    """An all-ones attention mask over the first two dimensions of ``states``."""
    return torch.ones(states.shape[:2], dtype=torch.long, device=states.device)
