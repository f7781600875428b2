"""Bootstrap CIs of the VisualGPTScore α numbers (Tables 2 and 4): every number of an α
record (`vlcomp.metrics.alpha_curves.alpha_curve`, `vlcomp.metrics.generative_retrieval`)
with its interval over the benchmark's test items.

Numbers at a fixed α (α = 0, α = 1, a prior alone, per-image accuracy) are item means, as
for the headline metrics. Numbers that pick α are bootstrapped as procedures: each resample
re-picks the oracle α* on its items, and re-runs the validation-split α* (the same split
halves of the items, α* picked on the resample's validation half and read on its other
half, averaged over the repeats). So their intervals include the uncertainty of choosing α.
Resamples are the benchmark's own (`bootstrap_rng`), the same as its headline intervals.
For retrieval the prior (the gallery mean) and α*_val (picked on the validation gallery)
stay fixed for the test gallery's numbers; α*_val's own interval resamples the validation
gallery's images.

BCa intervals take exact leave-one-out values: curves with one item removed, for every item
at once (`GroupedCurves.leave_one_out`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from vlcomp.metrics.alpha_curves import (
    item_correct_over_alphas,
    kept_subsets,
    pair_image_correct,
    pair_image_scores,
    prior_only_items,
)
from vlcomp.metrics.debias import alpha_grid
from vlcomp.metrics.generative_retrieval import (
    KS,
    SUBGALLERIES,
    gallery_prior,
    i2t_hits_over_alphas,
    recall_hits,
    subgallery_i2t_hits,
)
from vlcomp.metrics.uncertainty import Bootstrap, bootstrap_rng, resample_weights
from vlcomp.seeding import stable_rng

COLUMNS = ["measure", "value", "ci_low", "ci_high", "n"]
# a record's numbers from a way of drawing curves of masked items (`alpha_statistics`)
Statistic = Callable[[Callable[[np.ndarray], np.ndarray]], dict[str, np.ndarray]]


class GroupedCurves:
    """Items' outcomes over the α grid (n_items, n_alphas), aggregated as a benchmark's
    headline: the mean over the counted items (``groups`` None), or the mean over the
    groups present of each group's mean (ARO's macro accuracy, Order's mean over seeds)."""

    def __init__(self, values: np.ndarray, counted: np.ndarray | None = None,
                 groups: np.ndarray | None = None) -> None:
        values = np.asarray(values, dtype=np.float64)
        self.n, self.width = values.shape
        counted = np.ones(self.n, bool) if counted is None else np.asarray(counted, bool)
        labels = np.zeros(self.n, int) if groups is None else np.asarray(groups, dtype=object)
        names = sorted(set(labels[counted]), key=str)
        self.members = [np.flatnonzero(counted & (labels == g)) for g in names]
        # "parent|child" groups (VL-CheckList: tag|corpus) average the children's means
        # within each parent first; any other group is its own parent
        self.parents = [str(g).split("|", 1)[0] for g in names]
        self.nested = len(set(self.parents)) < len(names)
        # 0/1 (or 0, ½, 1) outcomes times integer weights: float32 products are exact
        self.blocks = [values[idx].astype(np.float32) for idx in self.members]
        self.values = values

    def curves(self, weights: np.ndarray) -> np.ndarray:
        """The aggregate in percent per row of item ``weights`` (r, n): (r, n_alphas)."""
        weights = np.atleast_2d(weights)
        sums_of = {p: np.zeros((len(weights), self.width)) for p in self.parents}
        counts_of = {p: np.zeros((len(weights), 1)) for p in self.parents}
        for idx, block, parent in zip(self.members, self.blocks, self.parents, strict=True):
            w = weights[:, idx]
            d = w.sum(axis=1)
            ok = d > 0
            sums = (w.astype(np.float32) @ block).astype(np.float64)
            sums_of[parent][ok] += sums[ok] / d[ok, None]
            counts_of[parent][ok] += 1
        total = np.zeros((len(weights), self.width))
        present = np.zeros((len(weights), 1))
        for parent, sums in sums_of.items():
            ok = counts_of[parent][:, 0] > 0
            total[ok] += sums[ok] / counts_of[parent][ok]
            present[ok] += 1
        with np.errstate(invalid="ignore", divide="ignore"):
            return 100 * total / present

    def leave_one_out(self, mask: np.ndarray | None = None) -> np.ndarray:
        """(n, n_alphas): row i is `curves` of the 0/1 ``mask`` (all items: None) with
        item i removed (an item outside the mask or not counted: the curve itself)."""
        if self.nested:  # each item out in turn (the nested mean has no closed form here)
            mask = np.ones(self.n) if mask is None else np.asarray(mask, np.float64)
            return np.stack([self.curves((mask * (np.arange(self.n) != i))[None])[0]
                             for i in range(self.n)])
        mask = np.ones(self.n) if mask is None else np.asarray(mask, np.float64)
        accs, sizes = [], []
        for idx in self.members:
            d = mask[idx].sum()
            accs.append(mask[idx] @ self.values[idx] / d if d else None)
            sizes.append(d)
        present = [a for a in accs if a is not None]
        total = np.sum(present, axis=0) if present else np.zeros(self.width)
        count = len(present)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.tile(total / count, (self.n, 1))
        for idx, acc, d in zip(self.members, accs, sizes, strict=True):
            mine = idx[mask[idx] > 0]
            if not len(mine):
                continue
            if d > 1:
                fewer = (acc * d - self.values[mine]) / (d - 1)
                out[mine] = (total - acc + fewer) / count
            else:  # the group leaves with its only item
                with np.errstate(invalid="ignore", divide="ignore"):
                    out[mine] = (total - acc) / (count - 1)
        return 100 * out


