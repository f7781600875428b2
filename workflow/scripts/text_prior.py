"""A captioner's text prior log P(t) for every text of a choice benchmark: Monte Carlo over
seeded Gaussian null images (VisualGPTScore Eq. 6), and optionally over n sampled training
images (each set of images encoded once); optionally a text-only LM's P_LLM(t)."""

import pandas as pd

from vlcomp.io import open_rgb, read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.models.precision import use_for_this_job
from vlcomp.models.registry import build_scorer
from vlcomp.models.vision_count import count_vision_passes
from vlcomp.score.text_prior import log_prior_given_states, sample_image_ids
from vlcomp.torch_threads import set_torch_threads

with job_log(snakemake.log[0]) as log:
    set_torch_threads(snakemake.params.threads)
    use_for_this_job(snakemake.params.device, snakemake.params.autocast)
    null = snakemake.params.null
    scorer = build_scorer(snakemake.wildcards.model, snakemake.params.entry,
                          snakemake.params.device)
    passes = count_vision_passes(scorer)
    items = read_parquet(snakemake.input.benchmark)
    texts = sorted({t for texts in items.texts for t in texts})
    states = scorer.null_image_states(null["n"], mean=null["mean"], std=null["std"],
                                      seed=null["seed"], space=null["space"])
    log_prior, per_image = log_prior_given_states(scorer, states, texts,
                                                  snakemake.params.batch_size)
    table = pd.DataFrame({"text": texts, "log_prior_null": log_prior,
                          "log_p_text_given_null": [list(r) for r in per_image]})
    log.info("%d texts, %d null images (%s)", len(texts), null["n"], null)
    train = snakemake.params.train_images
    if train:
        images = read_parquet(snakemake.input.train_images)
        ids = sample_image_ids(images.image_id, train["n"], train["seed"])
        paths = dict(zip(images.image_id.astype(str), images.path, strict=True))
        states = scorer.image_states([open_rgb(paths[i]) for i in ids])
        table["log_prior_train"], _ = log_prior_given_states(scorer, states, texts,
                                                             snakemake.params.batch_size)
        log.info("and %d training images (seed %d): %s", len(ids), train["seed"], ids)
    llm = snakemake.params.llm
    if llm:
        from vlcomp.text.hf_text_scorers import CausalLMPrior

        scorer = CausalLMPrior(llm["model"], snakemake.params.device,
                               llm.get("batch_size", 64), llm.get("revision"))
        table["log_prior_llm"] = scorer.score(texts)
        log.info("and the text-only LM %s", llm["model"])
    write_parquet(table, snakemake.output[0])
    log.info(passes.summary())
