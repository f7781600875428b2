"""Score matrices S[image, text] of a choice benchmark with a pair scorer (cross-encoder or
generative, e.g. BLIP ITM or log P(text | image)), then its metrics: the outputs of
score_and_metrics.py, without embeddings. Every distinct (image, text) pair is one forward
pass, so this job holds the model (and the GPU) for the whole benchmark.

Inputs ``benchmark``, ``imagesets`` (the benchmark's image set tables), ``model`` (checkpoint
files, may be empty); params ``entry``, ``kind``, ``options``, ``batch_size``, ``device``,
``threads`` and optional ``pair_options`` (keyword arguments of the scorer's pair method,
e.g. ``{kind: itm_plus_itc}`` for BLIP ITM); outputs ``scores``, ``json``, ``csv``.
"""


from vlcomp.io import read_parquet
from vlcomp.jobs import job_log
from vlcomp.models.precision import use_for_this_job
from vlcomp.models.registry import build_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.report.metric_records import write_benchmark_outputs
from vlcomp.score.pairs import image_index, score_items_pairwise
from vlcomp.torch_threads import set_torch_threads

with job_log(snakemake.log[0]) as log:
    set_torch_threads(snakemake.params.threads)
    use_for_this_job(snakemake.params.device, snakemake.params.autocast)
    scorer = build_scorer(snakemake.wildcards.model, snakemake.params.entry,
                          snakemake.params.device)
    passes = count_vision_passes(scorer)
    items = read_parquet(snakemake.input.benchmark)
    images = image_index(read_parquet(p) for p in snakemake.input.imagesets)
    scores = score_items_pairwise(items, images, scorer,
                                  batch_size=snakemake.params.batch_size,
                                  options=getattr(snakemake.params, "pair_options", None))
    out, wc = snakemake.output, snakemake.wildcards
    result = write_benchmark_outputs(items, scores, snakemake.params.kind, wc.benchmark,
                                     wc.model, snakemake.params.options, out.scores, out.json,
                                     out.csv)
    log.info("%d items scored", len(scores))
    log.info("overall: %s", result["overall"])
    log.info(passes.summary())
