"""A model added to a finished run (the way people add one: after a first run) is evaluated,
or the run stops naming the key and the file; a model taken out leaves every table.

On a copy of the cut tiny run's finished folder (the session fixture `cut_run`), with its
configuration file extended as a user's own file would be (``extends:``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

from .workflow_runs import snakemake, vlcomp

pytestmark = pytest.mark.slow

# the entry, as a user writes it: open_clip weights of one's own
OPEN_CLIP_ENTRY = {"family": "open_clip", "arch": "ViT-B-32", "label": "My CLIP"}


def with_model(folder: Path, base: Path, name: str, entry: dict, file: str = "mine.yaml") -> Path:
    """A configuration file beside the run that extends `base` by one model."""
    path = folder / file
    path.write_text(yaml.safe_dump({"extends": str(base), "models": {name: entry}}))
    return path


@pytest.fixture(scope="module")
def finished(cut_run, tmp_path_factory) -> Path:
    """A copy of the cut run's finished folder (its Snakemake records included)."""
    reference, _, _ = cut_run
    work = tmp_path_factory.mktemp("added") / "run"
    shutil.copytree(reference, work, symlinks=True)
    return work


def test_a_missing_file_stops_the_dry_run_and_the_run_naming_key_and_file(finished,
                                                                           cut_config_file):
    """Absolute: the dry run stops; relative (a folder that is not there): the run stops, and
    says where it looked; neither touches a table."""
    aro = finished / "results" / "tables" / "aro" / "aro.md"
    before = aro.stat().st_mtime_ns
    config = with_model(finished, cut_config_file, "my_clip",
                        OPEN_CLIP_ENTRY | {"pretrained": "/scratch/me/w.pt"})
    dry = snakemake("-n", "--cores", "2", "--configfile", str(config), cwd=finished)
    said = dry.stdout + dry.stderr
    assert dry.returncode != 0, said[-3000:]
    assert "models.my_clip.pretrained: no such file: /scratch/me/w.pt" in said
    config = with_model(finished, cut_config_file, "my_clip",
                        OPEN_CLIP_ENTRY | {"pretrained": "my_models/w.pt"})
    run = snakemake("--cores", "2", "--configfile", str(config), cwd=finished)
    said = run.stdout + run.stderr
    assert run.returncode != 0, said[-3000:]
    assert ("models.my_clip.pretrained: no such file: my_models/w.pt (looked for "
            f"{finished.resolve() / 'my_models' / 'w.pt'}") in said
    assert "no pinned source" not in said  # a path, not an unknown open_clip tag
    assert aro.stat().st_mtime_ns == before


def test_a_valid_model_gets_its_rows_everywhere_and_leaves_when_taken_out(finished,
                                                                          cut_config_file):
    """A checkpoint of one's own (world CLIP's weights, as `family: checkpoint`) added to the
    finished run: its jobs run and its rows reach the paper tables, the summary, the findings
    (which say no claim tests it) and the results page; run again without it, they go."""
    own = finished / "my_models" / "w.pt"
    own.parent.mkdir(exist_ok=True)
    shutil.copy(finished / "results" / "checkpoints" / "world_clip" / "model.pt", own)
    config = with_model(finished, cut_config_file, "mine",
                        {"family": "checkpoint", "path": "my_models/w.pt", "label": "My CLIP"})
    added = snakemake("--cores", "2", "--configfile", str(config), cwd=finished)
    assert added.returncode == 0, added.stderr[-4000:]
    assert "embed_model" in added.stderr and "wildcards: model=mine" in added.stderr
    results = finished / "results"
    # same weights as world CLIP, so the same numbers, in every table that lists models
    aro = pd.read_csv(results / "tables" / "aro" / "aro.csv", index_col=0)
    assert "My CLIP" in aro.index
    pd.testing.assert_series_equal(aro.loc["My CLIP"], aro.loc["CLIP"], check_names=False)
    sugarcrepe = pd.read_csv(results / "tables" / "sugarcrepe" / "sugarcrepe.csv", index_col=0)
    assert "My CLIP" in sugarcrepe.index
    summary = (results / "summary.md").read_text()
    row = next(line for line in summary.splitlines() if line.startswith("| My CLIP |"))
    assert "–" not in row and "not run" not in row
    findings = (results / "findings.md").read_text()
    assert "## This run's models that no claim tests" in findings
    assert "- My CLIP: not run in any claim: plays no paper model" in findings
    assert "My CLIP" in (results / "index.html").read_text()

    removed = snakemake("--cores", "2", "--configfile", str(cut_config_file), cwd=finished)
    assert removed.returncode == 0, removed.stderr[-4000:]
    for table in ("aro/aro.csv", "aro/table6.csv", "sugarcrepe/sugarcrepe.csv"):
        assert "My CLIP" not in (results / "tables" / table).read_text(), table
    for page in ("summary.md", "findings.md", "index.html"):
        assert "My CLIP" not in (results / page).read_text(), page


