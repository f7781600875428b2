"""A heavy job's expected items, hours, shards and per-shard resource requests.

`stage_job` is the one place these come from: the rules read their shard counts and their
``runtime`` / ``mem_mb`` requests from it, and the plan command (``python -m vlcomp.plan``)
its items and hours, so that what SLURM is asked for and what the plan prints agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from vlcomp.config import (
    expand_models,
    gallery_text_perturbations,
    rerank_k_test,
    retrieval_null_images,
    robustness_k_test,
)
from vlcomp.config_defaults import section
from vlcomp.plan.costs import cost, model_scale
from vlcomp.plan.shards import configured_count, max_job_hours, stage_shards
from vlcomp.plan.sizes import (
    benchmark_size,
    choice_pairs,
    dataset_captions,
    embedding_items,
    generated_images,
    generation_prompts,
    imageset_images,
    retrieval_pairs,
    train_rows,
)

# rules whose jobs a stage estimates: rule -> (stage, the wildcard naming the job)
STAGE_RULES = {
    "embed_model": ("embed", "model"),
    "embed_model_shard": ("embed", "model"),
    "embed_model_gather": ("embed", "model"),
    "generate_candidates": ("generate", "genset"),
    "generate_candidates_shard": ("generate", "genset"),
    "generate_candidates_gather": ("generate", "genset"),
    "score_generative_retrieval_shard": ("retrieval", "model"),
    "score_generative_retrieval_gather": ("retrieval", "model"),
    "rerank_shard": ("rerank", "model"),
    "robustness_rerank_shard": ("robustness_rerank", "model"),
    "sugarcrepe_negatives_shard": ("llm_negatives", "dataset"),
    "score_pairs": ("pairs", "model"),
    "score_pairs_only": ("pairs", "model"),
    "score_generative": ("pairs", "model"),
    "score_generative_choice": ("pairs", "model"),
    "score_generative_choice_shard": ("pairs", "model"),
    "score_generative_choice_gather": ("pairs", "model"),
    "embed_images": ("embed_images", "model"),
    "sugarcrepe_negatives_gather": ("llm_negatives", "dataset"),
    "train_clip": ("train", "run"),
    "train_clip_segment": ("train", "run"),
    "llm_prior": ("llm_prior", "lm"),
    "generate_captions": ("captions", "model"),
    "retrieval_null_prior": ("retrieval_null_prior", "model"),
    "null_sampling_prior": ("null_sampling_prior", "model"),
    "filter_generated": ("filter", "genset"),
    "train_detectors": ("detectors", "model"),
}

# what a request adds to the estimate: model loading and start-up, and a safety factor
START_MINUTES = 10
SAFETY = 1.5
# host memory (MB) a job of a stage asks for, by model scale
MEMORY_MB = {("embed", "world"): 4000, ("embed", "base"): 16000, ("embed", "large"): 32000,
             ("generate", "world"): 4000, ("generate", "diffusers"): 40000,
             ("retrieval", "world"): 4000, ("retrieval", "base"): 16000,
             ("retrieval", "large"): 16000, ("retrieval", "xl"): 32000,
             ("llm_negatives", "llm"): 32000,
             ("pairs", "world"): 4000, ("pairs", "base"): 16000, ("pairs", "large"): 16000,
             ("pairs", "xl"): 32000, ("embed_images", "world"): 4000,
             ("embed_images", "base"): 16000, ("embed_images", "large"): 32000,
             ("train", "world"): 4000, ("train", "base"): 32000, ("train", "large"): 64000,
             ("llm_prior", "world"): 4000, ("llm_prior", "base"): 16000,
             ("llm_prior", "xl"): 32000, ("captions", "world"): 4000,
             ("captions", "base"): 16000, ("captions", "large"): 16000,
             ("filter", "world"): 4000, ("filter", "base"): 16000, ("filter", "large"): 32000,
             ("detectors", "world"): 4000, ("detectors", "base"): 32000,
             ("detectors", "large"): 32000, ("retrieval_null_prior", "world"): 4000,
             ("retrieval_null_prior", "base"): 16000, ("retrieval_null_prior", "large"): 16000,
             ("null_sampling_prior", "world"): 4000, ("null_sampling_prior", "base"): 24000,
             ("null_sampling_prior", "large"): 32000, ("rerank", "world"): 4000,
             ("rerank", "base"): 16000, ("rerank", "large"): 16000,
             ("robustness_rerank", "world"): 4000, ("robustness_rerank", "base"): 16000,
             ("robustness_rerank", "large"): 16000}
# unsharded stages: one job whatever its hours (their requests still follow the estimate);
# a pair model's job is sharded only for a captioner scoring no retrieval gallery in it
WHOLE_STAGES = ("embed_images", "llm_prior", "captions", "filter", "detectors",
                "retrieval_null_prior", "null_sampling_prior")
SUGARCREPE_TEMPLATES = 7  # prompts per caption: one per SugarCrepe subset


@dataclass(frozen=True)
class StageJob:
    """One heavy job of a stage, before sharding: its items, device and hours."""

    stage: str
    name: str
    items: int
    device: str
    hours: float
    shards: int
    mem_mb: int
    longest: float | None = None  # hours of the longest shard, where shards are uneven

    @property
    def shard_hours(self) -> float:
        """Estimated hours of each shard (of the longest, where whole units make them
        uneven)."""
        return self.hours / self.shards if self.longest is None else self.longest

    @property
    def runtime(self) -> int:
        """A shard's ``runtime`` request (minutes): its estimate with a safety factor, plus
        start-up."""
        return math.ceil(self.shard_hours * 60 * SAFETY) + START_MINUTES


def stage_job(config: dict[str, Any], stage: str, name: str,
              entry: dict[str, Any] | None = None, benchmark: str | None = None,
              imageset: str | None = None) -> StageJob:
    """The job of ``stage`` for ``name``: ``embed``, a model's embedding job (its expanded
    entry may be given); ``generate``, a generated set's candidate images; ``llm_negatives``,
    a caption dataset's SugarCrepe-style negatives by an LLM (TROHN-Text); ``pairs``, a pair
    scorer's job over the choice benchmarks (with a captioner's priors, and its retrieval
    galleries unless they are sharded); ``embed_images``, a model's embeddings of one
    ``imageset`` embedded on its own; ``retrieval``, a generative model's log P(t|i) over a
    retrieval ``benchmark``'s galleries; ``rerank``, a cross-encoder's ITM pass over the
    ``k_test`` candidates of each query of a retrieval ``benchmark``; ``robustness_rerank``,
    its ITM passes over the candidates of every condition of the re-ranked robustness
    galleries (shards of whole conditions); ``train``, a training
    run (its shards are segments of its optimisation steps); ``llm_prior``, a text-only LM's
    log P(t) of the prior texts;
    ``retrieval_null_prior``, a captioner's null-image prior of retrieval queries;
    ``null_sampling_prior``, its null-sampling priors of a pair benchmark (Table 5);
    ``captions``, a captioner's test captions (BISON Tables 4 / 6); ``filter``, a generated
    set's candidates scored by its filter model; ``detectors``, BiVLC's natural-vs-synthetic
    detectors on one encoder."""
    if stage == "embed":
        return _embed_job(config, name, entry)
    if stage == "generate":
        return _generate_job(config, name)
    if stage == "llm_negatives":
        return _llm_negatives_job(config, name)
    if stage == "pairs":
        return _pairs_job(config, name, entry)
    if stage == "train":
        return _train_job(config, name)
    if stage == "robustness_rerank":
        return _robustness_rerank_job(config, name, entry)
    if stage in _OTHER_JOBS:
        return _OTHER_JOBS[stage](config, name)
    if stage == "embed_images":
        if imageset is None:
            raise ValueError("stage 'embed_images' needs the image set")
        return _embed_images_job(config, name, imageset, entry)
    if stage in ("retrieval", "rerank"):
        if benchmark is None:
            raise ValueError(f"stage {stage!r} needs the benchmark")
        job = _retrieval_job if stage == "retrieval" else _rerank_job
        return job(config, name, benchmark, entry)
    raise ValueError(f"no estimate for stage {stage!r}")


def _job(config: dict[str, Any], stage: str, name: str, items: int, hours: float,
         device: str, scale: str, shardable: bool = True) -> StageJob:
    whole = stage in WHOLE_STAGES or not shardable
    shards = 1 if whole else stage_shards(config, stage, name, hours)
    if scale == "xl" and (stage, scale) not in MEMORY_MB:
        scale = "large"  # as `cost`: an LLM's towers are ViT-L-class
    return StageJob(stage, name, items, device, hours, shards, MEMORY_MB[(stage, scale)])


def _per_item_job(config: dict[str, Any], stage: str, name: str, items: int, kind: str,
                  scale: str) -> StageJob:
    """A job of ``items`` items of one cost ``kind`` at a model ``scale``."""
    each = cost(kind, scale)
    return _job(config, stage, name, items, items * each.seconds / 3600, each.device, scale)


def _entry_scale(config: dict[str, Any], model: str,
                 entry: dict[str, Any] | None) -> tuple[dict[str, Any], str]:
    """A model's expanded entry (given, or from config) and its `model_scale`."""
    entry = entry if entry is not None else expand_models(config)[model]
    return entry, model_scale(entry, world="world" in config)