def _argmax(curves: np.ndarray) -> np.ndarray:
    """First maximum per row (the smallest α, as `best_alpha`); NaN counts as lowest."""
    return np.argmax(np.where(np.isnan(curves), -np.inf, curves), axis=1)


def headline_grouping(items: pd.DataFrame, metric: str,
                      options: Mapping[str, Any] | None = None
                      ) -> tuple[np.ndarray, np.ndarray | None]:
    """(counted, groups) of a benchmark's headline as the α curves aggregate it
    (`vlcomp.metrics.alpha_curves.headline_aggregate`)."""
    options = dict(options or {})
    everyone = np.ones(len(items), dtype=bool)
    if metric in ("aro_relation", "aro_attribution"):
        default_min = 25 if metric == "aro_attribution" else 0
        kept = kept_subsets(items["subset"], min_count=options.get("min_count", default_min),
                            symmetric=options.get("symmetric", ()))
        subsets = items["subset"].astype(str).to_numpy(dtype=object)
        return np.isin(subsets, kept), subsets
    if metric == "order" and "seed" in items.columns:
        return everyone, items["seed"].to_numpy(dtype=object)
    if metric == "vl_checklist":  # the mean of the tags, each the mean of its corpora
        return everyone, np.array([f"{t}|{c}" for t, c in zip(
            items["subset"].astype(str), items["corpus"].astype(str), strict=True)],
            dtype=object)
    return everyone, None


