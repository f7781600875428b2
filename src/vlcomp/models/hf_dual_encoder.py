"""Dual encoders from transformers (CLIP, ALIGN, AltCLIP, GroupViT, FLAVA's unimodal heads).

Registry entry ``{family: hf_dual, model: <hub id, short name or local folder>, revision,
max_chars}``. The papers' models (ARO; Hendriksen et al.), also accepted by short name
(`HUB_IDS`): ALIGN ``kakaobrain/align-base``, AltCLIP ``BAAI/AltCLIP``, GroupViT
``nvidia/groupvit-gcc-yfcc``, FLAVA ``facebook/flava-full`` (a ``FlavaForPreTraining``
checkpoint; ``AutoModel`` loads its ``FlavaModel`` part).

Images and texts go through the model's own ``AutoProcessor``; embeddings are the projected
features the models' forward pass returns as ``image_embeds`` / ``text_embeds``, L2
normalised, so cosine scores are dot products (Hendriksen et al. read those fields from a
full forward pass with a dummy partner; ``get_*_features`` gives the same vectors without
it). Per model, as checked on tiny random models in ``tests/test_hf_dual_models.py``:

* ALIGN: image embeds are the EfficientNet's pooled output (no projection); its processor's
  defaults (``max_length=64``) truncate texts to 64 tokens.
* AltCLIP: XLM-R text tower, first (``<s>``) token projected; CLIP image tower.
* GroupViT: CLIP tokenizer and image processor; text pooled at the end-of-text token.
* FLAVA: ``get_*_features`` project every token (``pooler_output`` is (n, tokens, d) in
  transformers 5); the first (CLS) token is used, as ARO does (``[:, 0, :]``). Family
  ``hf_flava`` (`vlcomp.models.hf_flava`) gives the same embeddings plus FLAVA's ITM head.

Texts are padded to the batch's longest (padding is masked: same embedding as ARO's
``padding="max_length"`` up to rounding). Only ``pixel_values`` reach the image tower, so a
processor configured to return FLAVA's patch mask or codebook pixels changes nothing.
``max_chars`` truncates texts first (Hendriksen et al.: 330).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from vlcomp.models.hf_loading import load_pretrained
from vlcomp.models.pixel_loader import LoaderPixels, ProcessorPixels
from vlcomp.pins import SHORT_NAMES

# Papers' models by short name (ARO, Hendriksen et al.)
HUB_IDS = SHORT_NAMES


def _features(output: Any) -> torch.Tensor:
    """Projected features from ``get_*_features`` (a tensor, or an output whose
    ``pooler_output`` holds them in transformers 5); per-token features → the first token."""
    if not isinstance(output, torch.Tensor):
        output = output.pooler_output
    return output[:, 0, :] if output.ndim == 3 else output


class HFDualEncoderScorer(LoaderPixels):
    """The `Scorer` interface over ``AutoModel`` + ``AutoProcessor`` (loaded lazily)."""

    shuffles_pixels = True  # shuffles tagged pictures after preprocessing (tensor_shuffle)

    def __init__(self, name: str, entry: dict[str, Any], device: str = "cpu") -> None:
        model = entry.get("model")
        if not model:
            raise ValueError(f"model {name!r}: family hf_dual needs 'model' (a hub id or folder)")
        self.name, self.device = name, device
        self.model_id = HUB_IDS.get(model, model)
        self.revision = entry.get("revision")
        self.max_chars = entry.get("max_chars")
        self._model = self._processor = None

    def _load(self) -> None:
        if self._model is None:
            from transformers import AutoModel, AutoProcessor

            self._processor, self._model = load_pretrained(
                AutoModel, AutoProcessor, self.model_id, self.revision, self.device)

    def vision_tower(self) -> torch.nn.Module:
        """The image encoder (``vision_model``, or FLAVA's ``image_model``)."""
        self._load()
        tower = getattr(self._model, "vision_model", None)
        return tower if tower is not None else self._model.image_model

    def _embed(self, batches, encode) -> np.ndarray:
        out = []
        with torch.inference_mode():
            for batch in batches:
                out.append(F.normalize(_features(encode(batch)).float(), dim=-1).cpu().numpy())
        return np.concatenate(out).astype(np.float32) if out else np.zeros((0, 0), np.float32)

    def _image_transform(self) -> ProcessorPixels:
        return ProcessorPixels(self._processor.image_processor)

    def _embed_pixel_batch(self, pixels: torch.Tensor) -> np.ndarray:
        """The first token of ``get_image_features``, normalised."""
        features = _features(self._model.get_image_features(pixel_values=pixels))
        return F.normalize(features.float(), dim=-1).cpu().numpy()

    def embed_images(self, images: Sequence[Image.Image], batch_size: int = 256) -> np.ndarray:
        return LoaderPixels.embed_images(self, images, batch_size)

    def _cut(self, texts: Sequence[str]) -> list[str]:
        """Texts cut to ``max_chars`` (when set)."""
        return [t[: self.max_chars] if self.max_chars else t for t in texts]

    def _text_inputs(self, texts: Sequence[str]) -> Any:
        """The processor's text inputs of a batch, padded to its longest, on the device."""
        return self._processor(text=list(texts), padding=True, truncation=True,
                               return_tensors="pt").to(self.device)

    def embed_texts(self, texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
        self._load()
        texts = self._cut(texts)

        def encode(batch):
            return self._model.get_text_features(**self._text_inputs(batch))

        # padding is masked, so a text's embedding depends on its batch only up to rounding
        return self._embed((texts[s : s + batch_size] for s in range(0, len(texts), batch_size)),
                           encode)