def _embed_job(config: dict[str, Any], name: str, entry: dict[str, Any] | None) -> StageJob:
    entry, scale = _entry_scale(config, name, entry)
    images, texts = embedding_items(config)
    image_cost, text_cost = cost("embed_image", scale), cost("embed_text", scale)
    hours = (images * image_cost.seconds + texts * text_cost.seconds) / 3600
    return _job(config, "embed", name, images + texts, hours, image_cost.device, scale)


def _generate_job(config: dict[str, Any], genset: str) -> StageJob:
    spec = config["generation"][genset]
    scale = "world" if spec.get("backend", "world") == "world" else "diffusers"
    images = generated_images(config, genset)
    return _per_item_job(config, "generate", genset, images, "generate_image", scale)


def _retrieval_job(config: dict[str, Any], model: str, benchmark: str,
                   entry: dict[str, Any] | None) -> StageJob:
    _, scale = _entry_scale(config, model, entry)
    return _per_item_job(config, "retrieval", model, retrieval_pairs(config, benchmark),
                         "retrieval_pair", scale)


def _rerank_job(config: dict[str, Any], model: str, benchmark: str,
                entry: dict[str, Any] | None) -> StageJob:
    """ITM passes of a re-ranked retrieval: ``k_test`` candidates per image and per query
    (an upper bound: a pair both directions pick is scored once)."""
    entry, scale = _entry_scale(config, model, entry)
    k = rerank_k_test(config, model, entry, benchmark) or 0
    size = benchmark_size(config, benchmark)
    pairs = min(k, size.texts) * size.images + min(k, size.images) * size.texts
    return _per_item_job(config, "rerank", model, pairs, "pair", scale)


