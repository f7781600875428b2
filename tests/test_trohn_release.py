"""BiVLC's released TROHN-Text / TROHN-Img rows as training instances, CLIP_COCO's caption
split and BiVLC's validation accuracy (best-epoch rule)."""

from __future__ import annotations

import io
import json
import logging
import runpy
from pathlib import Path
from types import SimpleNamespace

import datasets
import numpy as np
import pandas as pd
import pytest
import torch
from PIL import Image
from snakemake.iocontainers import Namedlist

from vlcomp.data.trohn_release import coco_image_id, load_release, release_instances
from vlcomp.models.world_clip import build_world_clip, world_tokenizer
from vlcomp.train.bivlc_validation import (
    KEY,
    ValRows,
    batch_accuracy,
    bivlc_accuracy,
    rows_of_instances,
    rows_of_split,
)
from vlcomp.train.caption_split import bivlc_caption_split
from vlcomp.train.clip_trainer import TrainConfig, train_clip
from vlcomp.train.data import instance_rows
from vlcomp.train.image_bank import as_pixels

TINY_WORLD = {
    "embed_dim": 32,
    "vision": {"image_size": 32, "layers": [1, 1, 1, 1], "width": 8, "head_width": 8},
    "text": {"context_length": 8, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
    "quick_gelu": False,
}


def _jpeg(colour, size: int = 8) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (size, size), colour).save(buf, format="JPEG")
    return buf.getvalue()


def hub_folder(root, with_images: bool, train_ids, val_ids, size: int = 8):
    """A TROHN dataset in the hub's layout (data/{split}-00000-of-00001.parquet)."""
    features = {"image_id": datasets.Value("string"), "caption": datasets.Value("string"),
                "negative_caption": datasets.Value("string")}
    if with_images:
        features["negative_image"] = datasets.Image()
    for split, ids in (("train", train_ids), ("validation", val_ids)):
        rows = {"image_id": list(ids), "caption": [f"a red cat {k}." for k in range(len(ids))],
                "negative_caption": [f"a blue cat {k}." for k in range(len(ids))]}
        if with_images:
            rows["negative_image"] = [{"bytes": _jpeg((k % 4 * 60, 0, 0), size), "path": None}
                                      for k in range(len(ids))]
        ds = datasets.Dataset.from_dict(rows, features=datasets.Features(features))
        (root / "data").mkdir(parents=True, exist_ok=True)
        ds.to_parquet(root / "data" / f"{split}-00000-of-00001.parquet")
    return root


def coco_tables(tmp_path, n: int = 4, size: int = 8):
    folder = tmp_path / "coco"
    folder.mkdir(exist_ok=True)
    ids = [f"{k + 1:012d}" for k in range(n)]
    for k, i in enumerate(ids):
        Image.new("RGB", (size, size), (0, 60 * k, 0)).save(folder / f"{i}.jpg")
    images = pd.DataFrame({"image_id": ids, "path": [str(folder / f"{i}.jpg") for i in ids],
                           "split": "train"})
    captions = pd.DataFrame({"caption_id": [f"{i}#0" for i in ids], "image_id": ids,
                             "text": ["A red cat 0.", "x", "x", "x"][:n], "split": "train",
                             "annotation_index": list(range(n))})
    return images, captions


def test_coco_image_ids_from_file_names_and_numbers():
    assert coco_image_id("000000391895.jpg") == "000000391895"
    assert coco_image_id(391895) == "000000391895"
    assert coco_image_id(np.int64(7)) == "000000000007"
    assert coco_image_id("391895") == "000000391895"


