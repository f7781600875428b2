"""BiVLC hub rows -> pair items: fields, categories, images written once as released."""

from __future__ import annotations

import io

import datasets
import numpy as np
import pytest
from PIL import Image

from vlcomp.benchmarks.bivlc import format_caption
from vlcomp.data.bivlc import bivlc_items, undecoded


def _jpeg(colour) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buf, format="JPEG")
    return buf.getvalue()


@pytest.fixture()
def hub_like(tmp_path):
    """A dataset with BiVLC's features, saved and reloaded as the hub cache would be."""
    coco = _jpeg((200, 10, 10))
    rows = {
        "image": [{"bytes": coco, "path": None}, {"bytes": coco, "path": None}],
        "caption": ["A man throwing a ball.", "A red bus."],
        "negative_caption": ["A ball throwing a man.", "A blue bus."],
        "negative_image": [{"bytes": _jpeg((0, 0, 200)), "path": None},
                           {"bytes": _jpeg((0, 200, 0)), "path": None}],
        "type": ["swap", "replace"],
        "subtype": ["obj", "att"],
    }
    features = datasets.Features({
        "image": datasets.Image(), "caption": datasets.Value("string"),
        "negative_caption": datasets.Value("string"), "negative_image": datasets.Image(),
        "type": datasets.Value("string"), "subtype": datasets.Value("string"),
    })
    datasets.Dataset.from_dict(rows, features=features).save_to_disk(tmp_path / "hub")
    return undecoded(datasets.load_from_disk(tmp_path / "hub")), coco


def test_rows_become_pair_items_with_shared_images(hub_like, tmp_path):
    ds, coco = hub_like
    items, images = bivlc_items(ds, tmp_path / "img", expected_rows=2)
    assert list(items.item_id) == ["bivlc-0000", "bivlc-0001"]
    assert list(items.subset) == ["swap_obj", "replace_att"]
    assert (items.protocol == "pair").all() and (items.tie_policy == "strict").all()
    assert items.image_ids[0][0] == items.image_ids[1][0]  # one COCO image, written once
    assert len(images) == 3
    path = images.set_index("image_id").path[items.image_ids[0][0]]
    with open(path, "rb") as fh:
        assert fh.read() == coco  # bytes as released
    with Image.open(images.path[0]) as img:
        assert np.asarray(img).shape == (8, 8, 3)
    assert all(format_caption(t) == t for texts in items.texts for t in texts)


def test_partial_download_and_bad_rows_are_named(hub_like, tmp_path):
    ds, _ = hub_like
    with pytest.raises(ValueError, match="BiVLC has 2 rows, expected 2933"):
        bivlc_items(ds, tmp_path / "a")
    bad = [dict(ds[0], subtype="rel", type="swap")]
    with pytest.raises(ValueError, match="BiVLC row 0: unknown category 'swap'/'rel'"):
        bivlc_items(bad, tmp_path / "b", expected_rows=None)
    with pytest.raises(ValueError, match=r"BiVLC row 0: missing field\(s\) \['negative_image'\]"):
        bivlc_items([{k: v for k, v in ds[0].items() if k != "negative_image"}], tmp_path / "c",
                    expected_rows=None)
