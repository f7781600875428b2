"""A miniature copy of the papers' download sites, in the released file formats, served to
the download rules through ``file://`` mirrors (``downloads.mirrors``).

`build_mirror` writes COCO 2014/2017 image zips, the 2014 captions zip, BLIP's Karpathy JSONs,
SugarCrepe's seven JSONs, ARO's VG JSONs + image zip and Winoground's zip (Google Drive
ids), BISON's annotations, NegCLIP's released training TSV, CIFAR-10's python archive and a
tiny X-VLM in its release's files (Drive checkpoint and YAML, the repository's JSONs);
`tests/paper_run.py` cuts config/paper.yaml down to them, with tiny models.
"""

from __future__ import annotations

import io
import json
import pickle
import tarfile
import zipfile
from pathlib import Path

import numpy as np
from PIL import Image

from vlcomp.data.download import gdrive_url
from vlcomp.data.sources import (
    ARO_COMMIT,
    BISON_COMMIT,
    BLIP_KARPATHY,
    CIFAR_URL,
    COCO,
    CREPE_COMMIT,
    DIWAN_COMMIT,
    SOURCES,
    SUGARCREPE_COMMIT,
    SUGARCREPE_SUBSETS,
    VG_IMAGES,
    VL_CHECKLIST_BLOBS,
    VL_CHECKLIST_COMMIT,
    WORDNET_PREFIX,
    XVLM_COMMIT,
    XVLM_CONFIG_BLOBS,
)

COLOURS = ["red", "blue", "green", "yellow", "white", "black"]
NOUNS = ["dog", "cat", "car", "horse", "table", "bench"]
PLACES = ["street", "grass", "beach", "kitchen"]
BISON_PREFIX = ("https://raw.githubusercontent.com/facebookresearch/binary-image-selection/"
                f"{BISON_COMMIT}/annotations")
SUGARCREPE_PREFIX = f"https://raw.githubusercontent.com/RAIVNLab/sugar-crepe/{SUGARCREPE_COMMIT}/data"
NEGCLIP_PREFIX = ("https://raw.githubusercontent.com/mertyg/vision-language-models-are-bows/"
                  f"{ARO_COMMIT}/temp_data")
WINOGROUND_ITEMS = 6
GDRIVE_PREFIX = gdrive_url("").split("id=")[0] + "id="
CREPE_PREFIX = f"https://raw.githubusercontent.com/RAIVNLab/CREPE/{CREPE_COMMIT}/data"
VL_CHECKLIST_PREFIX = ("https://raw.githubusercontent.com/om-ai-lab/VL-CheckList/"
                       f"{VL_CHECKLIST_COMMIT}")
DIWAN_PREFIX = f"https://raw.githubusercontent.com/ajd12342/why-winoground-hard/{DIWAN_COMMIT}"
SWIG_PREFIX = "https://swig-data-weights.s3.us-east-2.amazonaws.com"
XVLM_PREFIX = f"https://raw.githubusercontent.com/zengyan-97/X-VLM/{XVLM_COMMIT}/configs"
CORENLP_PREFIX = "https://nlp.stanford.edu/software"
KARPATHY_JSON_PREFIX = "https://cs.stanford.edu/people/karpathy/deepimagesent"
LAVIS_BLIP2_PREFIX = ("https://storage.googleapis.com/sfr-vision-language-research/LAVIS/"
                      "models/BLIP2")
CREPE_HEADER = ("image_id,caption,n,n_objects,n_relations,n_attributes,n_connected_components,"
                "hard_negs,x,y,width,height\n")
VG_IDS = (2315001, 2315002, 2415003)  # the last one in VG_100K_2 (images2.zip)
EQBEN_ITEMS = 4  # 3 EqBen-SD / Kubric pairs of PNGs, 1 YouCook2 pair of .npy frames


def _jpeg(seed: int) -> bytes:
    """A 48x48 image of two coloured blocks (deterministic per seed)."""
    rng = np.random.default_rng(seed)
    pixels = np.zeros((48, 48, 3), dtype=np.uint8)
    pixels[:, :24] = rng.integers(0, 256, 3)
    pixels[:, 24:] = rng.integers(0, 256, 3)
    from io import BytesIO

    out = BytesIO()
    Image.fromarray(pixels).save(out, format="JPEG", quality=90)
    return out.getvalue()


