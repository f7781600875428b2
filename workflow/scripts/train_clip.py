"""Pretrain the world CLIP from scratch with symmetric InfoNCE on the train captions."""

from pathlib import Path

import pandas as pd
import torch

from vlcomp.io import write_json
from vlcomp.jobs import job_log
from vlcomp.models.checkpoint import save_checkpoint
from vlcomp.models.world_clip import build_world_clip, count_parameters, world_tokenizer
from vlcomp.train.clip_trainer import TrainConfig, train_clip
from vlcomp.train.data import finest_captions, load_split

with job_log(snakemake.log[0]) as log:
    run = snakemake.params.run
    model_cfg = run["model"]
    cfg = TrainConfig(
        epochs=run["epochs"], batch_size=run["batch_size"], lr=run["lr"],
        weight_decay=run.get("weight_decay", 0.1), warmup_steps=run.get("warmup_steps", 100),
        seed=run["seed"], threads=snakemake.params.threads,
    )
    images = pd.read_parquet(snakemake.input.images)
    captions = pd.read_parquet(snakemake.input.captions)
    if "caption_templates" in run:
        captions = captions[captions.template.isin(run["caption_templates"])]
    train_x, train_caps = load_split(images, captions, "train", drop_uncaptioned=True)
    val_x, val_caps = load_split(images, captions, "val", drop_uncaptioned=True)
    torch.manual_seed(cfg.seed)
    model = build_world_clip(model_cfg).to(snakemake.params.device)
    log.info("model: %d parameters; %d train images", count_parameters(model), len(train_x))
    last = train_clip(
        model, train_x, train_caps, world_tokenizer(model_cfg), cfg, val_images=val_x,
        val_captions=finest_captions(val_caps), log_path=snakemake.output.log_csv,
        resume_path=snakemake.params.resume,
    )
    save_checkpoint(snakemake.output.model, model.cpu(), model_cfg, vars(cfg), cfg.epochs)
    write_json({k: v for k, v in last.items() if k != "seconds"}, snakemake.output.val)
    Path(snakemake.params.resume).unlink(missing_ok=True)
    log.info("final: %s", last)
