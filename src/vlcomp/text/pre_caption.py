"""BLIP's ``pre_caption``, which ARO applies to every caption it scores (Order items and the
COCO / Flickr30k retrieval queries, ``dataset_zoo/retrieval.py``).

Steps, in BLIP's order (``data/utils.py``): lower-case; replace each of ``. ! " ( ) * # : ; ~``
by a space (commas, apostrophes, ``?``, ``-`` and ``/`` are kept); replace every run of two or
more whitespace characters by one space (a single tab or newline stays); strip trailing
newlines, then surrounding spaces; keep the first ``max_words`` words split on single spaces.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PUNCT = re.compile(r"([.!\"()*#:;~])")
_MULTI_SPACE = re.compile(r"\s{2,}")

ARO_MAX_WORDS = 30
"""ARO's ``max_words`` (``pre_caption(caption, 30)``); BLIP's own default is 50."""

QUERY_PREPROCESS: tuple[str, ...] = ("none", "pre_caption")
"""Values of the retrieval benchmarks' ``query_preprocess`` switch."""


def pre_caption(caption: str, max_words: int = ARO_MAX_WORDS) -> str:
    """Normalise a caption exactly like BLIP/ARO ``pre_caption`` (module docstring)."""
    caption = _PUNCT.sub(" ", caption.lower())
    caption = _MULTI_SPACE.sub(" ", caption)
    caption = caption.rstrip("\n").strip(" ")
    words = caption.split(" ")
    if len(words) > max_words:
        caption = " ".join(words[:max_words])
    return caption


def check_query_preprocess(method: str) -> None:
    """Raise a ValueError unless ``method`` is one of ``QUERY_PREPROCESS``."""
    if method not in QUERY_PREPROCESS:
        raise ValueError(f"unknown query_preprocess {method!r}; "
                         f"known: {', '.join(QUERY_PREPROCESS)}")


def preprocess_texts(texts: Iterable[str], method: str) -> list[str]:
    """``texts`` unchanged (``none``) or each through ``pre_caption(text, 30)``."""
    check_query_preprocess(method)
    if method == "none":
        return [str(t) for t in texts]
    return [pre_caption(str(t), ARO_MAX_WORDS) for t in texts]
