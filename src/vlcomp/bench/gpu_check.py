"""``python -m vlcomp.bench.gpu_check``: every model code path the paper run puts on a GPU,
run on the device and on the CPU for the same inputs and compared; and their throughput.

    PYTHONPATH=src python -m vlcomp.bench.gpu_check [--device cuda|cpu] [--out F.json] [--quick]

No download: the models are random-initialised real architectures saved locally
(`vlcomp.bench.random_models`: open_clip ViT-B-32-quickgelu full size; BLIP-base ITM and
captioner, BLIP-2 Q-Former ITM (on EVA ViT-g, and on LAVIS' CLIP ViT-L with its
pre-LayerNorm attached as the converted folders load) and FLAN-T5 captioner, X-VLM and FLAVA
at real widths, cut to 2 layers a tower) and loaded through
`vlcomp.models.registry.build_scorer`. Stages:

* ``embed`` (dual encoders), ``pairs`` (ITM heads, every pair kind), ``generative``
  (log P(t|i)): scores within ``2e-3 + 1e-3 * max|cpu|`` and every item's choice (argmax
  over its captions) equal but for near-ties (`vlcomp.bench.gpu_compare`);
* ``train`` / ``train_resume`` / ``train_bf16``: `train_clip` on NegCLIP, TROHN-Text and
  TROHN-Img, three steps, fp32 losses within 1e-3 relative and weight updates within 5 %
  (bf16 autocast: 3e-2 and 80 %), two steps + resume equal to three straight
  (`vlcomp.bench.gpu_train`), strict determinism;
* ``probe``: CLIP's logistic probe, test logits within ``1e-3 + 1e-3 * max|cpu|``, the same
  C and predictions (`vlcomp.bench.gpu_probe`).

Each scoring rate also says its floating-point work (torch's flop counter on one batch), the
TFLOP/s that achieves and its share of the device's dense peak at its precision and at bf16
(`vlcomp.bench.device_peaks`; none on the CPU). Rates are timed at fp32, at the precision the
family's jobs run in (`vlcomp.precision_choice`) and at bf16, the last also with the batch
sized to half the GPU's memory (`batch_by: memory`); models with a loader also from 4,096
JPEG files through it (``embed_image_files``, with the host's cores less two as workers).
Each model's outputs at tf32, bf16 and fp16 are compared with the CPU's fp32
(``<stage> @<precision>`` records: measured drift, not judged).

Throughput is measured on the device at config/paper.yaml's batch sizes (``embed``: images
(and texts) and pairs per pass ``auto``, sized on the device as the jobs size them, rows
``batch_by: auto`` (`vlcomp.models.auto_batch`); training: each objective's largest run
batch, bf16 autocast),
with peak GPU memory. On CUDA BLIP-base's ITM and captioner, X-VLM and FLAVA are also built
and timed at full depth: `vlcomp.plan.measured` reads the base-scale rows. ``--quick``
(always so on the CPU, where the device's outputs are their own reference) shrinks inputs,
batches and training images (64 px), trains TROHN one step without resume and times nothing
at full depth. Exit status 1
when any check failed, 2 when ``--device cuda`` finds no GPU.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from vlcomp.jobs import cuda_determinism_environment

REPO = Path(__file__).resolve().parents[3]
PAPER_CONFIG = REPO / "config" / "paper.yaml"
DEFAULT_TRAIN_BATCHES = {"clip": 400, "negclip": 256, "trohn_text": 200, "trohn_img": 200}
FULL_DEPTH = ("blip_itm", "blip_caption", "xvlm", "flava")  # timed at real depth too


@dataclass(frozen=True)
class Settings:
    """Sizes of one check (`settings_for`)."""

    device: str
    quick: bool
    images: int = 8
    per_image: int = 4
    layers: int = 2
    compare_batch: int = 16
    embed_batch: int | str = 256  # or "auto" (`vlcomp.models.auto_batch`)
    pair_batch: int | str = 128
    repeats: int = 4
    train_batch: int = 8
    train_image_size: int = 224
    train_batches: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_TRAIN_BATCHES))
    file_images: int = 4096  # JPEGs through the loader, per image-embedding model
    memory_fraction: float = 0.5  # batches also sized to this share of the GPU's memory
    workers: int = field(default_factory=lambda: max(1, (os.cpu_count() or 2) - 2))
    probe_rows: int = 262_144
    probe_classes: int = 1000
    full_depth: tuple[str, ...] = FULL_DEPTH  # also timed at full depth (`random_models`)
    seed: int = 0


def paper_batches(path: Path) -> tuple[int | str, int | str, dict[str, int]]:
    """``embed.batch_size``, ``embed.pair_batch_size`` and each objective's largest run batch
    of a configuration file (defaults where it is missing)."""
    config = yaml.safe_load(path.read_text()) if path.is_file() else {}
    embed = config.get("embed", {})
    train = dict(DEFAULT_TRAIN_BATCHES)
    found: dict[str, int] = {}
    for run in (config.get("train") or {}).values():
        objective = run.get("objective", "clip")
        found[objective] = max(found.get(objective, 0), int(run.get("batch_size", 0)))
    train.update({k: v for k, v in found.items() if k in train and v})
    return (batch_setting(embed, "batch_size", 256), batch_setting(embed, "pair_batch_size", 128),
            train)


def batch_setting(embed: dict[str, Any], key: str, default: int) -> int | str:
    """``embed.<key>`` of a configuration: an integer, or ``auto`` (sized on the device as the
    jobs size it, `vlcomp.models.auto_batch`)."""
    from vlcomp.models.auto_batch import check_setting, is_auto

    value = embed.get(key, default)
    check_setting(value, f"embed.{key}")
    return value if is_auto(value) else int(value)


def settings_for(device: str, quick: bool, config: Path = PAPER_CONFIG) -> Settings:
    """The paper's batch sizes on a GPU; small inputs with ``quick`` or on the CPU."""
    if quick or device == "cpu":
        return Settings(device=device, quick=True, images=4, layers=2, compare_batch=8,
                        embed_batch=2, pair_batch=4, repeats=1, train_batch=4, train_image_size=64,
                        file_images=4, workers=0, memory_fraction=0.0,
                        train_batches={}, probe_rows=4096, probe_classes=100, full_depth=())
    embed, pair, train = paper_batches(config)
    return Settings(device=device, quick=False, embed_batch=embed, pair_batch=pair,
                    train_batches=train)


