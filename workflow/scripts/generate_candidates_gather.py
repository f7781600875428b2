"""Join a generated set's shards: their images in the set's folder (hard links), their
manifests in one, as an unsharded job writes them."""

from vlcomp.generate.candidate_shards import gather_candidates
from vlcomp.io import write_parquet
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    manifest = gather_candidates(snakemake.input.candidates, snakemake.output.images)
    write_parquet(manifest, snakemake.output.candidates)
    log.info("%d shards joined: %d images for %d captions", len(snakemake.input.candidates),
             len(manifest), manifest.key.nunique())
