"""A SLURM profile against the cluster: its placeholders, where each job goes (GPU jobs to a
partition with GPUs, CPU jobs not), and each request, its retries included, within its
partition's time limit.

The jobs are the configuration's dry run with the profile's resources laid over them as
Snakemake does (``default-resources`` where a rule sets none, ``set-resources`` over the
rule's); partitions are chosen as the SLURM executor plugin chooses them: an explicit
``slurm_partition``, else the best fit of the profile's ``slurm-partition-config`` (the
plugin's own scoring), else the cluster's default partition.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from vlcomp.plan.dry_run import DryJob
from vlcomp.plan.requests import doubling_rules, runtime_by_attempt
from vlcomp.preflight import BLOCKER, MISSING, OK, Check
from vlcomp.preflight.slurm import ClusterPartition

__all__ = ["doubling_rules", "job_resources", "load_profile", "profile_checks"]

def _pairs(value: Any) -> dict[str, Any]:
    """A resources mapping from a profile: a mapping, or a list of ``key=value``."""
    if isinstance(value, Mapping):
        return dict(value)
    out = {}
    for item in value or []:
        key, _, raw = str(item).partition("=")
        out[key.strip()] = raw.strip()
    return out


def load_profile(folder: Path) -> dict[str, Any]:
    """The profile's config.yaml, with its resources as mappings."""
    path = folder / "config.yaml"
    profile = yaml.safe_load(path.read_text()) or {}
    profile["default-resources"] = _pairs(profile.get("default-resources"))
    sets = profile.get("set-resources") or {}
    if not isinstance(sets, Mapping):  # ["rule:key=value", ...]
        merged: dict[str, dict[str, Any]] = {}
        for item in sets:
            rule, _, pair = str(item).partition(":")
            merged.setdefault(rule, {}).update(_pairs([pair]))
        sets = merged
    profile["set-resources"] = {rule: _pairs(v) for rule, v in sets.items()}
    return profile


def job_resources(job: DryJob, profile: Mapping[str, Any]) -> dict[str, Any]:
    """A job's resources as submitted: the profile's defaults, the rule's, the profile's
    per-rule values; numbers as numbers."""
    merged = {**profile["default-resources"], **job.resources,
              **profile["set-resources"].get(job.rule, {})}
    for key, value in merged.items():
        if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
            merged[key] = int(value)
    return merged


class _Resources(dict):
    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as err:
            raise AttributeError(name) from err


class _PluginJob:
    """What the SLURM plugin's partition scoring reads of a job."""

    def __init__(self, job: DryJob, resources: dict[str, Any]) -> None:
        self.name = job.rule
        self.threads = job.threads
        self.resources = _Resources(resources)


def partition_config(profile: Mapping[str, Any], profile_dir: Path,
                     workdir: Path) -> Path | None:
    """The profile's ``slurm-partition-config`` file: as Snakemake finds it, in the profile's
    folder when it is there, else where Snakemake runs."""
    name = profile.get("slurm-partition-config")
    if not name:
        return None
    name = Path(os.path.expanduser(os.path.expandvars(str(name))))
    return profile_dir / name if (profile_dir / name).exists() else workdir / name


def choose_partition(job: DryJob, resources: dict[str, Any], configured: list | None,
                     cluster: Mapping[str, ClusterPartition]) -> str | None:
    """The partition the plugin submits this job to."""
    if resources.get("slurm_partition"):
        return str(resources["slurm_partition"])
    if configured:
        from snakemake_executor_plugin_slurm.partitions import get_best_partition

        quiet = logging.getLogger("vlcomp.preflight.partitions")
        quiet.setLevel(logging.ERROR)
        best = get_best_partition(configured, _PluginJob(job, resources), quiet)
        if best:
            return best
    return next((p.name for p in cluster.values() if p.default), None)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def profile_checks(profile_dir: Path, jobs: list[DryJob], cluster: Mapping[str,
                   ClusterPartition] | None, cluster_note: str, accounts: set[str] | None,
                   accounts_note: str, doubling: set[str], limit_min: int | None,
                   workdir: Path) -> list[Check]:
    """Placeholders, routing and time limits of ``profile_dir`` for these jobs."""
    profile = load_profile(profile_dir)
    checks = [Check("profile", OK, f"{profile_dir}/config.yaml (executor "
                    f"{profile.get('executor', 'local')}, retries {profile.get('retries', 0)})")]
    if cluster is None:
        return [*checks, Check("cluster", BLOCKER, _one_line(cluster_note),
                               "run the preflight where sbatch runs (the login node)")]
    names = ", ".join(f"{p.name}{'*' if p.default else ''}{' (GPUs)' if p.gpus else ''}"
                      for p in cluster.values())
    checks.append(Check("cluster", OK, f"partitions: {names}"))
    part_file = partition_config(profile, profile_dir, workdir)
    configured, unknown = None, []
    if part_file is not None and not part_file.is_file():
        checks.append(Check("partition file", BLOCKER, f"{part_file} not found",
                            "point slurm-partition-config at your partitions file"))
    elif part_file is not None:
        from snakemake_executor_plugin_slurm.partitions import read_partition_file

        configured = read_partition_file(part_file)
        unknown += [f"{part_file.name}: partition {p.name!r}" for p in configured
                    if p.name not in cluster]
        for p in configured:
            if p.name in cluster and p.limits.max_gpu > 0 and not cluster[p.name].gpus:
                checks.append(Check(f"partition {p.name!r}", BLOCKER,
                                    f"{part_file.name} gives it max_gpu {p.limits.max_gpu}, "
                                    "sinfo shows no GPUs on it",
                                    "set max_gpu: 0, or name your GPU partition"))
    explicit = {str(v) for v in [profile["default-resources"].get("slurm_partition"),
                                 *(r.get("slurm_partition") for r in
                                   profile["set-resources"].values())] if v}
    unknown += [f"config.yaml: slurm_partition {name!r}" for name in sorted(explicit)
                if name not in cluster]
    account = profile["default-resources"].get("slurm_account")
    if account and accounts is None:
        checks.append(Check("account", MISSING, f"slurm_account {account!r} could not be "
                            f"checked ({_one_line(accounts_note)})", "ask your admins which "
                            "account to charge, or delete slurm_account"))
    elif account and account not in accounts:
        unknown.append(f"config.yaml: slurm_account {account!r} (yours: "
                       f"{', '.join(sorted(accounts)) or 'none listed'})")
    elif account:
        checks.append(Check("account", OK, f"slurm_account {account!r} is yours"))
    if unknown:
        checks.append(Check("placeholders", BLOCKER, "still to change (the cluster has no "
                            f"such name): {'; '.join(unknown)}",
                            f"edit the lines marked CHANGE; partitions here: {names}"))
    else:
        checks.append(Check("placeholders", OK, "every partition and account the profile "
                            "names is the cluster's"))
    return checks + _job_checks(profile, jobs, configured, cluster, doubling, limit_min)


