"""vlcomp preflight: each check on what it reads (the shipped profile and partition file, the
repository's rules, sinfo's output), and the command on the default configuration."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
import yaml

from vlcomp.plan.dry_run import DryJob
from vlcomp.preflight import BLOCKER, MISSING, OK, Check, format_checks
from vlcomp.preflight.device import driver_check
from vlcomp.preflight.files import download_checks
from vlcomp.preflight.profile import doubling_rules, job_resources, load_profile, profile_checks
from vlcomp.preflight.slurm import ClusterPartition, parse_sinfo, time_limit_min
from vlcomp.preflight.software import check_java, check_spacy

from .conftest import REPO, SHARED_DATA

PROFILE = REPO / "profiles" / "slurm"
RULES = sorted((REPO / "workflow" / "rules").rglob("*.smk"))


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {c.name: c for c in checks}


def test_sinfo_time_limits_and_partitions_are_read():
    assert time_limit_min("2-00:00:00") == 2880
    assert time_limit_min("12:00:00") == 720 and time_limit_min("30:00") == 30
    assert time_limit_min("infinite") is None and time_limit_min("UNLIMITED") is None
    found = parse_sinfo("cpu*|2-00:00:00|(null)\ngpu|1-00:00:00|gpu:a100:4\n"
                        "gpu|1-00:00:00|(null)\n")
    assert found == {"cpu": ClusterPartition("cpu", True, 2880, False),
                     "gpu": ClusterPartition("gpu", False, 1440, True)}


def test_the_driver_must_be_of_the_cuda_series_torch_was_built_for():
    assert driver_check("580.65.06", "NVIDIA H200", "13.0").status == OK
    old = driver_check("550.54.15", "NVIDIA A100", "13.0")
    assert old.status == BLOCKER and ">= 580" in old.detail
    # a CUDA 12 driver runs PyTorch's CUDA 12 build: the one key that selects it, and the .venv's
    assert 'compute.torch_cuda: "12.8"' in old.fix and "torch==2.14.1+cu128" in old.fix
    ancient = driver_check("470.82.01", "Tesla V100", "13.0")
    assert ancient.status == BLOCKER and "newer NVIDIA driver" in ancient.fix
    assert driver_check("550.54.15", "NVIDIA A100", "12.6").status == OK
    assert driver_check(None, "no nvidia-smi on PATH", "13.0").status == BLOCKER
    assert driver_check("580.1", "x", None).detail == "this torch is built without CUDA"


def test_software_checks_say_what_a_job_would_meet():
    paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    assert check_spacy(paper, None).status == OK
    assert check_spacy({"nlp": {"spacy_model": "en_core_web_sm"}}, None).status == BLOCKER
    # SPICE needs Java <= 15: Java 17 leaves its cells empty (missing, not a blocker)
    assert check_java(paper, 17, conda=False).status == MISSING
    assert check_java(paper, 11, conda=False).status == OK
    assert check_java(paper, None, conda=True).status == OK  # envs/core.yaml brings Java 11
    assert check_java({"benchmarks": {}}, None, conda=False).status == OK


def test_downloads_are_counted_and_the_disk_weighed(tmp_path):
    config = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    jobs = [DryJob("download_file", output=["resources/sugarcrepe/swap_obj.json"],
                   local=True),
            DryJob("download_file", output=["resources/sugarcrepe/add_att.json"], local=True)]
    checks = by_name(download_checks(config, jobs, tmp_path, "bash scripts/fetch.sh", free=10))
    assert checks["downloads"].status == MISSING
    assert checks["downloads"].detail.startswith("2 of 2 not fetched")
    for name in ("swap_obj.json", "add_att.json"):
        (tmp_path / "resources" / "sugarcrepe").mkdir(parents=True, exist_ok=True)
        (tmp_path / "resources" / "sugarcrepe" / name).write_text("[]")
    checks = by_name(download_checks(config, jobs, tmp_path, "fetch", free=10))
    assert checks["downloads"].status == OK and checks["disk"].status == OK
    # --verify hashes them: "[]" is not SugarCrepe's published file; the real ones are
    checks = by_name(download_checks(config, jobs, tmp_path, "fetch", free=10, verify=True))
    assert checks["download hashes"].status == BLOCKER
    assert "2 fetched file(s) do not match" in checks["download hashes"].detail
    assert "not its published pin" in checks["download hashes"].detail
    for name in ("swap_obj.json", "add_att.json"):
        shutil.copy(SHARED_DATA / "sugarcrepe" / name, tmp_path / "resources" / "sugarcrepe")
    checks = by_name(download_checks(config, jobs, tmp_path, "fetch", free=10, verify=True))
    assert checks["download hashes"].status == OK
    assert checks["download hashes"].detail.endswith("(2 published)")
    # a fetched file of another size than its pin blocks without hashing (WordNet's archive)
    archive = tmp_path / "resources" / "wordnet3" / "WordNet-3.0.tar.gz"
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"x" * 100)
    wordnet = [DryJob("download_file", output=["resources/wordnet3/WordNet-3.0.tar.gz"],
                      local=True)]
    checks = by_name(download_checks(config, wordnet, tmp_path, "fetch", free=10))
    assert checks["download sizes"].status == BLOCKER
    assert "(100 B, pinned 11,537,239)" in checks["download sizes"].detail


def test_retries_that_double_are_the_rules_that_ask_so():
    doubling = doubling_rules(RULES)
    assert {"train_clip", "trohn_img_negatives", "embed_model"} <= doubling
    assert "table_aro" not in doubling and "summary" not in doubling


def _jobs() -> list[DryJob]:
    return [DryJob("train_clip", threads=8,
                   resources={"gpu": "1", "runtime": "600", "mem_mb": "32000"}),
            DryJob("table_aro", resources={"runtime": "30", "mem_mb": "2000"}),
            DryJob("download_file", resources={"runtime": "720"}, local=True),
            DryJob("all")]


def test_the_shipped_profile_names_exactly_its_placeholders():
    """On a cluster with other partition names, the placeholders line names the partition
    file's two and the account; nothing else blocks a CPU and GPU plan."""
    cluster = {"batch": ClusterPartition("batch", True, 2880, False),
               "a100": ClusterPartition("a100", False, 2880, True)}
    checks = profile_checks(PROFILE, _jobs(), cluster, "", {"lab"}, "", doubling_rules(RULES),
                            None, REPO)
    blockers = [c for c in checks if c.status == BLOCKER]
    assert [c.name for c in blockers] == ["placeholders"]
    assert blockers[0].detail == (
        "still to change (the cluster has no such name): partitions.yaml: partition 'cpu'; "
        "partitions.yaml: partition 'gpu'; config.yaml: slurm_account 'myproject' (yours: "
        "lab)")
    assert by_name(checks)["routing"].status == MISSING


