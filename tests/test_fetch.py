"""scripts/fetch.sh: every download is tried, and the closing lines say which failed, from
where and why (vlcomp.data.fetch_report), then what to run next."""

from __future__ import annotations

import subprocess

import yaml

from vlcomp.data.fetch_report import FailedJob, failed_jobs, last_error, report

from .conftest import REPO, SHARED_DATA
from .workflow_runs import TINY, run_env

# Snakemake 9's output for a download that failed, was retried and failed again
OUTPUT = """\
Error in rule download_file:
    message: None
    jobid: 0
    output: resources/karpathy/coco_karpathy_test.json
    log: logs/download/karpathy/coco_karpathy_test.json.log (check log file(s) for error details)
Trying to restart job 0.
Select jobs to execute...

[Sat Nov 28 23:07:41 2026]
localrule download_file:
    output: resources/karpathy/coco_karpathy_test.json
Error in rule download_file:
    message: None
    jobid: 0
    output: resources/karpathy/coco_karpathy_test.json
    log: logs/download/karpathy/coco_karpathy_test.json.log (check log file(s) for error details)
Exiting because a job execution failed. Look above for error messages
"""


def test_failed_jobs_are_read_from_snakemakes_output_once_each():
    assert failed_jobs(OUTPUT) == [FailedJob(
        "download_file", "resources/karpathy/coco_karpathy_test.json",
        "logs/download/karpathy/coco_karpathy_test.json.log")]
    assert failed_jobs("Nothing to be done.\n") == []


def test_the_report_gives_each_failure_its_error_and_the_next_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "logs" / "download" / "karpathy" / "coco_karpathy_test.json.log"
    log.parent.mkdir(parents=True)
    log.write_text("Traceback (most recent call last):\n  ...\nvlcomp.data.download."
                   "DownloadError: could not download https://x/y.json to resources/y.json\n")
    assert last_error(log) == "could not download https://x/y.json to resources/y.json"
    text = report(OUTPUT, 1, ["--configfile", "config/paper.yaml"])
    assert text.splitlines()[1] == (
        "  resources/karpathy/coco_karpathy_test.json: could not download https://x/y.json to "
        "resources/y.json [log: logs/download/karpathy/coco_karpathy_test.json.log]")
    assert text.endswith("then again: bash scripts/fetch.sh --configfile config/paper.yaml")
    assert report("", 0, ["--configfile", "c.yaml"]).endswith(
        "Next: vlcomp preflight --configfile c.yaml")
    # the retry succeeded: its output is there, so nothing failed
    out = tmp_path / "resources" / "karpathy" / "coco_karpathy_test.json"
    out.parent.mkdir(parents=True)
    out.write_text("[]")
    assert "Snakemake stopped" in report(OUTPUT, 1, [])


def test_fetch_keeps_going_past_a_failed_download_and_names_it(tmp_path):
    """SugarCrepe's JSON comes through its mirror although Karpathy's mirror lacks its file."""
    from vlcomp.data.sources import BLIP_KARPATHY, SUGARCREPE_COMMIT

    config = yaml.safe_load(TINY.read_text())
    prefix = f"https://raw.githubusercontent.com/RAIVNLab/sugar-crepe/{SUGARCREPE_COMMIT}/data"
    (tmp_path / "mirror").mkdir()
    config["downloads"] = {"mirrors": {prefix: (SHARED_DATA / "sugarcrepe").as_uri(),
                                       BLIP_KARPATHY: (tmp_path / "mirror").as_uri()},
                           "retries": 1}
    path = tmp_path / "mirror.yaml"
    path.write_text(yaml.safe_dump(config))
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "fetch.sh"), "resources/karpathy/coco_karpathy_test.json",
         "resources/sugarcrepe/swap_obj.json", "--configfile", str(path)],
        cwd=tmp_path, capture_output=True, text=True, env=run_env(), timeout=300)
    assert done.returncode == 1, done.stdout[-3000:]
    assert (tmp_path / "resources" / "sugarcrepe" / "swap_obj.json").is_file()
    closing = done.stdout.splitlines()[-3:]
    assert closing[0] == "fetch: 1 download(s) failed (the others are in place and kept):"
    assert closing[1].startswith(
        "  resources/karpathy/coco_karpathy_test.json: could not download "
        f"{(tmp_path / 'mirror').as_uri()}/coco_karpathy_test.json")
    assert closing[2].endswith(f"--configfile {path}")


def test_wordnet_comes_from_princetons_archive_where_no_debian_package_is(tmp_path):
    """nlp.wordnet_source: download: the archive (in Princeton's layout, through a mirror)
    is fetched, checked, unpacked, and rule wordnet builds a readable WordNet from it."""
    from vlcomp.data.sources import WORDNET_ARCHIVE, WORDNET_PREFIX
    from vlcomp.text.wordnet import load_wordnet

    from .real_mirror import _wordnet_release
    from .workflow_runs import snakemake

    _wordnet_release(tmp_path / "mirror")
    config = yaml.safe_load(TINY.read_text())
    config["nlp"]["wordnet_source"] = "download"
    config["downloads"] = {"mirrors": {WORDNET_PREFIX: (tmp_path / "mirror").as_uri()},
                           "retries": 1, "sha256": {WORDNET_ARCHIVE.path: None}}
    path = tmp_path / "wordnet.yaml"
    path.write_text(yaml.safe_dump(config))
    done = snakemake("resources/wordnet", "--cores", "1", "--configfile", str(path),
                     cwd=tmp_path)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "rule unpack_archive" in done.stderr
    assert [s.name() for s in load_wordnet(tmp_path / "resources" / "wordnet")
            .synsets("horse")[:1]] == ["horse.n.01"]
