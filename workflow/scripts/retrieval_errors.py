"""BISON Table 1 on the world: the share of each model's text-to-image R@1 errors on one
gallery whose first-ranked image the oracle finds the query true of, with its bootstrap CI
over the gallery's images (`vlcomp.metrics.retrieval_errors`)."""

from vlcomp.data.world import read_scenes
from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.metrics.retrieval import retrieval_hits
from vlcomp.metrics.retrieval_errors import judged_errors_outcome, top_wrong_images
from vlcomp.metrics.uncertainty import bootstrap_outcomes
from vlcomp.report.tables import write_csv
from vlcomp.score.embeddings import ids_path_for, load_embeddings
from vlcomp.world.config import WorldConfig
from vlcomp.world.oracle import Oracle

with job_log(snakemake.log[0]) as log:
    p, inp = snakemake.params, snakemake.input
    gallery = read_parquet(inp.gallery).image_id.astype(str).tolist()
    queries = read_parquet(inp.queries)
    row_of = {image: k for k, image in enumerate(gallery)}
    links = [row_of[str(i)] for i in queries.image_id]
    captions = queries.text.tolist()
    oracle, scenes = Oracle(WorldConfig.from_dict(p.world)), read_scenes(inp.scenes)

    def judge(t: int, image: int) -> bool:
        return oracle.is_true(captions[t], scenes[gallery[image]])

    outcomes = {}
    for model, images_npy, texts_npy in zip(p.models, inp.images, inp.texts, strict=True):
        image_emb, image_rows = load_embeddings(images_npy, ids_path_for(images_npy))
        text_emb, text_rows = load_embeddings(texts_npy, ids_path_for(texts_npy))
        images = image_emb[[image_rows[i] for i in gallery]]
        texts = text_emb[[text_rows[t] for t in captions]]
        missed = ~retrieval_hits(images, texts, links)["t2i_r1"]
        outcome, counts = judged_errors_outcome(missed, top_wrong_images(images, texts, links),
                                                links, judge)
        outcomes[model] = [outcome]
        log.info("%s: %d of %d R@1 errors judged right by the oracle", model,
                 counts["judged_right"], counts["errors"])
    boot = bootstrap_outcomes(outcomes, len(gallery),
                              benchmark=f"retrieval_errors/{snakemake.wildcards.gallery}",
                              n_resamples=p.resamples, seed=p.seed, confidence=p.confidence,
                              method=p.method)
    write_csv(boot.table(), snakemake.output[0], index=False)
    log.info("%d images, %d queries, %d models, %d resamples (seed %d)", len(gallery),
             len(queries), len(outcomes), p.resamples, p.seed)