def validation_splits(n: int, seed: int, repeats: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The 0/1 masks of `vlcomp.metrics.debias.validation_alpha`'s halves, per repeat."""
    out = []
    for r in range(repeats):
        order = stable_rng("alpha-validation", seed, r).permutation(n)
        val, test = np.zeros(n), np.zeros(n)
        val[order[: n // 2]] = 1
        test[order[n // 2:]] = 1
        out.append((val, test))
    return out


def alpha_statistics(curves: GroupedCurves, alphas: np.ndarray,
                     splits: Sequence[tuple[np.ndarray, np.ndarray]]) -> Statistic:
    """The α-curve record's numbers (keys as its paths) from a way of drawing curves: given
    ``draw(mask)`` -> curves of the items weighted by ``mask`` (rows: resamples, or
    leave-one-out rows), returns one array per number."""
    zero, one = int(np.argmin(np.abs(alphas))), int(np.argmin(np.abs(alphas - 1)))

    def statistic(draw: Callable[[np.ndarray], np.ndarray]) -> dict[str, np.ndarray]:
        full = draw(np.ones(curves.n))
        best = _argmax(full)
        rows = np.arange(len(full))
        out = {"accuracy_alpha0": full[:, zero], "accuracy_alpha1": full[:, one],
               "oracle.accuracy": full[rows, best], "oracle.alpha": alphas[best]}
        picked, held, held0, held1 = [], [], [], []
        for val, test in splits:
            v, t = draw(val), draw(test)
            k = _argmax(v)
            picked.append(alphas[k])
            held.append(t[rows, k])
            held0.append(t[:, zero])
            held1.append(t[:, one])
        for key, values in (("alpha", picked), ("test_accuracy", held),
                            ("test_accuracy_alpha0", held0),
                            ("test_accuracy_alpha1", held1)):
            out[f"validation.summary.{key}.mean"] = np.mean(values, axis=0)
        return out

    return statistic


class ProcedureBootstrap:
    """Draws, full-sample values and (for BCa) leave-one-out values of a set of numbers
    computed from `GroupedCurves` over the same items."""

    def __init__(self, n_items: int, rng: np.random.Generator, *, n_resamples: int,
                 confidence: float, method: str) -> None:
        self.n = n_items
        self.chunks = resample_weights(n_items, n_resamples, rng)
        self.intervals = Bootstrap({}, {}, confidence, method)
        self.rows: list[dict[str, Any]] = []

    def add(self, statistic: Statistic,
            draw: Callable[[np.ndarray, np.ndarray], np.ndarray],
            loo: Callable[[np.ndarray], np.ndarray]) -> None:
        """``draw(weights, mask)`` -> curves of the masked items per weights row;
        ``loo(mask)`` -> leave-one-out curves of the masked items."""
        values = statistic(lambda mask: draw(np.ones((1, self.n)), mask))
        parts: dict[str, list[np.ndarray]] = {k: [] for k in values}
        for weights in self.chunks:
            for key, v in statistic(lambda mask, w=weights: draw(w, mask)).items():
                parts[key].append(v)
        jack: dict[str, np.ndarray] = {}

        def leave_one_out(key: str) -> np.ndarray:
            if not jack:
                jack.update(statistic(loo))
            return jack[key]

        for key, value in values.items():
            draws = np.concatenate(parts[key])
            low, high = self.intervals.interval(draws, float(value[0]),
                                                lambda k=key: leave_one_out(k))
            self.rows.append({"measure": key, "value": float(value[0]), "ci_low": low,
                              "ci_high": high, "n": self.n})

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(self.rows, columns=COLUMNS)


def add_oracle_pair(boot: ProcedureBootstrap, correct: np.ndarray, image: np.ndarray,
                    counted: np.ndarray | None = None, groups: np.ndarray | None = None, *,
                    mask: np.ndarray | None = None, prefix: str = "",
                    alphas: np.ndarray | None = None) -> None:
    """``{prefix}oracle.pair.{I2T,T2I,Group}``: the text, image and group scores of 2 × 2 pair
    items at each resample's own oracle α* (picked on its text score, as
    ``oracle.accuracy``), over the items of the 0/1 ``mask`` (all: None); with ``alphas``
    (the grid of ``correct``'s columns) also ``{prefix}oracle.alpha``, NaN where the
    resample has none of the masked items."""
    width = correct.shape[1]
    chosen = np.ones(len(correct)) if mask is None else np.asarray(mask, np.float64)
    parts = [GroupedCurves(correct, counted, groups),
             GroupedCurves(correct & image[:, None], counted, groups),
             GroupedCurves(image[:, None], counted, groups)]

    def statistic(draw: Callable[[np.ndarray], np.ndarray]) -> dict[str, np.ndarray]:
        full = draw(chosen)
        text, group, image_score = full[:, :width], full[:, width:2 * width], full[:, -1]
        best, rows = _argmax(text), np.arange(len(full))
        out = {f"{prefix}oracle.pair.I2T": text[rows, best],
               f"{prefix}oracle.pair.T2I": image_score,
               f"{prefix}oracle.pair.Group": group[rows, best]}
        if alphas is not None:
            out[f"{prefix}oracle.alpha"] = np.where(np.isnan(text).all(axis=1), np.nan,
                                                    alphas[best])
        return out

    boot.add(statistic,
             lambda w, mask: np.concatenate([c.curves(w * mask) for c in parts], axis=1),
             lambda mask: np.concatenate([c.leave_one_out(mask) for c in parts], axis=1))


def alpha_intervals(items: pd.DataFrame, prior: Mapping[str, float], *, metric: str,
                    benchmark: str, options: Mapping[str, Any] | None = None,
                    step: float = 0.001, seed: int = 0, repeats: int = 10,
                    other_priors: Mapping[str, Mapping[str, float]] | None = None,
                    n_resamples: int = 1000, bootstrap_seed: int = 0,
                    confidence: float = 0.95, method: str = "percentile") -> pd.DataFrame:
    """Every number of ``alpha_curve``'s record (same arguments; ``seed`` the validation
    splits') with its bootstrap CI over the items: rows ``measure`` (the record's path,
    e.g. ``oracle.accuracy``, ``validation.summary.test_accuracy.mean``), value, CI, n."""
    alphas = alpha_grid(step)
    counted, groups = headline_grouping(items, metric, options)
    boot = ProcedureBootstrap(len(items), bootstrap_rng(benchmark, bootstrap_seed),
                              n_resamples=n_resamples, confidence=confidence, method=method)
    correct = item_correct_over_alphas(items, prior, alphas)
    curves = GroupedCurves(correct, counted, groups)
    splits = validation_splits(len(items), seed, repeats)
    boot.add(alpha_statistics(curves, alphas, splits),
             lambda w, mask: curves.curves(w * mask), curves.leave_one_out)
    if len(items) and (items["protocol"] == "pair").all():
        add_oracle_pair(boot, correct, pair_image_scores(items), counted, groups)
    fixed = {}
    for name, p in {"": prior, **{f"_{k}": v for k, v in (other_priors or {}).items()}}.items():
        blind = item_correct_over_alphas(prior_only_items(items, p), p, alphas[:1])
        fixed[f"accuracy_prior_only{name}"] = GroupedCurves(blind, counted, groups)
    if len(items) and (items["protocol"] == "pair").all():
        ends = alphas[[0, -1]]
        choices = pair_image_correct(items, prior, ends).astype(np.float64)
        blind = pair_image_correct(prior_only_items(items, prior), prior, ends[:1])
        per_item = (choices[0::2] + choices[1::2]) / 2
        blind_item = (blind[0::2] + blind[1::2]).astype(np.float64) / 2
        fixed["per_image.alpha0"] = GroupedCurves(per_item[:, :1])
        fixed["per_image.alpha1"] = GroupedCurves(per_item[:, 1:])
        fixed["per_image.prior_only"] = GroupedCurves(blind_item)
    for name, c in fixed.items():
        boot.add(lambda draw, name=name: {name: draw(np.ones(len(items)))[:, 0]},
                 lambda w, mask, c=c: c.curves(w * mask), c.leave_one_out)
    return boot.table()


def retrieval_alpha_intervals(test_scores: np.ndarray, test_links: Sequence[int],
                              val_scores: np.ndarray, val_links: Sequence[int], *,
                              benchmark: str, step: float = 0.001, ks: Sequence[int] = KS,
                              n_resamples: int = 1000, bootstrap_seed: int = 0,
                              confidence: float = 0.95, method: str = "percentile",
                              null_priors: tuple[np.ndarray, np.ndarray] | None = None,
                              ) -> pd.DataFrame:
    """Every number of ``generative_retrieval``'s record with its CI over the test
    gallery's images (each with its texts; the resamples of the gallery's retrieval
    intervals), and α*_val's over the validation gallery's images; with ``null_priors``
    (the test and validation texts' log P(t|null)) the record's ``null`` numbers too."""
    alphas = alpha_grid(step)
    test_scores, val_scores = np.asarray(test_scores), np.asarray(val_scores)
    test_links, val_links = np.asarray(test_links), np.asarray(val_links)
    test_prior, val_prior = gallery_prior(test_scores), gallery_prior(val_scores)
    val_hits = GroupedCurves(i2t_hits_over_alphas(val_scores, val_prior, val_links, alphas))
    alpha_val = float(alphas[_argmax(val_hits.curves(np.ones((1, val_hits.n))))[0]])
    n_img = test_scores.shape[0]
    boot = ProcedureBootstrap(n_img, bootstrap_rng(benchmark, bootstrap_seed),
                              n_resamples=n_resamples, confidence=confidence, method=method)
    sizes = np.bincount(test_links, minlength=n_img).astype(np.float64)
    named: dict[str, GroupedCurves] = {}
    sections = [("overall", 0.0, test_prior), ("alpha1", 1.0, test_prior),
                ("alpha_val", alpha_val, test_prior)]
    null_val_hits = None
    if null_priors is not None:  # VisualGPTScore Table 6's "Null Images" prior
        test_null, val_null = (np.asarray(p, np.float64) for p in null_priors)
        null_val_hits = GroupedCurves(i2t_hits_over_alphas(val_scores, val_null, val_links,
                                                           alphas))
        null_alpha = float(alphas[_argmax(null_val_hits.curves(np.ones((1, val_hits.n))))[0]])
        sections += [("null.alpha1", 1.0, test_null), ("null.alpha_val", null_alpha, test_null)]
    for section, alpha, prior in sections:
        hits = recall_hits(test_scores, test_links, prior, alpha, ks)
        for name, h in hits.items():
            if name.startswith("i2t"):
                named[f"{section}.{name}"] = GroupedCurves(h[:, None])
            elif section == "overall":  # per image: its texts' mean, weighted by their number
                named[f"{section}.{name}"] = WeightedCurves(
                    np.bincount(test_links, weights=h, minlength=n_img), sizes)
    for name, parts in SUBGALLERIES:  # Table 9: the same images in smaller galleries
        if n_img >= 4 * parts:
            named[f"{name}_gallery.i2t_r1"] = GroupedCurves(subgallery_i2t_hits(
                test_scores, test_links, parts, bootstrap_seed)[:, None])
    for key, c in named.items():
        boot.add(lambda draw, key=key: {key: draw(np.ones(n_img))[:, 0]},
                 lambda w, mask, c=c: c.curves(w * mask), c.leave_one_out)
    oracle = GroupedCurves(i2t_hits_over_alphas(test_scores, test_prior, test_links, alphas))

    def oracle_statistic(draw: Callable[[np.ndarray], np.ndarray]) -> dict[str, np.ndarray]:
        full = draw(np.ones(n_img))
        best = _argmax(full)
        return {"oracle.i2t_r1": full[np.arange(len(full)), best],
                "oracle.alpha": alphas[best]}

    boot.add(oracle_statistic, lambda w, mask: oracle.curves(w * mask), oracle.leave_one_out)
    table = boot.table()
    val_boot = ProcedureBootstrap(val_hits.n, bootstrap_rng(f"{benchmark}/val", bootstrap_seed),
                                  n_resamples=n_resamples, confidence=confidence,
                                  method=method)
    val_boot.add(lambda draw: {"alpha_val.alpha": alphas[_argmax(draw(np.ones(val_hits.n)))]},
                 lambda w, mask: val_hits.curves(w * mask), val_hits.leave_one_out)
    if null_val_hits is not None:
        hits = null_val_hits
        val_boot.add(lambda draw: {"null.alpha_val.alpha":
                                   alphas[_argmax(draw(np.ones(hits.n)))]},
                     lambda w, mask: hits.curves(w * mask), hits.leave_one_out)
    return pd.concat([table, val_boot.table()], ignore_index=True)


class WeightedCurves(GroupedCurves):
    """One column of per-image sums over ``sizes`` texts each: the mean over texts of the
    weighted images (text→image recall with images resampled with their texts)."""

    def __init__(self, sums: np.ndarray, sizes: np.ndarray) -> None:
        super().__init__(np.asarray(sums, np.float64)[:, None])
        self.sizes = np.asarray(sizes, np.float64)

    def curves(self, weights: np.ndarray) -> np.ndarray:
        weights = np.atleast_2d(weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            return 100 * (weights @ self.values) / (weights @ self.sizes)[:, None]

    def leave_one_out(self, mask: np.ndarray | None = None) -> np.ndarray:
        mask = np.ones(self.n) if mask is None else np.asarray(mask, np.float64)
        total, size = mask @ self.values[:, 0], mask @ self.sizes
        drop = mask[:, None] * self.values
        with np.errstate(invalid="ignore", divide="ignore"):
            return 100 * (total - drop) / (size - mask * self.sizes)[:, None]