def robustness_rerank_conditions(config: dict[str, Any], model: str,
                                 entry: dict[str, Any] | None = None) -> list[int]:
    """Upper bounds of the ITM passes of each re-ranked robustness condition of ``model``
    (as `_rerank_job`), gallery by gallery in the workflow's order."""
    entry = entry if entry is not None else expand_models(config)[model]
    spec = config["benchmarks"].get("robustness") or {}
    perturbed = spec.get("perturbed_galleries", [])
    seeds = len(spec.get("seeds", [0]))
    out: list[int] = []
    for name, gallery in spec.get("galleries", {}).items():
        k = robustness_k_test(config, model, entry, name)
        if k is None:
            continue
        size = benchmark_size(config, f"{gallery.get('dataset', 'world')}_retrieval")
        images = int(gallery["images"])
        texts = round(images * size.texts / size.images) if size.images else images
        conditions = 1
        if name in perturbed:
            conditions += len(gallery_text_perturbations(config, name)) * seeds
            if "aro" in gallery.get("tables", ["aro"]):
                conditions += len(spec.get("image_perturbations", [])) * seeds
        out += [min(k, texts) * images + min(k, images) * texts] * conditions
    return out


def _robustness_rerank_job(config: dict[str, Any], model: str,
                           entry: dict[str, Any] | None) -> StageJob:
    """ITM passes of a model's re-ranked robustness conditions. A shard scores whole
    conditions (`vlcomp.score.robustness_rerank.condition_block`): at most one shard per
    condition, and the longest shard is its even share plus up to one condition."""
    entry, scale = _entry_scale(config, model, entry)
    weights = robustness_rerank_conditions(config, model, entry)
    each = cost("pair", scale)
    hours = sum(weights) * each.seconds / 3600
    largest = max(weights, default=0) * each.seconds / 3600
    job = _job(config, "robustness_rerank", model, sum(weights), hours, each.device, scale)
    fixed = configured_count(config, "robustness_rerank", model)
    room = max_job_hours(config) - largest  # whole conditions: a shard may take one more
    if fixed is not None:
        shards = int(fixed)
    else:
        shards = math.ceil(hours / room) if room > 0 else len(weights)
    shards = max(1, min(shards, len(weights)))
    longest = largest if shards == len(weights) else min(hours, hours / shards + largest)
    return replace(job, shards=shards, longest=longest)


