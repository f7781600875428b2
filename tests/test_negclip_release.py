"""NegCLIP's released TSVs (the real valid file from ../shared/data) as negatives and pairs."""

from __future__ import annotations

import collections

import pandas as pd
import pytest

from vlcomp.data.negclip_release import read_negclip_tsv, release_tables

from .conftest import SHARED_DATA

VALID = SHARED_DATA / "aro" / "valid_neg_clip.tsv"


def _dataset_captions(release: pd.DataFrame) -> pd.DataFrame:
    """A Karpathy-like caption table holding each released title among other captions."""
    rows = []
    for stem, title in zip(release.filepath.str.rsplit("/", n=1).str[1].str[:-4], release.title,
                           strict=True):
        rows += [(f"{stem}#0", stem, f"another caption of {stem}"), (f"{stem}#1", stem, title)]
    return pd.DataFrame(rows, columns=["caption_id", "image_id", "text"])


def test_the_released_valid_file_reads_as_documented():
    release = read_negclip_tsv(VALID)
    assert len(release) == 4839 and release.filepath.is_unique
    assert release.filepath.str.startswith("coco/val2014/COCO_val2014_").all()
    assert (release.neg_image.map(len) == 3).all()
    assert not any(row in js for row, js in zip(release.index, release.neg_image, strict=True))
    counts = collections.Counter(release.neg_caption.map(len))
    assert counts == {1: 2891, 2: 1418, 3: 480, 4: 47, 5: 3}
    assert release.loc[0, "neg_image"] == [2973, 1515, 2235]


def test_release_tables_map_rows_to_captions_and_row_indices_to_images():
    release = read_negclip_tsv(VALID)
    captions = _dataset_captions(release)
    tables = release_tables(release, captions, "valid")
    assert len(tables.negatives) == len(release) and tables.unmatched.empty
    assert tables.negatives.caption_id.str.endswith("#1").all()
    first = tables.pairs.iloc[0]
    assert first.image_id == "COCO_val2014_000000184613"
    assert first.neighbour_ids == [release.filepath[j].split("/")[-1][:-4]
                                   for j in (2973, 1515, 2235)]
    assert tables.negatives.negatives[0] == [
        "A umbrella holding a flowered child and petting a yak .",
        "A child petting a flowered umbrella and holding a yak ."]
    # titles that differ only in spacing, case or a final period still match
    loose = captions.assign(text=captions.text.str.upper().str.rstrip(".") + "  ")
    assert release_tables(release, loose, "valid").unmatched.empty


def test_unmatched_rows_are_an_error_naming_them(tmp_path):
    release = read_negclip_tsv(VALID)
    captions = _dataset_captions(release).iloc[:2000]
    with pytest.raises(ValueError, match=r"valid: \d+ of 4839 released rows match no caption.*"
                                         r"row \d+ \(coco/val2014/"):
        release_tables(release, captions, "valid")
    bad = tmp_path / "bad.tsv"
    bad.write_text("\ttitle\tfilepath\tneg_caption\tneg_image\n0\ta\tx.jpg\t['b']\t[7]\n")
    with pytest.raises(ValueError, match=r"bad\.tsv: neg_image names rows .* \[7\]"):
        read_negclip_tsv(bad)
    bad.write_text("\ttitle\tfilepath\tneg_caption\tneg_image\n0\ta\tx.jpg\tnot a list\t[0]\n")
    with pytest.raises(ValueError, match=r"bad\.tsv: row 0: neg_caption is not a list"):
        read_negclip_tsv(bad)
