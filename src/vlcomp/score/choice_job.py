"""A captioner's choice benchmarks and text priors (VisualGPTScore): planned, scored as one
job or in shards, and written.

The work is the pairs of every choice benchmark (and of the sampled training images against
every prior text) in a `PairPlan`, and the null prior's calls (`NullTask`: blocks of texts
against the null images). A shard takes a block of the plan's whole picture chunks
(`shard_plan`) and a block of the null calls balanced by their pairs (`weighted_block`);
every chunk and call is computed as in one job, so the gathered files do not depend on the
shard count. BLIP-2 FLAN-T5's share of the paper configuration is ~16M LLM passes, most of
them null priors.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.io import write_json, write_parquet
from vlcomp.score.pair_jobs import benchmark_texts, llm_prior_scores, prior_table
from vlcomp.score.pair_plan import PairPlan, PlanScores, plan_chunks, score_plan, shard_plan
from vlcomp.score.pairs import ImageRef, image_index
from vlcomp.score.text_prior import (
    PRIOR_CHUNK,
    NullTask,
    null_counts,
    null_matrix_from_tasks,
    null_tasks,
    sample_image_ids,
    score_null_tasks,
)
from vlcomp.shards import check_complete, weighted_block

log = logging.getLogger(__name__)


@dataclass
class ChoiceJob:
    """A pair model's choice items and, for a captioner, its text priors, planned."""

    choice: dict[str, pd.DataFrame]
    images: dict[str, ImageRef]
    plan: PairPlan
    cosine: frozenset[str] = frozenset()
    alpha: list[str] = field(default_factory=list)
    union: list[str] = field(default_factory=list)
    train_ids: list[str] = field(default_factory=list)
    train_refs: list[ImageRef] = field(default_factory=list)
    prior_chunk: int = PRIOR_CHUNK  # texts a null prior call scores

    @classmethod
    def plan_items(cls, choice: Mapping[str, pd.DataFrame], imagesets: Sequence[pd.DataFrame],
                   alpha: Sequence[str] = (), cosine: Sequence[str] = ()) -> ChoiceJob:
        """Every (picture, option) pair of the choice benchmarks not scored by the cosine
        of embeddings (``cosine``); ``alpha`` names the benchmarks with text priors."""
        images = image_index(list(imagesets))
        job = cls(dict(choice), images, PairPlan(), frozenset(cosine), list(alpha))
        for name, items in job.choice.items():
            if name not in job.cosine:
                job.plan.add_items(items, images)
            log.info("%s: %d items (%s)", name, len(items),
                     "cosine of embeddings" if name in job.cosine else "pair scores")
        job.union = sorted({t for b in job.alpha for t in benchmark_texts(job.choice[b])})
        return job

    def add_train_priors(self, pool: pd.DataFrame, n: int, seed: int) -> None:
        """n training images drawn from ``pool`` (seeded), each to be scored with every
        prior text (the training-image prior)."""
        self.train_ids = sample_image_ids(pool.image_id, n, seed)
        pool_index = {str(k): v for k, v in image_index([pool]).items()}
        self.train_refs = [pool_index[i] for i in self.train_ids]
        for ref in self.train_refs:
            self.plan.want(ref, self.union)
        log.info("prior: %d training images (seed %d): %s", n, seed, self.train_ids)

    def null_plan(self, null: Mapping[str, Any]) -> tuple[dict[str, int], list[NullTask]]:
        """Null images per prior benchmark, and the null prior's calls."""
        n_for = null_counts(dict(null), self.alpha)
        texts = {b: benchmark_texts(self.choice[b]) for b in self.alpha}
        return n_for, null_tasks(self.union, texts, n_for, self.prior_chunk)


def null_states(scorer: Any, null: Mapping[str, Any], n_for: Mapping[str, int]) -> Any:
    """Vision states of the most null images any prior benchmark uses (one seeded draw)."""
    return scorer.null_image_states(max(n_for.values()), mean=null["mean"], std=null["std"],
                                    seed=null["seed"], space=null["space"])


def score_null_prior(scorer: Any, job: ChoiceJob, null: Mapping[str, Any],
                     batch_size: int = 32) -> np.ndarray:
    """The whole null prior matrix of a job (`vlcomp.score.text_prior.null_prior_matrix`)."""
    n_for, tasks = job.null_plan(null)
    results = score_null_tasks(scorer, null_states(scorer, null, n_for), job.union, tasks,
                               batch_size)
    return null_matrix_from_tasks(len(job.union), max(n_for.values()), tasks, results)


