"""Reference (Karpathy / VSE++) fold order for COCO-1K (vlcomp.benchmarks.coco_folds)."""

from __future__ import annotations

import copy
import json
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vlcomp.benchmarks.coco_folds import align_gallery
from vlcomp.data.karpathy import FoldOrder, karpathy_fold_order, read_blip
from vlcomp.metrics.fold_retrieval import fold_retrieval_metrics, fold_texts

N_TEST = 10  # 5 folds of 2 images
SIX = 3  # test image with six sentences


def _coco_id(k: int) -> str:
    return f"COCO_val2014_{k:012d}"


def _entry(k: int, split: str, imgid: int, sentid: int, n: int = 5,
           filepath: str | None = "val2014") -> dict[str, Any]:
    """One image of Karpathy's dataset_coco.json, sentences ``image k caption j``."""
    sentences = [{"tokens": ["image", str(k), "caption", str(j)], "raw": f"image {k} caption {j}",
                  "imgid": imgid, "sentid": sentid + j} for j in range(n)]
    out = {"filename": f"{_coco_id(k)}.jpg", "imgid": imgid, "split": split,
           "sentids": [sentid + j for j in range(n)], "sentences": sentences, "cocoid": k}
    if filepath is not None:
        out["filepath"] = filepath
    return out


def _karpathy() -> dict[str, Any]:
    """Test images 1..10 interleaved with train/restval/val ones; image 3 has 6 sentences."""
    images, sentid = [], 0
    extra = {2: ("train", 101), 5: ("restval", 102), 8: ("val", 103)}
    for k in range(1, N_TEST + 1):
        if k in extra:
            split, other = extra[k]
            images.append(_entry(other, split, len(images), sentid))
            sentid += 5
        n = 6 if k == SIX else 5
        images.append(_entry(k, "test", len(images), sentid, n))
        sentid += n
    return {"images": images, "dataset": "coco"}


