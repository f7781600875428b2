"""A blind, text-only baseline: an interpolated Kneser-Ney bigram language model of captions.

Trained on a caption dataset's training split, it scores each option text by its mean
per-token log-probability (the end of the sentence included), without looking at any image.
A choice benchmark whose positives it picks far above chance can be solved from the texts
alone (SugarCrepe's motivation; VisualGPTScore Table 2's blind priors).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

import numpy as np

WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
START, END = "<s>", "</s>"


def words(text: str) -> list[str]:
    """Lower-cased word tokens of a caption."""
    return WORD.findall(text.lower())


class BigramLM:
    """Interpolated Kneser-Ney bigram model (absolute ``discount``), its continuation
    distribution mixed with a uniform one (``uniform`` weight) so unseen words keep a
    probability."""

    def __init__(self, sentences: Iterable[str], discount: float = 0.75,
                 uniform: float = 0.01) -> None:
        if not 0 < discount < 1 or not 0 < uniform < 1:
            raise ValueError(f"discount and uniform must be in (0, 1): {discount}, {uniform}")
        self.discount, self.uniform = discount, uniform
        bigrams: Counter[tuple[str, str]] = Counter()
        n_sentences = 0
        for sentence in sentences:
            tokens = [START, *words(sentence), END]
            bigrams.update(itertools.pairwise(tokens))
            n_sentences += 1
        if not bigrams:
            raise ValueError("no training sentences for the bigram model")
        self.bigrams = bigrams
        self.context: Counter[str] = Counter()
        followers: defaultdict[str, int] = defaultdict(int)
        preceders: Counter[str] = Counter()
        for (u, w), c in bigrams.items():
            self.context[u] += c
            followers[u] += 1
            preceders[w] += 1
        self.followers = dict(followers)
        self.preceders = preceders
        self.types = len(bigrams)
        self.vocabulary = len(preceders) + 1  # the words seen, and one for any unseen word
        self.sentences = n_sentences

    def continuation(self, w: str) -> float:
        kn = self.preceders.get(w, 0) / self.types
        return (1 - self.uniform) * kn + self.uniform / self.vocabulary

    def probability(self, u: str, w: str) -> float:
        """P(w | u)."""
        total = self.context.get(u, 0)
        if not total:
            return self.continuation(w)
        seen = max(self.bigrams.get((u, w), 0) - self.discount, 0.0) / total
        backoff = self.discount * self.followers[u] / total
        return seen + backoff * self.continuation(w)

    def mean_log_probability(self, text: str) -> float:
        """Mean log P over the text's tokens and the end of sentence."""
        tokens = [START, *words(text), END]
        logs = [math.log(self.probability(u, w)) for u, w in itertools.pairwise(tokens)]
        return float(np.mean(logs))

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """`mean_log_probability` of each text."""
        return np.array([self.mean_log_probability(t) for t in texts], dtype=np.float64)
