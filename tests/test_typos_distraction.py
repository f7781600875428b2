"""Tests for the Hendriksen et al. typo and distraction perturbations (vlcomp.text).

The property tests here cover the ``vlcomp`` typo reimplementation; the authors' route (the
``typo`` package, the default) is pinned in test_hendriksen_reference.py."""

from __future__ import annotations

import json
import re
import string

import numpy as np
import pytest

from vlcomp.seeding import stable_rng
from vlcomp.text.distraction import (
    DISTRACTION_FALSE_PHRASE,
    DISTRACTION_FUNCTIONS,
    DISTRACTION_PERTURBATIONS,
    DISTRACTION_TRUE_PHRASE,
    PAPER_DISTRACTION_TRUE_PHRASE,
    distraction_false,
    distraction_functions,
    distraction_true,
)
from vlcomp.text.typos import (
    PACKAGE_METHODS,
    QWERTY_NEIGHBOURS,
    REFERENCE_TYPO_FUNCTIONS,
    TYPO_FUNCTIONS,
    TYPO_IMPLS,
    TYPO_PERTURBATIONS,
    VLCOMP_TYPO_FUNCTIONS,
    char_swap,
    extra_char,
    keyboard_neighbours,
    missing_char,
    nearby_char,
)

from .conftest import SHARED_DATA

SUGARCREPE = SHARED_DATA / "sugarcrepe"
SUGARCREPE_FILES = (
    "add_att",
    "add_obj",
    "replace_att",
    "replace_obj",
    "replace_rel",
    "swap_att",
    "swap_obj",
)
ITEMS_PER_FILE = 150
ONE_ERROR = PACKAGE_METHODS  # the four one-error typos
VLCOMP = VLCOMP_TYPO_FUNCTIONS
WORD = re.compile(r"\w")
KEYS = set(string.ascii_lowercase + string.digits)

EDGE_CASES = (
    "",
    ".",
    "a",
    "A",
    "_",
    "ab",
    "AB",
    "Ab.",
    "a b",
    "  ",
    "a.b",
    "é",
    "éa",
    "good",
    "Oo",
    "x_y",
    "ÀB",
    "Straße",
    "naïve café",
    "123 go!",
    "Hello, World!",
    "A dog runs.",
    "two  spaces  here",
    "A MAN ON A HORSE",
)


def _captions() -> list[str]:
    captions: list[str] = []
    for name in SUGARCREPE_FILES:
        path = SUGARCREPE / f"{name}.json"
        if not path.exists():
            continue
        items = json.loads(path.read_text())
        for key in list(items)[:ITEMS_PER_FILE]:
            captions += [items[key]["caption"], items[key]["negative_caption"]]
    return captions


@pytest.fixture(scope="module")
def captions() -> list[str]:
    found = _captions()
    if not found:
        pytest.skip("SugarCrepe JSONs not available under shared/data")
    return found


def _rng(name: str, index: int, seed: int = 0) -> np.random.Generator:
    return stable_rng("typos-test", seed, index, name)


def _is_word(char: str) -> bool:
    return WORD.fullmatch(char) is not None


def _is_neighbour(new: str, old: str) -> bool:
    """``new`` is a QWERTY neighbour of ``old`` in the same case (checked against the raw map)."""
    key = new.lower()
    return key in QWERTY_NEIGHBOURS.get(old.lower(), ()) and new == (
        key.upper() if old.isupper() else key
    )


def _diffs(a: str, b: str) -> list[int]:
    assert len(a) == len(b)
    return [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]


def _first_diff(a: str, b: str) -> int:
    pairs = enumerate(zip(a, b, strict=False))
    return next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))


# --- property checkers: each asserts everything the reference notes say about one output ----------


def check_char_swap(before: str, after: str) -> None:
    pairs = [i for i in range(len(before) - 1) if _is_word(before[i]) and _is_word(before[i + 1])]
    diffs = _diffs(before, after)
    if not pairs:
        assert after == before
    elif not diffs:
        # only possible when the swapped pair holds the same character (e.g. "oo" in "good")
        assert any(before[i].lower() == before[i + 1].lower() for i in pairs)
    else:
        assert len(diffs) == 2 and diffs[1] == diffs[0] + 1, (before, after)
        i = diffs[0]
        assert i in pairs
        assert after[i].lower() == before[i + 1].lower()
        assert after[i + 1].lower() == before[i].lower()
        for k in (i, i + 1):
            if before[k].isalpha() and after[k].isalpha():
                assert after[k].isupper() == before[k].isupper(), (before, after)


