"""Train one segment of a run: pretraining from scratch, or fine-tuning a trained run or a
pretrained open_clip model (CLIP-FT, NegCLIP, TROHN-Text, TROHN-Img) with its hard negatives.
A segment before the last hands its state to the next (rule train_clip_segment); the last
(rule train_clip) writes model.pt with the best epoch (validation R@1, or BiVLC's validation
accuracy: run key selection). BiVLC's released TROHN rows and CLIP_COCO's caption split
train one row per instance."""

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
from vlcomp.shards import parse_shard
from vlcomp.train.bivlc_validation import KEY, bivlc_accuracy, rows_of_instances, rows_of_split
from vlcomp.train.caption_split import bivlc_caption_split
from vlcomp.train.clip_trainer import TrainConfig, train_clip
from vlcomp.train.data import (
    align_negatives,
    finest_captions,
    instance_rows,
    instance_split,
    load_split,
    negatives_by_caption,
    neighbour_indices,
)
from vlcomp.train.image_bank import FileImages, as_pixels
from vlcomp.train.training_state import input_origin


def caption_instances(table, images):
    """Caption rows (``caption_id, image_id, text``) with their image paths, as instances."""
    paths = dict(zip(images.image_id.astype(str), images.path.astype(str), strict=True))
    return table.assign(path=table.image_id.astype(str).map(paths)).rename(
        columns={"text": "caption"})[["caption_id", "image_id", "path", "caption"]]


def save_final(result, model, model_cfg, cfg, run, epoch_dir, log):
    """The run's last segment: model.pt (the best epoch's weights), val.json; epochs cleared."""
    if model_cfg is None:  # an open_clip state dict, read back by the open_clip family
        save_state_dict(snakemake.output.model, model.cpu())
    else:
        save_checkpoint(snakemake.output.model, model.cpu(), model_cfg, vars(cfg),
                        result.best_epoch)
    best = next((r for r in result.rows if r["epoch"] == result.best_epoch), {})
    write_json({"best_epoch": result.best_epoch, "epochs": cfg.epochs,
                **{k: v for k, v in best.items() if k.startswith("val_")}}, snakemake.output.val)
    if not run.get("keep_epochs", False):
        shutil.rmtree(epoch_dir, ignore_errors=True)
    log.info("best epoch %d of %d: %s", result.best_epoch, cfg.epochs, best)


