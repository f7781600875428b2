"""Fetch one hub repository at its pinned commit into resources/ (vlcomp.data.hub_download)."""

from vlcomp.data.hub_download import fetch_snapshot
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    ref = snakemake.params.ref
    manifest = fetch_snapshot(ref, snakemake.output[0], snakemake.params.mirrors,
                              snakemake.params.lock, snakemake.params.retries)
    size = sum(f["size"] for f in manifest["files"].values())
    log.info("%s at %s: %d files, %d bytes (%s)", ref.repo, manifest["revision"],
             len(manifest["files"]), size,
             "pinned by the configuration" if ref.revision else "pinned by the lock file")
