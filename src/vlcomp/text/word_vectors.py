"""Caption embeddings from averaged word vectors (BISON's stage 1 image pairing).

Two sources, both offline:

* ``word2vec``: gensim CBOW vectors trained on the training captions. Deterministic: one
  worker thread and a stable hash (Python's ``hash`` is salted per process) for the initial
  vectors, so two runs give identical vectors.
* ``clip_tokens``: the token-embedding table of a trained CLIP; a text's vector is the mean
  of its BPE tokens' rows (start/end tokens excluded).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

_WORD = re.compile(r"[a-z]+")


def words(text: str) -> list[str]:
    """Lower-cased alphabetic words of a caption."""
    return _WORD.findall(text.lower())


def stable_hash(text: str) -> int:
    """A process-independent 63-bit hash (gensim seeds each word's initial vector with it)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little") >> 1


@dataclass
class WordVectors:
    """A vocabulary and its vectors (one row per word)."""

    vocab: dict[str, int]
    vectors: np.ndarray

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Mean vector of each text's known words (zeros when none is known)."""
        out = np.zeros((len(texts), self.vectors.shape[1]), dtype=np.float32)
        for i, text in enumerate(texts):
            rows = [self.vocab[w] for w in words(text) if w in self.vocab]
            if rows:
                out[i] = self.vectors[rows].mean(axis=0)
        return out


def train_word2vec(
    texts: Iterable[str], *, dim: int = 64, window: int = 5, epochs: int = 20,
    min_count: int = 1, seed: int = 0,
) -> WordVectors:
    """gensim Word2Vec (CBOW) on the texts, deterministic for a seed."""
    from gensim.models import Word2Vec

    sentences = [words(t) for t in texts]
    sentences = [s for s in sentences if s]
    if not sentences:
        raise ValueError("word2vec needs at least one caption with words")
    model = Word2Vec(
        sentences, vector_size=dim, window=window, min_count=min_count, workers=1,
        seed=seed, epochs=epochs, hashfxn=stable_hash, sg=0,
    )
    vocab = {w: i for i, w in enumerate(model.wv.index_to_key)}
    return WordVectors(vocab=vocab, vectors=np.asarray(model.wv.vectors, dtype=np.float32))


def clip_token_embedder(
    model: torch.nn.Module, tokenizer: Callable[[list[str]], torch.Tensor]
) -> Callable[[Sequence[str]], np.ndarray]:
    """Text → mean of its BPE token embeddings in ``model.token_embedding`` (no SOT/EOT)."""
    table = model.token_embedding.weight.detach().float().cpu()

    def embed(texts: Sequence[str]) -> np.ndarray:
        tokens = tokenizer(list(texts))
        out = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        for i, row in enumerate(tokens):
            ids = row[row != 0]
            ids = ids[1:-1]  # drop the start and end tokens
            if len(ids):
                out[i] = table[ids].mean(dim=0).numpy()
        return out

    return embed


def image_text_vectors(
    image_ids: Sequence[str], texts_per_image: Sequence[Sequence[str]],
    embed: Callable[[Sequence[str]], np.ndarray],
) -> np.ndarray:
    """Per image, the mean of its captions' vectors (BISON: averaged word embeddings)."""
    if len(image_ids) != len(texts_per_image):
        raise ValueError(f"{len(image_ids)} images but {len(texts_per_image)} caption lists")
    flat = [t for texts in texts_per_image for t in texts]
    vectors = embed(flat)
    out, start = [], 0
    for texts in texts_per_image:
        if not texts:
            raise ValueError("every image needs at least one caption")
        out.append(vectors[start : start + len(texts)].mean(axis=0))
        start += len(texts)
    return np.stack(out).astype(np.float32)
