"""Typo perturbations of Hendriksen et al.'s ITR brittleness study (``typos.py`` there).

Two implementations, chosen by name (``typo_functions(impl)``, config ``typo_impl``):

``reference`` (the default) reproduces the authors' code:

- ``char_swap``, ``missing_char``, ``extra_char``, ``nearby_char`` call the PyPI package ``typo``
  (pinned ``typo==0.1.7``, the SIGIR'25 environment's version) exactly as the authors did: a new
  ``typo.StrErrer(caption, seed=42)`` per caption, one method, ``.result``. Each caption's edit is
  therefore a fixed function of the caption: every robustness seed gives the same text (the
  authors' protocol: one perturbed copy per caption). The package reseeds Python's *global*
  ``random``; ``typo_package`` saves and restores that state around the call, so nothing else in
  the process sees a changed global stream.
- ``probability_based_letter_change``: a private ``random.Random(42)`` per caption; for each
  ``' '``-separated word, draw ``random()``; if it is ``<= 0.1`` draw a position with
  ``choice(range(len(word)))`` and then a letter with ``choice(string.ascii_letters)`` (the letter
  may equal the old one). An empty word (double space) drawn for a change made the authors' code
  raise, and their evaluator then kept the original caption; so does this one. Because every
  caption restarts the same stream, the same word slots are drawn again and again: word 0 never
  changes (first draw 0.639), word 1 always does (0.025), then mostly words 6, 7 and 9; on
  SugarCrepe's 4,345 COCO captions 31 % of words change, not 10 %.
- If the package raises (e.g. a non-ASCII decimal digit drawn by ``extra_char``/``nearby_char``),
  the caption is returned unchanged, as the authors' evaluator did for any failing perturbation.

``vlcomp`` is the older independent reimplementation, seeded per (seed, caption, perturbation):

- ``char_swap``: swap one adjacent pair ``s[i]s[i+1]`` where both are ``\\w``; the case pattern of
  the two positions is kept (``"Ab"`` -> ``"Ba"``). A pair of equal letters (``"oo"``) is a valid
  pick, as in the reference, and then leaves the text unchanged.
- ``missing_char``: delete one ``\\w`` character, only if the text has at least 2 of them.
- ``extra_char``: insert a keyboard neighbour of one ``\\w`` character *before* it (the neighbour
  takes that character's case).
- ``nearby_char``: replace one ``\\w`` character by a keyboard neighbour, keeping its case.
- ``probability_based_letter_change``: the reference's rule drawn from the numpy generator; empty
  words are skipped instead of aborting the caption.

Candidate positions are ``\\w`` regex matches (letters, digits, ``_``, including non-ASCII
letters). ``extra_char``/``nearby_char`` can only use characters that have keyboard neighbours
(ASCII letters and digits, see ``QWERTY_NEIGHBOURS``, a physical-geometry map unlike the package's
hand-written one). When no valid position exists the text is returned unchanged.

Randomness (``vlcomp``): every function takes an explicit ``numpy.random.Generator`` and draws the
position first, then (for ``extra_char``/``nearby_char``) the neighbour. Seed one generator per
caption with ``vlcomp.seeding.stable_rng`` so results do not depend on processing order. The
``reference`` functions take the same ``(text, rng)`` arguments and ignore ``rng``.
"""

from __future__ import annotations

import random
import re
import string
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np
import typo

_WORD = re.compile(r"\w")
_T = TypeVar("_T")

TypoFunction = Callable[[str, np.random.Generator], str]
"""``(text, rng) -> perturbed text``; the ``reference`` functions ignore ``rng``."""

REFERENCE_SEED = 42
"""The seed the authors passed to ``typo.StrErrer`` and ``random.seed`` for every caption."""

LETTER_CHANGE_PROBABILITY = 0.1
"""Per-word change probability of ``probability_based_letter_change`` (the authors' default)."""

_ASCII_LETTERS = string.ascii_letters

# US QWERTY: each row's keys and the left edge of its first key, in key widths from the keyboard's
# left edge (the backtick key is 1u, Tab 1.5u, Caps Lock 1.75u, left Shift 2.25u).
_QWERTY_ROWS: tuple[tuple[str, float], ...] = (
    ("1234567890", 1.0),
    ("qwertyuiop", 1.5),
    ("asdfghjkl", 1.75),
    ("zxcvbnm", 2.25),
)


