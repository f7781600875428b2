"""ARO COCO-Order / Flickr30k-Order caption perturbations (``TextShuffler`` in the ARO code).

Faithful to the reference behaviour: spaCy perturbations permute spaCy token texts by PTB tag,
trigram perturbations work on ``nltk.word_tokenize`` tokens, results are joined with single spaces,
and ``pre_caption`` runs *after* perturbing the raw caption.

Randomness: the reference drew from the global ``np.random`` (spaCy perturbations) and ``random``
(trigram perturbations) state after ``seed_all(seed)``, so outputs depended on processing order.
Here every function takes an explicit ``numpy.random.Generator``; ``perturb_captions`` seeds one per
(seed, caption id, perturbation) via ``caption_rng``, so results do not depend on order, batching or
parallelism. Exact strings still cannot match the reference (different RNG streams, and the tags
depend on the spaCy model version).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from tqdm import tqdm

from vlcomp.seeding import stable_rng
from vlcomp.text.nlp import word_tokenize
from vlcomp.text.pre_caption import pre_caption

if TYPE_CHECKING:
    import spacy
    from spacy.tokens import Doc

NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS"})
ADJ_TAGS = frozenset({"JJ", "JJR", "JJS"})

PERTURBATIONS: tuple[str, ...] = (
    "shuffle_nouns_and_adj",
    "shuffle_allbut_nouns_and_adj",
    "shuffle_within_trigrams",
    "shuffle_trigrams",
)
"""The 4 perturbations of an ARO Order item, in the reference's option order."""

OUTPUT_COLUMNS = ("caption_id", "perturbation", "original", "perturbed", "changed")

_PROGRESS_MIN_CAPTIONS = 1000


def get_trigrams(tokens: Sequence[str]) -> list[list[str]]:
    """Split tokens into consecutive non-overlapping chunks of 3 (the last may be shorter)."""
    return [list(tokens[i : i + 3]) for i in range(0, len(tokens), 3)]


def _check_aligned(tokens: Sequence[str], tags: Sequence[str]) -> None:
    if len(tokens) != len(tags):
        raise ValueError(f"got {len(tokens)} tokens but {len(tags)} tags")


def _permute_at(tokens: list[str], positions: list[int], rng: np.random.Generator) -> None:
    """Permute, in place, the tokens found at ``positions`` among those positions."""
    values = [tokens[positions[k]] for k in rng.permutation(len(positions))]
    for pos, value in zip(positions, values, strict=True):
        tokens[pos] = value


def shuffle_nouns_and_adj(
    tokens: Sequence[str], tags: Sequence[str], rng: np.random.Generator
) -> str:
    """Shuffle nouns among noun positions, then adjectives among adjective positions.

    ``tokens``/``tags`` are spaCy token texts and PTB tags (``token.tag_``); returns the tokens
    joined by single spaces, so punctuation and clitics become separate words.
    """
    _check_aligned(tokens, tags)
    out = list(tokens)
    _permute_at(out, [i for i, tag in enumerate(tags) if tag in NOUN_TAGS], rng)
    _permute_at(out, [i for i, tag in enumerate(tags) if tag in ADJ_TAGS], rng)
    return " ".join(out)


def shuffle_allbut_nouns_and_adj(
    tokens: Sequence[str], tags: Sequence[str], rng: np.random.Generator
) -> str:
    """Keep nouns and adjectives in place; permute all other tokens over the remaining positions."""
    _check_aligned(tokens, tags)
    keep = NOUN_TAGS | ADJ_TAGS
    out = list(tokens)
    _permute_at(out, [i for i, tag in enumerate(tags) if tag not in keep], rng)
    return " ".join(out)


def shuffle_within_trigrams(tokens: Sequence[str], rng: np.random.Generator) -> str:
    """Shuffle the tokens inside each trigram chunk, keeping the chunk order."""
    shuffled = [chunk[k] for chunk in get_trigrams(tokens) for k in rng.permutation(len(chunk))]
    return " ".join(shuffled)


def shuffle_trigrams(tokens: Sequence[str], rng: np.random.Generator) -> str:
    """Shuffle the order of the trigram chunks, keeping the order inside each chunk."""
    chunks = get_trigrams(tokens)
    return " ".join(" ".join(chunks[k]) for k in rng.permutation(len(chunks)))


def shuffle_all_words(text: str, rng: np.random.Generator) -> str:
    """Permute the single-space-separated words of ``text`` (punctuation stays attached)."""
    words = text.split(" ")
    return " ".join(words[k] for k in rng.permutation(len(words)))


def caption_rng(seed: int, caption_id: str, stream: str = "") -> np.random.Generator:
    """Generator for one caption, seeded from ``(seed, caption_id, stream)``.

    ``stream`` separates independent draws for the same caption (e.g. one per perturbation).
    """
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return stable_rng("order", int(seed), str(caption_id), stream)


@dataclass(frozen=True)
class _Parsed:
    """One raw caption with the token views the perturbations need."""

    text: str
    spacy_tokens: list[str]
    spacy_tags: list[str]
    words: list[str]


