"""Natural-vs-synthetic image and text detectors on one frozen encoder; BiVLC Table 4, and
each test item's detector probabilities (for its bootstrap CIs)."""

import numpy as np
import pandas as pd

from vlcomp.io import read_parquet, write_json, write_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.detection import detection_scores, sugarcrepe_by_detection
from vlcomp.models.auto_batch import job_batch
from vlcomp.models.registry import build_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.embeddings import embed_image_set, embed_texts, load_stacked_embeddings
from vlcomp.torch_threads import set_torch_threads
from vlcomp.train.detectors import DetectorConfig, split_by_image, subsample, train_detector


def cached_embeddings(npys, wanted):
    """The rows of ``wanted`` ids found in the model's cached image embeddings."""
    if not npys:
        return {}
    array, rows = load_stacked_embeddings(npys)
    return {i: array[r] for i, r in rows.items() if i in wanted}


with job_log(snakemake.log[0]) as log:
    set_torch_threads(snakemake.params.threads)
    opts = snakemake.params.options
    scorer = build_scorer(snakemake.wildcards.model, snakemake.params.entry,
                          snakemake.params.device)
    batch = job_batch(scorer, snakemake.params.batch_size, "images", snakemake.params.device,
                      say=log.info)
    passes = count_vision_passes(scorer)
    inst = read_parquet(snakemake.input.instances)
    if opts.get("max_instances") and len(inst) > opts["max_instances"]:
        inst = subsample(inst, opts["max_instances"], opts.get("seed", 0))
    bivlc = read_parquet(snakemake.input.bivlc)
    sugarcrepe = read_parquet(snakemake.input.sugarcrepe)
    paths = pd.concat([read_parquet(p)[["image_id", "path"]] for p in snakemake.input.images]
                      + [pd.DataFrame({"image_id": inst.negative_image_id,
                                       "path": inst.negative_path})]).drop_duplicates("image_id")
    needed = (set(inst.image_id) | set(inst.negative_image_id)
              | {i for ids in bivlc.image_ids for i in ids})
    paths = paths[paths.image_id.isin(needed)].sort_values("image_id")
    image_emb = cached_embeddings(snakemake.input.embeddings, needed)
    todo = paths[~paths.image_id.isin(image_emb)]
    if len(todo):
        image_emb |= dict(zip(todo.image_id, embed_image_set(scorer, todo, batch), strict=True))
    log.info("%d image embeddings reused, %d encoded here", len(paths) - len(todo), len(todo))
    texts = sorted(set(inst.caption) | set(inst.negative)
                   | {t for texts in bivlc.texts for t in texts}
                   | {t for texts in sugarcrepe.texts for t in texts})
    text_emb = dict(zip(texts, embed_texts(scorer, texts, batch), strict=True))
    log.info("embedded %d images and %d texts", len(image_emb), len(texts))

    val = split_by_image(inst.image_id.to_numpy(), opts.get("val_fraction", 0.1),
                         opts.get("seed", 0))

    def rows(emb, keys):
        return np.stack([emb[k] for k in keys])

    heads = {}
    for kind, emb, nat_col, syn_col in (("image", image_emb, "image_id", "negative_image_id"),
                                        ("text", text_emb, "caption", "negative")):
        cfg = DetectorConfig(epochs=opts.get(f"{kind}_epochs", 10),
                             batch_size=opts.get("batch_size", 200),
                             lr=opts.get("lr", 1e-3), seed=opts.get("seed", 0))
        heads[kind] = train_detector(
            rows(emb, inst[nat_col][~val]), rows(emb, inst[syn_col][~val]),
            rows(emb, inst[nat_col][val]), rows(emb, inst[syn_col][val]), cfg)
        log.info("%s detector: best epoch %d, log %s", kind, heads[kind].best_epoch,
                 heads[kind].log)

    def p(kind, emb, keys):
        return heads[kind].probability(rows(emb, keys))

    bivlc_p = {f"p_{kind}{k}": p(kind, emb, [x[k] for x in column])
               for kind, emb, column in (("image", image_emb, bivlc.image_ids),
                                         ("text", text_emb, bivlc.texts)) for k in (0, 1)}
    sugarcrepe_p = {f"p_text{k}": p("text", text_emb, [t[k] for t in sugarcrepe.texts])
                    for k in (0, 1)}
    scores = detection_scores(bivlc_p["p_image0"], bivlc_p["p_image1"], bivlc_p["p_text0"],
                              bivlc_p["p_text1"])
    scores["SugarCrepe"] = sugarcrepe_by_detection(sugarcrepe_p["p_text0"],
                                                   sugarcrepe_p["p_text1"])
    write_parquet(pd.concat([
        pd.DataFrame({"benchmark": "bivlc", "item_id": bivlc.item_id, **bivlc_p}),
        pd.DataFrame({"benchmark": "sugarcrepe", "item_id": sugarcrepe.item_id,
                      **sugarcrepe_p})], ignore_index=True), snakemake.output.probabilities)
    scores["encoder"] = snakemake.wildcards.model
    scores["train_instances"] = int((~val).sum())
    scores["val_instances"] = int(val.sum())
    write_json(scores, snakemake.output.metrics)
    write_json({k: h.to_dict() for k, h in heads.items()}, snakemake.output.heads)
    log.info("detection-based scores: %s", scores)
    log.info(passes.summary())
