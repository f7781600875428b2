"""BLIP image–text retrieval models from transformers: ITC embeddings and ITM pair scores.

Registry entry ``{family: hf_blip_itm, model: Salesforce/blip-itm-base-coco, revision,
max_length, itm_first_token: enc|cls}``. The papers' checkpoints (`PAPER_MODELS`):
``Salesforce/blip-itm-base-coco`` and ``Salesforce/blip-itm-large-coco`` (ViT-B / ViT-L,
retrieval-finetuned on COCO).

* ITC: the vision and text encoders' CLS states through ``vision_proj`` / ``text_proj``, L2
  normalised, so ``embed_images`` / ``embed_texts`` serve every dual-encoder benchmark
  (``use_itm_head=False`` in transformers computes the same cosine).
* ITM: ``score_pairs`` runs the text encoder with cross-attention to the image for each
  (image, text) pair and returns ``itm_head``'s match logit, P(match), or ARO's score for
  BLIP, match logit + ITC cosine (``blip_models.py``; BLIP's own retrieval evaluation).
  The vision tower runs once per distinct image object of a call (`vision_reuse`); its
  states serve every text scored against the image, and its CLS state gives the ITC term.
* States: ``image_states`` / ``score_pairs_given_states`` / ``embed_image_states`` let one
  vision pass per picture serve both ITM pairs and ITC embeddings (`vlcomp.score.pair_plan`).

First token of the ITM pass (``itm_first_token``): BLIP's own ``blip_itm.py`` / LAVIS (and
ARO's wrapper) replace the text's first token by ``[ENC]`` (``ids[:, 0] = enc_token_id``)
before the image-grounded text encoder; that is the default here, ``enc``. transformers'
``BlipForImageTextRetrieval`` feeds the processor's ids unchanged (``[CLS]`` first):
``itm_first_token: cls``. ITC always reads ``[CLS]``, as in BLIP. The [ENC] id comes from the
tokenizer (``enc_token_id`` or its ``[ENC]`` token); a tokenizer without one is an error. Not
verified offline: that the hub tokenizers carry ``[ENC]`` and how much the choice moves the
numbers on real weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from vlcomp.image.tensor_shuffle import shuffled_pixels
from vlcomp.models.hf_loading import load_pretrained
from vlcomp.models.pixel_loader import LoaderPixels, ProcessorPixels
from vlcomp.models.vision_reuse import DistinctImagePairs

DEFAULT_MODEL = "Salesforce/blip-itm-base-coco"
PAPER_MODELS = ("Salesforce/blip-itm-base-coco", "Salesforce/blip-itm-large-coco")
PAIR_SCORES = ("itm_logit", "itm_prob", "itm_plus_itc")
FIRST_TOKENS = ("enc", "cls")


def enc_token_id(tokenizer: Any, model: str) -> int:
    """BLIP's ``[ENC]`` id: the tokenizer's ``enc_token_id`` or its ``[ENC]`` token."""
    found = getattr(tokenizer, "enc_token_id", None)
    if found is None:
        found = tokenizer.get_vocab().get("[ENC]")
    if found is None:
        raise ValueError(f"model {model!r}: its tokenizer has no [ENC] token for the ITM pass; "
                         "use a BLIP tokenizer with [ENC] or set itm_first_token: cls")
    return int(found)


class BlipItmScorer(LoaderPixels, DistinctImagePairs):
    """ITC embeddings and ITM pair scores of a ``BlipForImageTextRetrieval`` (lazy loading)."""

    shuffles_pixels = True  # shuffles tagged pictures after preprocessing (tensor_shuffle)

    pair_kinds = PAIR_SCORES

    def __init__(self, name: str, entry: dict[str, Any], device: str = "cpu") -> None:
        self.name, self.device = name, device
        self.model_id = entry.get("model", DEFAULT_MODEL)
        self.revision = entry.get("revision")
        self.max_length = int(entry.get("max_length", 35))  # ARO's BLIP text length
        self.itm_first_token = entry.get("itm_first_token", "enc")
        if self.itm_first_token not in FIRST_TOKENS:
            raise ValueError(f"model {name!r}: itm_first_token {self.itm_first_token!r}, one "
                             f"of {FIRST_TOKENS}")
        self._model = self._processor = None
        self._enc_id: int | None = None

    def _load(self) -> None:
        if self._model is None:
            from transformers import BlipForImageTextRetrieval, BlipProcessor

            self._processor, self._model = load_pretrained(
                BlipForImageTextRetrieval, BlipProcessor, self.model_id, self.revision, self.device)
            if self.itm_first_token == "enc":
                self._enc_id = enc_token_id(self._processor.tokenizer, self.name)

    def vision_tower(self) -> torch.nn.Module:
        """The ViT image encoder (counted by `vlcomp.models.vision_count`)."""
        self._load()
        return self._model.vision_model

    def _pixels(self, images: Sequence[Image.Image]) -> torch.Tensor:
        pixels = self._processor(images=list(images), return_tensors="pt").pixel_values
        return shuffled_pixels(pixels, images).to(self.device)

    def _tokens(self, texts: Sequence[str]):
        return self._processor(text=list(texts), padding=True, truncation=True,
                               max_length=self.max_length, return_tensors="pt").to(self.device)

    def _image_transform(self) -> ProcessorPixels:
        return ProcessorPixels(self._processor.image_processor)

    def _embed_pixel_batch(self, pixels: torch.Tensor) -> np.ndarray:
        """ITC image embeddings: the vision CLS state through ``vision_proj``, normalised."""
        states = self._model.vision_model(pixel_values=pixels)[0]
        return F.normalize(self._model.vision_proj(states[:, 0, :]), dim=-1).float().cpu().numpy()

    def embed_texts(self, texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
        self._load()
        out = []
        with torch.inference_mode():
            for s in range(0, len(texts), batch_size):
                tokens = self._tokens(texts[s : s + batch_size])
                states = self._model.text_encoder(input_ids=tokens.input_ids,
                                                  attention_mask=tokens.attention_mask)[0]
                out.append(F.normalize(self._model.text_proj(states[:, 0, :]), dim=-1))
        return torch.cat(out).float().cpu().numpy() if out else np.zeros((0, 0), np.float32)

    def _vision_states(self, batch: Sequence[Image.Image]) -> torch.Tensor:
        return self._model.vision_model(pixel_values=self._pixels(batch))[0]

    def embed_image_states(self, states: torch.Tensor) -> np.ndarray:
        """ITC image embeddings from vision states: equal to `embed_images` of the images."""
        self._load()
        with torch.inference_mode():
            features = self._model.vision_proj(states[:, 0, :])
            return F.normalize(features, dim=-1).float().cpu().numpy()

    def score_pairs_given_states(
        self, states: torch.Tensor, index: torch.Tensor, texts: Sequence[str],
        kind: str = "itm_logit", batch_size: int = 64,
    ) -> np.ndarray:
        """The ``kind`` score of texts[k] against the image whose vision states are
        ``states[index[k]]``, for every k."""
        kind = self.check_pair_kind(kind)
        self._load()
        model, out = self._model, []
        with torch.inference_mode():
            for s in range(0, len(texts), batch_size):
                tokens = self._tokens(texts[s : s + batch_size])
                image_states = states[index[s : s + batch_size]]
                itm_ids = tokens.input_ids
                if self._enc_id is not None:  # BLIP's ITM pass: [ENC] in place of [CLS]
                    itm_ids = itm_ids.clone()
                    itm_ids[:, 0] = self._enc_id
                hidden = model.text_encoder(
                    input_ids=itm_ids, attention_mask=tokens.attention_mask,
                    encoder_hidden_states=image_states,
                    encoder_attention_mask=torch.ones(image_states.shape[:-1], dtype=torch.long,
                                                      device=image_states.device),
                ).last_hidden_state
                logits = model.itm_head(hidden[:, 0, :])
                score = logits.softmax(dim=-1)[:, 1] if kind == "itm_prob" else logits[:, 1]
                if kind == "itm_plus_itc":
                    image_feat = F.normalize(model.vision_proj(image_states[:, 0, :]), dim=-1)
                    text_states = model.text_encoder(
                        input_ids=tokens.input_ids, attention_mask=tokens.attention_mask,
                    ).last_hidden_state
                    text_feat = F.normalize(model.text_proj(text_states[:, 0, :]), dim=-1)
                    score = score + (image_feat * text_feat).sum(dim=-1)
                out.append(score.float().cpu())
        return torch.cat(out).numpy().astype(np.float64) if out else np.zeros(0)
