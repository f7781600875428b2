"""Automatic filtering of generated negative images, in place of BiVLC's two human steps.

Step (a), BiVLC step 3: given the negative caption and its N candidate images, pick the
best image or none. Step (b), BiVLC step 4: given the positive caption and both images,
an annotator picks the image that fits better; if it is the generated one, or neither is
better, the instance is ambiguous and dropped.

Two deciders, one table layout (one row per item):

* ``oracle`` (world): reads scene graphs. A candidate is valid iff the negative caption is
  true of its scene; the annotator prefers, among images a caption is true of, the one with
  the fewest objects the caption does not mention (so for ADD items, where the positive is
  true of both images by construction, the natural image wins only when it is the tighter
  fit, as BiVLC's annotators judged).
* ``model``: cosine scores of a dual encoder. (a) a candidate is acceptable iff
  ``s(neg, c) - s(pos, c) > select_margin``; the acceptable one with the highest
  ``s(neg, c)`` is picked. (b) the item is kept iff ``s(pos, natural) - s(pos, picked) >
  ambiguity_margin``. Note (b) is the filter model's own Tpos2I test: filtering with a model
  that is then evaluated favours it; use a different model (e.g. an ITM head) in real mode.

`agreement` measures the model decider against the oracle (precision and recall of kept
instances, and of step (a) alone).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from vlcomp.world.compose import object_slots
from vlcomp.world.grammar import CaptionParser, CaptionSpec
from vlcomp.world.oracle import spec_is_true
from vlcomp.world.scene import Scene

DECIDERS = ("oracle", "model", "none")
ITEM_COLUMNS = ["picked", "ambiguous", "keep"]


def caption_fit(spec: CaptionSpec, scene: Scene, next_to: float) -> tuple[bool, float]:
    """How well a caption fits an image: (true of it, share of its objects the caption names)."""
    if not spec_is_true(spec, scene, next_to):
        return False, 0.0
    mentioned = len(object_slots(spec)[0])
    return True, mentioned / max(1, len(scene.objects))


def preferred_is_first(spec: CaptionSpec, first: Scene, second: Scene, next_to: float) -> bool:
    """Whether an annotator shown the caption picks ``first`` over ``second`` (ties: no)."""
    return caption_fit(spec, first, next_to) > caption_fit(spec, second, next_to)


@dataclass(frozen=True)
class ModelFilter:
    """Thresholds of the model decider (cosine units)."""

    select_margin: float = 0.0
    ambiguity_margin: float = 0.0


@dataclass
class OracleInputs:
    """What the oracle needs: natural and generated scenes and the caption parser."""

    natural: Mapping[str, Scene]
    generated: Mapping[str, Scene]
    parser: CaptionParser
    next_to: float


def oracle_decisions(
    items: pd.DataFrame, candidates: pd.DataFrame, oracle: OracleInputs
) -> tuple[pd.DataFrame, pd.Series]:
    """Per item (``oracle_picked``, ``oracle_ambiguous``, ``oracle_keep``) and per candidate
    whether it is valid (the negative caption is true of it).

    ``items``: item_id, image_ids (natural first), texts (positive, negative).
    ``candidates``: item_id, candidate, image_id (the key of ``generated``).
    """
    natural, generated, next_to = oracle.natural, oracle.generated, oracle.next_to
    valid = np.zeros(len(candidates), dtype=bool)
    by_item = candidates.groupby("item_id", sort=False).indices
    rows = []
    for item in items.itertuples():
        pos, neg = (oracle.parser.parse(t) for t in item.texts[:2])
        nat = natural[item.image_ids[0]]
        best, best_fit = None, None
        for row in by_item.get(item.item_id, []):
            scene = generated[candidates.image_id.iat[row]]
            fit = caption_fit(neg, scene, next_to)
            valid[row] = fit[0]
            if fit[0] and (best_fit is None or fit > best_fit):
                best, best_fit = candidates.image_id.iat[row], fit
        ambiguous = best is not None and not preferred_is_first(pos, nat, generated[best],
                                                                 next_to)
        rows.append({"item_id": item.item_id, "oracle_picked": best,
                     "oracle_ambiguous": ambiguous, "oracle_keep": best is not None
                     and not ambiguous})
    return pd.DataFrame(rows), pd.Series(valid, index=candidates.index, name="oracle_valid")


def model_decisions(
    items: pd.DataFrame,
    candidates: pd.DataFrame,
    image_embeddings: Mapping[str, np.ndarray],
    text_embeddings: Mapping[str, np.ndarray],
    options: ModelFilter,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per item (``model_picked``, ``model_ambiguous``, ``model_keep``) and per candidate its
    scores ``model_s_neg``, ``model_s_pos`` (cosines) and ``model_acceptable``."""
    s_neg = np.zeros(len(candidates), dtype=np.float32)
    s_pos = np.zeros(len(candidates), dtype=np.float32)
    by_item = candidates.groupby("item_id", sort=False).indices
    rows = []
    for item in items.itertuples():
        pos, neg = (text_embeddings[t] for t in item.texts[:2])
        best, best_score = None, -np.inf
        for row in by_item.get(item.item_id, []):
            emb = image_embeddings[candidates.image_id.iat[row]]
            s_neg[row], s_pos[row] = float(emb @ neg), float(emb @ pos)
            if s_neg[row] - s_pos[row] > options.select_margin and s_neg[row] > best_score:
                best, best_score = candidates.image_id.iat[row], s_neg[row]
        ambiguous = False
        if best is not None:
            natural = image_embeddings[item.image_ids[0]]
            margin = float(natural @ pos) - float(image_embeddings[best] @ pos)
            ambiguous = not margin > options.ambiguity_margin
        rows.append({"item_id": item.item_id, "model_picked": best,
                     "model_ambiguous": ambiguous,
                     "model_keep": best is not None and not ambiguous})
    scores = pd.DataFrame({
        "model_s_neg": s_neg, "model_s_pos": s_pos,
        "model_acceptable": s_neg - s_pos > options.select_margin,
    }, index=candidates.index)
    return pd.DataFrame(rows), scores


