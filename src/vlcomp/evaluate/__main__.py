"""``vlcomp evaluate MODEL.yaml``: one's own models through the papers' benchmarks, beside
every published number and every model already evaluated in the results folder, without
running any of those again.

    vlcomp evaluate my_clip.yaml                          # every benchmark of the base config
    vlcomp evaluate my_clip.yaml --papers aro,bivlc --plan   # what it costs, nothing run
    vlcomp evaluate my_clip.yaml -- --profile profiles/slurm  # options after -- go to snakemake

MODEL.yaml holds ``models:`` (entries as under a configuration's ``models``, docs/own-model.md)
and may set any other key (``paper_models`` to have claims test a model) or ``extends:`` the
configuration it joins; without ``extends`` it joins ``--configfile`` (default
config/evaluate.yaml: the released benchmarks and checkpoints, nothing trained).

The configuration it runs is written beside the run (``--write-config``, default
``<directory>/<MODEL stem>.evaluate.yaml``) and is the base one with
- only the benchmarks the papers asked for read (``--papers``: aro, bivlc, bison,
  visualgptscore, hendriksen), of those only ``--benchmarks`` when named; no stage that
  builds a paper's data (BiVLC's image generation and detectors: `without_construction`);
- of the base's models, those evaluated in the folder already: a model that a dry run there
  (``--rerun-triggers mtime``, as the run) still has a job for is left out, with every list
  that names it (re-rankers, classification, null sampling, the papers' models), unless
  another stage uses it as a tool (the robustness relevance model), which then runs.
So the run makes the new models' jobs, what they need that is missing, the tables, summary,
findings and results page that list models, and for each new model
``results/models/<model>_vs_published.md``: its cells beside every published number of the
same table and column (rule model_vs_published). The plan of exactly those jobs is printed
first (`vlcomp.plan`), and ``--plan`` stops there. Tables of papers not asked for that read
the same benchmarks are refreshed too; with ``--papers`` / ``--benchmarks`` the summary and
the page list the tables configured (run again without them to list all: nothing that
exists runs again).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from vlcomp.checkout import add_workflow_options, local_snakemake_env, workflow_file
from vlcomp.config import ConfigError, merge_config, read_config
from vlcomp.evaluate.selection import (
    job_models,
    parse_names,
    select_benchmarks,
    tool_models,
    without_construction,
    without_models,
)
from vlcomp.io import atomic_path
from vlcomp.plan.__main__ import dry_run, gpu_costs, job_hours, plan_text
from vlcomp.plan.costs import measured_costs
from vlcomp.plan.dry_run import DryJob, parse_dry_run

RERUN = ("--rerun-triggers", "mtime")  # a finished model's files stand while they are newer
BESIDE = "results/models/{}_vs_published.md"  # a model's cells beside the published numbers
MAX_ROUNDS = 4  # dry runs to settle which base models are evaluated


def read_model_file(path: Path, base: Path, snakefile: Path) -> tuple[dict[str, Any], list[str]]:
    """The whole configuration MODEL.yaml makes (its ``extends`` or ``base`` updated by it)
    and the names of the models it adds."""
    try:
        spec = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as err:
        raise ConfigError(f"{path}: {err}") from None
    models = spec.get("models") if isinstance(spec, dict) else None
    if not isinstance(models, dict) or not any(v is not None for v in models.values()):
        raise ConfigError(f"{path}: no models: give `models: {{name: entry}}` "
                          "(docs/own-model.md)")
    if "extends" in spec:
        config = read_config(path, snakefile)
    elif not Path(base).is_file():
        raise ConfigError(f"--configfile {base}: no such file (the configuration {path} "
                          "joins; or give it `extends:`)")
    else:
        config = merge_config(read_config(base, snakefile), spec)
    return config, [name for name, entry in models.items() if entry is not None]


def write_yaml(config: dict[str, Any], path: Path) -> None:
    """``config`` as YAML at ``path`` (written whole or not at all)."""
    with atomic_path(path) as partial:
        partial.write_text(yaml.safe_dump(config, sort_keys=False))


def targets(new: list[str]) -> list[str]:
    """What the run makes: the default target and each new model beside the published."""
    return ["all", *(BESIDE.format(m) for m in new)]


def pending_by_model(jobs: list[DryJob], config: dict[str, Any]) -> dict[str, int]:
    """Configured model → how many of the dry run's jobs are its."""
    counts: dict[str, int] = {}
    for model in job_models(jobs, config):
        if model is not None:
            counts[model] = counts.get(model, 0) + 1
    return counts


