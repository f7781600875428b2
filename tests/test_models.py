"""Tests for the model registry, scorers, QuickGELU guard and checkpoint files."""

from __future__ import annotations

import json

import numpy as np
import open_clip
import pytest
import torch
from open_clip.transformer import QuickGELU
from PIL import Image

from vlcomp.models.base import DualEncoderScorer, Scorer
from vlcomp.models.checkpoint import (
    load_checkpoint,
    load_state_dict_file,
    save_checkpoint,
)
from vlcomp.models.open_clip_family import check_quick_gelu, mlp_activations
from vlcomp.models.registry import FAMILIES, build_scorer
from vlcomp.models.world_clip import (
    DEFAULT_WORLD_CLIP,
    build_world_clip,
    count_parameters,
    images_to_tensor,
    world_tokenizer,
    world_transform,
)

TINY = "vlcomp-test-tiny"
TINY_QG = "vlcomp-test-tiny-quickgelu"
TEXTS = ["a red circle", "a small blue square to the left of a circle", "two green triangles"]


def _tiny_cfg(quick_gelu: bool) -> dict:
    return {
        "embed_dim": 16,
        "quick_gelu": quick_gelu,
        "vision_cfg": {
            "image_size": 32,
            "layers": 1,
            "width": 32,
            "patch_size": 16,
            "head_width": 16,
        },
        "text_cfg": {
            "context_length": 16,
            "vocab_size": 49408,
            "width": 32,
            "heads": 2,
            "layers": 1,
        },
    }


