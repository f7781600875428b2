"""Every caption perturbation by name, applied to many captions, seeds and types in one pass.

Families (names as in the papers' code):

* ARO word order (Table 3): ``shuffle_nouns_and_adj``, ``shuffle_allbut_nouns_and_adj``,
  ``shuffle_within_trigrams``, ``shuffle_trigrams``, ``shuffle_all_words``
  (`vlcomp.text.order`).
* Hendriksen et al. typos: ``char_swap``, ``missing_char``, ``extra_char``, ``nearby_char``
  (`vlcomp.text.typos`); synonyms: ``synonym_noun``, ``synonym_adj`` (`vlcomp.text.synonyms`);
  distraction: ``distraction_true``, ``distraction_false`` (`vlcomp.text.distraction`).
* BISON query alterations: ``negate``, ``synonym``, ``hypernym``, ``permute``, ``reverse``
  (`vlcomp.text.bison_alterations`).

spaCy runs once per caption: it tags the caption's word tokens (`word_tokenize`), and those
tokens and tags serve every tag-based perturbation, every seed and every type. (ARO's own
noun/adjective shuffles permute spaCy's tokens of the raw text; for one-sentence captions
these are the same tokens, up to clitics.) Each (caption, perturbation, seed) draws from its
own generator, so results never depend on order or batching.

``changed`` compares the perturbed and original captions after lower-casing and
re-tokenising, so a perturbation that only re-spaces punctuation ("horse." → "horse .")
counts as unchanged; unchanged rows stay in the table and are reported, never hidden.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm import tqdm

from vlcomp.seeding import stable_rng
from vlcomp.text import bison_alterations, distraction, order, typos
from vlcomp.text.nlp import word_tokenize
from vlcomp.text.synonyms import SynonymPerturber, TaggedCaption, tag_captions

if TYPE_CHECKING:
    import spacy

    from vlcomp.text.wordnet import OfflineWordNetReader

ORDER = ("shuffle_nouns_and_adj", "shuffle_allbut_nouns_and_adj", "shuffle_within_trigrams",
         "shuffle_trigrams", "shuffle_all_words")
TYPOS = typos.TYPO_PERTURBATIONS
SYNONYMS = ("synonym_noun", "synonym_adj")
DISTRACTION = distraction.DISTRACTION_PERTURBATIONS
BISON = bison_alterations.ALTERATIONS
FAMILIES: dict[str, tuple[str, ...]] = {
    "order": ORDER, "typos": TYPOS, "synonyms": SYNONYMS, "distraction": DISTRACTION,
    "bison": BISON,
}
ALL = tuple(name for names in FAMILIES.values() for name in names)
NEEDS_TAGS = frozenset({*ORDER[:2], *SYNONYMS, "negate", "synonym", "hypernym"})
NEEDS_WORDNET = frozenset({*SYNONYMS, "negate", "synonym", "hypernym"})
COLUMNS = ("caption_id", "perturbation", "seed", "original", "perturbed", "changed")


def family_of(name: str) -> str:
    """The family a perturbation belongs to."""
    for family, names in FAMILIES.items():
        if name in names:
            return family
    raise ValueError(f"unknown perturbation {name!r}; known: {', '.join(ALL)}")


_TOKEN = re.compile(r"\w+|[^\w\s]")


def normalise(text: str) -> str:
    """Lower-cased words and punctuation marks joined by single spaces (what ``changed``
    compares)."""
    return " ".join(_TOKEN.findall(text.lower()))


Apply = Callable[[TaggedCaption, np.random.Generator], str]


def _appliers(wordnet: OfflineWordNetReader | None, synonym_k: int) -> dict[str, Apply]:
    """name → function of a tagged caption and a generator, returning the perturbed text."""
    fns: dict[str, Apply] = {
        "shuffle_nouns_and_adj": lambda c, r: order.shuffle_nouns_and_adj(c.tokens, c.tags, r),
        "shuffle_allbut_nouns_and_adj": (
            lambda c, r: order.shuffle_allbut_nouns_and_adj(c.tokens, c.tags, r)),
        "shuffle_within_trigrams": lambda c, r: order.shuffle_within_trigrams(c.tokens, r),
        "shuffle_trigrams": lambda c, r: order.shuffle_trigrams(c.tokens, r),
        "shuffle_all_words": lambda c, r: order.shuffle_all_words(c.text, r),
    }
    for name in TYPOS:
        fns[name] = lambda c, r, f=typos.TYPO_FUNCTIONS[name]: f(c.text, r)
    for name in DISTRACTION:
        fns[name] = lambda c, r, f=distraction.DISTRACTION_FUNCTIONS[name]: f(c.text, r)
    fns["permute"] = lambda c, r: bison_alterations.permute(c.tokens, r).text
    fns["reverse"] = lambda c, r: bison_alterations.reverse(c.tokens).text
    if wordnet is not None:
        synonyms = SynonymPerturber(None, wordnet, k=synonym_k)
        fns["synonym_noun"] = lambda c, r: synonyms.perturb(c, "noun").text
        fns["synonym_adj"] = lambda c, r: synonyms.perturb(c, "adj").text
        for name in ("negate", "synonym", "hypernym"):
            fns[name] = lambda c, r, n=name: bison_alterations.alter(
                c, n, wordnet=wordnet, rng=r).text
    return fns


def perturb_captions(
    captions: pd.DataFrame, perturbations: Sequence[str], seeds: Sequence[int], *,
    nlp: spacy.Language | None = None, wordnet: OfflineWordNetReader | None = None,
    synonym_k: int = 1, progress: bool | None = None,
) -> pd.DataFrame:
    """Long table ``caption_id, perturbation, seed, original, perturbed, changed`` with one row
    per caption × perturbation × seed (deterministic perturbations repeat across seeds).

    ``nlp`` is needed for tag-based perturbations, ``wordnet`` for synonyms and BISON's
    negation and substitutions; errors name what is missing.
    """
    names = tuple(perturbations)
    for name in names:
        family_of(name)
    if not seeds:
        raise ValueError("give at least one seed")
    if {"caption_id", "text"} - set(captions.columns):
        raise ValueError(f"captions need caption_id and text columns, got {list(captions)}")
    if captions.caption_id.duplicated().any():
        dup = captions.caption_id[captions.caption_id.duplicated()].iloc[0]
        raise ValueError(f"duplicate caption_id {dup!r}")
    needs_tags = [n for n in names if n in NEEDS_TAGS]
    if needs_tags and nlp is None:
        raise ValueError(f"perturbations {needs_tags} need a spaCy pipeline (config nlp)")
    needs_wordnet = [n for n in names if n in NEEDS_WORDNET]
    if needs_wordnet and wordnet is None:
        raise ValueError(f"perturbations {needs_wordnet} need WordNet (rule wordnet)")
    texts = [str(t) for t in captions.text]
    if needs_tags:
        tagged = list(tag_captions(texts, nlp))
    else:
        tagged = [TaggedCaption(t, tuple(w), ("",) * len(w))
                  for t, w in ((t, word_tokenize(t)) for t in texts)]
    apply = _appliers(wordnet, synonym_k)
    show = len(texts) >= 1000 if progress is None else progress
    rows = []
    ids = [str(c) for c in captions.caption_id]
    for caption_id, caption in tqdm(zip(ids, tagged, strict=True), total=len(ids),
                                    desc="perturb", file=sys.stderr, disable=not show):
        for name in names:
            for seed in seeds:
                out = apply[name](caption, stable_rng("perturb", int(seed), caption_id, name))
                rows.append((caption_id, name, int(seed), caption.text, out, False))
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    normalised = {t: normalise(t) for t in set(table.perturbed) | set(table.original)}
    table["changed"] = [normalised[p] != normalised[o]
                        for p, o in zip(table.perturbed, table.original, strict=True)]
    return table


def changed_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per perturbation: rows, changed rows and the changed share (percent)."""
    g = table.groupby("perturbation", sort=False).changed
    out = pd.DataFrame({"rows": g.size(), "changed": g.sum()})
    out["changed_pct"] = (100 * out.changed / out.rows).round(2)
    return out.reset_index()
