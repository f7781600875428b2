"""Per-benchmark metrics over a merged benchmark + score table, as JSON-able dicts.

Every function returns ``{"benchmark", "metric", "tie_policy", "n_items", "options",
"overall", "subsets", ...}``. Accuracies are percentages rounded to ``DECIMALS`` places so
that the JSON is byte-stable; undefined values (no items) are ``None``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.metrics.choice import (
    PAIR_COLUMNS,
    as_matrix,
    choice_correct,
    combine_pair_columns,
    pair_scores_batch,
)

DECIMALS = 4
ORDER_STD_DDOF = 0  # population std over seeds (numpy default), documented in the JSON
SUGARCREPE_SUBSETS = (
    "add_obj",
    "add_att",
    "replace_obj",
    "replace_att",
    "replace_rel",
    "swap_obj",
    "swap_att",
)
BIVLC_TYPES = ("replace", "swap", "add")
BIVLC_SUBTYPES = ("obj", "att", "rel")

Metrics = dict[str, Any]


def percent(fraction: float | None) -> float | None:
    """A fraction as a percentage rounded to ``DECIMALS`` places (``None`` stays ``None``)."""
    if fraction is None or np.isnan(fraction):
        return None
    return round(100.0 * float(fraction), DECIMALS)


def _mean(values: Sequence[float]) -> float | None:
    """Mean of a possibly empty sequence."""
    return float(np.mean(values)) if len(values) else None


def _ordered(names: Iterable[str], canonical: Sequence[str]) -> list[str]:
    """Unique names, canonical ones first in canonical order, then the rest sorted."""
    present = set(names)
    return [n for n in canonical if n in present] + sorted(present - set(canonical))


def accuracy_entry(correct: np.ndarray) -> dict[str, Any]:
    """``{"accuracy", "correct", "n"}`` for a boolean array."""
    correct = np.asarray(correct, dtype=bool)
    n = int(correct.size)
    return {
        "accuracy": percent(correct.mean()) if n else None,
        "correct": int(correct.sum()),
        "n": n,
    }


def _single(df: pd.DataFrame, column: str) -> str:
    """The one value of ``column`` (protocol, tie_policy) shared by all rows."""
    values = sorted(set(df[column]))
    if len(values) != 1:
        raise ValueError(f"expected one {column} per benchmark, found {values}")
    return str(values[0])


# a 2 x 2 pair item's chance of each pair score, and the same in percent as records keep it
PAIR_CHANCE_FRACTIONS = {"I2T": 1 / 4, "T2I": 1 / 4, "Group": 1 / 6,
                         "Ipos2T": 1 / 2, "Ineg2T": 1 / 2, "Tpos2I": 1 / 2, "Tneg2I": 1 / 2}
PAIR_CHANCE = {name: percent(level) for name, level in PAIR_CHANCE_FRACTIONS.items()}


def chance_accuracy(df: pd.DataFrame, rounded: bool = True
                    ) -> float | dict[str, float | None] | None:
    """The expected accuracy (%) of random scores: the mean of 1/k over items with k options
    (texts for i2t, images for t2i); for 2 x 2 pair items each pair score's level (text and
    image scores 25 %, group 1/6, one direction 50 %), as the papers' Random rows.
    ``rounded``: to ``DECIMALS`` places, as the metric records store it."""
    if not len(df):
        return None
    scale = percent if rounded else (lambda fraction: 100.0 * fraction)
    if _single(df, "protocol") == "pair":
        return {name: scale(level) for name, level in PAIR_CHANCE_FRACTIONS.items()}
    column = "image_ids" if _single(df, "protocol") == "t2i" else "texts"
    return scale(float(np.mean([1.0 / len(options) for options in df[column]])))


def _header(df: pd.DataFrame, metric: str, benchmark: str | None, options: Metrics) -> Metrics:
    """Common leading keys of a metrics dict (``chance``: `chance_accuracy`)."""
    return {
        "benchmark": benchmark,
        "metric": metric,
        "tie_policy": _single(df, "tie_policy"),
        "n_items": len(df),
        "options": options,
        "chance": chance_accuracy(df),
    }


def item_correct(df: pd.DataFrame) -> np.ndarray:
    """Per-row correctness from the ``scores``, ``protocol``, ``label`` and ``tie_policy``."""
    return choice_correct(
        list(df["scores"]),
        _single(df, "protocol"),
        df["label"].to_numpy(),
        _single(df, "tie_policy"),
    )


def subset_macro_aggregate(
    correct: np.ndarray,
    subsets: Sequence[str],
    *,
    min_count: int = 0,
    symmetric: Iterable[str] = (),
) -> Metrics:
    """Per-subset accuracy, macro over kept subsets, micro over all items.

    A subset is excluded from the macro average if it is in ``symmetric`` or has fewer
    than ``min_count`` items; ``excluded`` maps each excluded subset to its reason.
    """
    correct = np.asarray(correct, dtype=bool)
    names = np.asarray(subsets, dtype=object)
    symmetric_set = set(symmetric)
    entries: dict[str, Metrics] = {}
    excluded: dict[str, str] = {}
    kept: list[float] = []
    for name in sorted(set(names)):
        mask = names == name
        entries[name] = accuracy_entry(correct[mask])
        if name in symmetric_set:
            excluded[name] = "symmetric"
        elif int(mask.sum()) < min_count:
            excluded[name] = f"count < {min_count}"
        else:
            kept.append(float(correct[mask].mean()))
    overall = {
        "macro_accuracy": percent(_mean(kept)),
        "micro_accuracy": percent(correct.mean()) if correct.size else None,
        "n_macro_subsets": len(kept),
        "n": int(correct.size),
    }
    return {"overall": overall, "subsets": entries, "excluded": excluded}


def aro_relation_metrics(
    df: pd.DataFrame,
    symmetric: Iterable[str] = (),
    min_count: int = 0,
    *,
    groups: Mapping[str, Sequence[str]] | None = None,
    benchmark: str | None = None,
) -> Metrics:
    """ARO VG-Relation: accuracy per relation (``subset``), macro over non-symmetric ones;
    with ``groups`` (ARO Appendix Table 2's "Spatial Relationships" and "Verbs"), also the
    macro accuracy over each group's relations (`relation_group_macro`)."""
    symmetric = sorted(set(symmetric))
    options: Metrics = {"min_count": min_count, "symmetric": symmetric}
    body = subset_macro_aggregate(
        item_correct(df), list(df["subset"]), min_count=min_count, symmetric=symmetric
    )
    if groups:
        options["groups"] = {name: list(members) for name, members in groups.items()}
        body["groups"] = relation_group_macro(body["subsets"], body["excluded"], groups)
    return _header(df, "aro_relation", benchmark, options) | body


def relation_group_macro(
    subsets: Mapping[str, Metrics], excluded: Mapping[str, str],
    groups: Mapping[str, Sequence[str]],
) -> dict[str, Metrics]:
    """Per group: the unweighted mean accuracy of its relations that have items and are not
    excluded (ARO Appendix Table 2's "Accuracy" rows of each section are this mean: the
    published per-relation values reproduce them), their count and items, and the group's
    relations absent from the data."""
    out = {}
    for name, members in groups.items():
        kept = [m for m in members if m in subsets and m not in excluded and subsets[m]["n"]]
        fractions = [subsets[m]["correct"] / subsets[m]["n"] for m in kept]
        out[name] = {
            "macro_accuracy": percent(_mean(fractions)),
            "n_relations": len(kept),
            "n": int(sum(subsets[m]["n"] for m in kept)),
            "missing": sorted(set(members) - set(subsets)),
        }
    return out


def aro_attribution_metrics(
    df: pd.DataFrame, min_count: int = 25, *, benchmark: str | None = None
) -> Metrics:
    """ARO VG-Attribution: accuracy per attribute pair, macro over pairs with ≥ min_count."""
    body = subset_macro_aggregate(item_correct(df), list(df["subset"]), min_count=min_count)
    return _header(df, "aro_attribution", benchmark, {"min_count": min_count}) | body


def order_metrics(df: pd.DataFrame, *, benchmark: str | None = None) -> Metrics:
    """ARO COCO/Flickr-Order: Precision@1 per ``seed``, mean and population std (ddof=0).

    Without a ``seed`` column all rows form one seed, ``0``.
    """
    correct = item_correct(df)
    seeds = df["seed"].to_numpy() if "seed" in df.columns else np.zeros(len(df), dtype=int)
    per_seed: dict[str, Metrics] = {}
    values: list[float] = []
    for seed in sorted(set(seeds.tolist())):
        entry = accuracy_entry(correct[seeds == seed])
        per_seed[str(seed)] = {
            "precision_at_1": entry["accuracy"],
            "correct": entry["correct"],
            "n": entry["n"],
        }
        values.append(float(correct[seeds == seed].mean()))
    overall = {
        "mean": percent(_mean(values)),
        "std": percent(float(np.std(values, ddof=ORDER_STD_DDOF))) if values else None,
        "micro_accuracy": percent(correct.mean()) if correct.size else None,
        "n_seeds": len(values),
        "n": int(correct.size),
    }
    subsets = {
        name: accuracy_entry(correct[df["subset"].to_numpy() == name])
        for name in sorted(set(df["subset"]))
    }
    options = {"std_ddof": ORDER_STD_DDOF}
    header = _header(df, "order", benchmark, options)
    return header | {"overall": overall, "subsets": subsets, "seeds": per_seed}


def sugarcrepe_aggregate(correct: Any, subsets: Sequence[str]) -> Metrics:
    """SugarCrepe aggregation of per-item booleans: per-subset accuracy and micro average."""
    correct = np.asarray(correct, dtype=bool)
    names = np.asarray(subsets, dtype=object)
    entries = {
        name: accuracy_entry(correct[names == name])
        for name in _ordered(names.tolist(), SUGARCREPE_SUBSETS)
    }
    overall = accuracy_entry(correct)
    fractions = [float(correct[names == name].mean()) for name in entries if entries[name]["n"]]
    overall["macro_accuracy"] = percent(_mean(fractions))
    return {"overall": overall, "subsets": entries}


def sugarcrepe_metrics(df: pd.DataFrame, *, benchmark: str | None = None) -> Metrics:
    """SugarCrepe: accuracy per subset and overall micro average (``overall.accuracy``)."""
    body = sugarcrepe_aggregate(item_correct(df), list(df["subset"]))
    return _header(df, "sugarcrepe", benchmark, {}) | body


def bison_metrics(df: pd.DataFrame, *, benchmark: str | None = None) -> Metrics:
    """BISON: accuracy of picking the captioned image of the two; per caption template too
    (``subsets``) when the items carry a ``template`` column."""
    correct = item_correct(df)
    groups = df["template"] if "template" in df else df["subset"]
    subsets = {
        str(name): accuracy_entry(correct[(groups == name).to_numpy()])
        for name in sorted(set(groups))
    }
    overall = accuracy_entry(correct)
    return _header(df, "bison", benchmark, {}) | {"overall": overall, "subsets": subsets}


def t2i_predictions(df: pd.DataFrame) -> np.ndarray:
    """Per t2i item, the index of the best-scoring image, or -1 when the best is tied."""
    out = np.empty(len(df), dtype=np.int64)
    for k, scores in enumerate(df["scores"]):
        column = as_matrix(scores)[:, 0]
        best = np.flatnonzero(column == column.max())
        out[k] = best[0] if len(best) == 1 else -1
    return out


def bison_altered_metrics(df: pd.DataFrame, *, benchmark: str | None = None) -> Metrics:
    """BISON under query alterations (BISON Fig. 9): per alteration, accuracy and the share
    of items whose predicted image differs from the unaltered query's (ties: no prediction).
    ``overall`` is the unaltered accuracy."""
    predictions = pd.Series(t2i_predictions(df), index=df["item_id"].to_numpy())
    correct = item_correct(df)
    original = (df["subset"] == "original").to_numpy()
    subsets: dict[str, Metrics] = {}
    canonical = ["original", "negate", "synonym", "hypernym", "permute", "reverse"]
    for name in _ordered(df["subset"], canonical):
        mask = (df["subset"] == name).to_numpy()
        entry = accuracy_entry(correct[mask])
        base = predictions[df.loc[mask, "base_item_id"].to_numpy()].to_numpy()
        flipped = predictions[df.loc[mask, "item_id"].to_numpy()].to_numpy() != base
        entry["changed_prediction"] = percent(flipped.mean()) if mask.any() else None
        if "changed" in df:
            entry["changed_caption"] = percent(df.loc[mask, "changed"].astype(bool).mean())
        subsets[name] = entry
    return _header(df, "bison_altered", benchmark, {}) | {
        "overall": accuracy_entry(correct[original]), "subsets": subsets}


def _pair_entry(columns: Mapping[str, np.ndarray], mask: np.ndarray) -> Metrics:
    """The seven pair scores ×100 over the masked rows, plus ``n``."""
    n = int(mask.sum())
    entry: Metrics = {
        name: percent(columns[name][mask].mean()) if n else None for name in PAIR_COLUMNS
    }
    entry["n"] = n
    return entry


def bivlc_aggregate(
    flags: Mapping[str, Any], types: Sequence[str], subtypes: Sequence[str]
) -> Metrics:
    """BiVLC aggregation of the per-item Ipos2T, Ineg2T, Tpos2I, Tneg2I booleans.

    I2T, T2I and Group are recomputed as conjunctions; returns ``overall``, ``types``
    (replace/swap/add) and ``subsets`` (``{type}_{subtype}``).
    """
    columns = combine_pair_columns(
        flags["Ipos2T"], flags["Ineg2T"], flags["Tpos2I"], flags["Tneg2I"]
    )
    type_array = np.asarray(types, dtype=object)
    subset_array = np.asarray(
        [f"{t}_{s}" for t, s in zip(types, subtypes, strict=True)], dtype=object
    )
    canonical_subsets = [f"{t}_{s}" for t in BIVLC_TYPES for s in BIVLC_SUBTYPES]
    return {
        "overall": _pair_entry(columns, np.ones(len(type_array), dtype=bool)),
        "types": {
            name: _pair_entry(columns, type_array == name)
            for name in _ordered(type_array.tolist(), BIVLC_TYPES)
        },
        "subsets": {
            name: _pair_entry(columns, subset_array == name)
            for name in _ordered(subset_array.tolist(), canonical_subsets)
        },
    }


def bivlc_type_columns(df: pd.DataFrame) -> tuple[list[str], list[str]]:
    """BiVLC ``type``/``subtype`` per row, from those columns or from ``subset`` = type_subtype."""
    if "type" in df.columns and "subtype" in df.columns:
        return [str(t) for t in df["type"]], [str(s) for s in df["subtype"]]
    parts = [str(s).split("_", 1) for s in df["subset"]]
    return [p[0] for p in parts], [p[1] if len(p) > 1 else "" for p in parts]


def bivlc_metrics(df: pd.DataFrame, *, benchmark: str | None = None) -> Metrics:
    """BiVLC: the seven scores ×100 overall, per type and per type_subtype."""
    if _single(df, "protocol") != "pair":
        raise ValueError("bivlc metrics need the 'pair' protocol")
    scores = np.stack([as_matrix(m) for m in df["scores"]]) if len(df) else np.zeros((0, 2, 2))
    flags = pair_scores_batch(scores, _single(df, "tie_policy"))
    types, subtypes = bivlc_type_columns(df)
    return _header(df, "bivlc", benchmark, {}) | bivlc_aggregate(flags, types, subtypes)


WINOGROUND_SUBSETS = ("swap_obj", "swap_att", "swap_phrases", "Object", "Relation", "Both")


def winoground_metrics(df: pd.DataFrame, *, benchmark: str | None = None) -> Metrics:
    """Winoground (and the world's balanced set): the seven pair scores ×100 (text score =
    ``I2T``, image score = ``T2I``, group score = ``Group``) overall and per subset (the
    world's swap kinds, or Winoground's collapsed tags)."""
    if _single(df, "protocol") != "pair":
        raise ValueError("winoground metrics need the 'pair' protocol")
    scores = np.stack([as_matrix(m) for m in df["scores"]]) if len(df) else np.zeros((0, 2, 2))
    flags = pair_scores_batch(scores, _single(df, "tie_policy"))
    columns = combine_pair_columns(
        flags["Ipos2T"], flags["Ineg2T"], flags["Tpos2I"], flags["Tneg2I"])
    subsets = df["subset"].astype(str).to_numpy()
    return _header(df, "winoground", benchmark, {}) | {
        "overall": _pair_entry(columns, np.ones(len(df), dtype=bool)),
        "subsets": {name: _pair_entry(columns, subsets == name)
                    for name in _ordered(subsets.tolist(), WINOGROUND_SUBSETS)},
    }


METRIC_FUNCTIONS: dict[str, Callable[..., Metrics]] = {
    "aro_relation": aro_relation_metrics,
    "aro_attribution": aro_attribution_metrics,
    "order": order_metrics,
    "sugarcrepe": sugarcrepe_metrics,
    "bivlc": bivlc_metrics,
    "winoground": winoground_metrics,
    "bison": bison_metrics,
    "bison_altered": bison_altered_metrics,
}


def _preview(ids: Iterable[str], limit: int = 10) -> str:
    """A short, sorted listing of item ids for error messages."""
    ordered = sorted(ids)
    more = f" (+{len(ordered) - limit} more)" if len(ordered) > limit else ""
    return ", ".join(ordered[:limit]) + more


def merge_scores(benchmark_df: pd.DataFrame, scores_df: pd.DataFrame) -> pd.DataFrame:
    """Benchmark rows (in their order) with the ``scores`` column joined on ``item_id``."""
    if "scores" in benchmark_df.columns:
        raise ValueError("benchmark table already has a 'scores' column")
    for name, table in (("benchmark", benchmark_df), ("scores", scores_df)):
        duplicated = table["item_id"][table["item_id"].duplicated()]
        if len(duplicated):
            raise ValueError(f"duplicate item_id in {name} table: {_preview(set(duplicated))}")
    bench_ids = set(benchmark_df["item_id"])
    score_ids = set(scores_df["item_id"])
    missing, extra = bench_ids - score_ids, score_ids - bench_ids
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"{len(missing)} item ids missing from scores: {_preview(missing)}")
        if extra:
            parts.append(f"{len(extra)} extra item ids in scores: {_preview(extra)}")
        raise ValueError("score table does not align with benchmark; " + "; ".join(parts))
    return benchmark_df.merge(
        scores_df[["item_id", "scores"]], on="item_id", how="left", validate="one_to_one"
    )