@pytest.fixture(scope="module", autouse=True)
def tiny_configs(tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("open_clip_cfgs")
    for name, qg in ((TINY, False), (TINY_QG, True)):
        (folder / f"{name}.json").write_text(json.dumps(_tiny_cfg(qg)))
    open_clip.add_model_config(folder)


def _images(n: int, size: int = 32, seed: int = 0) -> list[Image.Image]:
    rng = np.random.default_rng(seed)
    return [
        Image.fromarray(rng.integers(0, 256, (size, size, 3), dtype=np.uint8)) for _ in range(n)
    ]


def _tiny_state_dict(arch: str) -> dict[str, torch.Tensor]:
    torch.manual_seed(0)
    return open_clip.create_model(arch).state_dict()


def test_state_dict_wrappers_load_identically(tmp_path):
    state = _tiny_state_dict(TINY_QG)
    ddp = {f"module.{k}": v for k, v in state.items()}
    files = {
        "plain.pt": state,
        "ddp.pt": ddp,
        "wrapped.pt": {"epoch": 3, "name": "run", "state_dict": ddp},
        "bivlc.pt": {"model_state_dict": state, "epoch": 1},
    }
    embeddings = []
    for fname, payload in files.items():
        torch.save(payload, tmp_path / fname)
        loaded = load_state_dict_file(tmp_path / fname)
        assert loaded.keys() == state.keys()
        entry = {"family": "open_clip", "arch": TINY_QG, "pretrained": str(tmp_path / fname)}
        scorer = build_scorer(fname, entry)
        assert isinstance(scorer, Scorer)
        embeddings.append((scorer.embed_images(_images(3)), scorer.embed_texts(TEXTS)))
    ref_img, ref_txt = embeddings[0]
    for img, txt in embeddings[1:]:
        np.testing.assert_array_equal(img, ref_img)
        np.testing.assert_array_equal(txt, ref_txt)
    # the weights were really loaded: same as encoding with the source model
    model = open_clip.create_model(TINY_QG)
    model.load_state_dict(state)
    tok = open_clip.get_tokenizer(TINY_QG)
    with torch.inference_mode():
        direct = model.encode_text(tok(TEXTS), normalize=True).numpy()
    np.testing.assert_allclose(ref_txt, direct, atol=1e-6)
    assert ref_img.dtype == np.float32 and ref_img.shape == (3, 16)
    np.testing.assert_allclose(np.linalg.norm(ref_img, axis=1), 1, atol=1e-5)


def test_a_gnm_checkpoint_loads_its_fp16_weights_into_fp32(tmp_path):
    """GNM's ``gnm_clip.pt`` (clip package, fp16 on CUDA, ``model_state_dict``) scores as
    the open_clip model whose weights are those fp16 values."""
    from .released_checkpoints import save_gnm_checkpoint

    state = _tiny_state_dict(TINY_QG)
    save_gnm_checkpoint(state, tmp_path / "gnm_clip.pt")
    entry = {"family": "open_clip", "arch": TINY_QG, "pretrained": str(tmp_path / "gnm_clip.pt")}
    scorer = build_scorer("gnm", entry)
    rounded = open_clip.create_model(TINY_QG)
    rounded.load_state_dict({k: v.half().float() if v.is_floating_point() else v
                             for k, v in state.items()})
    tok = open_clip.get_tokenizer(TINY_QG)
    with torch.inference_mode():
        direct = rounded.encode_text(tok(TEXTS), normalize=True).numpy()
    texts = scorer.embed_texts(TEXTS)
    assert texts.dtype == np.float32
    np.testing.assert_allclose(texts, direct, atol=1e-6)


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:FutureWarning")
def test_load_state_dict_file_errors_and_torchscript(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"missing\.pt"):
        load_state_dict_file(tmp_path / "missing.pt")
    torch.save({"state_dict": {"w": torch.ones(2), "step": 3}}, tmp_path / "bad.pt")
    with pytest.raises(ValueError, match=r"bad\.pt"):
        load_state_dict_file(tmp_path / "bad.pt")
    torch.jit.script(torch.nn.Linear(2, 3)).save(str(tmp_path / "jit.pt"))
    assert set(load_state_dict_file(tmp_path / "jit.pt")) == {"weight", "bias"}


def test_quick_gelu_guard_on_built_models():
    check_quick_gelu(open_clip.create_model(TINY_QG), "ok")
    gelu = open_clip.create_model(TINY)
    assert torch.nn.GELU in mlp_activations(gelu)
    with pytest.raises(ValueError, match="my-negclip"):
        check_quick_gelu(gelu, "my-negclip")


def test_quick_gelu_flag_forces_and_verifies(tmp_path, monkeypatch):
    path = tmp_path / "gelu_arch.pt"
    torch.save(_tiny_state_dict(TINY), path)
    entry = {"family": "open_clip", "arch": TINY, "pretrained": str(path), "quick_gelu": True}
    scorer = build_scorer("forced", entry)
    assert set(mlp_activations(scorer.model)) == {QuickGELU}
    # if the factory ignored the flag (as old loaders did), the guard must catch it
    real = open_clip.create_model_and_transforms

    def ignore_flag(*args, **kwargs):
        kwargs["force_quick_gelu"] = False
        return real(*args, **kwargs)

    monkeypatch.setattr(open_clip, "create_model_and_transforms", ignore_flag)
    with pytest.raises(ValueError, match=r"'forced'.*QuickGELU expected"):
        build_scorer("forced", entry)


def test_openai_without_quickgelu_arch_fails_before_download(monkeypatch):
    class Downloaded(Exception):
        pass

    def no_download(*args, **kwargs):
        raise Downloaded

    monkeypatch.setattr(open_clip, "create_model_and_transforms", no_download)
    entry = {"family": "open_clip", "arch": "ViT-B-32", "pretrained": "openai"}
    with pytest.raises(ValueError, match="ViT-B-32-quickgelu"):
        build_scorer("clip", entry)
    for ok in ({"arch": "ViT-B-32-quickgelu"}, {"quick_gelu": True}):
        with pytest.raises(Downloaded):
            build_scorer("clip", {**entry, **ok})


def test_unknown_family_lists_known():
    with pytest.raises(ValueError, match=r"'m'.*open_clip"):
        build_scorer("m", {"family": "nope"})
    assert {"open_clip", "checkpoint"} <= set(FAMILIES)


def test_world_clip_size_and_embeddings():
    torch.manual_seed(0)
    model = build_world_clip(DEFAULT_WORLD_CLIP)
    n_params = count_parameters(model)
    print(f"world CLIP parameters: {n_params:,}")
    assert 8_000_000 <= n_params <= 14_000_000
    assert type(model.visual).__name__ == "ModifiedResNet"
    scorer = DualEncoderScorer(
        "world",
        model,
        world_transform(DEFAULT_WORLD_CLIP),
        world_tokenizer(DEFAULT_WORLD_CLIP),
        DEFAULT_WORLD_CLIP["embed_dim"],
    )
    images = _images(5, size=64)
    img = scorer.embed_images(images, batch_size=2)
    txt = scorer.embed_texts(TEXTS, batch_size=2)
    assert img.shape == (5, 128) and txt.shape == (3, 128) and img.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(img, axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(txt, axis=1), 1, atol=1e-5)
    np.testing.assert_array_equal(img, scorer.embed_images(images, batch_size=2))
    np.testing.assert_array_equal(txt, scorer.embed_texts(TEXTS, batch_size=2))
    assert scorer.embed_texts([]).shape == (0, 128)


def test_world_transform_matches_training_tensor():
    arr = np.random.default_rng(1).integers(0, 256, (64, 64, 3), dtype=np.uint8)
    tf = world_transform(DEFAULT_WORLD_CLIP)
    torch.testing.assert_close(
        tf(Image.fromarray(arr)), images_to_tensor(arr[None])[0], rtol=0, atol=0
    )
    assert tf(Image.fromarray(arr).resize((80, 80))).shape == (3, 64, 64)


def test_checkpoint_round_trip(tmp_path):
    cfg = {**DEFAULT_WORLD_CLIP, "text": {**DEFAULT_WORLD_CLIP["text"], "layers": 1}}
    torch.manual_seed(1)
    model = build_world_clip(cfg)
    path = tmp_path / "run" / "model.pt"
    save_checkpoint(path, model, cfg, {"lr": 1e-3}, epoch=2)
    assert [p.name for p in path.parent.iterdir()] == ["model.pt"]
    loaded, loaded_cfg = load_checkpoint(path)
    assert loaded_cfg == cfg and not loaded.training
    assert torch.equal(loaded.token_embedding.weight, model.token_embedding.weight)
    direct = DualEncoderScorer("a", model, world_transform(cfg), world_tokenizer(cfg), 128)
    scorer = build_scorer("run", {"family": "checkpoint", "path": str(path)})
    images = _images(3, size=64)
    np.testing.assert_array_equal(scorer.embed_images(images), direct.embed_images(images))
    np.testing.assert_array_equal(scorer.embed_texts(TEXTS), direct.embed_texts(TEXTS))


def test_bad_checkpoint_names_file(tmp_path):
    garbage = tmp_path / "garbage.pt"
    garbage.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match=r"garbage\.pt"):
        load_checkpoint(garbage)
    wrong = tmp_path / "wrong_format.pt"
    torch.save({"format": "other", "state_dict": {}}, wrong)
    with pytest.raises(ValueError, match=r"wrong_format\.pt.*vlcomp-clip-v1"):
        load_checkpoint(wrong)
    with pytest.raises(FileNotFoundError, match=r"absent\.pt"):
        build_scorer("x", {"family": "checkpoint", "path": str(tmp_path / "absent.pt")})


