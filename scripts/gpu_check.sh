#!/usr/bin/env bash
# Run every model code path the paper run puts on a GPU (config/paper.yaml, compute.device:
# cuda) on that device and on the CPU, compare them, and time them: random-initialised real
# architectures, no network (src/vlcomp/bench/gpu_check.py).
#   bash scripts/gpu_check.sh [--device cuda|cpu] [--out FILE.json] [--quick] [--threads N]
# Needs torch, transformers, open_clip_torch (and ftfy), numpy, pandas, pyarrow, scipy,
# pyyaml, pillow, tqdm, safetensors. Writes gpu_check.json (or --out) in the current folder;
# exits non-zero when any check fails.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
python="$repo/.venv/bin/python"
[ -x "$python" ] || python="python3"
# cuBLAS's deterministic workspaces, before CUDA starts (vlcomp.determinism)
export CUBLAS_WORKSPACE_CONFIG="${CUBLAS_WORKSPACE_CONFIG:-:4096:8}"
export PYTHONPATH="$repo/src${PYTHONPATH:+:$PYTHONPATH}"
exec "$python" -m vlcomp.bench.gpu_check "$@"