def _ratio(num: int, den: int) -> float | None:
    return round(100.0 * num / den, 2) if den else None


def agreement_flags(
    decisions: pd.DataFrame, valid: Mapping[str, bool], ambiguous_if_picked: Mapping[str, bool]
) -> pd.DataFrame:
    """Per item, the model decider against the oracle: ``model_pick_ok`` (its pick is a
    valid candidate) and ``model_keep_ok`` (it keeps the item with a valid candidate the
    oracle does not call ambiguous). See `agreement`."""
    pick_ok = decisions.model_picked.map(lambda i: bool(valid.get(i, False)) if i else False)
    keep_ok = decisions.model_keep.astype(bool) & pick_ok & ~decisions.model_picked.map(
        lambda i: bool(ambiguous_if_picked.get(i, True)) if i else True)
    return pd.DataFrame({"model_pick_ok": pick_ok.astype(bool),
                         "model_keep_ok": keep_ok.astype(bool)}, index=decisions.index)


def agreement(
    decisions: pd.DataFrame, valid: Mapping[str, bool], ambiguous_if_picked: Mapping[str, bool]
) -> dict[str, float | int | None]:
    """Precision and recall (%) of the model decider against the oracle.

    ``decisions`` has the oracle and model columns of `oracle_decisions` / `model_decisions`.
    ``valid[image_id]``: the oracle's verdict on a candidate; ``ambiguous_if_picked[image_id]``:
    whether the oracle calls the item ambiguous with that candidate as its negative image.
    An instance the model keeps is correct iff its image is valid and not ambiguous.
    Step (a): a pick is correct iff the picked candidate is valid; recall is over items with
    at least one valid candidate. The ratios are `filter_ratios`' sums.
    """
    flags = agreement_flags(decisions, valid, ambiguous_if_picked)
    ratios = filter_ratios(decisions.join(flags))
    out: dict[str, float | int | None] = {
        "items": len(decisions),
        "oracle_keep": int(decisions.oracle_keep.sum()),
        "model_keep": int(decisions.model_keep.astype(bool).sum()),
    }
    for name in ("keep_precision", "keep_recall", "pick_precision", "pick_recall"):
        num, den = ratios[f"model_vs_oracle.{name}"]
        out[name] = _ratio(int(num.sum()), int(den.sum()))
    return out


