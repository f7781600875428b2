"""Every text perturbation × seed of the queries of the perturbed galleries (spaCy once per
caption), plus the table of distinct texts every model embeds for the robustness suite."""

import time

import pandas as pd

from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.text.nlp import load_spacy
from vlcomp.text.perturbations import NEEDS_TAGS, NEEDS_WORDNET, changed_summary, perturb_captions
from vlcomp.text.wordnet import load_wordnet

with job_log(snakemake.log[0]) as log:
    names = list(snakemake.params.perturbations)
    queries = pd.concat([read_parquet(p) for p in snakemake.input.perturbed_queries])
    queries = queries.drop_duplicates(["query_id", "text"])
    clash = queries.query_id[queries.query_id.duplicated()]
    if len(clash):  # two galleries share a query id with different texts
        raise ValueError(f"query {clash.iloc[0]!r} has different texts in two perturbed "
                         "galleries; their perturbed texts would mix")
    nlp = load_spacy(snakemake.params.spacy_model) if set(names) & NEEDS_TAGS else None
    wordnet = load_wordnet(snakemake.input.wordnet) if set(names) & NEEDS_WORDNET else None
    start = time.perf_counter()
    table = perturb_captions(queries.rename(columns={"query_id": "caption_id"}), names,
                             snakemake.params.seeds, nlp=nlp, wordnet=wordnet,
                             synonym_k=snakemake.params.synonym_k,
                             typo_impl=snakemake.params.typo_impl,
                             distraction_wording=snakemake.params.distraction_wording,
                             shuffle_tokens=snakemake.params.shuffle_tokens)
    log.info("%d captions x %d perturbations x %d seeds in %.1f s", len(queries), len(names),
             len(snakemake.params.seeds), time.perf_counter() - start)
    log.info("typo_impl=%s distraction_wording=%s shuffle_tokens=%s",
             snakemake.params.typo_impl, snakemake.params.distraction_wording,
             snakemake.params.shuffle_tokens)
    log.info("changed per perturbation:\n%s", changed_summary(table).to_string(index=False))
    write_parquet(table, snakemake.output.perturbed)
    every_query = pd.concat([read_parquet(p) for p in snakemake.input.queries])
    texts = sorted(set(every_query.text) | set(table.perturbed))
    write_parquet(pd.DataFrame({"text": texts}), snakemake.output.texts)
    log.info("%d distinct texts to embed per model", len(texts))
