"""Deterministic contrastive training (pretraining or fine-tuning) of an open_clip CLIP."""

from __future__ import annotations

import csv
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from vlcomp.determinism import deterministic_torch
from vlcomp.io import atomic_path
from vlcomp.models.text_trim import encode_text
from vlcomp.models.world_clip import image_layout
from vlcomp.train.batches import BatchComposer, add_mirror_pairs, mirror_caption
from vlcomp.train.image_bank import FileImages, as_pixels, concat_pixels
from vlcomp.train.losses import hard_negative_text_loss
from vlcomp.train.training_state import (
    Checkpoint,
    EpochProgress,
    restore_training_state,
    save_training_state,
    segment_start_state,
    segment_steps,
    usable_resume_state,
)

Tokenizer = Callable[[list[str]], torch.Tensor]
MAX_LOGIT_SCALE = math.log(100)
LOG_COLUMNS = ["epoch", "train_loss", "lr", "samples_per_s", "seconds"]
VAL_COLUMNS = ["val_i2t_r1", "val_t2i_r1", "val_mean_r1"]
EPOCH_FILE = "epoch{epoch:03d}.pt"


@dataclass
class TrainConfig:
    """Optimisation settings for `train_clip`."""

    epochs: int = 10
    batch_size: int = 128
    lr: float = 5e-4
    weight_decay: float = 0.1
    warmup_steps: int = 100
    seed: int = 0
    threads: int = 2
    grad_clip: float | None = None
    objective: str = "clip"
    amp: bool = True
    selection: str = "val_mean_r1"  # the log column whose best epoch is kept
    mirror_pairs: float = 0.0  # share of left/right-captioned images joined by their mirror
    deterministic: str = "strict"  # vlcomp.determinism: strict | warn | off


@dataclass
class TrainResult:
    """Per-epoch log rows and the epoch whose weights the model holds at the end."""

    rows: list[dict[str, Any]]
    best_epoch: int
    finished: bool = True  # False: a segment that handed over to the next


def best_epoch(rows: Sequence[dict[str, Any]], key: str = "val_mean_r1") -> int:
    """The epoch with the highest ``key`` (the earliest on ties); the last without ``key``.

    0 when there are no rows (nothing trained). Mean val R@1 is BiVLC's selection rule, and
    the ARO paper picks NegCLIP's epoch by validation retrieval too.
    """
    if not rows:
        return 0
    if key not in rows[0]:
        return int(rows[-1]["epoch"])
    best = max(rows, key=lambda r: (r[key], -r["epoch"]))
    return int(best["epoch"])


def cosine_lr(step: int, total_steps: int, warmup_steps: int, base_lr: float) -> float:
    """Linear warmup to `base_lr`, then cosine decay to 0 at `total_steps`."""
    if step < warmup_steps:
        return base_lr * (step + 1) / warmup_steps
    span = max(1, total_steps - warmup_steps)
    return 0.5 * (1 + math.cos(math.pi * (step - warmup_steps) / span)) * base_lr


def _no_decay(name: str, param: torch.nn.Parameter) -> bool:
    return param.ndim < 2 or "bn" in name or "ln" in name or "bias" in name or "logit_scale" in name


def make_optimizer(model: torch.nn.Module, cfg: TrainConfig) -> torch.optim.AdamW:
    """AdamW as in open_clip: no weight decay for gains, biases, logit_scale and 1-d params.

    The fused kernel (one pass per tensor; ~30 % faster steps on CPU, where the world CLIP's
    49,408-row token table dominates the update) gives the same result up to float rounding.
    """
    named = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    groups = [
        {"params": [p for n, p in named if _no_decay(n, p)], "weight_decay": 0.0},
        {"params": [p for n, p in named if not _no_decay(n, p)], "weight_decay": cfg.weight_decay},
    ]
    return torch.optim.AdamW(groups, lr=cfg.lr, betas=(0.9, 0.98), eps=1e-6, fused=True)


def tokenize_captions(
    captions: Sequence[Sequence[str]], tokenizer: Tokenizer
) -> tuple[torch.Tensor, np.ndarray, np.ndarray]:
    """Tokenise all captions once; returns (tokens, first-row offset per image, count per image)."""
    counts = np.array([len(c) for c in captions], dtype=np.int64)
    if (counts < 1).any():
        raise ValueError("every image needs at least one caption")
    tokens = tokenizer([text for caps in captions for text in caps])
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return tokens, offsets, counts


