"""One interface for text-to-image backends, and the per-prompt seeds they are given."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from PIL import Image

# BiVLC's prompt: the negative caption without periods, plus a quality suffix
# (BiVLC_img_generation.py: ``negative_caption.str.replace(".", "") + SUFFIX``).
BIVLC_PROMPT_SUFFIX = ", high resolution, professional, 4k, highly detailed"


@dataclass
class GeneratedImage:
    """One generated image and what the backend knows about it (world: the drawn scene)."""

    image: Image.Image
    meta: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class TextToImage(Protocol):
    """Generates ``images_per_prompt`` images per caption; the same seed gives the same images."""

    name: str
    images_per_prompt: int

    def prompt(self, caption: str) -> str:
        """The text the generator is actually given for a caption."""
        ...

    def generate(
        self, captions: Sequence[str], seeds: Sequence[int]
    ) -> list[list[GeneratedImage]]:
        """For each caption, its images (in candidate order), drawn from its own seed."""
        ...


def prompt_seed(base_seed: int, key: str) -> int:
    """A 63-bit seed for one prompt from the run's seed and a stable key (e.g. the item id).

    Seeds depend only on (base seed, key), never on batch composition or order, so any
    subset of prompts regenerates the same images.
    """
    digest = hashlib.blake2b(f"{base_seed}\x1f{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def bivlc_prompt(caption: str, suffix: str = BIVLC_PROMPT_SUFFIX) -> str:
    """BiVLC's prompt for a negative caption: every period removed, then the suffix."""
    return caption.replace(".", "") + suffix
