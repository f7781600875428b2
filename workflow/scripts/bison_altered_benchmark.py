"""BISON under query alterations (negation, synonym, hypernym, permutation, reversal): the
items plus an altered copy per alteration and seed (BISON Fig. 9)."""

import pandas as pd

from vlcomp.benchmarks.bison import altered_items
from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.text.nlp import load_spacy
from vlcomp.text.perturbations import changed_summary, perturb_captions
from vlcomp.text.wordnet import load_wordnet

with job_log(snakemake.log[0]) as log:
    items = read_parquet(snakemake.input.bison)
    captions = pd.DataFrame({"caption_id": items.item_id,
                             "text": [texts[0] for texts in items.texts]})
    table = perturb_captions(captions, snakemake.params.alterations, snakemake.params.seeds,
                             nlp=load_spacy(snakemake.params.spacy_model),
                             wordnet=load_wordnet(snakemake.input.wordnet),
                             bison_word_choice=snakemake.params.word_choice)
    log.info("word_choice=%s seeds=%s", snakemake.params.word_choice, snakemake.params.seeds)
    log.info("changed per alteration:\n%s", changed_summary(table).to_string(index=False))
    write_parquet(table, snakemake.output.altered)
    write_parquet(altered_items(items, table), snakemake.output.benchmark)
