"""The plan of a configuration before anything runs: per rule, its jobs, items, GPU-hours and
CPU-hours and its longest job, from Snakemake's dry run of the DAG.

    python -m vlcomp.plan --configfile config/paper.yaml

Jobs of a sharded stage (`vlcomp.plan.estimates.STAGE_RULES`) count their estimate: expected
items times per-item cost (`vlcomp.plan.sizes`, `vlcomp.plan.costs`); every other job counts
its ``runtime`` request, an upper bound (marked ``≤`` in the ``basis`` column). A job that asks
for a GPU counts GPU-hours, any other CPU-hours (its threads times its hours). The download
rules are local rules (they run where Snakemake runs, which has the network): they count no
cluster hours, and a line gives their number and bytes (``--downloads`` lists each, with its
pin: `vlcomp.plan.downloads`), another what the partitions' time limit (config
``cluster.max_runtime_min``) means for the run. The last line is ``longest job: X h; total: Y
GPU-h, Z CPU-h``.

Then what each paper's tables and each table cost (the hours of every job they need, and of
those no other paper or table needs: `vlcomp.plan.dag`), and the jobs that feed no table,
figure or finding (none, in the shipped configurations).

The GPU estimates are for an NVIDIA A100. ``--measured gpu_check.json`` (written by
``scripts/gpu_check.sh`` on a GPU) replaces the estimates it measured when its GPU is of the
plan's ``--gpu-kind`` (default A100): those jobs' basis reads ``measured``; on a mismatch a
note is printed and the estimates stay.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from vlcomp.checkout import add_workflow_options, local_snakemake_env, resolve_workflow_options
from vlcomp.config import read_config
from vlcomp.plan.costs import Cost, measured_costs, traced_costs
from vlcomp.plan.dag import format_report_plan, report_plan
from vlcomp.plan.downloads import DOWNLOAD_RULES, format_downloads, plan_downloads
from vlcomp.plan.dry_run import DryJob, parse_dry_run
from vlcomp.plan.estimates import STAGE_RULES, stage_job
from vlcomp.plan.measured import gpu_matches, read_measured
from vlcomp.plan.requests import doubling_rules


def dry_run(configfile: Path, snakefile: Path, directory: Path | None = None,
            extra: Sequence[str] = (), targets: Sequence[str] = ()) -> str:
    """Snakemake's dry run of the whole DAG (or of ``targets``): in an empty folder (every
    job listed), or in ``directory`` (the jobs a run there would still run), with ``extra``
    options."""
    with tempfile.TemporaryDirectory() as empty:
        done = subprocess.run(
            [sys.executable, "-m", "snakemake", *targets, "-n", "-s", str(snakefile.resolve()),
             "--directory", str(directory or empty), "--configfile", str(configfile.resolve()),
             *extra],
            capture_output=True, text=True, check=False, env=local_snakemake_env(snakefile))
    if done.returncode:
        said = (done.stdout + done.stderr).strip()
        raise SystemExit(f"the dry run of {configfile} failed:\n{said[-3000:]}")
    return done.stdout + done.stderr


def job_cost(config: dict, job: DryJob) -> tuple[float, float, float, str]:
    """(items, hours, longest hours, basis) of one job: the stage estimate (a shard's even
    share, and the longest shard where whole units make shards uneven), or its runtime
    request."""
    stage = STAGE_RULES.get(job.rule)
    if stage is not None:
        if job.rule.endswith("_gather"):
            return 0, 0.0, 0.0, "gather"
        kind, key = stage
        with traced_costs() as used:
            estimate = stage_job(config, kind, job.wildcards[key],
                                 benchmark=job.wildcards.get("benchmark"),
                                 imageset=job.wildcards.get("imageset"))
        return (estimate.items / estimate.shards, estimate.hours / estimate.shards,
                estimate.shard_hours, cost_basis(used))
    return 0, job.runtime_min / 60, job.runtime_min / 60, "≤ request"


def cost_basis(used: list[Cost]) -> str:
    """``estimate``, ``measured`` or ``measured+estimate``: what a job's per-item costs are."""
    measured = {c.measured for c in used}
    if measured == {True}:
        return "measured"
    return "measured+estimate" if True in measured else "estimate"


def gpu_costs(measured: Path | None, gpu_kind: str) -> tuple[dict, str | None]:
    """The measured costs to use for a plan on ``gpu_kind`` GPUs (none unless the file's GPU
    is of that kind), and a note saying which costs the plan uses."""
    if measured is None:
        return {}, (None if gpu_matches("NVIDIA A100", gpu_kind) else
                    f"note: the GPU estimates are for an A100 (--gpu-kind {gpu_kind})")
    found = read_measured(measured)
    if not gpu_matches(found.gpu, gpu_kind):
        return {}, (f"note: {measured} was measured on {found.gpu}, not on --gpu-kind "
                    f"{gpu_kind}: keeping the estimates (for an A100)")
    kinds = ", ".join(f"{kind}/{scale}" for kind, scale in found.costs)
    note = f"measured on {found.gpu} ({measured}): {kinds or 'nothing usable'}"
    if found.kept:
        note += (f"; estimates kept for {', '.join(found.kept)} (timed as model steps on "
                 "in-memory images, without JPEG decoding or validation)")
    return found.costs, note


def job_hours(config: dict, job: DryJob) -> tuple[float, float]:
    """(GPU-hours, CPU-hours) of one cluster job (a local rule's count none)."""
    if job.local or job.rule in DOWNLOAD_RULES:
        return 0.0, 0.0
    _, hours, _, _ = job_cost(config, job)
    return (hours * job.gpus, 0.0) if job.gpus else (0.0, hours * job.threads)


