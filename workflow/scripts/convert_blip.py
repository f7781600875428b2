"""BLIP's original checkpoint -> a transformers captioner folder for hf_blip_lm
(`vlcomp.models.blip_convert`), written beside the output and moved into place when done."""

import shutil
from pathlib import Path

from vlcomp.jobs import job_log
from vlcomp.models.blip_convert import convert_blip_checkpoint

DEFAULT_TOKENIZER = "Salesforce/blip-image-captioning-large"

with job_log(snakemake.log[0]) as log:
    spec, out = snakemake.params.convert, Path(snakemake.output[0])
    tmp = out.with_name(out.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tokenizer = spec.get("tokenizer", DEFAULT_TOKENIZER)
    log.info("converting %s (tokenizer %s, image size %s)", snakemake.input.checkpoint,
             tokenizer, spec.get("image_size", "native"))
    convert_blip_checkpoint(snakemake.input.checkpoint, tmp, tokenizer,
                            image_size=spec.get("image_size"),
                            tokenizer_revision=spec.get("tokenizer_revision"))
    tmp.rename(out)
    log.info("wrote %s: %s", out, (out / "vlcomp_conversion.json").read_text())
