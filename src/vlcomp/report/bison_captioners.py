"""BISON Tables 4 / 6 measured on the captioners configured here: COCO caption metrics of each
captioner's generated test captions beside its BISON accuracy.

BISON (Hu et al.) sets BLEU-4, CIDEr(-D), SPICE and METEOR of its captioners on COCO beside
their BISON accuracy to show that the two rank captioners differently; its captioners
(ShowTell, ShowAttTell, UpDown) were never released, so the rows here are the configured
``hf_blip_lm`` models (`vlcomp.models.caption_generation` writes their captions). Metrics are
`vlcomp.metrics.captioning.caption_metrics` (× 100) against every reference caption of the
dataset's test images; Accuracy is the model's BISON accuracy (``overall.accuracy`` of
``results/metrics/{model}/bison.json``). Seeds of one captioner (one display label) give the
mean and a `` std`` column, as the other paper tables.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from vlcomp.metrics.captioning import caption_metrics

ACCURACY = "Accuracy"
STD = " std"
HUMAN = "Human"
# PTB tokenization (and simple_tokenize) drops "." entirely, so "." is scored exactly as an
# empty caption is by COCOEvalCap (which `caption_metrics` refuses as input)
EMPTY_STAND_IN = "."


def reference_captions(captions: pd.DataFrame, image_ids: Sequence[str]) -> dict[str, list[str]]:
    """``{image_id: [reference texts]}`` for ``image_ids`` from a dataset's captions table
    (``results/data/{dataset}/captions.parquet``: ``caption_id, image_id, text, split``), test
    split only when the table has ``split``, captions in table order."""
    missing = {"image_id", "text"} - set(captions.columns)
    if missing:
        raise ValueError(f"captions table lacks column(s) {sorted(missing)}")
    if "split" in captions:
        captions = captions[captions.split == "test"]
    grouped = {str(k): [str(t) for t in g.text] for k, g in captions.groupby(
        captions.image_id.astype(str), sort=False)}
    absent = [i for i in map(str, image_ids) if i not in grouped]
    if absent:
        raise ValueError(f"{len(absent)} test image(s) have no reference caption, e.g. "
                         f"{absent[0]!r}")
    return {str(i): grouped[str(i)] for i in image_ids}


def score_captions(references: Mapping[str, Sequence[str]], generated: pd.DataFrame,
                   metrics: Sequence[str], tokenizer: str = "ptb",
                   spice_dir: str | None = None, per_item: bool = False) -> dict[str, Any]:
    """`caption_metrics` of one captioner's ``image_id, caption`` table against
    ``references`` (the same images), unavailable metrics recorded; ``n_empty`` counts the
    empty captions (scored as empty, through `EMPTY_STAND_IN`). SPICE runs from
    ``spice_dir``; ``per_item`` adds each image's scores (``per_item[metric][image_id]``)."""
    missing = {"image_id", "caption"} - set(generated.columns)
    if missing:
        raise ValueError(f"generated captions lack column(s) {sorted(missing)}")
    ids = generated.image_id.astype(str)
    if ids.duplicated().any():
        raise ValueError(f"image {ids[ids.duplicated()].iloc[0]!r} has two generated captions")
    texts = generated.caption.fillna("").astype(str).str.strip()
    candidates = {i: t or EMPTY_STAND_IN for i, t in zip(ids, texts, strict=True)}
    result = caption_metrics(references, candidates, metrics=metrics, tokenizer=tokenizer,
                             on_unavailable="record", spice_dir=spice_dir, per_item=per_item)
    return {**result, "n_empty": int((texts == "").sum())}


def human_captions(references: Mapping[str, Sequence[str]]
                   ) -> tuple[dict[str, list[str]], dict[str, str]]:
    """BISON Tables 4 / 6's Human row as the COCO captioning challenge scores people: each
    image's first reference caption as the candidate, its other references as the references
    (images with one reference are left out). Returns ``(references, candidates)``."""
    kept = {i: list(texts) for i, texts in references.items() if len(texts) > 1}
    if not kept:
        raise ValueError("no image has two reference captions: no Human row can be scored")
    return ({i: texts[1:] for i, texts in kept.items()},
            {i: texts[0].strip() or EMPTY_STAND_IN for i, texts in kept.items()})


