"""SPICE's folder: its jar and libraries beside Stanford CoreNLP 3.6.0's two jars, read from
the downloaded stanford-corenlp-full-2015-12-09.zip."""

from vlcomp.jobs import job_log
from vlcomp.metrics.captioning import prepare_spice

with job_log(snakemake.log[0]) as log:
    folder = prepare_spice(snakemake.input[0], snakemake.output[0])
    log.info("%s: %s", folder, ", ".join(sorted(p.name for p in folder.rglob("*.jar"))))
