"""VL-CheckList Relation's released entries (action and spatial corpora) as i2t items, sampled
as VL-CheckList's ``Evaluate`` samples them, with a report of what each corpus gave."""

import warnings

from vlcomp.data.vl_checklist import sampling_note, vl_checklist_relation
from vlcomp.io import write_json, write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = vl_checklist_relation(
            p.release, "resources/vl_checklist", corpora=p.corpora, missing=p.missing,
            max_missing=p.max_missing, max_per_corpus=p.max_per_corpus,
            image_roots=p.image_roots)
    for warning in caught:
        log.warning("%s", warning.message)
    write_parquet(found.items, snakemake.output.benchmark)
    write_parquet(found.images, snakemake.output.imageset)
    report = found.report()
    write_json(report, snakemake.output.report)
    log.info("%d items on %d images. %s", len(found.items), len(found.images),
             sampling_note(report))
