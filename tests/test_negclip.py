"""NegCLIP hard-negative captions: gist properties, determinism and the reference TSV."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from vlcomp.text.negclip import (
    GENERATORS,
    load_negclip_nlp,
    negatives_for_captions,
    negclip_negatives,
    read_negclip_tsv,
    same_caption,
    swap_adjectives,
    swap_adverbs,
    swap_noun_phrases,
    swap_nouns,
    swap_plural_nouns,
    swap_verb_phrases,
)

from .conftest import SHARED_DATA

TSV = SHARED_DATA / "aro" / "valid_neg_clip.tsv"
needs_tsv = pytest.mark.skipif(not TSV.exists(), reason="reference TSV not available")
TOKEN_SWAPS = (swap_nouns, swap_plural_nouns, swap_adverbs, swap_adjectives)


@pytest.fixture(scope="module")
def nlp():
    return load_negclip_nlp()


@pytest.fixture(scope="module")
def tsv() -> pd.DataFrame:
    if not TSV.exists():
        pytest.skip("reference TSV not available")
    return read_negclip_tsv(TSV)


def test_nn_swap_changes_exactly_two_nn_positions(nlp) -> None:
    doc = nlp("A dog and a cat near a tree.")
    tokens = [t.text for t in doc]
    nn = {t.i for t in doc if t.tag_ == "NN"}
    for seed in range(10):
        out = swap_nouns(doc, np.random.default_rng(seed)).split()
        changed = {i for i, (a, b) in enumerate(zip(tokens, out, strict=True)) if a != b}
        assert len(changed) == 2 and changed <= nn


def test_noun_phrase_swap_needs_two_long_chunks_and_lowercases(nlp) -> None:
    doc = nlp("A big brown dog chases a small white cat")
    out = swap_noun_phrases(doc, np.random.default_rng(0))
    assert out == "a small white cat chases a big brown dog"
    assert swap_noun_phrases(nlp("a dog chases a cat"), np.random.default_rng(0)) is None
    assert swap_noun_phrases(nlp("a big brown dog sleeps"), np.random.default_rng(0)) is None


def test_verb_phrase_swap(nlp) -> None:
    out = swap_verb_phrases(nlp("Two men quickly run and slowly walk."), np.random.default_rng(0))
    assert out == "two men slowly walk and quickly run."
    assert swap_verb_phrases(nlp("A dog near a tree."), np.random.default_rng(0)) is None


def test_same_caption_and_rejection(nlp) -> None:
    assert same_caption("A dog, near a tree.", "a dog near  a tree .")
    assert not same_caption("A dog near a tree.", "A tree near a dog.")
    doc = nlp("A dog next to a dog.")
    assert same_caption(swap_nouns(doc, np.random.default_rng(0)), doc.text)
    assert negclip_negatives(doc, np.random.default_rng(0)) == []


def test_swaps_preserve_token_multiset(nlp, tsv) -> None:
    hand = {
        "a big brown dog chases a small white cat": swap_noun_phrases,
        "Two men quickly run and slowly walk.": swap_verb_phrases,
    }
    for text, gen in hand.items():
        out = gen(nlp(text), np.random.default_rng(1))
        assert Counter(out.replace(".", " ").split()) == Counter(
            text.lower().replace(".", " ").split()
        )
    for doc in nlp.pipe(tsv["title"].head(200)):
        tokens = Counter(" ".join(t.text for t in doc).split())
        for gen in TOKEN_SWAPS:
            out = gen(doc, np.random.default_rng(2))
            assert out is None or Counter(out.split()) == tokens


def test_negatives_unique_and_capped(nlp, tsv) -> None:
    for doc in nlp.pipe(tsv["title"].head(100)):
        negs = negclip_negatives(doc, np.random.default_rng(3), max_negatives=2)
        assert len(negs) <= 2
        assert not any(same_caption(n, doc.text) for n in negs)
        assert len({" ".join(n.lower().split()) for n in negs}) == len(negs)
    assert len(GENERATORS) == 6


def test_determinism(nlp, tsv) -> None:
    caps = pd.DataFrame({"caption_id": tsv.index[:100], "text": tsv["title"].head(100)})
    a = negatives_for_captions(caps, nlp, seed=0)
    b = negatives_for_captions(caps, nlp, seed=0)
    c = negatives_for_captions(caps, nlp, seed=1)
    assert list(a.columns) == ["caption_id", "text", "negatives"]
    assert a["negatives"].tolist() == b["negatives"].tolist()
    assert a["negatives"].tolist() != c["negatives"].tolist()
    # One rng per caption: a caption's negatives do not depend on its batch neighbours.
    d = negatives_for_captions(caps.iloc[::-1], nlp, seed=0)
    assert d["negatives"].tolist()[::-1] == a["negatives"].tolist()


@needs_tsv
def test_read_reference_tsv(tsv) -> None:
    assert len(tsv) == 4839
    assert (tsv["neg_image"].map(len) == 3).all()
    assert not any(row in negs for row, negs in tsv["neg_image"].items())
    counts = tsv["neg_caption"].map(len).value_counts().to_dict()
    assert counts == {1: 2891, 2: 1418, 3: 480, 4: 47, 5: 3}
    assert tsv.loc[0, "neg_image"] == [2973, 1515, 2235]


def test_read_tsv_malformed_row(tmp_path: Path) -> None:
    path = tmp_path / "bad.tsv"
    path.write_text(
        "\ttitle\tfilepath\tneg_caption\tneg_image\n"
        "0\tA dog.\tx.jpg\t['a']\t[1, 2, 3]\n"
        "1\tA cat.\ty.jpg\t['b'\t[0, 2, 3]\n"
    )
    with pytest.raises(ValueError, match=r"bad\.tsv: row 1: malformed neg_caption"):
        read_negclip_tsv(path)


def test_batch_matches_reference_rates(nlp, tsv) -> None:
    sub = tsv.head(500)
    caps = pd.DataFrame({"caption_id": sub.index, "text": sub["title"]})
    n = negatives_for_captions(caps, nlp, seed=0)["negatives"].map(len)
    ref_mean = sub["neg_caption"].map(len).mean()
    share = (n > 0).mean()
    print(f"share with >=1 negative: {share:.3f}; mean {n.mean():.3f} vs TSV {ref_mean:.3f}")
    assert share > 0.9
    assert 0.8 * ref_mean <= n.mean() <= 1.3 * ref_mean
