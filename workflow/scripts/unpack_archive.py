"""Unpack the downloaded archives (zip or tar.gz) of one folder under resources/, in order,
via a temporary folder."""

from vlcomp.data.download import extract_archives
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    extract_archives(list(snakemake.input), snakemake.output[0])
    log.info("%s -> %s", ", ".join(snakemake.input), snakemake.output[0])
