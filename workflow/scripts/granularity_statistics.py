"""Hendriksen et al. section 3: the concept-granularity features of each gallery's captions."""

from pathlib import Path

import pandas as pd

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.robustness import GALLERY_LABELS
from vlcomp.report.tables import write_table
from vlcomp.text.granularity import caption_features, granularity_summary
from vlcomp.text.nlp import load_spacy
from vlcomp.text.wordnet import load_wordnet

with job_log(snakemake.log[0]) as log:
    nlp = load_spacy(snakemake.params.spacy_model, parser=True)
    wordnet = load_wordnet(snakemake.input.wordnet)
    rows = {}
    for gallery, path in zip(snakemake.params.galleries, snakemake.input.queries, strict=True):
        texts = read_parquet(path)["text"].astype(str).tolist()
        rows[GALLERY_LABELS.get(gallery, gallery)] = granularity_summary(
            caption_features(texts, nlp, wordnet))
        log.info("%s: %d captions: %s", gallery, len(texts), rows[GALLERY_LABELS.get(
            gallery, gallery)])
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "captions"
    write_table(table, Path(snakemake.output.csv).with_suffix(""), notes=[
        "Hendriksen et al. section 3's features; the authors released no code for them, so "
        "each definition is vlcomp's (vlcomp.text.granularity)."])