def _build_qwerty_neighbours() -> dict[str, tuple[str, ...]]:
    """Neighbours of every key in ``_QWERTY_ROWS`` from the physical key geometry.

    Two keys are neighbours when they sit side by side in one row, or lie in adjacent rows and their
    1u-wide spans overlap. Overlap is symmetric, so the relation is too. Order: same row left to
    right, then the row above, then the row below (each left to right).
    """
    spans = [[(offset + j, key) for j, key in enumerate(keys)] for keys, offset in _QWERTY_ROWS]
    neighbours: dict[str, tuple[str, ...]] = {}
    for r, row in enumerate(spans):
        for j, (left, key) in enumerate(row):
            found = [row[k][1] for k in (j - 1, j + 1) if 0 <= k < len(row)]
            for other in (r - 1, r + 1):
                if 0 <= other < len(spans):
                    found += [k for start, k in spans[other] if abs(start - left) < 1.0]
            neighbours[key] = tuple(found)
    return neighbours


QWERTY_NEIGHBOURS: dict[str, tuple[str, ...]] = _build_qwerty_neighbours()
"""US QWERTY physical neighbours of each lower-case letter and digit (symmetric relation).

Same-row keys to the left/right plus the keys of the adjacent rows whose spans overlap, given the
standard row stagger (Tab 1.5u, Caps Lock 1.75u, left Shift 2.25u). For example ``f`` -> ``d g r t
c v``: the diagonal keys ``e`` and ``b`` do not overlap ``f``'s span, so they are *not* neighbours;
``q`` -> ``w 1 2 a``. Punctuation keys (``, . ; - [``...) are left out, so letters next to them
simply have fewer neighbours (``p`` -> ``o 0 l``).
"""

_CASED_NEIGHBOURS: dict[str, tuple[str, ...]] = {
    **QWERTY_NEIGHBOURS,
    **{
        key.upper(): tuple(n.upper() for n in values)
        for key, values in QWERTY_NEIGHBOURS.items()
        if key.isalpha()
    },
}


def keyboard_neighbours(char: str) -> tuple[str, ...]:
    """QWERTY neighbours of ``char`` in its case (upper-case letter -> upper-case neighbours).

    Empty for characters without neighbours (punctuation, ``_``, non-ASCII letters).
    """
    return _CASED_NEIGHBOURS.get(char, ())


def _match_case(char: str, like: str) -> str:
    """``char`` in the case of ``like``; unchanged if ``like`` is uncased or that changes length."""
    if like.isupper():
        out = char.upper()
    elif like.islower():
        out = char.lower()
    else:
        return char
    return out if len(out) == 1 else char


def _word_positions(text: str) -> list[int]:
    return [m.start() for m in _WORD.finditer(text)]


def _keyboard_positions(text: str) -> list[int]:
    return [i for i in _word_positions(text) if text[i] in _CASED_NEIGHBOURS]


def _pick(items: Sequence[_T], rng: np.random.Generator) -> _T:
    return items[int(rng.integers(len(items)))]


def char_swap(text: str, rng: np.random.Generator) -> str:
    """Swap one random adjacent ``\\w\\w`` pair, keeping the case pattern of the two positions."""
    words = set(_word_positions(text))
    candidates = sorted(i for i in words if i + 1 in words)
    if not candidates:
        return text
    i = _pick(candidates, rng)
    a, b = text[i], text[i + 1]
    return text[:i] + _match_case(b, a) + _match_case(a, b) + text[i + 2 :]


def missing_char(text: str, rng: np.random.Generator) -> str:
    """Delete one random ``\\w`` character if the text has at least 2 of them."""
    candidates = _word_positions(text)
    if len(candidates) < 2:
        return text
    i = _pick(candidates, rng)
    return text[:i] + text[i + 1 :]


def extra_char(text: str, rng: np.random.Generator) -> str:
    """Insert a keyboard neighbour of one random ``\\w`` character right before it."""
    candidates = _keyboard_positions(text)
    if not candidates:
        return text
    i = _pick(candidates, rng)
    return text[:i] + _pick(keyboard_neighbours(text[i]), rng) + text[i:]


def nearby_char(text: str, rng: np.random.Generator) -> str:
    """Replace one random ``\\w`` character by a keyboard neighbour, keeping its case."""
    candidates = _keyboard_positions(text)
    if not candidates:
        return text
    i = _pick(candidates, rng)
    return text[:i] + _pick(keyboard_neighbours(text[i]), rng) + text[i + 1 :]


def _replace_char(word: str, index: int, letter: str) -> str:
    return word[:index] + letter + word[index + 1 :]


def probability_based_letter_change(
    text: str, rng: np.random.Generator, probability: float = LETTER_CHANGE_PROBABILITY
) -> str:
    """``vlcomp``: each ``' '``-separated non-empty word, with ``probability``, gets one random
    position replaced by a random ASCII letter (draws: uniform, position, letter)."""
    words = text.split(" ")
    for k, word in enumerate(words):
        if rng.random() <= probability and word:
            letter = _ASCII_LETTERS[int(rng.integers(len(_ASCII_LETTERS)))]
            words[k] = _replace_char(word, int(rng.integers(len(word))), letter)
    return " ".join(words)


