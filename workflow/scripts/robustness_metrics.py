"""Retrieval of one model on every robustness condition: clean galleries, perturbed texts and
shuffled images (ARO Tables 3-4, Hendriksen et al.); per-item outcomes for their bootstrap CIs.
Each record also names its gallery's ``t2i_gallery``, the ``tables`` it feeds and how the
model ranked it (``ranking``: by its embeddings, or re-ranked by ITM with ``k_test``)."""

import pandas as pd

from vlcomp.io import read_parquet, write_json, write_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.robustness import evaluate_gallery, gallery_links, item_table
from vlcomp.report.tables import write_csv
from vlcomp.score.rerank_files import EMBEDDING_RANKING, ranking_label
from vlcomp.score.robustness_rerank import RerankedFile, read_embeddings

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    model = read_embeddings(p.imagesets, inp.model_images, inp.model_texts)
    relevance = read_embeddings(p.imagesets, inp.relevance_images, inp.relevance_texts)
    perturbed = read_parquet(inp.perturbed)
    reranked = RerankedFile(inp.reranked[0]) if inp.reranked else None
    records, items = [], []
    for gallery, g_path, q_path, e_path in zip(p.galleries, inp.galleries, inp.queries,
                                               inp.t2i_extra, strict=True):
        image_ids = read_parquet(g_path).image_id.tolist()
        queries = read_parquet(q_path)
        extra_table = read_parquet(e_path)
        extra = list(zip(extra_table.imageset, extra_table.image_id, strict=True))
        chosen = gallery in p.perturbed_galleries
        k_test = reranked.k_test(gallery) if reranked else None
        rankings = None
        if k_test is not None:
            links = gallery_links(gallery, image_ids, queries, extra)
            rankings = reranked.rankings(gallery, links)
        mine = evaluate_gallery(
            gallery, image_ids, queries, model, relevance,
            perturbed=perturbed if chosen else None,
            image_conditions=p.image_conditions.get(gallery, ()) if chosen else (),
            clean_imageset=p.gallery_imagesets[gallery], items=items, t2i_extra=extra,
            reranked=rankings, text_perturbations=p.text_perturbations.get(gallery, ()),
        )
        spec = p.gallery_specs[gallery]
        ranking = EMBEDDING_RANKING if k_test is None else ranking_label(k_test)
        records += [{**r, "t2i_gallery": spec.get("t2i_gallery", "test"),
                     "tables": " ".join(p.gallery_tables[gallery]), "ranking": ranking,
                     **({} if k_test is None else {"k_test": k_test})} for r in mine]
        log.info("%s: %d images, %d queries, text->image over %d images, %s; clean %s",
                 gallery, len(image_ids), len(queries), mine[0]["t2i_images"], ranking,
                 mine[0])
    write_json({"benchmark": "robustness", "model": snakemake.wildcards.model,
                "relevance_model": p.relevance_model, "conditions": records},
               snakemake.output.json)
    write_csv(pd.DataFrame(records), snakemake.output.csv)
    write_parquet(item_table(items), snakemake.output.outcomes)
    log.info("%d conditions", len(records))