with job_log(snakemake.log[0]) as log:
    run = snakemake.params.run
    cfg = TrainConfig(
        epochs=run["epochs"], batch_size=run["batch_size"], lr=run["lr"],
        weight_decay=run.get("weight_decay", 0.1), warmup_steps=run.get("warmup_steps", 100),
        seed=run["seed"], threads=snakemake.params.threads,
        objective=run.get("objective", "clip"), amp=run.get("amp", True),
        selection=KEY if run.get("selection") == "bivlc_val_accuracy" else "val_mean_r1",
        mirror_pairs=run.get("mirror_pairs", 0.0),
        deterministic=snakemake.params.deterministic,
    )
    release = snakemake.params.release  # trohn_text | trohn_img: BiVLC's released rows
    images = read_parquet(snakemake.input.images)
    captions = read_parquet(snakemake.input.captions)
    if "caption_templates" in run:
        captions = captions[captions.template.isin(run["caption_templates"])]
    if snakemake.params.released:
        # a released training set (NegCLIP's TSV): its rows are the training captions
        released_ids = read_parquet(snakemake.input.negatives).caption_id
        keep = (captions.split != "train") | captions.caption_id.isin(released_ids)
        log.info("released hard negatives: training on %d of %d training captions",
                 int((keep & (captions.split == "train")).sum()),
                 int((captions.split == "train").sum()))
        captions = captions[keep]
    instances = rows = val_rows = None
    if release:
        rows = read_parquet(snakemake.input.instances)
        val_rows = read_parquet(snakemake.input.val_instances)
        log.info("BiVLC's released %s: %d training rows, %d validation rows", release,
                 len(rows), len(val_rows))
    elif run.get("val_split") == "bivlc_captions":  # CLIP_COCO: 80/20 over caption rows
        train_caps, val_caps = bivlc_caption_split(captions[captions.split == "train"])
        rows, val_rows = caption_instances(train_caps, images), caption_instances(val_caps, images)
        log.info("BiVLC's caption split: %d training rows, %d validation rows", len(rows),
                 len(val_rows))
    elif hasattr(snakemake.input, "instances"):
        # TROHN-Img: train on the captions that have a generated hard negative
        instances = read_parquet(snakemake.input.instances)
        keep = (captions.split != "train") | captions.caption_id.isin(instances.caption_id)
        captions = captions[keep]
    # a pretrained open_clip model (real data) reads images from disk batch by batch
    pretrained = "init_model" in run
    hard = {}
    if rows is not None:  # one row per instance: an epoch is a pass over the rows (BiVLC)
        train, hard = instance_rows(rows, read_images=not pretrained)
    else:
        train = load_split(images, captions, "train", drop_uncaptioned=True,
                           read_images=not pretrained)
    val = None
    if cfg.selection != KEY or val_rows is None:
        val = load_split(images, captions, "val", drop_uncaptioned=True,
                         read_images=not pretrained)
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
    workers = max(1, snakemake.params.threads)

    def on_disk(paths):
        """Paths decoded batch by batch with the model's own transform (pretrained models)."""
        return FileImages(paths, preprocess, workers)

    validate = None
    if cfg.selection == KEY:  # BiVLC: mean of I->T and T->I accuracy over validation batches
        checked = (rows_of_instances(val_rows, read_images=not pretrained)
                   if val_rows is not None else rows_of_split(val.images, val.captions))
        pixels = on_disk(checked.images) if pretrained else as_pixels(checked.images)
        log.info("best epoch by BiVLC's validation accuracy over %d rows in batches of %d",
                 len(checked.captions), cfg.batch_size)

        def validate(m):
            return bivlc_accuracy(m, checked, pixels, tokenizer, cfg.objective, cfg.batch_size)

    if pretrained:
        train.images = on_disk(train.images)
        if val is not None:
            val.images = on_disk(val.images)
        if "generated_images" in hard:
            hard["generated_images"] = on_disk(hard["generated_images"])
    log.info("model: %d parameters; %d train rows", count_parameters(model), len(train.images))
    epoch_dir = Path(snakemake.params.epoch_dir)
    index, count = parse_shard(snakemake.params.segment)
    final = not hasattr(snakemake.output, "state")
    if final != (index == count - 1):
        raise ValueError(f"run {snakemake.wildcards.run}: segment {snakemake.params.segment} "
                         "is rule train_clip's (the last) or train_clip_segment's (the others)")
    start_state = getattr(snakemake.input, "start_state", None)
    if count > 1:
        log.info("segment %d of %d%s", index + 1, count,
                 f", continuing from {start_state}" if start_state else "")
    result = train_clip(
        model, train.images, train.captions, tokenizer, cfg,
        val_images=val.images if val is not None and validate is None else None,
        val_captions=finest_captions(val.captions) if val is not None else None,
        log_path=getattr(snakemake.output, "log_csv", None), resume_path=snakemake.params.resume,
        epoch_dir=epoch_dir, validate=validate, segment=(index, count),
        start_state=start_state, state_out=None if final else snakemake.output.state,
        origin=input_origin(snakemake.input, run), **hard,
        checkpoint_seconds=60 * float(run.get("checkpoint_minutes", 30)),
    )
    Path(snakemake.params.resume).unlink(missing_ok=True)
    if final:
        save_final(result, model, model_cfg, cfg, run, epoch_dir, log)
    else:
        log.info("segment %d of %d done after epoch %d: state in %s", index + 1, count,
                 result.rows[-1]["epoch"] if result.rows else 0, snakemake.output.state)
