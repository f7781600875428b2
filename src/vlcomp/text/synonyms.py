"""Synonym perturbations of Hendriksen et al.'s ITR brittleness study (``synonym_based.py`` there).

Reference behaviour, kept exactly (``synonym_noun`` / ``synonym_adj``):

- tokenize the caption with ``nltk.word_tokenize`` and POS-tag the tokens;
- walk the tokens left to right; each token tagged ``NN``/``NNS``/``NNP``/``NNPS`` (``JJ``/``JJR``/
  ``JJS`` for the adjective variant) that has at least one WordNet synonym is replaced by its first
  synonym, until ``k`` tokens have been replaced (the reference has ``k = 1`` only);
- the synonyms of ``w`` are the lemma names of ``wordnet.synsets(w)`` with **no POS filter**, synset
  by synset and lemma by lemma, keeping names with ``name.lower() != w.lower()``, ``_`` -> space.
  Without a POS filter an adjective can get a noun lemma ("red" -> "redness", WordNet 3.0);
- the output is ``' '.join(tokens)``, so punctuation becomes a separate word ("... horse .").

Example (WordNet 3.0): ``"A man riding a horse."`` -> ``"A adult male riding a horse ."``.

Deviations, all forced by working offline or deliberate:

- Tokens come from ``vlcomp.text.nlp.word_tokenize`` (the tokenizer ``nltk.word_tokenize`` applies
  to each sentence; identical for one-sentence captions).
- POS tags come from the spaCy tagger's PTB tags (``token.tag_``) instead of ``nltk.pos_tag``,
  whose model cannot be installed offline. To keep one tag per word token, spaCy tags the
  pre-tokenized words: ``nlp(Doc(nlp.vocab, words=tokens))`` runs the pipeline's components on a
  ``Doc`` built from the ``word_tokenize`` tokens (``tag_words``). (``vlcomp.text.order`` needs no
  alignment: its spaCy perturbations permute spaCy's own tokens.) Tags can differ from NLTK's, so
  a different token may be picked for some captions. How often cannot be measured offline: the
  perceptron tagger's data is neither on PyPI nor in Debian. (For scale: spaCy's tags of the
  ``word_tokenize`` tokens and of its own tokens of the raw caption differ on 0.25 % of tokens,
  1.6 % of captions in noun/adjective/other class, on SugarCrepe's 4,345 COCO captions.)
- WordNet is the offline 3.0 folder of ``vlcomp.text.wordnet`` (same data as NLTK's download).
- The reference silently fell back to the original caption when a perturbation raised; here
  errors propagate. "No qualifying token" is reported (``Perturbed.changed``), not an error.

Tagging runs once per caption (``tag_caption``/``tag_captions`` give a ``TaggedCaption``) and the
result can be passed to every perturbation and seed. The perturbation is deterministic; the
``rng`` argument exists only so all caption perturbations share the ``(text, rng)`` signature.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple

from spacy.tokens import Doc

from vlcomp.text.nlp import word_tokenize
from vlcomp.text.order import ADJ_TAGS, NOUN_TAGS

if TYPE_CHECKING:
    import numpy as np
    import spacy

    from vlcomp.text.wordnet import OfflineWordNetReader

SynonymKind = Literal["noun", "adj"]

SYNONYM_TAGS: dict[str, frozenset[str]] = {"noun": NOUN_TAGS, "adj": ADJ_TAGS}
"""PTB tags whose tokens each synonym perturbation may replace."""


class Perturbed(NamedTuple):
    """A perturbed caption and whether the perturbation applied (False: left as it was)."""

    text: str
    changed: bool


@dataclass(frozen=True)
class TaggedCaption:
    """A caption's ``word_tokenize`` tokens and one spaCy PTB tag per token."""

    text: str
    tokens: tuple[str, ...]
    tags: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.tokens) != len(self.tags):
            raise ValueError(f"got {len(self.tokens)} tokens but {len(self.tags)} tags")


def _words_doc(nlp: spacy.Language, words: Sequence[str]) -> Doc:
    return Doc(nlp.vocab, words=list(words))


def tag_words(words: Sequence[str], nlp: spacy.Language) -> list[str]:
    """PTB tags (``token.tag_``) for already tokenized ``words``, one per word."""
    return [tok.tag_ for tok in nlp(_words_doc(nlp, words))]


def tag_caption(text: str, nlp: spacy.Language) -> TaggedCaption:
    """Tokenize ``text`` with ``word_tokenize`` and tag the tokens with spaCy."""
    tokens = word_tokenize(text)
    return TaggedCaption(text, tuple(tokens), tuple(tag_words(tokens, nlp)))


def tag_captions(
    texts: Iterable[str], nlp: spacy.Language, batch_size: int = 256
) -> Iterator[TaggedCaption]:
    """``tag_caption`` for many captions, batched through ``nlp.pipe`` (same tags)."""
    texts = list(texts)
    token_lists = [word_tokenize(text) for text in texts]
    docs = nlp.pipe((_words_doc(nlp, words) for words in token_lists), batch_size=batch_size)
    for text, tokens, doc in zip(texts, token_lists, docs, strict=True):
        yield TaggedCaption(text, tuple(tokens), tuple(tok.tag_ for tok in doc))


