"""Uncertainty of benchmark metrics over test items: bootstrap confidence intervals, and paired
tests between models scored on the same items.

Every headline metric of a choice benchmark is an aggregate of per-item 0/1 outcomes
(`Outcome`): a micro mean over the counted items (SugarCrepe accuracy, BiVLC I2T/T2I/Group,
Winoground text/image/group scores, BISON accuracy), or a macro mean over groups (ARO's
VG-Relation / VG-Attribution over relations or attribute pairs, the Order benchmarks' mean
over perturbation seeds). `headline_outcomes` builds them from a benchmark table merged with
one model's scores; on the full sample each equals the number `compute_metrics` reports.

Resampling draws items with replacement (multinomial weights, one seeded generator per
benchmark), so a resample is the same for every model and a paired difference uses the same
items on both sides. Intervals are percentile intervals; the paired p-value is the two-sided
bootstrap p of the difference, and McNemar's exact test (binomial on the discordant items)
is reported beside it. Seeds of training runs and of perturbations are not resampled here:
their spread is reported separately (`seed_spread`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from vlcomp.metrics.benchmarks import (
    bivlc_type_columns,
    item_correct,
    merge_scores,
    t2i_predictions,
)
from vlcomp.metrics.choice import as_matrix, combine_pair_columns, pair_scores_batch
from vlcomp.seeding import stable_rng

INTERVAL_METHODS = ("percentile", "bca")


@dataclass
class Outcome:
    """Per-item outcomes of one metric: ``counted`` items enter it, as a micro mean, or as a
    macro mean over ``groups`` (each counted item's group; None: micro). An item may stand
    for ``sizes`` outcomes (a gallery image and its texts), its value then their mean. The
    metric is the mean times ``scale`` (100: percent)."""

    metric: str
    values: np.ndarray
    counted: np.ndarray
    groups: np.ndarray | None = None
    sizes: np.ndarray | None = None
    scale: float = 100.0

    def __post_init__(self) -> None:
        self.values = np.asarray(self.values, dtype=np.float64)
        self.counted = np.asarray(self.counted, dtype=bool)
        if self.groups is None:
            columns = self.counted[:, None]
        else:
            names = sorted({g for g, c in zip(self.groups, self.counted, strict=True) if c})
            columns = (np.stack([(self.groups == g) & self.counted for g in names], axis=1)
                       if names else np.zeros((len(self.values), 0), dtype=bool))
        self._columns = columns.astype(np.float64)  # items x (1 or groups), weights
        if self.sizes is not None:
            self._columns = self._columns * np.asarray(self.sizes, dtype=np.float64)[:, None]
        self._hits = self._columns * self.values[:, None]

    def value(self, resample_weights: np.ndarray | None = None) -> np.ndarray:
        """The metric in percent for each row of ``resample_weights`` (items' multiplicities,
        shape (r, n_items)); the full sample when None. NaN where nothing is counted."""
        w = np.ones((1, len(self.values))) if resample_weights is None else resample_weights
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.aggregate((w @ self._hits) / (w @ self._columns))

    def aggregate(self, per_column: np.ndarray) -> np.ndarray:
        """Rows of per-column (or per-group) means -> the metric (``scale`` times) per row:
        the column itself (micro), or the mean over the groups present (macro); NaN if none."""
        if per_column.shape[1] == 0:
            return np.full(len(per_column), np.nan)
        if self.groups is None:
            return self.scale * per_column[:, 0]
        empty = np.isnan(per_column).all(axis=1)
        out = np.full(len(per_column), np.nan)
        with np.errstate(invalid="ignore"):
            out[~empty] = np.nanmean(per_column[~empty], axis=1)
        return self.scale * out

    @property
    def binary(self) -> bool:
        """Paired 0/1 outcomes (McNemar applies): one outcome per item, each 0 or 1."""
        return self.sizes is None and bool(np.isin(self.values[self.counted], (0, 1)).all())


class NestedOutcome(Outcome):
    """A macro mean of macro means: ``groups`` are ``"parent|child"`` names; the metric is
    the mean over parents of the mean over their children (VL-CheckList Relation: the mean of
    action and spatial, each the mean of its corpora)."""

    def aggregate(self, per_column: np.ndarray) -> np.ndarray:
        names = sorted({g for g, c in zip(self.groups, self.counted, strict=True) if c})
        parents = np.array([n.split("|", 1)[0] for n in names], dtype=object)
        if not names:
            return np.full(len(per_column), np.nan)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a resample may miss a child
            means = np.stack([np.nanmean(per_column[:, parents == p], axis=1)
                              for p in sorted(set(parents))], axis=1)
            return self.scale * np.nanmean(means, axis=1)


def jackknife(outcome: Outcome) -> np.ndarray:
    """The metric in percent with each item left out in turn (n_items,): the BCa
    interval's acceleration comes from these."""
    hits, weights = outcome._hits, outcome._columns
    with np.errstate(invalid="ignore", divide="ignore"):
        return outcome.aggregate((hits.sum(axis=0) - hits) / (weights.sum(axis=0) - weights))


def _single(df: pd.DataFrame, column: str) -> Any:
    values = set(df[column])
    if len(values) != 1:
        raise ValueError(f"column {column!r} must hold one value, found {sorted(values)}")
    return values.pop()


def _pair_columns(df: pd.DataFrame) -> dict[str, np.ndarray]:
    scores = np.stack([as_matrix(m) for m in df["scores"]]) if len(df) else np.zeros((0, 2, 2))
    flags = pair_scores_batch(scores, _single(df, "tie_policy"))
    return combine_pair_columns(flags["Ipos2T"], flags["Ineg2T"], flags["Tpos2I"],
                                flags["Tneg2I"])


def headline_outcomes(kind: str, merged: pd.DataFrame,
                      options: Mapping[str, Any] | None = None) -> list[Outcome]:
    """The outcomes of a benchmark's table metrics, from its items merged with one model's
    ``scores`` (`merge_scores`); ``options`` as `compute_metrics` takes them."""
    options = dict(options or {})
    everyone = np.ones(len(merged), dtype=bool)
    if kind in ("bivlc", "winoground"):  # Winoground's text / image / group scores
        columns = _pair_columns(merged)
        names = ("I2T", "T2I", "Group") + (
            ("Ipos2T", "Ineg2T", "Tpos2I", "Tneg2I") if kind == "bivlc" else ())
        out = [Outcome(n, columns[n], everyone) for n in names]
        if kind == "bivlc":  # per negative type (BiVLC Table 6)
            groups = np.asarray(bivlc_type_columns(merged)[0], dtype=object)
        else:
            groups = merged["subset"].astype(str).to_numpy()
        return out + [Outcome(f"{g} {n}", columns[n], groups == g)
                      for g in sorted(set(groups)) for n in ("I2T", "T2I", "Group")]
    correct = item_correct(merged).astype(np.float64)
    subsets = (merged["subset"].astype(str).to_numpy() if "subset" in merged
               else np.full(len(merged), "all"))
    if kind in ("aro_relation", "aro_attribution"):
        min_count = int(options.get("min_count", 25 if kind == "aro_attribution" else 0))
        symmetric = set(options.get("symmetric", ())) if kind == "aro_relation" else set()
        sizes = pd.Series(subsets).value_counts()
        kept = np.array([s not in symmetric and sizes[s] >= min_count for s in subsets],
                        dtype=bool)
        out = [Outcome("macro_accuracy", correct, kept, subsets),
               Outcome("micro_accuracy", correct, everyone)]
        if kind == "aro_relation":  # per relation and section (ARO Appendix Table 2)
            out += [Outcome(f"{s} accuracy", correct, subsets == s) for s in sorted(set(subsets))]
            for name, members in dict(options.get("groups") or {}).items():
                chosen = kept & np.isin(subsets, list(members))
                if chosen.any():
                    out.append(Outcome(f"{name} macro_accuracy", correct, chosen, subsets))
        return out
    if kind == "order":
        seeds = (merged["seed"].astype(str).to_numpy() if "seed" in merged
                 else np.zeros(len(merged)).astype(str))
        return [Outcome("mean", correct, everyone, seeds)]
    if kind == "crepe":  # each complexity too
        levels = merged["complexity"].astype(str).to_numpy()
        return [Outcome("accuracy", correct, everyone)] + [
            Outcome(f"c{c} accuracy", correct, levels == c) for c in sorted(set(levels), key=int)]
    if kind == "vl_checklist":  # mean of the tags, each the mean of its corpora
        pairs = np.array([f"{t}|{c}" for t, c in zip(subsets, merged["corpus"].astype(str),
                                                         strict=True)], dtype=object)
        return [NestedOutcome("relation", correct, everyone, pairs)] + [
            Outcome(f"{s} accuracy", correct, subsets == s, pairs) for s in sorted(set(subsets))]
    if kind == "sugarcrepe":
        return [Outcome("accuracy", correct, everyone)] + [
            Outcome(f"{s} accuracy", correct, subsets == s) for s in sorted(set(subsets))]
    if kind == "bison":  # and per caption template
        templates = (merged["template"].astype(str).to_numpy() if "template" in merged
                     else subsets)
        return [Outcome("accuracy", correct, everyone)] + [
            Outcome(f"{t} accuracy", correct, templates == t) for t in sorted(set(templates))]
    if kind == "bison_altered":  # and BISON Fig. 9: % of predictions an alteration changed
        predictions = pd.Series(t2i_predictions(merged), index=merged["item_id"].to_numpy())
        base_ids = merged["base_item_id"].to_numpy()
        base = predictions[base_ids].to_numpy()
        changed = (predictions.to_numpy() != base).astype(np.float64)
        # each altered item's original, on the altered item's row: "{s} original accuracy"
        # counts the same items as "{s} accuracy", so the two are compared pairwise
        base_correct = pd.Series(correct, index=merged["item_id"].to_numpy())[base_ids]
        names = sorted(set(subsets))
        altered = [s for s in names if s != "original"]
        return ([Outcome(f"{s} accuracy", correct, subsets == s) for s in names]
                + [Outcome(f"{s} changed_prediction", changed, subsets == s) for s in altered]
                + [Outcome(f"{s} original accuracy", base_correct.to_numpy(), subsets == s)
                   for s in altered])
    raise ValueError(f"no uncertainty for metric kind {kind!r}")


def retrieval_outcomes(hits: Mapping[str, np.ndarray],
                       text_image: Sequence[int]) -> list[Outcome]:
    """Outcomes of retrieval R@K over the gallery's images as items: image->text hits per
    image, text->image hits as each image's mean over its texts (weighted by their number),
    so a resample of images takes their texts along (`vlcomp.metrics.retrieval_hits`)."""
    links = np.asarray(text_image, dtype=np.int64)
    n_images = len(next(v for k, v in hits.items() if k.startswith("i2t")))
    sizes = np.bincount(links, minlength=n_images).astype(np.float64)
    everyone = np.ones(n_images, dtype=bool)
    out = []
    for name, h in hits.items():
        if name.startswith("i2t"):
            out.append(Outcome(name, h, everyone))
        else:
            per_image = np.bincount(links, weights=np.asarray(h, np.float64),
                                    minlength=n_images) / np.maximum(sizes, 1)
            out.append(Outcome(name, per_image, everyone, sizes=sizes))
    return out


def resample_weights(n_items: int, n_resamples: int, rng: np.random.Generator,
                     chunk: int = 100) -> list[np.ndarray]:
    """Item multiplicities of ``n_resamples`` bootstrap resamples, in chunks of rows."""
    if n_items < 1 or n_resamples < 1:
        raise ValueError(f"need items and resamples, got {n_items} and {n_resamples}")
    out, left = [], n_resamples
    while left:
        rows = min(chunk, left)
        out.append(rng.multinomial(n_items, np.full(n_items, 1.0 / n_items), size=rows)
                   .astype(np.float64))
        left -= rows
    return out


def bootstrap_rng(benchmark: str, seed: int) -> np.random.Generator:
    """The resampling generator of one benchmark: the same resamples for every model."""
    return stable_rng(f"bootstrap:{benchmark}", seed)


@dataclass
class Bootstrap:
    """Bootstrap distributions of several models' outcomes on one benchmark's items."""

    outcomes: dict[str, list[Outcome]]  # model -> outcomes (same metrics, same items)
    draws: dict[tuple[str, str], np.ndarray]  # (model, metric) -> values per resample
    confidence: float
    method: str = "percentile"  # or "bca"
    _leave_one_out: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, repr=False)

    def interval(self, draws: np.ndarray, value: float | None = None,
                 leave_one_out: Callable[[], np.ndarray] | None = None
                 ) -> tuple[float, float]:
        """Percentile interval of the draws, or BCa (``method="bca"``: bias from the share
        of draws below ``value``, acceleration from the ``leave_one_out()`` values, computed
        only then)."""
        finite = draws[np.isfinite(draws)]
        if not len(finite):
            return float("nan"), float("nan")
        tail = (1.0 - self.confidence) / 2
        levels = np.array([tail, 1 - tail])
        if self.method == "bca" and value is not None and leave_one_out is not None:
            levels = bca_levels(finite, value, leave_one_out(), levels)
        low, high = np.percentile(finite, 100 * levels)
        return float(low), float(high)

    def table(self) -> pd.DataFrame:
        """One row per model and metric: value, CI bounds, items counted."""
        rows = []
        for model, outcomes in self.outcomes.items():
            for o in outcomes:
                low, high = self.interval(self.draws[model, o.metric], o.value()[0],
                                          lambda m=model, o=o: self.jackknife(m, o.metric))
                rows.append({"model": model, "metric": o.metric, "value": float(o.value()[0]),
                             "ci_low": low, "ci_high": high, "n": int(o.counted.sum())})
        return pd.DataFrame(rows)

    def group_table(self, groups: Mapping[str, Sequence[str]]) -> pd.DataFrame:
        """Per group of models with several seeds and metric: the mean over its seeds with the
        CI of that mean over item resamples (each resample averaged over the seeds)."""
        rows = []
        for group, members in groups.items():
            present = [m for m in members if m in self.outcomes]
            if len(present) < 2:
                continue
            for o in self.outcomes[present[0]]:
                draws = np.mean([self.draws[m, o.metric] for m in present], axis=0)
                value = float(np.mean([self.draws_value(m, o.metric) for m in present]))
                low, high = self.interval(draws, value, lambda present=present, o=o: np.mean(
                    [self.jackknife(m, o.metric) for m in present], axis=0))
                rows.append({"group": group, "metric": o.metric, "seeds": len(present),
                             "value": value, "ci_low": low, "ci_high": high})
        return pd.DataFrame(rows, columns=["group", "metric", "seeds", "value", "ci_low",
                                           "ci_high"])

    def outcome(self, model: str, metric: str) -> Outcome:
        return next(o for o in self.outcomes[model] if o.metric == metric)

    def jackknife(self, model: str, metric: str) -> np.ndarray:
        """`jackknife` of one model's metric, computed once."""
        key = (model, metric)
        if key not in self._leave_one_out:
            self._leave_one_out[key] = jackknife(self.outcome(model, metric))
        return self._leave_one_out[key]

    def draws_value(self, model: str, metric: str) -> float:
        """The full-sample value of one model's metric."""
        return float(self.outcome(model, metric).value()[0])

    def comparisons(self, pairs: Sequence[tuple[str, str]] | None = None) -> pd.DataFrame:
        """Paired differences (a - b) per metric: value, CI, bootstrap p and McNemar p."""
        models = list(self.outcomes)
        pairs = pairs or [(a, b) for i, a in enumerate(models) for b in models[i + 1:]]
        rows = []
        for a, b in pairs:
            for oa, ob in zip(self.outcomes[a], self.outcomes[b], strict=True):
                diff = self.draws[a, oa.metric] - self.draws[b, ob.metric]
                low, high = self.interval(
                    diff, float(oa.value()[0] - ob.value()[0]),
                    lambda a=a, b=b, m=oa.metric: self.jackknife(a, m) - self.jackknife(b, m))
                rows.append({"model_a": a, "model_b": b, "metric": oa.metric,
                             "difference": float(oa.value()[0] - ob.value()[0]),
                             "ci_low": low, "ci_high": high,
                             "p_bootstrap": paired_bootstrap_p(diff),
                             **mcnemar(oa, ob)})
        return pd.DataFrame(rows)


    def metric_comparisons(self) -> pd.DataFrame:
        """Paired differences of two metrics of one model that count the same items (I2T
        and T2I of a 2 x 2 benchmark), over the same resamples: ``model_a`` = ``model_b``,
        ``metric`` less ``metric_b``; value, CI, bootstrap p and McNemar p."""
        rows = []
        for model, outcomes in self.outcomes.items():
            for i, oa in enumerate(outcomes):
                for ob in outcomes[i + 1:]:
                    if not np.array_equal(oa.counted, ob.counted):
                        continue
                    diff = self.draws[model, oa.metric] - self.draws[model, ob.metric]
                    low, high = self.interval(
                        diff, float(oa.value()[0] - ob.value()[0]),
                        lambda m=model, x=oa.metric, y=ob.metric:
                            self.jackknife(m, x) - self.jackknife(m, y))
                    rows.append({"model_a": model, "model_b": model, "metric": oa.metric,
                                 "metric_b": ob.metric,
                                 "difference": float(oa.value()[0] - ob.value()[0]),
                                 "ci_low": low, "ci_high": high,
                                 "p_bootstrap": paired_bootstrap_p(diff), **mcnemar(oa, ob)})
        return pd.DataFrame(rows)


