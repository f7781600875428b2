"""Check a manually downloaded dataset folder and mark it checked."""

from pathlib import Path

from vlcomp.data.download import check_manual_download
from vlcomp.jobs import job_log

with job_log(snakemake.log[0]) as log:
    p = snakemake.params
    found = check_manual_download(Path(snakemake.output[0]).parent, p.pattern, p.min_files,
                                  p.instructions)
    Path(snakemake.output[0]).write_text(f"{found} files match {p.pattern}\n")
    log.info("%s: %d files", Path(snakemake.output[0]).parent, found)
