#!/usr/bin/env bash
# Lock every environment fully (vlcomp.envlock): requirements-lock.txt for the .venv, the pip
# sections of envs/*.yaml, envs/*-cuda12.yaml; then the image's recipe. Needs PyPI.
# To move a package: change its pin in pyproject.toml or envs/*.in (a transitive one: delete
# its line from requirements-lock.txt), then run this, scripts/setup.sh and the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m vlcomp.envlock
.venv/bin/python tests/test_container.py
