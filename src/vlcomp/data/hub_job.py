"""One hub snapshot download in a process of its own, the only one that sees the hub token.

A token in ``HF_TOKEN`` (or ``HUGGING_FACE_HUB_TOKEN``) opens gated repositories. Every
cluster job inherits the environment Snakemake runs in (the SLURM plugin submits with
``--export=ALL``), so the workflow takes the token out of that environment when it starts
(`take_token`) and hands it to the snapshot downloads alone, local rules that run here:
`run_download` starts this module with the token in the new process's environment.

    python -m vlcomp.data.hub_job SPEC_JSON   (what rule download_hub_snapshot runs)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import MutableMapping
from dataclasses import asdict
from typing import Any

from vlcomp.models.hub import HubRef

__all__ = ["TOKEN_VARIABLES", "download_spec", "run_download", "take_token"]

TOKEN_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")


def take_token(environ: MutableMapping[str, str] | None = None) -> str | None:
    """Remove the hub token variables from ``environ`` (default: this process's) and return
    the token (None without one)."""
    environ = os.environ if environ is None else environ
    found = [environ.pop(name, None) for name in TOKEN_VARIABLES]
    return next((value for value in found if value), None)


def download_spec(ref: HubRef, dest: str, mirrors: dict[str, str] | None, lock: str | None,
                  retries: int, log: str) -> dict[str, Any]:
    """What one download job needs, as JSON-able values (no token)."""
    return {"ref": asdict(ref), "dest": dest, "mirrors": mirrors or {}, "lock": lock,
            "retries": retries, "log": log}


def run_download(spec: dict[str, Any], token: str | None) -> None:
    """Run one snapshot download in a new process whose environment alone has the token;
    raises CalledProcessError when it fails (its log says why)."""
    env = dict(os.environ)
    if token:
        env["HF_TOKEN"] = token
    subprocess.run([sys.executable, "-m", "vlcomp.data.hub_job", json.dumps(spec)], env=env,
                   check=True)


def main(argv: list[str] | None = None) -> None:
    from vlcomp.data.hub_download import fetch_snapshot
    from vlcomp.jobs import job_log

    spec = json.loads((argv if argv is not None else sys.argv[1:])[0])
    fields = dict(spec["ref"])
    fields["patterns"] = tuple(fields["patterns"])
    ref = HubRef(**fields)
    with job_log(spec["log"]) as log:
        manifest = fetch_snapshot(ref, spec["dest"], spec["mirrors"], spec["lock"],
                                  spec["retries"])
        size = sum(f["size"] for f in manifest["files"].values())
        log.info("%s at %s: %d files, %d bytes (%s)", ref.repo, manifest["revision"],
                 len(manifest["files"]), size,
                 "pinned by the configuration" if ref.revision else "pinned by the lock file")


if __name__ == "__main__":
    main()