def _llm_negatives_job(config: dict[str, Any], dataset: str) -> StageJob:
    options = config.get("hard_negatives", {}).get("sugarcrepe", {})
    prompts = SUGARCREPE_TEMPLATES * dataset_captions(config, dataset,
                                                      options.get("split", "train"))
    return _per_item_job(config, "llm_negatives", dataset, prompts, "llm_generation", "llm")


def _pairs_job(config: dict[str, Any], model: str, entry: dict[str, Any] | None) -> StageJob:
    from vlcomp.config import has_embeddings, is_captioner
    from vlcomp.report.labels import benchmark_kind, configured_benchmarks

    entry, scale = _entry_scale(config, model, entry)
    kinds = {b: benchmark_kind(b) for b in configured_benchmarks(config)}
    choice = [b for b, k in kinds.items() if k not in ("retrieval", "robustness")]
    scored = [b for b in choice if b in entry.get("pair_benchmarks", choice)]
    pairs = choice_pairs(config, scored)
    shardable = False
    if is_captioner(entry):  # log P(t|null) of every text, and the retrieval galleries
        null = int(section(config, "visualgptscore.null_images")["n"])
        pairs += null * sum(benchmark_size(config, b).texts for b in choice)
        galleries = [b for b, k in kinds.items() if k == "retrieval"
                     ] if entry.get("retrieval", True) else []
        in_job = not any(stage_job(config, "retrieval", model, entry, b).shards > 1
                         for b in galleries)
        if in_job:
            pairs += sum(retrieval_pairs(config, b) for b in galleries)
        # choice pairs and priors alone (rule score_generative_choice): sharded if long
        shardable = not (galleries and in_job)
    each = cost("pair", scale)
    hours = pairs * each.seconds / 3600
    if has_embeddings(entry) and not is_captioner(entry):  # an ITM model also embeds
        hours += _embed_job(config, model, entry).hours
    return _job(config, "pairs", model, pairs, hours, each.device, scale, shardable)


def _embed_images_job(config: dict[str, Any], model: str, imageset: str,
                      entry: dict[str, Any] | None) -> StageJob:
    _, scale = _entry_scale(config, model, entry)
    return _per_item_job(config, "embed_images", model, imageset_images(config, imageset),
                         "embed_image", scale)


