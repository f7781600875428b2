"""`vlcomp.jobs.job_log` ends a Snakemake job's process without the interpreter's teardown:
what the script wrote is all there (files left open, a gzip stream's trailer, exit handlers),
a failing script still fails, a live non-daemon thread is waited for, and anything run
outside Snakemake (a test, a user's own call) exits the usual way."""

from __future__ import annotations

import gzip
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vlcomp.jobs import in_snakemake_job

SCRIPT = textwrap.dedent("""\
    import atexit, gzip, threading, time
    from pathlib import Path
    from vlcomp.jobs import job_log

    out = Path({out!r})
    atexit.register(lambda: (out / "atexit.txt").write_text("ran"))
    left_open = open(out / "left_open.txt", "w")          # never closed by the script
    zipped = gzip.open(out / "left_open.gz", "wt")         # needs its trailer
    with job_log(out / "job.log") as log:
        log.info("working")
        left_open.write("every line\\n" * 1000)
        zipped.write("compressed\\n" * 1000)
        if {thread}:
            threading.Thread(target=lambda: (time.sleep(0.5),
                             (out / "thread.txt").write_text("done"))).start()
        if {fail}:
            raise RuntimeError("the job failed")
    (out / "after.txt").write_text("reached")              # only a normal exit gets here
    """)


def run_script(tmp_path: Path, folder: str, fail: bool = False,
               thread: bool = False) -> subprocess.CompletedProcess:
    out = tmp_path / "out"
    out.mkdir()
    script = tmp_path / folder / "tmpab12cd.some_rule.py"
    script.parent.mkdir(parents=True)
    script.write_text(SCRIPT.format(out=str(out), fail=fail, thread=thread))
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)


def assert_written(out: Path) -> None:
    assert (out / "left_open.txt").read_text() == "every line\n" * 1000
    with gzip.open(out / "left_open.gz", "rt") as f:
        assert f.read() == "compressed\n" * 1000
    assert (out / "atexit.txt").read_text() == "ran"
    assert "working" in (out / "job.log").read_text()


def test_a_snakemake_job_ends_at_its_log_block_with_everything_written(tmp_path: Path):
    done = run_script(tmp_path, ".snakemake/scripts")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    assert_written(out)
    assert not (out / "after.txt").exists(), "the process went on past job_log"


def test_elsewhere_the_process_exits_the_usual_way(tmp_path: Path):
    done = run_script(tmp_path, "scripts")
    assert done.returncode == 0, done.stderr
    assert_written(tmp_path / "out")
    assert (tmp_path / "out" / "after.txt").read_text() == "reached"


def test_a_failing_job_still_fails_and_logs_why(tmp_path: Path):
    done = run_script(tmp_path, ".snakemake/scripts", fail=True)
    assert done.returncode == 1
    assert "RuntimeError: the job failed" in (tmp_path / "out" / "job.log").read_text()


def test_a_live_non_daemon_thread_is_waited_for(tmp_path: Path):
    done = run_script(tmp_path, ".snakemake/scripts", thread=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "thread.txt").read_text() == "done"


@pytest.mark.parametrize(("argv0", "expected"), [
    ("/w/.snakemake/scripts/tmpab12cd.train_clip.py", True),
    ("workflow/scripts/train_clip.py", False),
    ("/usr/bin/pytest", False),
    ("", False),
])
def test_only_snakemake_script_copies_count_as_jobs(argv0: str, expected: bool):
    assert in_snakemake_job(argv0) is expected
