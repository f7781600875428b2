"""A retrieval benchmark: a dataset's test images as gallery; as queries each image's finest
caption (the world's validation protocol) or every caption (COCO / Flickr30k Karpathy test)."""


from vlcomp.benchmarks.retrieval import finest_caption_queries, gallery_queries
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    gallery = read_parquet(snakemake.input.gallery)[["image_id"]]
    captions = read_parquet(snakemake.input.captions)
    test = captions[captions.split == "test"]
    image_ids = gallery.image_id.tolist()
    if snakemake.params.queries == "all":
        queries = gallery_queries(test, image_ids)[["query_id", "image_id", "text"]]
    else:
        queries = finest_caption_queries(test, image_ids)
    write_parquet(gallery, snakemake.output.gallery)
    write_parquet(queries, snakemake.output.queries)
    log.info("%d gallery images, %d queries (%s)", len(gallery), len(queries),
             snakemake.params.queries)