def with_metric_pairs(comparisons: pd.DataFrame, metric_pairs: pd.DataFrame) -> pd.DataFrame:
    """The models' comparisons (each on one metric: ``metric_b`` = ``metric``) followed by
    each model's same-item metric pairs (`Bootstrap.metric_comparisons`)."""
    comparisons = comparisons.copy()
    if "metric" in comparisons:
        comparisons.insert(comparisons.columns.get_loc("metric") + 1, "metric_b",
                           comparisons["metric"])
    frames = [frame for frame in (comparisons, metric_pairs) if len(frame)]
    return pd.concat(frames, ignore_index=True) if frames else comparisons


def bca_levels(draws: np.ndarray, value: float, leave_one_out: np.ndarray,
               levels: np.ndarray) -> np.ndarray:
    """Bias-corrected and accelerated percentile levels (Efron 1987) for nominal ``levels``;
    the nominal ones where the correction is undefined (all draws on one side, no spread)."""
    from scipy.stats import norm

    below = (np.sum(draws < value) + 0.5 * np.sum(draws == value)) / len(draws)
    jack = leave_one_out[np.isfinite(leave_one_out)]
    if not 0 < below < 1 or len(jack) < 2:
        return levels
    z0 = norm.ppf(below)
    d = jack.mean() - jack
    spread = np.sum(d**2)
    a = float(np.sum(d**3) / (6 * spread**1.5)) if spread > 0 else 0.0
    z = norm.ppf(levels)
    return norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))