def _cell(values: Sequence[float | None]) -> tuple[float, float]:
    """Mean and sample std (NaN for one value) of a group's values; NaN when any is missing."""
    if not values or any(v is None or math.isnan(v) for v in values):
        return math.nan, math.nan
    floats = [float(v) for v in values]  # type: ignore[arg-type]
    return statistics.fmean(floats), statistics.stdev(floats) if len(floats) > 1 else math.nan


def captioner_table(scores: Mapping[str, Mapping[str, float | None]],
                    accuracy: Mapping[str, float | None], metrics: Sequence[str],
                    groups: Mapping[str, Sequence[str]],
                    human: Mapping[str, float | None] | None = None) -> pd.DataFrame:
    """Rows = display labels (``groups``: label -> model ids, in order), columns ``metrics``
    then `ACCURACY`, each followed by its `` std`` over a label's models where some label has
    several; an unavailable metric (None) is NaN. ``human``: the `HUMAN` row's caption scores
    (`human_captions`), last; its accuracy is NaN (BISON's is 100 % by construction)."""
    columns = [*metrics, ACCURACY]
    if human is not None:
        scores = {**scores, HUMAN: human}
        accuracy = {**accuracy, HUMAN: None}
        groups = {**groups, HUMAN: [HUMAN]}
    rows = {}
    for label, models in groups.items():
        unknown = [m for m in models if m not in scores or m not in accuracy]
        if unknown:
            raise ValueError(f"row {label!r}: no caption scores or BISON accuracy for {unknown}")
        row = {}
        for column in columns:
            values = [accuracy[m] if column == ACCURACY else scores[m].get(column)
                      for m in models]
            row[column], row[column + STD] = _cell(values)
        if label == HUMAN and human is not None:
            row[ACCURACY] = math.nan
        rows[label] = row
    order = [c for column in columns for c in (column, column + STD)]
    table = pd.DataFrame.from_dict(rows, orient="index", columns=order, dtype=float)
    table.index.name = "model"
    empty_std = [c for c in table.columns if c.endswith(STD) and table[c].isna().all()]
    return table.drop(columns=empty_std)


def table_notes(results: Mapping[str, Mapping[str, Any]], *, dataset: str, n_images: int,
                n_references: int, decoding: Mapping[str, Any], human_images: int = 0
                ) -> list[str]:
    """What the table measured (``decoding``: ``beams``, ``max_length``, ``min_length`` as
    ``benchmarks.bison.captioning`` names them), then every unavailable metric's reason and
    the captioners with empty captions (``human_images``: the Human row's images, when
    scored)."""
    notes = [
        f"Captions of the {n_images} {dataset} test images generated by each captioner "
        f"(beam search {decoding['beams']}, max_length {decoding['max_length']} and "
        f"min_length {decoding['min_length']} tokens counting the prompt, which is cut off: "
        "BLIP's COCO captioning); caption metrics x 100 against the test split's "
        f"{n_references} reference captions (COCO caption evaluation, pycocoevalcap); "
        f"{ACCURACY}: BISON accuracy. BISON's own captioners (ShowTell, ShowAttTell, UpDown) "
        "were never released: the rows are the captioners configured here."]
    if human_images:
        notes.append(
            f"{HUMAN}: the first reference caption of each of {human_images} test images "
            "scored against that image's other references (as the COCO captioning challenge "
            "scores people; BISON's Human row was measured so on COCO's test set). Its BISON "
            "accuracy is 100 % by construction (BISON footnote 5), not measured here.")
    reasons: dict[str, str] = {}
    for result in results.values():
        for metric, reason in result.get("unavailable", {}).items():
            reasons.setdefault(metric, reason)
    notes += [f"{metric}: {reason}" for metric, reason in reasons.items()]
    notes += [f"{model}: {r['n_empty']} empty caption(s), scored as empty"
              for model, r in results.items() if r.get("n_empty")]
    return notes
