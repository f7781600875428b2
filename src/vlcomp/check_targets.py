"""Measure the walking-skeleton targets: demo wall time, byte-identical tables across two
fresh runs, and the ARO signature of the pretrained world CLIP.

    vlcomp check-targets [--config config/config.yaml] [--workdir DIR]
    (or: python scripts/check_targets.py ...)

Runs the whole DAG twice in two fresh directories (so nothing is reused), then prints the
numbers. Takes about twice the demo time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vlcomp.checkout import add_workflow_options, resolve_workflow_options

SNAKEMAKE = Path(sys.executable).with_name("snakemake")


def run_dag(config: Path, workdir: Path, snakefile: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [str(SNAKEMAKE), "-s", str(snakefile), "--directory", str(workdir),
         "--configfile", str(config), "--cores", "all", "--quiet"],
        check=True,
    )
    return time.perf_counter() - start


def table_digests(workdir: Path) -> dict[str, str]:
    tables = workdir / "results" / "tables"
    return {str(p.relative_to(tables)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(tables.rglob("*")) if p.is_file()}


def signature(workdir: Path, model: str) -> dict[str, float]:
    metrics = workdir / "results" / "metrics" / model

    def load(name: str) -> dict:
        return json.loads((metrics / f"{name}.json").read_text())

    vgr, vga, sc = load("vg_relation"), load("vg_attribution"), load("sugarcrepe")
    order, bivlc = load("order"), load("bivlc")
    val = json.loads((workdir / "results" / "checkpoints" / model / "val.json").read_text())
    return {
        "VG-Relation macro (relation swap)": vgr["overall"]["macro_accuracy"],
        "VG-Attribution macro (attribute swap)": vga["overall"]["macro_accuracy"],
        "SugarCrepe swap_att": sc["subsets"]["swap_att"]["accuracy"],
        "SugarCrepe replace_att": sc["subsets"]["replace_att"]["accuracy"],
        "SugarCrepe replace_obj": sc["subsets"]["replace_obj"]["accuracy"],
        "SugarCrepe replace_rel": sc["subsets"]["replace_rel"]["accuracy"],
        "SugarCrepe micro": sc["overall"]["accuracy"],
        "Order P@1 mean": order["overall"]["mean"],
        "BiVLC I2T / T2I / Group": (bivlc["overall"]["I2T"], bivlc["overall"]["T2I"],
                                    bivlc["overall"]["Group"]),
        "val i2t R@1 (%)": 100 * val["val_i2t_r1"],
        "val t2i R@1 (%)": 100 * val["val_t2i_r1"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="vlcomp check-targets", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workflow_options(parser, "--config")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--model", default="world_clip")
    args = parser.parse_args(argv)
    resolve_workflow_options(args, "--config")
    root = args.workdir or Path(tempfile.mkdtemp(prefix="vlcomp-targets-"))
    runs = [root / "run1", root / "run2"]
    seconds = []
    for workdir in runs:
        workdir.mkdir(parents=True, exist_ok=False)
        seconds.append(run_dag(args.config.resolve(), workdir, args.snakefile.resolve()))
        print(f"{workdir}: {seconds[-1]:.0f} s", flush=True)
    identical = table_digests(runs[0]) == table_digests(runs[1])
    print(f"demo wall time: {seconds[0]:.0f} s and {seconds[1]:.0f} s")
    print(f"tables byte-identical across the two runs: {identical}")
    for key, value in signature(runs[0], args.model).items():
        print(f"{key}: {value}")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
