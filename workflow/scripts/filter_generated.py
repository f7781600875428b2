"""Filter generated candidates automatically (BiVLC's two human steps); report agreement."""

import json

import pandas as pd

from vlcomp.data.world import read_scenes
from vlcomp.generate.candidates import generation_items
from vlcomp.generate.filters import (
    ModelFilter,
    OracleInputs,
    filter_candidates,
    kept_instances,
    texts_of,
)
from vlcomp.generate.world_backend import scene_from_meta
from vlcomp.io import read_parquet, write_json, write_parquet
from vlcomp.jobs import job_log
from vlcomp.models.auto_batch import job_batch
from vlcomp.torch_threads import set_torch_threads
from vlcomp.world.config import WorldConfig
from vlcomp.world.grammar import CaptionParser

with job_log(snakemake.log[0]) as log:
    options = snakemake.params.filter
    items = generation_items(read_parquet(snakemake.input.source))
    candidates = read_parquet(snakemake.input.candidates).rename(columns={"key": "item_id"})
    oracle = None
    if hasattr(snakemake.input, "scenes"):
        cfg = WorldConfig.from_dict(snakemake.params.world)
        generated = {
            image_id: scene_from_meta(json.loads(meta)["scene"], image_id)
            for image_id, meta in zip(candidates.image_id, candidates.meta, strict=True)
        }
        oracle = OracleInputs(read_scenes(snakemake.input.scenes), generated,
                              CaptionParser(cfg.shapes, cfg.colors, cfg.sizes),
                              cfg.next_to_distance)
    embeddings = None
    if hasattr(snakemake.input, "model"):
        from vlcomp.models.registry import build_scorer
        from vlcomp.score.embeddings import embed_image_set, embed_texts

        set_torch_threads(snakemake.params.threads)
        scorer = build_scorer(options["model"], snakemake.params.entry, snakemake.params.device)
        batch = job_batch(scorer, snakemake.params.batch_size, "images",
                          snakemake.params.device, say=log.info)
        natural = read_parquet(snakemake.input.images)
        natural = natural[natural.image_id.isin({i[0] for i in items.image_ids})]
        images = pd.concat([natural[["image_id", "path"]], candidates[["image_id", "path"]]])
        image_emb = embed_image_set(scorer, images, batch_size=batch)
        texts = texts_of(items)
        text_emb = embed_texts(scorer, texts, batch_size=batch)
        embeddings = (dict(zip(images.image_id, image_emb, strict=True)),
                      dict(zip(texts, text_emb, strict=True)))
    candidates, decisions, report = filter_candidates(
        items, candidates, options.get("decider", "oracle"), oracle, embeddings,
        ModelFilter(options.get("select_margin", 0.0), options.get("ambiguity_margin", 0.0)),
    )
    instances = kept_instances(items, decisions, candidates)
    write_parquet(candidates, snakemake.output.manifest)
    write_parquet(decisions, snakemake.output.selection)
    write_parquet(instances, snakemake.output.instances)
    write_parquet(
        pd.DataFrame({"image_id": instances.negative_image_id, "path": instances.negative_path}),
        snakemake.output.imageset,
    )
    write_json(report, snakemake.output.report)
    log.info("filter report: %s", json.dumps(report, sort_keys=True))