def paired_bootstrap_p(differences: np.ndarray) -> float:
    """Two-sided bootstrap p of a difference: twice the smaller share of resamples on either
    side of zero (ties count half), at most 1."""
    d = differences[np.isfinite(differences)]
    if not len(d):
        return float("nan")
    below = (np.sum(d < 0) + 0.5 * np.sum(d == 0)) / len(d)
    return float(min(1.0, 2 * min(below, 1 - below)))


def mcnemar(a: Outcome, b: Outcome) -> dict[str, Any]:
    """McNemar's exact test on the counted items: b01 (a right, b wrong) against b10; NaN
    for outcomes that are not paired 0/1 (means over several texts, recalls, DCG)."""
    if not (a.binary and b.binary):
        return {"only_a": float("nan"), "only_b": float("nan"), "p_mcnemar": float("nan")}
    counted = a.counted & b.counted
    only_a = int(np.sum((a.values == 1) & (b.values == 0) & counted))
    only_b = int(np.sum((a.values == 0) & (b.values == 1) & counted))
    n = only_a + only_b
    p = binomtest(only_a, n, 0.5).pvalue if n else 1.0
    return {"only_a": only_a, "only_b": only_b, "p_mcnemar": float(p)}


def bootstrap_models(kind: str, items: pd.DataFrame, scores: Mapping[str, pd.DataFrame], *,
                     benchmark: str, options: Mapping[str, Any] | None = None,
                     n_resamples: int = 1000, seed: int = 0, confidence: float = 0.95,
                     method: str = "percentile") -> Bootstrap:
    """Bootstrap every model's headline metrics of one benchmark over the same resamples."""
    outcomes = {model: headline_outcomes(kind, merge_scores(items, table), options)
                for model, table in scores.items()}
    return bootstrap_outcomes(outcomes, len(items), benchmark=benchmark,
                              n_resamples=n_resamples, seed=seed, confidence=confidence,
                              method=method)