def test_a_profile_with_the_clusters_names_routes_gpu_jobs_only_to_gpus(tmp_path):
    profile = tmp_path / "slurm"
    profile.mkdir()
    text = (PROFILE / "config.yaml").read_text().replace("slurm_account: myproject",
                                                          "slurm_account: lab")
    (profile / "config.yaml").write_text(text)
    parts = yaml.safe_load((PROFILE / "partitions.yaml").read_text())
    parts["partitions"] = {"batch": parts["partitions"]["cpu"],
                           "a100": parts["partitions"]["gpu"]}
    (profile / "partitions.yaml").write_text(yaml.safe_dump(parts))
    cluster = {"batch": ClusterPartition("batch", True, 1440, False),
               "a100": ClusterPartition("a100", False, 1440, True)}
    checks = by_name(profile_checks(profile, _jobs(), cluster, "", {"lab"}, "",
                                    doubling_rules(RULES), None, tmp_path))
    assert all(c.status == OK for c in checks.values()), format_checks(checks.values())
    assert checks["GPU routing"].detail == "1 rule(s) → a100"
    assert checks["CPU routing"].detail == "1 rule(s) → batch"
    assert "train_clip, 20.0 h on a100" in checks["time limits"].detail  # 10 h, retried
    # a 12 h limit: the retry's 20 h is refused, unless cluster.max_runtime_min caps it
    cluster = {k: ClusterPartition(v.name, v.default, 720, v.gpus) for k, v in cluster.items()}
    late = by_name(profile_checks(profile, _jobs(), cluster, "", {"lab"}, "",
                                  doubling_rules(RULES), None, tmp_path))["time limits"]
    assert late.status == BLOCKER and "train_clip asks 20.0 h on a100" in late.detail
    capped = by_name(profile_checks(profile, _jobs(), cluster, "", {"lab"}, "",
                                    doubling_rules(RULES), 720, tmp_path))["time limits"]
    assert capped.status == OK


def test_a_gpu_model_without_a_gpu_and_a_cluster_without_gpus_are_blockers(tmp_path):
    profile = load_profile(PROFILE)
    job = DryJob("train_clip", resources={"gpu": "0", "runtime": "60"})
    profile["set-resources"]["train_clip"] = {"gpu_model": "a100"}
    assert job_resources(job, profile)["gpu_model"] == "a100"
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / "config.yaml").write_text(yaml.safe_dump({
        "executor": "slurm", "default-resources": {"slurm_partition": "batch"},
        "set-resources": {"train_clip": {"gpu_model": "a100"}}}))
    cluster = {"batch": ClusterPartition("batch", True, None, False)}
    checks = by_name(profile_checks(folder, [job, *_jobs()[:1]], cluster, "", None, "",
                                    set(), None, tmp_path))
    assert checks["GPU model"].status == BLOCKER
    assert checks["GPU routing"].status == BLOCKER  # the GPU job goes to a partition without


def test_without_sinfo_the_profile_cannot_be_checked_here():
    checks = profile_checks(PROFILE, _jobs(), None, "no sinfo on PATH (not a SLURM host)",
                            None, "", set(), None, REPO)
    assert checks[-1] == Check("cluster", BLOCKER, "no sinfo on PATH (not a SLURM host)",
                               "run the preflight where sbatch runs (the login node)")


@pytest.mark.slow
def test_preflight_of_the_default_configuration_passes_here(tmp_path):
    done = subprocess.run([sys.executable, "-m", "vlcomp.cli", "preflight"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("vlcomp preflight: ") and "device cpu" in lines[0]
    assert "  ok       spaCy pipeline" in done.stdout
    assert lines[-1].startswith("preflight: ") and lines[-1].endswith(" 0 blocker(s)")


def test_the_packages_are_checked_against_the_lock(tmp_path):
    from vlcomp.preflight.software import check_lock

    shipped = check_lock(REPO / "requirements-lock.txt", conda=False)
    assert shipped.status == OK and "at requirements-lock.txt's versions" in shipped.detail
    moved = tmp_path / "requirements-lock.txt"
    moved.write_text("numpy==1.0.0 --hash=sha256:" + "0" * 64 + "\nnot-installed-pkg==1.0\n")
    found = check_lock(moved, conda=False)
    assert found.status == BLOCKER and "2 of 2 differ" in found.detail
    assert "numpy 2.4.6 (lock 1.0.0)" in found.detail and "not-installed-pkg absent" in found.detail
    assert "scripts/setup.sh" in found.fix
    assert check_lock(moved, conda=True).status == OK