_APPLY: dict[str, Callable[[_Parsed, np.random.Generator], str]] = {
    "shuffle_nouns_and_adj": lambda p, rng: shuffle_nouns_and_adj(
        p.spacy_tokens, p.spacy_tags, rng
    ),
    "shuffle_allbut_nouns_and_adj": lambda p, rng: shuffle_allbut_nouns_and_adj(
        p.spacy_tokens, p.spacy_tags, rng
    ),
    "shuffle_within_trigrams": lambda p, rng: shuffle_within_trigrams(p.words, rng),
    "shuffle_trigrams": lambda p, rng: shuffle_trigrams(p.words, rng),
    "shuffle_all_words": lambda p, rng: shuffle_all_words(p.text, rng),
}
_SPACY_PERTURBATIONS = frozenset({"shuffle_nouns_and_adj", "shuffle_allbut_nouns_and_adj"})


def _check_names(perturbations: Iterable[str]) -> tuple[str, ...]:
    names = tuple(perturbations)
    unknown = [name for name in names if name not in _APPLY]
    if unknown:
        raise ValueError(f"unknown perturbations {unknown}; known: {sorted(_APPLY)}")
    return names


def _parse(text: str, doc: Doc | None) -> _Parsed:
    tokens = [] if doc is None else [tok.text for tok in doc]
    tags = [] if doc is None else [tok.tag_ for tok in doc]
    return _Parsed(text, tokens, tags, word_tokenize(text))


def _perturb_one(
    parsed: _Parsed, seed: int, caption_id: str, names: Sequence[str], max_words: int
) -> list[str]:
    """``pre_caption(f(text))`` for each named perturbation ``f``."""
    return [
        pre_caption(_APPLY[name](parsed, caption_rng(seed, caption_id, name)), max_words)
        for name in names
    ]


def order_options(
    text: str,
    nlp: spacy.Language,
    seed: int,
    caption_id: str,
    max_words: int = 30,
) -> list[str]:
    """The 5 caption options of one ARO Order item: ``[original] + 4 perturbed``.

    The original (``pre_caption(text)``) is at index 0; the rest follow ``PERTURBATIONS``.
    Identical to the rows ``perturb_captions`` produces for the same seed and caption id.
    """
    parsed = _parse(text, nlp(text))
    perturbed = _perturb_one(parsed, seed, str(caption_id), PERTURBATIONS, max_words)
    return [pre_caption(text, max_words), *perturbed]


def perturb_captions(
    captions: pd.DataFrame,
    nlp: spacy.Language | None,
    seed: int,
    perturbations: Iterable[str] = PERTURBATIONS,
    *,
    max_words: int = 30,
    batch_size: int = 256,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Perturb every caption; return long rows ``caption_id, perturbation, original, perturbed,
    changed``.

    ``captions`` needs unique ``caption_id`` values and string ``text``. ``original`` is
    ``pre_caption(text)``; ``perturbed`` is ``pre_caption(f(text))``; ``changed`` is
    ``perturbed != original`` (unchanged options tie with the original in ARO scoring). spaCy runs
    once per caption via ``nlp.pipe``; ``nlp`` may be ``None`` if no spaCy perturbation is asked
    for. ``progress=None`` shows a tqdm bar on stderr for 1000+ captions.
    """
    names = _check_names(perturbations)
    missing = {"caption_id", "text"} - set(captions.columns)
    if missing:
        raise ValueError(f"captions is missing columns {sorted(missing)}")
    if captions["caption_id"].duplicated().any():
        raise ValueError("caption_id values must be unique")
    texts = captions["text"].tolist()
    bad = [i for i, text in enumerate(texts) if not isinstance(text, str)]
    if bad:
        raise ValueError(f"text must be strings; first bad row position: {bad[0]}")
    needs_spacy = any(name in _SPACY_PERTURBATIONS for name in names)
    if needs_spacy and nlp is None:
        raise ValueError("a spaCy pipeline is required for the spaCy-based perturbations")

    docs: Iterable[Doc | None] = (
        nlp.pipe(texts, batch_size=batch_size)
        if needs_spacy and nlp is not None
        else (None for _ in texts)
    )
    show = len(texts) >= _PROGRESS_MIN_CAPTIONS if progress is None else progress
    rows: list[tuple[object, str, str, str, bool]] = []
    pairs = zip(captions["caption_id"].tolist(), texts, docs, strict=True)
    for caption_id, text, doc in tqdm(
        pairs, total=len(texts), desc="perturb captions", file=sys.stderr, disable=not show
    ):
        original = pre_caption(text, max_words)
        perturbed = _perturb_one(_parse(text, doc), seed, str(caption_id), names, max_words)
        for name, value in zip(names, perturbed, strict=True):
            rows.append((caption_id, name, original, value, value != original))
    return pd.DataFrame(rows, columns=list(OUTPUT_COLUMNS)).astype({"changed": bool})
