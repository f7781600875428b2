"""Pictures preprocessed where the model does not wait for them: in a `DataLoader`'s worker
processes (the job's CPUs), one picture at a time, while the model encodes the batch before.

A family mixes in `LoaderPixels` and gives ``_load()``, ``_image_transform()`` (a picklable
picture → ``C × H × W`` tensor: its processor's, `ProcessorPixels`, or its own transform)
and ``_embed_pixel_batch(pixels)`` (unit image embeddings of a preprocessed batch on the
device). `vlcomp.score.embeddings.embed_image_set` then reads its image sets through
`image_batches` with ``embed.workers`` processes, and ``embed_images`` of PIL pictures runs
the same transform and encoder in this process, so both give the same numbers.

On a GPU, a family whose transform is a transformers image processor (its torchvision
backend: BLIP, the ``hf_dual`` models, FLAVA) has its workers only decode each picture to a
``uint8`` tensor (`DecodedPicture`); the processor resizes and normalises the whole batch
on the device. On the CPU the two are bitwise equal (tests); on a GPU they differ by the
device's float rounding of the same resize. Decoding, not resizing, is then the workers'
load: a 384 px recipe costs a CPU core about 9 ms a picture, a JPEG's decoding 3-5 ms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from PIL import Image

from vlcomp.image.tensor_shuffle import Shuffling, shuffle_tensor, spec_of


class ProcessorPixels:
    """One picture through a transformers image processor (resize, rescale, normalise, as
    it does each picture of a batch) → its ``C × H × W`` float tensor."""

    def __init__(self, processor: Any) -> None:
        self.processor = processor

    def __call__(self, image: Image.Image) -> torch.Tensor:
        return self.processor(images=[image], return_tensors="pt").pixel_values[0]


class AsRGB:
    """A transform applied to the picture converted to RGB first."""

    def __init__(self, transform: Any) -> None:
        self.transform = transform

    def __call__(self, image: Image.Image) -> torch.Tensor:
        return self.transform(image.convert("RGB"))


class DecodedPicture:
    """A picture as its ``uint8`` ``C × H × W`` tensor and the shuffle it is tagged with
    (None: none): what workers hand a processor that runs on the device."""

    def __call__(self, image: Image.Image) -> tuple[torch.Tensor, Any]:
        array = np.asarray(image.convert("RGB"), dtype=np.uint8)
        return torch.from_numpy(array.copy()).permute(2, 0, 1), spec_of(image)


def as_list(batch: list) -> list:
    """A loader's batch of decoded pictures of different sizes, kept as a list."""
    return batch


class LoaderPixels:
    """Image embeddings from batches that `DataLoader` workers preprocess (module
    docstring)."""

    def _device_processor(self) -> Any:
        """The image processor that runs on the GPU, or None: on the CPU, or for a family
        whose transform is not a processor with transformers' torchvision backend."""
        if not str(self.device).startswith("cuda"):  # type: ignore[attr-defined]
            return None
        self._load()  # type: ignore[attr-defined]
        transform = self._image_transform()  # type: ignore[attr-defined]
        if not isinstance(transform, ProcessorPixels):
            return None
        torchvision = getattr(transform.processor, "backend", None) == "torchvision"
        return transform.processor if torchvision else None

    @property
    def pixel_transform(self) -> Shuffling | DecodedPicture:
        """What a loader's workers apply to each picture: the family's transform, then
        ARO's shuffle of the tensor where the picture is tagged with one; or, where the
        processor runs on the GPU, the decoding alone."""
        self._load()  # type: ignore[attr-defined]
        if self._device_processor() is not None:
            return DecodedPicture()
        return Shuffling(self._image_transform())  # type: ignore[attr-defined]

    def image_batches(self, dataset: Any, batch_size: int, workers: int = 0) -> Any:
        """Batches of ``dataset`` (preprocessed pictures, in order), made by ``workers``
        processes while the model encodes (0: in this process)."""
        from torch.utils.data import DataLoader

        on_device = self._device_processor() is not None
        return DataLoader(dataset, batch_size=batch_size, shuffle=False, num_workers=workers,
                          collate_fn=as_list if on_device else None,
                          pin_memory=str(self.device).startswith("cuda") and not on_device,  # type: ignore[attr-defined]
                          persistent_workers=False)

    def _processed_on_device(self, decoded: list[tuple[torch.Tensor, Any]]) -> torch.Tensor:
        """A batch of decoded pictures resized and normalised by the processor on the
        device, each tagged picture's rows then shuffled."""
        processor = self._device_processor()
        pixels = processor(images=[picture for picture, _ in decoded], return_tensors="pt",
                           device=self.device).pixel_values  # type: ignore[attr-defined]
        if not any(spec for _, spec in decoded):
            return pixels
        return torch.stack([shuffle_tensor(row, spec) if spec else row
                            for row, (_, spec) in zip(pixels, decoded, strict=True)])

    def embed_pixels(self, pixels: torch.Tensor | list) -> np.ndarray:
        """Unit image embeddings, float32, of one preprocessed batch (or, where the
        processor runs on the GPU, of one batch of decoded pictures)."""
        self._load()  # type: ignore[attr-defined]
        with torch.inference_mode():
            if isinstance(pixels, list):
                pixels = self._processed_on_device(pixels)
            out = self._embed_pixel_batch(  # type: ignore[attr-defined]
                pixels.to(self.device, non_blocking=True))  # type: ignore[attr-defined]
        return np.asarray(out, dtype=np.float32)

    def embed_images(self, images: Sequence[Image.Image], batch_size: int = 64) -> np.ndarray:
        """Unit image embeddings of PIL pictures, in order: the loader's transform and
        encoder, in this process."""
        transform = self.pixel_transform
        on_device = isinstance(transform, DecodedPicture)
        parts = []
        for s in range(0, len(images), batch_size):
            items = [transform(im) for im in images[s : s + batch_size]]
            parts.append(self.embed_pixels(items if on_device else torch.stack(items)))
        return np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)
