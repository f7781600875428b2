"""``vlcomp preflight --configfile FILE [--profile DIR] [--device cuda]``: everything a run
needs, checked before it starts; one line per check (ok / missing / blocker, and the fix),
exit 1 on a blocker.

Run it where the run starts (the checkout, or the folder ``--directory`` names), after
``bash scripts/fetch.sh``; with ``--profile profiles/slurm`` on the cluster's login node (its
partitions and your accounts are asked of ``sinfo`` and ``sacctmgr``); with ``--device cuda``
on a GPU node (``srun --gpus=1 .venv/bin/vlcomp preflight --configfile ... --device cuda``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vlcomp.checkout import add_workflow_options, resolve_workflow_options, workflow_root
from vlcomp.config import read_config
from vlcomp.preflight import BLOCKER, Check, format_checks


def run_checks(args: argparse.Namespace) -> list[Check]:
    """Every check the arguments ask for, in the order a user meets them."""
    from vlcomp.metrics.captioning import java_version
    from vlcomp.plan.__main__ import dry_run
    from vlcomp.plan.dry_run import parse_dry_run
    from vlcomp.preflight.files import download_checks
    from vlcomp.preflight.software import software_checks

    workdir = (args.directory or Path.cwd()).resolve()
    config = read_config(args.configfile, args.snakefile)
    profile = None
    if args.profile is not None:
        from vlcomp.preflight.profile import load_profile

        profile = load_profile(args.profile)
    methods = str((profile or {}).get("software-deployment-method", ""))
    conda_env = workflow_root() / "envs" / "nlp.yaml" if "conda" in methods else None
    try:
        jobs = parse_dry_run(dry_run(args.configfile, args.snakefile))
    except SystemExit as err:  # the configuration itself is refused: nothing else is known
        return [Check("configuration", BLOCKER, str(err).strip().splitlines()[-1],
                      "fix the configuration as the message says")]
    checks = [Check("configuration", "ok", f"{args.configfile}: {len(jobs)} jobs planned")]
    checks += software_checks(config, {j.rule for j in jobs}, workdir, conda_env,
                              java_version())
    fetch = f"bash scripts/fetch.sh --configfile {args.configfile}"
    checks += download_checks(config, jobs, workdir, fetch, verify=args.verify)
    if args.device == "cuda":
        from vlcomp.preflight.device import device_checks

        checks += device_checks()
    if args.profile is not None:
        from vlcomp.preflight import profile as profile_module
        from vlcomp.preflight import slurm

        cluster, cluster_note = slurm.partitions()
        accounts, accounts_note = slurm.accounts()
        rule_files = sorted((args.snakefile.resolve().parent / "workflow" / "rules").rglob(
            "*.smk"))
        checks += profile_module.profile_checks(
            args.profile, jobs, cluster, cluster_note, accounts, accounts_note,
            profile_module.doubling_rules(rule_files),
            (config.get("cluster") or {}).get("max_runtime_min"), workdir)
    return checks


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="vlcomp preflight", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workflow_options(parser, "--configfile")
    parser.add_argument("--profile", type=Path, default=None,
                        help="a Snakemake profile folder (profiles/slurm) to check against "
                        "the cluster")
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cpu",
                        help="cuda: check the NVIDIA driver against torch's CUDA build and "
                        "run a matmul (on a GPU node)")
    parser.add_argument("--directory", type=Path, default=None,
                        help="the folder the run works in (default: here)")
    parser.add_argument("--verify", action="store_true",
                        help="hash every fetched download against its pin (the published "
                        "sha256 or git blob id, else the lock file's record): minutes for "
                        "the paper's 50 GB")
    args = parser.parse_args(argv)
    resolve_workflow_options(args, "--configfile")
    where = ", ".join(filter(None, [str(args.configfile),
                                    args.profile and f"profile {args.profile}",
                                    f"device {args.device}"]))
    print(f"vlcomp preflight: {where}", flush=True)
    checks = run_checks(args)
    print(format_checks(checks))
    sys.exit(1 if any(c.status == BLOCKER for c in checks) else 0)


if __name__ == "__main__":
    main()
