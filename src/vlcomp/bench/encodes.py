"""Vision-tower passes per model in a DAG run, against the distinct images it needed and
against what the reference procedures (ARO, SugarCrepe) would encode for the same results.

Passes are read from the jobs' logs (`vlcomp.models.vision_count`). Distinct images are
counted by content (sha256 of the file, plus the crop box), so two files with equal bytes are
one image. The reference count re-encodes an item's images for every item, as ARO and
SugarCrepe do (each perturbation seed of ARO's Order is its own run), plus each retrieval or
robustness gallery once. Images a detector job samples for training (and finds in none of
the model's cached image sets) count as distinct images of that job alone.

For pair scorers the distinct images are those of the choice benchmarks they score, of the
retrieval galleries a captioner scores (test and validation, from its ``.npz`` score files),
of the training images its text prior samples, and its Gaussian null images (job-local, as
they exist in no file); a BLIP ITM also embeds its evaluation image sets. The reference
procedure encodes the prior's images again for every benchmark's prior.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from vlcomp.bench.itc import image_refs, imageset_refs
from vlcomp.io import read_parquet
from vlcomp.models.vision_count import LOG_PATTERN
from vlcomp.score.embeddings import content_key
from vlcomp.score.pairs import ImageRef

LOCAL_JOBS = ("detectors/",)  # jobs whose images are, by construction, needed by them alone


def vision_passes(workdir: Path) -> dict[str, dict[str, int]]:
    """``model -> {job log (relative to logs/) -> images through its vision tower}``."""
    passes: dict[str, dict[str, int]] = defaultdict(dict)
    for log in sorted((workdir / "logs").rglob("*.log")):
        for match in LOG_PATTERN.finditer(log.read_text(errors="replace")):
            job = str(log.relative_to(workdir / "logs"))
            passes[match.group(2)][job] = passes[match.group(2)].get(job, 0) + int(match[1])
    return dict(passes)


class ContentKeys:
    """`content_key` of image references, each file read once however many sets list it."""

    def __init__(self) -> None:
        self._digest: dict[str, str] = {}

    def __call__(self, ref: ImageRef) -> tuple[str, Any]:
        if ref.path not in self._digest:
            self._digest[ref.path] = content_key(ref.path)[0]
        return self._digest[ref.path], ref.box  # ImageRef boxes are float tuples already


def scored_choice_benchmarks(workdir: Path, model: str) -> list[str]:
    """Choice benchmarks the model has a score table for."""
    return sorted(p.stem for p in (workdir / "results" / "scores" / model).glob("*.parquet")
                  if (workdir / "results" / "benchmarks" / p.name).is_file())


def family(embeds: bool, passes: dict[str, int]) -> str:
    """What a model's jobs did: embed image sets, score pairs (logs outside ``embed/`` and
    ``detectors/`` with passes), or both (BLIP ITM in the paper configuration)."""
    pairs = any(n for job, n in passes.items() if not job.startswith(("embed/", "detectors/")))
    return {(True, False): "dual encoder", (False, True): "pair scorer"}.get(
        (embeds, pairs), "dual encoder + pair scorer" if embeds else "no images")


def model_counts(workdir: Path, model: str, passes: dict[str, int],
                 keys: ContentKeys) -> dict[str, Any]:
    """Passes, distinct images needed, and the reference procedure's count for one model."""
    benchmarks = scored_choice_benchmarks(workdir, model)
    tables = {b: read_parquet(workdir / "results" / "benchmarks" / f"{b}.parquet")
              for b in benchmarks}
    per_item = sum(len(ids) for t in tables.values() for ids in t.image_ids)
    item_ids = {i for t in tables.values() for ids in t.image_ids for i in ids}
    needed = {keys(r) for r in image_refs(workdir, item_ids).values()} if item_ids else set()
    embedded = sorted((workdir / "results" / "embeddings" / model / "images").glob("*.npy"))
    galleries = 0
    for npy in embedded:  # dual encoders: every image set embedded, galleries included
        refs = list(imageset_refs(workdir, workdir / "results" / "imagesets" /
                                  f"{npy.stem}.parquet").values())
        ids = json.loads(npy.with_name(npy.stem + ".ids.json").read_text())
        if len(ids) != len(refs):
            raise ValueError(f"{npy}: {len(ids)} embeddings for {len(refs)} images")
        set_keys = {keys(r) for r in refs}
        if not set_keys & needed:  # a set no choice benchmark shows (a gallery)
            galleries += len(refs)
        needed |= set_keys
    for npz in sorted((workdir / "results" / "scores" / model).glob("*.npz")):
        with np.load(npz) as saved:  # a captioner's retrieval galleries
            paths = [str(p) for split in ("test", "val") for p in saved[f"{split}_paths"]]
        galleries += len(paths)
        needed |= {keys(ImageRef(str(workdir / p), None)) for p in paths}
    # a detector job encodes only images that none of the model's cached sets holds (the
    # natural-vs-synthetic training instances it samples): images no other job needs
    detector_local = sum(n for job, n in passes.items() if job.startswith(LOCAL_JOBS))
    local = detector_local
    priors, prior_passes = workdir / "results" / "priors" / model, 0
    if (priors / "prior_images.json").is_file():
        info = json.loads((priors / "prior_images.json").read_text())
        train = {keys(ImageRef(str(workdir / p), None)) for p in info["train_paths"]}
        needed |= train
        null = info["null"]
        local += int(null.get("encoded", null["n"]))  # noise tensors: no file, no other job
        tables = len(list(priors.glob("*.parquet")))
        per_table = null.get("n_by_benchmark") or {}  # null images each prior table used
        prior_passes = (sum(per_table.values()) if per_table else int(null["n"]) * tables) \
            + len(train) * tables
    distinct = len(needed) + local
    total = sum(passes.values())
    reference = per_item + galleries + detector_local + prior_passes
    return {
        "model": model, "family": family(bool(embedded), passes),
        "vision_passes": total, "distinct_images": distinct, "job_local_images": local,
        "passes_per_distinct": total / distinct if distinct else None,
        "equal": total == distinct,
        "reference_passes": reference,
        "saved_vs_reference": reference / total if total else None,
        "jobs": len(passes), "benchmarks": benchmarks,
        "passes_by_job": dict(sorted(passes.items())),
    }


def encode_counts(workdir: Path) -> list[dict[str, Any]]:
    """`model_counts` for every model whose jobs logged vision passes."""
    passes, keys = vision_passes(workdir), ContentKeys()
    if not passes:
        raise ValueError(f"{workdir / 'logs'}: no 'vision passes' lines; run the workflow "
                         "(with this version of vlcomp) first")
    return [model_counts(workdir, model, jobs, keys) for model, jobs in sorted(passes.items())]
