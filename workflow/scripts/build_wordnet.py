"""resources/wordnet: Princeton WordNet 3.0 from Debian's wordnet-base, readable by nltk."""

from vlcomp.jobs import job_log
from vlcomp.text.wordnet import build_wordnet_dir

with job_log(snakemake.log[0]) as log:
    folder = build_wordnet_dir(snakemake.params.source, snakemake.output[0])
    log.info("WordNet 3.0 in %s", folder)
