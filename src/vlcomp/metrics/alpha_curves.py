"""Benchmark accuracy as a function of α for a generative model (VisualGPTScore Table 3 and
Table 4): per-item correctness over the α grid, the benchmark's headline aggregate per α, the
oracle α* and the validation-split α*.

Items follow the choice schema (`vlcomp.items`) with their score matrices
S[image, text] = log P(text | image) (`results/scores/{model}/{benchmark}.parquet`) and a
prior log P(text) for every text (`vlcomp.score.text_prior`):

* ``i2t``: the labelled text must beat the others under score_α.
* ``pair`` (2 × 2, BiVLC / Winoground-style): the text score, each image preferring its own
  text under score_α (the image score does not depend on α).
* ``t2i``: α cancels for a fixed text; the correctness is the same at every α.

The headline aggregate follows the benchmark's metric: the macro average over subsets for
ARO's VG-Relation / VG-Attribution (subsets excluded as in the benchmark's metric, decided on
all items), the mean over seeds for Order, and the item mean otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.metrics.debias import (
    Aggregate,
    alpha_grid,
    best_alpha,
    choice_correct_over_alphas,
    mean_accuracy,
    validation_alpha,
)


def _prior_of(texts: Sequence[str], prior: Mapping[str, float], item_id: str) -> np.ndarray:
    try:
        return np.array([prior[t] for t in texts], dtype=np.float64)
    except KeyError as err:
        raise KeyError(f"item {item_id!r}: no prior log P(t) for text {err.args[0]!r}") from None


def item_correct_over_alphas(items: pd.DataFrame, prior: Mapping[str, float],
                             alphas: np.ndarray) -> np.ndarray:
    """bool (n_items, n_alphas): each item's correctness under score_α (module docstring).

    ``items`` has the choice columns and ``scores`` (n_images × n_texts per item)."""
    out = np.empty((len(items), len(alphas)), dtype=bool)
    groups: dict[tuple[str, int], list[int]] = {}
    rows: list[tuple[np.ndarray, np.ndarray]] = []
    for k, item in enumerate(items.itertuples(index=False)):
        scores = np.asarray([np.asarray(r, dtype=np.float64) for r in item.scores])
        p = _prior_of(item.texts, prior, item.item_id)
        if item.protocol == "i2t":
            order = [item.label, *(j for j in range(len(item.texts)) if j != item.label)]
            rows.append((scores[0, order][None], p[order][None]))
        elif item.protocol == "pair":  # text score: both images prefer their own text
            rows.append((np.array([[scores[0, 0], scores[0, 1]], [scores[1, 1], scores[1, 0]]]),
                         np.array([[p[0], p[1]], [p[1], p[0]]])))
        elif item.protocol == "t2i":  # one text: α shifts every image equally
            column = scores[:, 0]
            order = [item.label, *(j for j in range(len(column)) if j != item.label)]
            rows.append((column[order][None], np.zeros((1, len(column)))))
        else:
            raise ValueError(f"item {item.item_id!r}: unknown protocol {item.protocol!r}")
        groups.setdefault((item.tie_policy, rows[-1][0].shape[1]), []).append(k)
    for (tie_policy, _), members in groups.items():
        scores = np.concatenate([rows[k][0] for k in members])
        prior_rows = np.concatenate([rows[k][1] for k in members])
        correct = choice_correct_over_alphas(scores, prior_rows, alphas, tie_policy)
        per_item = [len(rows[k][0]) for k in members]  # a pair item has two rows
        ends = np.cumsum(per_item)
        for k, start, end in zip(members, ends - per_item, ends, strict=True):
            out[k] = correct[start:end].all(axis=0)
    return out


def macro_aggregate(subsets: Sequence[str], kept: Iterable[str]) -> Aggregate:
    """Mean over the ``kept`` subsets of their accuracy (those present in the rows)."""
    names = np.asarray(subsets, dtype=object)
    kept = sorted(set(kept))

    def aggregate(correct: np.ndarray, rows: np.ndarray) -> np.ndarray:
        mine = names[rows]
        parts = [correct[mine == s].mean(axis=0) for s in kept if (mine == s).any()]
        return np.mean(parts, axis=0) if parts else np.zeros(correct.shape[1])

    return aggregate


def kept_subsets(subsets: Sequence[str], *, min_count: int = 0,
                 symmetric: Iterable[str] = ()) -> list[str]:
    """Subsets in ARO's macro average: not symmetric, at least ``min_count`` items."""
    names, counts = np.unique(np.asarray(subsets, dtype=object), return_counts=True)
    skip = set(symmetric)
    return [str(n) for n, c in zip(names, counts, strict=True) if n not in skip and c >= min_count]


