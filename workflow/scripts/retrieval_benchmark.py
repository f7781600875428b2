"""A retrieval benchmark: a dataset's test images as gallery; as queries each image's finest
caption (the world's validation protocol) or every caption (COCO / Flickr30k Karpathy test),
optionally through BLIP's ``pre_caption`` (ARO's retrieval queries)."""


from vlcomp.benchmarks.retrieval import preprocess_queries, retrieval_queries
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    gallery = read_parquet(snakemake.input.gallery)[["image_id"]]
    captions = read_parquet(snakemake.input.captions)
    test = captions[captions.split == "test"]
    image_ids = gallery.image_id.tolist()
    preprocess = snakemake.params.query_preprocess
    raw = retrieval_queries(test, image_ids, snakemake.params.queries)
    queries = preprocess_queries(raw, preprocess)
    write_parquet(gallery, snakemake.output.gallery)
    write_parquet(queries, snakemake.output.queries)
    log.info("%d gallery images, %d queries (%s)", len(gallery), len(queries),
             snakemake.params.queries)
    log.info("query_preprocess=%s: %d of %d query texts changed", preprocess,
             int((raw.text != queries.text).sum()), len(queries))
