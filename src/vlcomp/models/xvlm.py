"""X-VLM (Zeng et al. 2022) as ARO evaluates it: ITC embeddings and ITM + ITC pair scores.

Registry entry ``{family: xvlm, path: <checkpoint .pth>, config: <retrieval YAML>,
vision_config, text_config, tokenizer, tokenizer_revision, max_length, weights_only}``:
``path`` is X-VLM's original retrieval checkpoint (ARO: the COCO or Flickr30k fine-tune of
X-VLM-base, Google Drive), ``config`` the YAML that came with it; ``vision_config`` /
``text_config`` (X-VLM's ``config_swinB_384.json`` / ``config_bert.json`` at commit e7b96025)
default to the files the YAML names, looked up beside it (`read_xvlm_config`).

As ARO's ``model_zoo/xvlm_models.py`` (X-VLM's own ``Retrieval.py`` evaluation):

* images: resized to ``image_res`` x ``image_res`` (384) bicubic, CLIP's mean / std;
* texts: the ``bert-base-uncased`` tokenizer, padded to ``max_length`` = the YAML's
  ``max_tokens`` (40) and truncated there; the ITM pass keeps ``[CLS]`` first;
* ITC: ``vision_proj`` of the image's mean token and ``text_proj`` of the text's ``[CLS]``
  state after the text-only layers, L2-normalised;
* pair scores (``kind``): ``itm_logit`` (``itm_head``'s match logit over the fusion layers),
  ``itm_prob`` (its softmax), ``itm_plus_itc`` (ARO's score: match logit + ITC cosine).

The vision tower runs once per distinct image object of a call (`vision_reuse`); the
states API (``image_states`` / ``score_pairs_given_states`` / ``embed_image_states``) lets
`vlcomp.score.pair_plan` share one vision pass between pair scores and embeddings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from PIL import Image

from vlcomp.image.tensor_shuffle import Shuffling
from vlcomp.models.hub import pretrained_source
from vlcomp.models.pixel_loader import AsRGB, LoaderPixels
from vlcomp.models.vision_reuse import DistinctImagePairs
from vlcomp.models.xvlm_convert import load_xvlm
from vlcomp.pins import XVLM_TOKENIZER

PAIR_SCORES = ("itm_logit", "itm_prob", "itm_plus_itc")
DEFAULT_TOKENIZER = XVLM_TOKENIZER  # ARO: BertTokenizer.from_pretrained("bert-base-uncased")
CLIP_MEAN = (0.48145466, 0.4578275, 0.40821073)
CLIP_STD = (0.26862954, 0.26130258, 0.27577711)


def image_transform(image_res: int) -> Any:
    """X-VLM's test transform (ARO's too): bicubic resize to a square, tensor, CLIP norm."""
    from torchvision import transforms

    return transforms.Compose([
        transforms.Resize((image_res, image_res),
                          interpolation=transforms.InterpolationMode.BICUBIC),
        transforms.ToTensor(),
        transforms.Normalize(CLIP_MEAN, CLIP_STD)])



class XVLMScorer(LoaderPixels, DistinctImagePairs):
    """ITC embeddings and ITM pair scores of an X-VLM retrieval checkpoint (lazy loading)."""

    shuffles_pixels = True  # shuffles tagged pictures after preprocessing (tensor_shuffle)

    pair_kinds = PAIR_SCORES

    def __init__(self, name: str, entry: dict[str, Any], device: str = "cpu") -> None:
        self.name, self.device = name, device
        missing = [k for k in ("path", "config") if not entry.get(k)]
        if missing:
            raise ValueError(f"model {name!r}: family xvlm needs {missing} (the original "
                             "checkpoint and its retrieval YAML)")
        self.path, self.config = str(entry["path"]), entry["config"]
        self.vision_config = entry.get("vision_config")
        self.text_config = entry.get("text_config")
        self.tokenizer_id = str(entry.get("tokenizer", DEFAULT_TOKENIZER))
        self.tokenizer_revision = entry.get("tokenizer_revision")
        self.weights_only = bool(entry.get("weights_only", True))
        self._max_length = entry.get("max_length")
        self._model: Any = None
        self._tokenizer: Any = None
        self._transform: Any = None

    def _load(self) -> None:
        if self._model is None:
            from transformers import AutoTokenizer

            model = load_xvlm(self.path, self.config, self.device,
                              vision_config=self.vision_config, text_config=self.text_config,
                              weights_only=self.weights_only)
            source, revision = pretrained_source(self.tokenizer_id, self.tokenizer_revision)
            self._tokenizer = AutoTokenizer.from_pretrained(source, revision=revision)
            self._transform = image_transform(model.config.image_res)
            self._model = model

    @property
    def model(self) -> Any:
        """The loaded `XVLM` module."""
        self._load()
        return self._model

    @property
    def max_length(self) -> int:
        """Text tokens: the entry's ``max_length``, else the YAML's ``max_tokens``."""
        return int(self._max_length or self.model.config.max_tokens)

    @property
    def embed_dim(self) -> int:
        return int(self.model.config.embed_dim)

    def vision_tower(self) -> torch.nn.Module:
        """The Swin image encoder (counted by `vlcomp.models.vision_count`)."""
        return self.model.vision_encoder

    def _pixels(self, images: Sequence[Image.Image]) -> torch.Tensor:
        return torch.stack([Shuffling(self._transform)(im.convert("RGB"))
                            for im in images]).to(
            self.device)

    def _tokens(self, texts: Sequence[str]) -> Any:
        return self._tokenizer(list(texts), padding="max_length", truncation=True,
                               max_length=self.max_length, return_tensors="pt").to(self.device)

    def _empty(self) -> np.ndarray:
        return np.zeros((0, self.embed_dim), dtype=np.float32)

    def _vision_states(self, batch: Sequence[Image.Image]) -> torch.Tensor:
        return self._model.image_states(self._pixels(batch))

    def _image_transform(self) -> AsRGB:
        return AsRGB(self._transform)

    def _embed_pixel_batch(self, pixels: torch.Tensor) -> np.ndarray:
        """Unit ITC image embeddings of a preprocessed batch."""
        return self._model.image_features(self._model.image_states(pixels)).float().cpu().numpy()

    def embed_images(self, images: Sequence[Image.Image], batch_size: int = 64) -> np.ndarray:
        """Unit ITC image embeddings, (n, embed_dim) float32, in order."""
        self._load()
        if len(images) == 0:
            return self._empty()
        return LoaderPixels.embed_images(self, images, batch_size)

    def embed_texts(self, texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
        """Unit ITC text embeddings, (n, embed_dim) float32, in order."""
        self._load()
        if len(texts) == 0:
            return self._empty()
        out = []
        with torch.inference_mode():
            for s in range(0, len(texts), batch_size):
                tokens = self._tokens(texts[s : s + batch_size])
                states = self._model.text_states(tokens.input_ids, tokens.attention_mask)
                out.append(self._model.text_features(states))
        return torch.cat(out).float().cpu().numpy()

    def embed_image_states(self, states: torch.Tensor) -> np.ndarray:
        """ITC image embeddings from vision states: equal to `embed_images` of the images."""
        self._load()
        with torch.inference_mode():
            return self._model.image_features(states.to(self.device)).float().cpu().numpy()

    def score_pairs_given_states(self, states: torch.Tensor, index: torch.Tensor,
                                 texts: Sequence[str], kind: str = "itm_logit",
                                 batch_size: int = 64) -> np.ndarray:
        """The ``kind`` score of texts[k] against the image with vision states
        ``states[index[k]]``, for every k (float64)."""
        kind = self.check_pair_kind(kind)
        if len(index) != len(texts):
            raise ValueError(f"{len(index)} image indices but {len(texts)} texts")
        self._load()
        model, out = self._model, []
        with torch.inference_mode():
            for s in range(0, len(texts), batch_size):
                tokens = self._tokens(texts[s : s + batch_size])
                image = states[index[s : s + batch_size]].to(self.device)
                text = model.text_states(tokens.input_ids, tokens.attention_mask)
                logits = model.itm_logits(text, tokens.attention_mask, image)
                score = logits.softmax(dim=-1)[:, 1] if kind == "itm_prob" else logits[:, 1]
                if kind == "itm_plus_itc":
                    cosine = (model.image_features(image) * model.text_features(text)).sum(-1)
                    score = score + cosine
                out.append(score.float().cpu())
        return torch.cat(out).numpy().astype(np.float64) if out else np.zeros(0)
