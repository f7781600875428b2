"""Hub repositories as pinned snapshots: fetching from a hub-shaped mirror, the manifest
checks a job makes before loading, the lock file's pins of unconfigured revisions, and every
hub reference of the shipped configurations."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from safetensors.numpy import save_file

from vlcomp.config import expand_models, resolve_extends
from vlcomp.data.download import DownloadError
from vlcomp.data.hub_download import fetch_snapshot, select_files
from vlcomp.data.lockfile import LockMismatch, locked_revision
from vlcomp.models import hub as hub_module
from vlcomp.models.hub import (
    MANIFEST,
    HubRef,
    SnapshotError,
    check_revision,
    local_pretrained,
    pretrained_source,
)
from vlcomp.pins import config_pins, model_pins

from .conftest import REPO
from .real_mirror import hub_revision, publish_to_hub

HUB_URL = "https://huggingface.co"


@pytest.fixture()
def mirror(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A hub copy serving ``org/tiny`` (a config, a vocabulary and LFS weights, in both
    formats) and a dataset; returns (mirrors, hub folder)."""
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "config.json").write_text(json.dumps({"model_type": "tiny"}))
    (repo / "vocab.txt").write_text("a\nb\n")
    save_file({"w": np.arange(600, dtype=np.float32)}, repo / "model.safetensors")
    torch.save({"w": torch.zeros(600)}, repo / "pytorch_model.bin")
    (repo / "sub" / "config.json").write_text("{}")
    (repo / "README.md").write_text("# tiny\n")
    hub = tmp_path / "hub"
    publish_to_hub(repo, hub, "org/tiny")
    data = tmp_path / "data"
    (data / "data").mkdir(parents=True)
    (data / "data" / "test-00000.parquet").write_bytes(b"PAR1" + b"\0" * 2000 + b"PAR1")
    publish_to_hub(data, hub, "org/set", kind="dataset")
    return {HUB_URL: hub.as_uri()}, hub


def _ref(repo: str = "org/tiny", revision: str | None = None, kind: str = "model") -> HubRef:
    if revision is None and kind == "model":
        revision = hub_revision(repo)
    return HubRef(repo, revision, kind, where=f"models.{repo}")


def test_fetch_writes_the_pinned_files_and_a_manifest(mirror, tmp_path, monkeypatch):
    mirrors, _ = mirror
    monkeypatch.chdir(tmp_path)
    ref = _ref()
    manifest = fetch_snapshot(ref, ref.folder, mirrors, tmp_path / "lock.json", retries=1)
    folder = Path(ref.folder)
    assert manifest["revision"] == hub_revision("org/tiny")
    # the weights as safetensors only; the README is no model file
    assert sorted(manifest["files"]) == ["config.json", "model.safetensors", "sub/config.json",
                                         "vocab.txt"]
    assert (folder / "model.safetensors").read_bytes() == \
        (tmp_path / "repo" / "model.safetensors").read_bytes()
    assert json.loads((folder / MANIFEST).read_text())["repo"] == "org/tiny"
    assert not list(tmp_path.glob("resources/models/hub/org/.*"))  # no partial folder left
    # a job finds it offline, checked, and loads from the folder (no revision passed on)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert local_pretrained("org/tiny", ref.revision) == ref.folder
    assert pretrained_source("org/tiny", ref.revision) == (ref.folder, None)


def test_a_job_refuses_a_missing_deleted_or_other_snapshot(mirror, tmp_path, monkeypatch):
    mirrors, _ = mirror
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(SnapshotError, match=r"resources/models/hub/org/tiny/ is missing"):
        local_pretrained("org/tiny", hub_revision("org/tiny"))
    ref = _ref()
    fetch_snapshot(ref, ref.folder, mirrors, retries=1)
    other = "f" * 40
    with pytest.raises(SnapshotError, match=f"holds revision {ref.revision}.*pins {other}"):
        local_pretrained("org/tiny", other)
    (Path(ref.folder) / "vocab.txt").unlink()
    with pytest.raises(SnapshotError, match=r"org/tiny/vocab.txt is missing"):
        local_pretrained("org/tiny", ref.revision)
    # local paths are taken as they are; online, a library user gets the hub id back
    assert local_pretrained(str(tmp_path)) == str(tmp_path)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.chdir(tmp_path / "data")
    assert pretrained_source("org/tiny", other) == ("org/tiny", other)


def test_changed_files_and_commits_fail_naming_both(mirror, tmp_path, monkeypatch):
    mirrors, hub = mirror
    monkeypatch.chdir(tmp_path)
    ref = _ref()
    served = hub / "org/tiny/resolve" / ref.revision / "model.safetensors"
    save_file({"w": np.ones(600, dtype=np.float32)}, served)  # the listing keeps the old hash
    with pytest.raises(DownloadError, match=r"model.safetensors: sha256 [0-9a-f]{64} does not "
                                            r"match the published [0-9a-f]{64}"):
        fetch_snapshot(ref, ref.folder, mirrors, retries=1)
    assert not Path(ref.folder).exists()
    listing = hub / "api/models/org/tiny/revision" / f"{'e' * 40}?blobs=true"
    listing.write_text(json.dumps({"sha": "d" * 40, "siblings": []}))
    with pytest.raises(DownloadError, match=f"serves commit {'d' * 40} where {'e' * 40} was "
                                            "pinned"):
        fetch_snapshot(_ref(revision="e" * 40), ref.folder, mirrors, retries=1)


