"""Generation throughput: images/s of the world backend (default config) and of the tiny
SDXL pipeline on this machine's CPU (2 steps, 32 x 32), both through `generate_candidates`.

    .venv/bin/python scripts/bench_generation.py [--prompts 2000] [--threads 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch
import yaml

from vlcomp.generate.backends import build_backend
from vlcomp.generate.candidates import generate_candidates
from vlcomp.generate.tiny_pipeline import save_tiny_sdxl

REPO = Path(__file__).resolve().parents[1]
CAPTIONS = ["A large red circle to the left of a small blue square.",
            "There is a green cross above a yellow triangle.",
            "A purple diamond, a white square and a red cross."]


def timed(backend, n: int, out: Path) -> float:
    captions = [CAPTIONS[i % len(CAPTIONS)] for i in range(n)]
    start = time.perf_counter()
    manifest = generate_candidates([f"p{i}" for i in range(n)], captions, backend, out, 0)
    return len(manifest) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prompts", type=int, default=2000)
    parser.add_argument("--diffusers-prompts", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        world = build_backend(config["generation"]["bivlc"], config["world"])
        rate = timed(world, args.prompts, tmp / "world")
        print(f"world backend: {rate:.0f} images/s ({args.prompts} prompts x "
              f"{world.images_per_prompt}, PNG written)")
        pipeline, dpo = save_tiny_sdxl(tmp / "tiny")
        options = {"backend": "diffusers", "images_per_prompt": 4, "diffusers": {
            "pipeline": str(pipeline), "unet": str(dpo), "variant": None,
            "num_inference_steps": 2, "resize": 32, "batch_size": 8}}
        tiny = build_backend(options, device="cpu")
        timed(tiny, 2, tmp / "warm")  # loading and first-call set-up
        rate = timed(tiny, args.diffusers_prompts, tmp / "tiny_out")
        print(f"tiny SDXL pipeline (random weights, 2 steps, 32x32, CPU float32): "
              f"{rate:.0f} images/s")


if __name__ == "__main__":
    main()
