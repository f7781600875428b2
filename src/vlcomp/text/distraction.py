"""Distraction perturbations of Hendriksen et al.'s ITR brittleness study.

Reproduces ``distraction_based.py`` of the authors' code: each perturbation appends a tautology,
``text.strip('.') + ' ' + phrase + '.'``.

- ``distraction_true`` appends ``"and true it true"`` by default: the authors' code literal ("it",
  a typo for "is"), so outputs match their released perturbed captions. ``wording="paper"`` (config
  ``distraction_wording: paper``) uses the paper's wording ``"and true is true"`` instead, which
  parallels ``distraction_false``.
- ``distraction_false`` appends ``"and false is false"`` (code and paper agree).

``str.strip('.')`` semantics are kept on purpose: leading and trailing dots are removed, so a
final period followed by a space (``"A dog. "``) or any other final punctuation (``"A dog!"``)
stays in place, exactly as in the reference; the result always ends with ``"."``.

Both functions take an unused ``rng`` so every caption perturbation shares the signature
``(text, rng) -> str``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

DISTRACTION_TRUE_PHRASE = "and true it true"
"""Appended by ``distraction_true`` by default (the authors' code literal, sic)."""

PAPER_DISTRACTION_TRUE_PHRASE = "and true is true"
"""Appended by ``distraction_true`` with ``wording="paper"`` (the paper's wording)."""

DISTRACTION_FALSE_PHRASE = "and false is false"
"""Appended by ``distraction_false``."""

DISTRACTION_WORDINGS: dict[str, str] = {
    "code": DISTRACTION_TRUE_PHRASE,
    "paper": PAPER_DISTRACTION_TRUE_PHRASE,
}
"""``distraction_wording`` -> the phrase ``distraction_true`` appends."""

DEFAULT_DISTRACTION_WORDING = "code"


def _true_phrase(wording: str) -> str:
    if wording not in DISTRACTION_WORDINGS:
        known = ", ".join(DISTRACTION_WORDINGS)
        raise ValueError(f"unknown distraction_wording {wording!r}; known: {known}")
    return DISTRACTION_WORDINGS[wording]


def _append(text: str, phrase: str) -> str:
    return text.strip(".") + " " + phrase + "."


def distraction_true(
    text: str,
    rng: np.random.Generator | None = None,
    *,
    wording: str = DEFAULT_DISTRACTION_WORDING,
) -> str:
    """``text.strip('.') + ' and true it true.'`` (``wording="paper"``: ``is``); ``rng`` unused."""
    return _append(text, _true_phrase(wording))


def distraction_false(text: str, rng: np.random.Generator | None = None) -> str:
    """``text.strip('.') + ' and false is false.'``; ``rng`` is unused."""
    return _append(text, DISTRACTION_FALSE_PHRASE)


DISTRACTION_PERTURBATIONS: tuple[str, ...] = ("distraction_true", "distraction_false")
"""The two distraction perturbations."""


def distraction_functions(
    wording: str = DEFAULT_DISTRACTION_WORDING,
) -> dict[str, Callable[[str, np.random.Generator], str]]:
    """Perturbation name -> ``(text, rng) -> str``, ``distraction_true`` in ``wording``."""
    phrase = _true_phrase(wording)
    return {
        "distraction_true": lambda text, rng=None: _append(text, phrase),
        "distraction_false": distraction_false,
    }


DISTRACTION_FUNCTIONS: dict[str, Callable[[str, np.random.Generator], str]] = {
    "distraction_true": distraction_true,
    "distraction_false": distraction_false,
}
"""Perturbation name -> ``(text, rng) -> str`` with the default (code) wording."""
