"""Every text perturbation × seed of the queries of the perturbed galleries (spaCy once per
caption), plus the table of distinct texts every model embeds for the robustness suite."""

import time

import pandas as pd

from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.text.nlp import load_spacy
from vlcomp.text.perturbations import (
    NEEDS_TAGS,
    NEEDS_WORDNET,
    changed_summary,
    perturb_captions,
    queries_by_perturbations,
)
from vlcomp.text.wordnet import load_wordnet

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    frames = [read_parquet(f).assign(gallery=g)
              for g, f in zip(p.galleries, snakemake.input.perturbed_queries, strict=True)]
    queries, groups = queries_by_perturbations(frames, p.perturbations, p.order)
    every = {n for names in groups for n in names}
    nlp = load_spacy(p.spacy_model) if every & NEEDS_TAGS else None
    wordnet = load_wordnet(snakemake.input.wordnet) if every & NEEDS_WORDNET else None
    start, parts = time.perf_counter(), []
    for names, ids in groups.items():  # each query under its galleries' perturbations
        mine = queries[queries.query_id.isin(ids)].rename(columns={"query_id": "caption_id"})
        parts.append(perturb_captions(mine, list(names), p.seeds, nlp=nlp, wordnet=wordnet,
                                      synonym_k=p.synonym_k, typo_impl=p.typo_impl,
                                      distraction_wording=p.distraction_wording,
                                      shuffle_tokens=p.shuffle_tokens))
        log.info("%d captions x %d perturbations (%s) x %d seeds", len(mine), len(names),
                 ", ".join(names), len(p.seeds))
    table = (parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True) if parts
             else pd.DataFrame(columns=["caption_id", "perturbation", "seed", "original",
                                        "perturbed", "changed"]))
    log.info("%d captions in %.1f s", len(queries), time.perf_counter() - start)
    log.info("typo_impl=%s distraction_wording=%s shuffle_tokens=%s",
             snakemake.params.typo_impl, snakemake.params.distraction_wording,
             snakemake.params.shuffle_tokens)
    log.info("changed per perturbation:\n%s", changed_summary(table).to_string(index=False))
    write_parquet(table, snakemake.output.perturbed)
    every_query = pd.concat([read_parquet(f) for f in snakemake.input.queries])
    texts = sorted(set(every_query.text) | set(table.perturbed))
    write_parquet(pd.DataFrame({"text": texts}), snakemake.output.texts)
    log.info("%d distinct texts to embed per model", len(texts))
