"""One-error typo perturbations of Hendriksen et al.'s ITR brittleness study (``typos.py`` there).

The reference applied exactly one error per caption through the ``typo`` PyPI package
(``typo.StrErrer(caption, seed=42)``). This is an independent reimplementation of the same four
perturbations (the package is neither used nor copied):

- ``char_swap``: swap one adjacent pair ``s[i]s[i+1]`` where both are ``\\w``; the case pattern of
  the two positions is kept (``"Ab"`` -> ``"Ba"``). A pair of equal letters (``"oo"``) is a valid
  pick, as in the reference, and then leaves the text unchanged.
- ``missing_char``: delete one ``\\w`` character, only if the text has at least 2 of them.
- ``extra_char``: insert a keyboard neighbour of one ``\\w`` character *before* it (the neighbour
  takes that character's case).
- ``nearby_char``: replace one ``\\w`` character by a keyboard neighbour, keeping its case.

Candidate positions are ``\\w`` regex matches (letters, digits, ``_``, including non-ASCII
letters). ``extra_char``/``nearby_char`` can only use characters that have keyboard neighbours
(ASCII letters and digits, see ``QWERTY_NEIGHBOURS``). When no valid position exists the text is
returned unchanged; the caller records ``changed=False``.

Randomness: every function takes an explicit ``numpy.random.Generator`` and draws the position
first, then (for ``extra_char``/``nearby_char``) the neighbour. Seed one generator per caption with
``vlcomp.seeding.stable_rng`` so results do not depend on processing order. Exact strings cannot
match the reference (it used Python's ``random`` seeded with 42 and the package's own layout).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

_WORD = re.compile(r"\w")
_T = TypeVar("_T")

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


TYPO_PERTURBATIONS: tuple[str, ...] = ("char_swap", "missing_char", "extra_char", "nearby_char")
"""The four one-error typo perturbations, in the reference's order."""

TYPO_FUNCTIONS: dict[str, Callable[[str, np.random.Generator], str]] = {
    "char_swap": char_swap,
    "missing_char": missing_char,
    "extra_char": extra_char,
    "nearby_char": nearby_char,
}
"""Perturbation name -> ``(text, rng) -> str``."""