def check_missing_char(before: str, after: str) -> None:
    if len(WORD.findall(before)) < 2:
        assert after == before
        return
    assert len(after) == len(before) - 1
    j = _first_diff(before, after)
    assert after == before[:j] + before[j + 1 :]
    assert _is_word(before[j])


def check_extra_char(before: str, after: str) -> None:
    if not any(c.lower() in KEYS and c.isascii() for c in before):
        assert after == before
        return
    assert len(after) == len(before) + 1
    j = _first_diff(before, after)
    assert j < len(before), (before, after)  # inserted before a character, never at the end
    assert after[:j] + after[j + 1 :] == before
    assert after[j + 1] == before[j]
    assert _is_neighbour(after[j], before[j]), (before, after)


def check_nearby_char(before: str, after: str) -> None:
    if not any(c.lower() in KEYS and c.isascii() for c in before):
        assert after == before
        return
    diffs = _diffs(before, after)
    assert len(diffs) == 1, (before, after)
    j = diffs[0]
    assert _is_neighbour(after[j], before[j]), (before, after)


CHECKS = {
    "char_swap": check_char_swap,
    "missing_char": check_missing_char,
    "extra_char": check_extra_char,
    "nearby_char": check_nearby_char,
}


# --- registry ----------------------------------------------------------------------------------


def test_registries_match_names_and_order() -> None:
    assert ONE_ERROR == ("char_swap", "missing_char", "extra_char", "nearby_char")
    assert TYPO_PERTURBATIONS[:4] == ONE_ERROR
    assert TYPO_PERTURBATIONS[4:] == ("probability_based_letter_change",)
    assert TYPO_IMPLS == ("reference", "vlcomp")
    for functions in (TYPO_FUNCTIONS, REFERENCE_TYPO_FUNCTIONS, VLCOMP):
        assert tuple(functions) == TYPO_PERTURBATIONS
    assert TYPO_FUNCTIONS == REFERENCE_TYPO_FUNCTIONS  # the authors' code is the default
    assert VLCOMP["char_swap"] is char_swap
    assert VLCOMP["nearby_char"] is nearby_char
    assert DISTRACTION_PERTURBATIONS == ("distraction_true", "distraction_false")
    assert tuple(DISTRACTION_FUNCTIONS) == DISTRACTION_PERTURBATIONS


def test_every_perturbation_has_the_text_rng_signature() -> None:
    for functions in (REFERENCE_TYPO_FUNCTIONS, VLCOMP, DISTRACTION_FUNCTIONS,
                      distraction_functions("paper")):
        for name, fn in functions.items():
            out = fn("A dog runs.", _rng(name, 0))
            assert isinstance(out, str)


# --- keyboard map ------------------------------------------------------------------------------


def test_keyboard_map_covers_letters_and_digits() -> None:
    assert set(QWERTY_NEIGHBOURS) == KEYS
    for key, values in QWERTY_NEIGHBOURS.items():
        assert values, key
        assert len(set(values)) == len(values), key
        assert key not in values
        assert set(values) <= KEYS


def test_keyboard_map_is_symmetric() -> None:
    for key, values in QWERTY_NEIGHBOURS.items():
        for other in values:
            assert key in QWERTY_NEIGHBOURS[other], (key, other)


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("f", "dgrtcv"),
        ("q", "w12a"),
        ("a", "sqwz"),
        ("e", "wr34sd"),
        ("p", "o0l"),
        ("m", "njk"),
        ("z", "xas"),
        ("1", "2q"),
        ("5", "46rt"),
    ],
)
def test_keyboard_map_spot_checks(key: str, expected: str) -> None:
    assert set(QWERTY_NEIGHBOURS[key]) == set(expected)


def test_keyboard_neighbours_keeps_case() -> None:
    assert set(keyboard_neighbours("F")) == set("DGRTCV")
    assert set(keyboard_neighbours("f")) == set("dgrtcv")
    assert set(keyboard_neighbours("1")) == {"2", "q"}
    for char in ("_", "é", "É", ".", " ", "ß", "\u212a"):  # \u212a: Kelvin sign, lower() == "k"
        assert keyboard_neighbours(char) == ()