def _train_job(config: dict[str, Any], run_name: str) -> StageJob:
    from vlcomp.config import expand_runs

    run = expand_runs(config)[run_name]
    if "world" in config:
        scale = "world"
    elif "init_model" in run:
        _, scale = _entry_scale(config, run["init_model"], None)
    else:
        scale = "base"
    rows = train_rows(config, run) * int(run["epochs"])
    return _per_item_job(config, "train", run_name, rows,
                         "train_" + run.get("objective", "clip"), scale)


def _llm_prior_job(config: dict[str, Any], lm: str) -> StageJob:
    from vlcomp.config import text_priors
    from vlcomp.report.labels import ALPHA_KINDS, benchmark_kind, configured_benchmarks

    entry = {e["name"]: e for e in text_priors(config)}[lm]
    scale = model_scale({"model": entry["model"]}, world="world" in config)
    texts = sum(benchmark_size(config, b).texts for b in configured_benchmarks(config)
                if benchmark_kind(b) in ALPHA_KINDS)
    # a text-only LM is base-sized (BART) or ~3B (xl): no ViT-L-class tower
    return _per_item_job(config, "llm_prior", lm, texts, "llm_text",
                         "base" if scale == "large" else scale)


def _captions_job(config: dict[str, Any], model: str) -> StageJob:
    _, scale = _entry_scale(config, model, None)
    images = imageset_images(config, "coco_test") if "world" not in config else int(
        config["world"]["splits"]["test"])
    return _per_item_job(config, "captions", model, images, "caption_image", scale)


def _retrieval_null_prior_job(config: dict[str, Any], model: str) -> StageJob:
    """A captioner's null-image prior of the largest retrieval benchmark's test and
    validation queries (VisualGPTScore Table 6): one caption pass per query and image."""
    from vlcomp.report.labels import benchmark_kind, configured_benchmarks

    _, scale = _entry_scale(config, model, None)
    n = retrieval_null_images(config)
    queries = max((2 * benchmark_size(config, b).texts for b in configured_benchmarks(config)
                   if benchmark_kind(b) == "retrieval"), default=0)
    return _per_item_job(config, "retrieval_null_prior", model, n * queries, "retrieval_pair",
                         "large" if scale == "xl" else scale)


def _null_sampling_prior_job(config: dict[str, Any], model: str) -> StageJob:
    """A captioner's null-sampling priors (VisualGPTScore appendix Table 5): each seed's
    max(counts) null images against every text of the pair benchmark."""
    from vlcomp.config import null_sampling

    _, scale = _entry_scale(config, model, None)
    spec = null_sampling(config)
    passes = (len(spec["seeds"]) * max(spec["counts"])
              * benchmark_size(config, spec["benchmark"]).texts) if spec else 0
    return _per_item_job(config, "null_sampling_prior", model, passes, "retrieval_pair",
                         "large" if scale == "xl" else scale)


def _filter_job(config: dict[str, Any], genset: str) -> StageJob:
    spec = config["generation"][genset]
    model = spec.get("filter", {}).get("model")
    scale = (_entry_scale(config, model, None)[1] if model
             else "world" if "world" in config else "base")
    images = generated_images(config, genset)
    return _per_item_job(config, "filter", genset, images, "embed_image", scale)


def _detectors_job(config: dict[str, Any], model: str) -> StageJob:
    _, scale = _entry_scale(config, model, None)
    rows = generation_prompts(config, "trohn_img")  # TROHN-Img's instances
    image, text = cost("embed_image", scale), cost("embed_text", scale)
    # a natural and a generated image, a caption and its negative a row (cached embeddings
    # are reused; heads on embeddings take seconds)
    hours = 2 * rows * (image.seconds + text.seconds) / 3600
    return _job(config, "detectors", model, 2 * rows, hours, image.device, scale)


_OTHER_JOBS = {"llm_prior": _llm_prior_job, "captions": _captions_job, "filter": _filter_job,
               "detectors": _detectors_job, "retrieval_null_prior": _retrieval_null_prior_job,
               "null_sampling_prior": _null_sampling_prior_job}