def _cut_batches(order: np.ndarray, batch_size: int) -> list[np.ndarray]:
    """An epoch's batches: its permutation cut into ``batch_size`` blocks (a trailing block
    of one sample is dropped)."""
    batches = [order[s : s + batch_size] for s in range(0, len(order), batch_size)]
    return [b for b in batches if len(b) >= 2]


def _with_mirrors(
    pixels: Any, tokens: torch.Tensor, captions: Sequence[Sequence[str]], tokenizer: Tokenizer,
    objective: str,
) -> tuple[torch.Tensor, torch.Tensor, np.ndarray]:
    """The pixel table with every image's left-right mirror appended (row ``n + i``), the
    token table with each mirrorable caption's mirrored text appended, and per caption row
    its mirror's token row (-1: none)."""
    if objective != "clip":
        raise ValueError(f"mirror_pairs serves the clip objective (pretraining), not {objective!r}")
    if not isinstance(pixels, torch.Tensor):
        raise ValueError("mirror_pairs needs the training images in memory (the world)")
    flat = [text for caps in captions for text in caps]
    mirrored = [mirror_caption(text) for text in flat]
    have = [k for k, text in enumerate(mirrored) if text is not None]
    if not have:
        raise ValueError("mirror_pairs: no training caption names a left/right relation")
    rows = np.full(len(flat), -1, dtype=np.int64)
    rows[have] = len(flat) + np.arange(len(have))
    tokens = torch.cat([tokens, tokenizer([mirrored[k] for k in have])])
    return torch.cat([pixels, torch.flip(pixels, dims=[-1])]), tokens, rows


def steps_per_epoch(n: int, batch_size: int) -> int:
    """Number of optimisation steps per epoch (a trailing batch of one sample is dropped)."""
    return n // batch_size + int(n % batch_size >= 2)


@torch.inference_mode()
def retrieval_r1(
    model: Any, images: torch.Tensor, tokens: torch.Tensor, batch_size: int = 256
) -> dict[str, float]:
    """Image->text and text->image recall@1 for matched rows of `images` and `tokens`."""
    device = next(model.parameters()).device
    layout = image_layout(model)
    img = torch.cat(
        [
            model.encode_image(
                images[s : s + batch_size].to(device).contiguous(memory_format=layout),
                normalize=True,
            )
            for s in range(0, len(images), batch_size)
        ]
    )
    txt = torch.cat(
        [
            encode_text(model, tokens[s : s + batch_size].to(device), normalize=True)
            for s in range(0, len(tokens), batch_size)
        ]
    )
    sims = img.float() @ txt.float().T
    target = torch.arange(len(sims), device=sims.device)
    i2t = (sims.argmax(dim=1) == target).float().mean().item()
    t2i = (sims.argmax(dim=0) == target).float().mean().item()
    return {"val_i2t_r1": i2t, "val_t2i_r1": t2i, "val_mean_r1": (i2t + t2i) / 2}


