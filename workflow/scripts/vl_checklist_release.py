"""VL-CheckList Relation's released entries (action and spatial corpora) as i2t items."""

import warnings

from vlcomp.data.vl_checklist import vl_checklist_relation_items
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        items, images = vl_checklist_relation_items(
            p.release, "resources/vl_checklist", corpora=p.corpora, missing=p.missing,
            max_per_corpus=p.max_per_corpus, image_roots=p.image_roots)
    for warning in caught:
        log.warning("%s", warning.message)
    write_parquet(items, snakemake.output.benchmark)
    write_parquet(images, snakemake.output.imageset)
    log.info("%d items on %d images; per tag and corpus %s", len(items), len(images),
             items.groupby(["subset", "corpus"]).size().to_dict())