def test_text_rows_become_instances_and_missing_images_are_named(tmp_path):
    images, captions = coco_tables(tmp_path)
    hub = hub_folder(tmp_path / "hub", False, ["000000000001.jpg", "000000000002.jpg"] * 3,
                     ["000000000003.jpg"])
    rows = load_release("trohn_text", "train", hub_path=str(hub))
    out = release_instances(rows, images, captions, "TROHN-Text train")
    assert len(out.instances) == 6 and out.missing.empty  # one instance per released row
    first = out.instances.iloc[0]
    assert (first.image_id, first.caption, first.negative) == (
        "000000000001", "a red cat 0.", "a blue cat 0.")
    assert first.caption_id == "000000000001#0"  # same text up to case and spacing
    assert out.instances.caption_id.isna().sum() == 5
    lost = pd.concat([images.iloc[:1]])  # only image 1 is in the dataset: 3 of 6 rows lost
    with pytest.raises(ValueError, match=r"3 of 6 released rows .* row 1 \(image 000000000002"):
        release_instances(rows, lost, captions, "TROHN-Text train")
    kept = release_instances(rows, lost, captions, "TROHN-Text train", max_missing=0.5)
    assert len(kept.instances) == 3 and list(kept.missing.row) == [1, 3, 5]


def test_image_rows_write_each_negative_image_once(tmp_path):
    images, captions = coco_tables(tmp_path)
    hub = hub_folder(tmp_path / "hub", True, [1, 2, 3, 4, 1, 2, 3, 4], [2])
    rows = load_release("trohn_img", "train", hub_path=str(hub))
    out = release_instances(rows, images, captions, "TROHN-Img", image_dir=tmp_path / "neg")
    table = out.instances
    assert len(table) == 8 and table.negative_image_id.nunique() == 4  # rows k, k+4 share
    assert len(list((tmp_path / "neg").iterdir())) == 4
    assert Image.open(table.negative_path[1]).size == (8, 8)
    assert set(table.columns) >= {"caption_id", "image_id", "caption", "negative",
                                  "negative_image_id", "negative_path"}


def test_instance_rows_iterate_every_released_row(tmp_path):
    images, captions = coco_tables(tmp_path)
    hub = hub_folder(tmp_path / "hub", True, [1, 1, 2], [3])
    table = release_instances(load_release("trohn_img", "train", hub_path=str(hub)), images,
                              captions, "x", image_dir=tmp_path / "neg").instances
    data, hard = instance_rows(table, read_images=False)
    assert data.image_ids == ["000000000001", "000000000001", "000000000002"]
    assert data.captions == [["a red cat 0."], ["a red cat 1."], ["a red cat 2."]]
    assert hard["negatives"] == [[["a blue cat 0."]], [["a blue cat 1."]], [["a blue cat 2."]]]
    rows = [r for image in hard["negative_images"] for c in image for r in c]
    assert sorted(hard["generated_images"][rows]) == sorted(table.negative_path)
    text, hard = instance_rows(table.drop(columns=["negative_path"]), read_images=True)
    assert text.images.shape == (3, 8, 8, 3) and set(hard) == {"negatives"}


def test_bivlc_caption_split_is_datasets_train_test_split_in_file_order():
    rng = np.random.default_rng(0)
    order = rng.permutation(50)
    captions = pd.DataFrame({"caption_id": [f"c{k}" for k in range(50)],
                             "image_id": [f"i{k // 5}" for k in range(50)],
                             "text": [f"t{k}" for k in range(50)],
                             "annotation_index": order})
    train, val = bivlc_caption_split(captions)
    # BiVLC: Dataset.from_pandas(captions in file order).train_test_split(0.2, seed=42)
    in_file_order = captions.sort_values("annotation_index")[["image_id", "text"]]
    ref = datasets.Dataset.from_pandas(in_file_order.reset_index(drop=True))
    ref = ref.train_test_split(test_size=0.2, seed=42)
    assert list(train.text) == ref["train"]["text"]
    assert list(val.text) == ref["test"]["text"] and len(val) == 10
    with pytest.raises(ValueError, match="file's order"):
        bivlc_caption_split(captions.drop(columns=["annotation_index"]))