def bootstrap_outcomes(outcomes: Mapping[str, list[Outcome]], n_items: int, *, benchmark: str,
                       n_resamples: int = 1000, seed: int = 0, confidence: float = 0.95,
                       method: str = "percentile") -> Bootstrap:
    """Bootstrap several models' outcomes on the same ``n_items`` items (same resamples);
    ``method`` percentile or bca for the intervals."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    if method not in INTERVAL_METHODS:
        raise ValueError(f"interval method {method!r}: one of {INTERVAL_METHODS}")
    outcomes = dict(outcomes)
    draws: dict[tuple[str, str], list[np.ndarray]] = {
        (m, o.metric): [] for m, outs in outcomes.items() for o in outs}
    for weights in resample_weights(n_items, n_resamples, bootstrap_rng(benchmark, seed)):
        for model, outs in outcomes.items():
            for o in outs:
                draws[model, o.metric].append(o.value(weights))
    return Bootstrap(outcomes, {k: np.concatenate(v) for k, v in draws.items()}, confidence,
                     method)


def seed_spread(table: pd.DataFrame, groups: Mapping[str, Sequence[str]],
                group_intervals: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per model group with several seeds and metric: the mean over seeds, the seeds'
    standard deviation (ddof=1: the training-run spread) and the mean bootstrap CI width
    (the item spread), side by side; with ``group_intervals`` (`Bootstrap.group_table`) also
    the CI of the seed mean over items."""
    rows = []
    for group, members in groups.items():
        mine = table[table.model.isin(members)]
        if len(set(mine.model)) < 2:
            continue
        for metric, part in mine.groupby("metric", sort=False):
            rows.append({"group": group, "metric": metric, "seeds": len(part),
                         "mean": float(part.value.mean()),
                         "seed_std": float(part.value.std(ddof=1)),
                         "mean_ci_width": float((part.ci_high - part.ci_low).mean())})
    out = pd.DataFrame(rows, columns=["group", "metric", "seeds", "mean", "seed_std",
                                      "mean_ci_width"])
    if group_intervals is not None:  # the same columns when no group has two seeds here
        out = out.merge(group_intervals[["group", "metric", "ci_low", "ci_high"]],
                        on=["group", "metric"], how="left")
    return out