def write_log_csv(path: str | os.PathLike, rows: list[dict[str, Any]], columns: list[str]) -> None:
    """Write the per-epoch log atomically (temp file in the same folder + rename)."""
    with atomic_path(path) as tmp, open(tmp, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


def _autocast(device: torch.device, enabled: bool):
    """bfloat16 autocast on CUDA (no loss scaling needed); a no-op elsewhere."""
    return torch.autocast("cuda", dtype=torch.bfloat16, enabled=enabled and device.type == "cuda")


def save_epoch_weights(epoch_dir: str | os.PathLike, epoch: int, model: Any) -> Path:
    """The model's state dict after ``epoch``, written atomically into ``epoch_dir``."""
    path = Path(epoch_dir) / EPOCH_FILE.format(epoch=epoch)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        torch.save({k: v.detach().cpu() for k, v in model.state_dict().items()}, tmp)
    return path


def train_clip(
    model: Any,
    images: np.ndarray | FileImages,
    captions: Sequence[Sequence[str]],
    tokenizer: Tokenizer,
    cfg: TrainConfig,
    val_images: np.ndarray | FileImages | None = None,
    val_captions: Sequence[Sequence[str]] | None = None,
    log_path: str | os.PathLike | None = None,
    resume_path: str | os.PathLike | None = None,
    negatives: Sequence[Sequence[Sequence[str]]] | None = None,
    neighbours: Sequence[Sequence[int]] | None = None,
    epoch_dir: str | os.PathLike | None = None,
    negative_images: Sequence[Sequence[Sequence[int]]] | None = None,
    generated_images: np.ndarray | None = None,
    validate: Callable[[Any], dict[str, float]] | None = None,
    segment: tuple[int, int] = (0, 1),
    start_state: str | os.PathLike | None = None,
    state_out: str | os.PathLike | None = None,
    origin: str | None = None,
    checkpoint_seconds: float | None = None,
) -> TrainResult:
    """Train `model` in place with the objective ``cfg.objective`` (see `vlcomp.train.batches`).

    ``images`` (and ``val_images``) are (N, H, W, 3) uint8 arrays held in memory (the world)
    or `FileImages` decoded batch by batch with the model's own transform (real datasets).

    ``negatives`` (per image, per caption, a list of negative captions) serve ``negclip`` and
    ``trohn_text``; ``neighbours`` (per image, row indices of its hard images) ``negclip``;
    ``generated_images`` (M, H, W, 3) and ``negative_images`` (per image, per caption, per
    negative: its row in ``generated_images``) ``trohn_img``. An epoch iterates over
    ``images``; generated images only enter as partners of their negative captions.

    After the last epoch the model holds the best epoch's weights (highest ``cfg.selection``
    column, the earliest on ties; see `best_epoch`); with `epoch_dir` each epoch's weights
    also go to ``epoch{n:03d}.pt`` there. ``validate`` (called with the model after each
    epoch, returning ``val_*`` columns) replaces validation R@1, e.g. BiVLC's accuracy
    (`vlcomp.train.bivlc_validation`).

    ``segment`` ``(index, count)`` trains only that block of the run's optimisation steps
    (`vlcomp.train.training_state.segment_steps`), starting from ``start_state`` (the state
    the previous segment wrote to its ``state_out``); a segment other than the last writes
    its end state to ``state_out`` and returns with ``finished`` False. With `resume_path`,
    the full state is written there after every epoch (and every ``checkpoint_seconds``
    inside one); a job that finds it there at the start (same configuration and ``origin``,
    a step inside its segment) continues from it. On CPU a run cut into segments, or killed
    and rerun, ends with the same weights as one unbroken run.

    Each epoch pairs every image with one of its captions, drawn (like the batch order and
    every hard example) by a numpy Generator seeded with `cfg.seed`. No augmentation, except
    ``cfg.mirror_pairs`` (``clip`` objective, images in memory): some images whose caption
    names a left/right relation meet their mirror image, captioned with left and right
    swapped, in the same batch (`vlcomp.train.batches.add_mirror_pairs`). Seed the model's
    initialisation yourself; with that, two CPU runs give identical weights. Validation (if
    given) uses the first caption of each image. On CUDA with ``cfg.amp`` the forward pass
    runs under bfloat16 autocast.
    """
    if len(images) != len(captions):
        raise ValueError(f"{len(images)} images but {len(captions)} caption lists")
    has_val = val_images is not None and val_captions is not None and validate is None
    columns = LOG_COLUMNS + (VAL_COLUMNS if has_val else [])
    index, count = segment
    with deterministic_torch(cfg.threads, cfg.deterministic):
        torch.manual_seed(cfg.seed)
        rng = np.random.default_rng(cfg.seed)
        device = next(model.parameters()).device
        layout = image_layout(model)
        model.to(memory_format=layout)
        pixels = as_pixels(images)
        if generated_images is not None and len(generated_images):
            pixels = concat_pixels(pixels, as_pixels(generated_images))
        tokens, offsets, counts = tokenize_captions(captions, tokenizer)
        mirror_rows = None
        if cfg.mirror_pairs > 0:
            pixels, tokens, mirror_rows = _with_mirrors(pixels, tokens, captions, tokenizer,
                                                        cfg.objective)
        composer = BatchComposer(cfg.objective, counts, tokenizer, negatives, neighbours,
                                 negative_images, n_images=len(images))
        if has_val:
            val_pixels = as_pixels(val_images)
            val_tokens = tokenizer([caps[0] for caps in val_captions])
        optimizer = make_optimizer(model, cfg)
        total = cfg.epochs * steps_per_epoch(len(images), cfg.batch_size)
        start_step, stop_step = segment_steps(total, segment)
        if index < count - 1 and state_out is None:
            raise ValueError(f"segment {index}-of-{count} needs a state_out to hand over")
        state = usable_resume_state(resume_path, cfg, origin, (start_step, stop_step)
                                    ) if resume_path is not None else None
        if state is None and start_state is not None:
            state = segment_start_state(start_state, cfg, start_step)
        if state is None and start_step > 0:
            raise ValueError(f"segment {index}-of-{count} starts at step {start_step}: it "
                             "needs the previous segment's state (start_state)")
        at = Checkpoint()
        if state is not None:
            at = restore_training_state(state, model, optimizer, rng)

        def save(path: str | os.PathLike) -> None:
            save_training_state(path, model, optimizer, rng, cfg, at, origin)

        lr = at.rows[-1]["lr"] if at.rows else cfg.lr
        last_save = time.perf_counter()
        for epoch in range(at.epoch + 1, cfg.epochs + 1):
            if at.progress is None:
                if at.step >= stop_step:
                    break  # the segment ends on an epoch boundary
                chosen = offsets + rng.integers(0, counts)
                at.progress = EpochProgress(epoch, chosen, rng.permutation(len(images)))
            progress = at.progress
            batches = _cut_batches(progress.order, cfg.batch_size)
            start = time.perf_counter()
            model.train()
            bar = tqdm(total=len(batches), initial=progress.next_batch,
                       desc=f"epoch {epoch}/{cfg.epochs}", file=sys.stderr, leave=False)
            for batch in batches[progress.next_batch:]:
                if at.step >= stop_step:
                    break
                lr = cosine_lr(at.step, total, cfg.warmup_steps, cfg.lr)
                for group in optimizer.param_groups:
                    group["lr"] = lr
                rows_ = composer.step(batch, progress.chosen, rng)
                if mirror_rows is not None:
                    rows_ = add_mirror_pairs(rows_, mirror_rows, len(images), cfg.mirror_pairs,
                                             rng)
                with _autocast(device, cfg.amp):
                    batch_pixels = pixels[torch.from_numpy(rows_.images)].to(device)
                    img_f = model.encode_image(
                        batch_pixels.contiguous(memory_format=layout), normalize=True
                    )
                    txt_f = encode_text(
                        model,
                        torch.cat([tokens[torch.from_numpy(rows_.texts)],
                                   composer.neg_tokens[torch.from_numpy(rows_.negatives)]]
                                  ).to(device),
                        normalize=True,
                    )
                # with no extra columns this is the symmetric CLIP loss (bitwise, tested)
                loss = hard_negative_text_loss(
                    img_f.float(), txt_f.float(), model.logit_scale.exp()
                )
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                if cfg.grad_clip:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
                optimizer.step()
                with torch.no_grad():
                    model.logit_scale.clamp_(0, MAX_LOGIT_SCALE)
                progress.losses.append(loss.item())
                progress.samples += len(batch)
                progress.next_batch += 1
                progress.lr = lr
                at.step += 1
                bar.update()
                bar.set_postfix(loss=f"{progress.losses[-1]:.3f}", refresh=False)
                if (resume_path is not None and checkpoint_seconds is not None
                        and time.perf_counter() - last_save >= checkpoint_seconds):
                    progress.seconds += time.perf_counter() - start
                    start = time.perf_counter()
                    save(resume_path)
                    last_save = time.perf_counter()
            bar.close()
            progress.seconds += time.perf_counter() - start
            if progress.next_batch < len(batches):
                break  # the segment ends inside this epoch
            row: dict[str, Any] = {
                "epoch": epoch,
                "train_loss": float(np.mean(progress.losses)) if progress.losses
                else float("nan"),
                "lr": progress.lr if progress.losses else lr,
                "samples_per_s": round(progress.samples / max(progress.seconds, 1e-9), 1),
            }
            start = time.perf_counter()
            if has_val:
                model.eval()
                row.update(retrieval_r1(model, val_pixels, val_tokens))
            elif validate is not None:
                model.eval()
                row.update(validate(model))
            row["seconds"] = round(progress.seconds + time.perf_counter() - start, 3)
            at.rows.append(row)
            at.epoch, at.progress = epoch, None
            if best_epoch(at.rows, cfg.selection) == epoch:
                at.best_epoch = epoch
                at.best_weights = {k: v.detach().cpu().clone()
                                   for k, v in model.state_dict().items()}
            if epoch_dir is not None:
                save_epoch_weights(epoch_dir, epoch, model)
            if resume_path is not None:
                save(resume_path)
                last_save = time.perf_counter()
        if index < count - 1:
            save(state_out)
            return TrainResult(rows=at.rows, best_epoch=at.best_epoch, finished=False)
    final_epoch = int(at.rows[-1]["epoch"]) if at.rows else 0
    if at.rows and at.best_epoch != final_epoch and at.best_weights is not None:
        model.load_state_dict(at.best_weights)
        final_epoch = at.best_epoch
    model.eval()
    if log_path is not None:
        extra = [k for k in (at.rows[0] if at.rows else {}) if k not in columns]
        write_log_csv(log_path, at.rows, columns + extra)
    return TrainResult(rows=at.rows, best_epoch=final_epoch)
