"""The hub token reaches the snapshot downloads alone (vlcomp.data.hub_job)."""

from __future__ import annotations

import json
import subprocess

from vlcomp.data.hub_job import download_spec, run_download, take_token
from vlcomp.models.hub import HubRef


def test_the_token_leaves_the_environment_jobs_inherit():
    environ = {"HF_TOKEN": "", "HUGGING_FACE_HUB_TOKEN": "hf_abc", "PATH": "/bin"}
    assert take_token(environ) == "hf_abc"
    assert environ == {"PATH": "/bin"}
    assert take_token(environ) is None


def test_a_download_runs_in_its_own_process_with_the_token(monkeypatch):
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda cmd, env, check: calls.append((cmd, env)))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    ref = HubRef("org/model", "a" * 40, patterns=("*.json",))
    spec = download_spec(ref, "resources/models/hub/org/model", None, None, 2, "x.log")
    run_download(spec, "hf_abc")
    cmd, env = calls[0]
    assert cmd[1:3] == ["-m", "vlcomp.data.hub_job"] and env["HF_TOKEN"] == "hf_abc"
    assert "hf_abc" not in " ".join(cmd)  # never on a command line
    assert json.loads(cmd[3])["ref"] == {"repo": "org/model", "revision": "a" * 40,
                                         "kind": "model", "patterns": ["*.json"],
                                         "size": None, "where": ""}
    run_download(spec, None)
    assert "HF_TOKEN" not in calls[1][1]
