"""vlcomp.io: readers name the bad file; writers never leave a half-written target."""

from __future__ import annotations

import os

import pandas as pd
import pytest
from PIL import Image

from vlcomp.io import InputFileError, open_rgb, read_parquet, write_parquet


def truncate(path, keep: float = 0.5) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])


def test_read_parquet_round_trip(tmp_path):
    df = pd.DataFrame({"a": [1, 2, 3], "b": list("xyz")})
    write_parquet(df, tmp_path / "t.parquet")
    pd.testing.assert_frame_equal(read_parquet(tmp_path / "t.parquet"), df)
    assert list(read_parquet(tmp_path / "t.parquet", columns=["b"]).columns) == ["b"]


def test_truncated_parquet_names_the_file(tmp_path):
    path = tmp_path / "items.parquet"
    write_parquet(pd.DataFrame({"a": range(1000)}), path)
    truncate(path)
    with pytest.raises(InputFileError, match=r"cannot read Parquet file .*items\.parquet"):
        read_parquet(path)


def test_missing_parquet_is_not_called_corrupt(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_parquet(tmp_path / "absent.parquet")


@pytest.mark.parametrize("damage", ["truncate", "garbage"])
def test_corrupt_image_names_the_file(tmp_path, damage):
    path = tmp_path / "img.png"
    Image.effect_noise((64, 64), 50).convert("RGB").save(path)
    if damage == "truncate":
        truncate(path)
    else:
        path.write_bytes(b"not an image" * 10)
    with pytest.raises(InputFileError, match=r"cannot read image .*img\.png"):
        open_rgb(path)


def test_open_rgb_loads_and_converts(tmp_path):
    Image.new("L", (5, 4), 7).save(tmp_path / "g.png")
    img = open_rgb(tmp_path / "g.png")
    assert img.mode == "RGB" and img.size == (5, 4) and img.getpixel((0, 0)) == (7, 7, 7)


def test_a_failed_write_leaves_no_target_and_no_temporary(tmp_path):
    class Unwritable:
        def to_parquet(self, *args, **kwargs):
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        write_parquet(Unwritable(), tmp_path / "out.parquet")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


def test_prepend_pythonpath_puts_the_folder_first_once(monkeypatch):
    from vlcomp.jobs import prepend_pythonpath

    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(["/a", "/src", "/b"]))
    prepend_pythonpath("/src")
    assert os.environ["PYTHONPATH"] == os.pathsep.join(["/src", "/a", "/b"])
    monkeypatch.delenv("PYTHONPATH")
    prepend_pythonpath("/src")
    assert os.environ["PYTHONPATH"] == "/src"


def test_atomic_writes_get_the_usual_permissions(tmp_path):
    import os
    import stat

    from vlcomp.io import atomic_path

    mask = os.umask(0o022)
    try:
        with atomic_path(tmp_path / "x.txt") as tmp:
            tmp.write_text("x")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "x.txt").stat().st_mode) == 0o644
