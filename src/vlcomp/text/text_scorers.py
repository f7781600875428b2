"""Text-only scorers of captions: plausibility and acceptability, each a probability.

BiVLC scores TROHN-Img's caption pairs with Vera (plausibility) and a CoLA classifier
(acceptability) and keeps negatives that text-only models cannot tell from positives. In the
world the same two roles are played by

* `BigramPlausibility`: an add-k smoothed bigram language model of the training captions;
  a caption's score is its geometric-mean token probability. It is exactly the kind of
  text prior that makes hard negatives guessable without the image.
* `GrammarAcceptability`: 1 if the caption is in the world's grammar, else 0 (world
  negatives are fluent by construction, so it is 1 for all of them).

Real-model scorers live in `vlcomp.text.hf_text_scorers` (Vera, CoLA).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import Any, Protocol

import numpy as np

from vlcomp.world.grammar import CaptionParseError, CaptionParser

BOS, EOS = "<s>", "</s>"


class TextScorer(Protocol):
    name: str

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """One probability-like score in [0, 1] per text, in input order."""
        ...


def words(text: str) -> list[str]:
    """Lower-case word and punctuation tokens."""
    return re.findall(r"[a-z0-9]+|[^\sa-z0-9]", text.lower())


class BigramPlausibility:
    """Add-k smoothed bigram LM; score = exp(mean log P(w_i | w_{i-1})) over words + end."""

    name = "bigram"

    def __init__(self, corpus: Iterable[str], k: float = 0.1) -> None:
        if k <= 0:
            raise ValueError(f"smoothing k must be > 0, got {k}")
        self.k = k
        self.unigrams: Counter[str] = Counter()
        self.bigrams: Counter[tuple[str, str]] = Counter()
        for text in corpus:
            toks = [BOS, *words(text), EOS]
            self.unigrams.update(toks[:-1])
            self.bigrams.update(pairwise(toks))
        if not self.unigrams:
            raise ValueError("the bigram model needs a non-empty corpus")
        self.vocab = len({w for pair in self.bigrams for w in pair}) + 1  # + unknown

    def log_prob(self, text: str) -> float:
        toks = [BOS, *words(text), EOS]
        total = 0.0
        for prev, cur in pairwise(toks):
            num = self.bigrams[(prev, cur)] + self.k
            total += math.log(num / (self.unigrams[prev] + self.k * self.vocab))
        return total / (len(toks) - 1)

    def score(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([math.exp(self.log_prob(t)) for t in texts], dtype=np.float64)


class GrammarAcceptability:
    """1.0 for captions the world's grammar parses, 0.0 otherwise."""

    name = "grammar"

    def __init__(self, parser: CaptionParser) -> None:
        self.parser = parser

    def _ok(self, text: str) -> float:
        try:
            self.parser.parse(text)
        except CaptionParseError:
            return 0.0
        return 1.0

    def score(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self._ok(t) for t in texts], dtype=np.float64)


def build_text_scorer(
    options: dict[str, Any], corpus: Sequence[str] | None = None,
    parser: CaptionParser | None = None, device: str = "cpu",
) -> TextScorer:
    """A scorer from config: ``{kind: bigram|grammar|vera|cola, ...}``."""
    kind = options.get("kind")
    if kind == "bigram":
        if corpus is None:
            raise ValueError("scorer 'bigram' needs the training captions")
        return BigramPlausibility(corpus, float(options.get("k", 0.1)))
    if kind == "grammar":
        if parser is None:
            raise ValueError("scorer 'grammar' needs the world's caption parser")
        return GrammarAcceptability(parser)
    from vlcomp.text.hf_text_scorers import HF_TEXT_SCORERS

    if kind in HF_TEXT_SCORERS:
        kwargs = {k: v for k, v in options.items() if k != "kind"}
        return HF_TEXT_SCORERS[kind](device=device, **kwargs)
    known = ["bigram", "grammar", *HF_TEXT_SCORERS]
    raise ValueError(f"unknown text scorer kind {kind!r}; known: {known}")