def _bivlc_reference(img, txt, objective, batch):
    """BiVLC's validation loop: logits per batch as get_logits gives them, softmax-argmax."""
    accs = []
    n = len(img) if objective != "trohn_img" else len(img) // 2
    for s in range(0, n, batch):
        b = list(range(s, min(n, s + batch)))
        if objective == "clip":
            im, tx = img[b], txt[b]
        elif objective == "trohn_text":
            im, tx = img[b], torch.cat([txt[b], txt[[n + i for i in b]]])
        else:
            both = b + [n + i for i in b]
            im, tx = img[both], txt[both]
        logits_im = 100 * im @ tx.T
        logits_text = logits_im.T
        gt = torch.arange(len(im))
        if objective == "trohn_text":
            acc_text = (logits_text[:len(im)].softmax(1).argmax(1) == gt).float().mean()
        else:
            acc_text = (logits_text.softmax(1).argmax(1) == gt).float().mean()
        acc_im = (logits_im.softmax(1).argmax(1) == gt).float().mean()
        accs.append(((acc_im + acc_text) / 2).item())
    return float(np.mean(accs))


@pytest.mark.parametrize("objective", ["clip", "trohn_text", "trohn_img"])
def test_bivlc_accuracy_matches_the_reference_loop(objective):
    torch.manual_seed(0)
    model = build_world_clip(TINY_WORLD).eval()
    tok = world_tokenizer(TINY_WORLD)
    rng = np.random.default_rng(1)
    n = 11  # batches of 4: 4, 4, 3 (the last one shorter, weighted like the others)
    pixels_np = rng.integers(0, 255, (2 * n, 32, 32, 3), dtype=np.uint8)
    words = ["red", "blue", "green", "cat", "dog", "big"]
    caps = [" ".join(rng.choice(words, 3)) for _ in range(n)]
    negs = [" ".join(rng.choice(words, 3)) for _ in range(n)]
    image_rows = np.array([k % 7 for k in range(n)])  # images repeat across rows
    rows = ValRows(pixels_np, image_rows, caps, negs, np.arange(n, 2 * n))
    pixels = as_pixels(pixels_np)
    got = bivlc_accuracy(model, rows, pixels, tok, objective, batch_size=4, chunk_batches=2)
    with torch.inference_mode():
        all_img = model.encode_image(pixels, normalize=True)
        all_txt = model.encode_text(tok(caps + negs), normalize=True)
    img = torch.cat([all_img[torch.from_numpy(image_rows)], all_img[n:]])
    ref = _bivlc_reference(img if objective == "trohn_img" else img[:n], all_txt, objective, 4)
    assert got[KEY] == pytest.approx(ref, abs=1e-6)
    assert got[KEY] == pytest.approx((got["val_i2t_acc"] + got["val_t2i_acc"]) / 2)


def test_batch_accuracy_negatives_are_columns_only():
    img = torch.eye(2, 3)
    # texts: two positives, then a negative closer to image 0 than its positive
    txt = torch.tensor([[0.6, 0.0, 0.8], [0.0, 1.0, 0.0], [0.9, 0.0, 0.1]])
    i2t, t2i = batch_accuracy(img, txt)
    assert (i2t, t2i) == (0.5, 1.0)


def test_split_rows_and_instance_rows():
    caps = [["a", "b"], ["c"]]
    rows = rows_of_split(np.zeros((2, 4, 4, 3), np.uint8), caps)
    assert list(rows.image_rows) == [0, 0, 1] and rows.captions == ["a", "b", "c"]
    table = pd.DataFrame({"path": ["p1", "p2", "p1"], "caption": ["a", "b", "c"],
                          "negative": ["x", "y", "z"], "negative_path": ["n1", "n2", "n3"]})
    rows = rows_of_instances(table, read_images=False)
    assert [rows.images[i] for i in rows.image_rows] == ["p1", "p2", "p1"]
    assert [rows.images[i] for i in rows.negative_image_rows] == ["n1", "n2", "n3"]


