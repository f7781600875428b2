"""Retrieval with a captioner's log P(t|i) (VisualGPTScore Table 4): the score matrices of
the test gallery and of a validation gallery built the same way (same query protocol), α*
picked on validation, image→text R@K at α = 0, 1, α*, text→image R@K raw."""

import numpy as np

from vlcomp.benchmarks.retrieval import finest_caption_queries, gallery_queries
from vlcomp.io import atomic_path, read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.metrics.generative_retrieval import generative_retrieval
from vlcomp.models.precision import use_for_this_job
from vlcomp.models.registry import build_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.report.tables import write_csv
from vlcomp.score.generative_matrix import generative_score_matrix
from vlcomp.torch_threads import set_torch_threads


def gallery(image_ids, queries, images, cap):
    """(image paths, texts, text→image row) of the first ``cap`` gallery images."""
    ids = [str(i) for i in image_ids][:cap]
    rank = {i: k for k, i in enumerate(ids)}
    mine = queries[queries.image_id.astype(str).isin(rank)]
    paths = dict(zip(images.image_id.astype(str), images.path, strict=True))
    missing = [i for i in ids if i not in paths]
    if missing:
        raise ValueError(f"gallery images without a path in the image set: {missing[:3]}")
    links = np.array([rank[str(i)] for i in mine.image_id], dtype=np.int64)
    return [paths[i] for i in ids], [str(t) for t in mine.text], links


with job_log(snakemake.log[0]) as log:
    p, inp, out = snakemake.params, snakemake.input, snakemake.output
    set_torch_threads(p.threads)
    use_for_this_job(p.device, p.autocast)
    scorer = build_scorer(snakemake.wildcards.model, p.entry, p.device)
    passes = count_vision_passes(scorer)
    cap = p.images or None
    test = gallery(read_parquet(inp.gallery).image_id, read_parquet(inp.queries),
                   read_parquet(inp.test_images), cap)
    val_images = read_parquet(inp.val_images)
    captions = read_parquet(inp.captions)
    val_ids = sorted(val_images.image_id.astype(str))[:cap]
    val_captions = captions[captions.split == "val"]
    make = gallery_queries if p.queries == "all" else finest_caption_queries
    val = gallery(val_ids, make(val_captions, val_ids), val_images, cap)
    matrices = {}
    for name, (paths, texts, _) in (("test", test), ("val", val)):
        log.info("%s gallery: %d images, %d texts", name, len(paths), len(texts))
        matrices[name] = generative_score_matrix(scorer, paths, texts, p.batch_size,
                                                 desc=f"{name} log P(t|i)")
    curve, record = generative_retrieval(matrices["test"], test[2], matrices["val"], val[2],
                                         step=p.step)
    record |= {"benchmark": snakemake.wildcards.benchmark, "model": snakemake.wildcards.model}
    with atomic_path(out.scores) as tmp, open(tmp, "wb") as handle:
        np.savez(handle, test=matrices["test"], test_links=test[2], val=matrices["val"],
                 val_links=val[2])
    write_csv(curve.set_index("alpha"), out.csv)
    write_json(record, out.json)
    log.info("raw: %s; alpha=1: %s; alpha*val %s", record["overall"], record["alpha1"],
             record["alpha_val"])
    log.info(passes.summary())