def _reference(data: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Reference order built by hand, as VSE++ data.py walks the file."""
    ids, caps = [], []
    for image in data["images"]:
        if image["split"] == "test":
            raw = {s["sentid"]: s["raw"] for s in image["sentences"]}
            ids.append(Path(image["filename"]).stem)
            caps.append([raw[i] for i in image["sentids"][:5]])
    return ids, caps


def _blip(data: dict[str, Any]) -> list[dict[str, Any]]:
    """BLIP-style test list: rotated image order (every fold changes), image 5's captions
    reversed, image 2's first caption with extra whitespace, image 3's 6th caption first."""
    entries = []
    for image in data["images"]:
        if image["split"] != "test":
            continue
        caps = [s["raw"] for s in image["sentences"]]
        k = image["cocoid"]
        if k == 5:
            caps = caps[::-1]
        if k == 2:
            caps[0] = f"  {caps[0].replace(' ', '   ')}  "
        if k == SIX:
            caps = caps[-1:] + caps[:-1]
        entries.append({"image": f"{image['filepath']}/{image['filename']}", "caption": caps})
    return entries[1:] + entries[:1]


def _write(tmp: Path, name: str, obj: Any) -> Path:
    path = tmp / name
    path.write_text(json.dumps(obj), encoding="utf-8")
    return path


def _gallery(tmp: Path, entries: list[dict[str, Any]]) -> tuple[list[str], list[str], np.ndarray]:
    images, captions = read_blip(_write(tmp, "coco_karpathy_test.json", entries), tmp, "test")
    ids = images.image_id.tolist()
    row = {i: r for r, i in enumerate(ids)}
    return ids, captions.text.tolist(), np.asarray([row[i] for i in captions.image_id])


@pytest.fixture
def setup(tmp_path: Path) -> tuple[dict[str, Any], FoldOrder, tuple]:
    data = _karpathy()
    order = karpathy_fold_order(_write(tmp_path, "dataset_coco.json", data))
    return data, order, _gallery(tmp_path, _blip(data))


def _vec(key: str, dim: int = 8) -> np.ndarray:
    v = np.random.default_rng(zlib.crc32(key.encode())).normal(size=dim)
    return v / np.linalg.norm(v)


def _toy(ids: list[str], texts: list[str], owner: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Image vectors keyed by id; text vectors = own image + noise keyed by normalised text."""
    img = np.stack([_vec(i) for i in ids])
    pairs = zip(texts, owner, strict=True)
    txt = np.stack([_vec(o) + 0.9 * _vec(" ".join(t.split())) for t, o in pairs])
    return img, txt


def test_reference_order_read_from_karpathy_file(setup):
    data, order, _ = setup
    ids, caps = _reference(data)
    assert order.image_ids == tuple(ids) == tuple(_coco_id(k) for k in range(1, N_TEST + 1))
    assert [list(c) for c in order.captions] == caps
    assert order.captions[SIX - 1] == tuple(f"image {SIX} caption {j}" for j in range(5))


def test_sentids_order_wins_over_sentences_order(tmp_path):
    data = _karpathy()
    first = data["images"][0]
    first["sentences"] = first["sentences"][::-1]
    first["sentids"] = [first["sentids"][j] for j in (4, 0, 1, 2, 3)]
    order = karpathy_fold_order(_write(tmp_path, "d.json", data), per_image=3)
    assert order.captions[0] == ("image 1 caption 4", "image 1 caption 0", "image 1 caption 1")


def test_alignment_recovers_order_and_reports(setup):
    _, order, (ids, texts, links) = setup
    al = align_gallery(order, ids, texts, links)
    assert [ids[r] for r in al.image_order] == list(order.image_ids)
    assert al.image_order.dtype == al.text_order.dtype == np.int64
    got = [" ".join(texts[p].split()) for p in al.text_order]
    assert got == [c for caps in order.captions for c in caps]
    assert np.array_equal(links[al.text_order], al.image_order[al.links()])
    assert np.array_equal(al.links(), np.repeat(np.arange(N_TEST), 5))
    assert al.report == {"same_image_order": False, "images_moved": N_TEST,
                         "caption_mismatches": 0, "same_caption_order": False}


def test_already_ordered_gallery_is_unchanged(tmp_path):
    data = _karpathy()
    order = karpathy_fold_order(_write(tmp_path, "d.json", data))
    entries = [{"image": f"val2014/{i}.jpg", "caption": list(c)}
               for i, c in zip(order.image_ids, order.captions, strict=True)]
    ids, texts, links = _gallery(tmp_path, entries)
    al = align_gallery(order, ids, texts, links)
    assert al.report == {"same_image_order": True, "images_moved": 0,
                         "caption_mismatches": 0, "same_caption_order": True}
    assert np.array_equal(al.text_order, fold_texts(links))


def test_changed_caption_counts_as_mismatch_and_falls_back(tmp_path):
    data = _karpathy()
    entries = _blip(data)
    entries[0]["caption"][1] = "a different caption"  # image 2, reference sentence 1
    order = karpathy_fold_order(_write(tmp_path, "d.json", data))
    ids, texts, links = _gallery(tmp_path, entries)
    al = align_gallery(order, ids, texts, links)
    assert al.report["caption_mismatches"] == 1
    assert texts[al.text_order[5 + 1]] == "a different caption"  # the unused text, in place


def _subset(texts: list[str], keep: np.ndarray) -> list[str]:
    return [t for t, k in zip(texts, keep, strict=True) if k]


def test_set_differences_are_errors(setup):
    _, order, (ids, texts, links) = setup
    keep = links != 0
    remap = np.cumsum(np.arange(len(ids)) != 0) - 1
    with pytest.raises(ValueError, match=rf"1 images in the reference but not in our gallery.*"
                                         rf"{ids[0]}"):
        align_gallery(order, ids[1:], _subset(texts, keep), remap[links[keep]])
    extra = [*ids, "COCO_val2014_000000000999"]
    more = [*texts, *(f"x {j}" for j in range(5))]
    with pytest.raises(ValueError, match=r"1 images in our gallery but not in the reference.*999"):
        align_gallery(order, extra, more, np.concatenate([links, np.full(5, len(ids))]))


def test_short_gallery_image_is_an_error(setup):
    _, order, (ids, texts, links) = setup
    drop = int(np.flatnonzero(links == 4)[0])
    keep = np.arange(len(texts)) != drop
    with pytest.raises(ValueError, match=rf"{ids[4]}' has 4 texts"):
        align_gallery(order, ids, _subset(texts, keep), links[keep])


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["images"][0]["sentids"].__setitem__(2, 9999), r"sentid\(s\) \[9999\]"),
    (lambda d: d["images"][0].update(sentids=d["images"][0]["sentids"][:4]), "fewer than 5"),
    (lambda d: d["images"].append(copy.deepcopy(d["images"][0])), "appears twice"),
    (lambda d: d.pop("images"), "'images' list"),
    (lambda d: [i.update(split="train") for i in d["images"]], "no images with split 'test'"),
])
def test_reference_file_errors(tmp_path, edit, message):
    data = _karpathy()
    edit(data)
    path = _write(tmp_path, "dataset_coco.json", data)
    with pytest.raises(ValueError, match=message) as err:
        karpathy_fold_order(path)
    assert str(path) in str(err.value)
    if "sentid" in message or "fewer" in message:
        assert _coco_id(1) in str(err.value)


