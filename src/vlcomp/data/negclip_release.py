"""NegCLIP's released training data (``train_neg_clip.tsv`` / ``valid_neg_clip.tsv``).

The TSVs ARO's NegCLIP was fine-tuned on (``temp_data/`` of the ARO repository), read by the
NegCLIP fork's ``CsvDataset`` with ``pd.read_csv(sep="\\t")``: an unnamed index column, then
``title`` (the caption), ``filepath`` (``coco/val2014/COCO_val2014_000000184613.jpg``),
``neg_caption`` (a Python list literal of 1-5 negative captions) and ``neg_image`` (a list
literal of 3 **row indices of the same file**: the nearest-neighbour hard images). One row per
image: the gist kept each image's first Karpathy caption.

`release_tables` turns a file into vlcomp's negatives table (``caption_id, negatives``) and
pairs table (``image_id, neighbour_ids``) over a caption dataset, matching each row to the
dataset caption of its image with the same text, so the NegCLIP run trains on exactly the
released rows.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

COLUMNS = ("title", "filepath", "neg_caption", "neg_image")
_SPACE = re.compile(r"\s+")


def read_negclip_tsv(path: str | Path) -> pd.DataFrame:
    """The released TSV with its list columns parsed; errors name the file and the row."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing (NegCLIP's released data; config/README.md)")
    table = pd.read_csv(path, sep="\t", index_col=0, dtype={"title": str, "filepath": str},
                        keep_default_na=False)
    missing = [c for c in COLUMNS if c not in table]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; has {list(table)}")
    for column in ("neg_caption", "neg_image"):
        parsed = []
        for row, value in zip(table.index, table[column], strict=True):
            try:
                item = ast.literal_eval(value)
            except (ValueError, SyntaxError) as err:
                raise ValueError(f"{path}: row {row}: {column} is not a list literal "
                                 f"({value[:60]!r})") from err
            if not isinstance(item, list):
                raise ValueError(f"{path}: row {row}: {column} is not a list ({value[:60]!r})")
            parsed.append(item)
        table[column] = parsed
    unknown = sorted({j for js in table.neg_image for j in js} - set(table.index))
    if unknown:
        raise ValueError(f"{path}: neg_image names rows that are not in the file, e.g. "
                         f"{unknown[:3]}")
    return table


def normalise(text: str) -> str:
    """Whitespace-collapsed, lower-cased text without a final period (how a title and a
    dataset caption are matched when they differ only in such details)."""
    return _SPACE.sub(" ", text).strip().lower().rstrip(".").rstrip()


@dataclass(frozen=True)
class ReleaseTables:
    """The release as vlcomp tables, and the rows that matched no dataset caption."""

    negatives: pd.DataFrame  # caption_id, negatives
    pairs: pd.DataFrame  # image_id, neighbour_ids
    unmatched: pd.DataFrame  # the release's rows without a caption in the dataset


def release_tables(release: pd.DataFrame, captions: pd.DataFrame, where: str,
                   max_unmatched: float = 0.01) -> ReleaseTables:
    """Match each released row to the caption of its image (by file stem) with the same text
    (exact, else `normalise`d); more than ``max_unmatched`` of the rows unmatched is an error
    naming ``where`` and a few of them (the wrong dataset or split)."""
    caption_of: dict[tuple[str, str], str] = {}
    loose: dict[tuple[str, str], str] = {}
    for cid, image_id, text in zip(captions.caption_id, captions.image_id, captions.text,
                                   strict=True):
        caption_of.setdefault((str(image_id), str(text)), str(cid))
        loose.setdefault((str(image_id), normalise(str(text))), str(cid))
    stems = [Path(p).stem for p in release.filepath]
    matched = []
    for stem, title in zip(stems, release.title, strict=True):
        matched.append(caption_of.get((stem, title)) or loose.get((stem, normalise(title))))
    found = pd.Series(matched, index=release.index, dtype=object)
    missing = found.isna()
    if missing.mean() > max_unmatched:
        examples = [f"row {r} ({release.filepath[r]}: {release.title[r]!r})"
                    for r in release.index[missing][:3]]
        raise ValueError(f"{where}: {int(missing.sum())} of {len(release)} released rows match "
                         f"no caption of their image in the dataset, e.g. {'; '.join(examples)}")
    kept = release[~missing]
    image_of_row = dict(zip(release.index, stems, strict=True))
    negatives = pd.DataFrame({
        "caption_id": found[~missing].tolist(),
        "negatives": [[str(n) for n in negs] for negs in kept.neg_caption],
    })
    pairs = pd.DataFrame({
        "image_id": [image_of_row[r] for r in kept.index],
        "neighbour_ids": [[image_of_row[j] for j in js] for js in kept.neg_image],
    })
    return ReleaseTables(negatives, pairs, release[missing])
