"""The source list: every source can be obtained somehow, paths are unique and relative."""

from __future__ import annotations

from urllib.parse import urlparse

from vlcomp.data.sources import SOURCES, SUGARCREPE_SUBSETS, remote_files
from vlcomp.data.sugarcrepe import SUBSETS


def test_every_source_says_how_to_get_it():
    for source in SOURCES.values():
        assert source.files or source.hub_id or source.manual, source.name
        for f in source.files:
            assert not f.path.startswith("/") and ".." not in f.path, f.path
            assert f.url is None or urlparse(f.url).scheme in ("http", "https"), f.url
            assert f.sha256 is None or len(f.sha256) == 64


def test_paths_are_unique_and_cover_the_loaders():
    files = remote_files()
    assert sorted(SUGARCREPE_SUBSETS) == sorted(SUBSETS)
    assert {f"sugarcrepe/{s}.json" for s in SUBSETS} <= set(files)
    assert {"aro/visual_genome_relation.json", "aro/visual_genome_attribution.json",
            "karpathy/coco_karpathy_test.json", "karpathy/flickr30k_test.json"} <= set(files)
    assert SOURCES["bivlc"].hub_id == "imirandam/BiVLC"
    assert "forms.illinois.edu" in SOURCES["flickr30k_images"].manual