def ratio_intervals(ratios: Mapping[str, tuple[np.ndarray, np.ndarray]], n_items: int, *,
                    benchmark: str, n_resamples: int = 1000, seed: int = 0,
                    confidence: float = 0.95, method: str = "percentile",
                    scale: float = 100.0) -> pd.DataFrame:
    """Rates ``scale Σ a / Σ b`` of per-item numerators and denominators (a kept rate, a
    precision, a recall in percent; ``scale`` 1: a mean over the items with ``b`` = 1), each
    with its bootstrap CI over the ``n_items`` items (the same resamples for every rate; BCa
    from the exact leave-one-out rates). Rows: metric, value, ci_low, ci_high, n (items in
    the denominator)."""
    chunks = resample_weights(n_items, n_resamples, bootstrap_rng(benchmark, seed))
    intervals = Bootstrap({}, {}, confidence, method)
    rows = []
    for name, (a, b) in ratios.items():
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.shape != (n_items,) or b.shape != (n_items,):
            raise ValueError(f"{name}: {a.shape} numerators and {b.shape} denominators for "
                             f"{n_items} items")
        with np.errstate(invalid="ignore", divide="ignore"):
            value = scale * a.sum() / b.sum() if b.sum() else float("nan")
            draws = np.concatenate([scale * (w @ a) / (w @ b) for w in chunks])
            low, high = intervals.interval(
                draws, value, lambda a=a, b=b: scale * (a.sum() - a) / (b.sum() - b))
        rows.append({"metric": name, "value": float(value), "ci_low": low, "ci_high": high,
                     "n": int(np.count_nonzero(b))})
    return pd.DataFrame(rows, columns=["metric", "value", "ci_low", "ci_high", "n"])
