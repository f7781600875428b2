"""Train one run: pretraining from scratch, or fine-tuning a trained run or a pretrained
open_clip model (CLIP-FT, NegCLIP, TROHN-Text, TROHN-Img) with its hard negatives; the best
epoch by validation R@1 becomes model.pt."""

import shutil
from pathlib import Path

import torch

from vlcomp.io import read_parquet, write_json
from vlcomp.jobs import job_log
from vlcomp.models.checkpoint import load_checkpoint, save_checkpoint, save_state_dict
from vlcomp.models.open_clip_family import OpenClipScorer
from vlcomp.models.world_clip import (
    build_world_clip,
    count_parameters,
    world_tokenizer,
    world_transform,
)
from vlcomp.train.clip_trainer import TrainConfig, train_clip
from vlcomp.train.data import (
    align_negatives,
    finest_captions,
    instance_split,
    load_split,
    negatives_by_caption,
    neighbour_indices,
)
from vlcomp.train.image_bank import FileImages

with job_log(snakemake.log[0]) as log:
    run = snakemake.params.run
    cfg = TrainConfig(
        epochs=run["epochs"], batch_size=run["batch_size"], lr=run["lr"],
        weight_decay=run.get("weight_decay", 0.1), warmup_steps=run.get("warmup_steps", 100),
        seed=run["seed"], threads=snakemake.params.threads,
        objective=run.get("objective", "clip"), amp=run.get("amp", True),
    )
    images = read_parquet(snakemake.input.images)
    captions = read_parquet(snakemake.input.captions)
    if "caption_templates" in run:
        captions = captions[captions.template.isin(run["caption_templates"])]
    if snakemake.params.released:
        # a released training set (NegCLIP's TSV): its rows are the training captions
        rows = read_parquet(snakemake.input.negatives).caption_id
        keep = (captions.split != "train") | captions.caption_id.isin(rows)
        log.info("released hard negatives: training on %d of %d training captions",
                 int((keep & (captions.split == "train")).sum()),
                 int((captions.split == "train").sum()))
        captions = captions[keep]
    instances = None
    if hasattr(snakemake.input, "instances"):
        # TROHN-Img: train on the captions that have a generated hard negative
        instances = read_parquet(snakemake.input.instances)
        keep = (captions.split != "train") | captions.caption_id.isin(instances.caption_id)
        captions = captions[keep]
    # a pretrained open_clip model (real data) reads images from disk batch by batch
    pretrained = "init_model" in run
    train = load_split(images, captions, "train", drop_uncaptioned=True,
                       read_images=not pretrained)
    val = load_split(images, captions, "val", drop_uncaptioned=True, read_images=not pretrained)
    torch.manual_seed(cfg.seed)
    if pretrained:
        entry = snakemake.params.init_entry
        if entry["family"] == "checkpoint":  # one of our checkpoints, e.g. a world CLIP
            model, model_cfg = load_checkpoint(entry["path"])
            preprocess, tokenizer = world_transform(model_cfg), world_tokenizer(model_cfg)
        else:
            scorer = OpenClipScorer(run["init_model"], entry, "cpu")
            model, preprocess, tokenizer = scorer.model, scorer.preprocess, scorer.tokenizer
            model_cfg = None
        log.info("fine-tuning %s from %s (%s)", cfg.objective, run["init_model"],
                 entry.get("pretrained", entry.get("path")))
    elif "init" in run:
        model, model_cfg = load_checkpoint(snakemake.input.init)
        tokenizer = world_tokenizer(model_cfg)
        log.info("fine-tuning %s from %s", cfg.objective, snakemake.input.init)
    else:
        model_cfg = run["model"]
        model = build_world_clip(model_cfg)
        tokenizer = world_tokenizer(model_cfg)
    model = model.to(snakemake.params.device)
    hard = {}
    if hasattr(snakemake.input, "negatives"):
        table = negatives_by_caption(read_parquet(snakemake.input.negatives))
        hard["negatives"] = align_negatives(train.caption_ids, table)
        with_neg = sum(bool(n) for image in hard["negatives"] for n in image)
        total = sum(len(image) for image in hard["negatives"])
        log.info("%d of %d training captions have a negative", with_neg, total)
    if instances is not None:
        # an epoch is a pass over the instances (BiVLC), not over the images
        train, generated = instance_split(train, instances, read_images=not pretrained)
        hard.update(negatives=generated.captions, negative_images=generated.image_rows,
                    generated_images=generated.images)
        log.info("%d instances: generated negative images for %d training captions of %d "
                 "images", len(train.images), int(instances.caption_id.nunique()),
                 len(set(train.image_ids)))
    if hasattr(snakemake.input, "pairs"):
        pairs = read_parquet(snakemake.input.pairs)
        hard["neighbours"] = neighbour_indices(train.image_ids, pairs)
    if pretrained:  # paths so far: decoded batch by batch with the model's own transform
        workers = max(1, snakemake.params.threads)
        train.images = FileImages(train.images, preprocess, workers)
        val.images = FileImages(val.images, preprocess, workers)
        if "generated_images" in hard:
            hard["generated_images"] = FileImages(hard["generated_images"], preprocess, workers)
    log.info("model: %d parameters; %d train images", count_parameters(model), len(train.images))
    epoch_dir = Path(snakemake.params.epoch_dir)
    result = train_clip(
        model, train.images, train.captions, tokenizer, cfg,
        val_images=val.images, val_captions=finest_captions(val.captions),
        log_path=snakemake.output.log_csv, resume_path=snakemake.params.resume,
        epoch_dir=epoch_dir, **hard,
    )
    if model_cfg is None:  # an open_clip state dict, read back by the open_clip family
        save_state_dict(snakemake.output.model, model.cpu())
    else:
        save_checkpoint(snakemake.output.model, model.cpu(), model_cfg, vars(cfg),
                        result.best_epoch)
    best = next((r for r in result.rows if r["epoch"] == result.best_epoch), {})
    write_json({"best_epoch": result.best_epoch, "epochs": cfg.epochs,
                **{k: v for k, v in best.items() if k.startswith("val_")}}, snakemake.output.val)
    Path(snakemake.params.resume).unlink(missing_ok=True)
    if not run.get("keep_epochs", False):
        shutil.rmtree(epoch_dir, ignore_errors=True)
    log.info("best epoch %d of %d: %s", result.best_epoch, cfg.epochs, best)
