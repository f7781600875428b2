"""Helpers for workflow scripts: per-job logs and determinism settings."""

from __future__ import annotations

import _io
import atexit
import ctypes
import gc
import logging
import os
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

_FILE_BASE = _io._IOBase


@contextmanager
def job_log(path: str | Path) -> Iterator[logging.Logger]:
    """Send stderr (tqdm progress, warnings) and logging of the job to its log file.

    Every workflow script ends in this block; in a Snakemake job (`in_snakemake_job`) a block
    that ends without an exception ends the process there (`end_process`), skipping the
    interpreter's teardown."""
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
    if in_snakemake_job():
        end_process()


def in_snakemake_job(argv0: str | None = None) -> bool:
    """Whether this interpreter runs a rule's script as Snakemake runs it (its copy under
    ``.snakemake/scripts/``), not a test or a user's own call."""
    if argv0 is None:
        argv0 = sys.argv[0] if sys.argv else ""
    folder = Path(argv0).parent
    return folder.name == "scripts" and folder.parent.name == ".snakemake"


def _close_rank(kind: type) -> int:
    """Close order of open files: wrappers written in Python (gzip, bz2) first, then text
    layers, then buffers, then raw files, so that each one's data reaches the layer below."""
    if kind.__module__ not in ("_io", "io"):
        return 0
    return {"TextIOWrapper": 1, "FileIO": 3}.get(kind.__name__, 2)


def close_open_files() -> int:
    """Close every open Python file object, outermost layer first, as the interpreter's
    teardown would (a gzip file gets its trailer), and flush C's stdio buffers; the number
    of files closed."""
    files, is_file = [], {}
    for obj in gc.get_objects():
        kind = type(obj)  # not obj.__class__: a lazy module's attribute would load or warn
        if kind not in is_file:  # every file object derives from the C base of io.IOBase
            is_file[kind] = _FILE_BASE in getattr(kind, "__mro__", ())
        if is_file[kind]:
            files.append(obj)
    closed = 0
    for obj in sorted(files, key=lambda f: _close_rank(type(f))):
        # a detached or broken stream raises: nothing of ours is left in it
        with suppress(Exception):
            if not obj.closed:
                obj.close()
                closed += 1
    with suppress(OSError, AttributeError):
        ctypes.CDLL(None).fflush(None)
    return closed


def end_process(code: int = 0) -> None:
    """Exit now with ``code``, skipping the interpreter's teardown (freeing every module and
    object: 2.7 CPU-seconds for a process that imported open_clip on the slow AMD host, 0.4
    for pandas; docs/performance.md §10). Exit handlers run first and open files are
    closed, so nothing written is lost; a process with a live non-daemon thread exits the
    usual way, which waits for it."""
    if any(t is not threading.main_thread() and not t.daemon and t.is_alive()
           for t in threading.enumerate()):
        return
    atexit._run_exitfuncs()
    close_open_files()
    os._exit(code)


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
