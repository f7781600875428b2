"""Fetch one remote file into resources/ (atomic, retried, content-checked, checksummed)."""

from vlcomp.data.download import Expected, fetch
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    remote, url = snakemake.params.remote, snakemake.params.url
    expected = Expected(sha256=remote.sha256, git_blob=remote.git_blob, kind=remote.kind,
                        lock=snakemake.params.lock, key=remote.path, url=remote.url)
    checked = fetch(url, snakemake.output[0], expected, retries=snakemake.params.retries)
    log.info("%s: %d bytes, sha256 %s (%s)", snakemake.output[0], checked.size, checked.sha256,
             checked.against)