# --- properties on real captions and hand-made edge cases --------------------------------------


@pytest.mark.parametrize("name", ONE_ERROR)
def test_properties_on_sugarcrepe_captions(name: str, captions: list[str]) -> None:
    fn, check = VLCOMP[name], CHECKS[name]
    changed = 0
    for index, text in enumerate(captions):
        after = fn(text, _rng(name, index))
        check(text, after)
        changed += after != text
    # captions always have letters, so only char_swap on a doubled letter can leave them unchanged
    assert changed >= 0.9 * len(captions)
    if name != "char_swap":
        assert changed == len(captions)


@pytest.mark.parametrize("name", ONE_ERROR)
@pytest.mark.parametrize("text", EDGE_CASES)
def test_properties_on_edge_cases(name: str, text: str) -> None:
    for seed in range(20):
        CHECKS[name](text, VLCOMP[name](text, _rng(name, 0, seed)))


@pytest.mark.parametrize("impl", [REFERENCE_TYPO_FUNCTIONS, VLCOMP])
@pytest.mark.parametrize("name", ONE_ERROR)
@pytest.mark.parametrize("text", ["", ".", "  ", "...", "- ."])
def test_no_word_chars_returns_text_unchanged(impl, name: str, text: str) -> None:
    assert impl[name](text, _rng(name, 0)) == text


@pytest.mark.parametrize("text", ["a", "A.", "_", " é ", "a"])
def test_missing_char_needs_two_word_chars(text: str) -> None:
    assert missing_char(text, _rng("missing_char", 0)) == text


@pytest.mark.parametrize("text", ["a b", "a.b", "x", "I, a."])
def test_char_swap_needs_an_adjacent_word_pair(text: str) -> None:
    assert char_swap(text, _rng("char_swap", 0)) == text


@pytest.mark.parametrize("name", ["extra_char", "nearby_char"])
@pytest.mark.parametrize("text", ["_", "é è", "__ ß", "\u212a"])
def test_keyboard_typos_need_a_key_with_neighbours(name: str, text: str) -> None:
    assert VLCOMP[name](text, _rng(name, 0)) == text


def test_missing_char_on_two_chars() -> None:
    outs = {missing_char("ab", np.random.default_rng(seed)) for seed in range(50)}
    assert outs == {"a", "b"}


def test_char_swap_keeps_case_pattern() -> None:
    assert char_swap("Ab", np.random.default_rng(0)) == "Ba"
    assert char_swap("aB", np.random.default_rng(0)) == "bA"
    assert char_swap("A1", np.random.default_rng(0)) == "1A"
    assert char_swap("éa", np.random.default_rng(0)) == "aé"
    assert char_swap("Oo", np.random.default_rng(0)) == "Oo"  # equal pair: unchanged, as reference


def test_char_swap_handles_case_changes_that_change_length() -> None:
    # "ß".upper() == "SS": the character is kept as is so the length never changes
    assert char_swap("Aß", np.random.default_rng(0)) == "ßa"


def test_nearby_and_extra_char_keep_case() -> None:
    for seed in range(30):
        rng = np.random.default_rng(seed)
        assert nearby_char("F", rng) in set("DGRTCV")
        out = extra_char("F", rng)
        assert len(out) == 2 and out[1] == "F" and out[0] in set("DGRTCV")
        assert nearby_char("f", rng) in set("dgrtcv")


def test_keyboard_typos_skip_keys_without_neighbours() -> None:
    for seed in range(30):
        out = nearby_char("é_a", np.random.default_rng(seed))
        assert out[:2] == "é_" and out[2] in set("sqwz")
        out = extra_char("_a", np.random.default_rng(seed))
        assert out[0] == "_" and out[1] in set("sqwz") and out[2] == "a"


# --- randomness --------------------------------------------------------------------------------


FAB_NEIGHBOURS = {"f": "dgrtcv", "a": "sqwz", "b": "vngh", "c": "xvdf"}  # written out by hand