def score_choice_shard(scorer: Any, job: ChoiceJob, null: Mapping[str, Any] | None,
                       shard: str, *, batch_size: int = 64, image_batch: int = 32,
                       options: Mapping[str, Any] | None = None) -> dict[str, np.ndarray]:
    """One shard of a captioner's choice job: the scores of its block of picture chunks
    (``pictures``, ``values``: their pairs in plan order) and of its block of null prior calls
    (``null_values``, flattened), with both blocks' bounds."""
    part, pictures, block, total = shard_plan(job.plan, shard, image_batch)
    scored = score_plan(scorer, part, batch_size=batch_size, image_batch=image_batch,
                        options=options, desc=f"choice pairs {shard}")
    values = scored.values[scored.slots([part.picture(job.plan.refs[p]) for p in pictures])]
    out = {"pictures": np.array(pictures, dtype=np.int64), "values": values,
           "chunks_start": np.int64(block.start), "chunks_stop": np.int64(block.stop),
           "chunks_total": np.int64(total)}
    tasks: list[NullTask] = []
    if null is not None and job.alpha:
        n_for, tasks = job.null_plan(null)
        mine = weighted_block([t.pairs for t in tasks], shard)
        results = score_null_tasks(scorer, null_states(scorer, null, n_for), job.union,
                                   tasks[mine], batch_size) if tasks[mine] else []
        out["null_values"] = (np.concatenate([r.ravel() for r in results]) if results
                              else np.zeros(0))
        out.update(null_start=np.int64(mine.start), null_stop=np.int64(mine.stop))
    out["null_total"] = np.int64(len(tasks))
    log.info("shard %s: chunks %d:%d of %d (%d pairs), null prior calls %d:%d of %d", shard,
             block.start, block.stop, total, len(values), int(out.get("null_start", 0)),
             int(out.get("null_stop", 0)), len(tasks))
    return out


def join_choice_shards(job: ChoiceJob, null: Mapping[str, Any] | None,
                       shards: Sequence[Mapping[str, np.ndarray]], image_batch: int
                       ) -> tuple[PlanScores, np.ndarray | None]:
    """The whole plan's scores and the null prior matrix from every shard, in order; a gap,
    overlap or missing shard is an error."""
    scored = PlanScores.empty(job.plan)
    check_complete([slice(int(s["chunks_start"]), int(s["chunks_stop"])) for s in shards],
                   int(shards[0]["chunks_total"]) if shards else 0)
    total = len(plan_chunks(job.plan, image_batch))
    if shards and int(shards[0]["chunks_total"]) != total:
        raise ValueError(f"the shards cut {int(shards[0]['chunks_total'])} picture chunks, "
                         f"this plan has {total}")
    filled = np.zeros(len(scored.values), dtype=bool)
    for s in shards:
        slots = scored.slots(s["pictures"].tolist())
        scored.values[slots], filled[slots] = s["values"], True
    if not filled.all():
        raise ValueError(f"the shards leave {int((~filled).sum())} pairs of the plan unscored")
    if null is None or not job.alpha:
        return scored, None
    n_for, tasks = job.null_plan(null)
    check_complete([slice(int(s["null_start"]), int(s["null_stop"])) for s in shards],
                   len(tasks))
    results = []
    for s in shards:
        flat, at = s["null_values"], 0
        for task in tasks[int(s["null_start"]): int(s["null_stop"])]:
            results.append(flat[at: at + task.pairs].reshape(len(task.rows), task.images))
            at += task.pairs
        if at != len(flat):
            raise ValueError(f"a shard holds {len(flat)} null prior scores, its calls {at}")
    return scored, null_matrix_from_tasks(len(job.union), max(n_for.values()), tasks, results)


def write_choice_scores(job: ChoiceJob, scored: PlanScores,
                        paths: Mapping[str, str]) -> None:
    """Each pair-scored choice benchmark's item scores (cosine ones are written apart)."""
    for name, path in paths.items():
        if name not in job.cosine:
            write_parquet(scored.item_scores(job.choice[name], job.images), path)


def write_priors(job: ChoiceJob, null: Mapping[str, Any], null_matrix: np.ndarray,
                 scored: PlanScores, llm_scores: Mapping[str, np.ndarray],
                 paths: Sequence[str], prior_images: str) -> None:
    """Each prior benchmark's table of log P(t) (null images, training images, text-only
    LMs) and the prior images' record."""
    n_for, _ = job.null_plan(null)
    train_matrix = scored.matrix(job.train_refs, job.union).T if job.train_refs else None
    for name, path in zip(job.alpha, paths, strict=True):
        write_parquet(prior_table(benchmark_texts(job.choice[name]), job.union,
                                  null_matrix[:, : n_for[name]], train_matrix, llm_scores),
                      path)
    write_json({"null": {**null, "n_by_benchmark": n_for, "encoded": max(n_for.values())},
                "train_images": job.train_ids, "train_paths": [r.path for r in job.train_refs],
                "texts": len(job.union)}, prior_images)
    log.info("priors of %d texts: null images per benchmark %s (%s)", len(job.union), n_for,
             dict(null))


def read_llm_priors(names: Sequence[str], paths: Sequence[str],
                    union: Sequence[str]) -> dict[str, np.ndarray]:
    """log P_LLM(t) of every prior text per text-only LM (rule llm_prior's tables)."""
    from vlcomp.io import read_parquet

    files = dict(zip(names, paths, strict=True))
    scores = llm_prior_scores({n: read_parquet(f) for n, f in files.items()}, union, files)
    if scores:
        log.info("and the text-only LM priors %s", sorted(scores))
    return scores


def read_choice_job(choice: Sequence[str], benchmarks: Sequence[str],
                    imagesets: Sequence[str], alpha: Sequence[str],
                    train: Mapping[str, Any] | None = None,
                    train_images: str | None = None) -> ChoiceJob:
    """A captioner's `ChoiceJob` from its rule's files: the choice benchmarks, their image
    sets, and (with priors and ``train``) the pool of training images."""
    from vlcomp.io import read_parquet

    job = ChoiceJob.plan_items(
        {name: read_parquet(path) for name, path in zip(choice, benchmarks, strict=True)},
        [read_parquet(path) for path in imagesets], alpha)
    if alpha and train:
        job.add_train_priors(read_parquet(train_images), train["n"], train["seed"])
    return job