def device_name(device: str) -> str:
    import torch

    from vlcomp.bench.report import cpu_model

    return torch.cuda.get_device_name() if device.startswith("cuda") else cpu_model()


def environment(device: str) -> dict[str, Any]:
    """Device, versions and the numeric settings the comparisons depend on."""
    import open_clip
    import torch
    import transformers

    from vlcomp.bench.report import cpu_model

    return {"device": device, "device_name": device_name(device), "cpu": cpu_model(),
            "gpu_name": torch.cuda.get_device_name() if device.startswith("cuda") else None,
            "versions": {"python": platform.python_version(), "torch": torch.__version__,
                         "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
                         "transformers": transformers.__version__,
                         "open_clip": open_clip.__version__, "numpy": np.__version__},
            "numerics": {"cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
                         "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
                         "CUBLAS_WORKSPACE_CONFIG": os.environ.get("CUBLAS_WORKSPACE_CONFIG"),
                         "torch_threads": torch.get_num_threads()}}


def _clip_for_training(saved: Any, settings: Settings) -> Any:
    """open_clip's ViT-B/32 for the trainer (the saved weights through the open_clip family,
    as the workflow's fine-tuning loads them; ``--quick``: a random one at 64 px)."""
    if saved is None:
        raise RuntimeError("open_clip's ViT-B/32 could not be built")
    import open_clip
    import torch

    from vlcomp.bench.gpu_train import ClipTrainer
    from vlcomp.models.open_clip_family import OpenClipScorer

    if settings.train_image_size == 224:
        scorer = OpenClipScorer(saved.name, saved.entry, "cpu")
        return ClipTrainer(scorer.model, scorer.tokenizer)
    torch.manual_seed(settings.seed)
    model = open_clip.create_model(saved.entry["arch"], pretrained=None,
                                   force_image_size=settings.train_image_size)
    return ClipTrainer(model, open_clip.get_tokenizer(saved.entry["arch"]))


def run_check(settings: Settings, work: Path, say: Any = print) -> dict[str, Any]:
    """Every stage of the check (module docstring); the report `main` writes."""
    from vlcomp.bench import gpu_probe, gpu_scoring, gpu_train, random_models
    from vlcomp.bench.gpu_items import choice_items
    from vlcomp.bench.gpu_timing import free_memory, guarded

    start, device = time.perf_counter(), settings.device
    records: list[dict[str, Any]] = []
    rows: list[dict[str, Any]] = []
    items = choice_items(settings.images, settings.per_image, settings.seed)
    rates = {"embed_batch": settings.embed_batch, "pair_batch": settings.pair_batch,
             "repeats": settings.repeats, "file_images": settings.file_images,
             "workers": settings.workers, "memory_fraction": settings.memory_fraction}
    load = gpu_scoring.Workload(settings.seed, work / "jpegs")
    clip = None
    for name in ("openai_clip", *random_models.BUILDERS):
        say(f"[{time.perf_counter() - start:6.1f} s] {name}")
        built: dict[str, Any] = {"stage": "build", "model": name, "passed": True}
        with guarded(built):
            model = random_models.save_model(name, work / "models" / name, settings.layers,
                                             settings.seed)
        if "error" in built:
            records.append(built)
            continue
        clip = model if name == "openai_clip" else clip
        drift = (gpu_scoring.PRECISION_TRIALS if not settings.quick else
                 ("bf16",) if name == "openai_clip" else ())  # the CPU: the path, once
        found, measured = gpu_scoring.check_model(
            model, items, device, settings.compare_batch,
            None if name in settings.full_depth else rates, load, drift)
        records += found
        rows += measured
    say(f"[{time.perf_counter() - start:6.1f} s] training (open_clip ViT-B/32)")
    trainer, loaded = None, {"stage": "train", "model": "openai_clip", "passed": True}
    with guarded(loaded):
        trainer = _clip_for_training(clip, settings)
    if trainer is None:
        records.append(loaded)
    else:
        trained = gpu_train.check_training(
            trainer, device, settings.train_batch, settings.train_image_size, work,
            ("trohn_text", "trohn_img") if settings.quick else ())
        records += trained
        rows += (gpu_train.throughput_of_checks(trained, device) if settings.quick else
                 gpu_train.training_throughput(trainer, device, settings.train_batches,
                                               settings.train_image_size))
        trainer = None
        free_memory(device)
    say(f"[{time.perf_counter() - start:6.1f} s] logistic probe")
    records.append(gpu_probe.check_probe(device))
    rows.append(gpu_probe.probe_throughput(device, settings.probe_rows, 512,
                                           settings.probe_classes))
    for name in settings.full_depth:
        say(f"[{time.perf_counter() - start:6.1f} s] {name} at full depth (throughput)")
        rows += gpu_scoring.measure_full(name, work / "full", device, rates, load,
                                         settings.per_image, settings.seed)
    return {"schema": "vlcomp-gpu-check-v1", **environment(device),
            "settings": asdict(settings),
            "tolerances": tolerances(), "stages": records, "throughput": rows,
            "passed": all(r.get("passed") for r in records + rows),
            "wall_s": round(time.perf_counter() - start, 1)}