def _png(seed: int) -> bytes:
    """The `_jpeg` picture as a PNG (Winoground's images are PNG)."""
    from io import BytesIO

    out = BytesIO()
    with Image.open(BytesIO(_jpeg(seed))) as img:
        img.save(out, format="PNG")
    return out.getvalue()


def _zip(path: Path, members: dict[str, bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


CIFAR10_NAMES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse",
                 "ship", "truck"]


def cifar10_archive(path: Path, per_batch: int = 20, seed: int = 0) -> Path:
    """``cifar-10-python.tar.gz`` as released: ``cifar-10-batches-py/`` with ``data_batch_1``
    .. ``_5``, ``test_batch`` (Python 2 pickles with bytes keys: ``data`` uint8 rows of 1,024
    red, green, blue values, ``labels``, ``filenames``, ``batch_label``), ``batches.meta``
    and ``readme.html``. Image k of a batch has class k % 10 and that class's colour (plus
    noise), so a probe can learn the classes."""
    rng = np.random.default_rng(seed)
    colours = rng.integers(0, 256, size=(10, 3))
    members = {}
    for b, name in enumerate([f"data_batch_{k}" for k in range(1, 6)] + ["test_batch"]):
        labels = [(b + i) % 10 for i in range(per_batch)]
        pixels = np.clip(colours[labels][:, :, None] + rng.normal(0, 12, (per_batch, 3, 1024)),
                         0, 255).astype(np.uint8).reshape(per_batch, 3072)
        members[name] = {b"batch_label": f"batch {b + 1} of 5".encode(), b"labels": labels,
                         b"data": pixels,
                         b"filenames": [f"{CIFAR10_NAMES[y]}_s_{b:02d}{i:04d}.png".encode()
                                        for i, y in enumerate(labels)]}
    members["batches.meta"] = {b"num_cases_per_batch": per_batch, b"num_vis": 3072,
                               b"label_names": [n.encode() for n in CIFAR10_NAMES]}
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, obj in [*members.items(), ("readme.html", None)]:
            data = b"<html></html>" if obj is None else pickle.dumps(obj, protocol=2)
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _captions(rng: np.random.Generator, n: int) -> list[str]:
    out = []
    for _ in range(n):
        a, b = rng.choice(COLOURS, 2, replace=False)
        x, y = rng.choice(NOUNS, 2, replace=False)
        place = rng.choice(PLACES)
        out.append(f"A {a} {x} next to a {b} {y} on the {place}.")
    return out


def build_mirror(root: Path, seed: int = 0) -> dict[str, str]:
    """Write the mirror under ``root``; returns ``downloads.mirrors`` (URL prefix -> file://)."""
    rng = np.random.default_rng(seed)
    coco, karpathy = root / "coco", root / "karpathy"
    karpathy.mkdir(parents=True, exist_ok=True)
    # Karpathy COCO: 24 train2014 + 8 restval (val2014) train images, 6 val, 12 test
    train = [f"train2014/COCO_train2014_{i:012d}.jpg" for i in range(1, 25)]
    restval = [f"val2014/COCO_val2014_{i:012d}.jpg" for i in range(101, 109)]
    val = [f"val2014/COCO_val2014_{i:012d}.jpg" for i in range(201, 207)]
    test = [f"val2014/COCO_val2014_{i:012d}.jpg" for i in range(301, 313)]
    caps = {name: _captions(rng, 5) for name in train + restval + val + test}
    (karpathy / "coco_karpathy_train.json").write_text(json.dumps([
        {"caption": c, "image": name, "image_id": f"coco_{Path(name).stem[-6:]}"}
        for name in train + restval for c in caps[name]]))
    for split, names in (("val", val), ("test", test)):
        (karpathy / f"coco_karpathy_{split}.json").write_text(json.dumps(
            [{"image": name, "caption": caps[name]} for name in names]))
    _karpathy_json(root / "deepimagesent", {"train": train, "restval": restval, "val": val,
                                            "test": test}, caps)
    _lavis_vitl(root / "lavis")
    # NegCLIP's released train_neg_clip.tsv: each train image's first caption, its negatives
    # and three other rows as hard images, served from ARO's repository
    negclip = root / "aro_repo"
    negclip.mkdir(exist_ok=True)
    rows = ["\ttitle\tfilepath\tneg_caption\tneg_image"]
    names = train + restval
    for k, name in enumerate(names):
        title = caps[name][0]
        words = title.rstrip(".").split()
        words[1], words[6] = words[6], words[1]  # the two colours swapped, spaCy-style " ."
        swapped = " ".join(words) + " ."
        hard = [(k + d) % len(names) for d in (1, 2, 3)]
        rows.append(f"{k}\t{title}\tcoco/{name}\t{[swapped, title.lower()]}\t{hard}")
    (negclip / "train_neg_clip.tsv").write_text("\n".join(rows) + "\n")
    images = {name: _jpeg(k) for k, name in enumerate(train + restval + val + test)}
    _zip(coco / "zips" / "train2014.zip", {n: d for n, d in images.items() if "train2014" in n})
    val2014 = {n: d for n, d in images.items() if n.startswith("val2014/")}
    # COCO's captions_val2014.json: every caption of the test images (BISON's queries and
    # section 6's references), with the images table; BISON pairs test images, its query
    # is the first caption of the true image
    coco_images = [{"id": int(Path(n).stem[-12:]), "file_name": Path(n).name, "width": 48,
                    "height": 48} for n in test]
    annotations = [{"image_id": int(Path(n).stem[-12:]), "id": 1000 + 10 * i + j,
                    "caption": c} for i, n in enumerate(test) for j, c in enumerate(caps[n])]
    bison = []
    for k in range(0, len(test), 2):
        a, b = test[k], test[k + 1]
        true = a if k % 4 == 0 else b
        caption_id = 1000 + 10 * test.index(true)
        bison.append({"bison_id": k // 2, "caption_id": caption_id,
                      "true_image_id": int(Path(true).stem[-12:]),
                      "image_candidates": [
                          {"image_id": int(Path(n).stem[-12:]), "image_filename": Path(n).name}
                          for n in (a, b)]})
    _zip(coco / "zips" / "val2014.zip", val2014)
    _zip(coco / "annotations" / "annotations_trainval2014.zip", {
        "annotations/captions_val2014.json": json.dumps(
            {"info": {"description": "COCO 2014 Dataset"}, "images": coco_images,
             "annotations": annotations})})
    (root / "bison").mkdir(exist_ok=True)
    (root / "bison" / "bison_annotations.cocoval2014.json").write_text(json.dumps(
        {"info": {"source": "coco", "split": "val2014"}, "data": bison}))
    # SugarCrepe: 2 items per subset on val2017 images
    sugar, val2017 = root / "sugarcrepe", {}
    sugar.mkdir(exist_ok=True)
    for s, subset in enumerate(("add_att", "add_obj", "replace_att", "replace_obj",
                                "replace_rel", "swap_att", "swap_obj")):
        entries = {}
        for key in range(2):
            filename = f"{10 * s + key + 1:012d}.jpg"
            val2017[f"val2017/{filename}"] = _jpeg(500 + 10 * s + key)
            positive, negative = _captions(rng, 2)
            entries[str(key)] = {"filename": filename, "caption": positive,
                                 "negative_caption": negative}
        (sugar / f"{subset}.json").write_text(json.dumps(entries))
    _zip(coco / "zips" / "val2017.zip", val2017)
    # ARO: VG-Relation / VG-Attribution JSONs and images/ in the zip, by Google Drive id
    gdrive = root / "gdrive"
    gdrive.mkdir(exist_ok=True)
    ids = {Path(f.path).name: f.url.split("id=")[1].split("&")[0]
           for f in SOURCES["aro_vg"].files}
    relation, attribution, vg = [], [], {}
    for k in range(6):
        vg[f"images/{2315 + k}.jpg"] = _jpeg(900 + k)
        box = {"image_path": f"{2315 + k}.jpg", "bbox_x": 2, "bbox_y": 3, "bbox_w": 30,
               "bbox_h": 28}
        x, y = NOUNS[k % 3], NOUNS[3 + k % 3]
        relation.append({**box, "true_caption": f"the {x} is on the {y}",
                         "false_caption": f"the {y} is on the {x}",
                         "relation_name": ["on", "behind"][k % 2]})
        attribution.append({**box, "true_caption": f"the white {x} and the black {y}",
                            "false_caption": f"the black {x} and the white {y}",
                            "attributes": ["white", "black"]})
    for name, data in (("visual_genome_relation.json", relation),
                       ("visual_genome_attribution.json", attribution)):
        (gdrive / (ids[name] + "&export=download&confirm=t")).write_text(json.dumps(data))
    zip_name = ids["vgr_vga_images.zip"] + "&export=download&confirm=t"
    _zip(gdrive / zip_name, vg)
    # Winoground (t2v_metrics' zip, by Google Drive id): examples.jsonl and images/*.png
    examples, wino = [], {}
    for k in range(WINOGROUND_ITEMS):
        a, b = rng.choice(COLOURS, 2, replace=False)
        x, y = rng.choice(NOUNS, 2, replace=False)
        examples.append({"id": k, "image_0": f"ex_{k}_img_0", "image_1": f"ex_{k}_img_1",
                         "caption_0": f"a {a} {x} on a {b} {y}",
                         "caption_1": f"a {b} {y} on a {a} {x}", "tag": "Object",
                         "secondary_tag": "", "num_main_preds": 1,
                         "collapsed_tag": ["Object", "Relation", "Both"][k % 3]})
        for j in range(2):
            wino[f"winoground/images/ex_{k}_img_{j}.png"] = _png(1200 + 2 * k + j)
    wino["winoground/examples.jsonl"] = "".join(json.dumps(e) + "\n" for e in examples)
    wino_id = SOURCES["winoground"].files[0].url.split("id=")[1].split("&")[0]
    _zip(gdrive / (wino_id + "&export=download&confirm=t"), wino)
    _visualgptscore_sets(root, rng)
    cifar10_archive(root / "cifar" / "cifar-10-python.tar.gz")  # 100 train, 20 test images
    _xvlm(root)
    _corenlp(root / "stanford")
    _wordnet_release(root / "wordnet")
    return {
        WORDNET_PREFIX: (root / "wordnet").as_uri(),
        CORENLP_PREFIX: (root / "stanford").as_uri(),
        XVLM_PREFIX: (root / "xvlm_configs").as_uri(),
        CIFAR_URL: (root / "cifar").as_uri(),
        VG_IMAGES: (root / "vg").as_uri(),
        CREPE_PREFIX: (root / "crepe").as_uri(),
        VL_CHECKLIST_PREFIX: (root / "vl_checklist").as_uri(),
        SWIG_PREFIX: (root / "swig").as_uri(),
        DIWAN_PREFIX: (root / "diwan").as_uri(),
        COCO: coco.as_uri(),
        BLIP_KARPATHY: karpathy.as_uri(),
        KARPATHY_JSON_PREFIX: (root / "deepimagesent").as_uri(),
        LAVIS_BLIP2_PREFIX: (root / "lavis").as_uri(),
        SUGARCREPE_PREFIX: sugar.as_uri(),
        NEGCLIP_PREFIX: negclip.as_uri(),
        BISON_PREFIX: (root / "bison").as_uri(),
        GDRIVE_PREFIX: gdrive.as_uri() + "/",
    }


def _karpathy_json(folder: Path, splits: dict[str, list[str]],
                   caps: dict[str, list[str]]) -> None:
    """Karpathy's ``caption_datasets.zip`` as served: ``dataset_coco.json`` (images with
    ``filepath``, ``filename``, ``imgid``, ``split``, ``sentids``, ``sentences``, ``cocoid``) at
    the archive's top, beside the Flickr files (here a stand-in); test images in the order of
    BLIP's test JSON, which was made from it."""
    images, sentid = [], 0
    for split, names in splits.items():
        for name in names:
            sentences = []
            for raw in caps[name]:
                tokens = raw.lower().rstrip(".").split()
                sentences.append({"tokens": tokens, "raw": raw, "imgid": len(images),
                                  "sentid": sentid})
                sentid += 1
            folder_name, file_name = name.split("/")
            images.append({"filepath": folder_name, "sentids": [x["sentid"] for x in sentences],
                           "filename": file_name, "imgid": len(images), "split": split,
                           "sentences": sentences, "cocoid": int(Path(name).stem[-12:])})
    _zip(folder / "caption_datasets.zip", {
        "dataset_coco.json": json.dumps({"images": images, "dataset": "coco"}).encode(),
        "dataset_flickr8k.json": json.dumps({"images": [], "dataset": "flickr8k"}).encode()})


def _lavis_vitl(folder: Path) -> None:
    """LAVIS' BLIP-2 ViT-L files at their bucket's names (``clip_vit_L.pth``,
    ``blip2_pretrained_vitL.pth``): a tiny CLIP ViT and stage-1 Q-Former whose vocabulary
    and image size fit the mirror hub's tiny BLIP-2 processor (tests/tiny_blip2.py)."""
    from .tiny_blip2 import BERT_SPECIALS, VISION, _words
    from .tiny_lavis import write_lavis_vitl

    vocab = len(BERT_SPECIALS) + len(_words(caption_words())) + 1
    write_lavis_vitl(folder, vocab, patch=VISION["patch_size"], image=VISION["image_size"])


def _corenlp(folder: Path) -> None:
    """``stanford-corenlp-full-2015-12-09.zip`` as released: one top folder with CoreNLP's
    jars (stand-ins), its models jar and the rest of the distribution (a README, other jars)."""
    top = "stanford-corenlp-full-2015-12-09"
    _zip(folder / f"{top}.zip", {
        f"{top}/{name}": f"stand-in for {name}".encode()
        for name in ("stanford-corenlp-3.6.0.jar", "stanford-corenlp-3.6.0-models.jar",
                     "stanford-corenlp-3.6.0-sources.jar", "joda-time.jar", "README.txt",
                     "LICENSE.txt")})


def _gdrive_name(source: str, index: int) -> str:
    """The mirror's file name of a Google Drive download of a source."""
    return SOURCES[source].files[index].url.split("id=")[1].split("&")[0] + \
        "&export=download&confirm=t"


def _xvlm(root: Path) -> None:
    """ARO's X-VLM COCO retrieval checkpoint and its YAML at their Drive ids, the Swin and
    BERT JSONs in X-VLM's repository (a tiny X-VLM, tests/tiny_xvlm.py); its tokenizer
    (ARO's is the hub's bert-base-uncased) in ``xvlm_tokenizer``, given by the configuration."""
    from .tiny_xvlm import RETRIEVAL_COCO, write_model

    folder = root / "xvlm_tiny"
    checkpoint, config = write_model(folder, config=RETRIEVAL_COCO, words=caption_words())
    gdrive, configs = root / "gdrive", root / "xvlm_configs"
    configs.mkdir(parents=True, exist_ok=True)
    (gdrive / _gdrive_name("xvlm_coco", 0)).write_bytes(checkpoint.read_bytes())
    (gdrive / _gdrive_name("xvlm_coco", 1)).write_bytes(config.read_bytes())
    for name in XVLM_CONFIG_BLOBS:
        (configs / name).write_bytes((folder / name).read_bytes())
    (folder / "tokenizer").rename(root / "xvlm_tokenizer")


def _visualgptscore_sets(root: Path, rng: np.random.Generator) -> None:
    """Visual Genome's two image zips, CREPE's productivity zip, VL-CheckList Relation's
    yamls and JSONs with SWiG's image zip, EqBen's 10% subset (JSON + tar.gz) and Diwan et
    al.'s Winoground tags, each in its released layout."""
    vg = root / "vg"
    _zip(vg / "images.zip", {f"VG_100K/{i}.jpg": _jpeg(1500 + k)
                             for k, i in enumerate(VG_IDS[:2])})
    _zip(vg / "images2.zip", {f"VG_100K_2/{VG_IDS[2]}.jpg": _jpeg(1502)})
    # CREPE: every type x complexity 4..12, one or two rows each, list (or set) literals
    crepe = {}
    for t, kind in enumerate(("atom", "negate", "swap")):
        for n in range(4, 13):
            rows = []
            for r in range(1 + (n == 4)):
                x, y = NOUNS[(n + r) % 6], NOUNS[(n + r + 1) % 6]
                caption = f"{x} on {y}. there is a {PLACES[r]}."
                negatives = [f"{y} on {x}. there is a {PLACES[r]}.",
                             *(f"{x} on {NOUNS[(n + k) % 6]}. there is a {PLACES[r]}."
                               for k in range(2, 6))]
                literal = ("{" + ", ".join(repr(v) for v in negatives) + "}"
                           if kind == "negate" and n == 4 else repr(negatives))
                rows.append(f'{VG_IDS[(n + r) % 3]},{caption},{n},2,1,{n - 3},1,'
                            f'"{literal}",{2.0 + t},3.0,30.0,28.0\n')
            crepe[f"prod_hard_negatives/{kind}/prod_vg_hard_negs_{kind}_complexity_{n}.csv"] = (
                CREPE_HEADER + "".join(rows))
    _zip(root / "crepe" / "prod_hard_negatives.zip", crepe)
    # VL-CheckList: the yamls as released (some without a final newline) and the JSONs
    vlc = root / "vl_checklist"
    entries = {
        "data/Relation/vg/action.json": [
            [f"VG_100K/{VG_IDS[0]}.jpg",
             {"POS": ["man riding horse"], "NEG": ["man feeding horse"]}],
            [f"VG_100K_2/{VG_IDS[2]}.jpg", {"POS": ["dog ON bench"], "NEG": ["dog under bench"]}]],
        "data/Relation/vg/spatial.json": [
            [f"VG_100K/{VG_IDS[1]}.jpg", {"POS": ["cat on table"], "NEG": ["cat under table"]}],
            [f"VG_100K/{VG_IDS[1]}.jpg", {"POS": ["cat on table"], "NEG": ["cat under table"]}]],
        "data/Relation/swig_action.json": [
            ["dialing_8.jpg", {"POS": ["person dialing phone"], "NEG": ["person eating phone"]}]],
        "data/Relation/hake_action.json": [
            ["hake_images_20190730/1.jpg",
             {"POS": ["person hold cup"], "NEG": ["person kick cup"]}]],
    }
    for path in VL_CHECKLIST_BLOBS:
        target = vlc / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.endswith(".yaml"):
            tag, corpus = path.split("/")[-2], path.split("/")[-1].removesuffix(".yaml")
            anno = {("action", "hake"): "data/Relation/hake_action.json",
                    ("action", "swig"): "data/Relation/swig_action.json",
                    ("action", "vg"): "data/Relation/vg/action.json",
                    ("spatial", "vg"): "data/Relation/vg/spatial.json"}[tag, corpus]
            target.write_text(f'ANNO_PATH: "{anno}"\nIMG_ROOT: "{corpus}/"\nTYPE: "TUPLE_JSON"')
        else:
            target.write_text(json.dumps(entries[path]))
    _zip(root / "swig" / "images_512.zip", {"images_512/dialing_8.jpg": _jpeg(1510)})
    # EqBen's 10% subset: Winoground-style JSON and a tar.gz of images (.npy YouCook2 frames)
    gdrive = root / "gdrive"
    eqben, members = [], {}
    for k in range(EQBEN_ITEMS - 1):
        folder = ["eqbensd/0001", "eqbenkubric_attr/000012", "eqbensd/0002"][k]
        a, b = rng.choice(COLOURS, 2, replace=False)
        x = NOUNS[k]
        eqben.append({"image0": f"{folder}/0.png", "caption0": f"a {a} {x}",
                      "image1": f"{folder}/1.png", "caption1": f"a {b} {x}"})
        members[f"image_subset/{folder}/0.png"] = _png(1600 + 2 * k)
        members[f"image_subset/{folder}/1.png"] = _png(1601 + 2 * k)
    eqben.append({"image0": "eqbenyoucook2/GLd3aX16zBg/0001.npy", "caption0": "a dog on a bench",
                  "image1": "eqbenyoucook2/GLd3aX16zBg/0002.npy", "caption1": "a cat on a bench"})
    for j in (1, 2):
        from io import BytesIO

        frame = BytesIO()
        np.save(frame, rng.integers(0, 256, (24, 32, 3), dtype=np.uint8))
        members[f"image_subset/eqbenyoucook2/GLd3aX16zBg/000{j}.npy"] = frame.getvalue()
    (gdrive / _gdrive_name("eqben_val", 0)).write_text(json.dumps(eqben))
    _tar(gdrive / _gdrive_name("eqben_val", 1), members)
    # Diwan et al.'s tags: all 400 Winoground ids; the mirror's items 0 and 1 are tagged
    tags = {str(k): [] for k in range(400)}
    tags["0"], tags["1"] = ["Visually Difficult"], ["Unusual Text", "Complex Reasoning"]
    (root / "diwan").mkdir(exist_ok=True)
    (root / "diwan" / "new_tag_assignments.json").write_text(json.dumps(tags, indent=1))


def _wordnet_release(folder: Path) -> None:
    """Princeton's WordNet-3.0.tar.gz in its layout (``WordNet-3.0/dict/``), holding this
    machine's WordNet 3.0 database (Debian's wordnet-base: the same files)."""
    from vlcomp.text.wordnet_files import DATABASE_FILES, OPTIONAL_FILES, WORDNET_SOURCE

    folder.mkdir(parents=True, exist_ok=True)
    names = [*DATABASE_FILES, *(n for n in OPTIONAL_FILES if (WORDNET_SOURCE / n).is_file())]
    _tar(folder / "WordNet-3.0.tar.gz",
         {f"WordNet-3.0/dict/{name}": (WORDNET_SOURCE / name).read_bytes() for name in names})


def _tar(path: Path, members: dict[str, bytes]) -> None:
    """A .tar.gz of ``members`` (name -> bytes)."""
    import io
    import tarfile

    with tarfile.open(path, "w:gz") as tf:
        for name, data in sorted(members.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))


