"""Retrieval of one model on every robustness condition: clean galleries, perturbed texts and
shuffled images (ARO Tables 3-4, Hendriksen et al.); per-item outcomes for their bootstrap CIs."""

import pandas as pd

from vlcomp.io import read_parquet, write_json, write_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.robustness import Embeddings, evaluate_gallery, item_table
from vlcomp.report.tables import write_csv
from vlcomp.score.embeddings import ids_path_for, load_embeddings


def embeddings(image_files, text_file):
    sets = snakemake.params.imagesets
    images = {s: load_embeddings(f, ids_path_for(f)) for s, f in zip(sets, image_files,
                                                                      strict=True)}
    return Embeddings(images, load_embeddings(text_file, ids_path_for(text_file)))


with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    model = embeddings(snakemake.input.model_images, snakemake.input.model_texts)
    relevance = embeddings(snakemake.input.relevance_images, snakemake.input.relevance_texts)
    perturbed = read_parquet(snakemake.input.perturbed)
    records, items = [], []
    for gallery, g_path, q_path in zip(p.galleries, snakemake.input.galleries,
                                       snakemake.input.queries, strict=True):
        image_ids = read_parquet(g_path).image_id.tolist()
        queries = read_parquet(q_path)
        chosen = gallery in p.perturbed_galleries
        records += evaluate_gallery(
            gallery, image_ids, queries, model, relevance,
            perturbed=perturbed if chosen else None,
            image_conditions=p.image_conditions.get(gallery, ()) if chosen else (),
            clean_imageset=p.gallery_imagesets[gallery], items=items,
        )
        log.info("%s: %d images, %d queries; clean %s", gallery, len(image_ids), len(queries),
                 next(r for r in records if r["gallery"] == gallery))
    write_json({"benchmark": "robustness", "model": snakemake.wildcards.model,
                "relevance_model": p.relevance_model, "conditions": records},
               snakemake.output.json)
    write_csv(pd.DataFrame(records), snakemake.output.csv)
    write_parquet(item_table(items), snakemake.output.outcomes)
    log.info("%d conditions", len(records))
