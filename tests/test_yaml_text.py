"""vlcomp.yaml_text reads every shipped YAML file to the values PyYAML's safe loader gives."""

from __future__ import annotations

import pytest
import yaml

from vlcomp.yaml_text import SAFE_LOADER, safe_load

from .conftest import REPO

SHIPPED = sorted([*REPO.glob("config/*.yaml"), *REPO.glob("src/vlcomp/**/*.yaml"),
                  *REPO.glob("profiles/**/*.yaml")])


def test_libyaml_is_used_where_installed():
    assert SAFE_LOADER is getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    assert yaml.__with_libyaml__, "PyYAML without libyaml: every snakemake call parses slower"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(REPO)))
def test_shipped_files_read_as_the_safe_loader_reads_them(path):
    text = path.read_text()
    assert safe_load(text) == yaml.safe_load(text)


def test_unsafe_tags_are_refused():
    with pytest.raises(yaml.YAMLError):
        safe_load("!!python/object/apply:os.system ['true']")
