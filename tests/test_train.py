"""Tests for the contrastive loss and the deterministic CPU trainer."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
import torch

from vlcomp.models.world_clip import build_world_clip, world_tokenizer
from vlcomp.train.clip_trainer import (
    TrainConfig,
    best_epoch,
    cosine_lr,
    make_optimizer,
    steps_per_epoch,
    train_clip,
)
from vlcomp.train.losses import clip_loss

TINY_WORLD = {
    "embed_dim": 32,
    "vision": {"image_size": 32, "layers": [1, 1, 1, 1], "width": 8, "head_width": 8},
    "text": {"context_length": 8, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 1},
    "quick_gelu": False,
}
COLOURS = {
    "red": (220, 20, 20),
    "blue": (20, 20, 220),
    "green": (20, 200, 20),
    "yellow": (230, 220, 0),
}


def _softplus(x: float) -> float:
    return math.log1p(math.exp(x))


def test_clip_loss_hand_computed_2x2():
    img = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    txt = torch.tensor([[1.0, 0.0], [0.6, 0.8]])
    # logits = 2 * img @ txt.T = [[2, 1.2], [0, 1.6]]
    i2t = _softplus(1.2 - 2) + _softplus(0 - 1.6)
    t2i = _softplus(0 - 2) + _softplus(1.2 - 1.6)
    expected = (i2t / 2 + t2i / 2) / 2
    assert clip_loss(img, txt, torch.tensor(2.0)).item() == pytest.approx(expected, rel=1e-6)
    # asymmetric example: swapping the modalities transposes the logits, same symmetric loss
    assert clip_loss(txt, img, 2.0).item() == pytest.approx(expected, rel=1e-6)


def test_clip_loss_reference_values():
    gen = torch.Generator().manual_seed(0)
    b = 16
    feats = torch.nn.functional.normalize(torch.randn(b, 512, generator=gen), dim=-1)
    other = torch.nn.functional.normalize(torch.randn(b, 512, generator=gen), dim=-1)
    assert clip_loss(feats, other, 0.0).item() == pytest.approx(math.log(b), rel=1e-6)
    assert clip_loss(feats, other, 1.0).item() == pytest.approx(math.log(b), abs=0.05)
    assert clip_loss(feats, feats, 100.0).item() < 1e-3
    with pytest.raises(ValueError):
        clip_loss(feats, other[:4], 1.0)


def test_cosine_lr_and_optimizer_groups():
    assert cosine_lr(0, 100, 10, 1.0) == pytest.approx(0.1)
    assert cosine_lr(9, 100, 10, 1.0) == pytest.approx(1.0)
    assert cosine_lr(55, 100, 10, 1.0) == pytest.approx(0.5)
    assert cosine_lr(100, 100, 10, 1.0) == pytest.approx(0.0)
    assert steps_per_epoch(65, 16) == 4 and steps_per_epoch(66, 16) == 5
    model = build_world_clip(TINY_WORLD)
    no_decay, decay = make_optimizer(model, TrainConfig(weight_decay=0.2)).param_groups
    assert no_decay["weight_decay"] == 0 and decay["weight_decay"] == 0.2
    assert any(p is model.logit_scale for p in no_decay["params"])
    assert all(p.ndim >= 2 for p in decay["params"])


def _colour_task(n: int, seed: int) -> tuple[np.ndarray, list[list[str]]]:
    rng = np.random.default_rng(seed)
    names = list(COLOURS)
    picks = rng.integers(0, len(names), n)
    images = np.stack([np.full((32, 32, 3), COLOURS[names[i]], dtype=np.uint8) for i in picks])
    captions = [[f"a {names[i]} image", f"a {names[i]} picture"] for i in picks]
    return images, captions


def _run(tmp_path, seed: int = 0, name: str = "log.csv"):
    torch.manual_seed(seed)
    model = build_world_clip(TINY_WORLD)
    images, captions = _colour_task(64, 0)
    val_images, val_captions = _colour_task(16, 1)
    cfg = TrainConfig(
        epochs=3, batch_size=16, lr=2e-3, weight_decay=0.1, warmup_steps=2, seed=seed, threads=2
    )
    log = tmp_path / name
    result = train_clip(
        model, images, captions, world_tokenizer(TINY_WORLD), cfg, val_images, val_captions, log
    )
    return model, result, log


def test_train_clip_learns_and_is_deterministic(tmp_path):
    det_before = torch.are_deterministic_algorithms_enabled()
    model_a, result, log = _run(tmp_path)
    with open(log) as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == ["epoch", "train_loss", "lr", "samples_per_s", "seconds",
                             "val_i2t_r1", "val_t2i_r1", "val_mean_r1"]
    assert [int(r["epoch"]) for r in rows] == [1, 2, 3]
    losses = [float(r["train_loss"]) for r in rows]
    assert losses[-1] < losses[0] - 0.1, losses
    last = result.rows[-1]
    # the model ends on the best validation epoch (the earliest of equals)
    assert result.best_epoch == best_epoch(result.rows) and 0 <= last["val_i2t_r1"] <= 1
    assert model_a.logit_scale.item() <= math.log(100) + 1e-6
    assert torch.are_deterministic_algorithms_enabled() == det_before  # global state restored

    model_b, _, _ = _run(tmp_path, name="log_b.csv")
    state_a, state_b = model_a.state_dict(), model_b.state_dict()
    assert all(torch.equal(state_a[k], state_b[k]) for k in state_a)
    model_c, _, _ = _run(tmp_path, seed=1, name="log_c.csv")
    assert not torch.equal(state_a["text_projection"], model_c.state_dict()["text_projection"])


def test_killed_run_resumes_to_the_same_weights(tmp_path, monkeypatch):
    """A run killed after epoch 2 (mid-epoch 3) and rerun ends bitwise equal to one unbroken."""
    import vlcomp.train.clip_trainer as trainer

    images, captions = _colour_task(64, 0)
    cfg = TrainConfig(epochs=3, batch_size=16, lr=2e-3, warmup_steps=2, seed=0, threads=2)
    tokenizer = world_tokenizer(TINY_WORLD)

    def fresh():
        torch.manual_seed(0)
        return build_world_clip(TINY_WORLD)

    unbroken = fresh()
    train_clip(unbroken, images, captions, tokenizer, cfg)

    state = tmp_path / "state.pt"
    real_loss = trainer.hard_negative_text_loss
    calls = {"n": 0}

    def dying_loss(*args):
        calls["n"] += 1
        if calls["n"] == 2 * steps_per_epoch(64, 16) + 2:  # two steps into epoch 3
            raise KeyboardInterrupt("killed")
        return real_loss(*args)

    monkeypatch.setattr(trainer, "hard_negative_text_loss", dying_loss)
    with pytest.raises(KeyboardInterrupt):
        train_clip(fresh(), images, captions, tokenizer, cfg, resume_path=state)
    monkeypatch.setattr(trainer, "hard_negative_text_loss", real_loss)
    assert torch.load(state, weights_only=True)["epoch"] == 2

    resumed = fresh()
    log = tmp_path / "log.csv"
    train_clip(resumed, images, captions, tokenizer, cfg, log_path=log, resume_path=state)
    a, b = unbroken.state_dict(), resumed.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    with open(log) as fh:
        assert [int(r["epoch"]) for r in csv.DictReader(fh)] == [1, 2, 3]

    other = TrainConfig(epochs=1, batch_size=16, lr=1e-3, warmup_steps=2, seed=0, threads=2)
    with pytest.warns(UserWarning, match="another configuration"):
        train_clip(fresh(), images, captions, tokenizer, other, resume_path=state)
    assert torch.load(state, weights_only=True)["config"]["lr"] == 1e-3  # started over


def test_best_epoch_picks_highest_val_then_earliest():


    rows = [{"epoch": 1, "val_mean_r1": 0.5}, {"epoch": 2, "val_mean_r1": 0.7},
            {"epoch": 3, "val_mean_r1": 0.7}]
    assert best_epoch(rows) == 2
    assert best_epoch([{"epoch": 1}, {"epoch": 2}]) == 2 and best_epoch([]) == 0


def _hard_negative_data(n: int = 48):
    """Colour images whose captions also name a wrong colour as a negative."""
    images, captions = _colour_task(n, 0)
    names = list(COLOURS)
    negatives = [[[c.replace(name, names[(k + 1) % 4]) for k, name in enumerate(names)
                   if name in c][:1] for c in caps] for caps in captions]
    neighbours = [[(i + 1) % n, (i + 2) % n, (i + 3) % n] for i in range(n)]
    return images, captions, negatives, neighbours


@pytest.mark.parametrize("objective", ["negclip", "trohn_text"])
def test_hard_negative_objectives_train_deterministically(tmp_path, objective):
    images, captions, negatives, neighbours = _hard_negative_data()
    val_images, val_captions = _colour_task(16, 1)
    cfg = TrainConfig(epochs=2, batch_size=16, lr=2e-3, warmup_steps=2, seed=0, threads=2,
                      objective=objective)
    hard = {"negatives": negatives}
    if objective == "negclip":
        hard["neighbours"] = neighbours
    states = []
    for name in ("a", "b"):
        torch.manual_seed(0)
        model = build_world_clip(TINY_WORLD)
        result = train_clip(model, images, captions, world_tokenizer(TINY_WORLD), cfg,
                            val_images, val_captions, epoch_dir=tmp_path / name, **hard)
        states.append(model.state_dict())
        assert sorted(p.name for p in (tmp_path / name).iterdir()) == ["epoch001.pt",
                                                                       "epoch002.pt"]
        assert result.rows[-1]["samples_per_s"] > 0
    assert all(torch.equal(states[0][k], states[1][k]) for k in states[0])
    with pytest.raises(ValueError, match="needs negative captions"):
        train_clip(build_world_clip(TINY_WORLD), images, captions,
                   world_tokenizer(TINY_WORLD), cfg)


def test_negclip_objective_differs_from_clip(tmp_path):
    images, captions, negatives, neighbours = _hard_negative_data()
    tokenizer = world_tokenizer(TINY_WORLD)
    out = {}
    for objective in ("clip", "negclip"):
        torch.manual_seed(0)
        model = build_world_clip(TINY_WORLD)
        cfg = TrainConfig(epochs=1, batch_size=16, lr=2e-3, warmup_steps=2, seed=0,
                          threads=2, objective=objective)
        train_clip(model, images, captions, tokenizer, cfg, negatives=negatives,
                   neighbours=neighbours)
        out[objective] = model.state_dict()["text_projection"]
    assert not torch.equal(out["clip"], out["negclip"])


def test_best_epoch_weights_are_restored(tmp_path, monkeypatch):
    """With an epoch directory the model ends on the best validation epoch's weights."""
    import vlcomp.train.clip_trainer as trainer

    scores = iter([0.9, 0.2, 0.1])  # epoch 1 is best

    def fake_r1(*args, **kwargs):
        v = next(scores)
        return {"val_i2t_r1": v, "val_t2i_r1": v, "val_mean_r1": v}

    monkeypatch.setattr(trainer, "retrieval_r1", fake_r1)
    images, captions = _colour_task(32, 0)
    torch.manual_seed(0)
    model = build_world_clip(TINY_WORLD)
    cfg = TrainConfig(epochs=3, batch_size=16, lr=2e-3, warmup_steps=2, seed=0, threads=2)
    result = train_clip(model, images, captions, world_tokenizer(TINY_WORLD), cfg,
                        images, captions, epoch_dir=tmp_path)
    assert result.best_epoch == 1
    saved = torch.load(tmp_path / "epoch001.pt", weights_only=True)
    assert all(torch.equal(saved[k], v) for k, v in model.state_dict().items())