def filter_ratios(decisions: pd.DataFrame) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every rate of the filter report as per-item numerators and denominators (the rate
    is 100 Σ numerator / Σ denominator), from the per-item columns `filter_candidates`
    writes: candidate validity, kept items (overall and per type) and, when both deciders
    ran, the model's precision and recall against the oracle. Keys as the report's paths
    (``kept_rate_by_type.replace``, ``model_vs_oracle.keep_precision``)."""
    one = np.ones(len(decisions))
    kept = decisions["keep"].astype(bool).to_numpy(float) if "keep" in decisions else None
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if "n_valid" in decisions:
        out["candidate_valid_rate"] = (decisions.n_valid.to_numpy(float),
                                       decisions.n_candidates.to_numpy(float))
    if kept is not None:
        out["kept_rate"] = (kept, one)
        if "type" in decisions:
            for kind in sorted(set(decisions["type"])):
                mine = (decisions["type"] == kind).to_numpy(float)
                out[f"kept_rate_by_type.{kind}"] = (kept * mine, mine)
    if "model_keep_ok" in decisions:
        keep_ok = decisions.model_keep_ok.to_numpy(float)
        pick_ok = decisions.model_pick_ok.to_numpy(float)
        has_valid = decisions.oracle_picked.notna().to_numpy(float)
        out["model_vs_oracle.keep_precision"] = (keep_ok,
                                                 decisions.model_keep.to_numpy(float))
        out["model_vs_oracle.keep_recall"] = (keep_ok, decisions.oracle_keep.to_numpy(float))
        out["model_vs_oracle.pick_precision"] = (pick_ok,
                                                 decisions.model_picked.notna().to_numpy(float))
        out["model_vs_oracle.pick_recall"] = (pick_ok * has_valid, has_valid)
    return out


def ambiguity_of_candidates(
    items: pd.DataFrame, candidates: pd.DataFrame, oracle: OracleInputs
) -> dict[str, bool]:
    """Per candidate image: would the oracle call its item ambiguous with it as the negative."""
    pos_of = {i.item_id: (oracle.parser.parse(i.texts[0]), oracle.natural[i.image_ids[0]])
              for i in items.itertuples()}
    out = {}
    for item_id, image_id in zip(candidates.item_id, candidates.image_id, strict=True):
        pos, nat = pos_of[item_id]
        out[image_id] = not preferred_is_first(pos, nat, oracle.generated[image_id],
                                               oracle.next_to)
    return out


def final_selection(decisions: pd.DataFrame, decider: str) -> pd.DataFrame:
    """The configured decider's verdict as generic columns: picked, ambiguous, keep."""
    if decider not in DECIDERS:
        raise ValueError(f"filter decider {decider!r}: choose one of {DECIDERS}")
    out = decisions.copy()
    for col in ITEM_COLUMNS:
        out[col] = decisions[f"{decider}_{col}"]
    return out


def first_candidate_decisions(items: pd.DataFrame, candidates: pd.DataFrame) -> pd.DataFrame:
    """The ``none`` decider (TROHN-Img as published: no filtering): candidate 0, kept."""
    first = candidates[candidates.candidate == 0].set_index("item_id").image_id
    picked = items.item_id.map(first)
    return pd.DataFrame({"item_id": items.item_id, "none_picked": picked,
                         "none_ambiguous": False, "none_keep": picked.notna()})