def _routing(name: str, wrong: set[str], status: str, text: str, fix: str,
             routed: Mapping[str, set[str]]) -> Check | None:
    """A routing check: the jobs sent where they should not go, else where each went."""
    if wrong:
        return Check(name, status, f"{text}: {', '.join(sorted(wrong)[:4])}", fix)
    if routed:
        return Check(name, OK, "; ".join(f"{len(r)} rule(s) → {p}"
                                         for p, r in sorted(routed.items())))
    return None


def _job_checks(profile: Mapping[str, Any], jobs: list[DryJob], configured: list | None,
                cluster: Mapping[str, ClusterPartition], doubling: set[str],
                limit_min: int | None) -> list[Check]:
    """Where each job goes and how long it may ask for, its retries included."""
    retries = int(profile.get("retries", 0) or 0)
    gpu_to: dict[str, set[str]] = {}
    cpu_to: dict[str, set[str]] = {}
    no_gpu_partition, zero_gpus, gpu_wasted = set(), set(), set()
    too_long: dict[str, str] = {}
    nowhere: set[str] = set()
    asks_gpu = False
    longest: tuple[float, str, str] = (0.0, "", "")
    for job in jobs:
        if job.local or job.rule == "all":  # runs where Snakemake runs, or runs nothing
            continue
        res = job_resources(job, profile)
        part = choose_partition(job, res, configured, cluster)
        gpus = int(res.get("gpu", 0) or 0)
        asks_gpu = asks_gpu or gpus > 0
        if not gpus and res.get("gpu_model"):
            zero_gpus.add(job.rule)
        if part not in cluster:
            nowhere.add(job.rule)
            continue
        (gpu_to if gpus else cpu_to).setdefault(part, set()).add(job.rule)
        if gpus and not cluster[part].gpus:
            no_gpu_partition.add(f"{job.rule} → {part}")
        if not gpus and cluster[part].gpus and any(not p.gpus for p in cluster.values()):
            gpu_wasted.add(f"{job.rule} → {part}")
        first = float(res.get("runtime", 0) or 0)
        last = (runtime_by_attempt(first, 1 + retries, limit_min) if job.rule in doubling
                else first)
        if last > longest[0]:
            longest = (last, job.rule, part)
        bound = cluster[part].limit_min
        if bound is not None and last > bound:
            too_long[job.rule] = (f"{job.rule} asks {last / 60:.1f} h on {part} (limit "
                                  f"{bound / 60:.1f} h)")
    checks = []
    if nowhere:
        some = ", ".join(sorted(nowhere)[:4]) + (", …" if len(nowhere) > 4 else "")
        checks.append(Check("routing", MISSING, f"{len(nowhere)} rule(s) go to no partition of "
                            f"the cluster until the placeholders are changed ({some})",
                            "change the placeholders above, then run the preflight again"))
    gpu = _routing("GPU routing", no_gpu_partition, BLOCKER, "jobs asking for GPUs go to "
                   "partitions without", "list your GPU partition (max_gpu > 0) in the "
                   "partition file", gpu_to)
    if gpu is not None:
        checks.append(gpu)
    elif not asks_gpu:
        checks.append(Check("GPU routing", OK, "no job asks for a GPU"))
    if zero_gpus:
        checks.append(Check("GPU model", BLOCKER, "rules asking for no GPU carry a gpu_model, "
                            f"so sbatch gets --gpus=<model>:0: {', '.join(sorted(zero_gpus))}",
                            "remove gpu_model from their set-resources (compute.gpu_model "
                            "asks for it only with a GPU)"))
    cpu = _routing("CPU routing", gpu_wasted, MISSING, "jobs without a GPU go to a GPU "
                   "partition", "route them by the partition file, not by slurm_partition",
                   cpu_to)
    checks += [cpu] if cpu is not None else []
    if too_long:
        checks.append(Check("time limits", BLOCKER, "requests (with their retries) past their "
                            f"partition's limit: {'; '.join(sorted(too_long.values())[:4])}",
                            "set cluster.max_runtime_min to the limit in the configuration, "
                            "and shard what is estimated longer (vlcomp plan)"))
    elif longest[1]:
        minutes, rule, part = longest
        checks.append(Check("time limits", OK, f"every request fits, {retries} retr"
                            f"{'y' if retries == 1 else 'ies'} included (longest: {rule}, "
                            f"{minutes / 60:.1f} h on {part})"))
    return checks
