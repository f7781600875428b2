"""Bootstrap CIs of the robustness numbers (ARO Tables 3–4, Hendriksen et al., granularity)
from the per-item outcomes that `vlcomp.metrics.robustness.evaluate_gallery` keeps.

Items are a gallery's images, each with its queries (as for retrieval R@K,
`vlcomp.metrics.uncertainty.retrieval_outcomes`): image→text metrics are per image, text→image
ones per query and averaged per image weighted by the number of queries. One seeded
generator per gallery draws the resamples, so every model and every condition of a gallery
(clean, each text or image perturbation and seed) sees the same resamples: the R@1 drop
``100 (clean − perturbed) / clean`` and the paired differences between models are computed
per resample.

Perturbation seeds and training seeds are never resampled. A model's row is the mean over
its perturbation seeds (each resample averaged over them too, as the tables average), with
the seeds' standard deviation beside it; a group of training seeds averages its members the
same way and reports the training seeds' standard deviation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from vlcomp.metrics.robustness import ITEM_KEYS, UNSCALED
from vlcomp.metrics.uncertainty import (
    Bootstrap,
    Outcome,
    bootstrap_outcomes,
    mcnemar,
    paired_bootstrap_p,
)

DROP = "t2i_r1_drop"
COMPARED_METRICS = ("i2t_r1", "t2i_r1", DROP, "t2i_dcg10")
CONDITION = ["kind", "perturbation"]
COLUMNS = ["gallery", "kind", "perturbation", "model", "metric", "value", "ci_low", "ci_high",
           "n", "seeds", "perturbation_seed_std", "training_seeds", "training_seed_std"]
NAN_TEST = {"only_a": float("nan"), "only_b": float("nan"), "p_mcnemar": float("nan")}


def condition_outcomes(frame: pd.DataFrame) -> list[Outcome]:
    """The outcomes of one condition's per-item rows over its gallery's images."""
    images = frame[frame.unit == "image"].sort_values("image")
    queries = frame[frame.unit == "query"]
    n_images = len(images)
    if not np.array_equal(images.image.to_numpy(), np.arange(n_images)):
        raise ValueError(f"condition {describe(frame)}: image rows are not 0..{n_images - 1}")
    links = queries.image.to_numpy(dtype=np.int64)
    sizes = np.bincount(links, minlength=n_images).astype(np.float64)
    everyone = np.ones(n_images, dtype=bool)
    out = []
    for name in frame.columns[len(ITEM_KEYS):]:
        scale = 1.0 if name in UNSCALED else 100.0
        on_images = images[name].to_numpy(dtype=np.float64)
        if not np.isnan(on_images).any():
            out.append(Outcome(name, on_images, everyone, scale=scale))
            continue
        values = queries[name].to_numpy(dtype=np.float64)
        if np.isnan(values).any():
            raise ValueError(f"condition {describe(frame)}: {name} is missing for some items")
        per_image = np.bincount(links, weights=values, minlength=n_images) / np.maximum(sizes, 1)
        out.append(Outcome(name, per_image, everyone, sizes=sizes, scale=scale))
    return out


def describe(frame: pd.DataFrame) -> str:
    first = frame.iloc[0]
    return f"{first.gallery} {first.kind} {first.perturbation} seed {first.seed}"


@dataclass
class Cell:
    """A number with its bootstrap draws and (lazily) its leave-one-out values."""

    value: float
    draws: np.ndarray
    jackknife: Callable[[], np.ndarray]


def mean_cell(cells: Sequence[Cell]) -> Cell:
    """The mean of several cells over the same resamples (seeds averaged per resample)."""
    return Cell(float(np.mean([c.value for c in cells])),
                np.mean([c.draws for c in cells], axis=0),
                lambda: np.mean([c.jackknife() for c in cells], axis=0))


def drop_cell(clean: Cell, perturbed: Cell) -> Cell:
    """``100 (clean − perturbed) / clean`` per resample (NaN where clean is 0)."""
    def drop(c: np.ndarray | float, p: np.ndarray | float) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(np.asarray(c) != 0, 100 * (np.asarray(c) - p) / np.asarray(c),
                            np.nan)
    return Cell(float(drop(clean.value, perturbed.value)), drop(clean.draws, perturbed.draws),
                lambda: drop(clean.jackknife(), perturbed.jackknife()))


class RobustnessBootstrap:
    """Cells per (gallery, kind, perturbation, model) and metric, seeds averaged."""

    def __init__(self, items: Mapping[str, pd.DataFrame], *, n_resamples: int = 1000,
                 seed: int = 0, confidence: float = 0.95, method: str = "percentile") -> None:
        self.models = list(items)
        self.cells: dict[tuple[str, str, str, str], dict[str, Cell]] = {}
        self.seed_cells: dict[tuple[str, str, str, str], list[dict[str, Cell]]] = {}
        self.outcomes: dict[tuple[str, str, str, str], list[list[Outcome]]] = {}
        self.n_images: dict[str, int] = {}
        self._intervals = Bootstrap({}, {}, confidence, method)
        galleries = list(dict.fromkeys(g for f in items.values()
                                       for g in f.gallery.drop_duplicates()))
        for gallery in galleries:
            self._gallery(gallery, {m: f[f.gallery == gallery] for m, f in items.items()},
                          n_resamples=n_resamples, seed=seed, confidence=confidence,
                          method=method)

    def _gallery(self, gallery: str, items: Mapping[str, pd.DataFrame], **options) -> None:
        outcomes: dict[tuple, list[Outcome]] = {}
        for model, frame in items.items():
            for (kind, name, seed), rows in frame.groupby(["kind", "perturbation", "seed"],
                                                          sort=False, observed=True):
                outcomes[model, kind, name, seed] = condition_outcomes(rows)
        sizes = {len(o[0].values) for o in outcomes.values()}
        if len(sizes) != 1:
            raise ValueError(f"gallery {gallery}: conditions differ in images ({sorted(sizes)})")
        self.n_images[gallery] = n_images = sizes.pop()
        boot = bootstrap_outcomes(outcomes, n_images, benchmark=f"robustness/{gallery}",
                                  **options)
        per_seed: dict[tuple, dict[str, Cell]] = {}
        for key, outs in outcomes.items():
            per_seed[key] = {o.metric: Cell(float(o.value()[0]), boot.draws[key, o.metric],
                                            lambda k=key, m=o.metric: boot.jackknife(k, m))
                             for o in outs}
        clean = {m: c for (m, kind, _, _), c in per_seed.items() if kind == "clean"}
        for (model, kind, name, seed), cells in per_seed.items():
            cells[DROP] = drop_cell(clean[model]["t2i_r1"], cells["t2i_r1"])
            key = (gallery, kind, name, model)
            self.seed_cells.setdefault(key, []).append(cells)
            self.outcomes.setdefault(key, []).append(outcomes[model, kind, name, seed])
        for key, seeds in self.seed_cells.items():
            if key[0] == gallery:
                self.cells[key] = {m: mean_cell([s[m] for s in seeds]) for m in seeds[0]}

    def interval(self, cell: Cell) -> tuple[float, float]:
        return self._intervals.interval(cell.draws, cell.value, cell.jackknife)

    def table(self, groups: Mapping[str, Sequence[str]] | None = None) -> pd.DataFrame:
        """Every model's (and every group's of several training seeds) cells: value, CI,
        images, perturbation seeds and their sd, training seeds and their sd."""
        rows = []
        for (gallery, kind, name, model), cells in self.cells.items():
            seeds = self.seed_cells[gallery, kind, name, model]
            for metric, cell in cells.items():
                values = [s[metric].value for s in seeds]
                rows.append(self._row(gallery, kind, name, model, metric, cell, len(seeds),
                                      _std(values), 1, float("nan")))
        for label, members in (groups or {}).items():
            present = [m for m in members if m in self.models]
            if len(present) < 2:
                continue
            for (gallery, kind, name) in self.conditions():
                mine = [self.cells.get((gallery, kind, name, m)) for m in present]
                if any(c is None for c in mine):
                    continue
                for metric in mine[0]:
                    cell = mean_cell([c[metric] for c in mine])
                    seeds = [self.seed_cells[gallery, kind, name, m] for m in present]
                    spreads = [_std([s[metric].value for s in ss]) for ss in seeds]
                    pert_std = np.mean(spreads) if np.isfinite(spreads).all() else np.nan
                    rows.append(self._row(gallery, kind, name, label, metric, cell,
                                          len(seeds[0]), float(pert_std), len(present),
                                          _std([c[metric].value for c in mine])))
        return pd.DataFrame(rows, columns=COLUMNS)

    def _row(self, gallery, kind, name, model, metric, cell, seeds, pert_std, training,
             training_std) -> dict:
        low, high = self.interval(cell)
        return {"gallery": gallery, "kind": kind, "perturbation": name, "model": model,
                "metric": metric, "value": cell.value, "ci_low": low, "ci_high": high,
                "n": self.n_images[gallery], "seeds": seeds, "perturbation_seed_std": pert_std,
                "training_seeds": training, "training_seed_std": training_std}

    def conditions(self) -> list[tuple[str, str, str]]:
        return list(dict.fromkeys(k[:3] for k in self.cells))

    def comparisons(self, metrics: Sequence[str] = COMPARED_METRICS) -> pd.DataFrame:
        """Every two models on every condition: paired difference (a − b) with its CI and
        bootstrap p; McNemar's exact p where the outcomes are paired 0/1 (one seed)."""
        rows = []
        for gallery, kind, name in self.conditions():
            present = [m for m in self.models if (gallery, kind, name, m) in self.cells]
            for i, a in enumerate(present):
                for b in present[i + 1:]:
                    ca, cb = self.cells[gallery, kind, name, a], self.cells[gallery, kind, name, b]
                    for metric in metrics:
                        if metric not in ca or metric not in cb:
                            continue
                        diff = Cell(ca[metric].value - cb[metric].value,
                                    ca[metric].draws - cb[metric].draws,
                                    lambda x=ca[metric], y=cb[metric]: x.jackknife()
                                    - y.jackknife())
                        low, high = self.interval(diff)
                        rows.append({"gallery": gallery, "kind": kind, "perturbation": name,
                                     "model_a": a, "model_b": b, "metric": metric,
                                     "difference": diff.value, "ci_low": low, "ci_high": high,
                                     "p_bootstrap": paired_bootstrap_p(diff.draws),
                                     **self._mcnemar(gallery, kind, name, a, b, metric)})
        return pd.DataFrame(rows)

    def _mcnemar(self, gallery, kind, name, a, b, metric) -> dict:
        oa, ob = self.outcomes[gallery, kind, name, a], self.outcomes[gallery, kind, name, b]
        if len(oa) != 1 or len(ob) != 1 or metric == DROP:
            return dict(NAN_TEST)
        found = [next(o for o in outs[0] if o.metric == metric) for outs in (oa, ob)]
        return mcnemar(*found)


def _std(values: Sequence[float]) -> float:
    return float(np.std(values, ddof=1)) if len(values) > 1 else float("nan")

