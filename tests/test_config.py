"""Configuration schema: the shipped configs validate; bad keys and types are named."""

from __future__ import annotations

import copy

import pytest
import yaml

from vlcomp.config import ConfigError, validate_config

from .conftest import REPO

SCHEMA = REPO / "config" / "schema.yaml"


def load(name: str) -> dict:
    return yaml.safe_load((REPO / name).read_text())


@pytest.mark.parametrize("name", ["config/config.yaml", "tests/data/tiny_config.yaml"])
def test_shipped_configs_validate(name):
    validate_config(load(name), SCHEMA)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda c: c["world"].update(colours=["red"]), "config.world: Additional properties"),
        (lambda c: c["world"]["splits"].update(train="many"),
         "config.world.splits.train: 'many' is not of type 'integer'"),
        (lambda c: c["benchmarks"].update(winoground={}), "config.benchmarks: Additional"),
        (lambda c: c["models"]["world_clip"].update(family="flava"), "config.models.world_clip"),
        (lambda c: c["models"]["world_clip"].update(run="nope"), "no training run 'nope'"),
        (lambda c: c["benchmarks"].pop("sugarcrepe"), "bivlc: needs"),
        (lambda c: c["train"]["world_clip"].update(epochs=-1), "config.train.world_clip.epochs"),
    ],
)
def test_errors_name_the_key(edit, message):
    config = copy.deepcopy(load("config/config.yaml"))
    edit(config)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        validate_config(config, SCHEMA)
