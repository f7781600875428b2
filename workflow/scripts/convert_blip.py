"""An original checkpoint -> a transformers folder, written beside the output and moved into
place when done: BLIP's for hf_blip_lm (`vlcomp.models.blip_convert`), or LAVIS' BLIP-2 with
a CLIP ViT-L for the BLIP-2 families (`vlcomp.models.blip2_vitl_convert`)."""

import shutil
from pathlib import Path

from vlcomp.jobs import job_log

DEFAULT_TOKENIZER = "Salesforce/blip-image-captioning-large"

with job_log(snakemake.log[0]) as log:
    spec, out = snakemake.params.convert, Path(snakemake.output[0])
    inp = snakemake.input
    tmp = out.with_name(out.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    if "vit" in spec:  # LAVIS' BLIP-2 ViT-L: its ViT file and its stage's checkpoint
        from vlcomp.models.blip2_vitl_convert import convert_blip2_vitl

        log.info("converting %s with %s (stage %s, processor %s, T5 %s, ViT %s)",
                 inp.checkpoint, inp.vit, spec["stage"], spec["tokenizer"],
                 spec.get("t5", "-"), spec.get("vit_precision", "fp16"))
        convert_blip2_vitl(inp.vit, inp.checkpoint, tmp, stage=spec["stage"],
                           processor_source=spec["tokenizer"],
                           processor_revision=spec.get("tokenizer_revision"),
                           t5_source=spec.get("t5"), t5_revision=spec.get("t5_revision"),
                           vit_precision=spec.get("vit_precision", "fp16"))
    else:
        from vlcomp.models.blip_convert import convert_blip_checkpoint

        tokenizer = spec.get("tokenizer", DEFAULT_TOKENIZER)
        log.info("converting %s (tokenizer %s, image size %s)", inp.checkpoint, tokenizer,
                 spec.get("image_size", "native"))
        convert_blip_checkpoint(inp.checkpoint, tmp, tokenizer,
                                image_size=spec.get("image_size"),
                                tokenizer_revision=spec.get("tokenizer_revision"))
    tmp.rename(out)
    log.info("wrote %s: %s", out, (out / "vlcomp_conversion.json").read_text())
