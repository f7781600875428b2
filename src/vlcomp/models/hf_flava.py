"""FLAVA as ARO runs it: unimodal cosine embeddings, and ITM pair scores from the same model.

Registry entry ``{family: hf_flava, model: facebook/flava-full, revision, max_chars,
max_length: 77, pair_score: itm_prob|itm_logit|none, pair_benchmarks: [...]}``. The
checkpoint is loaded as ``FlavaForPreTraining`` (its ``flava`` part is the ``FlavaModel``
family ``hf_dual`` loads; the ITM head sits beside it).

* Embeddings: as family ``hf_dual`` (this class extends `HFDualEncoderScorer`): the first
  token of ``get_*_features``, L2 normalised, as ARO's ``model_zoo/flava.py`` embeds texts and
  images for retrieval.
* ITM (``pair_score``): ARO scores VG-Relation, VG-Attribution and the Order sets with
  ``softmax(itm_logits)[:, 1]`` of ``FlavaForPreTraining`` run on (image, text), with
  ``input_ids_masked`` = the ids and an all-zero patch mask, so nothing is masked. That
  forward reduces to: the image and text encoders' last hidden states *before* their final
  layer norm, each projected to the multimodal width (``image_to_mm_projection``,
  ``text_to_mm_projection``), concatenated, through the multimodal encoder (text padding
  masked, image tokens and its CLS token always attended), whose CLS state goes through
  ``itm_head``. `score_pairs_given_states` computes exactly that; ``itm_prob`` is ARO's
  score, ``itm_logit`` the match logit.
* Vision states (`image_states`): the image encoder's pre-norm last hidden states, one pass
  per distinct picture; they serve every text scored against it (ARO's forward encodes the
  image twice per pair) and the unimodal image embedding (final layer norm, then
  ``image_projection`` of the CLS state), as `vlcomp.score.pair_plan` uses them.
* Texts: ARO pads to ``max_length=77`` without truncation; here each batch is padded to its
  longest (padding is masked: equal up to rounding) and cut at ``max_length`` (default 77,
  FLAVA's text positions), after ``max_chars``, for embeddings and ITM alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from vlcomp.image.tensor_shuffle import shuffled_pixels
from vlcomp.models.hf_dual_encoder import HFDualEncoderScorer
from vlcomp.models.hf_loading import load_pretrained
from vlcomp.models.vision_reuse import DistinctImagePairs

DEFAULT_MODEL = "facebook/flava-full"
PAIR_SCORES = ("itm_prob", "itm_logit")


class FlavaScorer(DistinctImagePairs, HFDualEncoderScorer):
    """FLAVA's unimodal embeddings and ITM pair scores (``FlavaForPreTraining``, lazy)."""

    pair_kinds = PAIR_SCORES

    def __init__(self, name: str, entry: dict[str, Any], device: str = "cpu") -> None:
        super().__init__(name, {"model": DEFAULT_MODEL, **entry}, device)
        self.max_length = int(entry.get("max_length", 77))  # ARO's FLAVA text length
        self._pretraining: Any = None

    def _load(self) -> None:
        if self._model is None:
            from transformers import AutoProcessor, FlavaForPreTraining

            self._processor, self._pretraining = load_pretrained(
                FlavaForPreTraining, AutoProcessor, self.model_id, self.revision, self.device)
            self._model = self._pretraining.flava

    def vision_tower(self) -> torch.nn.Module:
        """FLAVA's image encoder (counted by `vlcomp.models.vision_count`)."""
        self._load()
        return self._model.image_model

    def _text_inputs(self, texts: Sequence[str]) -> Any:
        return self._processor(text=list(texts), padding=True, truncation=True,
                               max_length=self.max_length, return_tensors="pt").to(self.device)

    def _vision_states(self, batch: Sequence[Image.Image]) -> torch.Tensor:
        pixels = shuffled_pixels(
            self._processor(images=list(batch), return_tensors="pt").pixel_values, batch)
        out = self._model.image_model(pixel_values=pixels.to(self.device),
                                      output_hidden_states=True)
        return out.hidden_states[-1]  # before the final layer norm (FlavaModel's mm input)

    def embed_image_states(self, states: torch.Tensor) -> np.ndarray:
        """Unimodal image embeddings from vision states: equal to `embed_images`."""
        self._load()
        image = self._model.image_model
        with torch.inference_mode():
            features = self._model.image_projection(image.layernorm(states[:, 0, :]))
            return F.normalize(features.float(), dim=-1).cpu().numpy()

    def score_pairs_given_states(
        self, states: torch.Tensor, index: torch.Tensor, texts: Sequence[str],
        kind: str = "itm_prob", batch_size: int = 64,
    ) -> np.ndarray:
        """The ``kind`` score of texts[k] against the picture whose vision states are
        ``states[index[k]]``, for every k."""
        kind = self.check_pair_kind(kind)
        self._load()
        flava, out = self._model, []
        texts = self._cut(texts)
        with torch.inference_mode():
            image_mm = flava.image_to_mm_projection(states)
            for s in range(0, len(texts), batch_size):
                tokens = self._text_inputs(texts[s : s + batch_size])
                text = flava.text_model(**tokens, output_hidden_states=True).hidden_states[-1]
                logits = self._itm_logits(image_mm[index[s : s + batch_size]],
                                          flava.text_to_mm_projection(text),
                                          tokens.attention_mask)
                score = logits.softmax(dim=-1)[:, 1] if kind == "itm_prob" else logits[:, 1]
                out.append(score.float().cpu())
        return torch.cat(out).numpy().astype(np.float64) if out else np.zeros(0)

    def _itm_logits(self, image_mm: torch.Tensor, text_mm: torch.Tensor,
                    text_mask: torch.Tensor) -> torch.Tensor:
        """ITM logits (n, 2) of projected image and text states, as FlavaModel joins them."""
        flava = self._model
        fixed = image_mm.shape[1] + int(flava.multimodal_model.use_cls_token)
        mask = torch.cat([text_mask.new_ones(len(text_mask), fixed), text_mask], dim=1)
        joint = flava.multimodal_model(torch.cat([image_mm, text_mm], dim=1),
                                       attention_mask=mask).last_hidden_state
        return self._pretraining.itm_head(joint)

