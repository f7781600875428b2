"""The training stage of `vlcomp.bench.gpu_check`: `vlcomp.train.clip_trainer.train_clip` on
open_clip's ViT-B/32, three AdamW steps per objective, on the device and on the CPU.

Per objective (``negclip``: neighbour images and hard negative captions; ``trohn_text``;
``trohn_img``: generated images of the negatives):

* ``train``: the device's three fp32 steps against the CPU's (`gpu_compare.TRAIN_FP32`);
* ``train_resume``: two steps, the state handed over (``segment``, ``state_out`` /
  ``start_state``: `vlcomp.train.training_state`), one more step, against the device's three
  straight steps (`gpu_compare.RESUME`; bitwise on the CPU);
* ``train_bf16`` (CUDA, ``negclip``): the paper runs' bf16 autocast (``amp``) against the CPU's
  fp32 (`gpu_compare.TRAIN_BF16`).

Every run uses ``TrainConfig(deterministic="strict")``; on the CPU the device's straight run
is the reference itself, and ``--quick`` trains TROHN-Text and TROHN-Img one step, without
resume. Throughput runs time the paper's batch sizes with ``amp`` on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from vlcomp.bench.gpu_compare import (
    RESUME,
    TRAIN_BF16,
    TRAIN_FP32,
    compare_training,
    update_difference,
)
from vlcomp.bench.gpu_items import objective_inputs, training_set
from vlcomp.bench.gpu_timing import free_memory, guarded, peak_mb, reset_peak, timed

OBJECTIVES = ("negclip", "trohn_text", "trohn_img")
STEPS = 3
LR = 1e-5  # ten times the papers' 1e-6: updates well above float32 rounding of the weights


def train_config(objective: str, batch: int, amp: bool, epochs: int = 1) -> Any:
    from vlcomp.train.clip_trainer import TrainConfig

    return TrainConfig(epochs=epochs, batch_size=batch, lr=LR, weight_decay=0.1,
                       warmup_steps=0, seed=0, threads=torch.get_num_threads(),
                       objective=objective, amp=amp, deterministic="strict")


def snapshot(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A CPU copy of the model's floating-point weights."""
    return {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()
            if v.is_floating_point()}


