#!/usr/bin/env bash
# Set up the project on a fresh machine: a .venv with the pinned packages.
# Idempotent: installs only missing Debian packages, and skips the venv when it matches
# pyproject.toml and the lock file (requirements-lock.txt, written by scripts/lock.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the workflow needs, checked on every run (before the venv stamp, so adding one
# here reaches existing environments); only missing ones are installed (that needs root):
#   wordnet-base: Princeton WordNet 3.0 database in /usr/share/wordnet, copied by the `wordnet`
#                 rule into resources/wordnet/ (synonym/hypernym perturbations; no nltk.download).
#   chromium:     headless browser that opens `snakemake --report` HTML for its screenshot test
#                 (python -m vlcomp.report.screenshot).
DEBIAN_PACKAGES=(wordnet-base chromium)
if ((${#DEBIAN_PACKAGES[@]})); then
    missing=()
    for p in "${DEBIAN_PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    if ((${#missing[@]})); then
        apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
fi

PYTHON=${PYTHON:-python3.11}
stamp=.venv/.vlcomp-setup
want=$(cat pyproject.toml requirements-lock.txt | sha256sum | cut -d' ' -f1)

# The package's own modules, byte-compiled (quick when they are): where PYTHONDONTWRITEBYTECODE
# is set, as in some containers, nothing else writes their caches, and every job and every
# `snakemake` call would compile them again (0.3 CPU-seconds a dry run on a slow host).
compile_package() { .venv/bin/python -m compileall -q src >/dev/null; }

if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
    compile_package
    exit 0
fi

command -v "$PYTHON" >/dev/null || { echo "setup: $PYTHON not found (Python 3.11 is required)" >&2; exit 1; }
[[ -x .venv/bin/python ]] || "$PYTHON" -m venv .venv
.venv/bin/pip install --quiet --upgrade pip 2>/dev/null || true
# Exactly the lock (every package at its version, each file checked against its hash), then
# the checkout itself on top of it (editable; its build backend, setuptools, is in the lock).
.venv/bin/pip install --quiet --require-hashes --no-deps -r requirements-lock.txt
.venv/bin/pip install --quiet --no-deps --no-build-isolation -e .
echo "$want" > "$stamp"
compile_package
echo "setup: environment ready in .venv"
