"""Which entry values name files of one's own, and those missing (vlcomp.model_files)."""

from __future__ import annotations

from vlcomp.model_files import missing_own_files, named_files
from vlcomp.models.hub import is_hub_id
from vlcomp.models.open_clip_weights import is_tag
from vlcomp.pins import model_pins


def test_an_open_clip_pretrained_is_a_tag_only_without_folder_or_suffix(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert is_tag("openai") and is_tag("laion2b_s34b_b79k")
    assert not is_tag("my_models/w.pt") and not is_tag("w.pt") and not is_tag("/a/w")
    assert not is_tag("my_models/weights")  # a folder: a path, never a tag
    (tmp_path / "weights").write_bytes(b"")
    assert not is_tag("weights")  # an existing file
    assert not is_tag(None) and not is_tag("")


def test_a_value_ending_like_a_file_is_no_hub_repository():
    assert is_hub_id("Salesforce/blip-itm-base-coco") and is_hub_id("openai")
    assert not is_hub_id("my_models/w.pt") and not is_hub_id("org/model.safetensors")
    assert not is_hub_id("resources/x/y") and not is_hub_id("/abs/path")


def test_named_files_leave_out_hub_ids_and_tags():
    tag = {"family": "open_clip", "arch": "ViT-B-32", "pretrained": "openai"}
    assert named_files("a", tag) == []
    assert named_files("a", {"family": "open_clip", "pretrained": "my_models/w.pt"}) == [
        ("models.a.pretrained", "my_models/w.pt")]
    assert named_files("b", {"family": "hf_blip", "model": "Salesforce/blip-itm-base-coco",
                             "tokenizer": "./tok"}) == [("models.b.tokenizer", "./tok")]
    assert named_files("c", {"family": "python", "files": ["x.pt", "y.json"]}) == [
        ("models.c.files[0]", "x.pt"), ("models.c.files[1]", "y.json")]
    # a relative open_clip path is a file input, not an unknown tag (no pins asked of it)
    assert model_pins("a", {"family": "open_clip", "arch": "ViT-B-32",
                            "pretrained": "my_models/w.pt"}).inputs == []


def test_missing_own_files_name_key_and_file_and_where_a_relative_one_was_looked_for(tmp_path):
    (tmp_path / "mine.pt").write_bytes(b"")
    models = {
        "abs": {"family": "open_clip", "arch": "ViT-B-32", "pretrained": "/scratch/me/w.pt"},
        "rel": {"family": "open_clip", "arch": "ViT-B-32", "pretrained": "my_models/w.pt"},
        "ok": {"family": "checkpoint", "path": "mine.pt"},
        "tag": {"family": "open_clip", "arch": "ViT-B-32-quickgelu", "pretrained": "openai"},
        "download": {"family": "checkpoint", "path": "resources/negclip/negclip.pth"},
        "trained": {"family": "checkpoint", "run": "world_clip"},
        "python": {"family": "python", "factory": "m:f", "files": ["gone.bin"]},
    }
    assert missing_own_files(models, tmp_path) == [
        "models.abs.pretrained: no such file: /scratch/me/w.pt",
        f"models.rel.pretrained: no such file: my_models/w.pt (looked for "
        f"{tmp_path.resolve() / 'my_models' / 'w.pt'}: a relative path starts at the run's "
        "working folder)",
        f"models.python.files[0]: no such file: gone.bin (looked for "
        f"{tmp_path.resolve() / 'gone.bin'}: a relative path starts at the run's working "
        "folder)",
    ]
