"""BiVLC's best-epoch rule (``src/CLIP_fine_tuning/CLIP_fine_tuning.py``).

After each epoch BiVLC walks the validation rows in order, in batches of the training batch
size (the last one shorter), builds each batch as in training and takes argmax accuracies
of its logits against ``arange``: I→T over the rows of ``logits_im``, T→I over the rows of
``logits_text`` (for TROHN-Text only its first B rows, the positive captions). The epoch's
score is the mean over batches of ``(I→T + T→I) / 2``; the best score is kept.

* ``clip``: B images × B captions.
* ``trohn_text``: B images × ``[T; N]`` (2B captions); T→I over the B positives.
* ``trohn_img``: ``[I; I_neg]`` × ``[T; N]`` (2B × 2B), both directions over all 2B rows.

Features are computed once per distinct image and text of a chunk of batches (an encoder's
output does not depend on its batch), then gathered per batch. The logit scale and softmax
do not change an argmax, so cosine similarities stand in for BiVLC's logits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch

from vlcomp.models.text_trim import encode_text
from vlcomp.models.world_clip import image_layout

COLUMNS = ["val_i2t_acc", "val_t2i_acc", "val_mean_acc"]
KEY = "val_mean_acc"


@dataclass
class ValRows:
    """Validation rows in order: each row's image (a row of ``images``: uint8 pixels or
    paths), caption and, for TROHN objectives, negative caption (and negative image row)."""

    images: np.ndarray
    image_rows: np.ndarray
    captions: list[str]
    negatives: list[str] | None = None
    negative_image_rows: np.ndarray | None = None


def rows_of_split(images: np.ndarray, captions: Sequence[Sequence[str]]) -> ValRows:
    """Every caption of every image (objective clip), in order."""
    rows = np.array([k for k, caps in enumerate(captions) for _ in caps], dtype=np.int64)
    return ValRows(images, rows, [str(t) for caps in captions for t in caps])


def rows_of_instances(table: pd.DataFrame, read_images: bool = True) -> ValRows:
    """Rows of an instances table (``path, caption`` [``, negative`` [``, negative_path``]])."""
    from vlcomp.train.data import load_images

    paths = table.path.astype(str).tolist()
    negative_paths = table.negative_path.astype(str).tolist() if "negative_path" in table else []
    unique, inverse = np.unique(np.asarray(paths + negative_paths, dtype=object),
                                return_inverse=True)
    images = load_images(list(unique)) if read_images else unique
    return ValRows(
        images=images, image_rows=inverse[:len(paths)].astype(np.int64),
        captions=table.caption.astype(str).tolist(),
        negatives=table.negative.astype(str).tolist() if "negative" in table else None,
        negative_image_rows=inverse[len(paths):].astype(np.int64) if negative_paths else None,
    )


def batch_accuracy(image_features: torch.Tensor, text_features: torch.Tensor
                   ) -> tuple[float, float]:
    """(I→T, T→I) argmax accuracy of one batch: image i matches text i; texts beyond the
    images (TROHN-Text's negatives) are extra I→T columns and have no T→I row."""
    logits = image_features.float() @ text_features.float().T
    n = logits.shape[0]
    target = torch.arange(n, device=logits.device)
    i2t = (logits.argmax(dim=1) == target).float().mean().item()
    t2i = (logits[:, :n].T.argmax(dim=1) == target).float().mean().item()
    return i2t, t2i


@torch.inference_mode()
def _encode_images(model: Any, pixels: Any, rows: np.ndarray, batch_size: int) -> torch.Tensor:
    device = next(model.parameters()).device
    layout = image_layout(model)
    out = []
    for s in range(0, len(rows), batch_size):
        batch = pixels[torch.from_numpy(rows[s:s + batch_size])].to(device)
        out.append(model.encode_image(batch.contiguous(memory_format=layout), normalize=True))
    return torch.cat(out).float()


@torch.inference_mode()
def _encode_texts(model: Any, tokenizer: Any, texts: list[str], batch_size: int
                  ) -> torch.Tensor:
    device = next(model.parameters()).device
    return torch.cat([encode_text(model, tokenizer(texts[s:s + batch_size]).to(device),
                                  normalize=True)
                      for s in range(0, len(texts), batch_size)]).float()


def bivlc_accuracy(model: Any, rows: ValRows, pixels: Any, tokenizer: Any, objective: str,
                   batch_size: int, chunk_batches: int = 50) -> dict[str, float]:
    """BiVLC's validation accuracy of ``model`` (see the module); ``pixels`` is ``rows.images``
    as the trainer's pixel table (a tensor or `vlcomp.train.image_bank.FileImages`)."""
    if objective in ("trohn_text", "trohn_img") and rows.negatives is None:
        raise ValueError(f"objective {objective!r}: validation rows need negative captions")
    if objective == "trohn_img" and rows.negative_image_rows is None:
        raise ValueError("objective 'trohn_img': validation rows need negative images")
    model.eval()
    n, i2t, t2i = len(rows.captions), [], []
    step = batch_size * chunk_batches
    for start in range(0, n, step):
        stop = min(n, start + step)
        wanted = [rows.image_rows[start:stop]]
        texts = rows.captions[start:stop]
        if objective != "clip":
            texts = texts + rows.negatives[start:stop]  # type: ignore[operator]
        if objective == "trohn_img":
            wanted.append(rows.negative_image_rows[start:stop])  # type: ignore[index]
        unique, inverse = np.unique(np.concatenate(wanted), return_inverse=True)
        img = _encode_images(model, pixels, unique, batch_size)
        img = img[torch.from_numpy(inverse.reshape(-1).astype(np.int64))]
        names, text_rows = np.unique(np.asarray(texts, dtype=object), return_inverse=True)
        txt = _encode_texts(model, tokenizer, [str(t) for t in names], batch_size)
        txt = txt[torch.from_numpy(text_rows.reshape(-1).astype(np.int64))]
        m = stop - start
        for s in range(0, m, batch_size):
            b = torch.arange(s, min(m, s + batch_size))
            if objective == "clip":
                pair = (img[b], txt[b])
            elif objective == "trohn_text":
                pair = (img[b], txt[torch.cat([b, m + b])])
            else:
                both = torch.cat([b, m + b])
                pair = (img[both], txt[both])
            a, t = batch_accuracy(*pair)
            i2t.append(a)
            t2i.append(t)
    means = [(a + t) / 2 for a, t in zip(i2t, t2i, strict=True)]
    return {"val_i2t_acc": float(np.mean(i2t)), "val_t2i_acc": float(np.mean(t2i)),
            "val_mean_acc": float(np.mean(means))}