def mirror_checksums() -> dict[str, None]:
    """``downloads.sha256`` for this mirror: its SugarCrepe, BISON, NegCLIP, CREPE,
    VL-CheckList, Diwan and X-VLM files are miniatures, and its WordNet archive is packed here,
    not the published versions, so they are checked against the lock file instead."""
    return {**{f"sugarcrepe/{s}.json": None for s in SUGARCREPE_SUBSETS},
            "bison/bison_annotations.cocoval2014.json": None,
            "aro/negclip/train_neg_clip.tsv": None,
            "crepe/prod_hard_negatives.zip": None,
            "winoground/new_tag_assignments.json": None,
            "cifar/cifar-10-python.tar.gz": None,
            "wordnet3/WordNet-3.0.tar.gz": None,
            **{f"vl_checklist/release/{p}": None for p in VL_CHECKLIST_BLOBS},
            **{f"models/xvlm/{name}": None for name in XVLM_CONFIG_BLOBS}}


def caption_words() -> list[str]:
    """Every word the mirror's captions use (a tiny BLIP's vocabulary)."""
    return ["a", "the", "next", "to", "on", "is", "and", ".", *COLOURS, *NOUNS, *PLACES]


HUB_LFS_BYTES = 1024  # files this large are LFS files on the mirror (listed with sha256)


