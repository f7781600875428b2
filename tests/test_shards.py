"""Shards of heavy jobs: names, blocks on whole batches, counts, and sharded embeddings that
join into exactly the unsharded job's arrays."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from vlcomp.io import write_npz
from vlcomp.plan.shards import configured_count, stage_shards
from vlcomp.score.embedding_shards import embed_shard, join_shards
from vlcomp.score.embeddings import distinct_images, distinct_texts, embed_image_sets, embed_texts
from vlcomp.shards import (
    batching_unit,
    check_complete,
    parse_shard,
    shard_block,
    shard_names,
)


def test_names_parse_back_and_bad_names_are_named():
    assert shard_names(3) == ["0-of-3", "1-of-3", "2-of-3"]
    assert [parse_shard(n) for n in shard_names(2)] == [(0, 2), (1, 2)]
    for bad in ("3-of-3", "1of3", "a-of-2"):
        with pytest.raises(ValueError, match=bad):
            parse_shard(bad)
    with pytest.raises(ValueError):
        shard_names(0)


@pytest.mark.parametrize("n_items,count,unit", [(10, 3, 1), (1000, 3, 256), (5, 4, 2),
                                                 (0, 2, 8), (7, 1, 3), (3, 5, 1)])
def test_blocks_tile_the_items_on_whole_units(n_items, count, unit):
    blocks = [shard_block(n_items, name, unit) for name in shard_names(count)]
    check_complete(blocks, n_items)
    for block in blocks[:-1]:
        assert block.start % unit == 0
        assert (block.stop - block.start) % unit == 0 or block.stop == n_items
    sizes = [b.stop - b.start for b in blocks]
    assert max(sizes) - min(sizes) < 2 * unit  # whole units differ by one, the last may be short


def test_gaps_and_short_covers_are_refused():
    with pytest.raises(ValueError, match="starts at item 5"):
        check_complete([slice(0, 4), slice(5, 10)], 10)
    with pytest.raises(ValueError, match="cover 8 of 10"):
        check_complete([slice(0, 8)], 10)


def test_counts_from_hours_or_config():
    assert batching_unit(256, 1024) == 1024 and batching_unit(96, 1024) == 3072
    assert stage_shards({}, "embed", "m", job_hours=0.01) == 1  # at least one
    assert stage_shards({}, "embed", "m", job_hours=36.0) == 6  # 36 h of work, 6 h jobs
    assert stage_shards({}, "embed", "m", job_hours=13.0) == 3  # default 6 h jobs
    config = {"shards": {"max_job_hours": 2, "counts": {"embed": {"m": 5}}}}
    assert stage_shards(config, "embed", "m", 100.0) == 5
    assert stage_shards(config, "embed", "other", 3.0) == 2
    assert configured_count({"shards": {"counts": {"embed": 4}}}, "embed", "x") == 4
    with pytest.raises(ValueError, match="unknown sharded stage"):
        configured_count({}, "bake", "x")


class ChunkScorer:
    """A fake dual encoder whose outputs depend on the batch it is handed (its mean), as
    float kernels may: sharding must hand it the very batches one job would. Images come
    through its loader (`image_batches`), as the dual encoders' do."""

    name, device = "fake", "cpu"

    @staticmethod
    def preprocess(image):
        return np.asarray(image, np.float32).mean(axis=(0, 1))

    @staticmethod
    def image_batches(dataset, batch_size, workers):
        for s in range(0, len(dataset), batch_size):
            yield np.stack([dataset[k] for k in range(s, min(s + batch_size, len(dataset)))])

    @staticmethod
    def embed_pixels(batch):
        return batch + batch.mean() * 1e-3

    def embed_texts(self, texts, batch_size=256):
        out = []
        for s in range(0, len(texts), batch_size):
            batch = np.array([[len(t), t.count("a"), t.count(" ")]
                              for t in texts[s:s + batch_size]], np.float32)
            out.append(batch + batch.mean() * 1e-3)
        return np.concatenate(out)


@pytest.fixture
def sets(tmp_path):
    rng = np.random.default_rng(0)
    rows = []
    for k in range(40):
        path = tmp_path / f"{k}.png"
        Image.fromarray(rng.integers(0, 255, (4, 4, 3), dtype=np.uint8)).save(path)
        rows.append({"image_id": f"i{k}", "path": str(path)})
    images = pd.DataFrame(rows)
    # a second set repeats some pictures: each distinct one is embedded once
    again = images.iloc[::3].assign(image_id=lambda t: t.image_id + "b")
    texts = pd.DataFrame({"item_id": [f"t{k}" for k in range(30)],
                          "texts": [[f"a cat {k}", f"a dog {k % 7}"] for k in range(30)]})
    return [images, again], [texts]


