"""Fine-grained (FG) captions of Chen et al. (SIGIR'23), as Hendriksen et al. use them.

``MSCOCO_FG_ann.json`` / ``Flickr30K_FG_ann.json`` map a file stem to five captions; they
replace an image's Karpathy captions *in order* (``zip(aug_captions, sentids)``). Only the
captions change, never the images.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd


def substitute_fg(captions: pd.DataFrame, fg_path: str | Path) -> pd.DataFrame:
    """``captions`` (``caption_id = {image_id}#{k}``) with each text replaced by the FG caption
    at the same position; images absent from the FG file are an error naming one."""
    path = Path(fg_path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: download the FG annotations "
                                "(config/README.md)")
    fg = json.loads(path.read_text(encoding="utf-8"))
    position = captions.caption_id.str.rsplit("#", n=1).str[1].astype(int)
    out = captions.copy()
    texts = []
    for image_id, k in zip(captions.image_id, position, strict=True):
        replacement = fg.get(str(image_id))
        if replacement is None:
            raise ValueError(f"{path}: no FG captions for image {image_id!r}")
        if k >= len(replacement):
            raise ValueError(f"{path}: image {image_id!r} has {len(replacement)} FG captions, "
                             f"caption #{k} has none")
        texts.append(str(replacement[k]))
    out["text"] = texts
    return out
