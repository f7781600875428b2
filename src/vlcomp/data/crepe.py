"""CREPE's productivity set (Ma et al., CVPR 2023; ``RAIVNLab/CREPE``) as benchmark items.

The release (``data/prod_hard_negatives.zip``) holds one CSV per negative type and
complexity: ``{type}/prod_vg_hard_negs_{type}_complexity_{n}.csv`` for types ``atom``,
``negate``, ``swap`` and n = 4..12 (the path CREPE's ``crepe_prod_eval_*.py`` build). Columns:
``image_id`` (a Visual Genome image id), ``caption``, ``n`` (= the complexity = ``n_objects +
n_relations + n_attributes``), ``n_objects``, ``n_relations``, ``n_attributes``,
``n_connected_components``, ``hard_negs``, ``x, y, width, height`` (the region box in pixels,
written as floats). No index column.

Quirks: ``hard_negs`` is a Python literal, usually a list but sometimes a *set* (``{...}``;
most ``negate`` rows at complexity 4). CREPE reads it with ``ast.literal_eval`` and
``list(...)``, so a set's order depends on the interpreter's string hashing; here the textual
order is kept (duplicates of a set collapse, as in Python). Every row has 5 negatives. The
``negate`` negatives are sentence-cased while the positives are lowercase. The same caption can
recur at several complexities (the complexity comes from the scene subgraph, not the text), and
in 34 ``swap`` rows a "negative" equals the positive (``positive_in_negatives``).

Scoring as CREPE does it (``crepe_eval_utils.get_one2many_rank``): each image region is
ranked against its own six texts only (positive first), by ``torch.argsort(descending=True)``
on CPU, and R@1 counts rank 0. On an exact tie the CPU sort keeps the positive (index 0) ahead
of the tied negatives, so **a tie counts as correct**: the items default to ``lenient`` (a tie
only arises when a negative equals the positive or a scorer is blind to the difference).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from vlcomp.items import make_items

NEGATIVE_TYPES = ("atom", "negate", "swap")
# Row names in VisualGPTScore Tables 1, 2a and 10 (its text in §5 says "AtomFolds").
PAPER_NAMES = {"atom": "Atom-Foils", "negate": "Negate", "swap": "Swap"}
COMPLEXITIES = tuple(range(4, 13))
COLUMNS = ("image_id", "caption", "n", "n_objects", "n_relations", "n_attributes",
           "n_connected_components", "hard_negs", "x", "y", "width", "height")
BOX = ("x", "y", "width", "height")
IMAGE_DIRS = ("VG_100K", "VG_100K_2")  # the folders CREPE's get_image_by_id tries, in order
N_NEGATIVES = 5
# Rows per file, counted in the copy at wuyinjun-1993/concept_based_retrieval@0e03b05
# (16,727 / 16,336 / 6,652 rows; 17,265 distinct image-caption-box triples: CREPE's "17K").
COUNTS = {
    "atom": {4: 1258, 5: 1454, 6: 1805, 7: 2082, 8: 2241, 9: 1897, 10: 2265, 11: 1724,
             12: 2001},
    "negate": {4: 1262, 5: 1312, 6: 1798, 7: 2009, 8: 2244, 9: 1824, 10: 2237, 11: 1660,
               12: 1990},
    "swap": {4: 27, 5: 36, 6: 262, 7: 505, 8: 991, 9: 884, 10: 1293, 11: 1076, 12: 1578},
}


def file_name(neg_type: str, complexity: int) -> str:
    """The release's path of one file, relative to its root folder."""
    return f"{neg_type}/prod_vg_hard_negs_{neg_type}_complexity_{complexity}.csv"


def release_folder(root: str | Path, neg_type: str = "atom") -> Path:
    """The folder holding the ``{type}/`` subfolders: ``root`` itself, ``root/prod_hard_negatives``
    (the zip's name), or the one folder below ``root`` that has ``{neg_type}/``."""
    root = Path(root)
    for candidate in (root, root / "prod_hard_negatives"):
        if (candidate / neg_type).is_dir():
            return candidate
    found = sorted({p.parent.parent for p in root.glob(f"**/{neg_type}/prod_vg_hard_negs_*.csv")})
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise ValueError(f"{root}: several CREPE productivity folders: {[str(f) for f in found]}")
    raise FileNotFoundError(
        f"{root} has no CREPE productivity folder ({neg_type}/): unpack "
        "data/prod_hard_negatives.zip from https://github.com/RAIVNLab/CREPE here")