def headline_aggregate(items: pd.DataFrame, metric: str,
                       options: Mapping[str, Any] | None = None) -> Aggregate:
    """The benchmark metric's headline as an `Aggregate` over item rows."""
    options = dict(options or {})
    if metric in ("aro_relation", "aro_attribution"):
        default_min = 25 if metric == "aro_attribution" else 0
        kept = kept_subsets(items["subset"], min_count=options.get("min_count", default_min),
                            symmetric=options.get("symmetric", ()))
        return macro_aggregate(list(items["subset"]), kept)
    if metric == "vl_checklist":  # mean over tags of the mean over each tag's corpora
        tags = items["subset"].astype(str).to_numpy()
        corpora = items["corpus"].astype(str).to_numpy()

        def nested_mean(correct: np.ndarray, rows: np.ndarray) -> np.ndarray:
            mine_tags, mine_corpora = tags[rows], corpora[rows]
            per_tag = [np.mean([correct[(mine_tags == t) & (mine_corpora == c)].mean(axis=0)
                                for c in np.unique(mine_corpora[mine_tags == t])], axis=0)
                       for t in np.unique(mine_tags)]
            return np.mean(per_tag, axis=0) if per_tag else np.zeros(correct.shape[1])

        return nested_mean
    if metric == "order" and "seed" in items.columns:
        seeds = items["seed"].to_numpy()

        def per_seed_mean(correct: np.ndarray, rows: np.ndarray) -> np.ndarray:
            mine = seeds[rows]
            return np.mean([correct[mine == s].mean(axis=0) for s in np.unique(mine)], axis=0)

        return per_seed_mean
    return mean_accuracy


def prior_only_items(items: pd.DataFrame, prior: Mapping[str, float]) -> pd.DataFrame:
    """The items scored blind: every image gets score log P(t) for text t (the language prior
    alone; Table 2's P(t|null) column)."""
    blind = []
    for item in items.itertuples(index=False):
        row = _prior_of(item.texts, prior, item.item_id)
        blind.append([row.tolist()] * len(item.image_ids))
    return items.assign(scores=blind)


def pair_image_correct(items: pd.DataFrame, prior: Mapping[str, float],
                       alphas: np.ndarray) -> np.ndarray:
    """bool (2 n_items, n_alphas): for each (item, image) choice of 2 × 2 pair items (rows
    2k and 2k + 1 are item k's), whether the image's own text beats the other under
    score_α."""
    scores, priors, policies = [], [], []
    for item in items.itertuples(index=False):
        if item.protocol != "pair":
            raise ValueError(f"item {item.item_id!r}: per-image accuracy needs pair items")
        s = np.asarray([np.asarray(r, dtype=np.float64) for r in item.scores])
        p = _prior_of(item.texts, prior, item.item_id)
        scores += [[s[0, 0], s[0, 1]], [s[1, 1], s[1, 0]]]
        priors += [[p[0], p[1]], [p[1], p[0]]]
        policies += [item.tie_policy] * 2
    policy = set(policies)
    if len(policy) != 1:
        raise ValueError(f"pair items mix tie policies {sorted(policy)}")
    return choice_correct_over_alphas(np.array(scores), np.array(priors), alphas,
                                      policy.pop())


def pair_image_accuracy(items: pd.DataFrame, prior: Mapping[str, float],
                        alphas: np.ndarray) -> np.ndarray:
    """Per α, the % of (item, image) choices of 2 × 2 pair items where the image's own text
    beats the other under score_α: Winoground's per-image I2T accuracy, whose chance level is
    50 % (a text-only score gets exactly 50 % on a balanced set, less its ties)."""
    return 100 * pair_image_correct(items, prior, alphas).mean(axis=0)


