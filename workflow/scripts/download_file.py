"""Fetch one remote file into resources/ (atomic, retried, checksummed)."""

from vlcomp.data.download import fetch
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    checked = fetch(snakemake.params.url, snakemake.output.file, sha256=snakemake.params.sha256,
                    retries=snakemake.params.retries)
    log.info("%s: %d bytes, sha256 %s (%s)", snakemake.output.file, checked.size, checked.sha256,
             checked.against)
