"""Retrieval galleries with every caption as a query, at coarse / original / fine granularity."""

from __future__ import annotations

import pandas as pd
import pytest

from vlcomp.benchmarks.retrieval import GRANULARITIES, gallery_queries, regranulate
from vlcomp.data.world import read_scenes
from vlcomp.world.grammar import CaptionParser, CaptionSpec
from vlcomp.world.oracle import Oracle


@pytest.fixture(scope="module")
def world(world_dir):
    d = world_dir
    scenes = {k: s for k, s in read_scenes(d / "scenes.jsonl").items() if s.split == "test"}
    captions = pd.read_parquet(d / "captions.parquet")
    return scenes, captions[captions.split == "test"]


@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_gallery_queries_keep_ids_and_truth(world, world_cfg, granularity):
    scenes, captions = world
    image_ids = sorted(scenes)[:20]
    queries = gallery_queries(captions, image_ids, scenes, granularity)
    want = captions[captions.image_id.isin(image_ids)]
    assert sorted(queries.query_id) == sorted(want.caption_id)
    assert list(dict.fromkeys(queries.image_id)) == image_ids
    oracle = Oracle(world_cfg)
    parser = CaptionParser(world_cfg.shapes, world_cfg.colors, world_cfg.sizes)
    for row in queries.itertuples():
        assert oracle.is_true(row.text, scenes[row.image_id]), row.text
        nps = parser.parse(row.text).noun_phrases()
        if granularity == "coarse":
            assert all(np_.color is None and np_.size is None for np_ in nps)
        if granularity == "fine":
            assert all(np_.color and np_.size for np_ in nps)
    if granularity == "original":
        by_id = want.set_index("caption_id").text
        assert all(by_id[q] == t for q, t in zip(queries.query_id, queries.text, strict=True))


def test_fine_captions_are_longer_and_regranulate_rejects_unknown(world):
    scenes, captions = world
    ids = sorted(scenes)[:20]
    coarse, fine = (gallery_queries(captions, ids, scenes, g) for g in ("coarse", "fine"))
    assert fine.text.str.len().mean() > coarse.text.str.len().mean()
    spec = CaptionSpec.from_json(captions.spec.iloc[0])
    with pytest.raises(ValueError, match="unknown granularity"):
        regranulate(spec, scenes[captions.image_id.iloc[0]], "medium")
    with pytest.raises(ValueError, match="no caption"):
        gallery_queries(captions, ["nope"], scenes)
