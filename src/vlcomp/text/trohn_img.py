"""TROHN-Img caption selection (BiVLC §4): score, filter, deduplicate, refine adversarially.

``TROHN_Img_best_selection.py``: per subtype, keep pairs whose text-text similarity is
below 0.999 and whose negative's plausibility and acceptability are at least their 0.645
quantile; drop negatives that do not end in "." or are at most 10 characters; keep one row
per negative caption; then balance with SugarCrepe's adversarial refinement so that neither
text-only scorer prefers positives over negatives.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

GRID = 50      # cells per axis for pairs with two non-zero gaps (SugarCrepe)
ONE_ZERO_BINS = 10  # bins for pairs with exactly one zero gap


def _cell(gap: float, bins: int) -> int:
    """Bin index 1..bins of |gap| (|gap| = 1 goes to the last bin; the reference raised)."""
    return min(int(abs(gap) * bins) + 1, bins)


def adversarial_refine(
    gap_a: np.ndarray, gap_b: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Indices (sorted) kept by SugarCrepe's adversarial refinement of two score gaps.

    Gaps are ``score(positive) - score(negative)`` in [-1, 1]. Pairs with both gaps non-zero
    go to a 50 × 50 grid of |gaps|; in each cell, the (+,+) group is balanced against (−,−)
    and (+,−) against (−,+) by subsampling the larger without replacement. Pairs with one
    zero gap are balanced by the sign of the other in 10 bins (per which gap is zero); pairs
    with both gaps zero are kept. Unlike the reference the draw is seeded and |gap| = 1 is
    binned.
    """
    gap_a, gap_b = np.asarray(gap_a, dtype=np.float64), np.asarray(gap_b, dtype=np.float64)
    if gap_a.shape != gap_b.shape or gap_a.ndim != 1:
        raise ValueError(f"gap arrays must be 1-d and equal in length: {gap_a.shape}, "
                         f"{gap_b.shape}")
    if np.abs(gap_a).max(initial=0) > 1 or np.abs(gap_b).max(initial=0) > 1:
        raise ValueError("gaps must lie in [-1, 1]")
    groups: dict[tuple, list[int]] = defaultdict(list)
    keep: list[int] = []
    for i, (a, b) in enumerate(zip(gap_a, gap_b, strict=True)):
        if a == 0 and b == 0:
            keep.append(i)
        elif a != 0 and b != 0:
            # (+,+) vs (-,-) is "same sign"; (+,-) vs (-,+) is "opposite sign"
            same = (a > 0) == (b > 0)
            groups[("grid", _cell(a, GRID), _cell(b, GRID), same, a > 0)].append(i)
        else:
            nonzero, which = (a, "a") if a != 0 else (b, "b")
            groups[("one", which, _cell(nonzero, ONE_ZERO_BINS), None, nonzero > 0)].append(i)
    for key in sorted({k[:4] for k in groups}, key=str):
        pos, neg = groups.get((*key, True), []), groups.get((*key, False), [])
        n = min(len(pos), len(neg))
        for members in (pos, neg):
            if len(members) > n:
                members = sorted(rng.choice(members, size=n, replace=False).tolist())
            keep.extend(members)
    return np.array(sorted(keep), dtype=np.int64)


def select_negatives(
    pairs: pd.DataFrame, quantile: float = 0.645, max_similarity: float = 0.999,
    min_length: int = 11, seed: int = 0,
) -> pd.DataFrame:
    """The TROHN-Img selection of scored caption pairs.

    ``pairs`` has ``subtype`` (or ``subset``), ``negative``, ``similarity`` and the scores
    ``pos_plausibility``, ``neg_plausibility``, ``pos_acceptability``,
    ``neg_acceptability``. Returns the kept rows (original order) with gap columns added.
    """
    need = {"negative", "similarity", "pos_plausibility", "neg_plausibility",
            "pos_acceptability", "neg_acceptability"}
    missing = need - set(pairs)
    if missing:
        raise ValueError(f"scored pairs lack column(s) {sorted(missing)}")
    group = pairs["subtype"] if "subtype" in pairs else pairs["subset"]
    keep = pairs.similarity < max_similarity
    for col in ("neg_plausibility", "neg_acceptability"):
        threshold = pairs[col].groupby(group).transform(lambda s: s.quantile(quantile))
        keep &= pairs[col] >= threshold
    keep &= pairs.negative.str.endswith(".") & (pairs.negative.str.len() >= min_length)
    kept = pairs[keep]
    kept = kept[~kept.negative.duplicated(keep="first")]
    kept = kept.assign(
        plausibility_gap=kept.pos_plausibility - kept.neg_plausibility,
        acceptability_gap=kept.pos_acceptability - kept.neg_acceptability,
    )
    rows = adversarial_refine(kept.plausibility_gap.to_numpy(),
                              kept.acceptability_gap.to_numpy(), np.random.default_rng(seed))
    return kept.iloc[rows]


def preference_rate(gaps: np.ndarray) -> float:
    """Share (%) of pairs where a text-only scorer prefers the positive (ties count half)."""
    gaps = np.asarray(gaps)
    if len(gaps) == 0:
        return float("nan")
    return float(100.0 * ((gaps > 0).sum() + 0.5 * (gaps == 0).sum()) / len(gaps))


def score_pairs(
    pairs: pd.DataFrame,
    embed_texts,
    plausibility,
    acceptability,
) -> pd.DataFrame:
    """Add ``similarity`` (cosine of the two captions' embeddings) and both text-only scores
    of positive (``text``) and negative (``negative``) to a table of caption pairs.

    ``embed_texts(list[str]) -> (n, d)`` returns unit-norm rows; the scorers follow
    `vlcomp.text.text_scorers.TextScorer`. Each distinct text is scored once.
    """
    texts = sorted(set(pairs.text) | set(pairs.negative))
    row = {t: i for i, t in enumerate(texts)}
    emb = np.asarray(embed_texts(texts), dtype=np.float32)
    plaus = plausibility.score(texts)
    accept = acceptability.score(texts)
    pos = pairs.text.map(row).to_numpy()
    neg = pairs.negative.map(row).to_numpy()
    kind, sub = zip(*(s.split("_", 1) for s in pairs.subset), strict=True)
    return pairs.assign(
        type=list(kind), subtype=list(sub),
        similarity=np.einsum("ij,ij->i", emb[pos], emb[neg]).astype(np.float64),
        pos_plausibility=plaus[pos], neg_plausibility=plaus[neg],
        pos_acceptability=accept[pos], neg_acceptability=accept[neg],
    )