@pytest.mark.parametrize("count", [1, 3, 7])
def test_sharded_embeddings_join_to_the_unsharded_arrays(sets, tmp_path, count):
    images, texts = sets
    scorer = ChunkScorer()
    paths = []
    for name in shard_names(count):
        path = tmp_path / "shards" / f"{name}.npz"
        write_npz(embed_shard(scorer, images, texts, name, batch_size=4,
                                text_batch_size=4), path)
        paths.append(path)
    rows, positions = distinct_images(images)
    joined = join_shards(paths, "images")
    whole, n_distinct = embed_image_sets(scorer, images, batch_size=4)
    assert n_distinct == len(rows) == 40
    for array, where in zip(whole, positions, strict=True):
        assert joined[where].tobytes() == array.tobytes()
    distinct, _ = distinct_texts(texts)
    assert (join_shards(paths, "texts").tobytes()
            == embed_texts(scorer, distinct, batch_size=4).tobytes())


def test_a_missing_shard_is_named(sets, tmp_path):
    images, texts = sets
    paths = []
    for name in shard_names(3):
        path = tmp_path / f"{name}.npz"
        write_npz(embed_shard(ChunkScorer(), images, texts, name, batch_size=4), path)
        paths.append(path)
    with pytest.raises(ValueError, match="starts at item"):
        join_shards([paths[0], paths[2]], "images")
    with pytest.raises(ValueError, match="kind"):
        join_shards(paths, "audio")


class BatchLogLikelihood:
    """A fake captioner whose scores shift with the batch it is handed, as float kernels may
    (sharding must hand it the batches one job would)."""

    def log_likelihood(self, images, texts, batch_size=32):
        out = []
        for s in range(0, len(texts), batch_size):
            part = [np.asarray(i, np.float64).mean() / 255 * len(t)
                    for i, t in zip(images[s:s + batch_size], texts[s:s + batch_size],
                                    strict=True)]
            out.extend(np.array(part) + np.mean(part) * 1e-6)
        return np.array(out)


def test_sharded_retrieval_galleries_join_to_one_shards_matrices(tmp_path):
    from vlcomp.score.pair_jobs import Gallery
    from vlcomp.score.pairs import ImageRef
    from vlcomp.score.retrieval_files import join_retrieval_shards, retrieval_arrays
    from vlcomp.score.retrieval_shards import score_retrieval_shard

    rng = np.random.default_rng(1)
    galleries = {}
    for split, n in (("test", 11), ("val", 7)):
        refs = []
        for k in range(n):
            path = tmp_path / f"{split}{k}.png"
            Image.fromarray(rng.integers(0, 255, (3, 3, 3), dtype=np.uint8)).save(path)
            refs.append(ImageRef(str(path), None))
        texts = [f"caption {'x' * (k % 5)} {k}" for k in range(2 * n)]
        galleries[split] = Gallery([f"{split}{k}" for k in range(n)], refs, texts,
                                   np.arange(2 * n) // 2)
    scorer = BatchLogLikelihood()
    whole = score_retrieval_shard(scorer, galleries, "0-of-1", batch_size=4, image_batch=3)
    one = retrieval_arrays(galleries, {s: whole[s] for s in ("test", "val")})
    assert one["test"].shape == (11, 22) and not np.isnan(one["val"]).any()
    paths = []
    for name in shard_names(4):
        path = tmp_path / f"{name}.npz"
        write_npz(score_retrieval_shard(scorer, galleries, name, batch_size=4, image_batch=3),
                  path)
        paths.append(path)
    joined = join_retrieval_shards(paths, galleries)
    write_npz(retrieval_arrays(galleries, joined), tmp_path / "joined.npz")
    write_npz(one, tmp_path / "one.npz")
    assert (tmp_path / "joined.npz").read_bytes() == (tmp_path / "one.npz").read_bytes()
    with pytest.raises(ValueError, match="in none of"):
        join_retrieval_shards(paths[:3], galleries)
    with pytest.raises(ValueError, match="earlier shard"):
        join_retrieval_shards([paths[0], *paths], galleries)