USER_MODEL = '''
import numpy as np

class Means:
    def __init__(self, name, scale):
        self.name, self.device, self.scale = name, "cpu", scale

    def embed_images(self, images, batch_size=256):
        x = np.array([np.asarray(im, dtype=np.float32).mean(axis=(0, 1)) for im in images])
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

    def embed_texts(self, texts, batch_size=256):
        x = np.array([[len(t), t.count(" ") + 1, self.scale] for t in texts], dtype=np.float32)
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

def build(name, entry, device):
    return Means(name, entry["options"]["scale"])
'''


def test_python_family_builds_a_users_model(tmp_path, monkeypatch):
    (tmp_path / "my_models.py").write_text(USER_MODEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = {"family": "python", "factory": "my_models:build", "options": {"scale": 2.0}}
    scorer = build_scorer("mine", entry)
    assert scorer.name == "mine" and scorer.scale == 2.0
    emb = scorer.embed_images([Image.new("RGB", (4, 4), (255, 0, 0))])
    np.testing.assert_allclose(emb, [[1.0, 0.0, 0.0]])
    assert scorer.embed_texts(["a b"]).shape == (1, 3)


@pytest.mark.parametrize(("factory", "error"), [
    ("my_models.build", "not 'package.module:function'"),
    ("no_such_module_xyz:build", "cannot import 'no_such_module_xyz'"),
    ("my_models:absent", "has no function 'absent'"),
])
def test_python_family_errors_name_the_model(tmp_path, monkeypatch, factory, error):
    (tmp_path / "my_models.py").write_text(USER_MODEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises((ValueError, ImportError), match=rf"model 'mine'.*{error}"):
        build_scorer("mine", {"family": "python", "factory": factory})


def test_released_checkpoints_with_numpy_metadata_load_safely(tmp_path):
    import pickletools
    import zipfile

    from vlcomp.models.torch_files import unsafe_globals

    from .released_checkpoints import save_bivlc_checkpoint, save_negclip_checkpoint

    state = _tiny_state_dict(TINY_QG)
    save_bivlc_checkpoint(state, tmp_path / "best_CLIP_COCO_9.pt")
    save_negclip_checkpoint(state, tmp_path / "negclip.pt", numpy_metadata=True)
    save_negclip_checkpoint(state, tmp_path / "negclip_plain.pt")
    # the fixture names the globals as the released files do, and plain torch refuses it
    with zipfile.ZipFile(tmp_path / "best_CLIP_COCO_9.pt") as zf:
        pickled = zf.read(next(n for n in zf.namelist() if n.endswith("data.pkl")))
    names = {arg for op, arg, _ in pickletools.genops(pickled) if op.name == "GLOBAL"}
    assert {"numpy.core.multiarray scalar", "numpy dtype"} <= names
    with pytest.raises(Exception, match="Weights only load failed"):
        torch.load(tmp_path / "best_CLIP_COCO_9.pt", weights_only=True)
    assert unsafe_globals(tmp_path / "best_CLIP_COCO_9.pt") == []
    for name in ("best_CLIP_COCO_9.pt", "negclip.pt", "negclip_plain.pt"):
        loaded = load_state_dict_file(tmp_path / name)
        assert loaded.keys() == state.keys()
        assert all(torch.equal(loaded[k], state[k]) for k in state)
    entry = {"family": "open_clip", "arch": TINY_QG,
             "pretrained": str(tmp_path / "best_CLIP_COCO_9.pt")}
    assert build_scorer("clip_coco", entry).embed_texts(TEXTS).shape == (len(TEXTS), 16)


def test_arbitrary_pickles_stay_refused_naming_file_and_global(tmp_path):
    import os

    from vlcomp.models.torch_files import UnsafeCheckpointError, load_torch_file

    class RunsCode:
        def __reduce__(self):
            return (os.getcwd, ())

    state = _tiny_state_dict(TINY_QG)
    torch.save({"model_state_dict": state, "hook": RunsCode()}, tmp_path / "evil.pt")
    with pytest.raises(UnsafeCheckpointError, match=r"evil\.pt: refused to unpickle .*getcwd"):
        load_state_dict_file(tmp_path / "evil.pt")
    with pytest.raises(UnsafeCheckpointError, match="getcwd"):
        load_torch_file(tmp_path / "evil.pt")
    # an explicit opt-in still reads it (for files one trusts)
    assert load_state_dict_file(tmp_path / "evil.pt", weights_only=False).keys() == state.keys()