def test_killed_negclip_run_resumes_to_the_same_weights(tmp_path, monkeypatch):
    """Hard-example draws come from the saved generator too: resumed NegCLIP == unbroken."""
    import vlcomp.train.clip_trainer as trainer

    images, captions, negatives, neighbours = _hard_negative_data()
    cfg = TrainConfig(epochs=2, batch_size=16, lr=2e-3, warmup_steps=2, seed=0, threads=2,
                      objective="negclip")
    tokenizer = world_tokenizer(TINY_WORLD)
    hard = {"negatives": negatives, "neighbours": neighbours}

    def fresh():
        torch.manual_seed(0)
        return build_world_clip(TINY_WORLD)

    unbroken = fresh()
    train_clip(unbroken, images, captions, tokenizer, cfg, **hard)
    real_loss = trainer.hard_negative_text_loss
    calls = {"n": 0}

    def dying_loss(*args):
        calls["n"] += 1
        if calls["n"] == steps_per_epoch(48, 16) + 1:  # one step into epoch 2
            raise KeyboardInterrupt("killed")
        return real_loss(*args)

    state = tmp_path / "state.pt"
    monkeypatch.setattr(trainer, "hard_negative_text_loss", dying_loss)
    with pytest.raises(KeyboardInterrupt):
        train_clip(fresh(), images, captions, tokenizer, cfg, resume_path=state,
                   epoch_dir=tmp_path / "epochs", **hard)
    monkeypatch.setattr(trainer, "hard_negative_text_loss", real_loss)
    resumed = fresh()
    result = train_clip(resumed, images, captions, tokenizer, cfg, resume_path=state,
                        epoch_dir=tmp_path / "epochs", **hard)
    assert [r["epoch"] for r in result.rows] == [1, 2]
    a, b = unbroken.state_dict(), resumed.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_without_extra_columns_the_hard_negative_loss_is_the_clip_loss():
    from vlcomp.train.losses import hard_negative_text_loss

    gen = torch.Generator().manual_seed(0)
    img = torch.nn.functional.normalize(torch.randn(8, 16, generator=gen), dim=-1)
    txt = torch.nn.functional.normalize(torch.randn(8, 16, generator=gen), dim=-1)
    assert torch.equal(hard_negative_text_loss(img, txt, 10.0), clip_loss(img, txt, 10.0))


