"""Concept-granularity features of captions (Hendriksen et al., ITR brittleness study, §3).

The paper (§3.1) names five features; neither of its code repositories
(``mariyahendriksen/model-robustness-for-itr`` at ``f6e90f7``, ``evaluating-cmr-in-vl`` at
``87e131e``, notebooks included) computes any of them, so every formula below is our own reading
of the paper's one-line definitions. Per caption:

NP level (nouns = tokens tagged ``NN``/``NNS``/``NNP``/``NNPS`` whose dependency is not
``compound``, i.e. the head of "traffic light" is one noun, "light"):

- ``adjectives_per_noun``: mean over the caption's nouns of the number of adjectival modifiers of
  the noun: its children with dependency ``amod`` plus the ``conj`` chains hanging off them ("a
  black and white dog": 2 for "dog"; spaCy attaches "white" to "black" as ``conj``). Predicative
  adjectives ("the dog is brown") modify no noun in the parse and are not counted.
- ``complements_per_noun``: mean over the nouns of the number of their post-nominal complement
  phrases: children with dependency ``prep`` (PP, "man *with glasses*"), ``acl`` (participial or
  infinitival clause, "man *riding a horse*") or ``relcl`` (relative clause, "dog *that is
  sleeping*"); ``COMPLEMENT_DEPS``. Phrases attached to the verb are not counted.
- ``concept_depth``: mean over the nouns found in WordNet (noun synsets of the lower-cased token;
  NLTK's ``morphy`` maps plurals) of ``min_depth()`` of the first (most frequent) noun synset,
  i.e. the number of hypernym edges on the shortest path to ``entity.n.01``.

Caption level:

- ``n_chars``: characters of the caption with surrounding whitespace stripped (spaces included).
- ``n_words``: whitespace-separated chunks containing a letter or digit (so a detached "." is
  not a word, an attached one does not split a word).
- ``semantic_diversity``: ``len(S) / n_words`` with ``S`` the set of distinct (lower-cased)
  WordNet synonyms of the caption's nouns and adjectives (tags ``NN*``/``JJ*``, compounds
  included), each word's synonyms gathered exactly as Hendriksen's synonym perturbation does
  (``vlcomp.text.synonyms.get_synonyms``: all synsets, no POS filter, lemma names other than the
  word). The paper restricts its own synonym notion to nouns and adjectives (§4.1.2);
  ``synonym_tags=None`` gathers the synonyms of every token instead.

Features over an empty set (no nouns, no noun in WordNet, no words) are NaN and skipped by the
dataset means of ``granularity_summary`` (mean of per-caption values, rounded to 4 decimals).
The spaCy pipeline must have a tagger and the dependency parser
(``vlcomp.text.nlp.load_spacy(name, parser=True)``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from vlcomp.text.order import ADJ_TAGS, NOUN_TAGS
from vlcomp.text.synonyms import get_synonyms

if TYPE_CHECKING:
    import spacy
    from spacy.tokens import Doc, Token

    from vlcomp.text.wordnet import OfflineWordNetReader

ADJECTIVE_DEP = "amod"
"""Dependency of an adjectival modifier of a noun (plus its ``conj`` chain)."""

COMPLEMENT_DEPS = frozenset({"prep", "acl", "relcl"})
"""Dependencies of a noun's children that count as complement phrases (CPs)."""

SYNONYM_TAGS = NOUN_TAGS | ADJ_TAGS
"""PTB tags of the words whose WordNet synonyms make up ``semantic_diversity``."""

FEATURES: tuple[str, ...] = (
    "adjectives_per_noun",
    "complements_per_noun",
    "concept_depth",
    "n_chars",
    "n_words",
    "semantic_diversity",
)
"""The paper's five granularity features (adjectives and CPs reported separately)."""

COLUMNS: tuple[str, ...] = (
    "text",
    "n_chars",
    "n_words",
    "n_nouns",
    "n_adjectives",
    "n_complements",
    "adjectives_per_noun",
    "complements_per_noun",
    "n_nouns_in_wordnet",
    "concept_depth",
    "n_unique_synonyms",
    "semantic_diversity",
)
"""Columns of ``caption_features``, in order."""

_WORD = re.compile(r"\w")


def _ratio(num: float, den: int) -> float:
    return num / den if den else math.nan


def count_words(text: str) -> int:
    """Whitespace-separated chunks of ``text`` that contain a letter or digit."""
    return sum(1 for chunk in text.split() if _WORD.search(chunk))


def is_noun(token: Token) -> bool:
    """A noun for the NP-level features: PTB noun tag and not a ``compound`` modifier."""
    return token.tag_ in NOUN_TAGS and token.dep_ != "compound"


def adjective_modifiers(noun: Token) -> int:
    """Adjectival modifiers of ``noun``: ``amod`` children plus the ``conj`` chains below them."""
    count = 0
    stack = [c for c in noun.children if c.dep_ == ADJECTIVE_DEP]
    while stack:
        tok = stack.pop()
        count += 1
        stack.extend(c for c in tok.children if c.dep_ == "conj")
    return count


def complement_phrases(noun: Token) -> int:
    """Children of ``noun`` heading a complement phrase (dependency in ``COMPLEMENT_DEPS``)."""
    return sum(1 for c in noun.children if c.dep_ in COMPLEMENT_DEPS)


def noun_depth(word: str, wordnet: OfflineWordNetReader) -> int | None:
    """``min_depth()`` of the first WordNet noun synset of ``word`` (None when it has none)."""
    synsets = wordnet.synsets(word.lower(), pos="n")
    return synsets[0].min_depth() if synsets else None


