"""VL-CheckList's Relation set (Zhao et al., 2022; ``om-ai-lab/VL-CheckList``) as i2t items.

The release is a folder laid out like the repository: ``corpus/v1/Relation/{tag}/{corpus}.yaml``
names each corpus file (``ANNO_PATH``, relative to the release folder), its image folder
(``IMG_ROOT``, relative to the image root: ``hake/``, ``swig/``, ``vg/``) and ``TYPE:
"TUPLE_JSON"``. Each ``data/Relation/...json`` is a list of ``[image path, {"POS": [text],
"NEG": [text]}]`` (one text in each list throughout the release). VL-CheckList's ``itc``
evaluation (``vl_checklist/evaluate.py``) uses ``POS[0]`` and ``NEG[0]`` and counts an entry
correct iff the positive scores strictly higher (``>``; ties wrong). Its loader
(``vl_checklist/data_loader.py``) silently drops entries whose image is missing, and
``Evaluate`` keeps only the first ``MAX_NUM / 2`` entries per corpus (``configs/sample.yaml``:
``MAX_NUM: 2000``). Both are the defaults here: the first `REFERENCE_PER_CORPUS` entries with
an image per corpus, entries without one dropped, counted and named (`CorpusCount`), and an
error once more than ``max_missing`` of a corpus's entries lack their image (a partial
download). ``missing="error"`` and ``max_per_corpus=None`` score every entry.

Quirks kept as released: exact duplicate entries (22 in ``vg/action``, 4,448 in
``vg/spatial``), entries whose POS equals NEG (3 in ``swig_action``, 28 in ``vg/action``:
always a tie, so always wrong under ``>``), upper-case relations ("ON", "IN") and stray spaces.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from vlcomp.items import make_items

RELEASE_COMMIT = "6f8d6a3281c401b89e4e154f46c6974ec2df3a82"
SUBSETS = ("action", "spatial")
CORPUS_FOLDER = Path("corpus") / "v1" / "Relation"
TUPLE_JSON = "TUPLE_JSON"
MISSING_POLICIES = ("error", "skip", "ignore")
REFERENCE_PER_CORPUS = 1000  # Evaluate's MAX_NUM / 2 (configs/sample.yaml: MAX_NUM 2000)
MAX_MISSING = 0.01  # the largest share of a corpus's entries that may lack their image
FLAT_CORPORA = ("swig",)  # image paths are bare file names
# What corpus/v1/Relation/{tag}/{corpus}.yaml say at RELEASE_COMMIT: (ANNO_PATH, IMG_ROOT).
RELATION_FILES: dict[tuple[str, str], tuple[str, str]] = {
    ("action", "hake"): ("data/Relation/hake_action.json", "hake/"),
    ("action", "swig"): ("data/Relation/swig_action.json", "swig/"),
    ("action", "vg"): ("data/Relation/vg/action.json", "vg/"),
    ("spatial", "vg"): ("data/Relation/vg/spatial.json", "vg/"),
}
# Entries per released file (hake_action.json could not be read here: count unknown).
ENTRY_COUNTS = {("action", "swig"): 25150, ("action", "vg"): 12733, ("spatial", "vg"): 30650}
IMAGE_HELP = {
    "hake": ("HAKE images (DATASETS.md: hake_images_20190730/, hake_images_20200614/, hcvrd/, "
             "hico_20160224_det/images/{train,test}2015/, openimages/, pic/, vcoco/"
             "{train,val}2014/ from https://github.com/DirtyHarryLYL/HAKE/tree/master/Images)"),
    "swig": ("SWiG images, flat (DATASETS.md: unpack "
             "https://swig-data-weights.s3.us-east-2.amazonaws.com/images_512.zip)"),
    "vg": ("Visual Genome images in VG_100K/ and VG_100K_2/ (DATASETS.md: "
           "https://cs.stanford.edu/people/rak248/VG_100K_2/images.zip and images2.zip)"),
}


@dataclass(frozen=True)
class CorpusConfig:
    """One ``corpus/v1/Relation/{subset}/{corpus}.yaml``: where its entries and images are."""

    subset: str
    corpus: str
    yaml_path: Path
    anno_path: str
    img_root: str


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as err:
        raise ValueError(f"{path}: not a readable VL-CheckList corpus yaml ({err})") from err
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping with ANNO_PATH, IMG_ROOT and TYPE")
    missing = [k for k in ("ANNO_PATH", "IMG_ROOT") if not isinstance(data.get(k), str)]
    if missing:
        raise ValueError(f"{path}: missing string key(s) {missing}")
    if data.get("TYPE", TUPLE_JSON) != TUPLE_JSON:
        raise ValueError(f"{path}: TYPE {data['TYPE']!r} is not {TUPLE_JSON!r}")
    return data


def relation_configs(
    release_root: str | Path, subsets: Sequence[str] = SUBSETS
) -> list[CorpusConfig]:
    """The corpora making up each Relation tag, as the release's yaml files say (one per
    ``corpus/v1/Relation/{subset}/*.yaml``, sorted by subset order then corpus name)."""
    root = Path(release_root)
    out = []
    for subset in subsets:
        if subset not in SUBSETS:
            raise ValueError(f"unknown VL-CheckList Relation tag {subset!r}; known: {SUBSETS}")
        folder = root / CORPUS_FOLDER / subset
        files = sorted(folder.glob("*.yaml"))
        if not files:
            raise FileNotFoundError(
                f"{folder}: no corpus yaml; copy VL-CheckList's corpus/ folder (commit "
                f"{RELEASE_COMMIT}) into {root}")
        for path in files:
            data = _read_yaml(path)
            out.append(CorpusConfig(subset, path.stem, path, data["ANNO_PATH"],
                                    data["IMG_ROOT"]))
    return out


def _texts(value: Any, key: str, where: str) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(t, str) for t in value):
        raise ValueError(f"{where}: {key!r} must be a non-empty list of strings, got {value!r}")
    return value


def read_entries(path: str | Path) -> list[tuple[str, str, str]]:
    """``(image path, POS[0], NEG[0])`` per entry of one TUPLE_JSON file, in file order."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: not valid JSON ({err})") from err
    if not isinstance(data, list) or not data:
        raise ValueError(f"{path}: expected a non-empty JSON list of [image, {{POS, NEG}}]")
    out = []
    for index, entry in enumerate(data):
        where = f"{path} entry {index}"
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                and isinstance(entry[1], dict)):
            raise ValueError(f"{where}: expected [image path, {{'POS': [...], 'NEG': [...]}}]")
        texts = entry[1]
        missing = [k for k in ("POS", "NEG") if k not in texts]
        if missing:
            raise ValueError(f"{where}: missing key(s) {missing}")
        pos = _texts(texts["POS"], "POS", where)
        neg = _texts(texts["NEG"], "NEG", where)
        out.append((entry[0], pos[0], neg[0]))
    return out


def _image_problem(config: CorpusConfig, folder: Path, missing: list[tuple[int, Path]]) -> str:
    index, first = missing[0]
    help_text = IMAGE_HELP.get(config.corpus, f"the {config.corpus} images")
    return (f"Relation/{config.subset}/{config.corpus}.yaml ({config.anno_path} entry "
            f"{index}): image {first} is "
            f"missing ({len(missing)} of this corpus in all); VL-CheckList expects "
            f"{help_text} under {folder}")


def corpus_folder(image_root: Path, img_root: str,
                  image_roots: Mapping[str, str | Path] | None = None) -> Path:
    """Where a corpus's images are: ``image_roots[IMG_ROOT]`` or ``image_root / IMG_ROOT``;
    SWiG's flat folder through a lone top folder (``images_512/`` of its zip)."""
    name = img_root.strip("/")
    folder = Path((image_roots or {}).get(name, image_root / name))
    if name in FLAT_CORPORA and folder.is_dir():
        entries = [e for e in folder.iterdir() if not e.name.startswith(".")]  # Snakemake stamps
        if len(entries) == 1 and entries[0].is_dir():
            return entries[0]
    return folder


@dataclass(frozen=True)
class CorpusCount:
    """What one corpus gave: its entries, those dropped for a missing image (with the first
    few named) and those kept after `REFERENCE_PER_CORPUS`'s cut."""

    subset: str
    corpus: str
    entries: int
    missing_images: int
    kept: int
    missing_examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class RelationRelease:
    """VL-CheckList Relation as scored: items, their image table and per-corpus counts."""

    items: pd.DataFrame
    images: pd.DataFrame
    counts: tuple[CorpusCount, ...]
    max_per_corpus: int | None  # the cut it was sampled with (None: every entry)

    def report(self) -> dict[str, Any]:
        """The counts as a JSON-ready mapping (the workflow's sampling report)."""
        return {"max_per_corpus": self.max_per_corpus,
                "corpora": [{"subset": c.subset, "corpus": c.corpus, "entries": c.entries,
                             "missing_images": c.missing_images, "kept": c.kept,
                             "missing_examples": list(c.missing_examples)}
                            for c in self.counts]}


def sampling_note(report: Mapping[str, Any]) -> str:
    """A table note saying how VL-CheckList Relation was sampled and what was dropped."""
    cap = report.get("max_per_corpus")
    corpora = report["corpora"]
    head = (f"VL-CheckList Relation: the first {cap} entries with an image per corpus (the "
            "reference's MAX_NUM / 2)" if cap else
            "VL-CheckList Relation: every entry with an image")
    kept = ", ".join(f"{c['subset']}/{c['corpus']} {c['kept']:,}" for c in corpora)
    dropped = [c for c in corpora if c["missing_images"]]
    if not dropped:
        return f"{head}: {kept}; no image missing."
    lost = "; ".join(f"{c['subset']}/{c['corpus']} {c['missing_images']:,} of "
                     f"{c['entries']:,} (e.g. {c['missing_examples'][0]})" for c in dropped)
    return f"{head}: {kept}; dropped for a missing image: {lost}."


def vl_checklist_relation_items(*args: Any, **kwargs: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`vl_checklist_relation` (same arguments) without the counts: (items, image table)."""
    found = vl_checklist_relation(*args, **kwargs)
    return found.items, found.images


def vl_checklist_relation(
    release_root: str | Path,
    image_root: str | Path,
    subsets: Sequence[str] = SUBSETS,
    corpora: Sequence[str] | None = None,
    *,
    missing: str = "skip",
    max_missing: float = MAX_MISSING,
    max_per_corpus: int | None = REFERENCE_PER_CORPUS,
    image_roots: Mapping[str, str | Path] | None = None,
) -> RelationRelease:
    """Items (``i2t``, texts ``[POS[0], NEG[0]]``, label 0, strict ties; columns ``corpus``
    and ``entry``, the index in the JSON), the image table (``image_id, path``; the id is
    ``{IMG_ROOT}{image path}``, e.g. ``vg/VG_100K/2361911.jpg``) and per-corpus counts.

    ``missing``: ``skip`` (default: drop the entry, as VL-CheckList's loader does, counted
    and named; more than ``max_missing`` of a corpus's entries is an error naming the
    folder expected), ``error`` (any missing image is) or ``ignore`` (do not look).
    ``max_per_corpus``: keep the first N kept entries per corpus (default: VL-CheckList's
    ``MAX_NUM / 2``, `REFERENCE_PER_CORPUS`); None keeps all. ``corpora`` filters by yaml
    stem. ``image_roots`` maps an ``IMG_ROOT`` (``vg``, ``swig``, ``hake``) to its own folder
    (one Visual Genome copy shared with CREPE), else ``image_root / IMG_ROOT``; a folder
    holding nothing but one subfolder (an archive's top folder) is read through it.
    """
    if missing not in MISSING_POLICIES:
        raise ValueError(f"missing must be one of {MISSING_POLICIES}, got {missing!r}")
    if max_per_corpus is not None and max_per_corpus < 1:
        raise ValueError(f"max_per_corpus must be positive, got {max_per_corpus}")
    if not 0 <= max_missing <= 1:
        raise ValueError(f"max_missing must be a share in [0, 1], got {max_missing}")
    root, image_root = Path(release_root), Path(image_root)
    configs = relation_configs(root, subsets)
    if corpora is not None:
        unknown = sorted(set(corpora) - {c.corpus for c in configs})
        if unknown:
            raise ValueError(f"unknown corpus/corpora {unknown}; the yamls name "
                             f"{sorted({c.corpus for c in configs})}")
        configs = [c for c in configs if c.corpus in set(corpora)]
    rows, images, counts = [], {}, []
    for config in configs:
        anno = root / config.anno_path
        if not anno.is_file():
            raise FileNotFoundError(
                f"{config.yaml_path}: ANNO_PATH {config.anno_path} is missing under {root}; "
                f"download it from VL-CheckList at commit {RELEASE_COMMIT}")
        folder = corpus_folder(image_root, config.img_root, image_roots)
        kept, absent = [], []
        for index, (image, pos, neg) in enumerate(read_entries(anno)):
            path = folder / image
            if missing != "ignore" and not path.is_file():
                absent.append((index, path))
                continue
            kept.append((index, image, pos, neg, path))
        entries = len(kept) + len(absent)
        if absent and missing == "error":
            raise FileNotFoundError(_image_problem(config, folder, absent))
        if len(absent) > max_missing * entries:
            raise FileNotFoundError(
                f"more than {max_missing:.1%} of the entries lack their image: "
                + _image_problem(config, folder, absent))
        if absent:
            warnings.warn(f"VL-CheckList: skipped {len(absent)} entries without images; "
                          + _image_problem(config, folder, absent), stacklevel=2)
        counts.append(CorpusCount(config.subset, config.corpus, entries, len(absent),
                                  len(kept[:max_per_corpus]),
                                  tuple(f"{config.img_root}{kept_path.relative_to(folder)}"
                                        for _, kept_path in absent[:5])))
        for index, image, pos, neg, path in kept[:max_per_corpus]:
            image_id = f"{config.img_root.rstrip('/')}/{image}"
            images[image_id] = str(path)
            rows.append({
                "item_id": f"{config.subset}-{config.corpus}-{index:06d}",
                "subset": config.subset, "image_ids": [image_id], "texts": [pos, neg],
                "protocol": "i2t", "label": 0, "tie_policy": "strict",
                "corpus": config.corpus, "entry": index,
            })
    if not rows:
        raise ValueError(f"{root}: no VL-CheckList Relation items (all images missing?)")
    table = pd.DataFrame({"image_id": list(images), "path": list(images.values())})
    return RelationRelease(make_items(rows), table.sort_values("image_id", ignore_index=True),
                           tuple(counts), max_per_corpus)
