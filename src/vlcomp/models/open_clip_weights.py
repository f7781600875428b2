"""open_clip's pretrained tags as pinned downloads (torch-free: the Snakefile reads it).

open_clip 3.3.0's registry (``open_clip.pretrained``) gives OpenAI's weights by a URL whose
path carries the file's sha256; other tags live in a hub repository, pinned here by the
entry's ``revision`` (or the download lock file at the first fetch). A test keeps this table
equal to open_clip's registry. A job loads the local file (`local_weights`); it never lets
open_clip download into the home cache.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vlcomp.models.hub import FILE_SUFFIXES, HubRef, local_pretrained, offline

OPENAI = "https://openaipublic.azureedge.net/clip/models"
# hub files open_clip reads for a tag, preferred first
HUB_WEIGHTS = ("open_clip_model.safetensors", "open_clip_pytorch_model.bin")


@dataclass(frozen=True)
class TagWeights:
    """Where one tag's weights come from: a URL with its sha256, or a hub repository."""

    url: str | None = None
    sha256: str | None = None
    hf_hub: str | None = None

    @property
    def path(self) -> str | None:
        """The file under ``resources/`` (URL weights), shared by an arch and its
        ``-quickgelu`` twin."""
        if self.url is None:
            return None
        return f"models/open_clip/openai/{self.url.rsplit('/', 1)[1]}"


def _openai(sha256: str, name: str) -> TagWeights:
    return TagWeights(url=f"{OPENAI}/{sha256}/{name}.pt", sha256=sha256)


# (arch without -quickgelu, tag) -> weights
TAGS: dict[tuple[str, str], TagWeights] = {
    ("ViT-B-32", "openai"): _openai(
        "40d365715913c9da98579312b702a82c18be219cc2a73407c4526f58eba950af", "ViT-B-32"),
    ("ViT-B-16", "openai"): _openai(
        "5806e77cd80f8b59890b7e101eabd078d9fb84e6937f9e85e4ecb61988df416f", "ViT-B-16"),
    ("ViT-L-14", "openai"): _openai(
        "b8cca3fd41ae0c99ba7e8951adf17d267cdb84cd88be6f7c2e0eca1737a03836", "ViT-L-14"),
    ("RN50", "openai"): _openai(
        "afeb0e10f9e5a86da6080e35cf09123aca3b358a0c3e3b6c78a7b63bc04b6762", "RN50"),
    ("ViT-B-16", "laion2b_s34b_b88k"): TagWeights(hf_hub="laion/CLIP-ViT-B-16-laion2B-s34B-b88K"),
    ("ViT-B-32", "laion2b_s34b_b79k"): TagWeights(hf_hub="laion/CLIP-ViT-B-32-laion2B-s34B-b79K"),
}


def is_tag(pretrained: Any) -> bool:
    """Whether an open_clip ``pretrained:`` value is a tag (``openai``, ``laion2b_s34b_b79k``)
    rather than a file: a tag has no folder, no file suffix and is no existing file."""
    if not isinstance(pretrained, str) or not pretrained:
        return False
    return ("/" not in pretrained and os.sep not in pretrained and not os.path.isfile(pretrained)
            and not pretrained.lower().endswith(FILE_SUFFIXES))


def base_arch(arch: str) -> str:
    return arch.removesuffix("-quickgelu")


def tag_weights(arch: str, tag: str, where: str = "") -> TagWeights:
    """The pinned source of ``tag``'s weights for ``arch``; an unknown pair is an error
    that says what to do instead."""
    found = TAGS.get((base_arch(arch), tag))
    if found is None:
        known = ", ".join(f"{a}/{t}" for a, t in sorted(TAGS))
        raise ValueError(
            f"{where or 'open_clip'}: pretrained tag {tag!r} of {arch!r} has no pinned source "
            f"here (known: {known}). Download its file and give `pretrained:` its path, or add "
            "it to vlcomp.models.open_clip_weights.TAGS")
    return found


def hub_ref(arch: str, tag: str, revision: str | None = None, where: str = "") -> HubRef | None:
    """The hub snapshot a hub-hosted tag is fetched as (None for URL weights)."""
    weights = tag_weights(arch, tag, where)
    if weights.hf_hub is None:
        return None
    return HubRef(weights.hf_hub, revision, patterns=(*HUB_WEIGHTS, "*.json"), where=where)


def local_weights(arch: str, tag: str, revision: str | None = None,
                  root: str = "resources") -> str | None:
    """The local file of a tag's weights, once fetched (a hub snapshot found and checked
    against ``revision`` by `local_pretrained`); offline, a missing file is an error naming
    it; online (a library user) None lets open_clip download."""
    weights = tag_weights(arch, tag)
    if weights.path is not None:
        candidates = [Path(root) / weights.path]
    else:
        folder = local_pretrained(weights.hf_hub or "", revision)
        if folder == weights.hf_hub:  # online, nothing fetched: open_clip downloads
            return None
        candidates = [Path(folder) / name for name in HUB_WEIGHTS]
    for path in candidates:
        if path.is_file():
            return str(path)
    if offline():
        raise FileNotFoundError(
            f"open_clip {arch} / {tag}: {candidates[0]} is not materialised and this job may "
            "not download (HF_HUB_OFFLINE). Fetch the configuration's downloads first, where "
            "the network is reachable: bash scripts/fetch.sh --configfile ...")
    return None
