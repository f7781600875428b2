"""Score matrices S[image, text] for every item of each choice benchmark, then its metrics
(JSON record and per-subset CSV), for one embedding model. One job per model: each
benchmark's steps are cheap, so one job's start-up serves them all."""

from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.report.metric_records import write_benchmark_outputs
from vlcomp.score.embeddings import load_stacked_embeddings
from vlcomp.score.matrices import score_items

with job_log(snakemake.log[0]) as log:
    out, params, model = snakemake.output, snakemake.params, snakemake.wildcards.model
    stacked = {}  # image embedding files -> (array, rows): benchmarks share image sets
    for i, benchmark in enumerate(params.benchmarks):
        files = tuple(params.images[i])
        if files not in stacked:
            stacked[files] = load_stacked_embeddings(files)
        image_emb, image_rows = stacked[files]
        text_emb, text_rows = load_stacked_embeddings([snakemake.input.texts[i]])
        items = read_parquet(snakemake.input.benchmarks[i])
        scores = score_items(items, image_emb, image_rows, text_emb, text_rows)
        result = write_benchmark_outputs(items, scores, params.kinds[i], benchmark, model,
                                         params.options[i], out.scores[i], out.json[i],
                                         out.csv[i])
        log.info("%s: %d items scored; overall: %s", benchmark, len(scores),
                 result["overall"])
