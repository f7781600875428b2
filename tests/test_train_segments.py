"""A training run cut into segments (or killed inside an epoch) ends as one unbroken run."""

from __future__ import annotations

import pytest
import torch

from tests.test_train import TINY_WORLD, _colour_task, _hard_negative_data
from vlcomp.models.world_clip import build_world_clip, world_tokenizer
from vlcomp.train.clip_trainer import TrainConfig, steps_per_epoch, train_clip
from vlcomp.train.training_state import segment_steps

CFG = TrainConfig(epochs=3, batch_size=16, lr=2e-3, warmup_steps=2, seed=0, threads=2,
                  objective="negclip")


def _fresh():
    torch.manual_seed(0)
    return build_world_clip(TINY_WORLD)


def _equal(a, b) -> bool:
    a, b = a.state_dict(), b.state_dict()
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture
def task():
    images, captions, negatives, neighbours = _hard_negative_data(48)
    val_images, val_captions = _colour_task(16, 1)
    return {"images": images, "captions": captions, "val_images": val_images,
            "val_captions": val_captions,
            "hard": {"negatives": negatives, "neighbours": neighbours}}


def _train(task, model, **kwargs):
    return train_clip(model, task["images"], task["captions"], world_tokenizer(TINY_WORLD),
                      CFG, task["val_images"], task["val_captions"], **task["hard"], **kwargs)


@pytest.fixture
def worse_each_epoch(monkeypatch):
    """Validation that falls every epoch: the run must end on epoch 1's weights."""
    import vlcomp.train.clip_trainer as trainer

    scores = {"n": 0}

    def fake_r1(*args, **kwargs):
        scores["n"] += 1
        v = 1.0 / scores["n"]
        return {"val_i2t_r1": v, "val_t2i_r1": v, "val_mean_r1": v}

    monkeypatch.setattr(trainer, "retrieval_r1", fake_r1)
    return scores


def test_segment_steps_tile_the_run():
    blocks = [segment_steps(10, (i, 3)) for i in range(3)]
    assert blocks == [(0, 4), (4, 7), (7, 10)]
    assert segment_steps(2, (2, 3)) == (2, 2)  # more segments than steps: an empty one


@pytest.mark.parametrize("count", [2, 4])
def test_segments_end_with_the_weights_of_one_run(tmp_path, task, count):
    """Segments cut inside epochs (9 steps: 3 an epoch) hand over weights, optimizer,
    generators and the epoch's draws; the last one ends bitwise equal to one run."""
    assert 3 * steps_per_epoch(48, 16) == 9
    unbroken = _fresh()
    whole = _train(task, unbroken)
    state = None
    for index in range(count):
        model = _fresh()
        out = tmp_path / f"{index}-of-{count}.pt" if index < count - 1 else None
        result = _train(task, model, segment=(index, count), start_state=state, state_out=out,
                        log_path=tmp_path / "log.csv")
        assert result.finished == (index == count - 1)
        state = out
    assert _equal(unbroken, model)
    assert [r["epoch"] for r in result.rows] == [1, 2, 3]
    assert [r["train_loss"] for r in result.rows] == [r["train_loss"] for r in whole.rows]
    assert [r["val_mean_r1"] for r in result.rows] == [r["val_mean_r1"] for r in whole.rows]


def test_the_best_epoch_survives_the_hand_over(tmp_path, task, worse_each_epoch):
    """Epoch 1 is best, and trained by segment 0 of 3: the last segment ends on its weights."""
    reference = _fresh()
    keep = tmp_path / "epochs"
    assert _train(task, reference, epoch_dir=keep).best_epoch == 1
    worse_each_epoch["n"] = 0
    state = None
    for index in range(3):
        model = _fresh()
        out = tmp_path / f"{index}.pt" if index < 2 else None
        result = _train(task, model, segment=(index, 3), start_state=state, state_out=out)
        state = out
    assert result.best_epoch == 1
    saved = torch.load(keep / "epoch001.pt", weights_only=True)
    assert all(torch.equal(saved[k], v) for k, v in model.state_dict().items())


def test_a_segment_killed_inside_an_epoch_resumes_alone(tmp_path, task, monkeypatch):
    """With a checkpoint after every step, a segment killed mid-epoch reruns from there."""
    import vlcomp.train.clip_trainer as trainer

    unbroken = _fresh()
    _train(task, unbroken)
    first = tmp_path / "0-of-2.pt"
    _train(task, _fresh(), segment=(0, 2), state_out=first)  # steps 0-4
    real_loss = trainer.hard_negative_text_loss
    calls = {"n": 0}

    def dying_loss(*args):
        calls["n"] += 1
        if calls["n"] == 3:  # step 7, the second of epoch 3
            raise KeyboardInterrupt("killed")
        return real_loss(*args)

    resume = tmp_path / "1-of-2.resume.pt"
    monkeypatch.setattr(trainer, "hard_negative_text_loss", dying_loss)
    with pytest.raises(KeyboardInterrupt):
        _train(task, _fresh(), segment=(1, 2), start_state=first, resume_path=resume,
               checkpoint_seconds=0, origin="inputs")
    monkeypatch.setattr(trainer, "hard_negative_text_loss", real_loss)
    saved = torch.load(resume, weights_only=True)
    assert saved["step"] == 7 and saved["progress"]["next_batch"] == 1

    first.unlink()  # the rerun starts from the resume file, not from the hand-over
    model = _fresh()
    _train(task, model, segment=(1, 2), start_state=first, resume_path=resume,
           checkpoint_seconds=0, origin="inputs")
    assert _equal(unbroken, model)

    # the inputs changed meanwhile: the resume file is not this job's
    with (pytest.warns(UserWarning, match="another start"),
          pytest.raises(FileNotFoundError, match="previous segment's state is missing")):
        _train(task, _fresh(), segment=(1, 2), start_state=first, resume_path=resume,
               origin="other inputs")


def test_a_segment_refuses_a_state_it_cannot_continue(tmp_path, task):
    first = tmp_path / "0-of-3.pt"
    _train(task, _fresh(), segment=(0, 3), state_out=first)
    with pytest.raises(ValueError, match="ended at step 3, but this segment starts at step 6"):
        _train(task, _fresh(), segment=(2, 3), start_state=first)
    with pytest.raises(ValueError, match="needs the previous segment's state"):
        _train(task, _fresh(), segment=(1, 3), state_out=tmp_path / "x.pt")
    with pytest.raises(ValueError, match="needs a state_out"):
        _train(task, _fresh(), segment=(0, 3))
    broken = tmp_path / "broken.pt"
    broken.write_bytes(b"<html>not a state</html>")
    with pytest.raises(ValueError, match=r"broken\.pt: not a readable training state"):
        _train(task, _fresh(), segment=(1, 3), start_state=broken, state_out=tmp_path / "y.pt")


def test_input_origin_changes_with_inputs_and_run_settings(tmp_path):
    from vlcomp.train.training_state import input_origin

    data = tmp_path / "images.parquet"
    data.write_bytes(b"x")
    run = {"model": {"vision": {"layers": [1, 1, 1, 1]}}, "epochs": 8}
    base = input_origin([data], run)
    same = {"epochs": 8, "model": {"vision": {"layers": [1, 1, 1, 1]}}}  # key order aside
    assert base == input_origin([data], same)
    assert base != input_origin([data], {**run, "model": {"vision": {"layers": 4}}})
    assert base != input_origin([data])
    data.write_bytes(b"xy")
    assert base != input_origin([data], run)