@pytest.mark.parametrize("name", ONE_ERROR)
def test_every_position_and_neighbour_can_be_drawn(name: str) -> None:
    text = "fab c"
    outs = {VLCOMP[name](text, np.random.default_rng(seed)) for seed in range(600)}
    slots = [(i, n) for i in (0, 1, 2, 4) for n in FAB_NEIGHBOURS[text[i]]]
    expected = {
        "char_swap": {"afb c", "fba c"},
        "missing_char": {"ab c", "fb c", "fa c", "fab "},
        "extra_char": {text[:i] + n + text[i:] for i, n in slots},
        "nearby_char": {text[:i] + n + text[i + 1 :] for i, n in slots},
    }[name]
    assert outs == expected


@pytest.mark.parametrize("name", TYPO_PERTURBATIONS)
def test_same_seed_is_deterministic(name: str, captions: list[str]) -> None:
    fn = VLCOMP[name]
    first = [fn(text, _rng(name, i, seed=7)) for i, text in enumerate(captions)]
    # reversed processing order with fresh per-caption generators gives the same outputs
    again = [fn(captions[i], _rng(name, i, seed=7)) for i in reversed(range(len(captions)))]
    assert first == again[::-1]


@pytest.mark.parametrize("name", ONE_ERROR)
def test_different_seeds_give_different_outputs(name: str, captions: list[str]) -> None:
    fn = VLCOMP[name]
    a = [fn(text, _rng(name, i, seed=0)) for i, text in enumerate(captions)]
    b = [fn(text, _rng(name, i, seed=1)) for i, text in enumerate(captions)]
    differ = sum(x != y for x, y in zip(a, b, strict=True))
    # captions have ~40 word chars, so two independent draws rarely coincide
    assert differ >= 0.8 * len(captions)


def test_draws_use_only_the_given_generator() -> None:
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    np.random.seed(0)
    first = nearby_char("A dog runs.", rng)
    rng.bit_generator.state = state
    np.random.seed(1)
    assert nearby_char("A dog runs.", rng) == first


# --- distraction -------------------------------------------------------------------------------


def test_distraction_examples() -> None:
    # the authors' code literal ("it", sic) is the default
    assert distraction_true("A dog runs.") == "A dog runs and true it true."
    assert distraction_false("A dog runs.") == "A dog runs and false is false."
    assert DISTRACTION_TRUE_PHRASE == "and true it true"
    assert PAPER_DISTRACTION_TRUE_PHRASE == "and true is true"
    assert DISTRACTION_FALSE_PHRASE == "and false is false"


def test_distraction_wording_switch() -> None:
    assert distraction_true("A dog runs.", wording="paper") == "A dog runs and true is true."
    assert distraction_true("A dog runs.", wording="code") == "A dog runs and true it true."
    paper, code = distraction_functions("paper"), distraction_functions()
    assert paper["distraction_true"]("A cat.", None) == "A cat and true is true."
    assert code["distraction_true"]("A cat.", None) == "A cat and true it true."
    assert paper["distraction_false"]("A cat.", None) == "A cat and false is false."
    with pytest.raises(ValueError, match="unknown distraction_wording 'is'"):
        distraction_functions("is")
    with pytest.raises(ValueError, match="unknown distraction_wording"):
        distraction_true("A cat.", wording="it")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A dog runs", "A dog runs and true it true."),
        ("..A dog runs...", "A dog runs and true it true."),
        ("A dog runs. ", "A dog runs.  and true it true."),  # strip('.') keeps a dot before a space
        ("A dog runs!", "A dog runs! and true it true."),
        ("Mr. Smith runs.", "Mr. Smith runs and true it true."),
        ("", " and true it true."),
    ],
)
def test_distraction_true_strip_semantics(text: str, expected: str) -> None:
    assert distraction_true(text, np.random.default_rng(0)) == expected
    assert distraction_false(text) == expected.replace("true it true", "false is false")
    paper = distraction_true(text, wording="paper")
    assert paper == expected.replace("true it true", "true is true")


def test_distraction_on_captions_is_deterministic_suffix(captions: list[str]) -> None:
    for name, fn in DISTRACTION_FUNCTIONS.items():
        phrase = DISTRACTION_TRUE_PHRASE if name == "distraction_true" else DISTRACTION_FALSE_PHRASE
        for index, text in enumerate(captions):
            out = fn(text, _rng(name, index))
            assert out == fn(text, _rng(name, index + 1))
            assert out.endswith(" " + phrase + ".")
            assert out[: -len(phrase) - 2] == text.strip(".")