def _check_nlp(nlp: spacy.Language) -> None:
    missing = [c for c in ("tagger", "parser") if c not in nlp.pipe_names]
    if missing:
        raise ValueError(
            f"spaCy pipeline {nlp.meta.get('name', '?')!r} lacks {', '.join(missing)} "
            f"(has {nlp.pipe_names}); load it with vlcomp.text.nlp.load_spacy(name, parser=True)"
        )


class _Lookups:
    """Caches of WordNet depths and synonyms (captions repeat words a lot)."""

    def __init__(self, wordnet: OfflineWordNetReader) -> None:
        self.wordnet = wordnet
        self._depth: dict[str, int | None] = {}
        self._syn: dict[str, frozenset[str]] = {}

    def depth(self, word: str) -> int | None:
        key = word.lower()
        if key not in self._depth:
            self._depth[key] = noun_depth(key, self.wordnet)
        return self._depth[key]

    def synonyms(self, word: str) -> frozenset[str]:
        key = word.lower()
        if key not in self._syn:
            self._syn[key] = frozenset(s.lower() for s in get_synonyms(key, self.wordnet))
        return self._syn[key]


def doc_features(
    doc: Doc,
    wordnet: OfflineWordNetReader | _Lookups,
    *,
    synonym_tags: frozenset[str] | None = SYNONYM_TAGS,
) -> dict[str, object]:
    """The ``COLUMNS`` of one tagged and parsed caption (``doc.text`` is the caption).

    ``synonym_tags``: PTB tags of the words whose synonyms are gathered; None for every word.
    """
    look = wordnet if isinstance(wordnet, _Lookups) else _Lookups(wordnet)
    nouns = [t for t in doc if is_noun(t)]
    n_adj = sum(adjective_modifiers(t) for t in nouns)
    n_cp = sum(complement_phrases(t) for t in nouns)
    depths = [d for d in (look.depth(t.text) for t in nouns) if d is not None]
    synonyms: set[str] = set()
    for tok in doc:
        if synonym_tags is None or tok.tag_ in synonym_tags:
            synonyms |= look.synonyms(tok.text)
    stripped = doc.text.strip()
    n_words = count_words(stripped)
    return {
        "text": doc.text,
        "n_chars": len(stripped),
        "n_words": n_words,
        "n_nouns": len(nouns),
        "n_adjectives": n_adj,
        "n_complements": n_cp,
        "adjectives_per_noun": _ratio(n_adj, len(nouns)),
        "complements_per_noun": _ratio(n_cp, len(nouns)),
        "n_nouns_in_wordnet": len(depths),
        "concept_depth": _ratio(sum(depths), len(depths)),
        "n_unique_synonyms": len(synonyms),
        "semantic_diversity": _ratio(len(synonyms), n_words),
    }


def caption_features(
    texts: Iterable[str],
    nlp: spacy.Language,
    wordnet: OfflineWordNetReader,
    *,
    synonym_tags: frozenset[str] | None = SYNONYM_TAGS,
    batch_size: int = 256,
) -> pd.DataFrame:
    """One row of granularity features per caption (``COLUMNS``; formulas in the module doc)."""
    _check_nlp(nlp)
    texts = list(texts)
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"caption {i} is {type(text).__name__}, not str: {text!r}")
    look = _Lookups(wordnet)
    rows = [
        doc_features(doc, look, synonym_tags=synonym_tags)
        for doc in nlp.pipe(texts, batch_size=batch_size)
    ]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def granularity_summary(features: pd.DataFrame) -> dict[str, float]:
    """Dataset means of the ``FEATURES`` over captions (NaN skipped, 4 decimals) and counts.

    Also ``n_captions`` and, per NaN-able feature, how many captions it was defined for
    (``n_captions_with_nouns``, ``n_captions_in_wordnet``).
    """
    missing = [c for c in (*FEATURES, "n_nouns", "n_nouns_in_wordnet") if c not in features]
    if missing:
        raise KeyError(f"granularity features frame lacks columns {missing}")
    out: dict[str, float] = {"n_captions": len(features)}
    for name in FEATURES:
        mean = features[name].astype(float).mean(skipna=True)
        out[name] = round(float(mean), 4) if pd.notna(mean) else math.nan
    out["n_captions_with_nouns"] = int((features["n_nouns"] > 0).sum())
    out["n_captions_in_wordnet"] = int((features["n_nouns_in_wordnet"] > 0).sum())
    return out


def granularity_intervals(features: pd.DataFrame, *, gallery: str, n_resamples: int = 1000,
                          seed: int = 0, confidence: float = 0.95, method: str = "percentile"
                          ) -> pd.DataFrame:
    """Each of the ``FEATURES``' dataset mean (`granularity_summary`'s, unrounded) with its
    bootstrap CI over the captions (a NaN caption left out, as in the mean). Rows: gallery,
    metric (the feature), value, ci_low, ci_high, n (captions it is defined for)."""
    from vlcomp.metrics.uncertainty import ratio_intervals

    missing = [c for c in FEATURES if c not in features]
    if missing:
        raise KeyError(f"granularity features frame lacks columns {missing}")
    ratios = {}
    for name in FEATURES:
        values = features[name].astype(float).to_numpy()
        defined = np.isfinite(values)
        ratios[name] = (np.where(defined, values, 0.0), defined.astype(np.float64))
    table = ratio_intervals(ratios, len(features), benchmark=f"granularity_{gallery}",
                            n_resamples=n_resamples, seed=seed, confidence=confidence,
                            method=method, scale=1.0)
    table.insert(0, "gallery", gallery)
    return table
