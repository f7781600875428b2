"""Train a small BLIP captioner from scratch on a caption dataset's train split (the best
epoch by validation log-likelihood is kept), saved with save_pretrained for hf_blip_lm."""

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

with job_log(snakemake.log[0]) as log:
    spec = snakemake.params.spec
    arch = CaptionerConfig.from_dict(spec["model"])
    cfg = CaptionerTraining(
        epochs=spec["epochs"], batch_size=spec["batch_size"], lr=spec["lr"],
        weight_decay=spec.get("weight_decay", 0.05), warmup_steps=spec.get("warmup_steps", 20),
        seed=spec.get("seed", 0), threads=snakemake.params.threads,
        prompt=spec.get("prompt", "a picture of "),
        deterministic=snakemake.params.deterministic,
    )
    images = read_parquet(snakemake.input.images)
    captions = read_parquet(snakemake.input.captions)
    train = load_split(images, captions, "train")
    val = load_split(images, captions, "val")
    words = caption_words([*captions.text, cfg.prompt])
    out = Path(snakemake.output.model)
    with tempfile.TemporaryDirectory() as tmp:  # the vocabulary is saved with the model
        processor = build_processor(words, Path(tmp), arch.image_size)
    model = build_captioner(arch, len(processor.tokenizer), cfg.seed)
    log.info("captioner: %d parameters, %d words; %d train and %d val images",
             sum(p.numel() for p in model.parameters()), len(words), len(train.images),
             len(val.images))
    train_batches = CaptionBatches(processor, train.images, train.captions, cfg.prompt,
                                   arch.max_length)
    val_batches = CaptionBatches(processor, val.images, val.captions, cfg.prompt,
                                 arch.max_length)
    rows, best, state = train_captioner(model, train_batches, val_batches, cfg)
    model.load_state_dict(state)
    save_captioner(model, processor, out)
    with atomic_path(snakemake.output.log_csv) as tmp, open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    best_row = next(r for r in rows if r["epoch"] == best)
    write_json({"best_epoch": best, "epochs": cfg.epochs,
                "val_token_logp": best_row["val_token_logp"]}, snakemake.output.val)
    log.info("best epoch %d of %d: val mean token log P %.4f", best, cfg.epochs,
             best_row["val_token_logp"])
