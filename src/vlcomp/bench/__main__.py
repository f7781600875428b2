"""``python -m vlcomp.bench {itc,encodes,flops,e2e,report,pixels}``: performance benchmarks.

Each prints a Markdown table and writes ``<out>/<name>.json`` (default ``results/bench``).
``itc``, ``encodes`` and ``e2e`` read a DAG run (``--workdir``, default ``.``); run them
when the machine is otherwise idle. See docs/performance.md for the numbers and machine.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
import yaml

from vlcomp.bench.report import emit
from vlcomp.checkout import workflow_root

REPO = workflow_root()  # the checkout, else ./ (an installed package)
DEFAULT_ITC = ("sugarcrepe:sugarcrepe", "vg_relation:aro+sugarcrepe", "order:aro")


def _config(args) -> dict:
    path = Path(args.configfile or REPO / "config" / "config.yaml")
    return yaml.safe_load(path.read_text()) if path.is_file() else {}


def run_itc(args) -> None:
    from vlcomp.bench.itc import (
        compare,
        items_on_images,
        load_benchmark,
        random_vit_b32_parts,
        world_clip_parts,
    )

    models = []
    for name in args.models.split(","):
        if name == "world_clip":
            models.append(world_clip_parts(
                args.workdir / "results" / "checkpoints" / "world_clip" / "model.pt"))
        elif name == "vit_b32":
            models.append(random_vit_b32_parts(args.seed))
        else:
            raise SystemExit(f"--models: unknown model {name!r} (world_clip, vit_b32)")
    rows = []
    for spec in args.benchmarks.split(","):
        benchmark, _, loops = spec.partition(":")
        items, refs = load_benchmark(args.workdir, benchmark)
        items = items_on_images(items, args.images, args.seed)
        for parts in models:
            print(f"{benchmark}: {parts.name} vs the {loops} loop(s) on {len(items)} items",
                  flush=True)
            rows += [{"benchmark": benchmark, **r}
                     for r in compare(parts, items, refs, loops.split("+"))]
    emit("itc", rows, ["benchmark", "model", "baseline", "items", "images", "texts", "pairs",
                       "baseline_pairs_per_s", "vlcomp_pairs_per_s", "speedup",
                       "max_abs_diff", "same_choice"], args.out,
         images_sampled=args.images, seed=args.seed, target_speedup=10)


def run_encodes(args) -> None:
    from vlcomp.bench.encodes import encode_counts

    rows = encode_counts(args.workdir)
    emit("encodes", rows, ["model", "family", "vision_passes", "distinct_images",
                           "passes_per_distinct", "equal", "reference_passes",
                           "saved_vs_reference", "jobs"], args.out, workdir=str(args.workdir))


def run_flops(args) -> None:
    from vlcomp.bench.flops import encode_efficiency, sgemm_peak
    from vlcomp.bench.itc import random_vit_b32_parts
    from vlcomp.models.auto_batch import resolve_batch
    from vlcomp.models.world_clip import DEFAULT_WORLD_CLIP, build_world_clip

    config = _config(args)
    default_batch = resolve_batch(config.get("embed", {}).get("batch_size", 256), "cpu",
                                  lambda n: None, key="embed.batch_size").size  # a CPU job's
    peak = sgemm_peak()
    print(f"sgemm peak at {torch.get_num_threads()} threads: {peak['peak_gflops']:.1f} "
          f"GFLOP/s {peak['gflops_by_size']}", flush=True)
    towers = {"ViT-B-32": (random_vit_b32_parts(args.seed).model.visual, 224),
              "world CLIP (ModifiedResNet, 64 px)": (
                  build_world_clip(DEFAULT_WORLD_CLIP).visual,
                  int(DEFAULT_WORLD_CLIP["vision"]["image_size"]))}
    sizes = sorted({*map(int, args.batch_sizes.split(",")), default_batch})
    rows = []
    for name, (tower, image_size) in towers.items():
        for row in encode_efficiency(tower, image_size, sizes, peak["peak_gflops"]):
            rows.append({"tower": name, **row, "default": row["batch_size"] == default_batch})
    emit("flops", rows, ["tower", "batch_size", "default", "images_per_s", "gflop_per_image",
                         "gflops", "share_of_peak"], args.out, sgemm=peak,
         default_batch_size=default_batch, threads=torch.get_num_threads(), target_share=0.5)


def run_e2e(args) -> None:
    from vlcomp.bench.e2e import per_rule, read_benchmarks, run_workflow

    wall = None
    if args.run:
        wall = run_workflow(args.workdir, REPO / "Snakefile", args.configfile, args.cores,
                            args.snakemake_args or [])
        print(f"workflow wall time: {wall:.1f} s", flush=True)
    jobs = read_benchmarks(args.workdir)
    rows = per_rule(jobs)
    rows.append({"rule": "all jobs", "jobs": len(jobs), "total_s": float(jobs.s.sum()),
                 "cpu_s": float(jobs.cpu_s.sum()), "max_rss_mb": float(jobs.max_rss_mb.max()),
                 "share": 1.0})
    emit("e2e", rows, ["rule", "jobs", "total_s", "mean_s", "max_s", "cpu_s", "max_rss_mb",
                       "share"], args.out, workdir=str(args.workdir), wall_s=wall,
         configfile=str(args.configfile) if args.configfile else None, cores=args.cores)


def run_report(args) -> None:
    from vlcomp.bench.e2e import REPORT_RULES, build_report, read_benchmarks

    jobs = read_benchmarks(args.workdir)
    rows = [{"step": f"{rule} jobs", "jobs": int((jobs.rule == rule).sum()),
             "seconds": float(jobs.s[jobs.rule == rule].sum())} for rule in REPORT_RULES]
    seconds = build_report(args.workdir, REPO / "Snakefile", args.configfile)
    rows.append({"step": "snakemake --report", "jobs": 1, "seconds": seconds})
    rows.append({"step": "total after the DAG", "jobs": sum(r["jobs"] for r in rows),
                 "seconds": sum(r["seconds"] for r in rows)})
    emit("report", rows, ["step", "jobs", "seconds"], args.out, workdir=str(args.workdir),
         configfile=str(args.configfile) if args.configfile else None, target_s=60)


def run_pixels(args) -> None:
    from vlcomp.bench.pixels import pixel_rates

    workers = [int(w) for w in args.workers.split(",")]
    rows = pixel_rates(args.images, workers, args.repeats)
    emit("pixels", rows, ["recipe", "workers", "images", "images_per_s", "per_worker"],
         args.out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m vlcomp.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("results/bench"))
    parser.add_argument("--threads", type=int, default=2, help="torch threads (default 2, "
                        "the default config's compute.threads)")
    parser.add_argument("--seed", type=int, default=0)
    sub = parser.add_subparsers(dest="command", required=True)
    itc = sub.add_parser("itc", help="ITC scoring vs the SugarCrepe/ARO reference loops")
    itc.add_argument("--workdir", type=Path, default=Path("."))
    itc.add_argument("--models", default="world_clip,vit_b32")
    itc.add_argument("--benchmarks", default=",".join(DEFAULT_ITC),
                     help="benchmark:loop[+loop] (loops: sugarcrepe, aro)")
    itc.add_argument("--images", type=int, default=100,
                     help="seeded sample of each benchmark's images (all their items kept)")
    itc.set_defaults(handler=run_itc)
    encodes = sub.add_parser("encodes", help="vision passes per model vs distinct images")
    encodes.add_argument("--workdir", type=Path, default=Path("."))
    encodes.set_defaults(handler=run_encodes)
    flops = sub.add_parser("flops", help="image-encoding GFLOP/s vs the sgemm peak")
    flops.add_argument("--batch-sizes", default="1,8,32,64,128")
    flops.add_argument("--configfile", type=Path, default=None)
    flops.set_defaults(handler=run_flops)
    e2e = sub.add_parser("e2e", help="per-rule wall time from the benchmark: files")
    e2e.add_argument("--workdir", type=Path, default=Path("."))
    e2e.add_argument("--run", action="store_true", help="run the workflow in --workdir first")
    e2e.add_argument("--configfile", type=Path, default=None)
    e2e.add_argument("--cores", type=int, default=2)
    e2e.add_argument("snakemake_args", nargs="*", help="more snakemake arguments (after --)")
    e2e.set_defaults(handler=run_e2e)
    report = sub.add_parser("report", help="time of the analysis jobs and snakemake --report")
    report.add_argument("--workdir", type=Path, default=Path("."))
    report.add_argument("--configfile", type=Path, default=None)
    report.set_defaults(handler=run_report)
    pixels = sub.add_parser("pixels", help="JPEG → model input rate per preprocessing "
                            "recipe, by DataLoader worker count")
    pixels.add_argument("--images", type=int, default=512)
    pixels.add_argument("--workers", default="0,1,2")
    pixels.add_argument("--repeats", type=int, default=2)
    pixels.set_defaults(handler=run_pixels)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    args.handler(args)


if __name__ == "__main__":
    main()