def test_trainer_keeps_the_epoch_of_the_selection_column(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.integers(0, 255, (8, 32, 32, 3), dtype=np.uint8)
    captions = [[f"cat {k}"] for k in range(8)]
    scores = iter([0.2, 0.9, 0.5])
    cfg = TrainConfig(epochs=3, batch_size=4, lr=1e-3, warmup_steps=1, threads=1,
                      selection=KEY)
    torch.manual_seed(0)
    result = train_clip(build_world_clip(TINY_WORLD), images, captions,
                        world_tokenizer(TINY_WORLD), cfg, log_path=tmp_path / "log.csv",
                        epoch_dir=tmp_path / "epochs",
                        validate=lambda m: {KEY: next(scores)})
    assert result.best_epoch == 2
    assert KEY in (tmp_path / "log.csv").read_text().splitlines()[0]


def _paper():
    import yaml

    from .conftest import REPO

    return yaml.safe_load((REPO / "config" / "paper.yaml").read_text()), \
        REPO / "config" / "schema.yaml"


def test_paper_config_trains_the_trohn_runs_on_the_releases():
    from vlcomp.config import released_negatives, released_rows
    from vlcomp.config_checks import validate_config

    config, schema = _paper()
    validate_config(config, schema)
    runs = config["train"]
    assert released_rows(config, runs["trohn_text"]) == "trohn_text"
    assert released_rows(config, runs["trohn_img"]) == "trohn_img"
    assert released_rows(config, runs["clip_coco"]) is None
    assert not released_negatives(config, runs["trohn_text"])  # NegCLIP's switch only
    assert all(runs[r]["selection"] == "bivlc_val_accuracy"
               for r in ("clip_coco", "trohn_text", "trohn_img"))
    # the release needs neither a backend nor a selection
    for key in ("backend", "selection", "filter"):
        config["generation"]["trohn_img"].pop(key)
    validate_config(config, schema)


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["hard_negatives"]["sugarcrepe"].update(source="generate"),
     "bivlc_val_accuracy for objective 'trohn_text' needs BiVLC's released validation rows"),
    (lambda c: c["train"]["trohn_text"].update(objective="clip"),
     "released trohn_text rows train objective 'trohn_text', not 'clip'"),
    (lambda c: c["generation"]["trohn_img"].update(dataset="world"),
     "released TROHN-Img names COCO 2017 images"),
    (lambda c: c["generation"]["bivlc"].update(source="release"),
     "only TROHN-Img has a released set"),
    (lambda c: (c["generation"]["trohn_img"].update(source="generate"),
                c["generation"]["trohn_img"].pop("selection")), "selection"),
    (lambda c: c["train"]["trohn_text"].update(val_split="bivlc_captions"),
     "bivlc_captions"),
])
def test_trohn_switches_are_checked_at_start(edit, message):
    from vlcomp.config import ConfigError
    from vlcomp.config_checks import validate_config

    config, schema = _paper()
    edit(config)
    with pytest.raises(ConfigError, match=message):
        validate_config(config, schema)


SCRIPTS = Path(__file__).resolve().parents[1] / "workflow" / "scripts"


def run_script(name: str, snakemake: SimpleNamespace) -> None:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        runpy.run_path(str(SCRIPTS / name), init_globals={"snakemake": snakemake})
    finally:
        for h in root.handlers:
            if h not in handlers:
                h.close()
        root.handlers[:], root.level = handlers, level


