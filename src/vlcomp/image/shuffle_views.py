"""Image shuffles applied where ARO applies them: to each model's preprocessed tensor.

ARO's ``main_retrieval.py`` shuffles rows, columns or patches of the image *after* the
model's ``image_preprocess`` (a 224 × 224 crop for CLIP, 384 × 384 for BLIP and X-VLM), with
``unfold`` / ``fold`` blocks of ``H // n`` pixels, so what the integer division leaves over is
zero in the normalised tensor (224 / 3: the last 2 rows and columns). The same shuffle of the
raw picture before preprocessing (`vlcomp.image.shuffle`) cuts other blocks and fills nothing.

An image set row of a shuffled view keeps its picture's file and names the shuffle in its
path (`view_path`): ``open_image`` opens the file and tags the picture with the shuffle
(``info[SHUFFLE_INFO]``), and each model's pixel step shuffles the tagged pictures' tensors
(`vlcomp.image.tensor_shuffle.shuffled_pixels`). The tag travels with the picture through
every scorer, the pair plans and the de-duplication of pictures by content. This module is
torch-free.
"""

from __future__ import annotations

from dataclasses import dataclass

MARK = "::vlcomp-shuffle::"
SHUFFLE_INFO = "vlcomp_shuffle"
SHUFFLE_MODES = ("preprocessed", "raw")


@dataclass(frozen=True)
class ShuffleSpec:
    """One picture's shuffle: the perturbation, its seed and the picture's id (the three
    seed its permutation)."""

    name: str
    seed: int
    image_id: str

    def key(self) -> str:
        return f"{self.name}{MARK}{self.seed}{MARK}{self.image_id}"


def view_path(path: str, spec: ShuffleSpec) -> str:
    """The path of a picture's shuffled view: its file, and the shuffle after ``MARK``."""
    return f"{path}{MARK}{spec.key()}"


def split_view(path: str) -> tuple[str, ShuffleSpec | None]:
    """A path's file and its shuffle (None for a plain file)."""
    text = str(path)
    if MARK not in text:
        return text, None
    file, name, seed, image_id = text.split(MARK, 3)
    return file, ShuffleSpec(name, int(seed), image_id)


def raw_shuffled(images: list, scorer: object) -> list:
    """The pictures a scorer gets: as tagged, when it shuffles its own preprocessed tensors
    (``shuffles_pixels``: every built-in embedding family), else each tagged picture
    shuffled before it (a user's own family, `vlcomp.image.shuffle`), so no scorer ever sees
    a shuffled view unshuffled."""
    if getattr(scorer, "shuffles_pixels", False):
        return images
    from vlcomp.image.shuffle import IMAGE_PERTURBATIONS
    from vlcomp.seeding import stable_rng

    out = []
    for image in images:
        spec = image.info.get(SHUFFLE_INFO)
        if spec is None:
            out.append(image)
            continue
        rng = stable_rng("image", spec.name, spec.seed, spec.image_id)
        out.append(IMAGE_PERTURBATIONS[spec.name](image, rng))
    return out
