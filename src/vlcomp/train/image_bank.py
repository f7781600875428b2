"""Training images that stay on disk: decoded and transformed when a batch asks for them.

The synthetic world's images fit in memory as one tensor; COCO's 113k training images do
not. `FileImages` stands in for that tensor in `vlcomp.train.clip_trainer.train_clip`: it is
indexed by a LongTensor of rows (or a slice) and returns the stacked, transformed pixels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import torch
from PIL import Image

from vlcomp.io import open_rgb

Transform = Callable[[Image.Image], torch.Tensor]


def _rows(index: torch.Tensor | slice | Sequence[int], n: int) -> list[int]:
    if isinstance(index, slice):
        return list(range(n))[index]
    if isinstance(index, torch.Tensor):
        return [int(i) for i in index.reshape(-1).tolist()]
    return [int(i) for i in index]


class FileImages:
    """Images at ``paths``, each opened, converted to RGB and passed through ``transform``
    when indexed; ``workers`` threads decode a batch (PIL releases the GIL)."""

    def __init__(self, paths: Sequence[str], transform: Transform, workers: int = 4) -> None:
        self.paths = [str(p) for p in paths]
        self.transform = transform
        self.workers = max(1, workers)

    def __len__(self) -> int:
        return len(self.paths)

    def _load(self, row: int) -> torch.Tensor:
        return self.transform(open_rgb(self.paths[row]))

    def __getitem__(self, index: torch.Tensor | slice | Sequence[int]) -> torch.Tensor:
        rows = _rows(index, len(self))
        if len(rows) <= 1 or self.workers == 1:
            return torch.stack([self._load(r) for r in rows])
        with ThreadPoolExecutor(self.workers) as pool:
            return torch.stack(list(pool.map(self._load, rows)))


class ConcatImages:
    """Two image banks (tensors or `FileImages`) as one, rows of ``first`` coming first."""

    def __init__(self, first, second) -> None:
        self.first, self.second = first, second

    def __len__(self) -> int:
        return len(self.first) + len(self.second)

    def __getitem__(self, index: torch.Tensor | slice | Sequence[int]) -> torch.Tensor:
        rows = torch.tensor(_rows(index, len(self)), dtype=torch.long)
        split = len(self.first)
        out: list[torch.Tensor | None] = [None] * len(rows)
        low, high = rows < split, rows >= split
        for mask, bank, offset in ((low, self.first, 0), (high, self.second, split)):
            picked = torch.nonzero(mask).reshape(-1)
            if len(picked):
                pixels = bank[rows[picked] - offset]
                for k, p in zip(picked.tolist(), pixels, strict=True):
                    out[k] = p
        return torch.stack(out)  # type: ignore[arg-type]


def as_pixels(images) -> torch.Tensor | FileImages | ConcatImages:
    """A uint8 (N, H, W, 3) array becomes the normalised tensor; banks pass through."""
    from vlcomp.models.world_clip import images_to_tensor

    if isinstance(images, FileImages | ConcatImages):
        return images
    return images_to_tensor(images)


def concat_pixels(first, second):
    """Rows of ``first`` then ``second``, as a tensor when both are tensors."""
    if isinstance(first, torch.Tensor) and isinstance(second, torch.Tensor):
        return torch.cat([first, second])
    return ConcatImages(first, second)