# --- the authors' implementation ---------------------------------------------------------------

PACKAGE_METHODS: tuple[str, ...] = ("char_swap", "missing_char", "extra_char", "nearby_char")
"""The ``typo.StrErrer`` methods the authors called (one per perturbation of the same name)."""

_GLOBAL_RANDOM = threading.Lock()
_PACKAGE_ERRORS = (KeyError, IndexError, ValueError)


def typo_package(text: str, method: str) -> str:
    """``typo.StrErrer(text, seed=42).<method>().result``, Python's global ``random`` untouched.

    The package seeds and draws from the global ``random`` module; its state is saved before and
    restored after the call. An error inside the package returns ``text`` (the authors' fallback).
    """
    if method not in PACKAGE_METHODS:
        raise ValueError(f"unknown typo method {method!r}; known: {', '.join(PACKAGE_METHODS)}")
    with _GLOBAL_RANDOM:
        state = random.getstate()
        try:
            return getattr(typo.StrErrer(text, seed=REFERENCE_SEED), method)().result
        except _PACKAGE_ERRORS:
            return text
        finally:
            random.setstate(state)


def reference_letter_change(
    text: str,
    rng: np.random.Generator | None = None,
    probability: float = LETTER_CHANGE_PROBABILITY,
) -> str:
    """The authors' ``probability_based_letter_change`` with a private ``random.Random(42)``.

    Per word: ``random() <= probability``, then ``choice(range(len(word)))`` and
    ``choice(ascii_letters)``. A drawn empty word returns ``text`` (the reference raised there).
    ``rng`` is unused.
    """
    draws = random.Random(REFERENCE_SEED)
    words = text.split(" ")
    for k, word in enumerate(words):
        if draws.random() <= probability:
            if not word:
                return text
            index = draws.choice(range(len(word)))
            words[k] = _replace_char(word, index, draws.choice(_ASCII_LETTERS))
    return " ".join(words)


def _package_function(method: str) -> TypoFunction:
    def apply(text: str, rng: np.random.Generator | None = None) -> str:
        return typo_package(text, method)

    apply.__name__ = apply.__qualname__ = f"reference_{method}"
    apply.__doc__ = f"``typo.StrErrer(text, seed=42).{method}().result`` (``rng`` unused)."
    return apply


reference_char_swap = _package_function("char_swap")
reference_missing_char = _package_function("missing_char")
reference_extra_char = _package_function("extra_char")
reference_nearby_char = _package_function("nearby_char")


# --- registries ----------------------------------------------------------------------------------

TYPO_PERTURBATIONS: tuple[str, ...] = (
    "char_swap",
    "missing_char",
    "extra_char",
    "nearby_char",
    "probability_based_letter_change",
)
"""The five typo perturbations, in the reference's order (the first four: one error each)."""

TYPO_IMPLS: tuple[str, ...] = ("reference", "vlcomp")
"""``reference``: the authors' code (``typo`` package, seed 42 per caption); ``vlcomp``: ours."""

DEFAULT_TYPO_IMPL = "reference"

REFERENCE_TYPO_FUNCTIONS: dict[str, TypoFunction] = {
    "char_swap": reference_char_swap,
    "missing_char": reference_missing_char,
    "extra_char": reference_extra_char,
    "nearby_char": reference_nearby_char,
    "probability_based_letter_change": reference_letter_change,
}
"""Perturbation name -> the authors' implementation (a fixed function of the caption)."""

VLCOMP_TYPO_FUNCTIONS: dict[str, TypoFunction] = {
    "char_swap": char_swap,
    "missing_char": missing_char,
    "extra_char": extra_char,
    "nearby_char": nearby_char,
    "probability_based_letter_change": probability_based_letter_change,
}
"""Perturbation name -> the independent reimplementation (draws from the given generator)."""


def typo_functions(impl: str = DEFAULT_TYPO_IMPL) -> dict[str, TypoFunction]:
    """Perturbation name -> ``(text, rng) -> str`` for implementation ``impl``."""
    if impl not in TYPO_IMPLS:
        raise ValueError(f"unknown typo_impl {impl!r}; known: {', '.join(TYPO_IMPLS)}")
    return dict(REFERENCE_TYPO_FUNCTIONS if impl == "reference" else VLCOMP_TYPO_FUNCTIONS)


TYPO_FUNCTIONS: dict[str, TypoFunction] = typo_functions()
"""Perturbation name -> ``(text, rng) -> str`` of the default (``reference``) implementation."""