def test_missing_and_invalid_files(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nope\.json"):
        karpathy_fold_order(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.json: not valid JSON"):
        karpathy_fold_order(bad)


def test_flickr_format(tmp_path):
    images = [_entry(k, s, k, 5 * k, filepath=None) for k, s in
              [(0, "train"), (1, "test"), (2, "val"), (3, "test")]]
    for image in images:
        image["filename"] = f"10000{image['cocoid']}.jpg"
    order = karpathy_fold_order(_write(tmp_path, "dataset_flickr30k.json", {"images": images}))
    assert order.image_ids == ("100001", "100003")
    assert order.captions[1][4] == "image 3 caption 4"


def test_aligned_metrics_equal_reference_ordered_copy(setup):
    data, order, (ids, texts, links) = setup
    img, txt = _toy(ids, texts, [ids[r] for r in links])
    al = align_gallery(order, ids, texts, links)
    aligned = fold_retrieval_metrics(al.reorder(img @ txt.T), al.links())
    assert np.array_equal(al.reorder(img @ txt.T),
                          img[al.image_order] @ txt[al.text_order].T)
    ref_ids, ref_caps = _reference(data)
    flat = [c for caps in ref_caps for c in caps]
    r_img, r_txt = _toy(ref_ids, flat, [i for i in ref_ids for _ in range(5)])
    assert aligned == fold_retrieval_metrics(r_img @ r_txt.T, np.repeat(np.arange(N_TEST), 5))


def test_alignment_changes_fold_metrics(setup):
    """Reference pairs (1,2), (3,4), … are identical (strict ties miss); the rotated BLIP
    order splits every pair across folds, so only the aligned metrics see the ties."""
    _, order, (ids, texts, links) = setup
    pair = {i: _vec(f"pair {n // 2}") for n, i in enumerate(order.image_ids)}
    img = np.stack([pair[i] for i in ids])
    scores = img @ img[links].T
    al = align_gallery(order, ids, texts, links)
    aligned = fold_retrieval_metrics(al.reorder(scores), al.links())["overall"]
    sel = fold_texts(links)
    unaligned = fold_retrieval_metrics(scores[:, sel], links[sel])["overall"]
    assert unaligned["t2i_r1"] == unaligned["i2t_r1"] == 100.0
    assert aligned["t2i_r1"] == aligned["i2t_r1"] == 0.0
