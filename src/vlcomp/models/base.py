"""The `Scorer` interface and a generic dual-encoder implementation of it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from vlcomp.image.tensor_shuffle import Shuffling
from vlcomp.models.text_trim import encode_text
from vlcomp.models.world_clip import image_layout

ImageTransform = Callable[[Image.Image], torch.Tensor]
TextTokenizer = Callable[[list[str]], torch.Tensor]


@runtime_checkable
class Scorer(Protocol):
    """A dual encoder: L2-normalised float32 embeddings, so cosine scores are dot products."""

    name: str
    device: str

    def embed_images(self, images: Sequence[Image.Image], batch_size: int = 256) -> np.ndarray:
        """Embed images in order; returns an (n, d) float32 array with unit-norm rows."""
        ...

    def embed_texts(self, texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
        """Embed texts in order; returns an (n, d) float32 array with unit-norm rows."""
        ...


def _batches(n: int, batch_size: int) -> range:
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    return range(0, n, batch_size)


def _normalise(features: torch.Tensor) -> np.ndarray:
    return F.normalize(features.float(), dim=-1).cpu().numpy().astype(np.float32, copy=False)


class DualEncoderScorer:
    """Scorer over any model with `encode_image` / `encode_text` (open_clip CLIP and friends)."""

    shuffles_pixels = True  # shuffles tagged pictures after preprocessing (tensor_shuffle)

    def __init__(
        self,
        name: str,
        model: Any,
        preprocess: ImageTransform,
        tokenizer: TextTokenizer,
        embed_dim: int,
        device: str = "cpu",
    ) -> None:
        self.name = name
        self.device = device
        self.layout = image_layout(model)
        self.model = model.to(device).to(memory_format=self.layout).eval()
        self.preprocess = preprocess
        self.tokenizer = tokenizer
        self.embed_dim = embed_dim
        self._dtype = next(self.model.parameters()).dtype

    def vision_tower(self) -> torch.nn.Module:
        """The image encoder (counted by `vlcomp.models.vision_count`)."""
        return self.model.visual

    @property
    def pixel_transform(self) -> ImageTransform:
        """What a loader's workers apply to each picture: the model's own transform, then
        ARO's shuffle of the preprocessed tensor where the picture is tagged with one."""
        return Shuffling(self.preprocess)

    def _empty(self) -> np.ndarray:
        return np.zeros((0, self.embed_dim), dtype=np.float32)

    def embed_images(self, images: Sequence[Image.Image], batch_size: int = 256) -> np.ndarray:
        """Preprocess with the model's own transform and encode, batch by batch in order."""
        if len(images) == 0:
            return self._empty()
        return np.concatenate([
            self.embed_pixels(torch.stack([self.pixel_transform(im) for im in
                                           images[start : start + batch_size]]))
            for start in _batches(len(images), batch_size)])

    def image_batches(self, dataset: Any, batch_size: int, workers: int = 0) -> Any:
        """Batches of ``dataset`` (preprocessed images, in order), decoded by ``workers``
        processes while the model encodes (0: in this process)."""
        from torch.utils.data import DataLoader

        return DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=workers,
                          pin_memory=str(self.device).startswith("cuda"))

    def embed_pixels(self, pixels: torch.Tensor) -> np.ndarray:
        """Encode one batch of preprocessed images (e.g. from a `DataLoader` whose workers
        decode and transform the files with `preprocess`)."""
        pixels = pixels.to(self.device, dtype=self._dtype, non_blocking=True)
        with torch.inference_mode():
            features = self.model.encode_image(pixels.contiguous(memory_format=self.layout))
        return _normalise(features)

    def embed_texts(self, texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
        """Tokenise with the model's tokenizer and encode in batches of equal token length.

        Each batch runs only up to its texts' length (`vlcomp.models.text_trim`), and a short
        batch is padded with copies of its first row to ``batch_size`` rows: every text is
        then encoded in a tensor of the same shape whatever else is embedded, so its
        embedding does not depend on the other texts (bitwise on CPU; matrix kernels can
        round differently for different row counts). Rows come back in input order.
        """
        if len(texts) == 0:
            return self._empty()
        tokens = self.tokenizer(list(texts))
        lengths = (tokens != 0).sum(dim=1)
        out = torch.empty(len(texts), self.embed_dim, dtype=torch.float32)
        with torch.inference_mode():
            for length in torch.unique(lengths).tolist():
                same = torch.nonzero(lengths == length).flatten()
                for start in _batches(len(same), batch_size):
                    rows = same[start : start + batch_size]
                    batch = tokens[rows]
                    if len(rows) < batch_size:
                        batch = torch.cat([batch, batch[:1].expand(batch_size - len(rows), -1)])
                    features = encode_text(self.model, batch.to(self.device))[: len(rows)]
                    out[rows] = F.normalize(features.float(), dim=-1).cpu()
        return out.numpy()