def test_an_unpinned_repository_is_pinned_by_the_lock_file(mirror, tmp_path, monkeypatch):
    mirrors, hub = mirror
    monkeypatch.chdir(tmp_path)
    lock = tmp_path / "downloads.lock.json"
    ref = HubRef("org/set", None, "dataset", ("*",))
    manifest = fetch_snapshot(ref, ref.folder, mirrors, lock, retries=1)
    assert manifest["revision"] == hub_revision("org/set")
    assert locked_revision(lock, "hub/datasets/org/set") == hub_revision("org/set")
    assert "data/test-00000.parquet" in manifest["files"]
    assert ref.folder == "resources/datasets/hub/org/set"
    # main moves on: the next fetch keeps the recorded commit, and a different record fails
    (hub / "api/datasets/org/set/revision/main?blobs=true").write_text(
        json.dumps({"sha": "c" * 40, "siblings": []}))
    assert fetch_snapshot(ref, ref.folder, mirrors, lock, retries=1)["revision"] == \
        hub_revision("org/set")
    from vlcomp.data.lockfile import record_revision

    with pytest.raises(LockMismatch, match=f"{'c' * 40} differs from {hub_revision('org/set')}"):
        record_revision(lock, "hub/datasets/org/set", "c" * 40)


def test_select_files_prefers_safetensors():
    listed = [{"rfilename": n} for n in ("a.bin", "a.safetensors", "c.json", "x.h5", "b.md")]
    assert [s["rfilename"] for s in select_files(listed, hub_module.MODEL_FILES)] == [
        "a.safetensors", "c.json"]
    assert [s["rfilename"] for s in select_files(listed[:1] + listed[2:],
                                                 hub_module.MODEL_FILES)] == ["a.bin", "c.json"]


def test_revisions_are_commits():
    assert check_revision("a" * 40, "x") == "a" * 40
    assert check_revision(None, "x") is None
    with pytest.raises(ValueError, match=r"models\.m: revision 'main' is not a 40-character"):
        check_revision("main", "models.m")


def _config(name: str) -> dict:
    cfg = yaml.safe_load((REPO / "config" / name).read_text())
    return resolve_extends(cfg, [REPO / "config"])


def test_paper_configuration_pins_every_model_it_loads():
    cfg = _config("paper.yaml")
    pins = config_pins(cfg, expand_models(cfg))
    repos = {r.repo: r for r in pins.hub}
    # every hub model of the registry, the LMs, SDXL and the released datasets
    assert {"Salesforce/blip-itm-base-coco", "Salesforce/blip2-flan-t5-xl",
            "google-bert/bert-base-uncased", "facebook/opt-2.7b",
            "stabilityai/stable-diffusion-xl-base-1.0", "mhdang/dpo-sdxl-text2image-v1",
            "imirandam/BiVLC", "imirandam/TROHN-Text", "imirandam/TROHN-Img"} <= set(repos)
    unpinned = sorted(r for r, ref in repos.items() if ref.revision is None)
    # the repositories whose commit no public record gave: pinned by the lock file
    assert unpinned == ["imirandam/BiVLC", "imirandam/TROHN-Img", "imirandam/TROHN-Text",
                        "mhdang/dpo-sdxl-text2image-v1"]
    assert repos["imirandam/BiVLC"].folder == "resources/datasets/hub/imirandam/BiVLC"
    # OpenAI's CLIP weights as files with the sha256 their URL carries
    files = {f.path: f for f in pins.files}
    assert set(files) == {"models/open_clip/openai/ViT-B-32.pt",
                          "models/open_clip/openai/ViT-L-14.pt"}
    assert files["models/open_clip/openai/ViT-B-32.pt"].sha256 in \
        files["models/open_clip/openai/ViT-B-32.pt"].url


def test_one_repository_at_two_commits_is_refused():
    models = {"a": {"family": "hf_blip_itm", "model": "org/m", "revision": "a" * 40},
              "b": {"family": "hf_blip_lm", "model": "org/m", "revision": "b" * 40}}
    with pytest.raises(ValueError, match=f"pinned at {'a' * 40} \\(models.a\\) and at "
                                         f"{'b' * 40} \\(models.b\\)"):
        config_pins({}, models)
    # a use without a revision takes the one another use pins, and both uses' files
    merged = config_pins({}, {"a": models["a"], "t": {"family": "xvlm", "tokenizer": "org/m"}})
    assert [(r.revision, r.patterns) for r in merged.hub] == [
        ("a" * 40, ("*.json", "*.txt", "*.model", "*.safetensors", "*.bin", "*.tiktoken"))]
    assert model_pins("c", {"family": "hf_blip_itm", "model": "/some/folder"}).hub == ()
    assert model_pins("d", {"family": "open_clip", "arch": "ViT-B-32", "run": "x"}).files == ()


def test_open_clip_table_matches_open_clip_registry():
    from open_clip import pretrained

    from vlcomp.models.open_clip_weights import TAGS

    for (arch, tag), weights in TAGS.items():
        cfg = pretrained.get_pretrained_cfg(arch, tag)
        assert cfg, (arch, tag)
        if weights.url:
            assert cfg["url"] == weights.url
            assert weights.url.split("/")[-2] == weights.sha256
        else:
            assert cfg["hf_hub"].rstrip("/") == weights.hf_hub
