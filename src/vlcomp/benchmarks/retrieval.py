"""Image–text retrieval benchmarks: a gallery of images and text queries that each match one.

Files (DESIGN §4): ``gallery.parquet`` (image_id) and ``queries.parquet`` (query_id,
image_id, text). Retrieval runs both ways over the whole gallery (`vlcomp.metrics.retrieval`).

``query_preprocess`` (config ``benchmarks.<name>_retrieval.query_preprocess`` and
``benchmarks.robustness.galleries.<name>.query_preprocess``): ``pre_caption`` passes every query
text through BLIP's ``pre_caption(text, 30)`` as ARO's ``dataset_zoo/retrieval.py`` does
(`vlcomp.text.pre_caption`); ``none`` (default) keeps the captions as they are.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from vlcomp.items import finest_index
from vlcomp.text.pre_caption import preprocess_texts
from vlcomp.world.grammar import CaptionSpec, NounPhrase, render_caption
from vlcomp.world.scene import Scene

GRANULARITIES = ("original", "coarse", "fine")


def regranulate(spec: CaptionSpec, scene: Scene, granularity: str) -> CaptionSpec:
    """The caption with every noun phrase stripped to its shape (``coarse``) or given the
    object's size and colour (``fine``); relations and structure are kept, so the caption
    stays true of its scene. Like the FG datasets, it replaces the caption in place."""
    if granularity == "original":
        return spec
    if granularity not in GRANULARITIES:
        raise ValueError(f"unknown granularity {granularity!r}; known: {GRANULARITIES}")

    def rewrite(np_: NounPhrase) -> NounPhrase:
        if granularity == "coarse":
            return NounPhrase(np_.shape, ref=np_.ref)
        if np_.ref is None:
            raise ValueError(f"noun phrase {np_} has no object reference")
        obj = scene.objects[np_.ref]
        return NounPhrase(np_.shape, obj.color, obj.size, ref=np_.ref)

    return spec.map_noun_phrases(rewrite)


def gallery_queries(
    captions: pd.DataFrame, image_ids: list[str], scenes: Mapping[str, Scene] | None = None,
    granularity: str = "original",
) -> pd.DataFrame:
    """Every caption of every gallery image as a query (COCO/Flickr-style galleries with
    several captions per image), at the given granularity (other than ``original`` only for
    world captions, with their scenes). Columns: query_id (the caption id), image_id, text,
    template (empty for real captions)."""
    if granularity != "original" and scenes is None:
        raise ValueError(f"granularity {granularity!r} needs the world's scenes")
    wanted = set(image_ids)
    caps = captions[captions.image_id.isin(wanted)]
    missing = wanted - set(caps.image_id)
    if missing:
        raise ValueError(f"{len(missing)} gallery images have no caption, e.g. "
                         f"{sorted(missing)[:3]}")
    rank = {image_id: k for k, image_id in enumerate(image_ids)}
    caps = caps.assign(_rank=caps.image_id.map(rank)).sort_values(
        ["_rank", "caption_id"], kind="stable")
    if granularity == "original":
        texts = [str(t) for t in caps.text]
    else:
        texts = [render_caption(regranulate(CaptionSpec.from_json(spec), scenes[i], granularity))
                 for spec, i in zip(caps.spec, caps.image_id, strict=True)]
    return pd.DataFrame({
        "query_id": caps.caption_id.astype(str).to_list(), "image_id": caps.image_id.to_list(),
        "text": texts,
        "template": caps.template.to_list() if "template" in caps else [""] * len(caps),
    })


def finest_caption_queries(captions: pd.DataFrame, image_ids: list[str]) -> pd.DataFrame:
    """One query per image: its most detailed caption (`finest_index`, as in validation)."""
    by_image = {k: g for k, g in captions.groupby("image_id", sort=False)}
    missing = [i for i in image_ids if i not in by_image]
    if missing:
        raise ValueError(f"{len(missing)} gallery images have no caption, e.g. {missing[:3]}")
    rows = []
    for image_id in image_ids:
        group = by_image[image_id]
        texts = [str(t) for t in group.text]
        k = finest_index(texts)
        rows.append({"query_id": str(group.caption_id.iloc[k]), "image_id": image_id,
                     "text": texts[k]})
    return pd.DataFrame(rows, columns=["query_id", "image_id", "text"])


def preprocess_queries(queries: pd.DataFrame, method: str) -> pd.DataFrame:
    """``queries`` with each text passed through ``method`` (``none``: the same frame, untouched;
    ``pre_caption``); ids, order and other columns are kept."""
    texts = preprocess_texts(queries.text, method)
    return queries if method == "none" else queries.assign(text=texts)


def retrieval_queries(
    test: pd.DataFrame, image_ids: list[str], queries: str = "finest", preprocess: str = "none",
) -> pd.DataFrame:
    """The queries of a retrieval benchmark: each gallery image's finest caption (``finest``) or
    every caption (``all``), then ``preprocess``-ed. Columns: query_id, image_id, text."""
    if queries == "all":
        table = gallery_queries(test, image_ids)[["query_id", "image_id", "text"]]
    elif queries == "finest":
        table = finest_caption_queries(test, image_ids)
    else:
        raise ValueError(f"unknown queries {queries!r}; known: finest, all")
    return preprocess_queries(table, preprocess)