class ClipTrainer:
    """One open_clip model per device, reset to the same initial weights before each run."""

    def __init__(self, model: torch.nn.Module, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.initial = snapshot(model)
        self.models = {"cpu": model.to("cpu")}

    def model(self, device: str) -> torch.nn.Module:
        if device not in self.models:
            import copy

            self.models[device] = copy.deepcopy(self.models["cpu"]).to(device)
        model = self.models[device]
        model.load_state_dict(self.initial, strict=False)
        return model

    def run(self, device: str, data: dict[str, Any], objective: str, batch: int, amp: bool,
            folder: Path | None = None) -> tuple[float, dict[str, torch.Tensor], list[dict]]:
        """(mean loss of the epoch, final weights, log rows) of three steps; with
        ``folder``, as two segments handing over their state there."""
        from vlcomp.train.clip_trainer import train_clip

        model = self.model(device)
        cfg = train_config(objective, batch, amp)
        args = (model, data["images"], data["captions"], self.tokenizer, cfg)
        extra = objective_inputs(data, objective)
        if folder is None:
            result = train_clip(*args, **extra)
        else:
            state = folder / f"{objective}-{device}-segment0.pt"
            first = train_clip(*args, **extra, segment=(0, 2), state_out=state)
            if first.finished:
                raise RuntimeError("segment 0 of 2 did not hand over")
            result = train_clip(*args, **extra, segment=(1, 2), start_state=state)
            state.unlink(missing_ok=True)
        return float(result.rows[-1]["train_loss"]), snapshot(model), result.rows

    def update(self, weights: dict[str, torch.Tensor]) -> list[Any]:
        """The update (final - initial) per tensor, as numpy arrays."""
        return [(weights[k].double() - self.initial[k].double()).numpy() for k in self.initial]


def _compare(trainer: ClipTrainer, a: tuple, b: tuple, tol: Any) -> dict[str, Any]:
    update = update_difference(trainer.update(a[1]), trainer.update(b[1]))
    return {**compare_training(a[0], b[0], update, tol), "tolerance": tol.as_dict()}


def check_training(trainer: ClipTrainer, device: str, batch: int, image_size: int,
                   folder: Path, short: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The ``train`` and ``train_resume`` records of every objective (those in ``short``:
    one step and no resume, for ``--quick``), ``train_bf16`` of ``negclip`` on CUDA."""
    records = []
    for objective in OBJECTIVES:
        steps = 1 if objective in short else STEPS
        data = training_set(steps * batch, image_size, seed=0,
                            generated=objective == "trohn_img")
        base = {"model": "openai_clip", "family": "open_clip", "depth": "full",
                "batch_size": batch, "steps": steps, "image_size": image_size}
        runs: dict[str, tuple] = {}
        straight: dict[str, Any] = {**base, "stage": "train", "kind": objective, "passed": True}
        with guarded(straight):
            runs["device"], straight["device_s"] = timed(
                lambda o=objective, d=data: trainer.run(device, d, o, batch, amp=False), device)
            if device == "cpu":
                runs["cpu"], straight["cpu_s"] = runs["device"], straight["device_s"]
            else:
                runs["cpu"], straight["cpu_s"] = timed(
                    lambda o=objective, d=data: trainer.run("cpu", d, o, batch, amp=False),
                    "cpu")
            straight.update(_compare(trainer, runs["device"], runs["cpu"], TRAIN_FP32))
            straight["samples_per_s"] = float(runs["device"][2][-1]["samples_per_s"])
        records.append(straight)
        if "device" not in runs or steps < 2:
            continue
        resumed: dict[str, Any] = {**base, "stage": "train_resume", "kind": objective,
                                   "passed": True}
        with guarded(resumed):
            segmented = trainer.run(device, data, objective, batch, amp=False, folder=folder)
            resumed.update(_compare(trainer, segmented, runs["device"], RESUME))
            bitwise = segmented[0] == runs["device"][0] and all(
                torch.equal(segmented[1][k], runs["device"][1][k]) for k in segmented[1])
            resumed["bitwise"] = bitwise
            if device == "cpu" and not bitwise:
                resumed["passed"] = False
        records.append(resumed)
        if objective == "negclip" and device != "cpu" and "cpu" in runs:
            mixed: dict[str, Any] = {**base, "stage": "train_bf16", "kind": objective,
                                     "passed": True}
            with guarded(mixed):
                amp = trainer.run(device, data, objective, batch, amp=True)
                mixed.update(_compare(trainer, amp, runs["cpu"], TRAIN_BF16))
            records.append(mixed)
        del runs
        free_memory(device)
    return records


def throughput_of_checks(records: list[dict[str, Any]], device: str) -> list[dict[str, Any]]:
    """Throughput rows from the ``train`` records' own runs (``--quick``: no runs of their
    own; fp32, the comparison's batch)."""
    rows = []
    for r in records:
        if r.get("stage") == "train" and r.get("samples_per_s"):
            rate = r["samples_per_s"]
            rows.append({"model": r["model"], "family": r["family"], "depth": "full",
                         "scale": "base", "device": device, "stage": "train",
                         "kind": "train_" + r["kind"], "cost_kinds": ["train_" + r["kind"]],
                         "batch_size": r["batch_size"], "image_size": r["image_size"],
                         "items": r["steps"] * r["batch_size"], "items_per_s": rate,
                         "seconds_per_item": 1 / rate, "peak_gpu_mb": None, "amp": False,
                         "passed": True})
    return rows


def training_throughput(trainer: ClipTrainer, device: str, batches: dict[str, int],
                        image_size: int) -> list[dict[str, Any]]:
    """Rows per second of each objective at its batch size (bf16 autocast, strict
    determinism, as the paper runs): one warm-up step, then three timed steps."""
    rows = []
    for objective, batch in batches.items():
        row: dict[str, Any] = {"model": "openai_clip", "family": "open_clip", "depth": "full",
                               "scale": "base", "device": device, "stage": "train",
                               "kind": "train_" + objective,
                               "cost_kinds": ["train_" + objective], "batch_size": batch,
                               "image_size": image_size, "amp": True, "passed": True}
        with guarded(row):
            generated = objective == "trohn_img"
            data = training_set(STEPS * batch, image_size, seed=1, generated=generated)
            trainer.run(device, training_set(batch, image_size, seed=2, generated=generated),
                        objective, batch, amp=True)
            reset_peak(device)
            (_, _, log), seconds = timed(
                lambda o=objective, d=data, b=batch: trainer.run(device, d, o, b, amp=True),
                device)
            rate = float(log[-1]["samples_per_s"])
            row.update(items=STEPS * batch, seconds=round(seconds, 3), items_per_s=rate,
                       seconds_per_item=1 / rate, peak_gpu_mb=peak_mb(device))
        rows.append(row)
        free_memory(device)
    return rows
