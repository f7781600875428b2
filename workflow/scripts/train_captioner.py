"""Train a small BLIP model from scratch on a caption dataset's train split, saved with
save_pretrained: a captioner (objective ``captioning``; the best epoch by validation
log-likelihood is kept) for hf_blip_lm, or an image-text matching model (``itm``: ITC + ITM
with hard negatives; the best epoch by validation ITM accuracy) for hf_blip_itm."""

import csv
import tempfile
from pathlib import Path

from vlcomp.io import atomic_path, read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.train.captioner import (
    CaptionBatches,
    CaptionerConfig,
    CaptionerTraining,
    build_captioner,
    build_processor,
    caption_words,
    save_captioner,
    train_captioner,
)
from vlcomp.train.data import load_split
from vlcomp.train.itm import MatchBatches, build_itm_model, train_itm

with job_log(snakemake.log[0]) as log:
    spec = snakemake.params.spec
    arch = CaptionerConfig.from_dict(spec["model"])
    cfg = CaptionerTraining(
        epochs=spec["epochs"], batch_size=spec["batch_size"], lr=spec["lr"],
        weight_decay=spec.get("weight_decay", 0.05), warmup_steps=spec.get("warmup_steps", 20),
        seed=spec.get("seed", 0), threads=snakemake.params.threads,
        prompt=spec.get("prompt", "a picture of "),
    )
    images = read_parquet(snakemake.input.images)
    captions = read_parquet(snakemake.input.captions)
    train = load_split(images, captions, "train")
    val = load_split(images, captions, "val")
    words = caption_words([*captions.text, cfg.prompt])
    out = Path(snakemake.output.model)
    with tempfile.TemporaryDirectory() as tmp:  # the vocabulary is saved with the model
        processor = build_processor(words, Path(tmp), arch.image_size)
    objective = spec.get("objective", "captioning")
    build = build_itm_model if objective == "itm" else build_captioner
    model = build(arch, len(processor.tokenizer), cfg.seed)
    log.info("%s model: %d parameters, %d words; %d train and %d val images", objective,
             sum(p.numel() for p in model.parameters()), len(words), len(train.images),
             len(val.images))
    if objective == "itm":
        rows, best, state = train_itm(
            model, MatchBatches(processor, train.images, train.captions, arch.max_length),
            MatchBatches(processor, val.images, val.captions, arch.max_length), cfg)
        val_key = "val_itm_accuracy"
    else:
        rows, best, state = train_captioner(
            model, CaptionBatches(processor, train.images, train.captions, cfg.prompt,
                                  arch.max_length),
            CaptionBatches(processor, val.images, val.captions, cfg.prompt, arch.max_length),
            cfg)
        val_key = "val_token_logp"
    model.load_state_dict(state)
    save_captioner(model, processor, out)
    with atomic_path(snakemake.output.log_csv) as tmp, open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    best_row = next(r for r in rows if r["epoch"] == best)
    write_json({"best_epoch": best, "epochs": cfg.epochs, "objective": objective,
                val_key: best_row[val_key]}, snakemake.output.val)
    log.info("best epoch %d of %d: %s %.4f", best, cfg.epochs, val_key, best_row[val_key])