def plan_rows(config: dict, jobs: list[DryJob]) -> list[dict]:
    """One row per rule: jobs, items, GPU-h, CPU-h, longest job (h) and basis."""
    rows: dict[str, dict] = {}
    for job in jobs:
        if job.local or job.rule in DOWNLOAD_RULES:  # on the host Snakemake runs on
            continue
        items, hours, longest, basis = job_cost(config, job)
        row = rows.setdefault(job.rule, {"rule": job.rule, "jobs": 0, "items": 0.0,
                                         "gpu_h": 0.0, "cpu_h": 0.0, "longest_h": 0.0,
                                         "basis": basis})
        if row["basis"] != basis:  # some runs of the rule measured, others estimated
            row["basis"] = "measured+estimate"
        row["jobs"] += 1
        row["items"] += items
        if job.gpus:
            row["gpu_h"] += hours * job.gpus
        else:
            row["cpu_h"] += hours * job.threads
        row["longest_h"] = max(row["longest_h"], longest)
    return sorted(rows.values(), key=lambda r: (-(r["gpu_h"] + r["cpu_h"]), r["rule"]))


def format_plan(rows: list[dict]) -> str:
    """The plan as a text table and its closing line."""
    lines = [f"{'rule':32} {'jobs':>6} {'items':>12} {'GPU-h':>9} {'CPU-h':>9} "
             f"{'longest h':>10}  basis"]
    for r in rows:
        items = f"{r['items']:,.0f}" if r["items"] else "-"
        lines.append(f"{r['rule']:32} {r['jobs']:>6} {items:>12} {r['gpu_h']:>9.1f} "
                     f"{r['cpu_h']:>9.1f} {r['longest_h']:>10.2f}  {r['basis']}")
    longest = max((r["longest_h"] for r in rows), default=0.0)
    gpu, cpu = sum(r["gpu_h"] for r in rows), sum(r["cpu_h"] for r in rows)
    gpu_rows = [r for r in rows if r["gpu_h"]]
    if gpu_rows:
        top = max(gpu_rows, key=lambda r: r["longest_h"])
        lines.append(f"longest GPU job: {top['longest_h']:.1f} h ({top['rule']}, "
                     f"{top['basis']})")
    lines.append(f"longest job: {longest:.1f} h; total: {gpu:.1f} GPU-h, {cpu:.1f} CPU-h")
    return "\n".join(lines)


def format_time_limit(rows: list[dict], jobs: list[DryJob], limit: int | None,
                      doubling: set[str]) -> str:
    """What the partition time limit (config ``cluster.max_runtime_min``) means for this plan:
    the rules with a job estimated longer, or, without a limit, the largest request a retry
    makes (the rules in ``doubling`` double it: `vlcomp.plan.requests`)."""
    if limit is None:
        retried = [j for j in jobs if j.rule in doubling and not j.local
                   and j.rule not in DOWNLOAD_RULES]
        top = max(retried, key=lambda j: j.runtime_min, default=None)
        if top is None or not top.runtime_min:
            return "time limit: none set (cluster.max_runtime_min)"
        return (f"time limit: none set (cluster.max_runtime_min); a retry doubles a job's "
                f"request, up to {2 * top.runtime_min / 60:.1f} h ({top.rule}): set your "
                "partitions' limit to cap it")
    longer = [r for r in rows if r["longest_h"] * 60 > limit]
    if not longer:
        return (f"time limit: {limit} min (cluster.max_runtime_min): every job fits; retries "
                "ask at most that")
    named = ", ".join(f"{r['rule']} ({r['longest_h']:.1f} h)" for r in longer)
    return (f"time limit: {limit} min (cluster.max_runtime_min): retries ask at most that; "
            f"estimated longer: {named}: shard their stage (shards.counts) or give them a "
            "partition that allows them")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m vlcomp.plan", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workflow_options(parser, "--configfile")
    parser.add_argument("--downloads", action="store_true",
                        help="list every download (target, size, pin) before the plan")
    parser.add_argument("--measured", type=Path, default=None,
                        help="a scripts/gpu_check.sh JSON whose measured per-item costs replace "
                        "the estimates when its GPU is of --gpu-kind")
    parser.add_argument("--gpu-kind", default="A100",
                        help="the GPUs the plan is for (default A100, the estimates' GPU)")
    args = parser.parse_args(argv)
    try:
        costs, note = gpu_costs(args.measured, args.gpu_kind)
    except ValueError as err:  # not a full gpu_check run on a GPU
        raise SystemExit(f"--measured: {err}") from None
    resolve_workflow_options(args, "--configfile")
    config = read_config(args.configfile, args.snakefile)
    jobs = parse_dry_run(dry_run(args.configfile, args.snakefile))
    if not jobs:
        raise SystemExit(f"the dry run of {args.configfile} lists no jobs")
    if note:
        print(note)
    print(plan_text(config, jobs, args.snakefile, costs, listing=args.downloads))


def plan_text(config: dict, jobs: list[DryJob], snakefile: Path, costs: dict,
              listing: bool = False) -> str:
    """The plan of ``jobs`` (a dry run's) as printed: per rule, per paper and table, the
    downloads, the time limit and the closing totals line."""
    with measured_costs(costs):
        rows = plan_rows(config, jobs)
        reports = report_plan(jobs, lambda job: job_hours(config, job))
    plan = format_plan(rows).split("\n")
    downloads = format_downloads(plan_downloads(config, jobs), listing=listing)
    rule_files = (snakefile.resolve().parent / "workflow" / "rules").rglob("*.smk")
    limit = format_time_limit(rows, jobs, (config.get("cluster") or {}).get("max_runtime_min"),
                              doubling_rules(rule_files))
    return "\n".join([*plan[:-1], format_report_plan(reports), downloads, limit, plan[-1]])

if __name__ == "__main__":
    main()
