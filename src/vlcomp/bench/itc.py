"""ITC scoring throughput: vlcomp's cached, batched path against faithful re-implementations
of the reference evaluation loops, on the same model, items, images and threads.

* ``sugarcrepe``: SugarCrepe's ``main_eval.py`` — per item, the image and then each caption
  encoded alone (batch 1, full context length), no cache.
* ``aro``: ARO's ``get_retrieval_scores_batched`` — batches of 32 items; each batch's images
  encoded, then each caption option position (full context), no cache across batches.
* ``vlcomp``: each distinct image of the items encoded once (`embed_image_set`), each
  distinct text once (`embed_texts`: batched, trimmed to its length), then one matrix
  product per item shape (`score_items`).

All three return the same S[image, text] per item (checked: max |Δ| and argmax agreement).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from vlcomp.io import read_parquet
from vlcomp.models.base import DualEncoderScorer
from vlcomp.score.embeddings import embed_image_set, embed_texts, open_image, unique_texts
from vlcomp.score.matrices import score_items
from vlcomp.score.pairs import ImageRef, image_index

ARO_BATCH = 32  # ARO's --batch-size default


@dataclass
class ClipParts:
    """A dual encoder as the reference code holds it: model, image transform, tokenizer."""

    name: str
    model: Any
    preprocess: Callable
    tokenizer: Callable
    embed_dim: int

    def scorer(self) -> DualEncoderScorer:
        """vlcomp's scorer over a copy of the model (it may switch the copy's memory layout;
        the reference loops keep the model as the reference code holds it)."""
        return DualEncoderScorer(self.name, copy.deepcopy(self.model), self.preprocess,
                                 self.tokenizer, self.embed_dim)


def world_clip_parts(checkpoint: str | Path) -> ClipParts:
    """The world CLIP of a DAG run (a `vlcomp-clip-v1` checkpoint)."""
    from vlcomp.models.checkpoint import load_checkpoint
    from vlcomp.models.world_clip import world_tokenizer, world_transform

    model, cfg = load_checkpoint(checkpoint)
    return ClipParts("world_clip", model, world_transform(cfg), world_tokenizer(cfg),
                     int(cfg["embed_dim"]))


def random_vit_b32_parts(seed: int = 0) -> ClipParts:
    """open_clip's ViT-B-32 (the papers' main CLIP) with seeded random weights: the real
    architecture and input size, so the real cost, without a download."""
    import open_clip

    torch.manual_seed(seed)
    model, _, preprocess = open_clip.create_model_and_transforms("ViT-B-32", pretrained=None)
    return ClipParts("ViT-B-32 (random init)", model.eval(), preprocess,
                     open_clip.get_tokenizer("ViT-B-32"), int(model.visual.output_dim))


def items_on_images(items: pd.DataFrame, n_images: int, seed: int) -> pd.DataFrame:
    """The items whose images all lie in a seeded sample of ``n_images`` of the benchmark's
    images: a smaller benchmark with the same items-per-image ratio (what caching saves)."""
    ids = sorted({i for image_ids in items.image_ids for i in image_ids})
    if n_images >= len(ids):
        return items.reset_index(drop=True)
    keep = set(np.random.default_rng(seed).choice(ids, size=n_images, replace=False).tolist())
    mask = [all(i in keep for i in image_ids) for image_ids in items.image_ids]
    return items[mask].reset_index(drop=True)


def _image(refs: dict[str, ImageRef], image_id: str):
    ref = refs[image_id]
    return open_image(ref.path, ref.box)


def sugarcrepe_loop(parts: ClipParts, items: pd.DataFrame,
                    refs: dict[str, ImageRef]) -> list[np.ndarray]:
    """SugarCrepe's loop: one item at a time; its image, then each caption, at batch 1."""
    model, out = parts.model, []
    with torch.no_grad():
        for item in items.itertuples():
            image = torch.stack([parts.preprocess(_image(refs, i)) for i in item.image_ids])
            image_emb = model.encode_image(image, normalize=True)
            text_emb = torch.cat([model.encode_text(parts.tokenizer([t]), normalize=True)
                                  for t in item.texts])
            out.append((image_emb @ text_emb.T).numpy())
    return out


def aro_loop(parts: ClipParts, items: pd.DataFrame, refs: dict[str, ImageRef],
             batch_size: int = ARO_BATCH) -> list[np.ndarray]:
    """ARO's loop: batches of items; per batch, the image options, then each caption option
    position across the batch (full context), cosine via einsum; nothing cached."""
    model, out = parts.model, []
    with torch.no_grad():
        for start in range(0, len(items), batch_size):
            batch = items.iloc[start : start + batch_size]
            n_img, n_txt = len(batch.image_ids.iloc[0]), len(batch.texts.iloc[0])
            if {(len(i), len(t)) for i, t in zip(batch.image_ids, batch.texts,
                                                 strict=True)} != {(n_img, n_txt)}:
                raise ValueError("ARO batches need items with equal numbers of options")
            images = [F.normalize(model.encode_image(torch.stack(
                [parts.preprocess(_image(refs, ids[k])) for ids in batch.image_ids])), dim=-1)
                for k in range(n_img)]
            texts = [F.normalize(model.encode_text(parts.tokenizer(
                [t[k] for t in batch.texts])), dim=-1) for k in range(n_txt)]
            scores = torch.einsum("nkd,nld->nkl", torch.stack(images, 1), torch.stack(texts, 1))
            out.extend(scores.numpy())
    return out