def test_release_rule_and_training_run_on_released_trohn_img(tmp_path):
    """trohn_release.py writes train / validation instances; train_clip.py trains one row
    per instance and keeps the epoch of BiVLC's validation accuracy."""
    images, captions = coco_tables(tmp_path, size=32)
    images.loc[3, "split"] = "val"
    hub = hub_folder(tmp_path / "hub", True, [1, 2, 3, 1, 2, 3, "000000000099.jpg"], [4, 4, 1],
                     size=32)
    images.to_parquet(tmp_path / "images.parquet")
    captions.to_parquet(tmp_path / "captions.parquet")
    out = tmp_path / "out"
    files = SimpleNamespace(train=str(out / "instances.parquet"),
                            val=str(out / "instances_val.parquet"),
                            images=str(out / "images"), report=str(out / "release.json"))
    run_script("trohn_release.py", SimpleNamespace(
        input=Namedlist(fromdict={"images": str(tmp_path / "images.parquet"),
                                  "captions": str(tmp_path / "captions.parquet")}),
        output=files, log=[str(out / "release.log")],
        params=SimpleNamespace(name="trohn_img", cache_dir=str(tmp_path / "cache"),
                               options={"hub_path": str(hub), "max_missing": 0.2})))
    report = json.loads(Path(files.report).read_text())
    assert report["train"]["kept"] == 6 and report["train"]["missing_images"] == 1
    assert report["train"]["missing_examples"] == ["row 6: image 000000000099"]
    assert report["val"]["kept"] == 3
    run = {"model": TINY_WORLD, "objective": "trohn_img", "generated": "trohn_img",
           "epochs": 2, "batch_size": 2, "lr": 1e-3, "warmup_steps": 1, "seed": 0,
           "selection": "bivlc_val_accuracy", "amp": False}
    ckpt = tmp_path / "ckpt"
    run_script("train_clip.py", SimpleNamespace(
        input=Namedlist(fromdict={"images": str(tmp_path / "images.parquet"),
                                  "captions": str(tmp_path / "captions.parquet"),
                                  "instances": files.train, "val_instances": files.val}),
        output=SimpleNamespace(model=str(ckpt / "model.pt"), log_csv=str(ckpt / "log.csv"),
                               val=str(ckpt / "val.json")),
        log=[str(ckpt / "train.log")],
        params=SimpleNamespace(run=run, released=False, release="trohn_img", init_entry={},
                               resume=str(ckpt / "resume.pt"), epoch_dir=str(ckpt / "epochs"),
                               segment="0-of-1",
                               threads=1, device="cpu", deterministic="strict")))
    val = json.loads((ckpt / "val.json").read_text())
    assert set(val) == {"best_epoch", "epochs", "val_i2t_acc", "val_t2i_acc", "val_mean_acc"}
    log = (ckpt / "train.log").read_text()
    assert "6 training rows, 3 validation rows" in log and "over 3 rows in batches of 2" in log


def test_clip_run_on_clip_cocos_caption_split(tmp_path):
    images, captions = coco_tables(tmp_path, size=32)
    more = captions.assign(caption_id=captions.caption_id.str.replace("#0", "#1"),
                           text="a cat", annotation_index=captions.annotation_index + 4)
    pd.concat([captions, more]).to_parquet(tmp_path / "captions.parquet")
    images.to_parquet(tmp_path / "images.parquet")
    run = {"model": TINY_WORLD, "objective": "clip", "epochs": 1, "batch_size": 2, "lr": 1e-3,
           "warmup_steps": 1, "seed": 0, "selection": "bivlc_val_accuracy",
           "val_split": "bivlc_captions", "amp": False}
    ckpt = tmp_path / "ckpt"
    run_script("train_clip.py", SimpleNamespace(
        input=Namedlist(fromdict={"images": str(tmp_path / "images.parquet"),
                                  "captions": str(tmp_path / "captions.parquet")}),
        output=SimpleNamespace(model=str(ckpt / "model.pt"), log_csv=str(ckpt / "log.csv"),
                               val=str(ckpt / "val.json")),
        log=[str(ckpt / "train.log")],
        params=SimpleNamespace(run=run, released=False, release=None, init_entry={},
                               resume=str(ckpt / "resume.pt"), epoch_dir=str(ckpt / "epochs"),
                               segment="0-of-1",
                               threads=1, device="cpu", deterministic="strict")))
    log = (ckpt / "train.log").read_text()
    assert "caption split: 6 training rows, 2 validation rows" in log
    assert "val_mean_acc" in (ckpt / "log.csv").read_text()
