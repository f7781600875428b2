"""Print the fine-tuning targets of a finished DAG: training throughput per run, and whether
NegCLIP beats CLIP-FT beyond the spread over training seeds without losing retrieval.

    .venv/bin/python scripts/finetune_report.py [WORKDIR] [--a negclip] [--b clip_ft]

WORKDIR is where the DAG ran (default: the repository). Numbers come from
``results/checkpoints/*/train_log.csv``, ``benchmarks/train_clip/*.tsv`` and ``results/metrics``.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TASKS = {
    "VG-Relation": ("vg_relation", "macro_accuracy"),
    "VG-Attribution": ("vg_attribution", "macro_accuracy"),
    "Order": ("order", "mean"),
    "SugarCrepe": ("sugarcrepe", "accuracy"),
    "BiVLC Group": ("bivlc", "Group"),
    "Retrieval I2T R@1": ("world_retrieval", "i2t_r1"),
    "Retrieval T2I R@1": ("world_retrieval", "t2i_r1"),
}


def throughput(workdir: Path) -> None:
    print(f"{'run':<24}{'epochs':>7}{'samples/s':>11}{'job wall s':>12}")
    for log in sorted((workdir / "results" / "checkpoints").glob("*/train_log.csv")):
        run = log.parent.name
        with open(log) as fh:
            rows = list(csv.DictReader(fh))
        rate = statistics.fmean(float(r["samples_per_s"]) for r in rows) if rows else 0.0
        wall = "-"
        bench = workdir / "benchmarks" / "train_clip" / f"{run}.tsv"
        if bench.exists():
            with open(bench) as fh:
                wall = f"{float(next(csv.DictReader(fh, delimiter=chr(9)))['s']):.0f}"
        print(f"{run:<24}{len(rows):>7}{rate:>11.1f}{wall:>12}")


def task_values(workdir: Path, group: str) -> dict[str, list[float]]:
    models = sorted(p.name for p in (workdir / "results" / "metrics").iterdir()
                    if p.name == group or p.name.startswith(f"{group}_s"))
    values: dict[str, list[float]] = {}
    for label, (bench, key) in TASKS.items():
        for model in models:
            path = workdir / "results" / "metrics" / model / f"{bench}.json"
            if path.exists():
                values.setdefault(label, []).append(json.loads(path.read_text())["overall"][key])
    return values


def compare(workdir: Path, a: str, b: str) -> None:
    va, vb = task_values(workdir, a), task_values(workdir, b)
    print(f"\n{'task':<20}{a:>16}{b:>16}{'gap':>8}{'2·max sd':>10}  beyond spread")
    for label in TASKS:
        if label not in va or label not in vb:
            continue
        ma, mb = statistics.fmean(va[label]), statistics.fmean(vb[label])
        sa = statistics.stdev(va[label]) if len(va[label]) > 1 else 0.0
        sb = statistics.stdev(vb[label]) if len(vb[label]) > 1 else 0.0
        spread = 2 * max(sa, sb)
        print(f"{label:<20}{ma:>10.2f} ±{sa:>4.2f}{mb:>10.2f} ±{sb:>4.2f}{ma - mb:>8.2f}"
              f"{spread:>10.2f}  {ma - mb > spread}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("workdir", type=Path, nargs="?", default=REPO)
    parser.add_argument("--a", default="negclip", help="model group expected to win")
    parser.add_argument("--b", default="clip_ft", help="baseline model group")
    args = parser.parse_args()
    throughput(args.workdir)
    compare(args.workdir, args.a, args.b)


if __name__ == "__main__":
    main()