def vlcomp_path(parts: ClipParts, items: pd.DataFrame, refs: dict[str, ImageRef],
                batch_size: int = 64, text_batch_size: int = 32) -> list[np.ndarray]:
    """vlcomp's path: distinct images and texts embedded once, batched (the default config's
    batch sizes); scores from them."""
    scorer = parts.scorer()
    ids = sorted({i for image_ids in items.image_ids for i in image_ids})
    table = pd.DataFrame({"image_id": ids, "path": [refs[i].path for i in ids],
                          "bbox": [None if refs[i].box is None else list(refs[i].box)
                                   for i in ids]})
    image_emb = embed_image_set(scorer, table, batch_size=batch_size)
    texts = unique_texts(items.texts)
    text_emb = embed_texts(scorer, texts, batch_size=text_batch_size)
    scores = score_items(items, image_emb, {k: n for n, k in enumerate(ids)}, text_emb,
                         {t: n for n, t in enumerate(texts)})
    return [np.asarray(s) for s in scores.scores]


LOOPS: dict[str, Callable[..., list[np.ndarray]]] = {
    "sugarcrepe": sugarcrepe_loop, "aro": aro_loop, "vlcomp": vlcomp_path}


def agreement(a: Sequence[np.ndarray], b: Sequence[np.ndarray]) -> dict[str, float]:
    """Largest score difference, and the share of items whose best text is the same."""
    diff = max(float(np.abs(np.asarray(x) - np.asarray(y)).max()) for x, y in zip(a, b,
                                                                                strict=True))
    same = np.mean([np.argmax(np.asarray(x)[0]) == np.argmax(np.asarray(y)[0])
                    for x, y in zip(a, b, strict=True)])
    return {"max_abs_diff": diff, "same_choice": float(same)}


def time_loop(loop: Callable[..., list[np.ndarray]], parts: ClipParts, items: pd.DataFrame,
              refs: dict[str, ImageRef]) -> tuple[float, list[np.ndarray]]:
    """Wall seconds of one loop over the items (after a two-item warm-up) and its scores."""
    loop(parts, items.iloc[:2], refs)
    start = time.perf_counter()
    scores = loop(parts, items, refs)
    return time.perf_counter() - start, scores


def compare(parts: ClipParts, items: pd.DataFrame, refs: dict[str, ImageRef],
            baselines: Sequence[str]) -> list[dict[str, Any]]:
    """One row per baseline: its pairs/s, vlcomp's, the speed-up and the score agreement."""
    cells = int(sum(len(i) * len(t) for i, t in zip(items.image_ids, items.texts,
                                                    strict=True)))
    images = len({i for ids in items.image_ids for i in ids})
    ours_s, ours = time_loop(vlcomp_path, parts, items, refs)
    rows = []
    for name in baselines:
        ref_s, ref = time_loop(LOOPS[name], parts, items, refs)
        rows.append({
            "model": parts.name, "baseline": name, "items": len(items), "images": images,
            "texts": len(unique_texts(items.texts)), "pairs": cells,
            "baseline_s": ref_s, "vlcomp_s": ours_s, "baseline_pairs_per_s": cells / ref_s,
            "vlcomp_pairs_per_s": cells / ours_s, "speedup": ref_s / ours_s,
            **agreement(ref, ours),
        })
    return rows


def imageset_refs(workdir: Path, imageset: Path) -> dict[str, ImageRef]:
    """`image_index` of one image set table of a DAG run, paths made absolute."""
    return {i: ImageRef(str(workdir / ref.path), ref.box)
            for i, ref in image_index([read_parquet(imageset)]).items()}


def image_refs(workdir: Path, needed: set[str]) -> dict[str, ImageRef]:
    """The file (and crop) of each needed image id of a DAG run: from the first image set (by
    name, perturbed ``*_shuffle_*`` copies skipped) that lists it; paths made absolute."""
    refs: dict[str, ImageRef] = {}
    for imageset in sorted((workdir / "results" / "imagesets").glob("*.parquet")):
        if "_shuffle_" in imageset.name or not needed - set(refs):
            continue
        for image_id, ref in imageset_refs(workdir, imageset).items():
            if image_id in needed:
                refs.setdefault(image_id, ref)
    missing = needed - set(refs)
    if missing:
        raise ValueError(f"{workdir}: images {sorted(missing)[:3]} are in no image set")
    return refs


def load_benchmark(workdir: Path, benchmark: str) -> tuple[pd.DataFrame, dict[str, ImageRef]]:
    """A choice benchmark of a DAG run (its i2t items) and the files of its images."""
    path = workdir / "results" / "benchmarks" / f"{benchmark}.parquet"
    if not path.is_file():
        raise FileNotFoundError(f"{path}: run the workflow first (snakemake {path})")
    items = read_parquet(path)
    items = items[items.protocol == "i2t"].reset_index(drop=True)
    return items, image_refs(workdir, {i for ids in items.image_ids for i in ids})
