"""The classification sets as the workflow uses them: image sets per split and class prompts.

An image set is the table ``image_id, path, label`` (+ the loader's columns: ``split``,
``filename``, ``wnid``, ``class_name``) that the embedding rules read; one per split of a
dataset (`vlcomp.benchmarks.classification_plan.SPLITS`). Class names and prompt templates
are CLIP's for CIFAR and ImageNet (`vlcomp.benchmarks.classification`) and the caption
grammar's for the world's shapes (`vlcomp.world.classification`).
"""

from __future__ import annotations

import pandas as pd

from vlcomp.benchmarks.classification_plan import SPLITS
from vlcomp.world.config import WorldConfig

IMAGESET_COLUMNS = ("image_id", "path", "label")


def split_imagesets(table: pd.DataFrame, dataset: str) -> dict[str, pd.DataFrame]:
    """The rows of each of ``dataset``'s two splits (table order kept, index reset).

    Raises ValueError naming the dataset when a column is missing, a split has no rows or
    an image id repeats."""
    missing = [c for c in (*IMAGESET_COLUMNS, "split") if c not in table]
    if missing:
        raise ValueError(f"{dataset}: image table lacks columns {missing}")
    dup = table.image_id[table.image_id.duplicated()]
    if len(dup):
        raise ValueError(f"{dataset}: image id {dup.iloc[0]!r} occurs twice")
    out = {}
    for split in SPLITS[dataset]:
        rows = table[table.split == split].reset_index(drop=True)
        if rows.empty:
            raise ValueError(f"{dataset}: no images in split {split!r}")
        out[split] = rows
    return out


def class_prompts(dataset: str, world: WorldConfig | None = None
                  ) -> tuple[list[str], list[str]]:
    """Class names (label order) and prompt templates (``{}`` for the name) of a dataset;
    ``world_shapes`` needs the world's configuration."""
    if dataset == "world_shapes":
        if world is None:
            raise ValueError("world_shapes: class prompts need the world's configuration")
        from vlcomp.world.classification import world_class_names, world_templates

        return world_class_names(world), world_templates(world)
    from vlcomp.benchmarks.classification import class_names, templates

    return class_names(dataset), templates(dataset)


def check_labels(table: pd.DataFrame, n_classes: int, where: str) -> None:
    """Every label is a class index below ``n_classes`` (ValueError naming ``where``)."""
    labels = table.label.to_numpy()
    bad = (labels < 0) | (labels >= n_classes)
    if bad.any():
        raise ValueError(f"{where}: label {int(labels[bad][0])} of image "
                         f"{table.image_id[bad].iloc[0]!r} is not a class (0..{n_classes - 1})")