def hub_revision(repo: str) -> str:
    """The mirror's commit of a repository (40 hex characters, fixed per id)."""
    import hashlib

    return hashlib.sha1(f"mirror {repo}".encode()).hexdigest()


def publish_to_hub(folder: Path, hub: Path, repo: str, kind: str = "model") -> str:
    """Serve ``folder``'s files as hub repository ``repo`` at its mirror commit, in the
    hub's URL layout under ``hub`` (the mirror of https://huggingface.co): the API listing
    at the commit and at ``main`` (``api/{kind}s/{repo}/revision/{rev}?blobs=true``: each
    file's git blob id and size, LFS files with their sha256) and every file at
    ``[datasets/]{repo}/resolve/{rev}/{path}``. Returns the commit."""
    import hashlib
    import shutil

    revision = hub_revision(repo)
    prefix = "datasets/" if kind == "dataset" else ""
    siblings = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        data = path.read_bytes()
        entry = {"rfilename": name, "size": len(data),
                 "blobId": hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()}
        if len(data) >= HUB_LFS_BYTES:
            entry["lfs"] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data),
                            "pointerSize": 134}
        siblings.append(entry)
        target = hub / f"{prefix}{repo}" / "resolve" / revision / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    listing = json.dumps({"id": repo, "sha": revision, "siblings": siblings})
    for rev in (revision, "main"):
        api = hub / "api" / f"{kind}s" / repo / "revision" / f"{rev}?blobs=true"
        api.parent.mkdir(parents=True, exist_ok=True)
        api.write_text(listing)
    return revision