def tolerances() -> dict[str, Any]:
    from vlcomp.bench import gpu_compare as c

    return {"scores": c.SCORES.as_dict(), "probe": c.PROBE.as_dict(),
            "train": c.TRAIN_FP32.as_dict(), "train_bf16": c.TRAIN_BF16.as_dict(),
            "train_resume": {**c.RESUME.as_dict(), "cpu": "bitwise"}}


def summary(report: dict[str, Any]) -> str:
    """Readable tables of the stages and the throughput."""
    from vlcomp.bench.report import format_table

    stages = [{**r, "ok": "yes" if r.get("passed") else "FAIL",
               "choices": (f"{r['choices']['agree']}/{r['choices']['items']}"
                           if isinstance(r.get("choices"), dict) and "items" in r["choices"]
                           else None),
               "diff": r.get("max_abs_diff", r.get("update_rel_diff")),
               "allowed": r.get("allowed_abs_diff", (r.get("tolerance") or {}).get(
                   "update_rel")),
               "note": (r.get("error") or "")[:60]} for r in report["stages"]]
    rates = [{**r, "ok": "yes" if r.get("passed") else "FAIL",
              "note": (r.get("error") or "")[:60]} for r in report["throughput"]]
    head = (f"{report['device_name']} ({report['device']}), torch "
            f"{report['versions']['torch']}, transformers {report['versions']['transformers']}"
            f", open_clip {report['versions']['open_clip']}")
    return "\n\n".join([
        head,
        format_table(stages, ["stage", "model", "kind", "ok", "diff", "allowed", "choices",
                              "device_s", "cpu_s", "note"]),
        format_table(rates, ["kind", "model", "depth", "batch_size", "items", "items_per_s",
                             "gflop_per_item", "tflops", "share_of_peak",
                             "share_of_bf16_peak", "peak_gpu_mb", "ok", "note"]),
        f"{'PASSED' if report['passed'] else 'FAILED'} in {report['wall_s']} s"])


def _plain(value: Any) -> Any:
    """JSON-ready copies of numpy scalars and containers."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not np.isfinite(value):
        return str(value)
    return value


def _quiet() -> None:
    """No progress bars or random-initialisation notices from transformers / open_clip."""
    import transformers

    transformers.utils.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    logging.getLogger().setLevel(logging.ERROR)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vlcomp.bench.gpu_check",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--out", type=Path, default=Path("gpu_check.json"))
    parser.add_argument("--quick", action="store_true", help="small inputs and batches")
    parser.add_argument("--config", type=Path, default=PAPER_CONFIG,
                        help="where the batch sizes come from (default config/paper.yaml)")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    args = parser.parse_args(argv)
    cuda_determinism_environment()  # before anything starts cuBLAS
    os.environ.setdefault("TQDM_DISABLE", "1")  # no trainer bars (read when tqdm loads)
    import torch

    if args.device == "cuda" and not torch.cuda.is_available():
        print("gpu_check: --device cuda, but torch sees no CUDA device", file=sys.stderr)
        return 2
    if args.threads:
        torch.set_num_threads(args.threads)
    _quiet()
    settings = settings_for(args.device, args.quick, args.config)
    with tempfile.TemporaryDirectory(prefix="gpu_check-") as work:
        report = _plain(run_check(settings, Path(work), lambda m: print(m, flush=True)))
    from vlcomp.io import write_json

    write_json(report, args.out)
    print(summary(report), flush=True)
    print(f"(written {args.out})", flush=True)
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())

