"""One retrieval gallery: the first N test images of its dataset, every caption a query, at a
granularity (world galleries only), optionally through BLIP's ``pre_caption`` (ARO's retrieval
queries; the text perturbations then apply to the pre-captioned queries, as in ARO's
``main_retrieval.py``)."""

import pandas as pd

from vlcomp.benchmarks.retrieval import gallery_queries, preprocess_queries
from vlcomp.data.world import read_scenes
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    spec = snakemake.params.spec
    test = read_parquet(snakemake.input.imageset)
    n = spec["images"]
    if n > len(test):
        raise ValueError(f"gallery {snakemake.wildcards.gallery}: {n} images asked, the test "
                         f"split has {len(test)} (config benchmarks.robustness.galleries)")
    image_ids = sorted(test.image_id)[:n]
    captions = read_parquet(snakemake.input.captions)
    scenes = read_scenes(snakemake.input.scenes) if hasattr(snakemake.input, "scenes") else None
    granularity = spec.get("granularity", "original")
    queries = gallery_queries(captions[captions.split == "test"], image_ids, scenes, granularity)
    if granularity != "original":
        queries["query_id"] = queries.query_id + f"-{granularity}"
    preprocess = spec.get("query_preprocess", "none")
    processed = preprocess_queries(queries, preprocess)
    log.info("query_preprocess=%s: %d of %d query texts changed", preprocess,
             int((processed.text != queries.text).sum()), len(queries))
    queries = processed
    write_parquet(pd.DataFrame({"image_id": image_ids}), snakemake.output.gallery)
    write_parquet(queries, snakemake.output.queries)
    log.info("%d images, %d queries (%s captions), mean %.1f characters", len(image_ids),
             len(queries), granularity, queries.text.str.len().mean())
