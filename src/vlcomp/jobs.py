"""Helpers for workflow scripts: per-job logs and determinism settings."""

from __future__ import annotations

import logging
import os
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def job_log(path: str | Path) -> Iterator[logging.Logger]:
    """Send stderr (tqdm progress, warnings) and logging of the job to its log file."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", buffering=1) as f:
        old = sys.stderr
        sys.stderr = f
        logging.basicConfig(stream=f, level=logging.INFO, force=True,
                            format="%(asctime)s %(levelname)s %(message)s")
        try:
            yield logging.getLogger("vlcomp")
        except BaseException:
            traceback.print_exc(file=f)
            raise
        finally:
            sys.stderr = old



def prepend_pythonpath(folder: str | Path) -> None:
    """Put ``folder`` first on PYTHONPATH (once), for the processes started from here."""
    parts = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    folder = str(folder)
    os.environ["PYTHONPATH"] = os.pathsep.join([folder, *(p for p in parts if p != folder)])


THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def single_threaded_libraries() -> None:
    """Start every job's numeric libraries (torch, OpenBLAS, MKL) on one thread.

    Set in the Snakefile's environment, so each job inherits it: a ``threads: 1`` job then
    uses one core, as declared, instead of all of them; jobs that run models raise torch's
    threads to their ``threads:`` (``compute.threads``) with `set_torch_threads`.
    """
    for variable in THREAD_VARIABLES:
        os.environ[variable] = "1"


# cuBLAS's deterministic workspaces (8 of 4 MiB per stream): without it, deterministic torch
# raises at the first CUDA matrix product (`vlcomp.determinism`)
CUBLAS_WORKSPACE = ":4096:8"


def cuda_determinism_environment() -> None:
    """Give every job ``CUBLAS_WORKSPACE_CONFIG`` before CUDA starts in it (set in the
    Snakefile's environment, which local and SLURM jobs inherit), unless already chosen."""
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", CUBLAS_WORKSPACE)


# Hugging Face libraries' switches that forbid any download (transformers, hub, datasets)
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE")


def offline_hub_environment() -> None:
    """Run every job offline: models and datasets come from the snapshots the download
    rules fetched (`vlcomp.models.hub`), never from the hub or the home cache. Set in the
    Snakefile's environment, which local and SLURM jobs inherit; the download rules fetch
    over plain HTTP and are not affected."""
    for variable in OFFLINE_VARIABLES:
        os.environ[variable] = "1"
