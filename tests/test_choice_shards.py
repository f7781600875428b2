"""A captioner's choice pairs and text priors in shards: the gathered score and prior files
equal one job's, byte for byte, whatever the shard count."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch
from PIL import Image

from vlcomp.io import write_npz
from vlcomp.score.choice_job import (
    ChoiceJob,
    join_choice_shards,
    score_choice_shard,
    score_null_prior,
    write_choice_scores,
    write_priors,
)
from vlcomp.score.pair_plan import score_plan
from vlcomp.shards import shard_names

NULL = {"n": 3, "mean": 1.0, "std": 0.25, "seed": 0, "space": "normalized",
        "n_by_benchmark": {"pairs": 5}}


class BatchCaptioner:
    """A fake captioner with vision states whose scores shift with the batch it is handed,
    as float kernels may: sharding must hand it the batches one job would."""

    def image_states(self, images, batch_size=32):
        return torch.tensor([[np.asarray(i, np.float64).mean() / 255] for i in images])

    def score_pairs_given_states(self, states, index, texts, batch_size=32):
        out = []
        for s in range(0, len(texts), batch_size):
            part = [float(states[i, 0]) * len(t) for i, t in
                    zip(index[s:s + batch_size].tolist(), texts[s:s + batch_size], strict=True)]
            out.extend(np.array(part) + np.mean(part) * 1e-6)
        return np.array(out)

    log_likelihood_given_states = score_pairs_given_states

    def null_image_states(self, n, *, mean, std, seed, space):
        generator = torch.Generator().manual_seed(seed)
        return torch.randn((n, 1), generator=generator, dtype=torch.float64) * std + mean


@pytest.fixture
def job_tables(tmp_path):
    rng = np.random.default_rng(0)
    rows = []
    for k in range(30):
        path = tmp_path / f"{k}.png"
        Image.fromarray(rng.integers(0, 255, (3, 3, 3), dtype=np.uint8)).save(path)
        rows.append({"image_id": f"i{k}", "path": str(path)})
    images = pd.DataFrame(rows)
    choice = {
        "options": pd.DataFrame({"item_id": [f"o{k}" for k in range(20)],
                                 "image_ids": [[f"i{k}"] for k in range(20)],
                                 "texts": [[f"a cat {'x' * (k % 4)}", f"a dog {k % 6}"]
                                           for k in range(20)]}),
        "pairs": pd.DataFrame({"item_id": [f"p{k}" for k in range(8)],
                               "image_ids": [[f"i{k}", f"i{k + 20}"] for k in range(8)],
                               "texts": [[f"a cat {'x' * (k % 4)}", f"two birds {k}"]
                                         for k in range(8)]}),
    }
    return choice, images


def _job(job_tables) -> ChoiceJob:
    choice, images = job_tables
    job = ChoiceJob.plan_items(choice, [images], alpha=["options", "pairs"])
    job.add_train_priors(images.iloc[20:], 2, seed=0)
    job.prior_chunk = 4  # null prior calls of 4 texts, so that shards share them out
    return job


def _write(job, scored, null_matrix, folder):
    folder.mkdir()
    write_choice_scores(job, scored, {b: str(folder / f"{b}.parquet") for b in job.choice})
    write_priors(job, NULL, null_matrix, scored, {},
                 [str(folder / f"{b}_prior.parquet") for b in job.alpha],
                 str(folder / "prior_images.json"))
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _sharded(job, count, tmp_path):
    scorer, paths = BatchCaptioner(), []
    for name in shard_names(count):
        path = tmp_path / f"{count}" / f"{name}.npz"
        write_npz(score_choice_shard(scorer, job, NULL, name, batch_size=4, image_batch=3),
                  path)
        paths.append(path)
    shards = []
    for path in paths:
        with np.load(path) as arrays:
            shards.append({k: arrays[k] for k in arrays.files})
    return shards


@pytest.mark.parametrize("count", [1, 3, 5])
def test_choice_shards_join_to_one_jobs_files(job_tables, tmp_path, count):
    job = _job(job_tables)
    scorer = BatchCaptioner()
    whole = score_plan(scorer, job.plan, batch_size=4, image_batch=3)
    one = _write(job, whole, score_null_prior(scorer, job, NULL, batch_size=4),
                 tmp_path / "one")
    shards = _sharded(job, count, tmp_path)
    if count == 3:  # both kinds of work are spread over the shards
        assert all(len(s["values"]) and len(s["null_values"]) for s in shards)
    scored, null_matrix = join_choice_shards(job, NULL, shards, image_batch=3)
    assert _write(job, scored, null_matrix, tmp_path / "joined") == one
    assert len(one) == 5


def test_a_missing_or_foreign_shard_is_refused(job_tables, tmp_path):
    job = _job(job_tables)
    shards = _sharded(job, 3, tmp_path)
    with pytest.raises(ValueError, match="starts at item"):
        join_choice_shards(job, NULL, [shards[0], shards[2]], image_batch=3)
    with pytest.raises(ValueError, match="picture chunks"):
        join_choice_shards(job, NULL, shards, image_batch=2)
