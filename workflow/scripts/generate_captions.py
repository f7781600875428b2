"""Captions of a caption dataset's test images by one hf_blip_lm captioner, BLIP's COCO
decoding (`vlcomp.models.caption_generation`): results/captions/{model}/{dataset}_test.parquet
(image_id, caption)."""

from vlcomp.io import read_parquet, write_parquet
from vlcomp.jobs import job_log
from vlcomp.models.caption_generation import GenerationSettings, caption_image_set
from vlcomp.models.precision import use_for_this_job
from vlcomp.models.registry import build_scorer
from vlcomp.torch_threads import set_torch_threads

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    set_torch_threads(p.threads)
    use_for_this_job(p.device, p.autocast)
    scorer = build_scorer(snakemake.wildcards.model, p.entry, p.device)
    settings = GenerationSettings.from_config(p.decoding)
    images = read_parquet(snakemake.input.images)
    log.info("%s: %d images, %s, prompt %r", snakemake.wildcards.model, len(images), settings,
             scorer.prompt)
    captions = caption_image_set(scorer, images, settings, p.batch_size)
    write_parquet(captions, snakemake.output[0])
    empty = int((captions.caption == "").sum())
    log.info("%d captions (%d empty), e.g. %s", len(captions), empty,
             captions.caption.head(3).tolist())
