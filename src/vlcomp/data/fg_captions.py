"""Fine-grained (FG) captions of Chen et al. (SIGIR'23), as Hendriksen et al. use them.

``MSCOCO_FG_ann.json`` / ``Flickr30K_FG_ann.json`` map a file stem to exactly five captions;
they replace an image's Karpathy captions *in order* (``zip(aug_captions, sentids)`` in
Hendriksen et al.'s ``update_ds``). COCO's Karpathy test split has 25,010 captions for 5,000
images, so some images have a sixth or seventh caption: ``zip`` stops at five, and those
extra captions keep their original text. Only the captions change, never the images.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd


def substitute_fg(captions: pd.DataFrame, fg_path: str | Path) -> pd.DataFrame:
    """``captions`` (``caption_id = {image_id}#{k}``) with each text replaced by the FG caption
    at the same position, and a boolean ``fg`` column saying which were; captions past the
    FG file's last one keep their text. Images absent from the FG file are an error naming
    one."""
    path = Path(fg_path)
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: download the FG annotations "
                                "(config/README.md)")
    fg = json.loads(path.read_text(encoding="utf-8"))
    position = captions.caption_id.str.rsplit("#", n=1).str[1].astype(int)
    out = captions.copy()
    texts, replaced = [], []
    for image_id, k, text in zip(captions.image_id, position, captions.text, strict=True):
        replacement = fg.get(str(image_id))
        if replacement is None:
            raise ValueError(f"{path}: no FG captions for image {image_id!r}")
        if not isinstance(replacement, list) or not replacement:
            raise ValueError(f"{path}: image {image_id!r}: expected a list of captions")
        replaced.append(k < len(replacement))
        texts.append(str(replacement[k]) if replaced[-1] else text)
    out["text"] = texts
    out["fg"] = replaced
    return out
