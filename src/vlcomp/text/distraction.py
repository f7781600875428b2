"""Distraction perturbations of Hendriksen et al.'s ITR brittleness study.

Reimplements ``distraction_based.py`` of the reference code.

Each appends a tautology: ``text.strip('.') + ' ' + phrase + '.'``.

- ``distraction_true`` uses ``"and true is true"``. The reference code has the literal
  ``'and true it true'`` ("it", a typo); we follow the paper's wording "is", so the two variants
  are parallel. Results therefore differ from the reference code for this perturbation.
- ``distraction_false`` uses ``"and false is false"`` (same as the reference).

``str.strip('.')`` semantics are kept on purpose: only leading/trailing dots are removed, so a
final period followed by a space (``"A dog. "``) or any other final punctuation (``"A dog!"``)
stays in place, exactly as in the reference.

Both functions take an unused ``rng`` so every caption perturbation shares the signature
``(text, rng) -> str``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

DISTRACTION_TRUE_PHRASE = "and true is true"
"""Appended by ``distraction_true`` (paper wording; the reference code says "and true it true")."""

DISTRACTION_FALSE_PHRASE = "and false is false"
"""Appended by ``distraction_false``."""


def _append(text: str, phrase: str) -> str:
    return text.strip(".") + " " + phrase + "."


def distraction_true(text: str, rng: np.random.Generator | None = None) -> str:
    """``text.strip('.') + ' and true is true.'``; ``rng`` is unused."""
    return _append(text, DISTRACTION_TRUE_PHRASE)


def distraction_false(text: str, rng: np.random.Generator | None = None) -> str:
    """``text.strip('.') + ' and false is false.'``; ``rng`` is unused."""
    return _append(text, DISTRACTION_FALSE_PHRASE)


DISTRACTION_PERTURBATIONS: tuple[str, ...] = ("distraction_true", "distraction_false")
"""The two distraction perturbations."""

DISTRACTION_FUNCTIONS: dict[str, Callable[[str, np.random.Generator], str]] = {
    "distraction_true": distraction_true,
    "distraction_false": distraction_false,
}
"""Perturbation name -> ``(text, rng) -> str``."""