def tag_raw_captions(
    texts: Iterable[str], nlp: spacy.Language, batch_size: int = 256
) -> Iterator[TaggedCaption]:
    """spaCy's own tokens of each raw caption with their PTB tags (what ARO's and Hendriksen's
    noun/adjective shuffles permute), batched through ``nlp.pipe``."""
    texts = list(texts)
    for text, doc in zip(texts, nlp.pipe(texts, batch_size=batch_size), strict=True):
        yield TaggedCaption(text, tuple(tok.text for tok in doc), tuple(tok.tag_ for tok in doc))


def get_synonyms(word: str, wordnet: OfflineWordNetReader) -> list[str]:
    """Hendriksen's ``get_synonyms``: WordNet lemma names of ``word`` other than ``word`` itself.

    All synsets of ``word`` (no POS filter; NLTK applies ``morphy``, so "horses" finds horse's
    synsets), lemmas in order, names with ``name.lower() != word.lower()``, ``_`` replaced by a
    space, without duplicates. (The reference's duplicate check compared the raw name with the
    already converted ones, so it could repeat multi-word names; only the first synonym is ever
    used, and it is the same.)
    """
    out: list[str] = []
    for synset in wordnet.synsets(word):
        for lemma in synset.lemmas():
            name = lemma.name()
            if name.lower() != word.lower():
                name = name.replace("_", " ")
                if name not in out:
                    out.append(name)
    return out


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k (words to replace) must be a positive integer, got {k!r}")
    return k


def _check_kind(kind: str) -> frozenset[str]:
    if kind not in SYNONYM_TAGS:
        raise ValueError(f"unknown synonym perturbation {kind!r}; known: {sorted(SYNONYM_TAGS)}")
    return SYNONYM_TAGS[kind]


class SynonymPerturber:
    """Hendriksen's synonym perturbations bound to a spaCy tagger and a WordNet reader.

    ``noun``/``adj`` take a raw caption (tagged here) or a ``TaggedCaption`` (tagged once by the
    caller and reused) and return the perturbed string; ``perturb`` also says whether a token was
    replaced. First synonyms are cached per word. ``k`` words are replaced (the reference: 1).
    """

    def __init__(
        self, nlp: spacy.Language | None, wordnet: OfflineWordNetReader, k: int = 1
    ) -> None:
        self.nlp = nlp
        self.wordnet = wordnet
        self.k = _check_k(k)
        self._first: dict[str, str | None] = {}

    def first_synonym(self, word: str) -> str | None:
        """``get_synonyms(word)[0]``, or None when ``word`` has no synonym (cached)."""
        if word not in self._first:
            synonyms = get_synonyms(word, self.wordnet)
            self._first[word] = synonyms[0] if synonyms else None
        return self._first[word]

    def replacements(
        self, tokens: Sequence[str], tags: Sequence[str], kind: SynonymKind
    ) -> list[tuple[int, str]]:
        """``(position, synonym)`` for the first ``k`` qualifying tokens, left to right."""
        allowed = _check_kind(kind)
        if len(tokens) != len(tags):
            raise ValueError(f"got {len(tokens)} tokens but {len(tags)} tags")
        out: list[tuple[int, str]] = []
        for i, (token, tag) in enumerate(zip(tokens, tags, strict=True)):
            if len(out) == self.k:
                break
            if tag in allowed and (synonym := self.first_synonym(token)) is not None:
                out.append((i, synonym))
        return out

    def tag(self, text: str) -> TaggedCaption:
        """Tokenize and tag ``text`` with this perturber's spaCy pipeline."""
        if self.nlp is None:
            raise ValueError("this SynonymPerturber has no spaCy pipeline: pass a TaggedCaption")
        return tag_caption(text, self.nlp)

    def perturb(self, caption: str | TaggedCaption, kind: SynonymKind) -> Perturbed:
        """Replace the first ``k`` nouns (``kind="noun"``) or adjectives (``"adj"``) by synonyms.

        ``changed`` is False when no token qualified; the text is then the tokens joined by
        single spaces, as in the reference.
        """
        tagged = caption if isinstance(caption, TaggedCaption) else self.tag(caption)
        tokens = list(tagged.tokens)
        found = self.replacements(tokens, tagged.tags, kind)
        for i, synonym in found:
            tokens[i] = synonym
        return Perturbed(" ".join(tokens), bool(found))

    def noun(self, caption: str | TaggedCaption, rng: np.random.Generator | None = None) -> str:
        """``synonym_noun``: the first ``k`` nouns with a synonym replaced (``rng`` unused)."""
        return self.perturb(caption, "noun").text

    def adj(self, caption: str | TaggedCaption, rng: np.random.Generator | None = None) -> str:
        """``synonym_adj``: the first ``k`` adjectives with a synonym replaced (``rng`` unused)."""
        return self.perturb(caption, "adj").text


def synonym_noun(
    text: str,
    rng: np.random.Generator | None = None,
    *,
    nlp: spacy.Language,
    wordnet: OfflineWordNetReader,
    k: int = 1,
) -> str:
    """Hendriksen's ``synonym_noun`` on one caption (see ``SynonymPerturber`` to reuse tags)."""
    return SynonymPerturber(nlp, wordnet, k).noun(text, rng)


def synonym_adj(
    text: str,
    rng: np.random.Generator | None = None,
    *,
    nlp: spacy.Language,
    wordnet: OfflineWordNetReader,
    k: int = 1,
) -> str:
    """Hendriksen's ``synonym_adj`` on one caption (see ``SynonymPerturber`` to reuse tags)."""
    return SynonymPerturber(nlp, wordnet, k).adj(text, rng)
