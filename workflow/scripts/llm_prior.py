"""A text-only LM's prior log P_LLM(t) (VisualGPTScore Table 2a: BART, FLAN-T5, OPT) of every
option text of the image->text benchmarks, scored once and shared by every captioner's prior
tables (column ``log_prior_llm_{name}``)."""

from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.score.pair_jobs import benchmark_texts
from vlcomp.text.seq2seq_prior import text_prior_table
from vlcomp.torch_threads import set_torch_threads

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    set_torch_threads(p.threads)
    union = sorted({t for path in snakemake.input.benchmarks
                    for t in benchmark_texts(read_parquet(path))})
    table = text_prior_table(p.entry, union, p.device)
    write_parquet(table, snakemake.output[0])
    log.info("log P_LLM(t) of %d texts under %s (%s)", len(table), p.entry["model"],
             p.entry["name"])
