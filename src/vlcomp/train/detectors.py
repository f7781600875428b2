"""Natural-vs-synthetic detectors on frozen encoders (BiVLC §5, "CLIP_Det").

A detector is one sigmoid neuron over a frozen embedding (image: the image embedding; text:
the text embedding), trained with binary cross-entropy on batches ``[B natural; B
synthetic]`` (label 0 = natural image / original caption, 1 = generated image / negative
caption). The reference trains with Adam at lr 1e-3, text for 10 epochs, images for 1, and
keeps the epoch with the best validation accuracy. Features here are the unit-norm
embeddings the scorers return (the reference feeds unnormalised ones; a linear head absorbs
the scale).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F


@dataclass
class DetectorConfig:
    epochs: int = 10
    batch_size: int = 200
    lr: float = 1e-3
    seed: int = 0


@dataclass
class Detector:
    """Weights of the sigmoid neuron and the training log (one row per epoch)."""

    weight: np.ndarray
    bias: float
    best_epoch: int
    log: list[dict[str, Any]] = field(default_factory=list)

    def probability(self, features: np.ndarray) -> np.ndarray:
        """P(synthetic) for each row of ``features``."""
        logits = np.asarray(features, dtype=np.float64) @ self.weight.astype(np.float64)
        return 1.0 / (1.0 + np.exp(-(logits + self.bias)))

    def to_dict(self) -> dict[str, Any]:
        return {"weight": self.weight.tolist(), "bias": self.bias,
                "best_epoch": self.best_epoch, "log": self.log}


def accuracy(p_natural: np.ndarray, p_synthetic: np.ndarray) -> float:
    """Accuracy (%) of ``p > 0.5`` on natural (label 0) and synthetic (label 1) rows.

    (The reference rounds with ``round``, which sends 0.5 to 0: the same rule.)
    """
    correct = (np.asarray(p_natural) <= 0.5).sum() + (np.asarray(p_synthetic) > 0.5).sum()
    return float(100.0 * correct / (len(p_natural) + len(p_synthetic)))


def train_detector(
    natural: np.ndarray, synthetic: np.ndarray, val_natural: np.ndarray,
    val_synthetic: np.ndarray, cfg: DetectorConfig,
) -> Detector:
    """Train on paired rows (``natural[i]`` and ``synthetic[i]`` form instance i)."""
    if len(natural) != len(synthetic) or len(natural) == 0:
        raise ValueError(f"need paired natural/synthetic rows, got {len(natural)} and "
                         f"{len(synthetic)}")
    generator = torch.Generator().manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    dim = natural.shape[1]
    head = torch.nn.Linear(dim, 1)
    with torch.no_grad():
        bound = 1 / np.sqrt(dim)
        head.weight.uniform_(-bound, bound, generator=generator)
        head.bias.uniform_(-bound, bound, generator=generator)
    optimizer = torch.optim.Adam(head.parameters(), lr=cfg.lr)
    nat, syn = torch.from_numpy(natural).float(), torch.from_numpy(synthetic).float()
    best: tuple[float, int, np.ndarray, float] | None = None
    log = []
    for epoch in range(1, cfg.epochs + 1):
        order = rng.permutation(len(nat))
        losses = []
        for start in range(0, len(order), cfg.batch_size):
            rows = torch.from_numpy(order[start : start + cfg.batch_size])
            x = torch.cat([nat[rows], syn[rows]])
            y = torch.cat([torch.zeros(len(rows)), torch.ones(len(rows))])
            loss = F.binary_cross_entropy_with_logits(head(x).squeeze(1), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        weight = head.weight.detach().numpy()[0].copy()
        bias = float(head.bias.detach().numpy()[0])
        current = Detector(weight, bias, epoch)
        val_acc = accuracy(current.probability(val_natural), current.probability(val_synthetic))
        log.append({"epoch": epoch, "loss": float(np.mean(losses)), "val_accuracy": val_acc})
        if best is None or val_acc > best[0]:
            best = (val_acc, epoch, weight, bias)
    assert best is not None
    return Detector(best[2], best[3], best[1], log)


def split_by_image(image_ids: np.ndarray, val_fraction: float, seed: int) -> np.ndarray:
    """Boolean mask of validation rows: a seeded share of the distinct natural images, so
    no image is on both sides."""
    if not 0 < val_fraction < 1:
        raise ValueError(f"val_fraction must be in (0, 1), got {val_fraction}")
    distinct = np.array(sorted(set(image_ids)))
    rng = np.random.default_rng(seed)
    n_val = max(1, round(val_fraction * len(distinct)))
    val = set(distinct[rng.permutation(len(distinct))[:n_val]])
    return np.array([i in val for i in image_ids])


def subsample(table, n: int, seed: int):
    """``n`` rows of ``table`` drawn without replacement (seeded), in their original order."""
    rows = np.sort(np.random.default_rng(seed).permutation(len(table))[:n])
    return table.iloc[rows].reset_index(drop=True)
