"""A captioner's full score matrix S[image, text] = log P(text | image) over a gallery, for
retrieval (VisualGPTScore Table 4): each image through the vision tower once, its states
reused for every text (`log_likelihood_given_states`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from vlcomp.io import open_rgb
from vlcomp.score.text_prior import log_prior_given_states


def generative_score_matrix(scorer: Any, image_paths: Sequence[str | Path],
                            texts: Sequence[str], batch_size: int = 64,
                            image_chunk: int = 32, desc: str = "score matrix") -> np.ndarray:
    """float64 (n_images, n_texts) of log P(t|i); images are opened and encoded
    ``image_chunk`` at a time (memory stays bounded for large galleries)."""
    out = np.empty((len(image_paths), len(texts)), dtype=np.float64)
    with tqdm(total=len(image_paths), desc=desc, unit="image", mininterval=5) as bar:
        for start in range(0, len(image_paths), image_chunk):
            chunk = image_paths[start : start + image_chunk]
            states = scorer.image_states([open_rgb(p) for p in chunk])
            _, per_image = log_prior_given_states(scorer, states, list(texts), batch_size)
            out[start : start + len(chunk)] = per_image.T
            bar.update(len(chunk))
    return out