def parse_hard_negs(text: object, where: str) -> list[str]:
    """The negatives of one row from their list or set literal, in textual order."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{where}: empty hard_negs")
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as err:
        raise ValueError(f"{where}: hard_negs is not a Python literal ({err.msg})") from err
    if not isinstance(node, ast.List | ast.Set | ast.Tuple) or not all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        raise ValueError(f"{where}: hard_negs must be a list or set of strings, got {text[:80]!r}")
    values = [e.value for e in node.elts]
    if isinstance(node, ast.Set):
        values = list(dict.fromkeys(values))
    if not values:
        raise ValueError(f"{where}: hard_negs is empty")
    return values


def read_file(path: str | Path, neg_type: str, complexity: int) -> pd.DataFrame:
    """One CSV, checked: the release's columns, ``n`` equal to the file's complexity, a box
    with positive size. ``hard_negs`` becomes a list of strings; ``row`` is the data row."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing (CREPE productivity, {neg_type}, "
                                f"complexity {complexity})")
    try:
        df = pd.read_csv(path, keep_default_na=False, dtype={"caption": str, "hard_negs": str})
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: not a readable CSV ({err})") from err
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; found {list(df.columns)}")
    negatives, boxes = [], []
    for row in df.itertuples(index=True):
        where = f"{path.name} row {row.Index}"
        if not str(row.caption).strip():
            raise ValueError(f"{where}: empty caption")
        try:
            n = int(row.n)
            box = [float(getattr(row, k)) for k in BOX]
            int(row.image_id)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{where}: non-numeric n, image_id or box ({err})") from err
        if n != complexity:
            raise ValueError(f"{where}: n = {n}, but the file is complexity {complexity}")
        if not (box[2] > 0 and box[3] > 0):
            raise ValueError(f"{where}: empty box {box}")
        negatives.append(parse_hard_negs(row.hard_negs, where))
        boxes.append(box)
    out = df.assign(hard_negs=negatives, bbox=boxes, row=range(len(df)))
    return out.assign(image_id=out.image_id.astype(int))


def _image_path(image_root: Path, image_id: int, image_dirs: tuple[str, ...],
                require: bool, where: str) -> str:
    """The first ``{dir}/{id}.jpg`` that exists (CREPE's lookup order)."""
    candidates = [image_root / d / f"{image_id}.jpg" for d in image_dirs]
    for path in candidates:
        if path.is_file():
            return str(path)
    if require:
        raise FileNotFoundError(f"{where}: Visual Genome image {image_id}.jpg is in none of "
                                f"{[str(image_root / d) for d in image_dirs]}")
    return str(candidates[0])


def crepe_items(
    root: str | Path,
    image_root: str | Path,
    types: Iterable[str] = NEGATIVE_TYPES,
    complexities: Iterable[int] = COMPLEXITIES,
    *,
    tie_policy: str = "lenient",
    image_dirs: tuple[str, ...] = IMAGE_DIRS,
    require_images: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Items (choice schema, ``i2t``, texts ``[positive, *hard_negs]``, label 0) and the crop
    table (``image_id, path, bbox``; bbox ``[x, y, width, height]`` as CREPE crops it).

    ``subset`` is the release's type name (``atom``/``negate``/``swap``; `PAPER_NAMES` maps
    them to the paper's rows); ``complexity`` is the file's n. ``item_id`` is
    ``{type}-c{n:02d}-{row:05d}``. A crop's ``image_id`` is ``{vg_id}_{x}_{y}_{w}_{h}``.
    Images are looked up in ``image_root/{VG_100K,VG_100K_2}`` as CREPE does; with
    ``require_images=False`` a missing one gets the first folder's path.
    """
    types, complexities = tuple(types), tuple(int(c) for c in complexities)
    for t in types:
        if t not in NEGATIVE_TYPES:
            raise ValueError(f"unknown CREPE negative type {t!r}; known: {NEGATIVE_TYPES}")
    for c in complexities:
        if c not in COMPLEXITIES:
            raise ValueError(f"unknown CREPE complexity {c}; known: {COMPLEXITIES}")
    if not types or not complexities:
        raise ValueError("no CREPE negative types or complexities selected")
    image_root = Path(image_root)
    rows, crops = [], {}
    for neg_type in types:
        folder = release_folder(root, neg_type)
        for complexity in complexities:
            path = folder / file_name(neg_type, complexity)
            for r in read_file(path, neg_type, complexity).itertuples(index=False):
                where = f"{path.name} row {r.row}"
                crop_id = "_".join([str(r.image_id), *(f"{v:g}" for v in r.bbox)])
                if crop_id not in crops:
                    crops[crop_id] = (_image_path(image_root, r.image_id, image_dirs,
                                                  require_images, where), r.bbox)
                rows.append({
                    "item_id": f"{neg_type}-c{complexity:02d}-{r.row:05d}", "subset": neg_type,
                    "image_ids": [crop_id], "texts": [r.caption, *r.hard_negs],
                    "protocol": "i2t", "label": 0, "tie_policy": tie_policy,
                    "complexity": complexity, "vg_image_id": r.image_id,
                    "n_objects": int(r.n_objects), "n_relations": int(r.n_relations),
                    "n_attributes": int(r.n_attributes),
                    "n_connected_components": int(r.n_connected_components),
                    "positive_in_negatives": r.caption in r.hard_negs,
                })
    table = pd.DataFrame({"image_id": list(crops), "path": [p for p, _ in crops.values()],
                          "bbox": [b for _, b in crops.values()]})
    return make_items(rows), table.sort_values("image_id", ignore_index=True)
