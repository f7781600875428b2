"""Every caption perturbation by name, applied to many captions, seeds and types in one pass.

Families (names as in the papers' code):

* ARO word order (Table 3): ``shuffle_nouns_and_adj``, ``shuffle_allbut_nouns_and_adj``,
  ``shuffle_within_trigrams``, ``shuffle_trigrams``, ``shuffle_all_words``
  (`vlcomp.text.order`).
* Hendriksen et al. typos: ``char_swap``, ``missing_char``, ``extra_char``, ``nearby_char``,
  ``probability_based_letter_change`` (`vlcomp.text.typos`); synonyms: ``synonym_noun``,
  ``synonym_adj`` (`vlcomp.text.synonyms`); distraction: ``distraction_true``,
  ``distraction_false`` (`vlcomp.text.distraction`).
* BISON query alterations: ``negate``, ``synonym``, ``hypernym``, ``permute``, ``reverse``
  (`vlcomp.text.bison_alterations`).

Switches (defaults reproduce the authors' code; config keys of ``benchmarks.robustness``):

* ``typo_impl``: ``reference`` calls the ``typo`` package with seed 42 per caption, so every seed
  gives the same typo for a caption (the authors' protocol); ``vlcomp`` is the seeded
  reimplementation.
* ``distraction_wording``: ``code`` appends "and true it true" (their literal), ``paper``
  "and true is true".
* ``shuffle_tokens``: ``spacy`` permutes spaCy's own tokens of the raw caption in
  ``shuffle_nouns_and_adj`` / ``shuffle_allbut_nouns_and_adj`` (ARO's and Hendriksen's code);
  ``word_tokenize`` permutes the ``word_tokenize`` tokens, tagged by spaCy (older vlcomp).
* ``bison_word_choice`` (``benchmarks.bison.word_choice``): ``random`` draws the word BISON's
  ``synonym`` / ``hypernym`` replace among the eligible ones (BISON's supplement); ``first``
  takes the first eligible word (older vlcomp).

spaCy runs at most twice per caption, never per seed or type: once on the raw text (the
noun/adjective shuffles), once on its ``word_tokenize`` tokens (synonyms, BISON alterations).
Each (caption, perturbation, seed) draws from its own generator, so results never depend on
order or batching; the reference typos and the word-order shuffles' tags are fixed functions of
the caption.

``changed`` compares the perturbed and original captions after lower-casing and
re-tokenising, so a perturbation that only re-spaces punctuation ("horse." → "horse .")
counts as unchanged; unchanged rows stay in the table and are reported, never hidden.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm import tqdm

from vlcomp.seeding import stable_rng
from vlcomp.text import bison_alterations, distraction, order, typos
from vlcomp.text.nlp import word_tokenize
from vlcomp.text.synonyms import (
    SynonymPerturber,
    TaggedCaption,
    tag_captions,
    tag_raw_captions,
)

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
NOUN_ADJ_SHUFFLES = frozenset(ORDER[:2])
WORD_TAGS = frozenset({*SYNONYMS, "negate", "synonym", "hypernym"})
NEEDS_TAGS = NOUN_ADJ_SHUFFLES | WORD_TAGS
SHUFFLE_TOKENS = ("spacy", "word_tokenize")
DEFAULT_SHUFFLE_TOKENS = "spacy"
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


@dataclass(frozen=True)
class CaptionViews:
    """One caption's token views: ``words`` holds its ``word_tokenize`` tokens (with spaCy tags of
    those tokens when a perturbation needs them); ``raw`` spaCy's own tokens and tags of the raw
    text (only when the noun/adjective shuffles run on them)."""

    words: TaggedCaption
    raw: TaggedCaption | None = None

    @property
    def text(self) -> str:
        """The original caption."""
        return self.words.text


Apply = Callable[[CaptionViews, np.random.Generator], str]


@dataclass(frozen=True)
class Options:
    """How the perturbations with a fidelity switch behave (defaults: the authors' code)."""

    synonym_k: int = 1
    typo_impl: str = typos.DEFAULT_TYPO_IMPL
    distraction_wording: str = distraction.DEFAULT_DISTRACTION_WORDING
    shuffle_tokens: str = DEFAULT_SHUFFLE_TOKENS
    bison_word_choice: str = bison_alterations.DEFAULT_WORD_CHOICE

    def __post_init__(self) -> None:
        typos.typo_functions(self.typo_impl)
        bison_alterations.check_word_choice(self.bison_word_choice)
        distraction.distraction_functions(self.distraction_wording)
        if self.shuffle_tokens not in SHUFFLE_TOKENS:
            raise ValueError(f"unknown shuffle_tokens {self.shuffle_tokens!r}; "
                             f"known: {', '.join(SHUFFLE_TOKENS)}")


def _shuffle_view(c: CaptionViews, shuffle_tokens: str) -> TaggedCaption:
    """The tokens and tags the noun/adjective shuffles permute."""
    if shuffle_tokens == "word_tokenize":
        return c.words
    if c.raw is None:
        raise ValueError("the noun/adjective shuffles need spaCy's tokens of the raw caption")
    return c.raw


def _order_appliers(shuffle_tokens: str) -> dict[str, Apply]:
    """The ARO word-order perturbations."""
    def nouns_adj(c: CaptionViews, r: np.random.Generator) -> str:
        view = _shuffle_view(c, shuffle_tokens)
        return order.shuffle_nouns_and_adj(view.tokens, view.tags, r)

    def allbut(c: CaptionViews, r: np.random.Generator) -> str:
        view = _shuffle_view(c, shuffle_tokens)
        return order.shuffle_allbut_nouns_and_adj(view.tokens, view.tags, r)

    return {
        "shuffle_nouns_and_adj": nouns_adj,
        "shuffle_allbut_nouns_and_adj": allbut,
        "shuffle_within_trigrams": lambda c, r: order.shuffle_within_trigrams(c.words.tokens, r),
        "shuffle_trigrams": lambda c, r: order.shuffle_trigrams(c.words.tokens, r),
        "shuffle_all_words": lambda c, r: order.shuffle_all_words(c.text, r),
    }


def _text_appliers(options: Options) -> dict[str, Apply]:
    """Typos and distraction: functions of the raw text (and a generator)."""
    fns = {**typos.typo_functions(options.typo_impl),
           **distraction.distraction_functions(options.distraction_wording)}
    return {name: (lambda c, r, f=f: f(c.text, r)) for name, f in fns.items()}


def _appliers(wordnet: OfflineWordNetReader | None, options: Options) -> dict[str, Apply]:
    """name → function of a caption's views and a generator, returning the perturbed text."""
    fns = {**_order_appliers(options.shuffle_tokens), **_text_appliers(options)}
    fns["permute"] = lambda c, r: bison_alterations.permute(c.words.tokens, r).text
    fns["reverse"] = lambda c, r: bison_alterations.reverse(c.words.tokens).text
    if wordnet is not None:
        synonyms = SynonymPerturber(None, wordnet, k=options.synonym_k)
        fns["synonym_noun"] = lambda c, r: synonyms.perturb(c.words, "noun").text
        fns["synonym_adj"] = lambda c, r: synonyms.perturb(c.words, "adj").text
        for name in ("negate", "synonym", "hypernym"):
            fns[name] = lambda c, r, n=name: bison_alterations.alter(
                c.words, n, wordnet=wordnet, rng=r, word_choice=options.bison_word_choice).text
    return fns


def _views(texts: list[str], names: Sequence[str], nlp: spacy.Language | None,
           shuffle_tokens: str) -> list[CaptionViews]:
    """Tokenise and tag every caption once, only as far as ``names`` need."""
    shuffles = bool(NOUN_ADJ_SHUFFLES.intersection(names))
    word_tags = bool(WORD_TAGS.intersection(names)) or (
        shuffles and shuffle_tokens == "word_tokenize")
    if word_tags:
        words = list(tag_captions(texts, nlp))
    else:
        words = [TaggedCaption(t, tuple(w), ("",) * len(w))
                 for t, w in ((t, word_tokenize(t)) for t in texts)]
    if shuffles and shuffle_tokens == "spacy":
        return [CaptionViews(w, r) for w, r in zip(words, tag_raw_captions(texts, nlp),
                                                   strict=True)]
    return [CaptionViews(w) for w in words]


def _check_input(captions: pd.DataFrame, names: Sequence[str], seeds: Sequence[int],
                 nlp: spacy.Language | None, wordnet: OfflineWordNetReader | None) -> None:
    """Raise a ValueError naming what is wrong or missing."""
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


def perturb_captions(
    captions: pd.DataFrame, perturbations: Sequence[str], seeds: Sequence[int], *,
    nlp: spacy.Language | None = None, wordnet: OfflineWordNetReader | None = None,
    synonym_k: int = 1, typo_impl: str = typos.DEFAULT_TYPO_IMPL,
    distraction_wording: str = distraction.DEFAULT_DISTRACTION_WORDING,
    shuffle_tokens: str = DEFAULT_SHUFFLE_TOKENS,
    bison_word_choice: str = bison_alterations.DEFAULT_WORD_CHOICE, progress: bool | None = None,
) -> pd.DataFrame:
    """Long table ``caption_id, perturbation, seed, original, perturbed, changed`` with one row
    per caption × perturbation × seed (deterministic perturbations repeat across seeds).

    ``nlp`` is needed for tag-based perturbations, ``wordnet`` for synonyms and BISON's
    negation and substitutions; errors name what is missing. ``typo_impl``,
    ``distraction_wording``, ``shuffle_tokens`` and ``bison_word_choice`` are the fidelity
    switches (module docstring).
    """
    names = tuple(perturbations)
    options = Options(synonym_k, typo_impl, distraction_wording, shuffle_tokens,
                      bison_word_choice)
    _check_input(captions, names, seeds, nlp, wordnet)
    texts = [str(t) for t in captions.text]
    views = _views(texts, names, nlp, shuffle_tokens)
    apply = _appliers(wordnet, options)
    show = len(texts) >= 1000 if progress is None else progress
    rows = []
    ids = [str(c) for c in captions.caption_id]
    for caption_id, caption in tqdm(zip(ids, views, strict=True), total=len(ids),
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


def queries_by_perturbations(
    frames: Sequence[pd.DataFrame], perturbations: Mapping[str, Sequence[str]],
    order: Sequence[str],
) -> tuple[pd.DataFrame, dict[tuple[str, ...], list[str]]]:
    """The distinct queries of the perturbed galleries (``frames``: ``query_id``, ``text``,
    ``gallery``), and per tuple of perturbation names (in ``order``, the configured one) the
    ids of the queries to perturb with it: each query under every perturbation one of its
    galleries is evaluated under (``perturbations``, gallery → names). A query id with two
    texts is a ValueError (its perturbed texts would mix)."""
    queries = pd.concat(frames)
    distinct = queries.drop_duplicates(["query_id", "text"])
    clash = distinct.query_id[distinct.query_id.duplicated()]
    if len(clash):
        raise ValueError(f"query {clash.iloc[0]!r} has different texts in two perturbed "
                         "galleries; their perturbed texts would mix")
    wanted: dict[str, set[str]] = {}
    for query_id, gallery in zip(queries.query_id, queries.gallery, strict=True):
        wanted.setdefault(str(query_id), set()).update(perturbations.get(gallery, ()))
    groups: dict[tuple[str, ...], list[str]] = {}
    for query_id in distinct.query_id:
        names = tuple(n for n in order if n in wanted[str(query_id)])
        if names:
            groups.setdefault(names, []).append(str(query_id))
    return distinct.drop(columns="gallery"), groups