@pytest.fixture(scope="module")
def partly_evaluated(cut_run, tmp_path_factory) -> Path:
    """A copy of the cut run's finished folder where the retried CLIP has not been scored on
    SugarCrepe (its metrics removed): evaluated on every benchmark but one."""
    reference, _, _ = cut_run
    work = tmp_path_factory.mktemp("evaluate") / "run"
    shutil.copytree(reference, work, symlinks=True)
    for path in (work / "results" / "metrics" / "flaky").glob("sugarcrepe.*"):
        path.unlink()
    return work


def test_vlcomp_evaluate_runs_only_the_new_models_jobs(partly_evaluated, cut_config_file):
    """`vlcomp evaluate mine.yaml --papers bivlc`: the plan first (nothing run), then only
    the new model's jobs and the tables; world CLIP's files stay as they were, the model not
    evaluated on SugarCrepe is left out (and not run), the new rows stand beside CLIP's."""
    work = partly_evaluated
    own = work / "my_models" / "w.pt"
    own.parent.mkdir()
    shutil.copy(work / "results" / "checkpoints" / "world_clip" / "model.pt", own)
    mine = work / "mine.yaml"
    mine.write_text(yaml.safe_dump({"models": {"mine": {
        "family": "checkpoint", "path": "my_models/w.pt", "label": "My CLIP"}}}))
    table = work / "results" / "tables" / "sugarcrepe" / "sugarcrepe.csv"
    clip_files = sorted((work / "results").rglob("world_clip/*"))
    stamps = {p: p.stat().st_mtime_ns for p in [table, *clip_files]}
    args = ("evaluate", "mine.yaml", "--configfile", str(cut_config_file), "--papers", "bivlc",
            "--cores", "2")
    plan = vlcomp(*args, "--plan", cwd=work)
    assert plan.returncode == 0, plan.stderr[-3000:]
    assert "vlcomp evaluate: mine on sugarcrepe" in plan.stdout
    assert "beside the models evaluated in" in plan.stdout and "world_clip" in plan.stdout
    assert "left out, not evaluated there (jobs they would still run): flaky (" in plan.stdout
    assert "of which mine alone:" in plan.stdout and "running:" not in plan.stdout
    assert table.stat().st_mtime_ns == stamps[table]

    done = vlcomp(*args, cwd=work)
    said = done.stdout + done.stderr
    assert done.returncode == 0, said[-4000:]
    ran = {line.split("model=")[1].split(",")[0] for line in said.splitlines()
           if "wildcards:" in line and "model=" in line}
    assert ran == {"mine"}, ran
    assert all(p.stat().st_mtime_ns == t for p, t in stamps.items() if p != table)
    rows = pd.read_csv(table, index_col=0)
    assert {"CLIP", "My CLIP"} <= set(rows.index) and "CLIP (retried)" not in rows.index
    pd.testing.assert_series_equal(rows.loc["My CLIP"], rows.loc["CLIP"], check_names=False)
    config = yaml.safe_load((work / "mine.evaluate.yaml").read_text())
    assert list(config["benchmarks"]) == ["sugarcrepe"] and "flaky" not in config["models"]
    assert "My CLIP" in (work / "results" / "index.html").read_text()
    beside = pd.read_csv(work / "results" / "models" / "mine_vs_published.csv")
    assert set(beside.table) == {"sugarcrepe/sugarcrepe"} and beside["My CLIP"].notna().all()
    assert f"beside the published numbers: {work.resolve()}/results/models/" in done.stdout
    again = vlcomp(*args, "--plan", cwd=work)
    assert "nothing to run: every table is up to date" in again.stdout, again.stdout[-2000:]
