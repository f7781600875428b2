"""Hendriksen et al. section 3: the concept-granularity features of each gallery's captions."""

from pathlib import Path

import pandas as pd

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.robustness import GALLERY_LABELS
from vlcomp.report.tables import write_table
from vlcomp.text.granularity import caption_features, granularity_intervals, granularity_summary
from vlcomp.text.nlp import load_spacy
from vlcomp.text.wordnet import load_wordnet

with job_log(snakemake.log[0]) as log:
    nlp = load_spacy(snakemake.params.spacy_model, parser=True)
    wordnet = load_wordnet(snakemake.input.wordnet)
    p = snakemake.params
    rows, intervals = {}, []
    for gallery, path in zip(p.galleries, snakemake.input.queries, strict=True):
        texts = read_parquet(path)["text"].astype(str).tolist()
        features = caption_features(texts, nlp, wordnet)
        rows[GALLERY_LABELS.get(gallery, gallery)] = granularity_summary(features)
        # each feature's mean with its interval over captions (Hendriksen et al.'s claim)
        intervals.append(granularity_intervals(
            features, gallery=gallery, n_resamples=p.resamples, seed=p.seed,
            confidence=p.confidence, method=p.method))
        log.info("%s: %d captions: %s", gallery, len(texts), rows[GALLERY_LABELS.get(
            gallery, gallery)])
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "captions"
    pd.concat(intervals, ignore_index=True).to_csv(snakemake.output.intervals, index=False)
    write_table(table, Path(snakemake.output.csv).with_suffix(""), notes=[
        "Hendriksen et al. section 3's features; the authors released no code for them, so "
        "each definition is vlcomp's (vlcomp.text.granularity)."])