def filter_candidates(
    items: pd.DataFrame,
    candidates: pd.DataFrame,
    decider: str,
    oracle: OracleInputs | None = None,
    embeddings: tuple[Mapping[str, np.ndarray], Mapping[str, np.ndarray]] | None = None,
    options: ModelFilter | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Run every decider that has its inputs; the configured one decides.

    Returns the candidates with their per-candidate verdicts, one decision row per item
    (every decider's columns, then ``picked, ambiguous, keep``), and a report with counts
    and, when both the oracle and the model ran, the model's agreement with the oracle.
    """
    if decider not in DECIDERS:
        raise ValueError(f"filter decider {decider!r}: choose one of {DECIDERS}")
    if decider == "oracle" and oracle is None:
        raise ValueError("filter decider 'oracle' needs scene graphs (the synthetic world)")
    if decider == "model" and embeddings is None:
        raise ValueError("filter decider 'model' needs a filter model's embeddings")
    candidates = candidates.reset_index(drop=True)
    decisions = first_candidate_decisions(items, candidates)
    report: dict = {"decider": decider, "items": len(items), "candidates": len(candidates)}
    valid, ambiguous_if = None, None
    if oracle is not None:
        found, valid = oracle_decisions(items, candidates, oracle)
        decisions = decisions.merge(found, on="item_id", how="left")
        candidates = candidates.assign(oracle_valid=valid.to_numpy())
        ambiguous_if = ambiguity_of_candidates(items, candidates, oracle)
        report["candidate_valid_rate"] = round(100.0 * float(valid.mean()), 2)
        report["oracle_keep"] = int(decisions.oracle_keep.sum())
    if embeddings is not None:
        found, scores = model_decisions(items, candidates, *embeddings,
                                        options or ModelFilter())
        decisions = decisions.merge(found, on="item_id", how="left")
        candidates = pd.concat([candidates, scores.reset_index(drop=True)], axis=1)
        report["model_keep"] = int(decisions.model_keep.sum())
    if valid is not None:  # per item: candidates, and those true to the negative caption
        per_item = candidates.assign(valid=valid.to_numpy()).groupby("item_id").valid
        decisions = decisions.assign(
            n_candidates=decisions.item_id.map(per_item.size()).fillna(0).astype(int),
            n_valid=decisions.item_id.map(per_item.sum()).fillna(0).astype(int))
    if valid is not None and embeddings is not None:
        valid_of = dict(zip(candidates.image_id, valid, strict=True))
        report["model_vs_oracle"] = agreement(decisions, valid_of, ambiguous_if)
        decisions = decisions.join(agreement_flags(decisions, valid_of, ambiguous_if))
    decisions = final_selection(decisions, decider)
    decisions = decisions.merge(items[["item_id", "type"]], on="item_id", how="left")
    candidates["picked"] = candidates.image_id.isin(set(decisions.picked[decisions.keep]))
    report["kept"] = int(decisions.keep.sum())
    report["kept_rate"] = round(100.0 * report["kept"] / max(1, len(items)), 2)
    report["kept_rate_by_type"] = {
        t: round(100.0 * float(g.keep.mean()), 2) for t, g in decisions.groupby("type")}
    return candidates, decisions, report


def kept_instances(
    items: pd.DataFrame, decisions: pd.DataFrame, candidates: pd.DataFrame
) -> pd.DataFrame:
    """One row per kept item: natural image, both captions, the chosen generated image."""
    kept = decisions[decisions.keep][["item_id", "picked"]]
    path_of = dict(zip(candidates.image_id, candidates.path, strict=True))
    out = items.merge(kept, on="item_id")
    result = pd.DataFrame({
        "item_id": out.item_id, "image_id": [i[0] for i in out.image_ids],
        "caption": [t[0] for t in out.texts], "negative": [t[1] for t in out.texts],
        "negative_image_id": out.picked, "negative_path": out.picked.map(path_of),
        "type": out.type, "subtype": out.subtype,
    })
    if "caption_id" in out:
        result["caption_id"] = out.caption_id.to_numpy()
    return result


def texts_of(items: pd.DataFrame) -> Sequence[str]:
    """The positive and negative caption of every item, each once, sorted."""
    return sorted({t for texts in items.texts for t in texts[:2]})
