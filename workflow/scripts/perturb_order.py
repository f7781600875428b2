"""ARO word-order perturbations of the test captions for one seed."""


from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.text.nlp import load_spacy
from vlcomp.text.order import perturb_captions

with job_log(snakemake.log[0]) as log:
    captions = read_parquet(snakemake.input.captions)
    captions = captions[captions.split == snakemake.params.split]
    nlp = load_spacy(snakemake.params.spacy_model)
    perturbed = perturb_captions(captions, nlp, int(snakemake.wildcards.seed))
    write_parquet(perturbed, snakemake.output[0])
    log.info("%d captions, %.1f%% perturbations changed the caption",
             captions.shape[0], 100 * perturbed.changed.mean())
