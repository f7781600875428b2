"""FLAVA's routing in the workflow: under config/paper.yaml one score_pairs job scores ARO's
choice benchmarks with its ITM head and every other benchmark with the cosine of the
embeddings it writes (ARO's model_zoo/flava.py); ``pair_score: none`` or family hf_dual
restore the embed_model + score_and_metrics route."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from .workflow_runs import REPO, TINY, snakemake

PAPER = REPO / "config" / "paper.yaml"
ARO_SETS = ["vg_relation", "vg_attribution", "coco_order", "flickr30k_order"]


def model_jobs(stdout: str, model: str) -> Counter:
    """Jobs per rule whose wildcards name ``model``, from a dry run's job list."""
    jobs = Counter()
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", stdout):
        rule = re.match(r"(?:local)?rule (\w+):", block)
        if rule and re.search(rf"wildcards:.*\bmodel={re.escape(model)}\b", block):
            jobs[rule[1]] += 1
    return jobs


def dry_run_flava(tmp_path: Path, **changes) -> Counter:
    cfg = yaml.safe_load(PAPER.read_text())
    cfg["models"]["flava"].update(changes)
    cfg["models"]["flava"] = {k: v for k, v in cfg["models"]["flava"].items()
                              if v is not None}
    config = tmp_path / "paper.yaml"
    config.write_text(yaml.safe_dump(cfg))
    result = snakemake("-n", "--configfile", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    return model_jobs(result.stdout, "flava")


def test_paper_flava_scores_aros_sets_with_its_itm_head(tmp_path):
    flava = yaml.safe_load(PAPER.read_text())["models"]["flava"]
    assert flava["family"] == "hf_flava" and flava["pair_score"] == "itm_prob"
    assert flava["pair_benchmarks"] == ARO_SETS
    # one job embeds and scores pairs; one more writes the 15 choice benchmarks' metrics
    # from its score tables
    assert dry_run_flava(tmp_path) == {"score_pairs": 1, "pair_metrics": 1,
                                       "retrieval_metrics": 2, "robustness_metrics": 1}


@pytest.mark.parametrize("switch", [{"pair_score": "none"},
                                    {"family": "hf_dual", "pair_score": None,
                                     "pair_benchmarks": None}])
def test_the_switch_restores_the_cosine_everywhere(tmp_path, switch):
    assert dry_run_flava(tmp_path, **switch) == {"embed_model": 1, "score_and_metrics": 1,
                                                 "retrieval_metrics": 2,
                                                 "robustness_metrics": 1}


@pytest.mark.slow
def test_flava_pair_job_end_to_end(tmp_path):
    """The tiny world with a tiny FLAVA: VG-Relation by ITM, SugarCrepe by cosine, retrieval
    from the same job's embeddings, each picture through the image encoder once."""
    import torch
    import transformers as tf

    from vlcomp.models.registry import build_scorer
    from vlcomp.score.embeddings import load_stacked_embeddings, open_image
    from vlcomp.score.matrices import score_items
    from vlcomp.score.pairs import image_index

    from .test_hf_dual_models import SMALL, VIT, _bert_tokenizer

    tokenizer = _bert_tokenizer(tmp_path / "tok")
    wide = {"initializer_range": 0.5}
    torch.manual_seed(0)
    model = tf.FlavaForPreTraining(tf.FlavaConfig(
        image_config={**VIT, **wide}, multimodal_config={**SMALL, **wide},
        text_config=dict(vocab_size=len(tokenizer), max_position_embeddings=77, **SMALL,
                         **wide),
        image_codebook_config=dict(hidden_size=8, num_groups=1, num_blocks_per_group=1,
                                   vocab_size=16),
        hidden_size=16, projection_dim=8, **wide)).eval()
    model.save_pretrained(tmp_path / "flava")
    tf.FlavaProcessor(image_processor=tf.FlavaImageProcessor(
        size={"height": 32, "width": 32}, crop_size={"height": 32, "width": 32}),
        tokenizer=tokenizer).save_pretrained(tmp_path / "flava")
    cfg = yaml.safe_load(TINY.read_text())
    cfg["benchmarks"] = {b: cfg["benchmarks"][b]
                         for b in ("vg_relation", "sugarcrepe", "world_retrieval")}
    cfg["train"] = {}
    for key in ("generation", "detectors", "hard_negatives", "captioners", "classification"):
        cfg.pop(key, None)
    entry = {"family": "hf_flava", "model": str(tmp_path / "flava"), "pair_score": "itm_prob",
             "pair_benchmarks": ARO_SETS}
    cfg["models"] = {"flava": {**entry, "label": "FLAVA"}}
    config = tmp_path / "flava.yaml"
    config.write_text(yaml.safe_dump(cfg))
    work = tmp_path / "work"
    work.mkdir()
    targets = [f"results/metrics/flava/{b}.json" for b in cfg["benchmarks"]]
    result = snakemake("--cores", "2", *targets, "--configfile", str(config), cwd=work)
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:]
    for b in cfg["benchmarks"]:
        assert json.loads((work / f"results/metrics/flava/{b}.json").read_text())["model"] \
            == "flava"
    # SugarCrepe: the cosine score_and_metrics would compute from the written embeddings
    items = pd.read_parquet(work / "results/benchmarks/sugarcrepe.parquet")
    emb = work / "results/embeddings/flava"
    cosine = score_items(items, *load_stacked_embeddings([emb / "images/world_test.npy"]),
                         *load_stacked_embeddings([emb / "texts/sugarcrepe.npy"]))
    written = pd.read_parquet(work / "results/scores/flava/sugarcrepe.parquet")
    assert list(written.item_id) == list(cosine.item_id)
    for got, want in zip(written.scores, cosine.scores, strict=True):
        np.testing.assert_allclose(np.array(got.tolist(), dtype=float), want, atol=1e-9)
    # VG-Relation: the ITM match probability of each caption against the crop
    scorer = build_scorer("flava", entry)
    relation = pd.read_parquet(work / "results/benchmarks/vg_relation.parquet").head(4)
    crops = image_index([pd.read_parquet(work / "results/imagesets/vg_crops.parquet")])
    written = pd.read_parquet(work / "results/scores/flava/vg_relation.parquet").head(4)
    for item, got in zip(relation.itertuples(), written.scores, strict=True):
        ref = crops[item.image_ids[0]]
        image = open_image(str(work / ref.path), ref.box)
        want = scorer.score_pairs([image] * len(item.texts), list(item.texts))
        np.testing.assert_allclose(np.array(got.tolist(), dtype=float).ravel(), want,
                                   atol=1e-5)
    log = (work / "logs/score_pairs/flava.log").read_text()
    pictures = int(re.search(r"(\d+) pictures \(by content\)", log)[1])
    assert f"vision passes: {pictures} images through flava's vision tower" in log
    assert f"sugarcrepe: {len(items)} items (cosine of embeddings)" in log
