"""The files a project needs beside its code: LICENSE (as pyproject says) and CITATION.cff
(the project, and the five papers it reproduces, as their texts title and author them)."""

from __future__ import annotations

import re
import tomllib

import yaml

from .conftest import REPO

PAPERS = REPO.parent / "shared" / "papers"


def words(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.casefold()).split())


def test_license_is_the_mit_text_pyproject_names():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    text = (REPO / "LICENSE").read_text()
    assert project["license"] == "MIT" and text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text


def test_citation_names_the_project_and_cites_the_five_papers():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    cff = yaml.safe_load((REPO / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["version"] == project["version"] and cff["license"] == project["license"]
    assert cff["title"].startswith(project["name"]) and cff["authors"]
    texts = [words(p.read_text("utf-8")) for p in sorted(PAPERS.glob("*.txt"))]
    assert len(texts) == 5 and len(cff["references"]) == 5
    cited = set()
    for ref in cff["references"]:
        found = [k for k, t in enumerate(texts) if words(ref["title"]) in t[:2000]]
        assert len(found) == 1, f"{ref['title']!r}: not the title of one paper"
        head = texts[found[0]][:3000]
        for author in ref["authors"]:
            assert words(author["family-names"]) in head, (ref["title"], author)
        assert re.fullmatch(r"https://arxiv\.org/abs/\d{4}\.\d{5}", ref["url"]), ref["url"]
        cited.add(found[0])
    assert cited == set(range(5))  # every paper once