def settle(config: dict[str, Any], new: list[str], path: Path, snakefile: Path,
           directory: Path) -> tuple[dict[str, Any], list[DryJob], dict[str, int], list[str]]:
    """The configuration to run: the base models with jobs still to run in ``directory`` left
    out (`without_models`) until a dry run finds none. Returns it, its pending jobs, the
    left-out models with their pending job counts, and the tool models run as well."""
    left_out: dict[str, int] = {}
    demoted: set[str] = set()
    for _ in range(MAX_ROUNDS):
        write_yaml(config, path)
        jobs = parse_dry_run(dry_run(path, snakefile, directory, RERUN, targets(new)))
        pending = pending_by_model(jobs, config)
        tools = tool_models(config)
        busy = {m: n for m, n in pending.items() if m not in new and m not in tools}
        busy_tools = {m for m in pending if m in tools and m not in new} - demoted
        if not busy and not busy_tools:
            ran = sorted(m for m in pending if m not in new)
            return config, jobs, left_out, ran
        left_out.update(busy)
        demoted |= busy_tools
        config = without_models(config, busy, demoted)
    raise SystemExit(f"vlcomp evaluate: the models to leave out did not settle in {MAX_ROUNDS} "
                     f"dry runs (left out so far: {sorted(left_out)})")


def own_hours(config: dict[str, Any], jobs: list[DryJob], models: list[str],
              costs: dict) -> tuple[float, float]:
    """(GPU-h, CPU-h) of the jobs of ``models`` alone."""
    mine = [j for j, m in zip(jobs, job_models(jobs, config), strict=True) if m in models]
    with measured_costs(costs):
        hours = [job_hours(config, j) for j in mine]
    return sum(h[0] for h in hours), sum(h[1] for h in hours)


def parse_args(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """Options, and what follows ``--`` (for snakemake)."""
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(prog="vlcomp evaluate", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model_file", type=Path, help="a YAML file with `models:`")
    add_workflow_options(parser, "--configfile")
    for action in parser._actions:  # this command's base is the evaluate-only configuration
        if "--configfile" in action.option_strings:
            action.help = ("the configuration MODEL.yaml joins unless it says `extends:` "
                           "(default: config/evaluate.yaml of the checkout)")
    parser.add_argument("--papers", help="comma-separated: aro, bivlc, bison, visualgptscore, "
                        "hendriksen (default: all the configuration has)")
    parser.add_argument("--benchmarks", help="comma-separated benchmark names (default: all "
                        "of the papers')")
    parser.add_argument("--directory", type=Path, default=Path("."),
                        help="the results folder's working folder (default: .)")
    parser.add_argument("--write-config", type=Path,
                        help="where the configuration run goes (default: "
                        "DIRECTORY/MODEL-STEM.evaluate.yaml)")
    parser.add_argument("--plan", action="store_true", help="print the plan, run nothing")
    parser.add_argument("--cores", default="all", help="snakemake --cores (default: all)")
    parser.add_argument("--measured", type=Path, help="as for vlcomp plan")
    parser.add_argument("--gpu-kind", default="A100", help="as for vlcomp plan")
    return parser.parse_args(argv), extra


def main(argv: list[str] | None = None) -> int:
    args, extra = parse_args(list(sys.argv[1:] if argv is None else argv))
    args.snakefile = args.snakefile or workflow_file("Snakefile", "--snakefile")
    args.configfile = args.configfile or workflow_file("config/evaluate.yaml", "--configfile")
    directory = args.directory.resolve()
    path = (args.write_config or directory / f"{args.model_file.stem}.evaluate.yaml").resolve()
    try:
        costs, note = gpu_costs(args.measured, args.gpu_kind)
        config, new = read_model_file(args.model_file, args.configfile, args.snakefile)
        config = without_construction(select_benchmarks(
            config, parse_names(args.papers), parse_names(args.benchmarks)))
        config, jobs, left_out, tools = settle(config, new, path, args.snakefile, directory)
    except (ConfigError, ValueError) as err:
        print(f"vlcomp evaluate: {err}", file=sys.stderr)
        return 2
    kept = [m for m in config["models"] if m not in new and m not in tools]
    print(f"vlcomp evaluate: {', '.join(new)} on {', '.join(config['benchmarks'])}")
    print(f"  beside the models evaluated in {directory}: {', '.join(kept) or 'none'}")
    if left_out:
        print("  left out, not evaluated there (jobs they would still run): " + ", ".join(
            f"{m} ({n})" for m, n in sorted(left_out.items())))
    if tools:
        print(f"  run as well, other stages use them (not their optional extras: "
              f"classification, re-ranking, null sampling): {', '.join(tools)}")
    print(f"  configuration: {path}")
    if note:
        print(note)
    if not jobs:
        print("nothing to run: every table is up to date")
        return 0
    print(plan_text(config, jobs, args.snakefile, costs))
    gpu_h, cpu_h = own_hours(config, jobs, new, costs)
    print(f"of which {', '.join(new)} alone: {gpu_h:.1f} GPU-h, {cpu_h:.1f} CPU-h")
    if args.plan:
        return 0
    command = [sys.executable, "-m", "snakemake", *targets(new), "-s",
               str(args.snakefile.resolve()), "--directory", str(directory), "--cores",
               args.cores, *RERUN, *extra, "--configfile", str(path)]
    print("running: snakemake " + " ".join(command[3:]), flush=True)
    code = subprocess.run(command, check=False,
                          env=local_snakemake_env(args.snakefile, extra)).returncode
    if code == 0:
        print("beside the published numbers: " + ", ".join(
            str(directory / BESIDE.format(m)) for m in new))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
