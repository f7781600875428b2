"""Unpack one downloaded zip into its folder under resources/ (via a temporary folder)."""

from vlcomp.data.download import extract_zip
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    extract_zip(snakemake.input[0], snakemake.output[0])
    log.info("%s -> %s", snakemake.input[0], snakemake.output[0])