def _left_right_task(n: int, seed: int) -> tuple[np.ndarray, list[list[str]]]:
    """Two colour blocks side by side, captioned by which is on the left."""
    rng = np.random.default_rng(seed)
    names = list(COLOURS)
    images, captions = [], []
    for _ in range(n):
        a, b = rng.choice(len(names), 2, replace=False)
        img = np.zeros((32, 32, 3), dtype=np.uint8)
        img[:, :16], img[:, 16:] = COLOURS[names[a]], COLOURS[names[b]]
        images.append(img)
        captions.append([f"a {names[a]} block to the left of a {names[b]} block",
                         f"a {names[a]} block and a {names[b]} block"])
    return np.stack(images), captions


def test_mirror_pairs_add_flipped_images_with_swapped_captions(tmp_path):
    from vlcomp.train.clip_trainer import _with_mirrors
    from vlcomp.train.image_bank import as_pixels

    images, captions = _left_right_task(6, 0)
    tokenizer = world_tokenizer(TINY_WORLD)
    tokens = tokenizer([t for caps in captions for t in caps])
    pixels, table, rows = _with_mirrors(as_pixels(images), tokens, captions, tokenizer, "clip")
    assert torch.equal(pixels[6 + 2], torch.flip(pixels[2], dims=[-1]))
    assert rows.tolist() == [12 + k if r % 2 == 0 else -1 for k, r in
                             zip(np.arange(12) // 2, range(12), strict=True)]
    mirrored = captions[1][0].replace("left", "right")
    assert torch.equal(table[rows[2]], tokenizer([mirrored])[0])
    with pytest.raises(ValueError, match="clip objective"):
        _with_mirrors(as_pixels(images), tokens, captions, tokenizer, "negclip")
    with pytest.raises(ValueError, match="left/right"):
        _with_mirrors(as_pixels(images), tokens, [[c[1]] for c in captions], tokenizer, "clip")

    def run(mirror: float):
        torch.manual_seed(0)
        model = build_world_clip(TINY_WORLD)
        cfg = TrainConfig(epochs=2, batch_size=4, lr=2e-3, warmup_steps=1, seed=0, threads=2,
                          mirror_pairs=mirror)
        train_clip(model, images, captions, tokenizer, cfg)
        return model.state_dict()["text_projection"]

    with_pairs = run(1.0)
    assert torch.equal(with_pairs, run(1.0))  # deterministic
    assert not torch.equal(with_pairs, run(0.0))  # the pairs take part in the loss
