"""Score matrices S[image, text] for every item of a choice benchmark, then its metrics (JSON
record and per-subset CSV). One job per model and benchmark: both steps are cheap, so the
job's start-up dominates when they run apart."""


from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.metric_records import write_benchmark_outputs
from vlcomp.score.embeddings import load_stacked_embeddings
from vlcomp.score.matrices import score_items

with job_log(snakemake.log[0]) as log:
    image_emb, image_rows = load_stacked_embeddings(snakemake.input.images)
    text_emb, text_rows = load_stacked_embeddings([snakemake.input.texts])
    items = read_parquet(snakemake.input.benchmark)
    scores = score_items(items, image_emb, image_rows, text_emb, text_rows)
    out, wc = snakemake.output, snakemake.wildcards
    result = write_benchmark_outputs(items, scores, snakemake.params.kind, wc.benchmark,
                                     wc.model, snakemake.params.options, out.scores, out.json,
                                     out.csv)
    log.info("%d items scored", len(scores))
    log.info("overall: %s", result["overall"])