def alpha_curve(items: pd.DataFrame, prior: Mapping[str, float], *, metric: str,
                options: Mapping[str, Any] | None = None, step: float = 0.001, seed: int = 0,
                repeats: int = 10, other_priors: Mapping[str, Mapping[str, float]] | None = None,
                ) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(curve: ``alpha``, ``accuracy`` in %, one row per grid value; summary: accuracy at
    α = 0 and α = 1, of the prior alone, the oracle α* on all items, and the
    validation-split α*). ``other_priors`` (name → prior) add the accuracy of each alone,
    ``accuracy_prior_only_{name}`` (e.g. a text-only LM's, Table 2)."""
    alphas = alpha_grid(step)
    correct = item_correct_over_alphas(items, prior, alphas)
    aggregate = headline_aggregate(items, metric, options)
    every = np.arange(len(items))
    accuracy = aggregate(correct, every)
    oracle_alpha, oracle_accuracy = best_alpha(accuracy, alphas)
    validation = validation_alpha(correct, alphas, seed=seed, repeats=repeats,
                                  aggregate=aggregate)
    def prior_only(p: Mapping[str, float]) -> float:
        blind = item_correct_over_alphas(prior_only_items(items, p), p, alphas[:1])
        return round(100 * float(aggregate(blind, every)[0]), 4)

    curve = pd.DataFrame({"alpha": alphas, "accuracy": np.round(100 * accuracy, 4)})
    per_image, oracle = {}, {"alpha": oracle_alpha, "accuracy": round(100 * oracle_accuracy, 4)}
    if len(items) and (items["protocol"] == "pair").all():
        image = pair_image_scores(items)
        oracle["pair"] = pair_scores_of(correct[:, int(np.argmax(accuracy))], image)
        ends = alphas[[0, -1]]
        at = pair_image_accuracy(items, prior, ends)
        per_image = {"per_image": {
            "alpha0": round(float(at[0]), 4), "alpha1": round(float(at[1]), 4),
            "prior_only": round(float(pair_image_accuracy(
                prior_only_items(items, prior), prior, ends[:1])[0]), 4)}}
    summary = {
        "metric": metric, "n_items": len(items), "alpha_step": step,
        "accuracy_alpha0": round(100 * float(accuracy[0]), 4),
        "accuracy_alpha1": round(100 * float(accuracy[-1]), 4),
        "accuracy_prior_only": prior_only(prior),
        **{f"accuracy_prior_only_{name}": prior_only(p)
           for name, p in (other_priors or {}).items()},
        "oracle": oracle,
        "validation": _in_percent(validation),
        **per_image,
    }
    return curve, summary


def pair_columns_at(items: pd.DataFrame, prior: Mapping[str, float],
                    alpha: float) -> dict[str, np.ndarray]:
    """Per 2 × 2 pair item, the seven pair columns (`vlcomp.metrics.choice`: text, image and
    group score among them) of score_α = S[image, text] − α log P(text): the image score does
    not depend on α, the text and group scores do."""
    from vlcomp.metrics.choice import as_matrix, pair_scores_batch

    if not len(items):
        raise ValueError("pair columns of no items")
    matrices, policies = [], set()
    for item in items.itertuples(index=False):
        if item.protocol != "pair":
            raise ValueError(f"item {item.item_id!r}: pair columns need pair items")
        p = _prior_of(item.texts, prior, item.item_id)
        matrices.append(as_matrix(item.scores) - alpha * p[None, :])
        policies.add(item.tie_policy)
    if len(policies) != 1:
        raise ValueError(f"pair items mix tie policies {sorted(policies)}")
    return pair_scores_batch(np.stack(matrices), policies.pop())


def pair_image_scores(items: pd.DataFrame) -> np.ndarray:
    """bool per 2 × 2 pair item: its image score (each caption prefers its own image), which
    α does not change."""
    return pair_columns_at(items, {t: 0.0 for ts in items["texts"] for t in ts}, 0.0)["T2I"]


def pair_scores_of(text: np.ndarray, image: np.ndarray,
                   mask: np.ndarray | None = None) -> dict[str, float]:
    """Text (``I2T``), image (``T2I``) and group score in % of pair items from their text
    correctness at one α (a column of `item_correct_over_alphas`) and image correctness."""
    keep = np.ones(len(text), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    text, image = np.asarray(text, bool)[keep], np.asarray(image, bool)[keep]
    return {k: round(100 * float(v.mean()), 4)
            for k, v in (("I2T", text), ("T2I", image), ("Group", text & image))}


def subset_oracle_scores(items: pd.DataFrame, prior: Mapping[str, float],
                         subsets: Mapping[str, np.ndarray], step: float = 0.001,
                         ) -> dict[str, dict[str, Any]]:
    """Per named subset of 2 × 2 pair items (a boolean mask over ``items``), the oracle α* of
    its own text score (the smallest best α on the grid) and its text, image and group
    scores at α = 0 and at α*, with its size ``n`` (VisualGPTScore Table 13: Winoground per
    Diwan tag)."""
    alphas = alpha_grid(step)
    correct = item_correct_over_alphas(items, prior, alphas)
    image = pair_image_scores(items)
    out = {}
    for name, mask in subsets.items():
        mask = np.asarray(mask, dtype=bool)
        if not mask.any():
            continue
        k = int(np.argmax(correct[mask].mean(axis=0)))  # first maximum: the smallest α
        out[name] = {"n": int(mask.sum()), "alpha": float(alphas[k]),
                     "alpha0": pair_scores_of(correct[:, 0], image, mask),
                     "oracle": pair_scores_of(correct[:, k], image, mask)}
    return out


def held_out_accuracy(items: pd.DataFrame, *, metric: str,
                      options: Mapping[str, Any] | None = None, seed: int = 0,
                      repeats: int = 10) -> dict[str, Any]:
    """A score without α (an ITM model's pair scores, in ``scores``) on `alpha_curve`'s
    validation protocol: its headline accuracy on all items and on each held-out half of the
    same seeded splits (they depend on the item count, ``seed`` and the repeat only), mean ±
    std: VisualGPTScore Table 4a's ITMScore row beside the generative rows' halves."""
    zero = {t: 0.0 for texts in items["texts"] for t in texts}
    alphas = np.zeros(1)
    correct = item_correct_over_alphas(items, zero, alphas)
    aggregate = headline_aggregate(items, metric, options)
    validation = validation_alpha(correct, alphas, seed=seed, repeats=repeats,
                                  aggregate=aggregate)
    accuracy = float(aggregate(correct, np.arange(len(items)))[0])
    return {"metric": metric, "n_items": len(items), "accuracy": round(100 * accuracy, 4),
            "validation": _in_percent(validation)}


def _in_percent(validation: dict[str, Any]) -> dict[str, Any]:
    """`validation_alpha`'s result with accuracies as percentages (4 decimals)."""

    def convert(d: dict[str, Any]) -> dict[str, Any]:
        out = {}
        for key, value in d.items():
            if isinstance(value, dict):
                value = convert(value) if "accuracy" not in key else {
                    k: round(100 * v, 4) for k, v in value.items()}
            elif "accuracy" in key:
                value = round(100 * value, 4)
            elif isinstance(value, float):
                value = round(value, 6)
            out[key] = value
        return out

    return {**validation, "repeats": [convert(r) for r in validation["repeats"]],
            "summary": convert(validation["summary"])}


def with_scores(items: pd.DataFrame, scores: str) -> pd.DataFrame:
    """A benchmark's items with their ``scores`` column from a model's score file (one row
    per item); an error names the file when some item has none."""
    from vlcomp.io import read_parquet

    table = read_parquet(scores)
    merged = items.merge(table[["item_id", "scores"]], on="item_id", how="inner",
                         validate="one_to_one")
    if len(merged) != len(items):
        raise ValueError(f"{scores}: scores for {len(merged)} of {len(items)} items")
    return merged


def read_alpha_inputs(benchmark: str, scores: str, priors: str, prior: str = "null"
                      ) -> tuple[pd.DataFrame, dict[str, float], dict[str, dict[str, float]]]:
    """A generative model's α inputs from files: the benchmark's items with their
    ``scores``, the prior named by ``prior`` (column ``log_prior_{prior}``) and the others
    (name -> prior). Errors name the file and what is missing."""
    from vlcomp.io import read_parquet

    merged = with_scores(read_parquet(benchmark), scores)
    prior_table = read_parquet(priors)
    column = f"log_prior_{prior}"
    if column not in prior_table:
        raise ValueError(f"{priors}: no column {column!r} "
                         f"(config.visualgptscore.alpha_prior: {prior!r})")
    chosen = dict(zip(prior_table.text, prior_table[column], strict=True))
    others = {c.removeprefix("log_prior_"): dict(zip(prior_table.text, prior_table[c],
                                                     strict=True))
              for c in prior_table.columns if c.startswith("log_prior_") and c != column}
    return merged, chosen, others
