"""Retrieval of one model on every robustness condition: clean galleries, perturbed texts and
shuffled images (ARO Tables 3-4, Hendriksen et al.); per-item outcomes for their bootstrap CIs.
Each record also names its gallery's ``t2i_gallery`` and the ``tables`` it feeds."""

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
    for gallery, g_path, q_path, e_path in zip(p.galleries, snakemake.input.galleries,
                                               snakemake.input.queries,
                                               snakemake.input.t2i_extra, strict=True):
        image_ids = read_parquet(g_path).image_id.tolist()
        queries = read_parquet(q_path)
        extra = read_parquet(e_path)
        chosen = gallery in p.perturbed_galleries
        mine = evaluate_gallery(
            gallery, image_ids, queries, model, relevance,
            perturbed=perturbed if chosen else None,
            image_conditions=p.image_conditions.get(gallery, ()) if chosen else (),
            clean_imageset=p.gallery_imagesets[gallery], items=items,
            t2i_extra=list(zip(extra.imageset, extra.image_id, strict=True)),
        )
        spec = p.gallery_specs[gallery]
        records += [{**r, "t2i_gallery": spec.get("t2i_gallery", "test"),
                     "tables": " ".join(p.gallery_tables[gallery])} for r in mine]
        log.info("%s: %d images, %d queries, text->image over %d images; clean %s", gallery,
                 len(image_ids), len(queries), mine[0]["t2i_images"], mine[0])
    write_json({"benchmark": "robustness", "model": snakemake.wildcards.model,
                "relevance_model": p.relevance_model, "conditions": records},
               snakemake.output.json)
    write_csv(pd.DataFrame(records), snakemake.output.csv)
    write_parquet(item_table(items), snakemake.output.outcomes)
    log.info("%d conditions", len(records))
