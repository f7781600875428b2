"""Winoground-style scores for EqBen and for Winoground's No-Tag subset (Diwan et al.).

Both take a merged benchmark + score table of ``pair`` items (``scores`` = 2x2 matrices
``S[image, text]``) and report the seven pair columns x100 (`vlcomp.metrics.choice`): text
score = ``I2T``, image score = ``T2I``, group score = ``Group``, in the shape of
`vlcomp.metrics.benchmarks`' dicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.data.eqben import SUBSETS as EQBEN_SUBSETS
from vlcomp.data.winoground_tags import NO_TAG, TAGS
from vlcomp.metrics.benchmarks import percent
from vlcomp.metrics.choice import PAIR_COLUMNS, as_matrix, pair_scores_batch

Metrics = dict[str, Any]


def pair_columns(df: pd.DataFrame) -> tuple[dict[str, np.ndarray], str]:
    """The seven per-item pair columns of a ``pair`` table, and its one tie policy."""
    for column in ("protocol", "tie_policy"):
        values = sorted(set(df[column]))
        if len(values) != 1:
            raise ValueError(f"expected one {column} per benchmark, found {values}")
    if df["protocol"].iloc[0] != "pair":
        raise ValueError(f"these metrics need the 'pair' protocol, got {df['protocol'].iloc[0]!r}")
    tie_policy = str(df["tie_policy"].iloc[0])
    scores = np.stack([as_matrix(m) for m in df["scores"]])
    return pair_scores_batch(scores, tie_policy), tie_policy


def pair_entry(columns: Mapping[str, np.ndarray], mask: np.ndarray) -> Metrics:
    """The seven pair scores x100 over the masked rows (``None`` when empty), plus ``n``."""
    n = int(mask.sum())
    entry: Metrics = {name: percent(columns[name][mask].mean()) if n else None
                      for name in PAIR_COLUMNS}
    entry["n"] = n
    return entry


def _grouped(columns: Mapping[str, np.ndarray], labels: Sequence[str],
             canonical: Sequence[str]) -> dict[str, Metrics]:
    """One entry per label value: canonical ones first, in order, then the rest sorted."""
    values = np.asarray(labels, dtype=object)
    present = set(values.tolist())
    names = [n for n in canonical if n in present] + sorted(present - set(canonical))
    return {name: pair_entry(columns, values == name) for name in names}


def eqben_metrics(df: pd.DataFrame, *, benchmark: str | None = None) -> Metrics:
    """EqBen: the pair scores overall, per sub-benchmark (``eqbenag`` .. ``eqbensd``) and, when
    the table has ``folder``, per image folder (Kubric's cnt/loc/attr apart)."""
    if df.empty:
        raise ValueError("eqben metrics: no items")
    columns, tie_policy = pair_columns(df)
    out: Metrics = {
        "benchmark": benchmark, "metric": "eqben", "tie_policy": tie_policy,
        "n_items": len(df), "options": {},
        "overall": pair_entry(columns, np.ones(len(df), dtype=bool)),
        "subsets": _grouped(columns, df["subset"].astype(str).tolist(), EQBEN_SUBSETS),
    }
    if "folder" in df.columns:
        out["folders"] = _grouped(columns, df["folder"].astype(str).tolist(), ())
    return out


def winoground_no_tag_metrics(df: pd.DataFrame, *, benchmark: str | None = None) -> Metrics:
    """Winoground's No-Tag subset: ``overall`` = the pair scores over rows with ``no_tag``
    (`vlcomp.data.winoground_tags.add_diwan_tags`), ``all`` = over every row, and, when the
    table has ``diwan_tags``, ``subsets`` = No Tag and each tag (VisualGPTScore Table 13)."""
    if "no_tag" not in df.columns:
        raise ValueError("winoground No-Tag metrics need the 'no_tag' column "
                         "(vlcomp.data.winoground_tags.add_diwan_tags)")
    if df.empty:
        raise ValueError("winoground No-Tag metrics: no items")
    columns, tie_policy = pair_columns(df)
    no_tag = df["no_tag"].astype(bool).to_numpy()
    out: Metrics = {
        "benchmark": benchmark, "metric": "winoground_no_tag", "tie_policy": tie_policy,
        "n_items": len(df), "options": {},
        "overall": pair_entry(columns, no_tag),
        "all": pair_entry(columns, np.ones(len(df), dtype=bool)),
    }
    if "diwan_tags" in df.columns:
        tags = [list(t) for t in df["diwan_tags"]]
        names = [NO_TAG, *TAGS, *sorted({t for ts in tags for t in ts} - set(TAGS))]
        out["subsets"] = {NO_TAG: pair_entry(columns, no_tag)} | {
            name: pair_entry(columns, np.array([name in ts for ts in tags], dtype=bool))
            for name in names[1:]}
    return out


def tag_masks(df: pd.DataFrame) -> dict[str, np.ndarray]:
    """Boolean masks over the rows of a table with ``no_tag`` and ``diwan_tags``: No Tag, then
    each of Diwan et al.'s tags (an item with several tags is in each)."""
    tags = [list(t) for t in df["diwan_tags"]]
    names = [*TAGS, *sorted({t for ts in tags for t in ts} - set(TAGS))]
    return {NO_TAG: df["no_tag"].astype(bool).to_numpy(),
            **{name: np.array([name in ts for ts in tags], dtype=bool) for name in names}}


def winoground_tag_metrics(df: pd.DataFrame, prior: Mapping[str, float] | None = None, *,
                           step: float = 0.001, benchmark: str | None = None) -> Metrics:
    """VisualGPTScore Table 13: Winoground's text, image and group scores per Diwan tag
    (`winoground_no_tag_metrics`' ``subsets``) and, for a captioner (``prior``: log P(t) per
    text), each tag's own oracle α* with the scores at it (``oracle``,
    `vlcomp.metrics.alpha_curves.subset_oracle_scores`)."""
    from vlcomp.metrics.alpha_curves import subset_oracle_scores

    out = winoground_no_tag_metrics(df, benchmark=benchmark)
    out["metric"] = "winoground_tags"
    if prior is not None:
        out["alpha_step"] = step
        out["oracle"] = subset_oracle_scores(df, prior, tag_masks(df), step)
    return out
