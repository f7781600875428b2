"""Embed image sets and text sets once per model; embeddings are cached as .npy + id list."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from PIL import Image
from tqdm import tqdm

from vlcomp.image.shuffle_views import SHUFFLE_INFO, raw_shuffled, split_view
from vlcomp.io import atomic_path, open_rgb, write_npy


def image_boxes(images: pd.DataFrame) -> list:
    """The crop box of each row of an image set (``bbox`` column, or None for every row)."""
    return images.bbox.tolist() if "bbox" in images else [None] * len(images)


def open_image(path: str | Path, box: Sequence[float] | None = None) -> Image.Image:
    """An image file as RGB, cropped to ``box`` (``[x, y, w, h]`` pixels) when one is given.

    The crop is ``(x, y, x + w, y + h)``, PIL rounding the corners, as ARO crops VG regions.
    The path of a shuffled view (`vlcomp.image.shuffle_views.view_path`) opens its file and
    tags the picture with the shuffle, which the model applies to its preprocessed pixels.
    Raises OSError naming the file when it cannot be read.
    """
    file, spec = split_view(str(path))
    img = open_rgb(file)
    if box is not None:
        x, y, w, h = (float(v) for v in box)
        img = img.crop((x, y, x + w, y + h))
    if spec is not None:
        img.info[SHUFFLE_INFO] = spec
    return img


class ImageFiles:
    """Image files (cropped to their boxes) through a transform, one per index (a map-style
    dataset): the work a `DataLoader`'s workers do while the model encodes the previous
    batch. (The loader comes from the scorer: this module never imports torch, since light
    jobs only load embeddings.)"""

    def __init__(self, paths: Sequence[str], boxes: Sequence, transform) -> None:
        self.paths, self.boxes, self.transform = list(paths), list(boxes), transform

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, k: int):
        return self.transform(open_image(self.paths[k], self.boxes[k]))


IMAGE_CHUNK = 1024  # images opened at once for a scorer that takes PIL images
TEXT_CHUNK = 4096  # texts handed to a scorer at once


def embed_image_set(
    scorer, images: pd.DataFrame, batch_size: int = 256, chunk: int = IMAGE_CHUNK,
    workers: int = 0,
) -> np.ndarray:
    """Embeddings of the images of an image set (rows in table order).

    With a ``bbox`` column (``[x, y, w, h]`` pixels, or None) each image is cropped to its box
    as it is read (ARO's VG crops), so crops never exist as files. A scorer with
    ``image_batches`` and ``embed_pixels`` (the dual encoders) gets batches from its
    `DataLoader`, whose ``workers`` processes decode and transform the files (with its
    ``pixel_transform``, else its ``preprocess``) while it encodes (0: in this process); any
    other scorer gets PIL images, ``chunk`` at a time.
    """
    paths, boxes = images.path.tolist(), image_boxes(images)
    if not paths:
        raise ValueError("image set is empty")
    if callable(getattr(scorer, "image_batches", None)):
        transform = getattr(scorer, "pixel_transform", None) or scorer.preprocess
        loader = scorer.image_batches(ImageFiles(paths, boxes, transform), batch_size, workers)
        parts = [scorer.embed_pixels(batch)
                 for batch in tqdm(loader, desc="embed images", mininterval=5)]
        return np.concatenate(parts).astype(np.float32)
    parts = []
    for start in tqdm(range(0, len(paths), chunk), desc="embed images", mininterval=5):
        batch = [open_image(p, box) for p, box in zip(paths[start : start + chunk],
                                                      boxes[start : start + chunk], strict=True)]
        parts.append(scorer.embed_images(raw_shuffled(batch, scorer), batch_size=batch_size))
    return np.concatenate(parts).astype(np.float32)


def content_key(path: str | Path, box: Sequence[float] | None = None) -> tuple[str, tuple | None]:
    """An image's identity by content: the sha256 of its file's bytes (and a shuffled view's
    shuffle), and its crop box."""
    file, spec = split_view(str(path))
    digest = hashlib.sha256(Path(file).read_bytes()).hexdigest()
    if spec is not None:
        digest += f"+{spec.key()}"
    return digest, None if box is None else tuple(float(v) for v in box)


def distinct_images(tables: Sequence[pd.DataFrame]) -> tuple[pd.DataFrame, list[list[int]]]:
    """The distinct images of several image sets (by file content and crop box,
    `content_key`; ``path, bbox`` in order of first appearance) and, for each set, the row of
    each of its images among them."""
    keys = [[content_key(p, b) for p, b in zip(t.path.tolist(), image_boxes(t), strict=True)]
            for t in tables]
    first: dict[tuple, tuple[int, int]] = {}
    for k, table_keys in enumerate(keys):
        for row, key in enumerate(table_keys):
            first.setdefault(key, (k, row))
    distinct = list(first)
    paths = [t.path.tolist() for t in tables]
    rows = pd.DataFrame({"path": [paths[k][r] for k, r in first.values()],
                         "bbox": pd.Series([key[1] for key in distinct], dtype=object)})
    index = {key: n for n, key in enumerate(distinct)}
    return rows, [[index[key] for key in table_keys] for table_keys in keys]


def embed_image_sets(scorer, tables: Sequence[pd.DataFrame], batch_size: int = 256,
                     workers: int = 0) -> tuple[list[np.ndarray], int]:
    """Embeddings of several image sets (rows in table order), each distinct image (by file
    content and crop box, `content_key`) encoded once: a shuffled copy equal to its original,
    a crop covering the whole picture or a render made twice costs no second vision pass.
    Returns the arrays and the number of distinct images encoded."""
    rows, positions = distinct_images(tables)
    vectors = embed_image_set(scorer, rows, batch_size=batch_size, workers=workers)
    return [vectors[p] for p in positions], len(rows)


def unique_texts(texts_per_item: Sequence[Sequence[str]]) -> list[str]:
    """The sorted distinct texts of a benchmark (each is embedded once)."""
    return sorted({t for texts in texts_per_item for t in texts})


def embed_texts(scorer, texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
    parts = [
        scorer.embed_texts(list(texts[s : s + TEXT_CHUNK]), batch_size=batch_size)
        for s in tqdm(range(0, len(texts), TEXT_CHUNK), desc="embed texts", mininterval=5)
    ]
    return np.concatenate(parts).astype(np.float32)


def save_embeddings(array: np.ndarray, ids: Sequence[str], npy: Path, ids_path: Path) -> None:
    """Write the array and its id list (JSON, one id per row of the array)."""
    if len(array) != len(ids):
        raise ValueError(f"{npy}: {len(array)} embeddings for {len(ids)} ids")
    write_npy(array, npy)
    with atomic_path(ids_path) as tmp:
        tmp.write_text(json.dumps(list(ids)))


def load_embeddings(npy: str | Path, ids_path: str | Path) -> tuple[np.ndarray, dict[str, int]]:
    """An embedding matrix and the row of each id."""
    array = np.load(npy)
    ids = json.loads(Path(ids_path).read_text())
    if len(ids) != len(array):
        raise ValueError(f"{npy}: {len(array)} rows but {ids_path} lists {len(ids)} ids")
    return array, {k: i for i, k in enumerate(ids)}


def ids_path_for(npy: str | Path) -> Path:
    """The id list written beside an embedding file (``x.npy`` → ``x.ids.json``)."""
    npy = Path(npy)
    return npy.with_name(npy.name.removesuffix(".npy") + ".ids.json")


def gallery_links(gallery: pd.DataFrame, queries: pd.DataFrame) -> np.ndarray:
    """Each query's gallery row; ValueError naming the queries whose image is outside the
    gallery."""
    position = {image_id: k for k, image_id in enumerate(gallery.image_id)}
    unknown = [i for i in queries.image_id if i not in position]
    if unknown:
        raise ValueError(f"queries of images outside the gallery: {unknown[:3]}")
    return np.array([position[i] for i in queries.image_id], dtype=np.int64)


def gallery_embeddings(gallery: pd.DataFrame, queries: pd.DataFrame, images_npy: str | Path,
                       texts_npy: str | Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A retrieval gallery's image embeddings (gallery order), its queries' text embeddings
    (query order) and each query's gallery row (`gallery_links`); ValueError naming the
    embedding file that lacks an image or a query."""
    image_emb, image_rows = load_embeddings(images_npy, ids_path_for(images_npy))
    text_emb, text_rows = load_embeddings(texts_npy, ids_path_for(texts_npy))
    missing = [i for i in gallery.image_id if i not in image_rows]
    if missing:
        raise ValueError(f"{images_npy}: no embedding for {missing[:3]}")
    missing = [q for q in queries.query_id if q not in text_rows]
    if missing:
        raise ValueError(f"{texts_npy}: no embedding for queries {missing[:3]}")
    links = gallery_links(gallery, queries)
    return (image_emb[[image_rows[i] for i in gallery.image_id]],
            text_emb[[text_rows[q] for q in queries.query_id]], links)


def load_stacked_embeddings(npys: Sequence[str | Path]) -> tuple[np.ndarray, dict[str, int]]:
    """Several embedding files stacked in order, with the row of every id."""
    arrays, rows = [], {}
    for npy in npys:
        array, index = load_embeddings(npy, ids_path_for(npy))
        offset = sum(len(a) for a in arrays)
        rows.update({k: v + offset for k, v in index.items()})
        arrays.append(array)
    if not arrays:
        raise ValueError("no embedding files given")
    return np.concatenate(arrays), rows


def text_set(table: pd.DataFrame) -> tuple[list[str], list[str]]:
    """(ids, texts) a benchmark needs embedded: retrieval queries (one row per query, keyed by
    ``query_id``), a list of texts (keyed by the text), or choice items' distinct options."""
    if "query_id" in table:
        return table.query_id.tolist(), table.text.tolist()
    if "text" in table:
        return table.text.tolist(), table.text.tolist()
    texts = unique_texts(table.texts)
    return texts, texts


def distinct_texts(tables: Sequence[pd.DataFrame]) -> tuple[list[str], list[tuple[list, list]]]:
    """The sorted distinct texts of several benchmarks' `text_set`s, and each set's
    ``(ids, texts)``."""
    sets = [text_set(t) for t in tables]
    return sorted({t for _, texts in sets for t in texts}), sets


def embed_text_sets(scorer, tables: Sequence[pd.DataFrame], npys: Sequence[str | Path],
                    id_paths: Sequence[str | Path], batch_size: int = 32) -> int:
    """Embed the `text_set` of each table (each distinct text once over all of them) and save
    one array per table; returns the number of distinct texts."""
    distinct, sets = distinct_texts(tables)
    save_text_sets(embed_texts(scorer, distinct, batch_size=batch_size), distinct, sets,
                   npys, id_paths)
    return len(distinct)


def save_text_sets(vectors: np.ndarray, distinct: Sequence[str],
                   sets: Sequence[tuple[list, list]], npys: Sequence[str | Path],
                   id_paths: Sequence[str | Path]) -> None:
    """Write each text set's rows of the distinct texts' embeddings."""
    row = {t: k for k, t in enumerate(distinct)}
    for (ids, texts), npy, ids_path in zip(sets, npys, id_paths, strict=True):
        save_embeddings(vectors[[row[t] for t in texts]], ids, Path(npy), Path(ids_path))
